"""Double-strength conflicts in a turn of impulses (gm/engine/impulses.py; 1700AD II, rule 4:
"when a unit is using its double strength capability, all attacks and supports for the whole turn
are added up and compared to all holds/attacks and supports with the greatest number
succeeding"). Pure.

A move at double strength spans the impulses of its points and is made in the last of them. Its
conflict is the whole turn's:

* a single support given in an earlier impulse for it counts with it (a Carry), unless cut or
  its unit dislodged in the impulse it was given; so does a single hold support given then for
  the unit it attacks;
* a single move ordered into the same space in an earlier impulse is not made in its impulse: it
  waits for the double move's, and is decided there with it and every other attack on the space.
  Its unit stands meanwhile and makes no later step; its supports of the earlier impulse are
  carried to it as to a double move. A unit dislodged in the conflict retreats after it (rule 5:
  "after the impulse (or turn, in double impulse conflicts) of the attack").

A leader's double step after a first one is a double attack too: he is "using his double strength
capability" (rule 7: his second and third impulses are "simultaneous with all other second
impulses"). Conflicts keeps this bookkeeping for impulses._Turn.

What a step's plan must offer (impulses._Plan): `steps` as (impulse made in, step, points, first
impulse spanned), `at` (where its unit is now, None once gone), `done` (dislodged), `waits` (the
space its waiting move is decided in, or None) and `until` (the impulse it is decided in).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from gm.engine.graph import GameMap
from gm.engine.model import Unit, province_of
from gm.engine.multiple import MultiMovement, reach
from gm.engine.orders import Move, Order, SupportMove
from gm.engine.results import OrderResult, Result
from gm.i18n import _

if TYPE_CHECKING:
    from gm.engine.variant import Variant

Plan = Any  # impulses._Plan (see above): typed loosely, as impulses imports this module


@dataclass
class Carry:
    """A single support given in an earlier impulse for a move decided later: one made at double
    strength, or one waiting for a double-strength conflict."""

    supporter: Unit
    mover: Plan
    dest: str  # province
    layer: str  # the supporter's and the mover's: land units or fleets


class Conflicts:
    """A turn's double-strength conflicts, for impulses._Turn: the supports carried to moves decided
    later, the moves that wait, and the words for their results."""

    variant: Variant
    plans: dict[tuple[str, str], Plan]
    step_results: dict[tuple[str, str], list[OrderResult]]
    carries: list[Carry]  # supports given in earlier impulses that stood
    # Moves waiting for a double-strength conflict: (plan key, its result's index, the move, the
    # impulse it is decided in).
    waiting: list[tuple[tuple[str, str], int, Order, int]]
    conflicts: set[tuple[str, str]]  # (layer, space) of the conflicts decided in this impulse

    def _carried_into(self, orders: Sequence[Order], layer: str) -> dict[int, list[tuple[str, int]]]:
        """Move (index in `orders`) -> the supports carried to it from earlier impulses: (power, 1)."""
        carried_into: dict[int, list[tuple[str, int]]] = {}
        for carry in self.carries:
            if carry.layer != layer or carry.mover.done or carry.mover.at is None:
                continue
            index = next((k for k, o in enumerate(orders) if type(o) is Move and o.province == carry.mover.at
                          and province_of(o.dest) == carry.dest), None)  # type: ignore[attr-defined]
            supporter = carry.supporter
            if index is not None and reach(self.variant.map, supporter, (supporter.n_armies, supporter.n_fleets), carry.dest):
                carried_into.setdefault(index, []).append((carry.supporter.power, 1))
        return carried_into

    def _settle_carries(self, movement: MultiMovement, pending_carries: list[tuple[tuple[str, str], int, Carry]]) -> None:
        """The supports given in this impulse for moves decided later: carried if they stood."""
        kept = []
        for key, k, carry in pending_carries:
            shown = self.step_results[key][k].order
            if movement.support_stands(carry.supporter.province, carry.supporter.power, carry.dest):  # type: ignore[attr-defined]
                kept.append(carry)
                self.step_results[key][k] = OrderResult(shown, Result.SUCCEEDS, _("counted with the move at double strength")
                                                        if carry.mover.waits != carry.dest else
                                                        _("counted with the move, decided at the end of the turn"))
            else:
                self.step_results[key][k] = OrderResult(shown, Result.CUT, _("cut, or its unit dislodged, in this impulse"))
        self.carries = [c for c in self.carries if not c.mover.done] + kept

    def _decided_now(self, impulse: int) -> list[tuple[tuple[str, str], int, Order, int]]:
        """The waiting moves decided in this impulse, with their double-strength conflicts; those
        whose unit was dislodged meanwhile fail."""
        now, later = [], []
        for entry in self.waiting:
            key, k, step, when = entry
            plan = self.plans[key]
            if when != impulse:
                later.append(entry)
            elif plan.done or plan.at is None:
                self.step_results[key][k] = OrderResult(self.step_results[key][k].order, Result.FAILS,
                                                        _("its unit was dislodged before the end of the turn, where this "
                                                          "move was to be decided"))
            else:
                now.append(entry)
        self.waiting = later
        self.conflicts = {(key[1], province_of(step.dest)) for key, _k, step, _when in now}  # type: ignore[attr-defined]
        return now

    def _explained(self, movement: MultiMovement, layer: str, i: int, step: Order, r: OrderResult) -> str:
        """A move's result reason, in words for a double-strength conflict decided now."""
        if type(step) is not Move or r.result is Result.VOID or (layer, province_of(step.dest)) not in self.conflicts:  # type: ignore[attr-defined]
            return r.reason
        return conflict_reason(movement, i, r.result is Result.SUCCEEDS, r.reason)


def double_move(plan: Plan, dest: str, impulse: int) -> bool:
    """Does `plan` move its unit into `dest` at double strength in a later impulse, with points
    spent in this one?"""
    return any(n > 1 and first <= impulse < when and type(step) is Move and province_of(step.dest) == dest  # type: ignore[attr-defined]
               for when, step, n, first in plan.steps)


def double_attacks_on(plans: Mapping[tuple[str, str], Plan], province: str, impulse: int, layer: str) -> list[int]:
    """The later impulses in which the layer's units still in play are ordered to move into
    `province` at double strength (empty: none). A leader's double step after a first one counts:
    he too is "using his double strength capability"."""
    return [when for (_here, lay), plan in plans.items() if lay == layer and not plan.done
            for when, step, n, _first in plan.steps
            if n > 1 and impulse < when and type(step) is Move and province_of(step.dest) == province]  # type: ignore[attr-defined]


def waiting_move(game_map: GameMap, plans: Mapping[tuple[str, str], Plan], key: tuple[str, str], impulse: int
                 ) -> tuple[Order, int] | None:
    """The plan's single move of this impulse that must wait for a double-strength conflict on its
    space, and the impulse it is decided in; None when it is made now. A move by convoy keeps its
    impulse: its fleets convoy in that one."""
    plan = plans[key]
    for when, step, n, _first in plan.steps:
        if when != impulse or n != 1 or type(step) is not Move or step.via_convoy or step.province != plan.at:  # type: ignore[attr-defined]
            continue
        dest = province_of(step.dest)  # type: ignore[attr-defined]
        near = game_map.sea_neighbours if plan.unit.n_fleets and not plan.unit.n_armies else game_map.army
        if dest not in near.get(step.province, ()):
            continue
        later = double_attacks_on({k: p for k, p in plans.items() if k != key}, dest, impulse, key[1])
        if later:
            return step, max(later)
    return None


def carried_support(by_location: Mapping[str | None, Plan], step: Order, points: int, impulse: int) -> Plan | None:
    """The plan of the unit whose move `step` supports, when that move is decided in a later
    impulse (made at double strength spanning this one, or waiting for such a conflict); None
    when the support is given now."""
    if type(step) is not SupportMove or points != 1:
        return None
    plan = by_location.get(step.target)  # type: ignore[attr-defined]
    if plan is None:
        return None
    dest = province_of(step.dest)  # type: ignore[attr-defined]
    return plan if (plan.waits == dest and impulse < plan.until) or double_move(plan, dest, impulse) else None


def supports_again(plan: Plan, mover: Plan, dest: str, impulse: int) -> bool:
    """Does `plan`'s unit support `mover`'s waiting move again in a later impulse? Its supports
    then count once: a single move takes one support from a unit ("a double strength support for
    a single impulse move ... would only count as a single support")."""
    return mover.waits == dest and any(
        when > impulse and type(step) is SupportMove and province_of(step.dest) == dest  # type: ignore[attr-defined]
        and step.target == mover.at for when, step, _n, _first in plan.steps)  # type: ignore[attr-defined]


def conflict_reason(movement: MultiMovement, i: int, succeeded: bool, reason: str) -> str:
    """What became of move i, one of a double-strength conflict decided at the end of the turn, in
    a player's words: the strengths compared, the whole turn's supports included."""
    name = movement.map.name
    dest = movement.dst[i]
    here = movement.attack_strength(i)
    rivals = sorted(((movement.prevent_strength(j), j) for j in movement.moves_to.get(dest, ()) if j != i),  # type: ignore[arg-type]
                    key=lambda r: (-r[0], r[1]))
    if succeeded and not rivals and not movement.hold_strength(dest):  # type: ignore[arg-type]
        return _("entered {province} at the end of the turn: no other attack on it was made, in the whole-turn comparison",
                 province=name(dest))
    if succeeded:
        held = movement.hold_strength(dest)  # type: ignore[arg-type]
        # TRANSLATORS: an attack and its strength: 'the attack from Saxony (2)'
        beaten = [_("{attack} ({strength})", attack=_attack(movement, j), strength=n) for n, j in rivals if n] + (
            [_("a defence of {strength}", strength=held)] if held else [])
        # TRANSLATORS: {strength} is the move's; {beaten}, the attacks and defence it beat, with theirs
        return _("entered {province} in the whole-turn comparison of the double-strength conflict: {strength} against "
                 "{beaten}", province=name(dest), strength=here, beaten=beaten or "")
    if rivals and rivals[0][0] >= here > 0:
        n, j = rivals[0]
        return _("bounced in {province} against {attack} in the whole-turn comparison ({strength} against {other})",
                 province=name(dest), attack=_attack(movement, j), strength=here, other=n)
    # TRANSLATORS: {reason} is why the move failed ('bounced in Saxony'); {strength} its strength, {defence} the defence's
    return _("{reason}, in the whole-turn comparison of the double-strength conflict ({strength} against a defence of "
             "{defence})", reason=reason, strength=here, defence=movement.hold_strength(dest)) if here else reason  # type: ignore[arg-type]


def _attack(movement: MultiMovement, j: int) -> str:
    points = getattr(movement, "factor", {}).get(j, 1)  # ImpulseMovement's: the impulse points spent on it
    where = movement.map.name(movement.src[j])
    if points == 1:
        return _("the attack from {province}", province=where)
    if points == 2:
        return _("the double-strength attack from {province}", province=where)
    return _("the triple-strength attack from {province}", province=where)
