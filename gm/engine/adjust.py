"""Adjustments: builds, removals, waived builds and civil-disorder removals."""
from __future__ import annotations

from collections import deque
from typing import Sequence

from gm.engine.graph import Terrain
from gm.engine.model import GameState, Unit, UnitType
from gm.engine.multiple import acting_part
from gm.engine.orders import Build, Disband, Order, Waive
from gm.engine.results import OrderResult, Result
from gm.engine.variant import Variant
from gm.i18n import _, _n


def adjustment_counts(variant: Variant, state: GameState) -> dict[str, int]:
    """Builds (positive) or removals (negative) each power is due; only powers with something to do."""
    rules = variant.rules
    centres = dict.fromkeys(variant.powers, 0)
    for owner in state.supply_centres.values():
        centres[owner] = centres.get(owner, 0) + 1
    units = dict.fromkeys(centres, 0)
    if rules.fleets_per_centre > 1:  # fleets count together: a power's units as a whole
        mine: dict[str, list[Unit]] = {}
        for unit in state.units.values():
            mine.setdefault(unit.power, []).append(unit)
        for power, held in mine.items():
            units[power] = supply_needed(variant, held)
    else:
        for unit in state.units.values():
            units[unit.power] = units.get(unit.power, 0) + unit.size  # a multiple unit needs a centre for each part
    counts: dict[str, int] = {}
    for power, held in units.items():
        diff = rules.unit_allowance(variant, state, power, centres.get(power, 0)) - held
        if diff and not rules.adjusts(variant, state, power):
            continue  # minor powers never build or remove by default: the rules restore their units
        if diff > 0:
            sites = {p for p in rules.build_sites(variant, state, power) if _vacant(variant, state.units, p, power)}
            limit = rules.max_builds(variant, state, power)
            diff = min(diff, len(sites), limit if limit is not None else diff)
        if diff:
            counts[power] = diff
    return counts


def supply_needed(variant: Variant, units: Sequence[Unit]) -> int:
    """Supply centres a power's units need: one for each army, one for every so many fleets
    (Rules.fleets_per_centre), none for a leader."""
    per = variant.rules.fleets_per_centre
    armies = sum(u.n_armies for u in units if not u.leader)
    fleets = sum(u.n_fleets for u in units)
    return armies + -(-fleets // per)


def _vacant(variant: Variant, units: dict[str, Unit], province: str, power: str) -> bool:
    """May `power` build in `province` as far as the units there go? With multiple units, a
    build may join the power's own unit there (Multiplicity); where fleets stand apart, fleets
    join a land unit and a land unit fleets (the rules' build_refusal says how many fit)."""
    unit = units.get(province)
    rules = variant.rules
    return unit is None or ((rules.multiple_units or rules.separate_fleets) and unit.power == power)


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
    per = variant.rules.fleets_per_centre
    for order in orders:
        power = order.power
        due = counts.get(power, 0)
        if isinstance(order, (Build, Waive)):
            n = sum(order.part) if order.part and per == 1 else 1  # 'Build 2A Par' (multiple units) is two builds
            if due <= 0:
                results.append(OrderResult(order, Result.VOID, _("{power} has no builds this winter", power=power)))
            elif used.get(power, 0) >= due:
                results.append(OrderResult(order, Result.VOID, _n("{power} has already used all {count} of its builds",
                                                                  "{power} has already used all {count} of its builds",
                                                                  due, power=power)))
            elif used.get(power, 0) + n > due:
                left = due - used.get(power, 0)
                results.append(OrderResult(order, Result.VOID, _n("{power} has only {count} build left",
                                                                  "{power} has only {count} builds left", left, power=power)))
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
                    used[power] = used.get(power, 0) + n
                    units[order.province] = _built(units.get(order.province), order, per)
                    results.append(OrderResult(order, Result.SUCCEEDS))
        elif isinstance(order, Disband):
            unit = units.get(order.province)
            part = _removed_part(variant, unit, order) if unit is not None else None
            if per > 1 and type(part) is tuple and part[1] and order.part is None:
                part = (part[0], min(per, unit.n_fleets))  # type: ignore[union-attr]  # fleets go so many a centre
            if due >= 0:
                results.append(OrderResult(order, Result.VOID, _("{power} has no units to remove this winter", power=power)))
            elif unit is None or unit.power != power or order.province not in state.units:
                results.append(OrderResult(order, Result.VOID, _("{power} has no unit in {province} to remove", power=power,
                                                                 province=name(order.province))))
            elif isinstance(part, str):
                results.append(OrderResult(order, Result.VOID, part))
            elif unit.leader:
                # TRANSLATORS: {leader} is a leader's name (1700AD II): 'Marlborough'
                results.append(OrderResult(order, Result.VOID, _("{leader} is a leader: he needs no centre, so removing him "
                                                                 "removes nothing due", leader=unit.leader)))
            elif variant.map.is_sea(unit.province) and unit.n_armies - part[0] > unit.n_fleets - part[1]:  # type: ignore[index]
                results.append(OrderResult(order, Result.VOID, _("the armies aboard in {province} would be left without "
                                                                 "fleets to carry them: remove an army first, or the whole "
                                                                 "unit", province=name(unit.province))))
            elif removed_for.get(power, 0) + _count(part, per) > -due:  # type: ignore[arg-type]
                more = -due - removed_for.get(power, 0)
                results.append(OrderResult(order, Result.VOID, _n("{power} has already removed all {count} units it must",
                                                                  "{power} has already removed all {count} units it must",
                                                                  -due, power=power)
                                           if more <= 0 else
                                           _n("{power} has only {count} more units to remove",
                                              "{power} has only {count} more units to remove", more, power=power)))
            else:
                removed_for[power] = removed_for.get(power, 0) + _count(part, per)  # type: ignore[arg-type]
                left = (unit.n_armies - part[0], unit.n_fleets - part[1])  # type: ignore[index]
                if any(left):
                    units[order.province] = Unit.of(power, unit.location if left[1] else unit.province, *left,
                                                    unit.at_sea, unit.leader)
                else:
                    del units[order.province]
                results.append(OrderResult(order, Result.SUCCEEDS))
        else:
            results.append(OrderResult(order, Result.VOID, _("only build, remove and waive orders are given in winter")))
    disbanded: list[Unit] = []
    for power, due in sorted(counts.items()):
        missing = -due - removed_for.get(power, 0)
        if due < 0 and missing > 0:
            mine = [u for u in units.values() if u.power == power and u.size]  # leaders need no centre
            if any(not u.single for u in mine):
                mine = [p for u in mine for p in _singles(u)]  # a multiple unit loses a part at a time
            if per > 1:  # fleets go so many a centre: remove until the rest is kept
                allowed = supply_needed(variant, [u for u in units.values() if u.power == power]) - missing
                for unit in civil_disorder_removals(variant, state, mine, len(mine)):
                    if supply_needed(variant, [u for u in units.values() if u.power == power]) <= allowed:
                        break
                    units, removed = _without(units, unit, variant.map.is_sea(unit.province))
                    disbanded.append(removed)
                continue
            for unit in civil_disorder_removals(variant, state, mine, missing):
                units, removed = _without(units, unit, variant.map.is_sea(unit.province))
                disbanded.append(removed)
    return results, units, disbanded


def _built(there: Unit | None, order: Build, per: int = 1) -> Unit:
    """The unit in the province once `order` has built there: new, or joined to the power's own.
    A fleet build builds Rules.fleets_per_centre fleets."""
    kind = order.unit_type
    armies, fleets = order.part or ((1, 0) if kind is UnitType.ARMY else (0, per))
    if there is None:
        return Unit.of(order.power, order.location if fleets else order.province, armies, fleets)
    location = order.location if kind is UnitType.FLEET else there.location
    return Unit.of(order.power, location, there.n_armies + armies, there.n_fleets + fleets, there.at_sea, there.leader)


def _count(part: tuple[int, int], per: int) -> int:
    """Removals a part counts for: one for each army, one for every `per` fleets."""
    return part[0] + -(-part[1] // per)


def _removed_part(variant: Variant, unit: Unit, order: Order) -> tuple[int, int] | str:
    """The armies and fleets a removal takes from `unit`, or why it names none of them:
    'Remove A Bur' takes one army (of a 2A too), 'Remove 2A Bur' two, 'Remove Bur' the unit."""
    kind = order.unit_type
    if order.part is not None or kind is None:
        return acting_part(variant, unit, order)
    if not (unit.n_armies if kind is UnitType.ARMY else unit.n_fleets):
        where = variant.map.name(unit.province)
        if not unit.single:
            # TRANSLATORS: {unit} is how the unit is written: '2A', 'A/F'
            return _("the unit in {province} is {unit}", province=where, unit=unit.designation)
        return (_("the unit in {province} is an army", province=where) if unit.type is UnitType.ARMY else
                _("the unit in {province} is a fleet", province=where))
    return (1, 0) if kind is UnitType.ARMY else (0, 1)


def _singles(unit: Unit) -> list[Unit]:
    """A multiple unit as single armies and fleets at its location, for civil-disorder removals."""
    return [Unit(unit.power, UnitType.FLEET, unit.location)] * unit.n_fleets + \
        [Unit(unit.power, UnitType.ARMY, unit.location)] * (0 if unit.leader else unit.n_armies)


def _without(units: dict[str, Unit], single: Unit, at_sea: bool) -> tuple[dict[str, Unit], Unit]:
    """`units` with one army or fleet taken from the unit at `single`'s province, and the army
    or fleet taken."""
    unit = units[single.province]
    if unit.single:
        del units[single.province]
        return units, unit
    # no army is left at sea without a fleet to carry it: there an army goes first
    army = single.type is UnitType.ARMY or (at_sea and unit.n_armies > unit.n_fleets - 1)
    armies = unit.n_armies - army
    fleets = unit.n_fleets - (not army)
    # (a leader with fleets loses a fleet, never himself: _singles leaves him out)
    units[single.province] = Unit.of(unit.power, unit.location if fleets else unit.province, armies, fleets,
                                     unit.at_sea, unit.leader)
    return units, Unit(unit.power, UnitType.ARMY, unit.province) if army else Unit(unit.power, UnitType.FLEET, unit.location)


def _check_build(variant: Variant, state: GameState, units: dict[str, Unit], sites: set[str], order: Build) -> str:
    prov = order.province
    name = variant.map.name(prov)
    if prov not in variant.map.provinces:
        return _("{province} is not a province", province=prov)
    if order.unit_type is None:
        return _("say whether to build an army or a fleet")
    if prov not in sites:
        if not variant.map.provinces[prov].supply_centre:
            return _("{province} is not a supply centre", province=name)
        return _("{power} cannot build in {province}", power=order.power, province=name)
    if not _vacant(variant, units, prov, order.power):
        return _("{province} is not vacant", province=name)
    there = units.get(prov)
    if there is not None and order.unit_type is UnitType.FLEET and there.n_fleets and there.location != order.location:
        # TRANSLATORS: {coast} is a coast of the province: 'Spain (north coast)'
        return _("the fleets in {province} are on {coast}: build the fleet there", province=name,
                 coast=variant.map.name(there.location))
    barred = variant.rules.build_refusal(variant, state, order)
    if barred:
        return barred
    terrain = variant.map.provinces[prov].terrain
    if order.unit_type is UnitType.ARMY:
        return "" if terrain in (Terrain.LAND, Terrain.COAST) else _("an army cannot stand in {province}", province=name)
    locations = variant.map.fleet_locations(prov)
    if not locations:
        return _("a fleet cannot be built in {province}: it has no coast", province=name)
    if order.location not in locations:
        if order.location == prov:
            return _("name the coast of {province} to build the fleet on", province=name)
        return _("{coast} is no coast of {province}", coast=variant.map.name(order.location), province=name)
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

