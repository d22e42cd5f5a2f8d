"""NOWAIT: take back WAIT; the phase may end as soon as every power's orders are in."""
from __future__ import annotations

from gm.mail.commands import Context

NAME = "NOWAIT"
USAGE = "NOWAIT"
HELP = "take back WAIT: the phase may end as soon as all orders are in"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    phase = ctx.phase()
    if phase is None:
        ctx.reject(line, f"{ctx.game.name} has no phase under way")
        return
    ctx.player.waiting = False
    # The scheduler looks again: with every order in, the phase may end at once.
    ctx.lookups.orders_changed.add(ctx.game.id)
    ctx.changed = True
    ctx.accept(line, f"{phase.row.label} may end as soon as every power's orders are in")
