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
supports for the whole turn are added up". Such a support counts unless it was cut or its
unit dislodged in the impulse it was given. Hold strength is never totalled: a unit holding
all turn defends with one (rule 10c's arithmetic for Switzerland requires it).

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
After the last impulse centres change hands, then the builds and removals ordered with the
moves are made, every turn (rule 3). The next turn is the next year's.
"""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Mapping, Sequence

from gm.engine.adjust import resolve_adjustments
from gm.engine.model import Dislodged, GameState, Phase, PhaseKind, Season, Unit, UnitType, province_of
from gm.engine.multiple import MultiMovement
from gm.engine.orders import Build, Disband, Move, Order, Retreat, Step, Steps, SupportHold, SupportMove, Waive
from gm.engine.resolve import MOVEMENT_ORDERS, unit_for
from gm.engine.results import OrderResult, Result
from gm.engine.retreat import resolve_retreats, retreat_options
from gm.engine.variant import Variant

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


@dataclass
class _Carry:
    """A single support given in an earlier impulse for a move made later at double strength."""

    supporter: Unit
    mover: _Plan
    dest: str  # province


class ImpulseMovement(MultiMovement):
    """One impulse of a turn: orders weigh their impulse points; garrisons defend empty spaces;
    rough spaces double their holders' strength; supports carried from earlier impulses count."""

    __slots__ = ("factor", "garrison", "carried", "rough")

    def __init__(self, variant: Variant, state: GameState, orders: Sequence[Order], factor: Mapping[int, int],
                 garrison: Mapping[str, int], carried: Mapping[int, list[tuple[str, int]]], rough: frozenset[str]):
        self.factor = factor
        self.garrison = garrison
        self.carried = carried
        self.rough = rough
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
                return f"the unit in {self.map.name(unit.location)} cannot reach {self.map.name(order.target)}, so it cannot support its garrison"
            return ""
        return super()._check_support(unit, order)

    def hold_strength(self, prov: str) -> int:
        if prov not in self.units:
            strength = self.garrison.get(prov, 0)
            if strength:
                supports = self.hold_supports.get(prov)
                return strength + (self._support_count(supports) if supports else 0)
            return 0
        return super().hold_strength(prov)

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
    """Resolve a whole turn: every impulse and its retreats, centres, builds and removals."""
    rules = variant.rules
    impulses = rules.impulses
    results: list[OrderResult | None] = []
    plans: dict[str, _Plan] = {}  # starting province -> plan
    plan_result: dict[str, int] = {}
    retreats: dict[str, int] = {}  # province -> index in `orders` of the retreat ordered for its unit
    adjustments: list[int] = []
    for i, order in enumerate(orders):
        kind = type(order)
        if kind is Retreat or kind is Disband:
            retreats[order.province] = i
            if kind is Disband:
                adjustments.append(i)
            continue
        if kind is Build or kind is Waive:
            adjustments.append(i)
            continue
        if kind is not Steps and not isinstance(order, MOVEMENT_ORDERS):
            results.append(OrderResult(order, Result.VOID, f"{kind.__name__.lower()} orders are not given in a turn"))
            continue
        unit, why = unit_for(variant.map, state, order)
        if unit is not None and order.unit_type is None and kind is not Steps:
            why = ""
        if unit is None:
            results.append(OrderResult(order, Result.VOID, why))
            continue
        schedule = _schedule(variant, unit, order)
        if type(schedule) is str:
            results.append(OrderResult(order, Result.VOID, schedule))
            continue
        if order.province in plans:
            k = plan_result[order.province]
            results[k] = OrderResult(plans[order.province].order, Result.VOID, "replaced by a later order for the same unit")
        plan_result[order.province] = len(results)
        results.append(None)  # the steps' results take the plan's place
        plans[order.province] = _Plan(unit, order, schedule, unit.province)  # type: ignore[arg-type]
    step_results: dict[str, list[OrderResult]] = {p: [] for p in plans}
    lost = set(state.extra.get(GARRISONS_LOST, ()))  # type: ignore[arg-type]
    garrisons = {p: n for p, n in rules.garrisons(variant).items() if p not in lost}
    rough = rules.rough_spaces(variant)
    units = state.units
    everyone_dislodged: dict[str, Dislodged] = {}
    disbanded: list[Unit] = []
    retreat_results: list[OrderResult] = []
    used_retreats: set[int] = set()
    carries: list[_Carry] = []
    for impulse in range(1, impulses + 1):
        now = GameState(state.phase, units, state.supply_centres, state.home_centres, {}, frozenset(), state.extra)
        impulse_orders: list[Order] = []
        owners: list[tuple[str, int, int]] = []  # per impulse order: (plan's province, step, points)
        factor: dict[int, int] = {}
        pending_carries: list[tuple[str, int, _Carry]] = []
        by_location = {plan.at: plan for plan in plans.values() if plan.at is not None and not plan.done}
        for start, plan in plans.items():
            if plan.done or plan.at is None:
                continue
            for when, step, points, _ in plan.steps:
                if when != impulse:
                    continue
                shown = Step(step.power, step.unit_type, step.location, step, impulse, points)
                if step.province != plan.at:
                    step_results[start].append(OrderResult(shown, Result.VOID, f"the unit is in {variant.map.name(plan.at)}, "
                                                                               "not there, after the impulse before: it stands"))
                    continue
                why = _rough_refusal(variant, rough, step, points)
                if why:
                    step_results[start].append(OrderResult(shown, Result.VOID, why))
                    continue
                carried = _carried_support(by_location, step, points, impulse)
                if carried is not None:  # counted with the move, if it stands after this impulse
                    pending_carries.append((start, len(step_results[start]),
                                            _Carry(units[step.province], carried, province_of(step.dest))))  # type: ignore[attr-defined]
                    step_results[start].append(OrderResult(shown, Result.SUCCEEDS, ""))
                    continue
                if _crosses(rough, step):
                    points = 1  # two points at single strength
                factor[len(impulse_orders)] = points
                owners.append((start, len(step_results[start]), points))
                step_results[start].append(OrderResult(shown, Result.VOID, ""))  # filled in below
                impulse_orders.append(step)
        carried_into: dict[int, list[tuple[str, int]]] = {}
        for carry in carries:
            if carry.mover.done or carry.mover.at is None:
                continue
            index = next((k for k, o in enumerate(impulse_orders) if type(o) is Move and o.province == carry.mover.at
                          and province_of(o.dest) == carry.dest), None)  # type: ignore[attr-defined]
            if index is not None and _reaches(variant, carry.supporter, carry.dest):
                carried_into.setdefault(index, []).append((carry.supporter.power, 1))
        live = {p: n for p, n in garrisons.items() if p not in units}
        movement = ImpulseMovement(variant, now, impulse_orders, factor, live, carried_into, rough)
        outcome, after, dislodged = movement.outcome_report()
        for (start, k, points), r in zip(owners, outcome):
            shown = step_results[start][k].order
            step_results[start][k] = OrderResult(shown, r.result, r.reason)
        kept = []
        for start, k, carry in pending_carries:
            shown = step_results[start][k].order
            if movement.support_stands(carry.supporter.province, carry.supporter.power, carry.dest):
                kept.append(carry)
                step_results[start][k] = OrderResult(shown, Result.SUCCEEDS, "counted with the move at double strength")
            else:
                step_results[start][k] = OrderResult(shown, Result.CUT, "cut, or its unit dislodged, in this impulse")
        carries = [c for c in carries if not c.mover.done] + kept
        contested = movement.contested(after) if dislodged else frozenset()
        # Plans follow their units.
        moved_to = {movement.src[i]: movement.dst[i] for i in movement.src if movement.resolved.get(i)}
        for plan in plans.values():
            if plan.done or plan.at is None:
                continue
            if plan.at in dislodged and dislodged[plan.at].unit == units.get(plan.at):
                plan.done = True
                plan.at = None
            elif plan.at in moved_to:
                plan.at = moved_to[plan.at]
        for prov in list(garrisons):
            if prov in after:
                lost.add(prov)
                del garrisons[prov]
        if dislodged:
            after, more_results, gone, placed = _retreat(variant, now, after, contested, dislodged, orders, retreats, used_retreats)
            retreat_results += more_results
            disbanded += gone
            for prov, d in dislodged.items():
                everyone_dislodged[prov] = d
            for prov in placed:
                if prov in garrisons:
                    lost.add(prov)
                    del garrisons[prov]
        units = after
    # Results in the order given: each plan's steps where the plan was.
    flat: list[OrderResult] = []
    plan_at = {k: p for p, k in plan_result.items()}
    for k, r in enumerate(results):
        if r is not None:
            flat.append(r)
        elif k in plan_at:
            flat.extend(step_results[plan_at[k]])
    flat += retreat_results
    # Centres change hands every turn (rule 3); fleets may not take them where the rules say so.
    centres = dict(state.supply_centres)
    provinces = variant.map.provinces
    for prov, unit in units.items():
        if state.is_centre(provinces, prov) and (rules.fleets_take_centres or unit.n_armies):
            centres[prov] = unit.power
    extra = dict(state.extra)
    if lost:
        extra[GARRISONS_LOST] = sorted(lost)
    year = state.phase.year
    adjusting = GameState(Phase(year, Season.WINTER, PhaseKind.ADJUSTMENT), units, centres, state.home_centres,
                          {}, frozenset(), extra)
    wanted = [orders[i] for i in adjustments if i not in used_retreats]
    adjusted, units_after, removed = resolve_adjustments(variant, adjusting, wanted)
    flat += adjusted
    disbanded += removed
    nxt = GameState(Phase(year + 1, state.phase.season, PhaseKind.MOVEMENT), units_after, centres,
                    state.home_centres, {}, frozenset(), extra)
    return TurnOutcome(flat, units, everyone_dislodged, disbanded, nxt)


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
        return f"the unit has {allowance} impulse points a turn; these orders spend {spent}"
    out: list[tuple[int, Order, int, int]] = []
    point = 0
    for step, n in zip(steps, points):
        if not isinstance(step, MOVEMENT_ORDERS):
            return f"{type(step).__name__.lower()} orders are not steps of a turn"
        first = min(point + 1, rules.impulses)
        point += n
        impulse = min(point, rules.impulses)
        if out and out[-1][0] == impulse:
            return (f"two steps would be made in impulse {impulse}: points beyond the turn's {rules.impulses} "
                    "impulses add strength to the last step, written (x2) or (x3)")
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
    if points < 2 and _crosses(rough, step):
        return "an action across the border of a rough space takes two impulses at single strength: write it (x2)"
    return ""


def _carried_support(by_location: Mapping[str | None, _Plan], step: Order, points: int, impulse: int) -> _Plan | None:
    """The plan of the unit whose move `step` supports, when that move is made in a later impulse
    at double strength spanning this one; None when the support is made now."""
    if type(step) is not SupportMove or points != 1:
        return None
    plan = by_location.get(step.target)  # type: ignore[attr-defined]
    if plan is None:
        return None
    dest = province_of(step.dest)  # type: ignore[attr-defined]
    for when, move, n, first in plan.steps:
        if first <= impulse < when and n > 1 and type(move) is Move and province_of(move.dest) == dest:  # type: ignore[attr-defined]
            return plan
    return None


def _reaches(variant: Variant, unit: Unit, dest: str) -> bool:
    if unit.n_armies and dest in variant.map.army.get(unit.province, ()):
        return True
    return bool(unit.n_fleets) and dest in variant.map.fleet_provinces.get(unit.location, ())


def _retreat(variant: Variant, now: GameState, after: dict[str, Unit], contested: frozenset[str],
             dislodged: dict[str, Dislodged], orders: Sequence[Order], retreats: Mapping[str, int],
             used: set[int]) -> tuple[dict[str, Unit], list[OrderResult], list[Unit], list[str]]:
    """The impulse's retreats: as ordered, else toward the nearest centre (rule 5); then the
    leaders', who may displace a friendly army (rule 7). Returns the units after, the retreats'
    results, the units disbanded and the provinces retreated to."""
    moved = GameState(now.phase, after, now.supply_centres, now.home_centres, {}, frozenset(), now.extra)
    options = {p: Dislodged(d.unit, d.attacker_from, retreat_options(variant, moved, after, contested, d))
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
            units = _leader_retreat(variant, now, units, contested, prov, d, orders, retreats, used, shown, gone, placed)
    return units, shown, gone, placed


_BY_THE_RULES = "made by the rules: toward the nearest centre"


def _leader_retreat(variant: Variant, now: GameState, units: dict[str, Unit], contested: frozenset[str], prov: str,
                    d: Dislodged, orders: Sequence[Order], retreats: Mapping[str, int], used: set[int],
                    shown: list[OrderResult], gone: list[Unit], placed: list[str]) -> dict[str, Unit]:
    """A dislodged leader retreats as ordered, else toward the nearest centre even when he gets
    no closer (he is never disbanded for want of an order); into an empty space or one held by a
    friendly army, which he displaces: it retreats by the rules, or is disbanded (rule 7)."""
    leader = d.unit
    spaces = tuple(sorted(p for p in variant.map.army.get(prov, ())
                          if p != d.attacker_from and p not in contested and
                          ((u := units.get(p)) is None or (u.power == leader.power and u.type is UnitType.ARMY and not u.leader))))
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
            shown.append(OrderResult(ordered, Result.VOID, f"{leader.leader} cannot retreat to {variant.map.name(ordered.dest)}"))  # type: ignore[attr-defined]
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
    shown.append(OrderResult(order, Result.SUCCEEDS, f"{reason + '; ' if reason else ''}displaces the army in {variant.map.name(dest)}"))  # type: ignore[arg-type]
    moved = GameState(now.phase, units, now.supply_centres, now.home_centres, {}, frozenset(), now.extra)
    pushed = Dislodged(displaced, None, ())
    pushed = Dislodged(displaced, None, tuple(p for p in retreat_options(variant, moved, units, contested, pushed) if p != prov))
    to = nearest_retreat(variant, now, dest, pushed)
    if to is None:
        gone.append(displaced)
        shown.append(OrderResult(Disband(displaced.power, displaced.type, displaced.location), Result.SUCCEEDS,
                                 f"displaced by {leader.leader}, with no retreat toward a centre"))
        return units
    units[province_of(to)] = displaced.at(to)
    placed.append(province_of(to))
    shown.append(OrderResult(Retreat(displaced.power, displaced.type, displaced.location, to), Result.SUCCEEDS,
                             f"displaced by {leader.leader}: {_BY_THE_RULES}"))
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
