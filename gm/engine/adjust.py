"""Adjustments: builds, removals, waived builds and civil-disorder removals."""
from __future__ import annotations

from collections import deque
from typing import Sequence

from gm.engine.graph import Terrain
from gm.engine.model import GameState, Unit, UnitType
from gm.engine.orders import Build, Disband, Order, Waive
from gm.engine.results import OrderResult, Result
from gm.engine.variant import Variant


def adjustment_counts(variant: Variant, state: GameState) -> dict[str, int]:
    """Builds (positive) or removals (negative) each power is due; only powers with something to do."""
    rules = variant.rules
    centres = dict.fromkeys(variant.powers, 0)
    for owner in state.supply_centres.values():
        centres[owner] = centres.get(owner, 0) + 1
    units = dict.fromkeys(centres, 0)
    for unit in state.units.values():
        units[unit.power] = units.get(unit.power, 0) + 1
    counts: dict[str, int] = {}
    for power, held in units.items():
        diff = rules.unit_allowance(variant, state, power, centres.get(power, 0)) - held
        if diff and not rules.adjusts(variant, state, power):
            continue  # minor powers never build or remove by default: the rules restore their units
        if diff > 0:
            sites = {p for p in rules.build_sites(variant, state, power) if p not in state.units}
            limit = rules.max_builds(variant, state, power)
            diff = min(diff, len(sites), limit if limit is not None else diff)
        if diff:
            counts[power] = diff
    return counts


def resolve_adjustments(
    variant: Variant, state: GameState, orders: Sequence[Order]
) -> tuple[list[OrderResult], dict[str, Unit], list[Unit]]:
    """Results, the units after the adjustments, and the units removed by civil disorder."""
    counts = adjustment_counts(variant, state)
    units = dict(state.units)
    for unit in variant.rules.winter_units(variant, state):
        units[unit.province] = unit
    results: list[OrderResult] = []
    used: dict[str, int] = {}
    removed_for: dict[str, int] = {}
    built: dict[str, list[str]] = {}
    name = variant.map.name
    for order in orders:
        power = order.power
        due = counts.get(power, 0)
        if isinstance(order, (Build, Waive)):
            if due <= 0:
                results.append(OrderResult(order, Result.VOID, f"{power} has no builds this winter"))
            elif used.get(power, 0) >= due:
                results.append(OrderResult(order, Result.VOID, f"{power} has already used all {due} of its builds"))
            elif isinstance(order, Waive):
                used[power] = used.get(power, 0) + 1
                results.append(OrderResult(order, Result.SUCCEEDS))
            else:
                sites = variant.rules.build_sites(variant, state, power, built.setdefault(power, []))
                why = _check_build(variant, state, units, sites, order)
                if why:
                    results.append(OrderResult(order, Result.VOID, why))
                else:
                    built[power].append(order.province)
                    used[power] = used.get(power, 0) + 1
                    units[order.province] = Unit(power, order.unit_type, order.location)  # type: ignore[arg-type]
                    results.append(OrderResult(order, Result.SUCCEEDS))
        elif isinstance(order, Disband):
            unit = units.get(order.province)
            if due >= 0:
                results.append(OrderResult(order, Result.VOID, f"{power} has no units to remove this winter"))
            elif unit is None or unit.power != power or order.province not in state.units:
                results.append(OrderResult(order, Result.VOID, f"{power} has no unit in {name(order.province)} to remove"))
            elif order.unit_type is not None and order.unit_type is not unit.type:
                results.append(OrderResult(order, Result.VOID, f"the unit in {name(order.province)} is {'an army' if unit.type is UnitType.ARMY else 'a fleet'}"))
            elif removed_for.get(power, 0) >= -due:
                results.append(OrderResult(order, Result.VOID, f"{power} has already removed all {-due} units it must"))
            else:
                removed_for[power] = removed_for.get(power, 0) + 1
                del units[order.province]
                results.append(OrderResult(order, Result.SUCCEEDS))
        else:
            results.append(OrderResult(order, Result.VOID, "only build, remove and waive orders are given in winter"))
    disbanded: list[Unit] = []
    for power, due in sorted(counts.items()):
        missing = -due - removed_for.get(power, 0)
        if due < 0 and missing > 0:
            for unit in civil_disorder_removals(variant, state, [u for u in units.values() if u.power == power], missing):
                del units[unit.province]
                disbanded.append(unit)
    return results, units, disbanded


def _check_build(variant: Variant, state: GameState, units: dict[str, Unit], sites: set[str], order: Build) -> str:
    prov = order.province
    name = variant.map.name(prov)
    if prov not in variant.map.provinces:
        return f"{prov} is not a province"
    if order.unit_type is None:
        return "say whether to build an army or a fleet"
    if prov not in sites:
        if not variant.map.provinces[prov].supply_centre:
            return f"{name} is not a supply centre"
        return f"{order.power} cannot build in {name}"
    if prov in units:
        return f"{name} is not vacant"
    barred = variant.rules.build_refusal(variant, state, order)
    if barred:
        return barred
    terrain = variant.map.provinces[prov].terrain
    if order.unit_type is UnitType.ARMY:
        return "" if terrain in (Terrain.LAND, Terrain.COAST) else f"an army cannot stand in {name}"
    locations = variant.map.fleet_locations(prov)
    if not locations:
        return f"a fleet cannot be built in {name}: it has no coast"
    if order.location not in locations:
        return f"name the coast of {name} to build the fleet on" if order.location == prov else f"{variant.map.name(order.location)} is no coast of {name}"
    return ""


def civil_disorder_removals(variant: Variant, state: GameState, units: list[Unit], count: int) -> list[Unit]:
    """The units a power that ordered too few removals loses: farthest from its home centres first,
    fleets before armies at equal distance, then by province name (2000 rulebook; DATC 6.J)."""
    homes = state.home_centres.get(units[0].power, frozenset()) if units else frozenset()
    game_map = variant.map

    def distance(unit: Unit) -> int:
        # Armies count distance over land and across water (as if convoyed).
        graph = game_map.sea_neighbours if unit.type is UnitType.FLEET else game_map.all_neighbours
        seen = {unit.province}
        queue = deque([(unit.province, 0)])
        while queue:
            here, d = queue.popleft()
            if here in homes:
                return d
            for nxt in graph.get(here, ()):
                if nxt not in seen:
                    seen.add(nxt)
                    queue.append((nxt, d + 1))
        return 1_000_000  # cannot reach home at all: farthest of all

    ranked = sorted(
        units,
        key=lambda u: (-distance(u), u.type is not UnitType.FLEET, game_map.provinces[u.province].name),
    )
    return ranked[:count]

