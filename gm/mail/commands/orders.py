"""Any line that is no command: an order, or a secret point allocation, for the signed-on power."""
from __future__ import annotations

from sqlalchemy import update

from gm.engine.adjudicator import check_order
from gm.engine.orders import Allocation, Order, Waive
from gm.engine.parse import parse_order
from gm.games import current_phase, variant_of
from gm.mail.commands import Context
from gm.store.models import GameStatus, OrderRecord, SecretAllocation

NAME = "<order>"


def run(ctx: Context, line: str) -> None:
    if ctx.player is None or ctx.game is None:
        ctx.reject(line, "not a command, and not an order: sign on first (SIGNON <power> <game> <password>)")
        return
    if ctx.game.status != GameStatus.ACTIVE:
        ctx.reject(line, f"{ctx.game.name} is not under way: it takes no orders")
        return
    phase = current_phase(ctx.session, ctx.game)
    if phase is None:
        ctx.reject(line, f"{ctx.game.name} takes no orders now")
        return
    variant = variant_of(ctx.game)
    power = ctx.player.power
    assert power is not None
    parsed = parse_order(variant, line, power, phase.state.phase.kind, phase.state)
    if parsed.order is None:
        ctx.reject(line, parsed.error or "not understood")
        return
    order = parsed.order
    if order.power != power:
        ctx.reject(line, f"you are signed on as {power}")
        return
    why = check_order(variant, phase.state, order)
    if why:
        ctx.reject(line, why)
        return
    store(ctx, phase.row.id, order, line)
    ctx.accept(line, str(order))


def unit_key(order: Order) -> str:
    """Which earlier order a new one replaces: the one for the same unit (waives never replace)."""
    return "" if type(order) is Waive else order.province


def store(ctx: Context, phase_id: int, order: Order, line: str) -> None:
    table = SecretAllocation if type(order) is Allocation else OrderRecord
    key = unit_key(order)
    assert ctx.player is not None and ctx.game is not None
    if key:
        ctx.session.execute(
            update(table)
            .where(
                table.phase_id == phase_id,
                table.power == order.power,
                table.unit == key,
                table.current.is_(True),
            )
            .values(current=False)
        )
    row = table(
        game_id=ctx.game.id,
        phase_id=phase_id,
        player_id=ctx.player.id,
        power=order.power,
        text=line,
        canonical=str(order),
        unit=key,
        inbound_id=ctx.inbound.id,
    )
    if isinstance(row, SecretAllocation):
        row.points = order.points  # type: ignore[attr-defined]
    ctx.session.add(row)
    ctx.changed = True
