"""Turns of impulses, for variants whose rules play them (Rules.impulses > 1; 1700AD II, rules 3
to 5 and 10). Pure.

A turn is a year. Each unit has impulse points (Rules.impulse_points: one per impulse, a leader
more) and its order is a sequence of steps (orders.Steps). A step spends one point, or several
for an action at that strength (`(x2)`). Point k falls in impulse k, or in the last impulse
when the turn has fewer; a step is made in the impulse of its last point and its unit stands in
the impulses before, so a unit's double-strength move is made in the second impulse. The
impulses are resolved one after the other, each as a movement phase of its own; each step is
written for the unit where the step before leaves it, and one that no longer makes sense there
(its unit bounced) becomes a hold (rule 4).

Double strength (rule 4): an action made with n points counts n, except a support of a move
made with fewer (a double support of a single move counts one). A move made at double strength
is also backed by the single supports given for it in the impulses it spans: "all attacks and
supports for the whole turn are added up", and so is the defence against it by the single hold
supports given in those impulses for the unit (or garrison) it attacks. Such a support counts
unless it was cut or its unit dislodged in the impulse it was given. Hold strength itself is
never totalled: a unit holding all turn defends with one (rule 10c's arithmetic for Switzerland
requires it). A double-strength conflict is the whole turn's: a single move ordered into the
space in an earlier impulse waits for it and is decided with it, its unit standing meanwhile
(gm/engine/wholeturn.py).

A convoyed move carries as many strength points as its fleets number (rule 8: "one fleet
required per strength point convoyed per impulse").

Garrisons (Rules.garrisons, rule 10b's armed neutrals) defend an empty space with their
strength, which any power may support, until a unit first occupies the space
(GameState.extra[GARRISONS_LOST]). Rough spaces (Rules.rough_spaces, rule 10c's Switzerland):
every action across their border takes two points at single strength, and a unit there holds
with double strength.

Retreats are ordered with the moves and made after the impulse of the attack. A dislodged unit
with no retreat ordered goes one space toward the nearest centre its power owns, home centres
first on a tie, then in alphabetical order; one that can get no closer is disbanded (rule 5).
Leaders (units with Unit.leader) never go for want of a retreat order: with none they retreat
all the same, and may displace an army of their power, which retreats in its turn (rule 7).
gm/engine/impulse_retreats.py makes them.

Where fleets stand apart from land units (Rules.separate_fleets, rule 8), each impulse is
resolved in two layers: the fleets first (they fight only fleets; a convoy holds there), then
the land units with the fleets that convoy standing in their seas. A province holds one power's
units: a land unit and fleets beside it (a composite Unit), up to Rules.fleet_stack fleets.
Fleets move and retreat only into friendly coasts: last held by their power's land unit (at the
start, its Rules.territory), or by a power that PERMITs them (GameState.extra[PERMITS], kept
until REVOKE); fleets left in a coast no longer friendly retreat after the impulse. Where the
rules play supply lines (Rules.supply_lines, rule 9), units that cannot trace one to a centre of
their power once centres have changed hands are disbanded, before the builds and removals.

After the last impulse centres change hands (Rules.after_fall then sees them), supply is traced,
then the builds and removals ordered with the moves are made, every turn (rule 3). The next turn
is the next year's.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

from gm.engine.adjust import resolve_adjustments
from gm.engine.graph import Terrain
from gm.engine.impulse_retreats import retreat_after_impulse
from gm.engine.model import Dislodged, GameState, Phase, PhaseKind, Season, Unit, UnitType, province_of
from gm.engine.multiple import MultiMovement
from gm.engine.orders import (Build, kind_name, Convoy, Disband, Hold, Move, Order, Permit, Retreat, Step, Steps, SupportHold,
                              SupportMove, Waive)
from gm.engine.resolve import MOVEMENT_ORDERS, unit_for
from gm.engine.results import OrderResult, Result
from gm.engine.variant import Variant
from gm.engine.wholeturn import Carry, Conflicts, carried_support, double_attacks_on, supports_again, waiting_move
from gm.i18n import _, _n

GARRISONS_LOST = "garrisons_lost"  # GameState.extra: garrisoned spaces a unit has occupied (sorted list)


@dataclass
class TurnOutcome:
    results: list[OrderResult]
    units: dict[str, Unit]  # after the last impulse and its retreats, before builds and removals
    dislodged: dict[str, Dislodged]  # every unit dislodged in the turn
    disbanded: list[Unit]  # units removed without an order of theirs
    state: GameState  # the next turn's position


@dataclass
class _Plan:
    """One unit's steps, as scheduled: (impulse made in, step, points, first impulse spanned)."""

    unit: Unit
    order: Order  # as given
    steps: list[tuple[int, Order, int, int]]
    at: str | None  # the province the unit is in now; None once it is gone
    done: bool = False  # dislodged: its later steps are dropped
    waits: str | None = None  # the space of the double-strength conflict its move waits for
    until: int = 0  # the impulse that conflict is decided in


class ImpulseMovement(MultiMovement):
    """One impulse of a turn: orders weigh their impulse points; garrisons defend empty spaces;
    rough spaces double their holders' strength; supports carried from earlier impulses count."""

    __slots__ = ("factor", "garrison", "carried", "rough", "held")

    def __init__(self, variant: Variant, state: GameState, orders: Sequence[Order], factor: Mapping[int, int],
                 garrison: Mapping[str, int], carried: Mapping[int, list[tuple[str, int]]], rough: frozenset[str],
                 held: Mapping[str, int] | None = None):
        self.factor = factor
        self.garrison = garrison
        self.carried = carried  # move -> supports for it given in earlier impulses: (power, strength)
        self.rough = rough
        self.held = held or {}  # province -> hold supports for its unit given in earlier impulses
        super().__init__(variant, state, orders)

    def _validate(self) -> None:
        super()._validate()
        factor, weight, orders = self.factor, self.weight, self.orders
        for i in self.src:
            weight[i] *= factor.get(i, 1)
            if i in self.convoyed and weight[i] > 1:
                # Rule 8 of 1700AD II: one fleet for each strength point convoyed.
                weight[i] = min(weight[i], min((self.units[f].n_fleets for f in self.route.get(i, ())), default=1))
        for i in self.supports:
            n = factor.get(i, 1)
            order = orders[i]
            if type(order) is SupportMove and n > 1:
                j = self.move_from.get(order.target)  # type: ignore[attr-defined]
                n = min(n, factor.get(j, 1)) if j is not None else 1  # a double support of a single move counts one
            weight[i] *= n
        for prov in self.rough:
            if prov in self.hold_weight:
                self.hold_weight[prov] *= 2

    def _check_support(self, unit: Unit, order: SupportHold | SupportMove) -> str:  # type: ignore[override]
        if type(order) is SupportHold and order.target not in self.units and order.target in self.garrison:
            if not self._reaches(unit, order.target):
                return _("the unit in {province} cannot reach {destination}, so it cannot support its garrison",
                         province=self.map.name(unit.location), destination=self.map.name(order.target))
            return ""
        return super()._check_support(unit, order)

    def hold_strength(self, prov: str) -> int:
        if prov not in self.units:
            strength = self.garrison.get(prov, 0)
            if strength:
                supports = self.hold_supports.get(prov)
                return strength + self.held.get(prov, 0) + (self._support_count(supports) if supports else 0)
            return 0
        strength = super().hold_strength(prov)
        return strength + self.held.get(prov, 0) if strength else strength  # (0: its unit moved away)

    def _force(self, i: int, exclude_power: str | None = None) -> int:
        force = super()._force(i, exclude_power)
        carried = self.carried.get(i)
        if carried:
            force += sum(n for power, n in carried if power != exclude_power)
        return force

    def support_stands(self, prov: str, power: str, against: str) -> bool:
        """Would a support by `power`'s unit in `prov` for a move into `against` stand after this
        impulse: no other power's move set out for `prov` (from anywhere but `against`), and the
        unit was not dislodged?"""
        for j in self.moves_to.get(prov, ()):
            if self.orders[j].power == power or not self._in_play(j):
                continue
            if self.src[j] != against or self.resolve(j):
                return False
        return True


def resolve_turn(variant: Variant, state: GameState, orders: Sequence[Order]) -> TurnOutcome:
    """Resolve a whole turn: every impulse and its retreats, centres (then Rules.after_fall), supply
    lines, builds and removals."""
    rules = variant.rules
    layered = rules.separate_fleets
    results: list[OrderResult | None] = []
    plans: dict[tuple[str, str], _Plan] = {}  # (starting province, layer) -> plan
    plan_result: dict[tuple[str, str], int] = {}
    retreats: dict[tuple[str, str], int] = {}  # (province, layer) -> index in `orders` of its unit's retreat
    adjustments: list[int] = []
    permits = {k: list(v) for k, v in state.extra.get(PERMITS, {}).items()}  # type: ignore[union-attr]
    for i, order in enumerate(orders):
        kind = type(order)
        if kind is Permit:
            results.append(_permit(variant, permits, order))  # type: ignore[arg-type]
            continue
        if kind is Retreat or kind is Disband:
            unit = state.units.get(order.province)
            retreats[(order.province, _layer(layered, unit, order))] = i
            if kind is Disband:
                adjustments.append(i)
            continue
        if kind is Build or kind is Waive:
            adjustments.append(i)
            continue
        if kind is not Steps and not isinstance(order, MOVEMENT_ORDERS):
            results.append(OrderResult(order, Result.VOID, _("{kind} orders are not given in a turn",
                                                             kind=kind_name(order))))
            continue
        unit, why = _unit_for(variant, state, order)
        if unit is None:
            results.append(OrderResult(order, Result.VOID, why))
            continue
        layer = _layer(layered, state.units[order.province], order)
        schedule = _schedule(variant, unit, order)
        if isinstance(schedule, str):
            results.append(OrderResult(order, Result.VOID, schedule))
            continue
        key = (order.province, layer)
        if key in plans:
            results[plan_result[key]] = OrderResult(plans[key].order, Result.VOID,
                                                    _("replaced by a later order for the same unit"))
        plan_result[key] = len(results)
        results.append(None)  # the steps' results take the plan's place
        plans[key] = _Plan(unit, order, schedule, unit.province)  # type: ignore[arg-type]
    extra = dict(state.extra)
    if permits or PERMITS in extra:
        extra[PERMITS] = {k: sorted(v) for k, v in sorted(permits.items()) if v}
    state = _board(state, state.units, extra)
    turn = _Turn(variant, state, orders, plans, retreats)
    for impulse in range(1, rules.impulses + 1):
        turn.impulse(impulse)
    # Results in the order given: each plan's steps where the plan was.
    flat: list[OrderResult] = []
    plan_at = {k: p for p, k in plan_result.items()}
    for k, r in enumerate(results):
        if r is not None:
            flat.append(r)
        elif k in plan_at:
            flat.extend(turn.step_results[plan_at[k]])
    flat += turn.retreat_results
    flat += [OrderResult(orders[i], Result.VOID, _("not needed: the unit was not dislodged"))
             for i in sorted(retreats.values()) if type(orders[i]) is Retreat and i not in turn.used_retreats]
    units = turn.units
    extra = turn.extra()
    # Centres change hands every turn (rule 3); fleets may not take them where the rules say so.
    centres = dict(state.supply_centres)
    provinces = variant.map.provinces
    for prov, unit in units.items():
        if state.is_centre(provinces, prov) and (rules.fleets_take_centres or unit.n_armies):
            centres[prov] = unit.power
    year = state.phase.year
    adjusting = rules.after_fall(variant, state, GameState(Phase(year, Season.WINTER, PhaseKind.ADJUSTMENT), units,
                                                           centres, state.home_centres, {}, frozenset(), extra))
    disbanded = turn.disbanded
    if rules.supply_lines:
        kept, cut_off = _supply(variant, adjusting, turn.garrisons)
        for unit in cut_off:
            flat.append(OrderResult(Disband(unit.power, unit.type, unit.location), Result.SUCCEEDS,
                                    _("out of supply: no line of supply to a centre of its power")))
        disbanded = disbanded + cut_off
        adjusting = adjusting.with_(units=kept)
    wanted = [orders[i] for i in adjustments if i not in turn.used_retreats]
    adjusted, units_after, removed = resolve_adjustments(variant, adjusting, wanted)
    flat += adjusted
    nxt = adjusting.with_(phase=Phase(year + 1, state.phase.season, PhaseKind.MOVEMENT), units=units_after)
    return TurnOutcome(flat, adjusting.units, turn.dislodged, disbanded + removed, nxt)


LAND, SEA = "land", "sea"  # the layers of a turn where fleets stand apart from land units
PERMITS = "permits"  # GameState.extra: power -> powers it lets stand in its provinces and trace supply through them
OCCUPIED = "occupied_by"  # GameState.extra: land space -> the power whose land unit last stood there


def _layer(layered: bool, unit: Unit | None, order: Order) -> str:
    """Which of a province's units an order is for: its fleets or its land unit."""
    if not layered:
        return LAND
    if order.part is not None:
        return SEA if order.part[1] else LAND
    if order.unit_type is UnitType.FLEET:
        return SEA
    if order.unit_type is UnitType.ARMY or unit is None:
        return LAND
    return LAND if unit.n_armies else SEA


def _unit_for(variant: Variant, state: GameState, order: Order) -> tuple[Unit | None, str]:
    """The unit (the part of a province's units) an order is for, or why there is none."""
    unit = state.units.get(order.province)
    where = variant.map.name(order.province)
    if unit is None:
        return None, _("there is no unit in {province}", province=where)
    if unit.power != order.power:
        return None, _("the unit in {province} belongs to {power}", province=where, power=unit.power)
    if not variant.rules.separate_fleets:
        if order.unit_type is not None and type(order) is not Steps and order.unit_type is not unit.type \
                and not (order.unit_type is UnitType.ARMY and unit.n_armies):
            return None, unit_for(variant.map, state, order)[1]
        return unit, ""
    land, sea = _split(unit)
    if _layer(True, unit, order) == SEA:
        return (sea, "") if sea is not None else (None, _("there is no fleet in {province}", province=where))
    return (land, "") if land is not None else (None, _("there is no army in {province}", province=where))


def _split(unit: Unit) -> tuple[Unit | None, Unit | None]:
    """A province's unit as its land unit and its fleets."""
    land = Unit.of(unit.power, unit.province, unit.n_armies, 0, leader=unit.leader) if unit.n_armies else None
    sea = Unit(unit.power, UnitType.FLEET, unit.location, unit.n_fleets) if unit.n_fleets else None
    return land, sea


def _permit(variant: Variant, permits: dict[str, list[str]], order: Permit) -> OrderResult:
    """PERMIT or REVOKE: whom the power lets stand in its provinces and trace supply through them."""
    other = order.location
    if other not in variant.powers or other == order.power:
        return OrderResult(order, Result.VOID, _("{power} is not another power", power=other))
    mine = permits.setdefault(order.power, [])
    if order.revoke:
        if other in mine:
            mine.remove(other)
    elif other not in mine:
        mine.append(other)
    return OrderResult(order, Result.SUCCEEDS, "")


class _Turn(Conflicts):
    """A turn being resolved, impulse by impulse. Where fleets stand apart from land units
    (Rules.separate_fleets), each impulse is resolved as two layers: the fleets first (they fight
    only fleets), then the land units, with the fleets that convoy standing in their seas."""

    def __init__(self, variant: Variant, state: GameState, orders: Sequence[Order],
                 plans: dict[tuple[str, str], _Plan], retreats: Mapping[tuple[str, str], int]) -> None:
        rules = variant.rules
        self.variant, self.state, self.orders, self.plans, self.retreats = variant, state, orders, plans, retreats
        self.layered = rules.separate_fleets
        self.units = state.units
        # Each layer once its impulse and retreats are over (the land units; where fleets stand
        # apart, the fleets): self.units joins them again.
        self.units_land: dict[str, Unit] = {}
        self.units_sea: dict[str, Unit] = {}
        self.step_results: dict[tuple[str, str], list[OrderResult]] = {k: [] for k in plans}
        self.retreat_results: list[OrderResult] = []
        self.dislodged: dict[str, Dislodged] = {}
        self.disbanded: list[Unit] = []
        self.used_retreats: set[int] = set()
        self.carries: list[Carry] = []
        self.waiting: list[tuple[tuple[str, str], int, Order, int]] = []
        self.conflicts: set[tuple[str, str]] = set()
        # Single hold supports given before the impulse of a double-strength attack on their
        # unit (or garrison), which stood: (province, the unit there then or None).
        self.held: list[tuple[str, Unit | None]] = []
        self.pending_holds: list[tuple[tuple[str, str], int, str, Unit | None]] = []
        self.lost = set(state.extra.get(GARRISONS_LOST, ()))  # type: ignore[arg-type]
        self.garrisons = {p: n for p, n in rules.garrisons(variant).items() if p not in self.lost}
        self.rough = rules.rough_spaces(variant)
        self.permits: Mapping[str, Sequence[str]] = state.extra.get(PERMITS, {})  # type: ignore[assignment]
        self.territory = rules.territory(variant) if self.layered else {}
        self.occupied = {**self.territory, **state.extra.get(OCCUPIED, {})}  # type: ignore[dict-item]

    def extra(self) -> dict[str, object]:
        extra = dict(self.state.extra)
        if self.lost:
            extra[GARRISONS_LOST] = sorted(self.lost)
        if self.layered:
            extra[OCCUPIED] = {p: o for p, o in sorted(self.occupied.items()) if self.territory.get(p) != o}
        return extra

    def friendly(self, province: str, power: str, land: Mapping[str, Unit]) -> bool:
        """May `power`'s fleets stand in `province` (rule 8): a sea, or a coast last held by its
        land units (or, first, its own), or by a power that permits it; never where another
        power's land unit stands."""
        if self.variant.map.provinces[province].terrain is Terrain.SEA:
            return True
        there = land.get(province)
        if there is not None:
            return there.power == power
        owner = self.occupied.get(province)
        return owner == power or (owner is not None and power in self.permits.get(owner, ()))

    # ------------------------------------------------------------------ one impulse
    def impulse(self, impulse: int) -> None:
        v = self.variant
        land, sea = _layers(self.units) if self.layered else (self.units, {})
        steps: dict[str, list[tuple[tuple[str, str], int, Order, int]]] = {LAND: [], SEA: []}
        by_location = {(plan.at, key[1]): plan for key, plan in self.plans.items() if plan.at is not None and not plan.done}
        pending_carries: dict[str, list[tuple[tuple[str, str], int, Carry]]] = {LAND: [], SEA: []}
        waits: dict[tuple[str, str], tuple[Order, int]] = {}
        for key, plan in self.plans.items():  # first, so that supports given now know which moves wait
            if not plan.done and plan.at is not None and impulse < self.variant.rules.impulses:
                wait = waiting_move(v.map, self.plans, key, impulse)
                if wait is not None and not self._refusal(wait[0], key[1], 1, land, sea):
                    waits[key] = wait
                    plan.waits, plan.until = province_of(wait[0].dest), wait[1]  # type: ignore[attr-defined]
        for key, plan in self.plans.items():
            if plan.done or plan.at is None:
                continue
            layer = key[1]
            out = self.step_results[key]
            for when, step, points, _first in plan.steps:
                if when != impulse:
                    continue
                shown = Step(step.power, step.unit_type, plan.unit.location, step, impulse, points)
                if plan.waits is not None and (key not in waits or waits[key][0] is not step):
                    out.append(OrderResult(shown, Result.VOID, _("its move into {province} waits for the end of the turn, "
                                                                 "where the double-strength attack on it is decided: it "
                                                                 "stands", province=v.map.name(plan.waits))))
                    continue
                if step.province != plan.at:
                    out.append(OrderResult(shown, Result.VOID, _("the unit is in {province}, not there, after the "
                                                                 "impulse before: it stands", province=v.map.name(plan.at))))
                    continue
                why = self._refusal(step, layer, points, land, sea)
                if why:
                    out.append(OrderResult(shown, Result.VOID, why))
                    continue
                if key in waits and waits[key][0] is step:  # decided with the double-strength conflict
                    self.waiting.append((key, len(out), step, waits[key][1]))
                    out.append(OrderResult(shown, Result.VOID, ""))  # filled in then
                    continue
                carried = carried_support({loc: p for (loc, lay), p in by_location.items() if lay == layer},
                                          step, points, impulse)
                if carried is not None:  # counted with the move, if it stands after this impulse
                    dest = province_of(step.dest)  # type: ignore[attr-defined]
                    if supports_again(plan, carried, dest, impulse):
                        out.append(OrderResult(shown, Result.SUCCEEDS, _("counted once, with the same unit's support of "
                                                                         "this move at the end of the turn: a single move "
                                                                         "takes one support from a unit")))
                        continue
                    supporter = (land if layer == LAND else sea)[step.province]
                    pending_carries[layer].append((key, len(out), Carry(supporter, carried, dest, layer)))
                    out.append(OrderResult(shown, Result.SUCCEEDS, ""))
                    continue
                if _crosses(self.rough, step):
                    points = 1  # two points at single strength
                if layer == LAND and points == 1 and type(step) is SupportHold and \
                        double_attacks_on(self.plans, step.target, impulse, LAND):  # type: ignore[attr-defined]
                    # Counted again in the double-strength conflict to come, if it stands now.
                    self.pending_holds.append((key, len(out), step.target, land.get(step.target)))  # type: ignore[attr-defined]
                steps[layer].append((key, len(out), step, points))
                out.append(OrderResult(shown, Result.VOID, ""))  # filled in below
        deciding = self._decided_now(impulse)
        for key, k, step, _points in deciding:
            steps[key[1]].append((key, k, step, 1))
        sea_after, sea_dislodged, sea_contested, convoying = sea, {}, frozenset(), {}
        if steps[SEA] or pending_carries[SEA]:
            sea_after, sea_dislodged, sea_contested, convoying = self._fleets(sea, steps[SEA], pending_carries[SEA])
        land_after, land_dislodged, land_contested = self._land(land, steps[LAND], convoying, pending_carries[LAND])
        self._retreats(land_after, land_contested, land_dislodged, LAND)
        if self.layered:
            for prov, unit in self.units_land.items():
                self.occupied[prov] = unit.power
            for prov, fleets in list(sea_after.items()):  # fleets left in a coast no longer friendly must go
                if prov not in sea_dislodged and not self.friendly(prov, fleets.power, self.units_land):
                    sea_dislodged[prov] = Dislodged(fleets, None, ())
                    del sea_after[prov]
                    self._drop_plan(prov, SEA)
            self.units_sea = sea_after
            self._retreats(sea_after, sea_contested, sea_dislodged, SEA)
            self.units = _joined(self.units_land, self.units_sea)
        else:
            self.units = self.units_land

    def _refusal(self, step: Order, layer: str, points: int, land: Mapping[str, Unit], sea: Mapping[str, Unit]) -> str:
        """Why a step may not be made at all (rough borders, rule 8's layers), or ''."""
        return _rough_refusal(self.variant, self.rough, step, points) or (
            self._layer_refusal(step, layer, land, sea) if self.layered else "")

    def _layer_refusal(self, step: Order, layer: str, land: Mapping[str, Unit], sea: Mapping[str, Unit]) -> str:
        """Why a step may not be made in its layer (rule 8), or ''."""
        kind = type(step)
        if kind is SupportHold or kind is SupportMove:
            target = step.target  # type: ignore[attr-defined]
            mine, other = (sea, land) if layer == SEA else (land, sea)
            if target not in mine and target in other:
                return (_("fleets exert no influence on land units: a fleet supports only fleets") if layer == SEA
                        else _("land units do not support fleets: fleets fight only fleets"))
        if layer == SEA and kind is Move:
            dest = province_of(step.dest)  # type: ignore[attr-defined]
            name = self.variant.map.name(dest)
            if not self.friendly(dest, step.power, land):
                return _("fleets may stand only in friendly coastal provinces, and {province} is not one", province=name)
            limit = self.variant.rules.fleet_stack(self.variant, dest)
            moving = step.part[1] if step.part else sea[step.province].n_fleets
            if limit is not None and moving > limit:
                split = f"{limit}F {step.location} - {dest}"
                # TRANSLATORS: {order} is an order as written: '2F BAL - GOB'
                return _n("at most {count} fleets stand in {province}: split the {moving} (e.g. '{order}')",
                          "at most {count} fleets stand in {province}: split the {moving} (e.g. '{order}')", limit,
                          province=name, moving=moving, order=split)
        return ""

    def _fleets(self, sea: dict[str, Unit], steps: list[tuple[tuple[str, str], int, Order, int]],
                pending_carries: list[tuple[tuple[str, str], int, Carry]]
                ) -> tuple[dict[str, Unit], dict[str, Dislodged], frozenset[str], dict[str, tuple[Unit, tuple[tuple[str, str], int, Order]]]]:
        """The fleets' layer: convoys hold here (they carry armies in the land layer)."""
        v = self.variant
        orders = [Hold(o.power, o.unit_type, o.location, part=o.part) if type(o) is Convoy else o
                  for o in (entry[2] for entry in steps)]
        orders = _merged(v, sea, orders)
        factor = {i: entry[3] for i, entry in enumerate(steps)}
        now = _board(self.state, sea)
        movement = ImpulseMovement(v, now, orders, factor, {}, self._carried_into(orders, SEA), frozenset())
        outcome, after, dislodged = movement.outcome_report()
        convoying: dict[str, tuple[Unit, tuple[tuple[str, str], int, Order]]] = {}
        for i, ((key, k, step, _points), r) in enumerate(zip(steps, outcome)):
            shown = self.step_results[key][k].order
            if type(step) is Convoy and step.province not in dislodged:
                convoying[step.province] = (after[step.province], (key, k, step))
                continue
            if type(step) is Convoy:
                r = OrderResult(step, Result.FAILS, _("the convoying fleet was dislodged"))
            self.step_results[key][k] = OrderResult(shown, r.result, self._explained(movement, SEA, i, step, r))
        self._settle_carries(movement, pending_carries)
        self._follow(movement, dislodged, SEA)
        contested = movement.contested(after) if dislodged else frozenset()
        return after, dislodged, contested, convoying

    def _land(self, land: dict[str, Unit], steps: list[tuple[tuple[str, str], int, Order, int]],
              convoying: Mapping[str, tuple[Unit, tuple[tuple[str, str], int, Order]]],
              pending_carries: list[tuple[tuple[str, str], int, Carry]]) -> tuple[dict[str, Unit], dict[str, Dislodged], frozenset[str]]:
        """The land units' layer, with the fleets that convoy standing in their seas."""
        v = self.variant
        owners = list(steps) + [(key, k, step, 1) for _fleet, (key, k, step) in convoying.values()]
        orders = [owner[2] for owner in owners]
        units = {**land, **{p: fleet for p, (fleet, _step) in convoying.items()}} if convoying else land
        factor = {i: owner[3] for i, owner in enumerate(owners)}
        carried_into = self._carried_into(orders, LAND)
        live = {p: n for p, n in self.garrisons.items() if p not in units}
        doubles = {province_of(o.dest) for i, o in enumerate(orders) if type(o) is Move and factor[i] > 1}  # type: ignore[attr-defined]
        held: dict[str, int] = {}
        for prov, defender in self.held:  # the whole turn's hold supports, where a double attack comes
            if prov in doubles and units.get(prov) == defender:
                held[prov] = held.get(prov, 0) + 1
        now = _board(self.state, units)
        movement = ImpulseMovement(v, now, orders, factor, live, carried_into, self.rough, held)
        outcome, after, dislodged = movement.outcome_report()
        for i, ((key, k, step, _points), r) in enumerate(zip(owners, outcome)):
            shown = self.step_results[key][k].order
            self.step_results[key][k] = OrderResult(shown, r.result, self._explained(movement, LAND, i, step, r))
        for key, k, prov, defender in self.pending_holds:
            if self.step_results[key][k].result is Result.SUCCEEDS:
                self.held.append((prov, defender))
        self.pending_holds = []
        self._settle_carries(movement, pending_carries)
        self._follow(movement, dislodged, LAND)
        for prov in convoying:
            after.pop(prov, None)
        for prov in list(self.garrisons):
            if prov in after:
                self.lost.add(prov)
                del self.garrisons[prov]
        contested = movement.contested(after) if dislodged else frozenset()
        return after, dislodged, contested

    def _follow(self, movement: ImpulseMovement, dislodged: Mapping[str, Dislodged], layer: str) -> None:
        """Plans follow their units: to where they moved; dropped where dislodged."""
        moved_to = {movement.src[i]: movement.dst[i] for i in movement.src if movement.resolved.get(i)}
        for (start, lay), plan in self.plans.items():
            if lay != layer or plan.done or plan.at is None:
                continue
            if plan.at in dislodged and dislodged[plan.at].unit.power == plan.unit.power:
                plan.done, plan.at = True, None
            elif plan.at in moved_to:
                plan.at = moved_to[plan.at]  # type: ignore[assignment]

    def _drop_plan(self, prov: str, layer: str) -> None:
        for (start, lay), plan in self.plans.items():
            if lay == layer and plan.at == prov:
                plan.done, plan.at = True, None

    def _retreats(self, after: dict[str, Unit], contested: frozenset[str], dislodged: dict[str, Dislodged], layer: str) -> None:
        """The layer's retreats, after its impulse: units_land or units_sea holds the result."""
        if dislodged:
            v = self.variant
            ordered = {p: i for (p, lay), i in self.retreats.items() if lay == layer}
            allowed = None
            if layer == SEA:
                allowed = lambda power, prov: self.friendly(prov, power, self.units_land)  # noqa: E731
            now = _board(self.state, after)
            after, results, gone, placed, options = retreat_after_impulse(v, now, after, contested, dislodged, self.orders,
                                                                          ordered, self.used_retreats, allowed)
            self.retreat_results += results
            self.disbanded += gone
            for prov, d in options.items():
                self.dislodged.setdefault(prov, d)  # (a land unit's first, where a province lost both)
            if layer == LAND:
                for prov in placed:
                    if prov in self.garrisons:
                        self.lost.add(prov)
                        del self.garrisons[prov]
        if layer == LAND:
            self.units_land = after
        else:
            self.units_sea = after


def _board(state: GameState, units: dict[str, Unit], extra: dict[str, object] | None = None) -> GameState:
    """`state`'s position with these units (and `extra`), nobody dislodged."""
    return GameState(state.phase, units, state.supply_centres, state.home_centres, {}, frozenset(),
                     state.extra if extra is None else extra)


def _layers(units: Mapping[str, Unit]) -> tuple[dict[str, Unit], dict[str, Unit]]:
    """The board as its land units and its fleets."""
    land: dict[str, Unit] = {}
    sea: dict[str, Unit] = {}
    for prov, unit in units.items():
        if unit.single or (unit.leader and not unit.n_fleets):  # one army, one fleet or a lone leader
            (sea if unit.type is UnitType.FLEET else land)[prov] = unit
            continue
        l, f = _split(unit)
        if l is not None:
            land[prov] = l
        if f is not None:
            sea[prov] = f
    return land, sea


def _joined(land: Mapping[str, Unit], sea: Mapping[str, Unit]) -> dict[str, Unit]:
    """The layers as one board: a land unit and its power's fleets in one province are one unit."""
    out = dict(land)
    for prov, fleets in sea.items():
        there = out.get(prov)
        if there is None:
            out[prov] = fleets
        else:  # never another power's: such fleets have retreated (rule 8)
            out[prov] = Unit.of(fleets.power, fleets.location, there.n_armies, fleets.count, leader=there.leader)
    return out


def _merged(variant: Variant, sea: Mapping[str, Unit], orders: list[Order]) -> list[Order]:
    """Fleets of one power moving into one space, or into the space of its fleets that stay,
    join there while they fit (Rules.fleet_stack): their moves MERGE."""
    rules = variant.rules
    moving_out = {o.province for o in orders if type(o) is Move and o.part is None}
    arriving: dict[tuple[str, str], int] = {}
    for o in orders:
        if type(o) is Move:
            unit = sea[o.province]
            arriving[(o.power, province_of(o.dest))] = arriving.get((o.power, province_of(o.dest)), 0) + \
                (o.part[1] if o.part else unit.n_fleets)  # type: ignore[attr-defined]
    out = []
    for o in orders:
        if type(o) is Move:
            dest = province_of(o.dest)  # type: ignore[attr-defined]
            there = sea.get(dest)
            staying = there.n_fleets if there is not None and there.power == o.power and dest not in moving_out else 0
            total = arriving[(o.power, dest)] + staying
            limit = rules.fleet_stack(variant, dest)
            joins = total > arriving[(o.power, dest)] or sum(1 for x in orders if type(x) is Move and x.power == o.power
                                                             and province_of(x.dest) == dest) > 1  # type: ignore[attr-defined]
            if joins and (limit is None or total <= limit):
                o = replace(o, merge=True)
        out.append(o)
    return out


def _schedule(variant: Variant, unit: Unit, order: Order) -> list[tuple[int, Order, int, int]] | str:
    """The impulse each step of `order` is made in, or why the steps cannot be made."""
    if type(order) is Steps:
        steps, points = order.steps, order.points
    else:
        steps, points = (order,), (1,)
    rules = variant.rules
    allowance = rules.impulse_points(variant, unit)
    spent = sum(points)
    if spent > allowance:
        return _n("the unit has {count} impulse points a turn; these orders spend {spent}",
                  "the unit has {count} impulse points a turn; these orders spend {spent}", allowance, spent=spent)
    out: list[tuple[int, Order, int, int]] = []
    point = 0
    for step, n in zip(steps, points):
        if not isinstance(step, MOVEMENT_ORDERS):
            return _("{kind} orders are not steps of a turn", kind=kind_name(step))
        first = min(point + 1, rules.impulses)
        point += n
        impulse = min(point, rules.impulses)
        if out and out[-1][0] == impulse:
            return _("two steps would be made in impulse {impulse}: points beyond the turn's {impulses} impulses add "
                     "strength to the last step, written (x2) or (x3)", impulse=impulse, impulses=rules.impulses)
        out.append((impulse, step, n, first))
    return out


def _crosses(rough: frozenset[str], step: Order) -> bool:
    """Does the step act across the border of a rough space?"""
    if not rough:
        return False
    kind = type(step)
    if kind is Move:
        there = province_of(step.dest)  # type: ignore[attr-defined]
    elif kind is SupportMove:
        there = province_of(step.dest)  # type: ignore[attr-defined]
    elif kind is SupportHold:
        there = step.target  # type: ignore[attr-defined]
    else:
        return False
    return (step.province in rough) != (there in rough)


def _rough_refusal(variant: Variant, rough: frozenset[str], step: Order, points: int) -> str:
    there = getattr(step, "dest", None) or getattr(step, "target", "")
    if province_of(there) not in variant.map.all_neighbours.get(step.province, ()):
        return ""  # not across a border at all: the movement says why
    if points < 2 and _crosses(rough, step):
        return _("an action across the border of a rough space takes two impulses at single strength: write it (x2)")
    return ""


def _supply(variant: Variant, state: GameState, garrisons: Mapping[str, int]) -> tuple[dict[str, Unit], list[Unit]]:
    """Rule 9 of 1700AD II: at the end of a turn every unit traces a line of supply to a centre
    its power owns, through spaces it could move through, avoiding armed neutrals, other powers'
    centres and rough spaces, and spaces with another power's unit unless that power permits it.
    Returns the units in supply and the units disbanded (a province's fleets and its land unit
    trace apart)."""
    permits: Mapping[str, Sequence[str]] = state.extra.get(PERMITS, {})  # type: ignore[assignment]
    rough = variant.rules.rough_spaces(variant)
    owner = state.supply_centres
    units = state.units
    kept: dict[str, Unit] = {}
    cut_off: list[Unit] = []
    reached: dict[tuple[str, bool], frozenset[str]] = {}  # (power, by army) -> spaces in supply

    def passable(prov: str, power: str) -> bool:
        if prov in garrisons and prov not in units or prov in rough:
            return False
        if prov in owner and owner[prov] != power:
            return False
        there = units.get(prov)
        return there is None or there.power == power or power in permits.get(there.power, ())

    def supplied(power: str, army: bool) -> frozenset[str]:
        """Every space from which a unit of `power` moving like an army (or a fleet) reaches one
        of its centres through passable spaces."""
        key = (power, army)
        if key not in reached:
            graph = variant.map.army if army else variant.map.sea_neighbours
            start = [c for c, o in owner.items() if o == power and passable(c, power)]
            seen = set(start)
            queue = deque(start)
            while queue:
                here = queue.popleft()
                for near in graph.get(here, ()):
                    if near in seen:
                        continue
                    seen.add(near)  # a unit standing here is in supply, passable or not
                    if passable(near, power):
                        queue.append(near)
            reached[key] = frozenset(seen)
        return reached[key]

    for prov, unit in units.items():
        land, sea = _split(unit)
        land_ok = land is None or prov in supplied(unit.power, True)
        sea_ok = sea is None or prov in supplied(unit.power, False)
        if land_ok and sea_ok:
            kept[prov] = unit
            continue
        if land is not None and not land_ok:
            cut_off.append(land)
        if sea is not None and not sea_ok:
            cut_off.append(sea)
        left = land if land_ok else sea if sea_ok else None
        if left is not None:
            kept[prov] = left
    return kept, cut_off
