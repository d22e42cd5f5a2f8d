"""Multiple units (Multiplicity II) and armies at sea aboard their fleets (the A/F rules), for
variants whose rules switch them on (Rules.multiple_units). Pure.

A unit may be several armies and fleets of one power in one space ('2A', '3F', 'A/F', 'A/2F').
It holds, attacks and supports with the strength of the parts that can act there: in or into a
sea only its fleets count, in or into an inland space only its armies, on a coast all of it.

An order's unit names the part that carries it out: '2A BUR - MUN' or 'BUR - MUN' moves the whole
2A, '1A BUR - MUN' one army of it (a split: the rest stays and holds); on an A/F, 'A' names its
armies and 'F' its fleets (at sea the armies go with their fleets). A move with MERGE joins the
power's unit in the space moved to, or its other units merging there, instead of standing them off;
merging units count as supporting each other. An army boards its power's fleet in a sea next to it
with E (a move into that sea): before the movement when the fleet is there already, with the
move when the fleet arrives this turn. Armies aboard land on a coast of their sea by moving there
(D); those whose fleet carried them this turn land once the moves are made. A unit's parts may
have orders of their own (one move at most), so a unit splits its support between spaces.
Where the rules say so, convoys cross one sea only (Rules.convoy_one_sea) and armies at sea
starve after so many turns (Rules.rations, `ration`). The variant's README says how each rule is
read where the rule texts are silent.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from gm.engine.graph import GameMap, Terrain
from gm.engine.model import Dislodged, GameState, Unit, UnitType, designation, province_of
from gm.engine.orders import Convoy, Hold, Move, Order, SupportHold, SupportMove, TwoPhase, kind_name
from gm.engine.resolve import FAILS, MOVEMENT_ORDERS, SUCCEEDS, Movement, unit_for
from gm.engine.results import OrderResult, Result
from gm.engine.variant import Variant
from gm.i18n import _

SEA, LAND = Terrain.SEA, Terrain.LAND


def acting_part(variant: Variant, unit: Unit, order: Order) -> tuple[int, int] | str:
    """The armies and fleets of `unit` that carry `order` out, or why the order names none."""
    armies, fleets = unit.n_armies, unit.n_fleets
    where = variant.map.name(unit.province)
    if order.part is not None:
        a, f = order.part
        if a > armies or f > fleets:
            # TRANSLATORS: {unit} is 'an army', 'a fleet' or how the unit is written ('2A'); {other} as written: 'A/F'
            return _("the unit in {province} is {unit}, not {other}", province=where, unit=_described(unit),
                     other=designation(a, f))
        return order.part
    kind = order.unit_type
    if kind is None:
        return armies, fleets
    if kind is UnitType.ARMY:
        if not armies:
            return _("the unit in {province} is {unit}: it has no army", province=where, unit=_described(unit))
        return armies, 0
    if not fleets:
        return _("the unit in {province} is {unit}: it has no fleet", province=where, unit=_described(unit))
    # At sea the armies go where their fleets go.
    return (armies if variant.map.provinces[unit.province].terrain is SEA else 0), fleets


def _described(unit: Unit) -> str:
    """'an army', 'a fleet' (in the reader's words), or how a multiple unit is written: '2A', 'A/F'."""
    if unit.single:
        return _("an army") if unit.type is UnitType.ARMY else _("a fleet")
    return unit.designation


def strength_in(variant: Variant, part: tuple[int, int], province: str) -> int:
    """What armies and fleets count for in or into `province`: fleets at sea, armies inland."""
    terrain = variant.map.provinces[province].terrain
    armies, fleets = part
    return fleets if terrain is SEA else armies if terrain is LAND else armies + fleets


def reaches(game_map: GameMap, unit: Unit, province: str) -> bool:
    """Whether the whole of `unit` can move to `province` (and so support there)."""
    return reach(game_map, unit, (unit.n_armies, unit.n_fleets), province) > 0


def reach(game_map: GameMap, unit: Unit, part: tuple[int, int], province: str) -> int:
    """The strength `part` of `unit` can lend in `province` (0: it cannot reach it)."""
    armies, fleets = part
    terrain = game_map.provinces[province].terrain
    here = game_map.provinces[unit.province].terrain
    strength = 0
    if armies and here is not SEA and terrain is not SEA and province in game_map.army.get(unit.province, ()):
        strength += armies
    if fleets and terrain is not LAND and province in game_map.fleet_provinces.get(unit.location, ()):
        strength += fleets
    return strength


def parts_stand_together(unit: Unit | None, parts: Sequence[tuple[tuple[int, int], bool]]) -> bool:
    """May orders for these parts of `unit` ((armies, fleets), whether it is a move) stand
    together: one move at most, and no more armies and fleets than the unit has (unchecked
    without the unit)? The resolver and the intake of orders both ask."""
    if sum(1 for _part, move in parts if move) > 1:
        return False
    return unit is None or (sum(a for (a, _f), _move in parts) <= unit.n_armies
                            and sum(f for (_a, f), _move in parts) <= unit.n_fleets)


def _mixed(part: tuple[int, int]) -> bool:
    """Armies and fleets together: an A/F."""
    return bool(part[0] and part[1])


def combine(power: str, location: str, parts: Sequence[tuple[int, int]], at_sea: int = 0) -> Unit:
    """One unit of the given parts at `location` (a fleet's coast when there are fleets); its
    armies have been at sea as long as the longest at sea among them."""
    return Unit.of(power, location, sum(a for a, _f in parts), sum(f for _a, f in parts), at_sea)


def carried(state: GameState, orders: Sequence[Order]) -> list[Order]:
    """The orders, and for each fleet an army boards with the fleet's moves written beside the
    boarding ('A TUN E F BOT - ION - AEG', as the A/F rules write it) the fleet's order, where
    its power gave it none: one move, or two where the rules move fleets twice."""
    ordered = {(o.power, o.province) for o in orders}
    added: list[Order] = []
    for order in orders:
        if type(order) is not Move or not order.carrier:
            continue
        sea = province_of(order.dest)
        fleet = state.units.get(sea)
        if fleet is None or fleet.power != order.power or not fleet.n_fleets or (order.power, sea) in ordered:
            continue
        ordered.add((order.power, sea))
        stops = (order.dest, *order.carrier)
        moves = [Move(order.power, UnitType.FLEET, here, there) for here, there in zip(stops, stops[1:])]
        added.append(moves[0] if len(moves) == 1 else
                     TwoPhase(order.power, UnitType.FLEET, order.dest, moves[0], moves[1]))
    return [*orders, *added] if added else list(orders)


def _merge_supports(variant: Variant, orders: Sequence[Order]
                    ) -> tuple[list[Order], list[OrderResult], dict[int, Order]]:
    """A support of a merge ('A PAR S MERGE BUR') as the support of one of the moves merging into
    the space: merging units count each other's supports, so it counts once for the whole merge.
    Returns the orders, the results of supports of a merge nobody makes, and the support as
    given for each one rewritten (by id), for its result."""
    if not any(type(o) is SupportMove and not o.target for o in orders):
        return list(orders), [], {}
    given: dict[int, Order] = {}
    merging = {}
    for o in orders:
        if type(o) is Move and o.merge and not o.carrier:
            merging.setdefault(province_of(o.dest), o)
    out: list[Order] = []
    refused: list[OrderResult] = []
    for o in orders:
        if type(o) is SupportMove and not o.target:
            move = merging.get(province_of(o.dest))
            if move is None:
                refused.append(OrderResult(o, Result.VOID, _("no unit merges into {province}",
                                                             province=variant.map.name(province_of(o.dest)))))
                continue
            support = SupportMove(o.power, o.unit_type, o.location, move.province, o.dest, move.unit_type, part=o.part)
            given[id(support)] = o
            o = support
        out.append(o)
    return out, refused, given


def board(variant: Variant, state: GameState, orders: Sequence[Order]
          ) -> tuple[GameState, list[Order], list[OrderResult]]:
    """Embarkations onto fleets already in the sea, made before the movement (the A/F rules'
    move sequence): they never fail. Returns the position with the armies aboard, the orders
    left to resolve and the boarding orders' results."""
    units = state.units
    left: list[Order] = []
    results: list[OrderResult] = []
    for order in orders:
        boarding = _boarding(variant, units, order)
        if boarding is None:
            left.append(order)  # not a boarding now: the movement judges it
            continue
        army, fleet, armies = boarding
        if fleet.armies + armies > fleet.count:
            # TRANSLATORS: {unit} is how the fleets are written: 'F', '2F', 'A/2F'
            results.append(OrderResult(order, Result.VOID, _("the {unit} in {province} has no room: each army needs a "
                                                             "fleet to carry it", unit=fleet.designation,
                                                             province=variant.map.name(fleet.province))))
            continue
        units = dict(units) if units is state.units else units
        if army.n_armies > armies:
            units[army.province] = Unit.of(army.power, army.location, army.n_armies - armies, army.n_fleets, army.at_sea)
        else:
            del units[army.province]
        units[fleet.province] = Unit.of(fleet.power, fleet.location, fleet.armies + armies, fleet.count, fleet.at_sea)
        results.append(OrderResult(order, Result.SUCCEEDS, ""))
    return (state if units is state.units else state.with_(units=units)), left, results


def _boarding(variant: Variant, units: dict[str, Unit], order: Order) -> tuple[Unit, Unit, int] | None:
    """(the unit the armies leave, the fleet they board, how many) when `order` moves armies from
    land into a sea next to it where a fleet of their power stands; else None."""
    if type(order) is not Move:
        return None
    provinces = variant.map.provinces
    dest = province_of(order.dest)
    unit, fleet = units.get(order.province), units.get(dest)
    if (unit is None or fleet is None or unit.power != order.power or fleet.power != order.power
            or not fleet.n_fleets or provinces[dest].terrain is not SEA or provinces[unit.province].terrain is SEA
            or dest not in variant.map.sea_neighbours.get(unit.province, ())):
        return None
    part = acting_part(variant, unit, order)
    if type(part) is not tuple or part[1]:
        return None
    return unit, fleet, part[0]


def resolve_movement(variant: Variant, state: GameState, orders: Sequence[Order]
                     ) -> tuple[list[OrderResult], dict[str, Unit], dict[str, Dislodged], frozenset[str]]:
    """A movement phase with multiple units: boardings first, then every move at once, then the
    landings of armies whose fleets carried them this turn to the sea they land from."""
    orders, unmatched, given = _merge_supports(variant, orders)
    state, orders, boarded = board(variant, state, orders)
    orders, landings = _landings(variant, state, orders)
    movement = MultiMovement(variant, state, orders)
    results, after, dislodged = movement.outcome_report()
    contested = movement.contested(after) if dislodged else frozenset()
    if landings:
        ready, refused = [], []
        for order in landings:
            carrier = after.get(order.province)
            if carrier is not None and carrier.power == order.power and carrier.n_armies and order.province not in dislodged:
                ready.append(order)
            else:
                refused.append(OrderResult(order, Result.VOID, _("no fleet carried the army to {province}",
                                                                 province=variant.map.name(order.province))))
        if ready:
            # The armies land after the fleets have moved: every other unit stays and holds.
            moved = GameState(state.phase, after, state.supply_centres, state.home_centres, {}, frozenset(), state.extra)
            landing = MultiMovement(variant, moved, ready)
            landed, after, more = landing.outcome_report()
            results += landed
            if more:
                dislodged = {**dislodged, **more}
                contested = contested | landing.contested(after)
        results += refused
    results = results + boarded + unmatched
    if given:
        results = [r._replace(order=given.get(id(r.order), r.order)) for r in results]
    return results, after, dislodged, contested


def _landings(variant: Variant, state: GameState, orders: Sequence[Order]) -> tuple[list[Order], list[Order]]:
    """The orders to resolve at once, and the landings from a sea the power's fleets reach this
    turn ('A TUN E BOT', 'F BOT - ION', 'A ION D BAL': the rule's own example)."""
    seas = variant.map.seas
    # An army's move from a sea where its power has no unit yet: it lands once a fleet gets there.
    landings = [o for o in orders if type(o) is Move and o.province in seas and o.unit_type is UnitType.ARMY
                and ((u := state.units.get(o.province)) is None or u.power != o.power)]
    if not landings:
        return list(orders), []
    return [o for o in orders if o not in landings], landings


class MultiMovement(Movement):
    """A movement phase with multiple units: weights instead of ones, merges, splits, landings."""

    FAST_MOVES = False
    __slots__ = ("part", "weight", "rest", "group", "embarks", "hold_weight", "joining", "split_supports")

    def __init__(self, variant: Variant, state: GameState, orders: Sequence[Order]):
        self.part: dict[int, tuple[int, int]] = {}  # order -> the part of its unit that acts
        self.weight: dict[int, int] = {}  # move or support -> its unit's strength into the space
        self.rest: dict[str, tuple[int, int]] = {}  # province -> what stays when a part moves out
        self.group: dict[int, list[int]] = {}  # merging move -> every move of its merge
        self.joining: dict[str, list[int]] = {}  # province -> merging moves into its power's unit there
        self.embarks: set[int] = set()  # armies boarding a fleet that arrives this turn
        self.split_supports: set[int] = set()  # supports by a unit's other parts, beside its own order
        super().__init__(variant, state, orders)

    # ------------------------------------------------------------------ validation
    def _assign(self) -> None:
        units, order_of, given, variant = self.units, self.order_of, self.given, self.variant
        by_unit: dict[str, list[int]] = {}  # province -> the orders standing for its unit's parts
        for i, order in enumerate(self.orders):
            if not isinstance(order, MOVEMENT_ORDERS):
                self._void(i, _("{kind} orders are not given in a movement phase", kind=kind_name(order)))
                continue
            prov = order.province
            unit = units.get(prov)
            if unit is None or unit.power != order.power:
                self._void(i, unit_for(self.map, self.state, order)[1])
                continue
            part = acting_part(variant, unit, order)
            if isinstance(part, str):
                self._void(i, part)
                continue
            self.part[i] = part  # type: ignore[assignment]
            mine = by_unit.setdefault(prov, [])
            if mine and not self._shared(unit, [*mine, i]):
                for earlier in mine:
                    self._void(earlier, _("replaced by a later order for the same unit"))
                mine.clear()
            mine.append(i)
        for prov, mine in by_unit.items():
            # The unit's move, or else its first order, is the one the resolver knows it by; the
            # other parts' supports are resolved beside it.
            lead = next((j for j in mine if type(self.orders[j]) is Move), mine[0])
            order_of[prov], given[prov] = lead, self.orders[lead]
            self.split_supports.update(j for j in mine if j != lead and type(self.orders[j]) is not Hold)

    def _shared(self, unit: Unit, orders: list[int]) -> bool:
        """May these orders stand together for parts of one unit? Each names its part, the parts
        add up to no more than the unit, and one at most is a move, the others supports or holds
        ("A multiple unit may split its support between different spaces", Multiplicity II)."""
        kinds = [type(self.orders[i]) for i in orders]
        if any(self.orders[i].part is None for i in orders) or \
                not all(k in (Move, SupportHold, SupportMove, Hold) for k in kinds):
            return False
        return parts_stand_together(unit, [(self.part[i], k is Move) for i, k in zip(orders, kinds)])

    def _validate(self) -> None:
        super()._validate()
        units, orders, part = self.units, self.orders, self.part
        for i in sorted(self.split_supports):  # the supports of a unit's other parts
            order = orders[i]
            why = self._check_support(units[order.province], order)  # type: ignore[arg-type]
            if why:
                self._void(i, why)
                continue
            self.supports.append(i)
            if type(order) is SupportMove:
                self.move_supports[self.move_from[order.target]].append(i)  # type: ignore[attr-defined]
            else:
                self.hold_supports.setdefault(order.target, []).append(i)  # type: ignore[attr-defined]
        for i, prov in self.src.items():
            self.weight[i] = strength_in(self.variant, part[i], self.dst[i])  # type: ignore[arg-type]
            unit = units[prov]
            left = (unit.n_armies - part[i][0], unit.n_fleets - part[i][1])
            if left[0] or left[1]:
                self.rest[prov] = left
        for i in self.supports:
            order = orders[i]
            into = province_of(order.dest) if type(order) is SupportMove else order.target  # type: ignore[attr-defined]
            self.weight[i] = self._reach(units[order.province], part[i], into)
        self.hold_weight = {p: strength_in(self.variant, (u.n_armies, u.n_fleets), p) for p, u in units.items()}
        # Merges: every move of a power into a space where one of its moves says MERGE.
        by_dest: dict[tuple[str, str], list[int]] = {}
        for i in self.src:
            by_dest.setdefault((orders[i].power, self.dst[i]), []).append(i)  # type: ignore[arg-type]
        for (power, dest), members in by_dest.items():
            if any(orders[i].merge for i in members):  # type: ignore[attr-defined]
                for i in members:
                    self.group[i] = members
                there = units.get(dest)
                if there is not None and there.power == power:
                    self.joining[dest] = members
        for i in list(self.embarks):
            carriers = [j for j in self.group.get(i, ()) if part[j][1]]
            if not carriers:
                self._drop_move(i, _("no fleet of {power} is in {province} or gets there with its first move, to carry "
                                     "the army", power=orders[i].power, province=self.map.name(self.dst[i])))  # type: ignore[arg-type]

    def _drop_move(self, i: int, reason: str) -> None:
        """Void a move found wrong once the moves are known."""
        prov = self.src.pop(i)
        self.move_from.pop(prov, None)
        self.moves_to[self.dst[i]].remove(i)  # type: ignore[index]
        self.embarks.discard(i)
        self.opponent.pop(i, None)
        self._void(i, reason, still_given=True)

    def _reach(self, unit: Unit, part: tuple[int, int], province: str) -> int:
        return reach(self.map, unit, part, province)

    def _army_moves(self, i: int) -> bool:
        return not self.part[i][1]

    def _reaches(self, unit: Unit, prov: str) -> bool:
        return reaches(self.map, unit, prov)

    def _check_support(self, unit: Unit, order: SupportHold | SupportMove) -> str:  # type: ignore[override]
        part = acting_part(self.variant, unit, order)
        return super()._check_support(Unit.of(unit.power, unit.location, *part), order)  # type: ignore[misc]

    def _check_convoy_shape(self, fleet: Unit, order: Convoy) -> str:
        if fleet.armies:
            return _("the {unit} in {province} carries armies: an A/F does not convoy", unit=fleet.designation,
                     province=self.map.name(fleet.location))
        why = super()._check_convoy_shape(fleet, order)
        army = self.units.get(order.target)
        if not why and army is not None and army.count > fleet.count:
            return _("the {unit} in {province} cannot carry {other}: each army needs a fleet", unit=fleet.designation,
                     province=self.map.name(fleet.location), other=army.designation)
        return why

    def _check_move(self, i: int, unit: Unit, order: Move, blocked: Mapping[tuple[str, str], str]) -> str:
        game_map = self.map
        armies, fleets = self.part[i]
        dest = province_of(order.dest)
        if dest not in game_map.provinces:
            return _("{province} is not a province", province=dest)
        name = game_map.name
        at_sea = game_map.provinces[unit.province].terrain is SEA
        to_sea = game_map.provinces[dest].terrain is SEA
        if fleets:
            if to_sea and armies > fleets:
                return _("{unit} cannot go to sea: each army needs a fleet to carry it", unit=designation(armies, fleets))
            if at_sea and unit.n_armies - armies > unit.n_fleets - fleets:
                return _("the armies in {province} would be left at sea without fleets to carry them",
                         province=name(unit.location))
            return super()._check_move(i, Unit.of(unit.power, unit.location, armies, fleets), order, blocked)
        if at_sea:  # armies aboard land on a coast of their sea
            if game_map.provinces[dest].terrain is not Terrain.COAST or dest not in game_map.fleet_provinces.get(unit.location, ()):
                return _("armies aboard in {province} land only on a coast of that sea", province=name(unit.location))
            self.dst[i] = self.dest_loc[i] = dest
            return ""
        if to_sea:  # boarding a fleet that arrives this turn (one already there was boarded before)
            if dest not in game_map.sea_neighbours.get(unit.province, ()):
                return _("no army can reach {destination} from {origin}", destination=name(dest), origin=name(unit.province))
            if not order.merge:
                return _("an army goes to sea only aboard a fleet of its power: E {province}", province=name(dest))
            self.dst[i] = self.dest_loc[i] = dest
            self.embarks.add(i)
            return ""
        why = super()._check_move(i, Unit.of(unit.power, unit.location, armies, 0), order, blocked)
        if not why and i in self.convoyed and self.variant.rules.convoy_one_sea and not self._one_sea(i):
            self.convoyed.discard(i)
            self.route.pop(i, None)
            self.dst[i] = self.dest_loc[i] = None
            return _("a convoy crosses one sea only (the fast ferry): to go farther, the army embarks (E) on a fleet of its "
                     "power")
        return why

    def _one_sea(self, i: int) -> bool:
        near = self.map.sea_neighbours
        here, there = self.orders[i].province, province_of(self.orders[i].dest)  # type: ignore[attr-defined]
        return any(here in near[f] and there in near[f] for f in self.route[i])

    # ------------------------------------------------------------------ strength
    def _support_count(self, supports: list[int], exclude_power: str | None = None) -> int:
        n = 0
        orders, weight = self.orders, self.weight
        for s in supports:
            if exclude_power is not None and orders[s].power == exclude_power:
                continue
            if self.resolve(s):
                n += weight[s]
        return n

    def _in_play(self, j: int) -> bool:
        """Does move j set out (its convoy holds, its passage is open)?"""
        if j in self.convoyed and not self.path(j):
            return False
        return not (j in self.denied_by and self.denied(j))

    def _force(self, i: int, exclude_power: str | None = None) -> int:
        """The strength of move i with the rest of its merge, and their supports; merging into
        the power's unit in the space, that unit's strength too (they support each other). A/Fs
        neither give nor take a merge's support ("except A/Fs", Multiplicity II)."""
        total = self.weight[i] + self._support_count(self.move_supports[i], exclude_power)
        if i not in self.group or _mixed(self.part[i]):
            return total
        for j in self.group[i]:
            if j != i and not _mixed(self.part[j]) and self._in_play(j):
                total += self.weight[j] + self._support_count(self.move_supports[j], exclude_power)
        dest = self.dst[i]
        if dest in self.joining and self._stays(dest) and self.units[dest].single_kind:  # type: ignore[index]
            total += self.hold_weight[dest]  # type: ignore[index]
        return total

    def _stays(self, prov: str) -> bool:
        """Does the unit in `prov` stay there (some of it, at least)?"""
        j = self.move_from.get(prov)
        return j is None or prov in self.rest or not self.resolve(j)

    def _arrivals(self, prov: str) -> int:
        """What the power's units merging into its unit in `prov` add to that unit's defence."""
        if not self.units[prov].single_kind:
            return 0
        return sum(self.weight[j] + self._support_count(self.move_supports[j])
                   for j in self.joining.get(prov, ()) if j in self.src and not _mixed(self.part[j]) and self._in_play(j))

    def _joins(self, i: int) -> bool:
        """Does merging move i join its power's unit in the space it moves to?"""
        unit = self.units.get(self.dst[i])  # type: ignore[arg-type]
        return unit is not None and unit.power == self.orders[i].power and i in self.group

    def attack_strength(self, i: int) -> int:
        if not self._in_play(i):
            return 0
        dest = self.dst[i]
        defender = self.units.get(dest)  # type: ignore[arg-type]
        if defender is not None:
            j = self.move_from.get(dest)  # type: ignore[arg-type]
            if j is None or dest in self.rest or self.opponent.get(i) == j or not self.resolve(j):
                if defender.power == self.orders[i].power:
                    return self._force(i) if i in self.group else 0
                return self._force(i, defender.power)
        return self._force(i)

    def hold_strength(self, prov: str) -> int:
        if prov not in self.units:
            return 0
        j = self.move_from.get(prov)
        joined = self._arrivals(prov) if prov in self.joining else 0
        if j is not None:
            if not self.resolve(j):
                return self.hold_weight[prov] + joined
            rest = self.rest.get(prov)
            return strength_in(self.variant, rest, prov) + joined if rest else 0
        supports = self.hold_supports.get(prov)
        return self.hold_weight[prov] + joined + (self._support_count(supports) if supports else 0)

    def prevent_strength(self, j: int) -> int:
        if not self._in_play(j):
            return 0
        k = self.opponent.get(j)
        if k is not None and self.resolve(k):
            return 0
        return self._force(j)

    def _decide_move(self, i: int) -> bool:
        if i in self.sorties:
            return FAILS
        if i in self.embarks:  # the army boards if a fleet of its merge gets there
            return any(self.resolve(j) for j in self.group[i] if j != i and self.part[j][1])
        attack = self.attack_strength(i)
        if attack == 0:
            return FAILS
        k = self.opponent.get(i)
        if k is not None and k in self.denied_by and self.denied(k):
            k = None
        if k is not None:
            if attack <= self._force(k):
                return FAILS
        elif not self._joins(i) and attack <= self.hold_strength(self.dst[i]):  # type: ignore[arg-type]
            return FAILS
        mine = self.group.get(i, ())
        for j in self.moves_to[self.dst[i]]:  # type: ignore[index]
            if j != i and j not in mine and attack <= self.prevent_strength(j):
                return FAILS
        return SUCCEEDS

    def _decide_blockade(self, i: int) -> bool:
        """A blockade of n fleets is cut only by attacks of n fleets' strength or more, from
        anywhere but the centre blockaded (Napoleonic Wars, rule 8)."""
        order = self.orders[i]
        attack = 0
        for j in self.moves_to.get(order.province, ()):
            if self.orders[j].power == order.power or self.src[j] == order.target:  # type: ignore[attr-defined]
                continue
            if self._in_play(j):
                attack += self.weight[j]
        return FAILS if attack >= self.part[i][1] else SUCCEEDS

    # ------------------------------------------------------------------ results
    def _units_after(self, results: list[OrderResult]) -> tuple[dict[str, Unit], dict[str, Dislodged]]:
        units, src, dst, dest_loc = self.units, self.src, self.dst, self.dest_loc
        after = dict(units)
        moved = [i for i in src if self.resolved[i]]
        arriving: dict[str, list[int]] = {}
        for i in moved:
            prov = src[i]
            rest = self.rest.get(prov)
            if rest:
                unit = units[prov]
                after[prov] = Unit.of(unit.power, unit.location if rest[1] else prov, *rest, unit.at_sea)
            else:
                del after[prov]
            arriving.setdefault(dst[i], []).append(i)  # type: ignore[arg-type]
        dislodged: dict[str, Dislodged] = {}
        for prov, movers in arriving.items():
            power = self.orders[movers[0]].power
            parts = [self.part[i] for i in movers]
            location = next((dest_loc[i] for i in movers if self.part[i][1]), prov)
            at_sea = max(units[src[i]].at_sea for i in movers)
            stayed = after.get(prov)
            if stayed is not None:
                if stayed.power == power:  # a merge joins the unit there
                    parts.append((stayed.n_armies, stayed.n_fleets))
                    at_sea = max(at_sea, stayed.at_sea)
                    if stayed.n_fleets:
                        location = stayed.location
                else:
                    self._dislodge(prov, stayed, movers[0], results, dislodged)
                    stayed = None
            mover = units[src[movers[0]]]
            if mover.leader and stayed is None and len(movers) == 1:
                after[prov] = mover.at(location)  # a leader stays himself
                continue
            after[prov] = combine(power, location, parts, at_sea)  # type: ignore[arg-type]
        return after, dislodged



def ration(variant: Variant, units: dict[str, Unit], turns: int) -> tuple[dict[str, Unit], list[Unit]]:
    """A turn is over: armies aboard at sea have been there one turn more, and those at sea for
    `turns` turns in a row starve (the A/F rules: an A/F stays intact at most three moves, and
    an army not landed by the end of its fourth is removed); their fleets sail on. Returns the
    units and the armies removed."""
    seas = variant.map.seas
    out = units
    starved: list[Unit] = []
    for prov, unit in units.items():
        aboard = unit.armies and prov in seas
        if not aboard and not unit.at_sea:
            continue
        if out is units:
            out = dict(units)
        if not aboard:
            out[prov] = Unit.of(unit.power, unit.location, unit.n_armies, unit.n_fleets)
        elif unit.at_sea + 1 >= turns:
            out[prov] = Unit(unit.power, UnitType.FLEET, unit.location, unit.count)
            starved.append(Unit.of(unit.power, prov, unit.armies, 0))
        else:
            out[prov] = Unit(unit.power, unit.type, unit.location, unit.count, unit.armies, unit.at_sea + 1)
    return out, starved
