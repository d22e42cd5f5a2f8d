"""WAIT: keep the current phase open until its deadline, even once every power's orders are in."""
from __future__ import annotations

from gm.lifecycle.house_rules import rules_of
from gm.mail.commands import Context
from gm.mail.outgoing.game_mail import deadline_text

NAME = "WAIT"
ALIASES = ("SET WAIT",)  # njudge's spelling
USAGE = "WAIT"
HELP = ("this phase is not to end before its deadline, even when all orders are in (NOWAIT undoes it; "
        "njudge's SET WAIT too)")


def run(ctx: Context, args: list[str], line: str) -> None:
    set_waiting(ctx, line, True)


def set_waiting(ctx: Context, line: str, waiting: bool) -> None:
    """WAIT (True) or NOWAIT (False) for the signed-on player, this phase."""
    if not ctx.signed_on(line):
        return
    phase = ctx.phase()
    if phase is None:
        ctx.reject(line, f"{ctx.game.name} has no phase under way")
        return
    ctx.player.waiting = waiting
    # The scheduler looks again: with WAIT it no longer ends the phase early; with NOWAIT and
    # every order in, it may end it at once.
    ctx.lookups.orders_changed.add(ctx.game.id)
    ctx.changed = True
    if not waiting:
        ctx.accept(line, f"{phase.row.label} may end as soon as every power's orders are in")
        return
    deadline = phase.row.deadline_at or ctx.game.deadline_at
    until = f" ({deadline_text(deadline, rules_of(ctx.game.options).timezone)})" if deadline is not None else ""
    ctx.accept(line, f"{phase.row.label} will not end before its deadline{until}")
