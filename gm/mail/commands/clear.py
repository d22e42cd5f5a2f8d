"""CLEAR: withdraw every order (and allocation) on file for your power this phase."""
from __future__ import annotations

from sqlalchemy import update

from gm.mail.commands import Context
from gm.store.models import OrderRecord, SecretAllocation

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
    for table in (OrderRecord, SecretAllocation):
        ctx.session.execute(
            update(table)
            .where(table.phase_id == phase.row.id, table.power == ctx.player.power, table.current.is_(True))
            .values(current=False)
        )
    ctx.changed = True
    ctx.accept(line, f"all orders of {ctx.player.power} for {phase.row.label} withdrawn")
