"""Retreats: where a dislodged unit may go, and the resolution of a retreat phase."""
from __future__ import annotations

from typing import Sequence

from gm.engine.model import Dislodged, GameState, Unit, UnitType, province_of
from gm.engine.orders import Disband, Order, Retreat
from gm.engine.results import OrderResult, Result
from gm.engine.variant import Variant
from gm.i18n import _


def retreat_options(
    variant: Variant, state: GameState, units_after: dict[str, Unit], contested: frozenset[str], d: Dislodged
) -> tuple[str, ...]:
    """The locations a dislodged unit may retreat to: empty, not the attacker's origin, no standoff."""
    if not variant.rules.may_retreat(variant, state, d.unit):
        return ()
    blocked = variant.rules.blocked_moves(variant, state)  # `state`: the position before retreats
    unit = d.unit
    if unit.type is UnitType.ARMY:
        candidates = variant.map.army.get(unit.province, ())
    else:
        candidates = variant.map.fleet.get(unit.location, ())
    out = []
    seas = variant.map.seas
    for loc in candidates:
        prov = province_of(loc)
        if prov in units_after or prov in contested or prov == d.attacker_from:
            continue
        if unit.armies > unit.count and prov in seas:
            continue  # armies at sea need a fleet each (multiple units)
        if blocked.get((unit.province, prov), unit.power) != unit.power:
            continue
        out.append(loc)
    return tuple(sorted(out))


def resolve_retreats(
    variant: Variant, state: GameState, orders: Sequence[Order]
) -> tuple[list[OrderResult], dict[str, Unit], list[Unit]]:
    """Results, the units after the retreats, and the units disbanded."""
    results: list[OrderResult | None] = [None] * len(orders)
    chosen: dict[str, int] = {}  # dislodged province -> index of its order
    name = variant.map.name
    for i, order in enumerate(orders):
        d = state.dislodged.get(order.province)
        if not isinstance(order, (Retreat, Disband)):
            results[i] = OrderResult(order, Result.VOID, _("only retreat and disband orders are given in a retreat phase"))
        elif d is None:
            results[i] = OrderResult(order, Result.VOID, _("there is no dislodged unit in {province}",
                                                           province=name(order.province)))
        elif d.unit.power != order.power:
            results[i] = OrderResult(order, Result.VOID, _("the dislodged unit in {province} belongs to {power}",
                                                           province=name(order.province), power=d.unit.power))
        elif order.unit_type is not None and not (d.unit.n_armies if order.unit_type is UnitType.ARMY else d.unit.n_fleets):
            where = name(order.province)
            results[i] = OrderResult(order, Result.VOID, _("the dislodged unit in {province} is an army", province=where)
                                     if d.unit.type is UnitType.ARMY else
                                     _("the dislodged unit in {province} is a fleet", province=where))
        else:
            if order.province in chosen:
                k = chosen[order.province]
                results[k] = OrderResult(orders[k], Result.VOID, _("replaced by a later order for the same unit"))
            chosen[order.province] = i
    targets: dict[str, list[int]] = {}
    dest_of: dict[int, str] = {}
    for prov, i in chosen.items():
        order = orders[i]
        if isinstance(order, Disband):
            results[i] = OrderResult(order, Result.SUCCEEDS)
            continue
        options = state.dislodged[prov].retreats
        dest = order.dest
        if dest not in options:
            matches = [o for o in options if province_of(o) == province_of(dest)]
            if len(matches) == 1 and (dest == province_of(dest) or not variant.map.provinces[province_of(dest)].coasts):
                dest = matches[0]
            else:
                results[i] = OrderResult(order, Result.VOID, _("the unit dislodged from {province} cannot retreat to "
                                                               "{destination}", province=name(prov),
                                                               destination=name(order.dest)))
                continue
        dest_of[i] = dest
        targets.setdefault(province_of(dest), []).append(i)
    units = dict(state.units)
    for prov, idx in targets.items():
        if len(idx) > 1:
            for i in idx:
                results[i] = OrderResult(orders[i], Result.FAILS, _("bounced in {province}: the unit is disbanded",
                                                                    province=name(prov)))
        else:
            i = idx[0]
            unit = state.dislodged[orders[i].province].unit
            units[prov] = unit.at(dest_of[i])
            results[i] = OrderResult(orders[i], Result.SUCCEEDS)
    retreated = {orders[i].province for idx in targets.values() if len(idx) == 1 for i in idx}
    disbanded = [d.unit for p, d in sorted(state.dislodged.items()) if p not in retreated]
    return [r for r in results if r is not None], units, disbanded
