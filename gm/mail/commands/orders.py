"""Any line that is no command: an order, or a secret point allocation, for the signed-on power."""
from __future__ import annotations

from typing import Any

from sqlalchemy import Update, bindparam, insert, update

from gm.engine.adjudicator import check_order
from gm.engine.orders import Allocation, Order, Waive
from gm.engine.parse import parse_order
from gm.games import variant_of
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
    phase = ctx.phase()
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
    """Keep the order for the end of the mail (see write_orders): one statement per table then,
    not two per line."""
    table = SecretAllocation if type(order) is Allocation else OrderRecord
    key = unit_key(order)
    assert ctx.player is not None and ctx.game is not None
    row = {
        "game_id": ctx.game.id,
        "phase_id": phase_id,
        "player_id": ctx.player.id,
        "power": order.power,
        "text": line,
        "canonical": str(order),
        "unit": key,
        "current": True,
    }
    if table is SecretAllocation:
        row["points"] = order.points  # type: ignore[attr-defined]
    for earlier_table, earlier in ctx.pending_orders:
        if key and earlier_table is table and earlier["phase_id"] == phase_id and earlier["power"] == order.power \
                and earlier["unit"] == key:
            earlier["current"] = False  # replaced within the same mail
    ctx.pending_orders.append((table, row))
    ctx.changed = True


def _retire(table: type[OrderRecord] | type[SecretAllocation]) -> Update:
    t = table.__table__
    return (
        update(t)
        .where(
            t.c.phase_id == bindparam("for_phase"),
            t.c.power == bindparam("for_power"),
            t.c.unit.in_(bindparam("units", expanding=True)),
            t.c.current.is_(True),
        )
        .values(current=False)
    )


# Built once: a statement built afresh for every mail costs more than running it.
_RETIRE = {table: _retire(table) for table in (OrderRecord, SecretAllocation)}
_INSERT = {table: insert(table.__table__) for table in (OrderRecord, SecretAllocation)}


def write_orders(ctx: Context) -> None:
    """Write the orders of the mail: retire the earlier orders they replace, then insert them all.
    SQLAlchemy Core, not the ORM: a busy judge writes orders for every mail, and the rows are
    not needed as objects afterwards."""
    if not ctx.pending_orders:
        return
    inbound_id = ctx.record_mail()
    connection = ctx.session.connection()
    retired: dict[tuple[type, int, str], set[str]] = {}
    rows: dict[type, list[dict[str, Any]]] = {}
    for table, row in ctx.pending_orders:
        row["inbound_id"] = inbound_id
        if row["unit"]:
            retired.setdefault((table, row["phase_id"], row["power"]), set()).add(row["unit"])
        rows.setdefault(table, []).append(row)
    for (table, phase_id, power), units in retired.items():
        connection.execute(_RETIRE[table], {"for_phase": phase_id, "for_power": power, "units": sorted(units)})
    for table, new in rows.items():
        connection.execute(_INSERT[table], new)
    ctx.pending_orders = []
