"""CLEAR: withdraw every order (and allocation) on file for your power this phase."""
from __future__ import annotations

from gm.mail.commands import Context, orders

NAME = "CLEAR"
USAGE = "CLEAR"
HELP = "withdraw all your orders for this phase"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    phase = ctx.phase()
    if phase is None:
        ctx.reject(line, f"{ctx.game.name} takes no orders now")
        return
    orders.withdraw(ctx, phase.row, ctx.player.power)
    ctx.accept(line, f"all orders of {ctx.player.power} for {phase.row.label} withdrawn")
