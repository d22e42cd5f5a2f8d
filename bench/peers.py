"""Adapters that feed one movement phase, given in gm's terms, to the peer adjudicators.

Every engine is handed the same position (units and supply centres) and the same orders, built
from gm values: `gm.engine.model.Unit` and the typed orders of `gm.engine.orders`. Each adapter
has three parts so that the benchmark can keep conversion out of the timed region:

    prepare(record) -> inputs        untimed: translate position and orders into the library's terms
    run(inputs)                      timed: the adjudication call itself
    outcome(inputs, result)          untimed: translate the result back to gm's terms (Outcome)

An Outcome is what the three engines can all tell us about a resolved movement phase: where the
surviving units stand, which units were dislodged and where each dislodged unit may retreat.
"""
from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any, Sequence

from gm.engine.model import GameState, Unit, UnitType
from gm.engine.orders import Convoy, Hold, Move, Order, SupportHold, SupportMove
from gm.engine.variant import Variant

UnitKey = tuple[str, str, str]  # (power, 'A' | 'F', location), e.g. ('Russia', 'F', 'STP/SC')


@dataclass(frozen=True)
class Outcome:
    units: frozenset[UnitKey]  # units standing once the phase is resolved (dislodged excluded)
    dislodged: dict[UnitKey, frozenset[str]]  # dislodged unit -> locations it may retreat to


@dataclass
class PhaseRecord:
    """One movement phase of a generated game: the position and every unit's order."""

    game: int
    name: str  # diplomacy's short phase name, 'S1901M'
    state: GameState
    orders: list[Order]

    @property
    def label(self) -> str:
        return f"game {self.game} {self.name}"


def key(unit: Unit) -> UnitKey:
    return (unit.power, unit.type.value, unit.location)


# ------------------------------------------------------------------------------------------------
# PyPI `diplomacy` (1.1.2): diplomacy.engine.game.Game
# ------------------------------------------------------------------------------------------------


def diplomacy_order(order: Order, state: GameState) -> str:
    """gm order -> diplomacy order text ('A LON - BEL VIA', 'F NTH C A LON - BEL')."""
    unit = f"{order.unit_type.value} {order.location}"
    if isinstance(order, Move):
        return f"{unit} - {order.dest}" + (" VIA" if order.via_convoy else "")
    if isinstance(order, SupportHold):
        target = state.units[order.target]
        return f"{unit} S {target.type.value} {target.location}"
    if isinstance(order, SupportMove):
        target = state.units[order.target]
        return f"{unit} S {target.type.value} {target.location} - {order.dest}"
    if isinstance(order, Convoy):
        return f"{unit} C A {order.target} - {order.dest}"
    if isinstance(order, Hold):
        return f"{unit} H"
    raise TypeError(f"no diplomacy form for {order!r}")


class DiplomacyPeer:
    """diplomacy.engine.game.Game on the 'standard' map.

    prepare() builds a Game holding the position and the orders (set_units, set_centers,
    set_orders), once per phase; fresh() hands out an independent deep copy for each timed call,
    because the library resolves in place. Two things can be timed:

    resolve(game)  game._determine_orders(); game._add_coasts(); game._move_results()
                   i.e. order resolution, retreat options and moving the units: the part of
                   Game._process() that adjudicates a movement phase (all of it bar _advance_phase)
    process(game)  game.process(): the public call, which in addition snapshots the state into
                   the history, advances to the next phase, rebuilds caches and scans orderable
                   locations.
    """

    def __init__(self) -> None:
        from diplomacy import Game

        self._template = Game(map_name="standard")
        self._template.clear_units()
        for power in self._template.powers.values():
            power.clear_centers()
        self.version = _version("diplomacy")

    def prepare(self, record: PhaseRecord) -> Any:
        game = copy.deepcopy(self._template)
        game.set_current_phase(record.name)
        state = record.state
        by_power: dict[str, list[str]] = {}
        for u in state.units.values():
            by_power.setdefault(u.power.upper(), []).append(f"{u.type.value} {u.location}")
        for power, units in by_power.items():
            game.set_units(power, units, reset=True)
        centres: dict[str, list[str]] = {}
        for prov, owner in state.supply_centres.items():
            centres.setdefault(owner.upper(), []).append(prov)
        for power, cs in centres.items():
            game.set_centers(power, cs, reset=True)
        orders: dict[str, list[str]] = {}
        for o in record.orders:
            orders.setdefault(o.power.upper(), []).append(diplomacy_order(o, state))
        for power, texts in orders.items():
            game.set_orders(power, texts)
            accepted = game.get_orders(power)
            if len(accepted) != len(texts):
                raise ValueError(
                    f"{record.label}: diplomacy dropped orders of {power}: "
                    f"{sorted(set(texts) - set(accepted))} (errors {game.error})"
                )
        game.error = []
        owners = {f"{u.type.value} {u.location}": u.power for u in state.units.values()}
        return game, owners

    @staticmethod
    def fresh(inputs: Any) -> Any:
        game = copy.deepcopy(inputs[0])
        # deepcopy leaves the unit-owner cache pointing at the original Power objects, which makes
        # _determine_orders() drop every order; rebuild it here, outside the timed region.
        game._unit_owner_cache = None
        game._build_unit_owner_cache()
        return game

    @staticmethod
    def resolve(game: Any) -> None:
        game._determine_orders()
        game._add_coasts()
        game._move_results()

    @staticmethod
    def process(game: Any) -> None:
        game.process()

    @staticmethod
    def outcome(inputs: Any, game: Any) -> Outcome:
        """Read a game on which resolve() has run (not process(): that clears the dislodged)."""
        owners = inputs[1]
        units = frozenset(
            (power.name.capitalize(), u[0], u[2:]) for power in game.powers.values() for u in power.units
        )
        retreats: dict[str, list[str]] = {}
        for power in game.powers.values():
            retreats.update(power.retreats)
        # diplomacy lists retreat locations before leaving out occupied provinces, which it does
        # only when a retreat order comes in (Game._update_orders); do the same here.
        occupied = {loc.split("/")[0] for _, _, loc in units}
        dislodged = {
            (owners[u], u[0], u[2:]): frozenset(
                loc.upper() for loc in retreats.get(u, ()) if loc[:3].upper() not in occupied
            )
            for u in game.dislodged
        }
        return Outcome(units, dislodged)


# ------------------------------------------------------------------------------------------------
# PyPI `pydip` (0.1.8)
# ------------------------------------------------------------------------------------------------

# Our province names where pydip spells them differently.
_PYDIP_NAMES = {"St Petersburg": "St. Petersburg"}


class PydipPeer:
    """pydip's standard map (pydip.map.predefined.vanilla_dip) and pydip.turn.resolve.resolve_turn.

    prepare() creates one Player per power holding its pydip Units, and one command per order
    (HoldCommand, MoveCommand, ConvoyMoveCommand, SupportCommand, ConvoyTransportCommand; the
    constructors validate, so this is kept out of the timed region). run() times
    resolve_turn(map, commands) alone: pydip resolves without mutating its inputs (its guess
    tables are module globals reset on each call) and returns every unit's new position and, for
    dislodged units, their retreat options.

    pydip names provinces in full and puts fleets on a named coast territory ('London Coast',
    'Spain North Coast', 'Bulgaria North Coast' for BUL/EC); the mapping is derived from our map
    data and checked edge by edge against pydip's adjacency when the peer is built.
    """

    def __init__(self, variant: Variant) -> None:
        from pydip.map.predefined import vanilla_dip
        from pydip.map.territory import LandTerritory, SeaTerritory
        from pydip.player import player as pl
        from pydip.player.command import command as cmd
        from pydip.player.unit import Unit as PUnit, UnitTypes
        from pydip.turn.resolve import resolve_turn

        self.version = _version("pydip")
        self._Player, self._PUnit, self._cmd, self._resolve_turn = pl.Player, PUnit, cmd, resolve_turn
        self._types = {UnitType.ARMY: UnitTypes.TROOP, UnitType.FLEET: UnitTypes.FLEET}
        self.map = pmap = vanilla_dip.generate_map()
        self.gmap = gmap = variant.map
        names = pmap.name_map

        # Our province -> pydip territory name for an army (land) or the one of a sea.
        self.army_name: dict[str, str] = {}
        self.fleet_name: dict[str, str] = {}  # our fleet location -> pydip sea/coast name
        for abbr, prov in gmap.provinces.items():
            full = _PYDIP_NAMES.get(prov.name, prov.name)
            if full not in names and full + " Sea" in names:
                full += " Sea"  # 'Western Mediterranean'
            if full not in names:
                if prov.terrain.value != "impassable":
                    raise ValueError(f"pydip map: no territory for {abbr} {prov.name!r}")
                continue  # Switzerland
            terr = names[full]
            if isinstance(terr, SeaTerritory):
                self.fleet_name[abbr] = full
            elif isinstance(terr, LandTerritory):
                self.army_name[abbr] = full
        # Coasts: match by fleet adjacency (our 'BUL/EC' is pydip's 'Bulgaria North Coast').
        for abbr, full in self.army_name.items():
            coasts = names[full].coasts
            ours = gmap.fleet_locations(abbr)
            if len(ours) != len(coasts):
                raise ValueError(f"pydip map: {abbr} has {len(coasts)} coasts, ours {len(ours)}")
            if len(ours) == 1:
                self.fleet_name[ours[0]] = coasts[0].name
        for abbr, full in self.army_name.items():
            coasts = names[full].coasts
            ours = gmap.fleet_locations(abbr)
            if len(ours) > 1:
                for loc in ours:
                    want = {d for d in gmap.fleet[loc] if d in self.fleet_name}
                    match = [
                        c.name
                        for c in coasts
                        if {self._ours_fleet(n) for n in pmap.adjacency[c.name]} - {None} == want
                    ]
                    if len(match) != 1:
                        raise ValueError(f"pydip map: cannot match coast {loc} ({match})")
                    self.fleet_name[loc] = match[0]
        self.from_name = {v: k for k, v in self.army_name.items()}
        self.from_name.update({v: k for k, v in self.fleet_name.items()})
        self._check_map(gmap, LandTerritory)

    def _ours_fleet(self, name: str) -> str | None:
        for k, v in self.fleet_name.items():
            if v == name:
                return k
        return None

    def _check_map(self, gmap: Any, LandTerritory: type) -> None:
        adj, names = self.map.adjacency, self.map.name_map
        for abbr, dests in gmap.army.items():
            theirs = {self.from_name[n] for n in adj[self.army_name[abbr]] if isinstance(names[n], LandTerritory)}
            if theirs != set(dests):
                raise ValueError(f"pydip map: army edges of {abbr} differ: {sorted(theirs ^ set(dests))}")
        for loc, dests in gmap.fleet.items():
            theirs = {self.from_name[n] for n in adj[self.fleet_name[loc]] if not isinstance(names[n], LandTerritory)}
            if theirs != set(dests):
                raise ValueError(f"pydip map: fleet edges of {loc} differ: {sorted(theirs ^ set(dests))}")

    def name(self, unit_type: UnitType, location: str) -> str:
        return self.army_name[location] if unit_type is UnitType.ARMY else self.fleet_name[location]

    def prepare(self, record: PhaseRecord) -> Any:
        """-> (commands, error). error is a message when pydip refuses an order (assertion)."""
        state, cmd = record.state, self._cmd
        players: dict[str, Any] = {}
        punits: dict[str, Any] = {}
        for prov, u in state.units.items():
            if u.power not in players:
                players[u.power] = self._Player(u.power, self.map, [])
            pu = self._PUnit(self._types[u.type], self.name(u.type, u.location))
            players[u.power].units.append(pu)
            punits[prov] = pu
        ordered: dict[str, Order] = {o.province: o for o in record.orders}
        # Where each unit is actually going, for supports of fleets onto a coast.
        moving_to = {o.province: o.dest for o in record.orders if isinstance(o, Move)}
        commands = []
        try:
            for prov, u in state.units.items():
                player, pu = players[u.power], punits[prov]
                o = ordered.get(prov)
                if o is None or isinstance(o, Hold):
                    commands.append(cmd.HoldCommand(player, pu))
                elif isinstance(o, Move):
                    if o.via_convoy:
                        commands.append(cmd.ConvoyMoveCommand(player, pu, self.army_name[o.dest]))
                    else:
                        commands.append(cmd.MoveCommand(player, pu, self.name(u.type, o.dest)))
                elif isinstance(o, SupportHold):
                    target = punits[o.target]
                    commands.append(cmd.SupportCommand(player, pu, target, target.position))
                elif isinstance(o, SupportMove):
                    target, tu = punits[o.target], state.units[o.target]
                    if tu.type is UnitType.ARMY:
                        dest = self.army_name[o.dest]
                    else:
                        going = moving_to.get(o.target)
                        if going is not None and going.split("/")[0] == o.dest:
                            loc = going
                        else:
                            options = self.gmap.fleet_coasts_to(tu.location, o.dest)
                            loc = options[0] if options else o.dest
                        dest = self.fleet_name[loc]
                    commands.append(cmd.SupportCommand(player, pu, target, dest))
                elif isinstance(o, Convoy):
                    target = punits[o.target]
                    commands.append(
                        cmd.ConvoyTransportCommand(player, pu, target, self.army_name[o.dest])
                    )
                else:
                    raise TypeError(f"no pydip form for {o!r}")
        except (AssertionError, KeyError) as exc:
            return None, f"pydip refuses {o}: {exc!r}"
        return commands, None

    def run(self, commands: Sequence[Any]) -> Any:
        return self._resolve_turn(self.map, commands)

    def outcome(self, result: Any) -> Outcome:
        units: set[UnitKey] = set()
        dislodged: dict[UnitKey, frozenset[str]] = {}
        for power, by_unit in result.items():
            for pu, retreats in by_unit.items():
                k = (power, "A" if pu.unit_type.name == "TROOP" else "F", self.from_name[pu.position])
                if retreats is None:
                    units.add(k)
                else:
                    dislodged[k] = frozenset(self.from_name[r] for r in retreats)
        return Outcome(frozenset(units), dislodged)


def _version(dist: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(dist)
    except PackageNotFoundError:
        return "?"
