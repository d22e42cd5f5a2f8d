"""Ambition & Empire (Kase & Powell, 2006 rules): what differs from standard Diplomacy.

The map, the powers (ten great, seventeen minor), religions and the Catholic list are data
(maps/ambition/). This module holds the rules that need code:

* Diplomacy Points (section IV): each great power has one DP per centre it controls, at most three,
  at the start of each Spring and Fall turn. `DP <n> <order>` puts n points behind an order for a
  minor power's unit; identical orders add up across powers; strictly the most points wins, a tie
  or no allocation leaves the unit holding; a power that allocates more than it has forfeits all.
  In 2006 a minor unit may only hold or support, and the Religious Rule (section V.3) applies.
* Minor powers (section III): their units hold unless DPs order them; a dislodged one is destroyed;
  an empty centre still held by its minor power at the end of a Fall turn gets its unit back.
* The third home centre of the five two-centre powers (section V.2), Crimea (data), the
  Austrian Netherlands (data), victory at 15 with the tie rule (section VI) and permanent civil
  disorder (section VII).

Variant-specific facts kept in GameState.extra (keys below) travel with the position.
"""
from __future__ import annotations

from collections import deque
from dataclasses import replace
from typing import TYPE_CHECKING, Sequence

from gm.engine.model import GameState, PhaseKind, Unit, UnitType, province_of
from gm.engine.orders import Allocation, Build, DeclareHome, Hold, Order, SupportHold, SupportMove
from gm.engine.results import OrderResult, Result
from gm.engine.rules import Rules
from gm.engine.variant import SpecialOrder
from gm.i18n import _

if TYPE_CHECKING:
    from gm.engine.variant import Variant

# GameState.extra keys
CIVIL_DISORDER = "civil_disorder"  # great powers in permanent civil disorder (sorted tuple)
INDEPENDENTS = "independents"  # new minor powers: name -> {"home": prov, "unit": "A 'LOC'", "religion": ...}
HOME_CHOICE = "home_choice"  # power -> centres it captured together, one to become its third home

MAX_DP = 3
ISLAMIC = "Islamic"
PAPAL_STATES = "Papal States"
OTTOMAN = "Turkey"

# What a player is told of the orders the 2006 rules add (the start mail, what a phase asks).
DP_ORDER = SpecialOrder(
    syntax="DP <n> <order>",
    what=_("Diplomacy Points, secret: n points behind an order for a minor power's unit, to hold or "
           "support (the Religious Rule applies). One DP per centre you control, at most 3, each "
           "Spring and Fall; unused DPs are lost. Strictly the most points wins, a tie leaves the "
           "unit holding; allocating more than you have forfeits them all that turn."),
    example="DP 2 A Sav S A Tus",
    phases=(PhaseKind.MOVEMENT,),
    points="DP",
)
HOME_ORDER = SpecialOrder(
    syntax="HOME <centre>",
    what=_("a power with two home centres makes the first centre it captures its third home; "
           "when it captured two at once, it names which in the winter"),
    example="HOME Portugal",
    phases=(PhaseKind.ADJUSTMENT,),
    fact="two_centre_powers",
)
SPECIAL_ORDERS = (DP_ORDER, HOME_ORDER)


def either(names: Sequence[str]) -> str:
    """'Portugal or Spain or Morocco': one of them (a Text, 'or' in the reader's words)."""
    said = names[0]
    for name in names[1:]:
        said = _("{names} or {name}", names=said, name=name)
    return said


class VariantRules(Rules):
    """The 2006 rules. gm/variants/ambition_v6.py builds the version 6 rules on this class."""

    special_orders = SPECIAL_ORDERS
    # Orders a minor power's unit may be given through DPs.
    minor_order_kinds: tuple[type, ...] = (Hold, SupportHold, SupportMove)
    # 2006: an allocation the unit could not carry out is refused when it is made. v6 counts it and
    # publishes the winner as written (an invalid one leaves the unit holding).
    check_when_allocated = True

    # --- powers ---------------------------------------------------------------------------------
    def is_minor(self, variant: Variant, state: GameState, power: str) -> bool:
        p = variant.powers.get(power)
        return p.minor if p is not None else power in state.extra.get(INDEPENDENTS, {})

    def minor_powers(self, variant: Variant, state: GameState) -> list[str]:
        return [p.name for p in variant.powers.values() if p.minor] + sorted(state.extra.get(INDEPENDENTS, {}))

    def religion(self, variant: Variant, state: GameState, power: str) -> str:
        p = variant.powers.get(power)
        if p is not None:
            return str(p.traits.get("religion", ""))
        return str(state.extra.get(INDEPENDENTS, {}).get(power, {}).get("religion", ""))

    def in_civil_disorder(self, state: GameState) -> tuple[str, ...]:
        return state.extra.get(CIVIL_DISORDER, ())  # type: ignore[return-value]

    def may_retreat(self, variant: Variant, state: GameState, unit: Unit) -> bool:
        return not self.is_minor(variant, state, unit.power)  # a dislodged minor unit is destroyed

    def dp_entitlement(self, variant: Variant, state: GameState) -> dict[str, int]:
        """DPs each great power has this turn: one per centre it controls, at most three."""
        counts = {p: 0 for p in variant.great_powers if p not in self.in_civil_disorder(state)}
        for owner in state.supply_centres.values():
            if owner in counts:
                counts[owner] += 1
        return {p: min(MAX_DP, n) for p, n in counts.items()}

    def points_available(self, variant: Variant, state: GameState, power: str) -> int | None:
        if state.phase.kind is not PhaseKind.MOVEMENT:
            return 0
        return self.dp_entitlement(variant, state).get(power, 0)

    # --- every phase ----------------------------------------------------------------------------
    def prepare(
        self, variant: Variant, state: GameState, orders: Sequence[Order]
    ) -> tuple[GameState, list[Order], list[OrderResult]]:
        kind = state.phase.kind
        if kind is PhaseKind.MOVEMENT:
            return self._allocate(variant, state, orders)
        if kind is PhaseKind.ADJUSTMENT:
            return self._declare_homes(variant, state, orders)
        return super().prepare(variant, state, orders)

    # --- Diplomacy Points -----------------------------------------------------------------------
    def _allocate(
        self, variant: Variant, state: GameState, orders: Sequence[Order]
    ) -> tuple[GameState, list[Order], list[OrderResult]]:
        unit_orders: list[Order] = []
        allocations: list[Allocation] = []
        side: list[OrderResult] = []
        for o in orders:
            if type(o) is Allocation:
                allocations.append(o)
            elif type(o) is DeclareHome:
                side.append(OrderResult(o, Result.VOID, _("a HOME declaration is given in the winter")))
            elif self.is_minor(variant, state, o.power):
                side.append(OrderResult(o, Result.VOID, _("{power} is a minor power: its unit is ordered only through DPs",
                                                          power=o.power)))
            else:
                unit_orders.append(o)
        if not allocations:
            return state, unit_orders, side
        valid: list[tuple[Allocation, Order]] = []
        for a in allocations:
            why, minor_order = self._check_allocation(variant, state, a, unit_orders)
            if why:
                side.append(OrderResult(a, Result.VOID, why))
            else:
                valid.append((a, minor_order))  # type: ignore[arg-type]
        entitled = self.dp_entitlement(variant, state)
        spent: dict[str, int] = {}
        for a, _order in valid:
            spent[a.power] = spent.get(a.power, 0) + a.points
        tally: dict[str, dict[Order, int]] = {}
        counted: list[tuple[Allocation, Order]] = []
        for a, mo in valid:
            if spent[a.power] > entitled.get(a.power, 0):
                reason = _("all of {power}'s DPs are forfeited this turn: it allocated {spent} and has {entitled}",
                           power=a.power, spent=spent[a.power], entitled=entitled.get(a.power, 0))
                side.append(OrderResult(a, Result.FAILS, reason))
                continue
            votes = tally.setdefault(mo.province, {})
            votes[mo] = votes.get(mo, 0) + a.points
            counted.append((a, mo))
        chosen: dict[str, Order] = {}
        for prov, votes in tally.items():
            best = max(votes.values())
            winners = [o for o, n in votes.items() if n == best]
            if len(winners) == 1:
                chosen[prov] = winners[0]
        for a, mo in counted:
            won = chosen.get(mo.province)
            if won == mo:
                side.append(OrderResult(a, Result.SUCCEEDS))
            elif won is None:
                side.append(OrderResult(a, Result.FAILS, _("no order had the most DPs: the unit holds")))
            else:
                side.append(OrderResult(a, Result.FAILS, _("the unit carried out another order: {order}", order=str(won))))
        for prov in sorted(chosen):
            published, why = self._publish(variant, state, chosen[prov])
            if why:
                side.append(OrderResult(published, Result.VOID, why))
            else:
                unit_orders.append(published)
        return state, unit_orders, side

    def _check_allocation(
        self, variant: Variant, state: GameState, a: Allocation, unit_orders: list[Order]
    ) -> tuple[str, Order | None]:
        """Why an allocation cannot count, or '' and the minor unit's order it stands for."""
        name = variant.map.name
        if a.power not in variant.powers or variant.powers[a.power].minor:
            return _("{power} is not a great power and has no DPs", power=a.power), None
        if a.power in self.in_civil_disorder(state):
            return _("{power} is in civil disorder", power=a.power), None
        o = a.order
        assert o is not None
        unit = state.units.get(o.province)
        where = name(o.province)
        if unit is None:
            return _("there is no unit in {province}", province=where), None
        if not self.is_minor(variant, state, unit.power):
            return _("the unit in {province} belongs to {power}, not to a minor power", province=where,
                     power=unit.power), None
        if o.unit_type is not None and o.unit_type is not unit.type and self.check_when_allocated:
            return (_("the unit in {province} is an army", province=where) if unit.type is UnitType.ARMY else
                    _("the unit in {province} is a fleet", province=where)), None
        if not isinstance(o, self.minor_order_kinds):
            return _("a minor power may only be ordered to hold or support"), None
        # The same order, however it was written, counts as one: the unit's own power, type and
        # location; supports name the supported unit's real type.
        changes: dict[str, object] = {"power": unit.power, "unit_type": o.unit_type or unit.type, "location": unit.location}
        if isinstance(o, (SupportHold, SupportMove)):
            supported = state.units.get(o.target)
            changes["target_type"] = supported.type if supported is not None else None
        minor_order = replace(o, **changes)  # type: ignore[type-var]
        why = self._allocation_barred(variant, state, a, minor_order, unit_orders)
        return (why, None) if why else ("", minor_order)

    def _allocation_barred(
        self, variant: Variant, state: GameState, a: Allocation, minor_order: Order, unit_orders: list[Order]
    ) -> str:
        """2006: the Religious Rule is checked when the DPs are allocated."""
        return self.religious_rule(variant, state, minor_order)

    def _publish(self, variant: Variant, state: GameState, order: Order) -> tuple[Order, str]:
        """The order with the most DPs, as the minor unit will carry it out; a reason if it may not."""
        return order, ""

    def _muslim(self, variant: Variant, state: GameState, power: str) -> bool:
        return self.religion(variant, state, power) == ISLAMIC

    def religious_rule(self, variant: Variant, state: GameState, order: Order) -> str:
        """Section V.3, as the 2006 text states it; positions are those at the start of the turn."""
        if not isinstance(order, (SupportHold, SupportMove)):
            return ""
        name = variant.map.name
        minor = order.power
        supported = state.units.get(order.target)
        if minor == PAPAL_STATES:
            catholic = variant.facts.get("catholic_states_2006", ())
            if supported is None or supported.power not in catholic:  # type: ignore[operator]
                return _("the Papal States may only support a unit of a Catholic state")
        if type(order) is not SupportMove or supported is None:
            return ""
        defender = state.units.get(province_of(order.dest))
        if defender is None:
            return ""
        attacker_great = not self.is_minor(variant, state, supported.power)
        if (
            self._muslim(variant, state, minor)
            and attacker_great
            and not self._muslim(variant, state, supported.power)
            and self._muslim(variant, state, defender.power)
        ):
            return _("{power} may not support a Christian great power's attack on a Muslim unit in {province}",
                     power=minor, province=name(defender.province))
        if (
            not self._muslim(variant, state, minor)
            and supported.power == OTTOMAN
            and not self._muslim(variant, state, defender.power)
        ):
            return _("{power} may not support an Ottoman attack on a Christian unit in {province}", power=minor,
                     province=name(defender.province))
        return ""

    # --- end of the year ------------------------------------------------------------------------
    def after_fall(self, variant: Variant, before: GameState, after: GameState) -> GameState:
        extra = dict(after.extra)
        centres = dict(after.supply_centres)
        # Centres of a power in civil disorder, empty at the end of a Fall turn, become independent.
        for cd_power in self.in_civil_disorder(after):
            for c, owner in after.supply_centres.items():
                if owner == cd_power and c not in after.units:
                    self._make_independent(variant, after, extra, centres, c, cd_power)
        homes = self._third_homes(variant, before, after, extra)
        return after.with_(supply_centres=centres, home_centres=homes, extra=extra)

    def _third_homes(
        self, variant: Variant, before: GameState, after: GameState, extra: dict[str, object]
    ) -> dict[str, frozenset[str]]:
        """Section V.2: the first centre a two-centre power captures becomes its third home."""
        homes = dict(after.home_centres)
        choices = dict(extra.get(HOME_CHOICE, {}))  # type: ignore[call-overload]
        for power in variant.facts.get("two_centre_powers", ()):  # type: ignore[union-attr]
            originals = variant.powers[power].home_centres
            if power in self.in_civil_disorder(after) or len(homes[power]) > len(originals) or power in choices:
                continue
            captured = sorted(
                c
                for c, owner in after.supply_centres.items()
                if owner == power and before.supply_centres.get(c) != power and c not in originals
            )
            if len(captured) == 1:
                homes[power] = homes[power] | {captured[0]}
            elif captured:
                choices[power] = tuple(captured)
        if choices:
            extra[HOME_CHOICE] = choices
        return homes

    def settle_position(self, variant: Variant, state: GameState) -> GameState:
        """A two-centre power that controls exactly one centre besides its own two has made that its
        third home; with more, the position does not tell which came first (state it explicitly)."""
        homes = dict(state.home_centres)
        for power in variant.facts.get("two_centre_powers", ()):  # type: ignore[union-attr]
            originals = variant.powers[power].home_centres
            others = [c for c, o in state.supply_centres.items() if o == power and c not in originals]
            if len(homes[power]) == len(originals) and len(others) == 1:
                homes[power] = homes[power] | {others[0]}
        return state.with_(home_centres=homes)

    def winter_choices(self, variant: Variant, state: GameState) -> dict[str, str]:
        choices: dict[str, Sequence[str]] = state.extra.get(HOME_CHOICE, {})  # type: ignore[assignment]
        name = variant.map.name
        return {p: _("a HOME declaration: {centres}", centres=either([name(c) for c in sorted(centres)]))
                for p, centres in choices.items()}

    def winter_units(self, variant: Variant, state: GameState) -> list[Unit]:
        """Minor powers whose centre is empty and still theirs get their unit back."""
        out = []
        starting = {u.power: u for u in variant.starting_units}
        independents = state.extra.get(INDEPENDENTS, {})
        for power in self.minor_powers(variant, state):
            if power in starting:
                unit = starting[power]
            else:
                kind, loc = independents[power]["unit"].split()  # type: ignore[index]
                unit = Unit(power, UnitType(kind), loc)
            if state.supply_centres.get(unit.province) == power and unit.province not in state.units:
                out.append(unit)
        return out

    # --- adjustments ----------------------------------------------------------------------------
    def _declare_homes(
        self, variant: Variant, state: GameState, orders: Sequence[Order]
    ) -> tuple[GameState, list[Order], list[OrderResult]]:
        """HOME <centre>: which of the centres captured together becomes the third home."""
        unit_orders: list[Order] = []
        side: list[OrderResult] = []
        choices = dict(state.extra.get(HOME_CHOICE, {}))
        homes = dict(state.home_centres)
        name = variant.map.name
        for o in orders:
            if type(o) is Allocation:
                side.append(OrderResult(o, Result.VOID, _("DPs are allocated in Spring and Fall turns")))
            elif type(o) is not DeclareHome:
                unit_orders.append(o)
            elif o.power not in choices:
                side.append(OrderResult(o, Result.VOID, _("{power} has no home centre to choose this winter", power=o.power)))
            elif o.province not in choices[o.power]:
                listed = either([name(c) for c in choices[o.power]])
                side.append(OrderResult(o, Result.VOID, _("{power} may choose {centres}, not {province}", power=o.power,
                                                          centres=listed, province=name(o.province))))
            else:
                homes[o.power] = homes[o.power] | {o.province}
                del choices[o.power]
                side.append(OrderResult(o, Result.SUCCEEDS))
        if side:
            extra = dict(state.extra)
            extra[HOME_CHOICE] = choices
            state = state.with_(home_centres=homes, extra=extra)
        return state, unit_orders, side

    def max_builds(self, variant: Variant, state: GameState, power: str) -> int | None:
        return 0 if power in self.in_civil_disorder(state) else None

    def build_sites(self, variant: Variant, state: GameState, power: str, built: Sequence[str] = ()) -> set[str]:
        sites = super().build_sites(variant, state, power, built)
        candidates = state.extra.get(HOME_CHOICE, {}).get(power, ())
        if candidates and not set(built) & set(candidates):
            # Not yet declared: building in one of them declares it (the others are then no home).
            sites |= {c for c in candidates if state.supply_centres.get(c) == power}
        return sites

    def after_winter(self, variant: Variant, state: GameState, results: list[OrderResult]) -> GameState:
        choices = dict(state.extra.get(HOME_CHOICE, {}))
        if not choices:
            return state
        homes = dict(state.home_centres)
        built = {r.order.province for r in results if type(r.order) is Build and r.result is Result.SUCCEEDS}
        for power, candidates in choices.items():
            chosen = [c for c in candidates if c in built]
            # Neither declared nor built in: the one nearest the power's home centres (then by name).
            homes[power] = homes[power] | {chosen[0] if chosen else self._nearest(variant, power, candidates)}
        extra = dict(state.extra)
        del extra[HOME_CHOICE]
        return state.with_(home_centres=homes, extra=extra)

    def _nearest(self, variant: Variant, power: str, candidates: Sequence[str]) -> str:
        homes = variant.powers[power].home_centres
        graph = variant.map.all_neighbours
        distance = dict.fromkeys(homes, 0)
        queue = deque(homes)
        while queue:
            here = queue.popleft()
            for nxt in graph.get(here, ()):
                if nxt not in distance:
                    distance[nxt] = distance[here] + 1
                    queue.append(nxt)
        return min(candidates, key=lambda c: (distance.get(c, 10**6), variant.map.name(c)))

    # --- victory --------------------------------------------------------------------------------
    def winner(self, variant: Variant, state: GameState) -> str | None:
        """Section VI: 15 centres, and more than any other power."""
        counts = {p: 0 for p in variant.great_powers}
        for owner in state.supply_centres.values():
            if owner in counts:
                counts[owner] += 1
        best = max(counts.values())
        leaders = [p for p, n in counts.items() if n == best]
        return leaders[0] if best >= variant.victory_centres and len(leaders) == 1 else None

    # --- civil disorder -------------------------------------------------------------------------
    def permanent_civil_disorder(self, variant: Variant, state: GameState, power: str) -> bool:
        return power in self.in_civil_disorder(state)  # section VII: never played again

    def declare_civil_disorder(self, variant: Variant, state: GameState, power: str) -> GameState:
        """Section VII: the power's units are disbanded; its empty centres become independent
        minor powers with a unit each; centres other powers occupy follow when they are left."""
        if power not in variant.great_powers or power in self.in_civil_disorder(state):
            return state
        units = {p: u for p, u in state.units.items() if u.power != power}
        extra = dict(state.extra)
        centres = dict(state.supply_centres)
        after_disbanding = state.with_(units=units)
        for c, owner in state.supply_centres.items():
            if owner == power and c not in units:
                unit = self._make_independent(variant, after_disbanding, extra, centres, c, power)
                units[c] = unit
        extra[CIVIL_DISORDER] = tuple(sorted({*self.in_civil_disorder(state), power}))
        return state.with_(units=units, supply_centres=centres, extra=extra)

    def _make_independent(
        self,
        variant: Variant,
        state: GameState,
        extra: dict[str, object],
        centres: dict[str, str],
        centre: str,
        former: str,
    ) -> Unit:
        """Centre `centre` of `former` becomes a new minor power; returns the unit it gets."""
        name = variant.map.provinces[centre].name
        if name in variant.powers:
            name = f"Free {name}"
        unit = self.independent_unit(variant, name, centre)
        independents = dict(extra.get(INDEPENDENTS, {}))  # type: ignore[call-overload]
        independents[name] = {
            "home": centre,
            "unit": str(unit),
            "religion": self.religion(variant, state, former),
        }
        extra[INDEPENDENTS] = independents
        centres[centre] = name
        return unit

    def independent_unit(self, variant: Variant, power: str, centre: str) -> Unit:
        """2006: a new minor power gets an army."""
        return Unit(power, UnitType.ARMY, centre)

