"""The fleets' second move (Napoleonic Wars, rule 6): after all first moves and their retreats,
every fleet whose first move did not fail may move again into a sea, or support another fleet's
second move; nothing else moves. Orders for it are given with the first (TwoPhase orders) and
wait in GameState.extra across a retreat phase. Pure."""
from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from gm.engine.graph import Terrain
from gm.engine.model import Dislodged, GameState, Unit, UnitType, province_of
from gm.engine.orders import Blockade, Move, Order, SecondPhase, SupportMove, TwoPhase
from gm.engine.movement import resolve_movement
from gm.engine.results import OrderResult, Result
from gm.engine.variant import Variant
from gm.i18n import _

PENDING = "second_moves"  # GameState.extra: the second moves waiting for a retreat phase to end


def split(orders: Sequence[Order]) -> tuple[list[Order], list[TwoPhase]]:
    """The first orders to resolve now, and the two-phase orders they came from."""
    if not any(type(o) is TwoPhase for o in orders):
        return list(orders), []
    firsts: list[Order] = []
    pairs: list[TwoPhase] = []
    for o in orders:
        if type(o) is TwoPhase:
            firsts.append(o.first)
            pairs.append(o)
        else:
            firsts.append(o)
    return firsts, pairs


def eligible(variant: Variant, state: GameState, pairs: Sequence[TwoPhase], results: Sequence[OrderResult],
             units: dict[str, Unit], dislodged: dict[str, Dislodged]) -> tuple[list[Order], list[OrderResult]]:
    """The second orders that may be carried out, and the results of those that may not: a fleet
    moves again unless its first move failed (or its first order was void or a blockade), it was
    dislodged, or the second order is not for where the first move left it."""
    outcome = {id(r.order): r for r in results}
    name = variant.map.name
    pending: list[Order] = []
    refused: list[OrderResult] = []
    for pair in pairs:
        first, second = pair.first, pair.second
        first_result = outcome.get(id(first))
        fleet = state.units.get(first.province)
        why: str = ""
        if not variant.rules.fleets_move_twice:
            why = _("{variant} has no second moves", variant=variant.title)
        elif fleet is None or fleet.type is not UnitType.FLEET:
            why = _("only a fleet moves twice")
        elif first_result is None or first_result.result is Result.VOID:
            why = _("the fleet's first order was void")
        elif type(first) is Blockade:
            why = _("a blockading fleet stays where it is all season")
        elif type(first) is Move and first_result.result is not Result.SUCCEEDS:
            why = _("the fleet's first move failed")
        elif first.province in dislodged and dislodged[first.province].unit == fleet:
            why = _("the fleet was dislodged")
        else:
            now = province_of(first.dest) if type(first) is Move else first.province  # type: ignore[attr-defined]
            if second.province != now:
                why = _("the fleet is in {province} for its second move, not in {other}",
                        province=name(units[now].location), other=name(second.location))
            elif type(second) is Move and variant.map.provinces[province_of(second.dest)].terrain is not Terrain.SEA:  # type: ignore[attr-defined]
                why = _("a second move goes only into a sea")
            elif type(second) not in (Move, SupportMove):
                why = _("a second move is a move, or a support of another fleet's second move")
            else:
                location = units[now].location
                pending.append(second if second.location == location else _at(second, location))
        if why:
            refused.append(OrderResult(SecondPhase(second.power, second.unit_type, second.location, second),
                                       Result.VOID, why))
    return pending, refused


def _at(order: Order, location: str) -> Order:
    return replace(order, unit_type=UnitType.FLEET, location=location)


def resolve(variant: Variant, state: GameState, pending: Sequence[Order]
            ) -> tuple[list[OrderResult], dict[str, Unit], dict[str, Dislodged], frozenset[str]]:
    """The second moves, in the position after the first moves and their retreats: only the
    fleets' moves and supports are ordered; every other unit stays where it is."""
    results, units, dislodged, contested = resolve_movement(variant, state, pending)
    shown = [OrderResult(SecondPhase(r.order.power, r.order.unit_type, r.order.location, r.order), r.result, r.reason)
             for r in results]
    return shown, units, dislodged, contested


def to_json(pending: Sequence[Order]) -> list[list[object]]:
    out: list[list[object]] = []
    for o in pending:
        if type(o) is Move:
            row: list[object] = ["move", o.power, o.location, o.dest]  # type: ignore[attr-defined]
        else:
            t = o.target_type.value if o.target_type else ""  # type: ignore[attr-defined]
            row = ["support", o.power, o.location, o.target, o.dest, t]  # type: ignore[attr-defined]
        if o.part is not None or getattr(o, "merge", False):  # multiple units: which fleets, merging or not
            row += [list(o.part) if o.part else None, bool(getattr(o, "merge", False))]
        out.append(row)
    return out


def from_json(data: object) -> list[Order]:
    out: list[Order] = []
    for row in data or ():  # type: ignore[attr-defined]
        extended = len(row) == (6 if row[0] == "move" else 8)  # with the part and MERGE
        part = tuple(row[-2]) if extended and row[-2] else None
        merge = extended and bool(row[-1])
        if row[0] == "move":
            out.append(Move(row[1], UnitType.FLEET, row[2], row[3], merge=merge, part=part))
        else:
            out.append(SupportMove(row[1], UnitType.FLEET, row[2], row[3], row[4], UnitType(row[5]) if row[5] else None,
                                   part=part))
    return out
