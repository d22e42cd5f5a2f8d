"""Seeded random-order games, for tests, benchmarks and the demo.

`play_random_game(variant, seed, years)` plays a game of any variant through
`gm.engine.adjudicator.adjudicate`, every phase, and yields each position with the orders given
and the adjudication. The orders are random but mostly legal, so that phases are full of bounces,
cut supports, dislodgements and retreats:

* movement: holds, moves (weighted towards foreign units and centres not yet owned), supports of
  neighbouring units' holds and moves, armies convoyed along chains of fleets at sea; and, in
  variants with minor powers and Diplomacy Points (the rules have `dp_entitlement`), allocations
  by the great powers to orders for the minor units next to theirs: now and then one DP more
  than the power has (it forfeits them all), and now and then the same order another power backed;
* retreats: a random legal retreat, a disband, or no order at all;
* adjustments: builds where the rules allow (`build_sites`, vacant, fleets only where a fleet can
  stand), waives, removals; some powers order nothing (civil-disorder removals, unused builds),
  some order one removal too few; a `HOME` declaration now and then where the rules offer a choice
  (`state.extra["home_choice"]`);
* where the rules give major powers control of minor powers (`commander`), the controller orders
  its minor powers' units, retreats and adjustments like its own;
* bidding phases: each major power with IPs bids on a few minor powers, now and then backs
  another power's bid, and now and then bids one IP more than it has (it loses them all); one
  with Supply Points banked now and then converts some to IPs or lends some;
* fleets in a sea that a direct passage crosses deny it (X) now and then, and fleets at sea
  blockade a coastal home centre next to them where the rules allow (B); where fleets move
  twice, a fleet now and then has a second move or supports another fleet's;
* where the rules let a player make a minor power it controls its major power, now and then
  a PROMOTE (also of one with too few centres);
* where the rules allow multiple units: moves that MERGE where the power's units meet, parts of
  multiple units split off, armies board their fleets next to them (E) and armies aboard land
  (D), builds join the power's own unit, removals take an army or a fleet off a multiple unit;
* where supply lines run through allies' units (1700AD II), now and then a PERMIT of a power
  whose units stand next to the power's, or a REVOKE of one given.

Pure apart from the random.Random(seed): the same variant, seed and years give the same game.
The game stops after `years` game years or (unless told to play on) when the adjudication names a
winner.
"""
from __future__ import annotations

import random
from dataclasses import replace
from typing import Iterator, Mapping

from gm.engine.adjudicator import Adjudication, adjudicate
from gm.engine.adjust import adjustment_counts
from gm.engine.graph import Terrain
from gm.engine.impulses import PERMITS
from gm.engine.model import RETREATS, GameState, PhaseKind, Season, Unit, UnitType, province_of
from gm.engine.orders import (
    Allocation, Bid, Blockade, Build, Convoy, DeclareHome, Deny, Disband, Hold, Loan, Move, Order, Permit, Promote, Retreat,
    Steps, SupportHold, SupportMove, TwoPhase, convert, waive,
)
from gm.engine.rules import Rules
from gm.engine.variant import Variant

P_HOLD, P_SUPPORT, P_CONVOY = 0.10, 0.35, 0.30  # of a great power's units (convoy: coastal armies)
P_OVERSPEND = 0.08  # a power allocates one DP more than it has
P_COPY = 0.25  # an allocation backs an order another power already backed
P_MINOR_SORTIE = 0.2  # where the rules allow minor units to move
P_DISBAND, P_NO_RETREAT = 0.15, 0.10
P_SILENT = 0.12  # a power gives no adjustment orders this winter
P_SHORT = 0.15  # a power orders one removal too few
P_WAIVE, P_DECLARE = 0.08, 0.5
P_BANK = 0.3  # where the rules keep a bank (Supply Points), a build not made is banked: waived more often
P_BACK, P_DENY = 0.2, 0.5  # a bid backs another power's; a fleet in a passage's sea denies it
P_SUPPLY, P_LEND = 0.3, 0.6  # a power with Supply Points banked lends some; converts some (of what is left)
P_BLOCKADE = 0.3  # a fleet at sea next to another power's coastal home centre blockades it
P_SECOND = 0.5  # a fleet, where fleets move twice, has a second move (or supports one)
# Multiple units: a move merges where the power's units meet; a multiple unit splits a part off;
# an army boards its fleet next to it; armies aboard land; a build joins the power's unit.
P_MERGE, P_SPLIT, P_EMBARK, P_LAND, P_JOIN = 0.6, 0.3, 0.5, 0.5, 0.3
P_PROMOTE = 0.05  # a power makes a minor power it controls its major power, in a phase (rule 12)
# Turns of impulses: an order at double strength, or a second step; a retreat ordered in advance.
P_DOUBLE, P_TWO_STEPS, P_RETREAT_AHEAD = 0.25, 0.4, 0.1
P_PERMIT = 0.25  # where supply lines run, a power lets a neighbour through (PERMIT), or takes it back (REVOKE)

GameStep = tuple[GameState, list[Order], Adjudication]


def play_random_game(
    variant: Variant,
    seed: int | str,
    years: int,
    allocate_points: bool = True,
    civil_disorder: Mapping[int, str] | None = None,
    stop_at_winner: bool = True,
) -> Iterator[GameStep]:
    """Play `years` game years of `variant` with random orders; yield (state, orders, adjudication)
    for every phase. `civil_disorder` maps a year to a great power the GM declares in permanent
    civil disorder at the start of that year's Spring (variants whose rules know how). Without
    `stop_at_winner` the game goes on past a winner, for the full `years`."""
    players = RandomPlayers(variant, random.Random(seed), allocate_points)
    state = variant.initial_state()
    end = state.phase.year + years
    while state.phase.year < end:
        phase = state.phase
        if civil_disorder and phase.season is Season.SPRING and phase.kind is PhaseKind.MOVEMENT:
            if phase.year in civil_disorder:
                state = variant.rules.declare_civil_disorder(variant, state, civil_disorder[phase.year])
        orders = players.orders(state)
        adj = adjudicate(variant, state, orders)
        yield state, orders, adj
        if adj.winner is not None and stop_at_winner:
            return
        state = adj.state


class RandomPlayers:
    """Every great power's orders for a phase, drawn from one random generator."""

    def __init__(self, variant: Variant, rng: random.Random, allocate_points: bool = True) -> None:
        self.v, self.map, self.rules, self.rng = variant, variant.map, variant.rules, rng
        self.allocate = allocate_points and hasattr(variant.rules, "dp_entitlement")
        self.minor_kinds: tuple[type, ...] = getattr(variant.rules, "minor_order_kinds", (Hold, SupportHold, SupportMove))
        self.blockades = type(variant.rules).blockade_refusal is not Rules.blockade_refusal  # the rules have B orders
        self.promote = type(variant.rules).power_changes is not Rules.power_changes  # minor powers may be promoted

    def players(self, state: GameState) -> list[str]:
        disorder = state.extra.get("civil_disorder", ())
        return [p for p in self.rules.major_powers(self.v, state) if p not in disorder]  # type: ignore[operator]

    def orders(self, state: GameState) -> list[Order]:
        kind = state.phase.kind
        if kind is PhaseKind.MOVEMENT:
            out = self.movement(state)
        elif kind in RETREATS:
            out = self.retreats(state)
        elif kind is PhaseKind.BIDDING:
            out = self.bids(state)
        else:
            out = self.adjustments(state)
        return out + self.promotions(state) if self.promote else out

    def promotions(self, state: GameState) -> list[Order]:
        """Now and then a player makes a minor power it controls with 4 centres or more its major
        power (where the rules allow it), and now and then one too small."""
        out: list[Order] = []
        held: dict[str, int] = {}
        for owner in state.supply_centres.values():
            held[owner] = held.get(owner, 0) + 1
        for minor, major in sorted(self.rules.controllers(self.v, state).items()):
            if major in self.players(state) and held.get(minor, 0) >= 3 and self.rng.random() < P_PROMOTE:
                out.append(Promote(major, None, minor))
        return out

    def commander(self, state: GameState, power: str) -> str | None:
        """Who orders `power`'s units, if one of the players does."""
        by = self.rules.commander(self.v, state, power)
        return by if by in self.players(state) else None

    def _as_commander(self, state: GameState, order: Order) -> Order:
        by = self.commander(state, order.power)
        return order if by is None or by == order.power else replace(order, power=by)

    # --- movement -------------------------------------------------------------------------------
    def reach(self, u: Unit) -> frozenset[str]:
        """Provinces `u` could move to, hence support into."""
        return self.map.army.get(u.province, frozenset()) if u.type is UnitType.ARMY else self.map.fleet_provinces[u.location]

    def movement(self, state: GameState) -> list[Order]:
        rng, units, gmap = self.rng, state.units, self.map
        provs = sorted(p for p, u in units.items() if self.commander(state, u.power) is not None)
        rng.shuffle(provs)
        players = {units[p].power for p in provs}
        out: dict[str, Order] = {}
        for prov in provs:  # convoys first: a coastal army, a chain of fleets at sea
            u = units[prov]
            if u.type is UnitType.ARMY and gmap.provinces[prov].terrain is Terrain.COAST and rng.random() < P_CONVOY:
                fleets = {p for p, f in units.items() if f.type is UnitType.FLEET and gmap.is_sea(p) and p not in out and f.power in players}
                route = self._convoy_route(prov, fleets)
                if route is not None:
                    chain, dest = route
                    out[prov] = Move(u.power, u.type, prov, dest, via_convoy=True)
                    for f in chain:
                        out[f] = Convoy(units[f].power, UnitType.FLEET, units[f].location, prov, dest)
        supporters = []
        for prov in provs:
            if prov not in out:
                r = rng.random()
                if r < P_HOLD:
                    out[prov] = Hold(units[prov].power, units[prov].type, units[prov].location)
                elif r < P_HOLD + P_SUPPORT:
                    supporters.append(prov)
                else:
                    out[prov] = self._move(units[prov], state)
        for prov in supporters:
            out[prov] = self._support(units[prov], state, out) or self._move(units[prov], state)
        for (a, b), sea in sorted(self._passages()):
            fleet = units.get(sea)
            if fleet is not None and sea in out and fleet.type is UnitType.FLEET and rng.random() < P_DENY:
                out[sea] = Deny(fleet.power, UnitType.FLEET, fleet.location, a, b)
        for prov in sorted(out) if self.blockades else ():
            u = units[prov]
            if u.type is UnitType.FLEET and gmap.is_sea(prov) and rng.random() < P_BLOCKADE:
                targets = [t for t in sorted(gmap.fleet_provinces[u.location])
                           if not self.rules.blockade_refusal(self.v, state, Blockade(u.power, u.type, u.location, t))]
                if targets:
                    out[prov] = Blockade(u.power, u.type, u.location, rng.choice(targets))
        if self.rules.multiple_units:
            self._multiple(state, out)
        if self.rules.fleets_move_twice:
            self._second_moves(state, out)
        if self.rules.impulses > 1:
            return self._turn(state, out)
        orders = [self._as_commander(state, out[p]) for p in sorted(out)]
        return orders + self._allocations(state, out) if self.allocate else orders

    def _move(self, u: Unit, state: GameState) -> Order:
        dests = sorted(self.map.army.get(u.province, ()) if u.type is UnitType.ARMY else self.map.fleet.get(u.location, ()))
        if not dests:
            return Hold(u.power, u.type, u.location)
        weights = []
        for d in dests:
            p, there = province_of(d), state.units.get(province_of(d))
            w = 1.0 + (0 if there is None else 4.0 if there.power != u.power else 0.5)
            weights.append(w + (2.0 if self.map.provinces[p].supply_centre and state.supply_centres.get(p) != u.power else 0))
        return Move(u.power, u.type, u.location, self.rng.choices(dests, weights)[0])

    def _support(self, u: Unit, state: GameState, out: Mapping[str, Order], own_bonus: float = 5.0) -> Order | None:
        """A support by `u` of a neighbouring unit's move or hold, or None when there is none."""
        reach, cands = self.reach(u), []
        for prov in sorted(reach | set(out)):
            t = state.units.get(prov)
            if t is None or prov == u.province or self.rules.separate_fleets and t.type is not u.type:
                continue  # where fleets stand apart, fleets support only fleets, armies only armies
            w = own_bonus if t.power == u.power else 1.0
            o = out.get(prov)
            if isinstance(o, Move):
                d = province_of(o.dest)
                if d in reach and d != u.province:
                    defender = state.units.get(d)
                    w *= 3.0 if defender is not None and defender.power != u.power else 1.0
                    cands.append((w, SupportMove(u.power, u.type, u.location, prov, d, t.type)))
            elif prov in reach:
                cands.append((w, SupportHold(u.power, u.type, u.location, prov, t.type)))
        if not cands:
            return None
        return self.rng.choices([o for _, o in cands], [w for w, _ in cands])[0]

    def _convoy_route(self, start: str, fleets: set[str]) -> tuple[list[str], str] | None:
        """A random coastal destination reachable from `start` through `fleets`, and the chain."""
        nb, gmap = self.map.sea_neighbours, self.map
        parent: dict[str, str | None] = {p: None for p in sorted(nb.get(start, ())) if p in fleets}
        frontier = list(parent)
        while frontier:
            reached = []
            for here in frontier:
                for p in sorted(nb[here]):
                    if p in fleets and p not in parent:
                        parent[p] = here
                        reached.append(p)
            frontier = reached
        ends = sorted({(sea, p) for sea in parent for p in nb[sea] if p != start and gmap.provinces[p].terrain is Terrain.COAST})
        if not ends:
            return None
        sea, dest = self.rng.choice(ends)
        chain: list[str] = []
        s: str | None = sea
        while s is not None:
            chain.append(s)
            s = parent[s]
        return chain, dest

    def _multiple(self, state: GameState, out: dict[str, Order]) -> None:
        """Multiple units: moves that merge with the power's unit or units where they go, parts of
        multiple units that split off, armies that board a fleet of theirs next to them, and
        armies aboard that land."""
        rng, gmap, units = self.rng, self.map, state.units
        going: dict[tuple[str, str], int] = {}
        for o in out.values():
            if type(o) is Move:
                key = (o.power, province_of(o.dest))
                going[key] = going.get(key, 0) + 1
        for prov in sorted(out):
            o, u = out[prov], units[prov]
            if type(o) is Move:
                there = units.get(province_of(o.dest))
                if ((there is not None and there.power == u.power) or going[(o.power, province_of(o.dest))] > 1) \
                        and rng.random() < P_MERGE:
                    o = out[prov] = replace(o, merge=True)
                if not u.single and u.n_armies + u.n_fleets > 1 and rng.random() < P_SPLIT:
                    part = (1, 0) if u.n_armies and (not u.n_fleets or rng.random() < 0.5) else (0, 1)
                    out[prov] = replace(o, unit_type=UnitType.ARMY if part[0] else UnitType.FLEET, part=part)
            if u.n_armies and gmap.is_sea(prov) and rng.random() < P_LAND:
                coasts = sorted(p for p in gmap.fleet_provinces[u.location] if gmap.provinces[p].terrain is Terrain.COAST)
                if coasts:
                    out[prov] = Move(u.power, UnitType.ARMY, u.location, rng.choice(coasts))
            elif u.type is UnitType.ARMY and not gmap.is_sea(prov) and rng.random() < P_EMBARK:
                ships = sorted(p for p in gmap.sea_neighbours.get(prov, ())
                               if (f := units.get(p)) is not None and f.power == u.power and f.armies + u.count <= f.count)
                if ships:
                    out[prov] = Move(u.power, UnitType.ARMY, prov, rng.choice(ships), merge=True)

    def _second_moves(self, state: GameState, out: dict[str, Order]) -> None:
        """Now and then a fleet's second move (into a sea next to where its first order leaves
        it), or its support of another fleet's second move."""
        rng, gmap = self.rng, self.map
        planned: dict[str, Move] = {}  # province of the second move's fleet -> the move
        for prov in sorted(out):
            first = out[prov]
            if state.units[prov].type is not UnitType.FLEET or type(first) is Blockade or rng.random() >= P_SECOND:
                continue
            where = first.dest if type(first) is Move else state.units[prov].location  # type: ignore[attr-defined]
            seas = sorted(p for p in gmap.fleet_provinces.get(where, ()) if gmap.is_sea(p))
            helped = [m for m in planned.values() if province_of(m.dest) in gmap.fleet_provinces.get(where, ())
                      and m.location != where]
            if helped and rng.random() < 0.5:
                m = rng.choice(helped)
                second: Order = SupportMove(first.power, UnitType.FLEET, where, m.province, m.dest, UnitType.FLEET)
            elif seas:
                # mostly at another power's unit: second moves that dislodge are the ones to test
                weights = [4.0 if p in state.units and state.units[p].power != first.power else 1.0 for p in seas]
                second = planned[province_of(where)] = Move(first.power, UnitType.FLEET, where,
                                                            rng.choices(seas, weights)[0])
            else:
                continue
            out[prov] = TwoPhase(first.power, UnitType.FLEET, first.location, first, second)

    def _turn(self, state: GameState, out: dict[str, Order]) -> list[Order]:
        """A turn of impulses: some orders at double strength, some followed by a second step (a
        move on, a move after a hold, or a support), retreats ordered in advance now and then,
        and the builds and removals the position would call for now."""
        rng = self.rng
        orders: list[Order] = []
        for prov in sorted(out):
            first, u = out[prov], state.units[prov]
            r = rng.random()
            # a leader's third point: triple strength (his, not that of the fleets beside him)
            mover = Unit(u.power, UnitType.FLEET, u.location, u.n_fleets) if u.type is UnitType.FLEET else u
            points = self.rules.impulse_points(self.v, mover)
            if type(first) in (Move, SupportHold, SupportMove) and r < P_DOUBLE:
                orders.append(Steps(first.power, first.unit_type, first.location, (first,), (rng.randint(2, points),)))
                continue
            if r < P_DOUBLE + P_TWO_STEPS and type(first) in (Move, Hold):
                there = u.at(first.dest) if type(first) is Move else u  # type: ignore[attr-defined]
                second = self._support(there, state, out) if type(first) is Hold and rng.random() < 0.5 else None
                second = second or self._move(there, state)
                orders.append(Steps(first.power, first.unit_type, first.location, (first, second), (1, points - 1)))
                continue
            orders.append(first)
        for prov in sorted(out) if self.rules.separate_fleets else ():
            u = state.units[prov]
            if u.n_armies and u.n_fleets:  # a land unit beside its fleets: an order of its own
                orders.append(self._move(Unit(u.power, UnitType.ARMY, prov, leader=u.leader), state))
        for prov in sorted(state.units):
            u = state.units[prov]
            near = sorted(self.reach(u))
            if near and rng.random() < P_RETREAT_AHEAD:
                orders.append(Retreat(u.power, u.type, u.location, rng.choice(near)))
        return orders + self.adjustments(state) + (self._permits(state) if self.rules.supply_lines else [])

    def _permits(self, state: GameState) -> list[Order]:
        """Now and then a power PERMITs another (its fleets may then stand in the permitter's
        coasts, its supply lines pass through the permitter's units), mostly one whose units stand
        next to its own; or REVOKEs a permission it gave."""
        given: Mapping[str, list[str]] = state.extra.get(PERMITS, {})  # type: ignore[assignment]
        out: list[Order] = []
        for power in self.players(state):
            if self.rng.random() >= P_PERMIT:
                continue
            mine = given.get(power, [])
            if mine and self.rng.random() < 0.3:
                out.append(Permit(power, None, self.rng.choice(sorted(mine)), revoke=True))
                continue
            others = [p for p in self.v.great_powers if p != power and p not in mine]
            near = sorted({t.power for u in state.units_of(power) for p in self.map.all_neighbours[u.province]
                           if (t := state.units.get(p)) is not None and t.power in others})
            if near or others:
                out.append(Permit(power, None, self.rng.choice(near or others)))
        return out

    def _passages(self) -> list[tuple[tuple[str, str], str]]:
        return [(tuple(sorted(ends)), sea) for ends, sea in self.rules.passages(self.v).items()]  # type: ignore[misc]

    # --- Influence Points -----------------------------------------------------------------------
    def bids(self, state: GameState) -> list[Order]:
        rng, v = self.rng, self.v
        minors = sorted(p for p in v.powers if self.rules.is_minor(v, state, p))
        players = self.players(state)
        out: list[Order] = []
        accounts = getattr(self.rules, "accounts", None)  # Supply Points (Napoleonic Wars)
        bank: Mapping[str, int] = accounts(v, state) if accounts is not None else {}
        for power in players:
            points = self.rules.points_available(v, state, power) or 0
            points += 1 if rng.random() < P_OVERSPEND else 0
            banked = bank.get(power, 0)
            if banked > 0 and rng.random() < P_LEND:  # Supply Points: some lent, some turned into IPs
                n = rng.randint(1, banked)
                out.append(Loan(power, None, rng.choice([p for p in players if p != power] or [power]), n))
                banked -= n
            if banked > 0 and rng.random() < P_SUPPLY:
                n = rng.randint(1, banked)
                out.append(convert(power, n))
                points += 2 * n
            for minor in rng.sample(minors, min(len(minors), rng.randint(0, 3))):
                if points <= 0:
                    break
                n = rng.randint(0, points)
                backed = rng.choice(players) if rng.random() < P_BACK else power
                out.append(Bid(power, None, minor, n, "" if backed == power else backed))
                points -= n
        return out

    # --- Diplomacy Points -----------------------------------------------------------------------
    def _allocations(self, state: GameState, out: Mapping[str, Order]) -> list[Order]:
        rng, v = self.rng, self.v
        entitled: dict[str, int] = self.rules.dp_entitlement(v, state)  # type: ignore[attr-defined]
        minors = {p: u for p, u in state.units.items() if self.rules.is_minor(v, state, u.power)}
        backed: list[Order] = []  # minor orders already backed, for other powers to back too
        allocations: list[Order] = []
        for power in sorted(entitled):
            dp = entitled[power] + (1 if rng.random() < P_OVERSPEND else 0)
            near = sorted({m for u in state.units_of(power) for m in self.map.all_neighbours[u.province] if m in minors})
            while dp > 0 and (near or backed) and rng.random() < 0.9:
                if backed and (not near or rng.random() < P_COPY):
                    order = rng.choice(backed)
                else:
                    order = self._minor_order(minors[rng.choice(near)], state, out)
                    backed.append(order)
                n = rng.randint(1, dp)
                typ = order.unit_type if rng.random() < 0.8 else None  # "DP 1 BAV S ..." without the type
                allocations.append(Allocation(power, typ, order.location, n, replace(order, power=power, unit_type=typ)))
                dp -= n
        return allocations

    def _minor_order(self, u: Unit, state: GameState, out: Mapping[str, Order]) -> Order:
        r = self.rng.random()
        if Move in self.minor_kinds and r < P_MINOR_SORTIE:
            return self._move(u, state)
        support = self._support(u, state, out, own_bonus=1.0) if r < 0.85 else None
        return support or Hold(u.power, u.type, u.location)

    # --- retreats -------------------------------------------------------------------------------
    def retreats(self, state: GameState) -> list[Order]:
        out: list[Order] = []
        for prov, d in sorted(state.dislodged.items()):
            u, r = d.unit, self.rng.random()
            by = self.commander(state, u.power)
            if by is None or r < P_NO_RETREAT:
                continue
            if d.retreats and r >= P_NO_RETREAT + P_DISBAND:
                out.append(Retreat(by, u.type, u.location, self.rng.choice(d.retreats)))
            else:
                out.append(Disband(by, u.type, u.location))
        return out

    # --- adjustments ----------------------------------------------------------------------------
    def adjustments(self, state: GameState) -> list[Order]:
        rng, v = self.rng, self.v
        counts = adjustment_counts(v, state)
        choices: Mapping[str, tuple[str, ...]] = state.extra.get("home_choice", {})  # type: ignore[assignment]
        out: list[Order] = []
        adjusting = [p for p in counts if p not in self.players(state) and self.commander(state, p) is not None]
        p_waive = P_BANK if hasattr(self.rules, "accounts") else P_WAIVE
        for power in self.players(state) + sorted(adjusting):
            if rng.random() < P_SILENT:
                continue
            by = self.commander(state, power) or power
            unchosen: set[str] = set()
            if choices.get(power) and rng.random() < P_DECLARE:
                chosen = rng.choice(sorted(choices[power]))
                out.append(DeclareHome(power, None, chosen))
                unchosen = set(choices[power]) - {chosen}
            due = counts.get(power, 0)
            if due < 0:
                # one removal for each army and fleet: a multiple unit may lose several
                mine = sorted((u for u in state.units_of(power) for _ in range(u.size)), key=lambda u: u.province)
                n = -due - (1 if rng.random() < P_SHORT else 0)
                out += [Disband(by, UnitType.ARMY if u.n_armies and not (u.n_fleets and rng.random() < 0.5) else UnitType.FLEET,
                                u.location) for u in rng.sample(mine, n)]
            built: list[str] = []
            for _ in range(max(due, 0)):
                if rng.random() < p_waive:
                    out.append(waive(by))
                    continue
                occupied = set(state.units)
                if self.rules.multiple_units and rng.random() < P_JOIN:  # a build joins the power's own unit
                    occupied = {p for p in occupied if state.units[p].power != power}
                sites = self.rules.build_sites(v, state, power, built) - occupied - set(built) - unchosen
                if not sites:
                    break
                site = rng.choice(sorted(sites))
                kinds = [(UnitType.FLEET, loc) for loc in self.map.fleet_locations(site)]
                if self.map.provinces[site].terrain in (Terrain.LAND, Terrain.COAST):
                    kinds.append((UnitType.ARMY, site))
                kinds = [(t, loc) for t, loc in kinds
                         if not self.rules.build_refusal(v, state, Build(power, t, loc))] or kinds
                typ, loc = rng.choice(kinds)
                out.append(Build(by, typ, loc))
                built.append(site)
        return out
