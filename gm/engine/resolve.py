"""Movement: validate orders, then resolve them with the guess-and-check algorithm of the DATC.

The vocabulary follows DATC section 5 (attack, hold, defend and prevent strength). Each adjudication
builds its own `Movement` object, so nothing is shared between games. Orders are addressed by their
index in the list given; per-order facts live in lists indexed the same way, which keeps the common
case (a few dozen units, little interaction) fast.
"""
from __future__ import annotations

from typing import Mapping, Sequence

from gm.engine.graph import GameMap, Terrain
from gm.engine.model import Dislodged, GameState, Unit, UnitType, province_of
from gm.engine.orders import Blockade, Convoy, Deny, Hold, Move, Order, SupportHold, SupportMove, kind_name
from gm.engine.results import OrderResult, Result
from gm.engine.variant import Variant
from gm.i18n import _

# Outcome of one decision (a move, a support or a convoy) in the guess algorithm.
FAILS, SUCCEEDS = False, True
NO_CONVOY = "without a convoy, and no convoy is ordered"
# Only armies are convoyed: a fleet's move written by convoy, or through other spaces where the rules
# give fleets no second move, is no move (the parser refuses it with the same words).
FLEET_CONVOYED = _("a fleet cannot be convoyed")
MOVEMENT_ORDERS = (Hold, Move, SupportHold, SupportMove, Convoy, Deny, Blockade)
ARMY, FLEET = UnitType.ARMY, UnitType.FLEET
# Enum members bound once: attribute access on an Enum class is slow in the hot loop.
R_SUCCEEDS, R_FAILS, R_VOID, R_CUT = Result.SUCCEEDS, Result.FAILS, Result.VOID, Result.CUT


def unit_for(game_map: GameMap, state: GameState, order: Order) -> tuple[Unit | None, str]:
    """The unit an order is for, or None and why the order names no unit of its power."""
    prov = order.province
    unit = state.units.get(prov)
    where = game_map.name(prov)
    if unit is None:
        return None, _("there is no unit in {province}", province=where)
    if unit.power != order.power:
        return None, _("the unit in {province} belongs to {power}", province=where, power=unit.power)
    if order.unit_type is not None and order.unit_type is not unit.type:
        return None, (_("the unit in {province} is an army", province=where) if unit.type is ARMY else
                      _("the unit in {province} is a fleet", province=where))
    return unit, ""


def fleet_destination(game_map: GameMap, unit: Unit, dest: str) -> tuple[str | None, str]:
    """The location a fleet moving to `dest` ends up on, or None and why it cannot get there."""
    dest_prov = province_of(dest)
    if dest_prov not in game_map.provinces:
        return None, _("{province} is not a province", province=dest_prov)
    name = game_map.name
    reachable = game_map.fleet_coasts_to(unit.location, dest_prov)
    if dest != dest_prov:  # a coast was named
        if dest in reachable:
            return dest, ""
        if not game_map.provinces[dest_prov].coasts and dest_prov in reachable:
            return dest_prov, ""  # a coast named on a province that has only one
        return None, _("no fleet can reach {destination} from {origin}", destination=name(dest),
                       origin=name(unit.location))
    if len(reachable) == 1:
        return reachable[0], ""
    if len(reachable) > 1:
        return None, _("name the coast of {province} the fleet should move to", province=name(dest_prov))
    return None, _("no fleet can reach {destination} from {origin}", destination=name(dest_prov),
                   origin=name(unit.location))


def reaches(game_map: GameMap, unit: Unit, prov: str) -> bool:
    """Whether one unit a space can move to `prov` (and so support there)."""
    if unit.type is UnitType.ARMY:
        return prov in game_map.army.get(unit.province, ())
    return prov in game_map.fleet_provinces.get(unit.location, ())


class Movement:
    """One movement phase being resolved (one unit to a province; multiple.MultiMovement extends it
    for variants with multiple units)."""

    # Plain moves to a neighbouring space are checked inline; a subclass may check every move itself.
    FAST_MOVES = True

    __slots__ = (
        "variant", "map", "state", "units", "orders", "void", "order_of", "given", "dst", "dest_loc",
        "convoyed", "route", "_sea_fleets", "_sea_routes", "offers", "src", "move_from", "moves_to",
        "move_supports", "convoys", "convoy_of_fleet", "convoy_set", "hold_supports", "supports",
        "opponent", "resolved", "guess", "deps", "paradox", "sorties", "denials", "denied_by",
        "blockades",
    )

    def __init__(self, variant: Variant, state: GameState, orders: Sequence[Order]):
        self.variant = variant
        self.map = variant.map
        self.state = state
        self.units = state.units
        self.orders = orders = list(orders)
        n = len(orders)
        self.void: list[str | None] = [None] * n  # reason, for orders that are void
        # province -> index of the order its unit carries out; void orders are dropped from it
        self.order_of: dict[str, int] = {}
        # province -> the order given to its unit, void or not (supports match what was ordered)
        self.given: dict[str, Order] = {}
        self.dst: list[str | None] = [None] * n  # province a valid move goes to
        self.dest_loc: list[str | None] = [None] * n  # location (with coast) it goes to
        self.convoyed: set[int] = set()  # moves that go by convoy
        self.route: dict[int, set[str]] = {}  # convoyed move -> fleets on a possible route
        self._sea_fleets: set[str] | None = None
        self._sea_routes: dict[tuple[str, str], set[str]] = {}
        self._assign()
        self._validate()

    # ----------------------------------------------------------------- validation
    def _void(self, i: int, reason: str, still_given: bool = False) -> None:
        """Void order i: its unit holds. Unless `still_given`, supports treat it as never given
        (an order impossible on the map counts as a hold, DATC 6.D.28)."""
        self.void[i] = reason
        prov = self.orders[i].province
        if self.order_of.get(prov) == i:
            del self.order_of[prov]
            if not still_given:
                self.given.pop(prov, None)

    def _assign(self) -> None:
        units, order_of, given = self.units, self.order_of, self.given
        for i, order in enumerate(self.orders):
            if not isinstance(order, MOVEMENT_ORDERS):
                self._void(i, _("{kind} orders are not given in a movement phase", kind=kind_name(order)))
                continue
            prov = order.province
            unit = units.get(prov)
            if (
                unit is None
                or unit.power != order.power
                or (order.unit_type is not None and order.unit_type is not unit.type)
            ):
                self._void(i, unit_for(self.map, self.state, order)[1])
                continue
            earlier = order_of.get(prov)
            if earlier is not None:
                self._void(earlier, _("replaced by a later order for the same unit"))
            order_of[prov] = i
            given[prov] = order

    def _validate(self) -> None:
        units, orders, order_of = self.units, self.orders, self.order_of
        army_adj, fleet_adj = self.map.army, self.map.fleet
        blocked = self.variant.rules.blocked_moves(self.variant, self.state)
        moves, supports, convoys, others = [], [], [], []
        for prov, i in order_of.items():
            kind = type(orders[i])
            if kind is Move:
                moves.append((prov, i))
            elif kind is SupportHold or kind is SupportMove:
                supports.append((prov, i))
            elif kind is Convoy:
                convoys.append((prov, i))
            elif kind is not Hold:
                others.append((prov, i))  # a variant's orders: denials (X), blockades (B)
        # Convoy orders first, shallowly, so that moves know which fleets offer to carry them.
        self.offers: dict[tuple[str, str], list[str]] = {}
        for prov, i in convoys:
            why = self._check_convoy_shape(units[prov], orders[i])  # type: ignore[arg-type]
            if why:
                self._void(i, why)
            else:
                self.offers.setdefault((orders[i].target, orders[i].dest), []).append(prov)  # type: ignore[attr-defined]
        offers = self.offers
        dst, dest_loc = self.dst, self.dest_loc
        src: dict[int, str] = {}  # valid move -> province it leaves
        move_from: dict[str, int] = {}  # province -> its unit's valid move
        moves_to: dict[str, list[int]] = {}  # province -> valid moves into it
        move_supports: dict[int, list[int]] = {}
        fast = self.FAST_MOVES
        for prov, i in moves:
            order = orders[i]
            unit = units[prov]
            why = ""
            dest = order.dest  # type: ignore[attr-defined]
            # The common cases first: a plain move to a neighbouring space.
            if not fast:
                why = self._check_move(i, unit, order, blocked)  # type: ignore[arg-type]
            elif unit.type is ARMY:
                if dest in army_adj.get(prov, ()) and not order.via_convoy and (prov, dest) not in offers and (  # type: ignore[attr-defined]
                    not blocked or (prov, dest) not in blocked
                ):
                    dst[i] = dest_loc[i] = dest
                else:
                    why = self._check_move(i, unit, order, blocked)  # type: ignore[arg-type]
            elif dest in fleet_adj.get(unit.location, ()) and not order.via_convoy and (  # type: ignore[attr-defined]
                    not blocked or (prov, province_of(dest)) not in blocked):
                dest_loc[i] = dest
                dst[i] = province_of(dest)
            else:
                why = self._check_move(i, unit, order, blocked)  # type: ignore[arg-type]
            d = dst[i]
            if d is None:
                # An army that needs a convoy nobody gives is still a unit ordered to move:
                # it cannot be supported to hold (DATC 6.D.8, 6.D.32).
                self._void(i, why, still_given=why.endswith(NO_CONVOY))
                continue
            src[i] = prov
            move_from[prov] = i
            move_supports[i] = []
            if d in moves_to:
                moves_to[d].append(i)
            else:
                moves_to[d] = [i]
        self.src, self.move_from, self.moves_to, self.move_supports = src, move_from, moves_to, move_supports
        stationary = self.variant.rules.stationary_powers(self.variant, self.state)
        # Moves of units that never leave their space: they always bounce (a sortie).
        self.sorties = {i for i in src if orders[i].power in stationary} if stationary else set()
        self.convoys = []
        for prov, i in convoys:
            if self.void[i] is None:
                order = orders[i]
                j = order_of.get(order.target)  # type: ignore[attr-defined]
                if j is None or j not in self.convoyed or dst[j] != order.dest:  # type: ignore[attr-defined]
                    self._void(i, _("the army in {province} is not moving to {destination} by convoy",
                                    province=self.map.name(order.target), destination=self.map.name(order.dest)))  # type: ignore[attr-defined]
                else:
                    self.convoys.append(i)
        self.convoy_of_fleet = {orders[i].province: i for i in self.convoys}
        self.convoy_set = set(self.convoys)
        self.hold_supports: dict[str, list[int]] = {}
        self.supports: list[int] = []
        for prov, i in supports:
            order = orders[i]
            why = self._check_support(units[prov], order)  # type: ignore[arg-type]
            if why:
                self._void(i, why)
                continue
            self.supports.append(i)
            if type(order) is SupportMove:
                move_supports[move_from[order.target]].append(i)  # type: ignore[attr-defined]
            elif order.target in self.hold_supports:  # type: ignore[attr-defined]
                self.hold_supports[order.target].append(i)  # type: ignore[attr-defined]
            else:
                self.hold_supports[order.target] = [i]  # type: ignore[attr-defined]
        self.denials: set[int] = set()
        self.denied_by: dict[int, list[int]] = {}
        self.blockades: set[int] = set()
        if others:
            self._validate_denials(others)
            self._validate_blockades(others)
        # Head-to-head opponents: two moves that swap places, neither by convoy.
        self.opponent: dict[int, int] = {}
        convoyed = self.convoyed
        for i, here in src.items():
            j = move_from.get(dst[i])  # type: ignore[arg-type]
            if j is not None and dst[j] == here and i not in convoyed and j not in convoyed:
                self.opponent[i] = j

    def _validate_denials(self, given: list[tuple[str, int]]) -> None:
        """X orders: a fleet in the sea a direct passage crosses closes it to the armies of every
        power but its own commander's. denied_by: move -> the X orders that may close it."""
        orders, units, name = self.orders, self.units, self.map.name
        passages = self.variant.rules.passages(self.variant)
        by_passage: dict[frozenset[str], list[int]] = {}
        for prov, i in given:
            order = orders[i]
            if type(order) is not Deny:
                continue
            sea = passages.get(order.passage)  # type: ignore[attr-defined]
            if sea is None:
                self._void(i, _("there is no direct passage between {province} and {other}",
                                province=name(order.side), other=name(order.other_side)))  # type: ignore[attr-defined]
            elif units[prov].type is not FLEET or prov != sea:
                self._void(i, _("only a fleet in {sea} can deny the passage between {province} and {other}", sea=name(sea),
                                province=name(order.side), other=name(order.other_side)))  # type: ignore[attr-defined]
            else:
                self.denials.add(i)
                by_passage.setdefault(order.passage, []).append(i)  # type: ignore[attr-defined]
        if not by_passage:
            return
        rules, variant, state = self.variant.rules, self.variant, self.state
        for i, here in self.src.items():
            deniers = by_passage.get(frozenset((here, self.dst[i])))  # type: ignore[arg-type]
            if deniers is None or i in self.convoyed or not self._army_moves(i):
                continue
            mover = rules.commander(variant, state, orders[i].power) or orders[i].power
            others = [d for d in deniers
                      if (rules.commander(variant, state, orders[d].power) or orders[d].power) != mover]
            if others:
                self.denied_by[i] = others

    def _army_moves(self, i: int) -> bool:
        """Is move i an army's (armies only, for a multiple unit)?"""
        return self.units[self.src[i]].type is ARMY

    def _validate_blockades(self, given: list[tuple[str, int]]) -> None:
        """B orders: a fleet blockading a coastal home centre, where the variant's rules allow."""
        for prov, i in given:
            order = self.orders[i]
            if type(order) is not Blockade:
                continue
            why = _("only a fleet blockades") if self.units[prov].type is not FLEET else \
                self.variant.rules.blockade_refusal(self.variant, self.state, order)  # type: ignore[arg-type]
            if why:
                self._void(i, why)
            else:
                self.blockades.add(i)

    def _decide_blockade(self, i: int) -> bool:
        """A blockade is cut by any attack of another power, successful or not, except one from
        the centre blockaded (a convoyed attack only if its convoy gets through)."""
        order = self.orders[i]
        for j in self.moves_to.get(order.province, ()):
            if self.orders[j].power == order.power or self.src[j] == order.target:  # type: ignore[attr-defined]
                continue
            if j not in self.convoyed or self.path(j):
                return FAILS
        return SUCCEEDS

    def denied(self, i: int) -> bool:
        """Is move i over a direct passage that an undislodged fleet denies?"""
        deniers = self.denied_by.get(i)
        return deniers is not None and any(self.resolve(d) for d in deniers)

    def _sea_route(self, src: str, dest: str) -> set[str]:
        """Fleets at sea that lie on a convoy route from src to dest, whatever their orders."""
        if self._sea_fleets is None:
            seas = self.map.seas
            self._sea_fleets = {p for p, u in self.units.items() if u.type is FLEET and p in seas}
        route = self._sea_routes.get((src, dest))
        if route is None:
            route = self._sea_routes[(src, dest)] = self.map.convoy_route_fleets(src, dest, self._sea_fleets)
        return route

    def _check_convoy_shape(self, fleet: Unit, order: Convoy) -> str:
        if fleet.type is not FLEET:
            return _("only fleets convoy")
        if self.map.provinces[fleet.province].terrain is not Terrain.SEA:
            return _("a fleet in {province} cannot convoy: it is not at sea", province=self.map.name(fleet.province))
        army = self.units.get(order.target)
        if army is None or army.type is not ARMY:
            return _("there is no army in {province} to convoy", province=self.map.name(order.target))
        near = self.map.sea_neighbours.get(fleet.province, ())
        if order.target in near and order.dest in near:
            return ""  # a one-fleet convoy: the common case, no route search needed
        if order.dest not in self.map.provinces or fleet.province not in self._sea_route(order.target, order.dest):
            # An impossible convoy shows no intent to convoy (DATC 6.G.7).
            return _("the fleet in {province} cannot be part of any convoy route from {origin} to {destination}",
                     province=self.map.name(fleet.location), origin=self.map.name(order.target),
                     destination=self.map.name(order.dest))
        return ""

    def _check_move(self, i: int, unit: Unit, order: Move, blocked: Mapping[tuple[str, str], str]) -> str:
        game_map = self.map
        src = unit.province
        dest_prov = province_of(order.dest)
        if dest_prov not in game_map.provinces:
            return _("{province} is not a province", province=dest_prov)
        if dest_prov == src:
            return _("a unit cannot move to the province it is in")
        name = game_map.name
        # A closed crossing stops moves over it; an army convoyed across the water does not use it.
        closed_by = blocked.get((src, dest_prov), unit.power)
        if closed_by != unit.power:
            closed = _("the way from {origin} to {destination} is blocked by the fleet of {power}", origin=name(src),
                       destination=name(dest_prov), power=closed_by)
        else:
            closed = ""
        if unit.type is FLEET:
            if order.via_convoy:
                return FLEET_CONVOYED
            if closed:
                return closed
            loc, why = fleet_destination(game_map, unit, order.dest)
            if loc is None:
                return why
            self.dest_loc[i] = loc
            self.dst[i] = dest_prov
            return ""
        self.dest_loc[i] = self.dst[i] = dest_prov
        adjacent = dest_prov in game_map.army.get(src, ())
        offers = self.offers.get((src, dest_prov), ())
        if len(offers) == 1 and src in game_map.sea_neighbours[offers[0]] and dest_prov in game_map.sea_neighbours[offers[0]]:
            route = set(offers)  # a one-fleet convoy
        else:
            route = game_map.convoy_route_fleets(src, dest_prov, set(offers)) if offers else set()
        if adjacent:
            # DATC 4.A.3: between adjacent provinces an army goes by convoy only when its power
            # says so, with "via convoy" or a convoy order of its own (DATC 6.G.6).
            own = order.via_convoy or any(self.units[f].power == unit.power for f in offers)
            if own and route:
                self.convoyed.add(i)
                self.route[i] = route
                return ""
            if closed:
                self.dest_loc[i] = self.dst[i] = None
            return closed
        if route:
            self.convoyed.add(i)
            self.route[i] = route
            return ""
        self.dest_loc[i] = self.dst[i] = None
        coastal = game_map.sea_neighbours
        if game_map.provinces[dest_prov].terrain is Terrain.SEA or src not in coastal or dest_prov not in coastal:
            return _("no army can reach {destination} from {origin}", destination=name(dest_prov), origin=name(src))
        if self._sea_route(src, dest_prov):
            # Ends with NO_CONVOY, which _validate looks for.
            return _("no army can reach {destination} from {origin} without a convoy, and no convoy is ordered",
                     destination=name(dest_prov), origin=name(src))
        # Not even the fleets now at sea could carry it: an impossible order, a hold (DATC 6.D.32).
        return _("no army can reach {destination} from {origin}: no fleets stand where they could convoy it",
                 destination=name(dest_prov), origin=name(src))

    def _reaches(self, unit: Unit, prov: str) -> bool:
        return reaches(self.map, unit, prov)

    def _check_support(self, unit: Unit, order: SupportHold | SupportMove) -> str:
        target = order.target
        name = self.map.name
        if target not in self.units:
            return _("there is no unit in {province} to support", province=name(target))
        if target == unit.province:
            return _("a unit cannot support itself")
        moving = type(self.given.get(target)) is Move
        if type(order) is SupportHold:
            if moving:
                return _("the unit in {province} is moving, not holding", province=name(target))
            if not self._reaches(unit, target):
                here, there = name(unit.location), name(target)
                if unit.type is ARMY:
                    return _("the army in {province} cannot reach {destination}, so it cannot support a unit there",
                             province=here, destination=there)
                return _("the fleet in {province} cannot reach {destination}, so it cannot support a unit there",
                         province=here, destination=there)
            return ""
        dest = order.dest
        dest_prov = province_of(dest)
        j = self.order_of.get(target)
        if j is None or not moving or self.dst[j] != dest_prov:
            return _("the unit in {province} is not moving to {destination}", province=name(target), destination=name(dest))
        if dest != dest_prov and self.dest_loc[j] != dest:
            # TRANSLATORS: {coast} and {destination} are two coasts of one province
            return _("the unit in {province} is moving to {coast}, not {destination}", province=name(target),
                     coast=name(self.dest_loc[j]), destination=name(dest))
        if dest_prov == unit.province:
            return _("a unit cannot support a move into its own province")
        if not self._reaches(unit, dest_prov):
            here, there = name(unit.location), name(dest_prov)
            if unit.type is ARMY:
                return _("the army in {province} cannot reach {destination}, so it cannot support a move there",
                         province=here, destination=there)
            return _("the fleet in {province} cannot reach {destination}, so it cannot support a move there",
                     province=here, destination=there)
        return ""

    # ----------------------------------------------------------------- resolution
    def resolve_all(self) -> None:
        self.resolved: dict[int, bool] = {}  # decisions made
        self.guess: dict[int, bool] = {}  # decisions being guessed at
        self.deps: list[int] = []  # guesses that other decisions were built on
        self.paradox: set[int] = set()  # convoyed moves failed by the Szykman rule
        for i in self.src:
            self.resolve(i)
        for i in self.supports:
            self.resolve(i)
        for i in self.convoys:
            self.resolve(i)
        for i in self.denials:
            self.resolve(i)
        for i in self.blockades:
            self.resolve(i)

    def resolve(self, i: int) -> bool:
        """The guess-and-check step of DATC section 5.E: decide i, or return the guess in force."""
        result = self.resolved.get(i)
        if result is not None:
            return result
        guess, deps = self.guess, self.deps
        if i in guess:
            if i not in deps:
                deps.append(i)
            return guess[i]
        mark = len(deps)
        guess[i] = FAILS
        first = self.decide(i)
        if len(deps) == mark:
            # Nothing depended on the guess.
            guess.pop(i, None)
            self.resolved.setdefault(i, first)  # unless a backup rule decided it meanwhile
            return first
        if deps[mark] != i:
            # Part of a cycle that started further up: keep the guessed result for now.
            deps.append(i)
            guess[i] = first
            return first
        # i started the cycle: try the other guess.
        for d in deps[mark:]:
            guess.pop(d, None)
        del deps[mark:]
        guess[i] = SUCCEEDS
        second = self.decide(i)
        if first == second:
            # Both guesses agree: the result holds.
            for d in deps[mark:]:
                guess.pop(d, None)
            del deps[mark:]
            guess.pop(i, None)
            self.resolved[i] = first
            return first
        self._backup_rule(mark)
        return self.resolve(i)

    def _backup_rule(self, mark: int) -> None:
        """A cycle with two consistent outcomes or none: a convoy paradox or circular movement."""
        cycle = self.deps[mark:]
        del self.deps[mark:]
        for i in cycle:
            self.guess.pop(i, None)
        # A paradox needs a convoy order in the cycle; a circle of moves that merely includes a
        # convoyed army is circular movement (DATC 6.C.4).
        fleets_in_cycle = {self.orders[i].province for i in cycle if i in self.convoy_set}
        paradox_moves = {m for m, fleets in self.route.items() if fleets & fleets_in_cycle}
        denials_in_cycle = {i for i in cycle if i in self.denials}
        if denials_in_cycle:
            # The same for a denied passage: the denial stands, the armies crossing hold.
            for d in denials_in_cycle:
                self.resolved[d] = SUCCEEDS
        if paradox_moves:
            # Szykman rule: the convoyed armies in the paradox hold; everything else is re-decided.
            for m in paradox_moves:
                self.paradox.add(m)
                self.guess.pop(m, None)
                self.resolved[m] = FAILS
        else:
            # Circular movement: every move in the circle succeeds; the rest is re-decided.
            for i in cycle:
                if i in self.src:
                    self.resolved[i] = SUCCEEDS

    def decide(self, i: int) -> bool:
        if i in self.src:
            return self._decide_move(i)
        if i in self.convoy_set or i in self.denials:
            return not self.dislodged_by_move(self.orders[i].province)
        if i in self.blockades:
            return self._decide_blockade(i)
        return self._decide_support(i)

    def path(self, i: int) -> bool:
        """Does the convoyed move i still have a chain of undislodged convoying fleets?"""
        if i in self.paradox:
            return False
        route = self.route[i]
        fleets = {f for f in route if self.resolve(self.convoy_of_fleet[f])}
        if len(fleets) == len(route):
            return True  # the route was built from fleets that form a chain
        return bool(fleets) and self.map.sea_path_exists(self.src[i], self.dst[i], fleets)  # type: ignore[arg-type]

    def dislodged_by_move(self, prov: str) -> bool:
        for j in self.moves_to.get(prov, ()):
            if self.resolve(j):
                return True
        return False

    def _support_count(self, supports: list[int], exclude_power: str | None = None) -> int:
        n = 0
        orders = self.orders
        for s in supports:
            if exclude_power is not None and orders[s].power == exclude_power:
                continue
            if self.resolve(s):
                n += 1
        return n

    def attack_strength(self, i: int) -> int:
        if i in self.convoyed and not self.path(i):
            return 0
        if i in self.denied_by and self.denied(i):
            return 0
        dest = self.dst[i]
        supports = self.move_supports[i]
        defender = self.units.get(dest)  # type: ignore[arg-type]
        if defender is not None:
            j = self.move_from.get(dest)  # type: ignore[arg-type]
            if j is None or self.opponent.get(i) == j or not self.resolve(j):
                if defender.power == self.orders[i].power:
                    return 0
                return 1 + self._support_count(supports, defender.power) if supports else 1
        return 1 + self._support_count(supports) if supports else 1

    def hold_strength(self, prov: str) -> int:
        if prov not in self.units:
            return 0
        j = self.move_from.get(prov)
        if j is not None:
            return 0 if self.resolve(j) else 1
        supports = self.hold_supports.get(prov)
        return 1 + self._support_count(supports) if supports else 1

    def prevent_strength(self, j: int) -> int:
        if j in self.convoyed and not self.path(j):
            return 0
        if j in self.denied_by and self.denied(j):
            return 0
        k = self.opponent.get(j)
        if k is not None and self.resolve(k):
            return 0
        supports = self.move_supports[j]
        return 1 + self._support_count(supports) if supports else 1

    def _decide_move(self, i: int) -> bool:
        if i in self.sorties:
            return FAILS
        attack = self.attack_strength(i)
        if attack == 0:
            return FAILS
        k = self.opponent.get(i)
        if k is not None and k in self.denied_by and self.denied(k):
            k = None  # the other army never set out across its passage: it defends where it is
        if k is not None:
            if attack <= 1 + self._support_count(self.move_supports[k]):
                return FAILS
        elif attack <= self.hold_strength(self.dst[i]):  # type: ignore[arg-type]
            return FAILS
        for j in self.moves_to[self.dst[i]]:  # type: ignore[index]
            if j != i and attack <= self.prevent_strength(j):
                return FAILS
        return SUCCEEDS

    def _decide_support(self, i: int) -> bool:
        order = self.orders[i]
        attackers = self.moves_to.get(order.province)
        if not attackers:
            return SUCCEEDS
        power = order.power
        supported_dest = province_of(order.dest) if type(order) is SupportMove else None  # type: ignore[attr-defined]
        for j in attackers:
            if self.orders[j].power == power:
                continue
            if self.src[j] == supported_dest:
                # The unit attacked by the supported move cannot cut the support, only dislodge it.
                if self.resolve(j):
                    return FAILS
                continue
            if j not in self.convoyed or self.path(j):
                return FAILS
        return SUCCEEDS

    # ----------------------------------------------------------------- results
    def outcome_report(self) -> tuple[list[OrderResult], dict[str, Unit], dict[str, Dislodged]]:
        self.resolve_all()
        orders, outcome, void, src = self.orders, self.resolved, self.void, self.src
        new = tuple.__new__  # OrderResult(...) without the extra frame of NamedTuple.__new__
        results: list[OrderResult] = []
        for i, order in enumerate(orders):
            reason = void[i]
            if reason is not None:
                results.append(new(OrderResult, (order, R_VOID, reason)))
            elif outcome.get(i, True):  # a hold, or a decision that succeeded
                results.append(new(OrderResult, (order, R_SUCCEEDS, "")))
            elif i in src:
                results.append(new(OrderResult, (order, R_FAILS, self._move_failure(i))))
            elif i in self.convoy_set:
                results.append(new(OrderResult, (order, R_FAILS, _("the convoying fleet was dislodged"))))
            elif i in self.denials:
                results.append(new(OrderResult, (order, R_FAILS, _("the fleet was dislodged: the passage stayed open"))))
            elif i in self.blockades:
                attackers = sorted({self.map.name(self.src[j]) for j in self.moves_to.get(order.province, ())
                                    if self.orders[j].power != order.power})
                results.append(new(OrderResult, (order, R_CUT, _("the blockade was cut by the attack from {provinces}",
                                                                 provinces=", ".join(attackers)))))
            else:
                results.append(new(OrderResult, (order, R_CUT, self._support_failure(i))))
        after, dislodged = self._units_after(results)
        return results, after, dislodged

    def _units_after(self, results: list[OrderResult]) -> tuple[dict[str, Unit], dict[str, Dislodged]]:
        """Units after: everyone stays, then the successful moves leave and arrive. A unit still in
        a province someone arrives in is dislodged."""
        units, src, dst, dest_loc, outcome = self.units, self.src, self.dst, self.dest_loc, self.resolved
        after = dict(units)
        moved = [i for i in src if outcome[i]]
        for i in moved:
            del after[src[i]]
        dislodged: dict[str, Dislodged] = {}
        for i in moved:
            d: str = dst[i]  # type: ignore[assignment]
            stayed = after.get(d)
            if stayed is not None:
                self._dislodge(d, stayed, i, results, dislodged)
            unit = units[src[i]]
            loc: str = dest_loc[i]  # type: ignore[assignment]
            after[d] = unit if loc == unit.location else unit.at(loc)
        return after, dislodged

    def _dislodge(self, prov: str, unit: Unit, by: int, results: list[OrderResult], dislodged: dict[str, Dislodged]) -> None:
        """`unit` in `prov` is dislodged by move `by`: an order that held there failed."""
        dislodged[prov] = Dislodged(unit, None if by in self.convoyed else self.src[by], ())
        j = self.order_of.get(prov)
        orders = self.orders
        if j is not None and results[j][1] is R_SUCCEEDS and type(orders[j]) in (Hold, Convoy, Deny, Blockade):
            results[j] = tuple.__new__(OrderResult, (orders[j], R_FAILS, _("the unit was dislodged")))

    def contested(self, after: dict[str, Unit]) -> frozenset[str]:
        """Empty provinces where a standoff happened: no retreat may go there."""
        out = set()
        for prov, moves in self.moves_to.items():
            if prov in after:
                continue
            # A unit that lost a head-to-head battle makes no standoff (DATC 6.H.9); nor does an
            # army whose convoy failed.
            if any(self.prevent_strength(i) > 0 for i in moves):
                out.add(prov)
        return frozenset(out)

    def _move_failure(self, i: int) -> str:
        if i in self.sorties:
            return _("a sortie: the unit never leaves its space")
        if i in self.paradox:
            return _("the convoy was caught in a paradox (Szykman rule): the army holds")
        if i in self.convoyed and not self.path(i):
            return _("the convoy was disrupted")
        if i in self.denied_by and self.denied(i):
            fleets = sorted(self.map.name(self.orders[d].province) for d in self.denied_by[i] if self.resolve(d))
            return _("the direct passage was denied by the fleet in {provinces}", provinces=", ".join(fleets))
        if i in self.opponent and not self.denied(self.opponent[i]):
            return _("lost the head-to-head battle with the unit in {province}", province=self.map.name(self.dst[i]))
        return _("bounced in {province}", province=self.map.name(self.dst[i]))

    def _support_failure(self, i: int) -> str:
        prov = self.orders[i].province
        if self.dislodged_by_move(prov):
            return _("the supporting unit was dislodged")
        attackers = [self.src[j] for j in self.moves_to.get(prov, ()) if self.orders[j].power != self.orders[i].power]
        return _("cut by the attack from {provinces}", provinces=", ".join(sorted(map(self.map.name, attackers))))


def resolve_movement(
    variant: Variant, state: GameState, orders: Sequence[Order]
) -> tuple[list[OrderResult], dict[str, Unit], dict[str, Dislodged], frozenset[str]]:
    """Resolve a movement phase of one unit a space: results, units after, dislodged units
    (without retreats yet) and the provinces left empty by a standoff (which matter only to
    retreats, so they are worked out only when a unit was dislodged). gm.engine.movement picks
    this or multiple.resolve_movement, as the variant's rules say."""
    movement = Movement(variant, state, orders)
    results, after, dislodged = movement.outcome_report()
    return results, after, dislodged, movement.contested(after) if dislodged else frozenset()
