"""CLEAR: withdraw every order (and allocation) on file for your power this phase."""
from __future__ import annotations

from gm.i18n import _
from gm.lifecycle.phase_names import phase_name
from gm.mail.commands import Context, orders

NAME = "CLEAR"
USAGE = "CLEAR"
HELP = _("withdraw all your orders for this phase")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    phase = ctx.phase()
    if phase is None:
        ctx.reject(line, _("{game} takes no orders now", game=ctx.game.name))
        return
    orders.withdraw(ctx, phase.row, ctx.player.power)
    ctx.accept(line, _("all orders of {power} for {phase} withdrawn", power=ctx.player.power,
                       phase=phase_name(phase.row.label)))
