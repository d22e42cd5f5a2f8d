"""One entry point for every phase: pick the phase's resolver, then work out the next phase."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from gm.engine.adjust import adjustment_counts, resolve_adjustments
from gm.engine import impulses, multiple, second
from gm.engine.model import (ADDED_CENTRES, RETREATS, Dislodged, GameState, Phase, PhaseKind, Season, Unit, UnitType,
                             province_of)
from gm.engine.orders import (Allocation, Build, Convoy, Disband, Move, Order, Permit, Retreat, Step, Steps,
                              SupportMove, TwoPhase, Waive)
from gm.engine.movement import reaches, resolve_movement
from gm.engine.results import OrderResult, Result
from gm.engine.retreat import resolve_retreats, retreat_options
from gm.engine.variant import Variant
from gm.i18n import _


@dataclass
class Adjudication:
    phase: Phase  # the phase that was resolved
    results: list[OrderResult]  # one per order given, in the order given
    units: dict[str, Unit]  # province -> unit, once the phase is resolved (dislodged units excluded)
    dislodged: dict[str, Dislodged]  # every unit dislodged this phase, retreat or not
    state: GameState  # the position at the start of the next phase
    winner: str | None = None
    disbanded: list[Unit] = field(default_factory=list)  # units removed without an order of theirs


def adjudicate(variant: Variant, state: GameState, orders: Sequence[Order]) -> Adjudication:
    """Resolve the phase `state` is in with the orders given; pure.

    `results` holds the results of the unit orders resolved (the minor powers' orders that point
    allocations decided among them), then those of what was no unit's order (the allocations
    themselves, which only their owner and the GM may see).
    """
    state, unit_orders, side_results = variant.rules.prepare(variant, state, orders)
    kind = state.phase.kind
    if kind is PhaseKind.MOVEMENT and variant.rules.impulses > 1:
        turn = impulses.resolve_turn(variant, state, unit_orders)
        nxt = turn.state
        return Adjudication(state.phase, turn.results + side_results, nxt.units, turn.dislodged, nxt,
                            variant.rules.winner(variant, nxt), turn.disbanded)
    if kind is PhaseKind.MOVEMENT:
        pairs: list[TwoPhase] = []
        if variant.rules.fleets_move_twice:
            unit_orders, pairs = second.split(unit_orders)
        results, units, dislodged, contested = resolve_movement(variant, state, unit_orders)
        side_results = _allocations_to_void_orders(results, side_results)
        state = variant.rules.after_movement(variant, state, results)
        pending: list[Order] = []
        if pairs:
            pending, refused = second.eligible(variant, state, pairs, results, units, dislodged)
            results += refused
        results += side_results
        dislodged = _with_retreats(variant, state, units, contested, dislodged)
        if any(d.retreats for d in dislodged.values()):
            phase = Phase(state.phase.year, state.phase.season, PhaseKind.RETREAT)
            waiting = state.with_(extra={**state.extra, second.PENDING: second.to_json(pending)}) if pending else state
            nxt = _next(waiting, phase, units, dislodged=dislodged, contested=contested)
            return Adjudication(state.phase, results, units, dislodged, nxt)
        disbanded = [d.unit for _prov, d in sorted(dislodged.items())]
        if pending:
            return _second_moves(variant, state, results, units, dislodged, disbanded, pending, PhaseKind.RETREAT)
        return _after_turn(variant, state, results, units, dislodged, disbanded)
    if kind in RETREATS:
        results, units, disbanded = resolve_retreats(variant, state, unit_orders)
        pending = second.from_json(state.extra.get(second.PENDING))
        if pending:
            state = state.with_(extra={k: v for k, v in state.extra.items() if k != second.PENDING})
            return _second_moves(variant, state, results + side_results, units, {}, disbanded, pending,
                                 PhaseKind.SECOND_RETREAT)
        return _after_turn(variant, state, results + side_results, units, {}, disbanded)
    spring = Phase(state.phase.year + 1, Season.SPRING, PhaseKind.MOVEMENT)
    if kind is PhaseKind.BIDDING:
        # The bids are side orders the rules have settled in `prepare`; no unit moves.
        refused = [OrderResult(o, Result.VOID, _("only IP bids are given in a bidding phase")) for o in unit_orders]
        nxt = _next(state, spring, dict(state.units))
        return Adjudication(state.phase, refused + side_results, nxt.units, {}, nxt)
    results, units, disbanded = resolve_adjustments(variant, state, unit_orders)
    results += side_results
    bidding = Phase(state.phase.year, Season.WINTER, PhaseKind.BIDDING)
    nxt = _next(state, bidding if variant.rules.bidding(variant, state) else spring, units)
    nxt = variant.rules.after_winter(variant, nxt, results)
    return Adjudication(state.phase, results, nxt.units, {}, nxt, disbanded=disbanded)


def _with_retreats(variant: Variant, state: GameState, units: dict[str, Unit], contested: frozenset[str],
                   dislodged: dict[str, Dislodged]) -> dict[str, Dislodged]:
    """The units a movement dislodged, each with where it may retreat once `units` stand."""
    if not dislodged:
        return dislodged
    after = _next(state, state.phase, units)
    return {p: Dislodged(d.unit, d.attacker_from, retreat_options(variant, after, units, contested, d))
            for p, d in dislodged.items()}


def _second_moves(
    variant: Variant,
    state: GameState,
    results: list[OrderResult],
    units: dict[str, Unit],
    dislodged: dict[str, Dislodged],
    disbanded: list[Unit],
    pending: list[Order],
    retreat_kind: PhaseKind,
) -> Adjudication:
    """The fleets' second moves, once the first moves and their retreats are over; a retreat phase
    of `retreat_kind` follows for the units they dislodge."""
    after = _next(state, state.phase, units)
    second_results, units, second_dislodged, contested = second.resolve(variant, after, pending)
    results = results + second_results
    second_dislodged = _with_retreats(variant, state, units, contested, second_dislodged)
    everything = {**dislodged, **second_dislodged}
    if any(d.retreats for d in second_dislodged.values()):
        phase = Phase(state.phase.year, state.phase.season, retreat_kind)
        nxt = _next(state, phase, units, dislodged=second_dislodged, contested=contested)
        return Adjudication(state.phase, results, units, everything, nxt, disbanded=disbanded)
    disbanded = disbanded + [d.unit for _prov, d in sorted(second_dislodged.items())]
    return _after_turn(variant, state, results, units, everything, disbanded)


def _next(
    state: GameState,
    phase: Phase,
    units: dict[str, Unit],
    centres: dict[str, str] | None = None,
    dislodged: dict[str, Dislodged] | None = None,
    contested: frozenset[str] = frozenset(),
) -> GameState:
    """The position at the start of `phase` (built directly: dataclasses.replace is slow)."""
    return GameState(
        phase,
        units,
        state.supply_centres if centres is None else centres,
        state.home_centres,
        {} if dislodged is None else dislodged,
        contested,
        state.extra,
    )


def _after_turn(
    variant: Variant,
    state: GameState,
    results: list[OrderResult],
    units: dict[str, Unit],
    dislodged: dict[str, Dislodged],
    disbanded: list[Unit],
) -> Adjudication:
    """A Spring or Fall turn is over: after Fall, centres change hands and winter may follow."""
    year, season = state.phase.year, state.phase.season
    if variant.rules.rations:
        units, starved = multiple.ration(variant, units, variant.rules.rations)
        disbanded = disbanded + starved
    if season is Season.SPRING:
        nxt = variant.rules.after_spring(variant, state, _next(state, Phase(year, Season.FALL, PhaseKind.MOVEMENT), units))
        return Adjudication(state.phase, results, nxt.units, dislodged, nxt, disbanded=disbanded)
    centres = dict(state.supply_centres)
    provinces = variant.map.provinces
    added = state.extra.get(ADDED_CENTRES, ())
    for prov, unit in units.items():
        if provinces[prov].supply_centre or prov in added:  # type: ignore[operator]
            centres[prov] = unit.power
    nxt = variant.rules.after_fall(variant, state, _next(state, state.phase, units, centres))
    winner = variant.rules.winner(variant, nxt)
    rules = variant.rules
    if adjustment_counts(variant, nxt) or rules.winter_units(variant, nxt) or rules.winter_pending(variant, nxt):
        phase = Phase(year, Season.WINTER, PhaseKind.ADJUSTMENT)
    elif rules.bidding(variant, nxt):
        phase = Phase(year, Season.WINTER, PhaseKind.BIDDING)
    else:
        phase = Phase(year + 1, Season.SPRING, PhaseKind.MOVEMENT)
    nxt = nxt.with_(phase=phase)
    return Adjudication(state.phase, results, nxt.units, dislodged, nxt, winner, disbanded)


def _allocations_to_void_orders(results: list[OrderResult], side: list[OrderResult]) -> list[OrderResult]:
    """An allocation whose order the unit carried out, though void there (a support of a unit
    not moving where it said): counted, but it did nothing, and its owner is told so."""
    void = {r.order.province: r.reason for r in results if r.result is Result.VOID}
    if not void:
        return side
    out = []
    for r in side:
        inner = r.order.order if type(r.order) is Allocation else None
        if inner is not None and r.result is Result.SUCCEEDS and inner.province in void:
            r = OrderResult(r.order, Result.FAILS, _("allocation counted; the order was void: {reason}",
                                                     reason=void[inner.province]))
        out.append(r)
    return out


def order_warning(variant: Variant, state: GameState, order: Order) -> str | None:
    """Why a legal order will do nothing as it stands, though it is taken: an allocation whose
    order could not work were the unit to carry it out (its points would be spent all the same),
    judged with the move it supports or convoys given."""
    if type(order) is not Allocation or order.order is None:
        return None
    inner = order.order
    partner = _partner(variant, state, inner)
    results = adjudicate(variant, state, [order] if partner is None else [order, partner]).results
    why = _partner_void(variant, state, partner, results) or next(
        (r.reason for r in results if r.result is Result.VOID and r.order is not partner and type(r.order) is not Allocation
         and r.order.province == inner.province and not _needs_partner(r.reason)), None)
    return _("the order cannot work: {reason}; the points would be spent all the same", reason=why) if why else None


def _partner(variant: Variant, state: GameState, order: Order) -> Move | None:
    """The move a support of a move or a convoy stands for, as the moving unit's power would give
    it; None for any other order, or a unit only points move (a minor power's)."""
    if not isinstance(order, (SupportMove, Convoy)) or not order.target:
        return None
    unit = state.units.get(order.target)
    if unit is None or (unit.power in variant.powers and variant.powers[unit.power].minor):
        return None
    # An army's move to a space it does not border can only be by convoy: given as one.
    by_sea = isinstance(order, Convoy) or (unit.type is UnitType.ARMY and province_of(order.dest) not in
                                           variant.map.army.get(unit.province, ()))
    return Move(unit.power, unit.type, unit.location, order.dest, via_convoy=by_sea)


def _partner_void(variant: Variant, state: GameState, partner: Move | None, results: list[OrderResult]) -> str | None:
    """Why the partner's move cannot be made at all, said of the unit, or None."""
    theirs = next((r for r in results if partner is not None and r.order is partner), None)
    if partner is None or theirs is None or theirs.result is not Result.VOID or _needs_partner(theirs.reason):
        return None
    province, dest = variant.map.name(partner.province), variant.map.name(partner.dest)
    if partner.unit_type is UnitType.ARMY:
        return _("the army in {province} cannot move to {destination}: {reason}", province=province, destination=dest,
                 reason=theirs.reason)
    return _("the fleet in {province} cannot move to {destination}: {reason}", province=province, destination=dest,
             reason=theirs.reason)


def check_order(variant: Variant, state: GameState, order: Order) -> str | None:
    """Why `order` is illegal in this position on its own, or None when it is legal.

    Orders that depend on other orders (a support that must match a move, a convoy that must match
    an army's move) are checked as if the orders they need were given. Used for acknowledgements.
    """
    turn = variant.rules.impulses > 1 and state.phase.kind is PhaseKind.MOVEMENT
    if turn and type(order) in _JUDGED_AT_THE_END:
        return None  # a year's retreats, builds and removals depend on how its impulses go
    results = adjudicate(variant, state, [order]).results
    if turn:  # each step's result, in a turn of impulses
        steps = order.steps if type(order) is Steps else (order,)  # type: ignore[attr-defined]
        mine = [r for r in results if r.order is order or (type(r.order) is Step and any(r.order.order is s for s in steps))]
        # Fleets may reach the seas a convoy needs in the first impulse, units the spaces a second
        # step is written from, and an ally may permit a fleet in its coasts in its own orders:
        # only what the steps are on their own is judged here.
        return next((r.reason for r in mine if r.result is Result.VOID and not _needs_partner(r.reason)
                     and not r.reason.endswith("it stands") and "no fleets stand where" not in r.reason
                     and "friendly coastal provinces" not in r.reason), None)
    result = next((r for r in results if r.order is order), results[0])
    if result.result is Result.VOID and not _needs_partner(result.reason):
        return result.reason
    if result.result is Result.VOID:
        return _with_partner(variant, state, order)
    return None


def _with_partner(variant: Variant, state: GameState, order: Order) -> str | None:
    """Why a support or convoy cannot work even if the unit it helps does its part (the supporter
    cannot reach the space, the move it supports cannot be made), or None: judged with the partner's
    move given, as the player means it."""
    partner = _partner(variant, state, order)
    if partner is None:
        return None
    results = adjudicate(variant, state, [order, partner]).results
    mine = next((r for r in results if r.order is order), None)
    why = _partner_void(variant, state, partner, results)
    if why is None and mine is not None and mine.result is Result.VOID and not _needs_partner(mine.reason):
        why = mine.reason
    if why is None and isinstance(order, SupportMove):
        # A support of a move that needs a convoy nobody ordered here: the resolver never comes to
        # the supporter's reach; judged as it would be.
        unit, dest = state.units.get(order.province), province_of(order.dest)
        if unit is not None and unit.province != dest and not reaches(variant, unit, dest):
            where, there = variant.map.name(unit.location), variant.map.name(dest)
            why = (_("the army in {province} cannot reach {destination}, so it cannot support a move there",
                     province=where, destination=there) if unit.type is UnitType.ARMY else
                   _("the fleet in {province} cannot reach {destination}, so it cannot support a move there",
                     province=where, destination=there))
    return why


_JUDGED_AT_THE_END = (Retreat, Disband, Build, Waive, Permit)


def _needs_partner(reason: str) -> bool:
    return (" is not moving to " in reason or " is moving, not holding" in reason or "without a convoy" in reason
            or " to carry the army" in reason or reason.startswith(("no fleet carried the army", "no unit merges into")))
