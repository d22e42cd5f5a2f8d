"""Retreats in a turn of impulses (gm/engine/impulses.py): made after the impulse of the attack,
as ordered with the moves or else by the rules toward the nearest centre; leaders', who are never
disbanded for want of an order and displace a friendly army (1700AD II, rules 5 and 7). Pure."""
from __future__ import annotations

from collections import deque
from typing import Callable, Mapping, Sequence

from gm.engine.model import Dislodged, GameState, Phase, PhaseKind, Unit, UnitType, province_of
from gm.engine.orders import Disband, Order, Retreat
from gm.engine.results import OrderResult, Result
from gm.engine.retreat import resolve_retreats, retreat_options
from gm.engine.variant import Variant
from gm.i18n import _


def retreat_after_impulse(variant: Variant, now: GameState, after: dict[str, Unit], contested: frozenset[str],
             dislodged: dict[str, Dislodged], orders: Sequence[Order], retreats: Mapping[str, int],
             used: set[int], allowed: Callable[[str, str], bool] | None = None
             ) -> tuple[dict[str, Unit], list[OrderResult], list[Unit], list[str], dict[str, Dislodged]]:
    """The impulse's retreats: as ordered, else toward the nearest centre (rule 5); then the
    leaders', who may displace a friendly army (rule 7). `allowed(power, province)`: where the
    rules let the unit stand at all. Returns the units after, the retreats' results, the units
    disbanded, the provinces retreated to and the dislodged units with where they could go."""
    moved = now.with_(units=after, dislodged={}, contested=frozenset())
    options = {p: Dislodged(d.unit, d.attacker_from,
                            tuple(loc for loc in retreat_options(variant, moved, after, contested, d)
                                  if (allowed is None or allowed(d.unit.power, province_of(loc)))
                                  and _fits(variant, d.unit, province_of(loc))))
               for p, d in dislodged.items() if not d.unit.leader}
    chosen: list[Order] = []
    automatic: set[int] = set()
    for prov, d in sorted(options.items()):
        i = retreats.get(prov)
        if i is not None and orders[i].power == d.unit.power:
            used.add(i)
            chosen.append(orders[i])
            continue
        dest = nearest_retreat(variant, now, prov, d)
        if dest is not None:
            automatic.add(len(chosen))
            chosen.append(Retreat(d.unit.power, d.unit.type, d.unit.location, dest))
    retreating = GameState(Phase(now.phase.year, now.phase.season, PhaseKind.RETREAT), after, now.supply_centres,
                           now.home_centres, options, contested, now.extra)
    results, units, gone = resolve_retreats(variant, retreating, chosen)
    shown = [OrderResult(r.order, r.result, r.reason or _BY_THE_RULES) if k in automatic else r
             for k, r in enumerate(results)]
    placed = [province_of(o.dest) for o, r in zip(chosen, results) if type(o) is Retreat and r.result is Result.SUCCEEDS]  # type: ignore[attr-defined]
    for prov, d in sorted(dislodged.items()):
        if d.unit.leader:
            units = _leader_retreat(variant, now, units, contested, prov, d, orders, retreats, used, shown, gone, placed,
                                    options)
    return units, shown, gone, placed, options


_BY_THE_RULES = _("made by the rules: toward the nearest centre")


def _fits(variant: Variant, unit: Unit, province: str) -> bool:
    """Whether a retreating stack of fleets may stand whole in `province` (rule 8: two fleets to a
    coast); it does not split to retreat."""
    limit = variant.rules.fleet_stack(variant, province) if unit.n_fleets and variant.rules.separate_fleets else None
    return limit is None or unit.n_fleets <= limit


def _leader_retreat(variant: Variant, now: GameState, units: dict[str, Unit], contested: frozenset[str], prov: str,
                    d: Dislodged, orders: Sequence[Order], retreats: Mapping[str, int], used: set[int],
                    shown: list[OrderResult], gone: list[Unit], placed: list[str],
                    options: dict[str, Dislodged]) -> dict[str, Unit]:
    """A dislodged leader retreats as ordered, else toward the nearest centre even when he gets
    no closer (he is never disbanded for want of an order); into an empty space or one held by a
    friendly army, which he displaces: it retreats by the rules, or is disbanded (rule 7)."""
    leader = d.unit
    spaces = tuple(sorted(p for p in variant.map.army.get(prov, ())
                          if p != d.attacker_from and p not in contested and
                          ((u := units.get(p)) is None or (u.power == leader.power and u.type is UnitType.ARMY and not u.leader))))
    options[prov] = Dislodged(leader, d.attacker_from, spaces)
    i = retreats.get(prov)
    ordered = orders[i] if i is not None and orders[i].power == leader.power else None
    if ordered is not None:
        used.add(i)  # type: ignore[arg-type]
    if type(ordered) is Retreat and province_of(ordered.dest) in spaces:  # type: ignore[attr-defined]
        dest, reason = province_of(ordered.dest), ""  # type: ignore[attr-defined]
    elif type(ordered) is Disband:
        shown.append(OrderResult(ordered, Result.SUCCEEDS, ""))
        gone.append(leader)
        return units
    else:
        dest, reason = nearest_retreat(variant, now, prov, Dislodged(leader, d.attacker_from, spaces), closer=False), _BY_THE_RULES
        if ordered is not None:
            shown.append(OrderResult(ordered, Result.VOID, _("{leader} cannot retreat to {destination}", leader=leader.leader,
                                                             destination=variant.map.name(ordered.dest))))  # type: ignore[attr-defined]
    if dest is None:
        gone.append(leader)
        return units
    order = ordered if reason == "" else Retreat(leader.power, UnitType.ARMY, leader.location, dest)
    units = dict(units)
    displaced = units.get(dest)
    units[dest] = leader.at(dest)
    placed.append(dest)
    if displaced is None:
        shown.append(OrderResult(order, Result.SUCCEEDS, reason))  # type: ignore[arg-type]
        return units
    where = variant.map.name(dest)
    shown.append(OrderResult(order, Result.SUCCEEDS,  # type: ignore[arg-type]
                             _("made by the rules: toward the nearest centre; displaces the army in {province}",
                               province=where) if reason else _("displaces the army in {province}", province=where)))
    moved = now.with_(units=units, dislodged={}, contested=frozenset())
    pushed = Dislodged(displaced, None, ())
    pushed = Dislodged(displaced, None, tuple(p for p in retreat_options(variant, moved, units, contested, pushed) if p != prov))
    to = nearest_retreat(variant, now, dest, pushed)
    if to is None:
        gone.append(displaced)
        shown.append(OrderResult(Disband(displaced.power, displaced.type, displaced.location), Result.SUCCEEDS,
                                 _("displaced by {leader}, with no retreat toward a centre", leader=leader.leader)))
        return units
    units[province_of(to)] = displaced.at(to)
    placed.append(province_of(to))
    shown.append(OrderResult(Retreat(displaced.power, displaced.type, displaced.location, to), Result.SUCCEEDS,
                             _("displaced by {leader}: made by the rules: toward the nearest centre", leader=leader.leader)))
    return units


def nearest_retreat(variant: Variant, state: GameState, prov: str, d: Dislodged, closer: bool = True) -> str | None:
    """Where the rules retreat a dislodged unit nobody ordered: one space closer to the nearest
    centre its power owns (other than the one it leaves), home centres first on a tie, then in
    alphabetical order; None when no retreat gets closer (unless not `closer`: a leader's)."""
    if not d.retreats:
        return None
    power = d.unit.power
    homes = state.home_centres.get(power, frozenset())
    army = d.unit.type is UnitType.ARMY and not d.unit.n_fleets
    best: tuple[int, bool, str, str] | None = None
    here = None
    for centre in sorted(c for c, owner in state.supply_centres.items() if owner == power and c != prov):
        distance = _distances(variant, centre, army)
        if prov in distance:
            here = min(here, distance[prov]) if here is not None else distance[prov]
        for loc in d.retreats:
            n = distance.get(province_of(loc))
            if n is None:
                continue
            key = (n, centre not in homes, centre, loc)
            if best is None or key < best:
                best = key
    if best is None:
        return None if closer else min(d.retreats)
    if closer and (here is None or best[0] >= here):
        return None
    return best[3]


def _distances(variant: Variant, centre: str, army: bool) -> dict[str, int]:
    """Province -> moves an army (or a fleet) needs to reach `centre`."""
    game_map = variant.map
    out = {centre: 0}
    queue = deque([centre])
    while queue:
        prov = queue.popleft()
        near = game_map.army.get(prov, ()) if army else game_map.sea_neighbours.get(prov, ())
        for other in near:
            if other not in out:
                out[other] = out[prov] + 1
                queue.append(other)
    return out
