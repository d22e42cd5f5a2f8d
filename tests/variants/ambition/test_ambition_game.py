"""Whole games of Ambition & Empire with random orders (gm/randomgame.py), the rules' invariants
checked after every phase.

The games are seeded, so they are the same on every run. A game stops when a power wins (15
centres and more than anyone else, section VI), and random play often produces a winner within
30 years: the seeds below are ones where nobody wins in time, and the tests assert the number of
years actually played, so a change in the generator or the engine that brings a win forward
fails loudly instead of shortening the test. If that happens, pick another seed (the loop in
`_seeds_without_winner` below lists candidates; keep one that passes the coverage checks too).

Each game also has one great power declared in permanent civil disorder by the GM part-way through
(section VII), so that new minor powers (`state.extra["independents"]`) appear and are checked.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import pytest

from gm.engine.adjudicator import Adjudication
from gm.engine.graph import Terrain
from gm.engine.model import GameState, Phase, PhaseKind, Season, Unit, UnitType
from gm.engine.orders import Allocation, Build, Convoy, DeclareHome, Move, Order, Retreat
from gm.engine.results import Result
from gm.engine.variant import Variant
from gm.randomgame import play_random_game
from gm.variants import load_variant

CENTRES = 44
MAX_DP = 3

# (variant, seed, years, {year: power the GM declares in civil disorder that Spring})
# Seeds chosen so that nobody wins before the years are up and the game exercises everything the
# test counts (see the module docstring). Of seeds 0-59, only 7, 11, 40 and 51 reach 30 years of
# the 2006 game without a winner, and only 51 also declares a third home centre with HOME.
GAME_2006 = ("ambition", 51, 30, {1775: "Sweden"})
GAME_V6 = ("ambition-v6", 6, 15, {1770: "Denmark-Norway"})


@dataclass
class Seen:
    """What the game exercised, so that a test cannot pass by exercising nothing."""

    counts: Counter = field(default_factory=Counter)
    years: int = 0


def _unit_key(u: Unit) -> tuple[str, str, str]:
    return (u.power, u.type.value, u.location)


def _minor_home_unit(v: Variant, state: GameState, power: str) -> tuple[str, str, str]:
    """The unit a minor power always has at home: its starting unit, or for a new minor power
    (civil disorder) the one recorded in state.extra["independents"]."""
    for u in v.starting_units:
        if u.power == power:
            return _unit_key(u)
    kind, loc = state.extra["independents"][power]["unit"].split()
    return (power, kind, loc)


def _next_phases(phase: Phase) -> set[Phase]:
    """The phases that may follow `phase`: Spring Movement -> (Retreat) -> Fall Movement ->
    (Retreat) -> (Winter Adjustment) -> next Spring Movement."""
    y, S, F, W = phase.year, Season.SPRING, Season.FALL, Season.WINTER
    M, R, A = PhaseKind.MOVEMENT, PhaseKind.RETREAT, PhaseKind.ADJUSTMENT
    spring = Phase(y + 1, S, M)
    return {
        (S, M): {Phase(y, S, R), Phase(y, F, M)},
        (S, R): {Phase(y, F, M)},
        (F, M): {Phase(y, F, R), Phase(y, W, A), spring},
        (F, R): {Phase(y, W, A), spring},
        (W, A): {spring},
    }[(phase.season, phase.kind)]


def check_position(v: Variant, state: GameState, seen: Seen) -> None:
    """Invariants of any position, at the start of any phase."""
    rules, gmap = v.rules, v.map
    independents = state.extra.get("independents", {})
    known = set(v.powers) | set(independents)
    where = state.phase
    # No two units in a space: units are keyed by their own province.
    for prov, u in state.units.items():
        assert u.province == prov, f"{where}: {u} keyed under {prov}"
        assert u.power in known, f"{where}: {u} belongs to unknown {u.power}"
        # Every unit stands where its type can.
        if u.type is UnitType.ARMY:
            assert gmap.provinces[prov].terrain in (Terrain.LAND, Terrain.COAST), f"{where}: army at sea: {u}"
        else:
            assert u.location in gmap.fleet_locations(prov), f"{where}: fleet where no fleet can stand: {u}"
    # Centres: all 44 owned, by known powers.
    assert set(state.supply_centres) == {p for p, x in gmap.provinces.items() if x.supply_centre}
    assert len(state.supply_centres) == CENTRES
    assert set(state.supply_centres.values()) <= known, f"{where}: unknown owners"
    # Minor units never leave their space: each stands in its own home centre.
    for u in state.units.values():
        if rules.is_minor(v, state, u.power):
            assert _unit_key(u) == _minor_home_unit(v, state, u.power), f"{where}: minor unit {u.power} {u} away from home"
    for power in independents:
        assert rules.is_minor(v, state, power)
    seen.counts["new minor powers"] = max(seen.counts["new minor powers"], len(independents))
    # Units of powers in civil disorder are gone (section VII).
    for power in state.extra.get("civil_disorder", ()):
        assert not state.units_of(power), f"{where}: {power} is in civil disorder yet has units"
    if where.kind is PhaseKind.MOVEMENT and where.season is Season.SPRING:
        # After the winter (held or not needed), nobody has more units than centres, and every
        # minor power holding its centre has its unit back (section III).
        for power in known:
            assert len(state.units_of(power)) <= len(state.centres_of(power)), f"{where}: {power} has too many units"
            if rules.is_minor(v, state, power):
                home = _minor_home_unit(v, state, power)
                prov = home[2].split("/")[0]
                if state.supply_centres.get(prov) == power:
                    assert prov in state.units and _unit_key(state.units[prov]) == home, f"{where}: {power} lacks its unit"


def check_movement(v: Variant, state: GameState, orders: list[Order], adj: Adjudication, seen: Seen) -> None:
    rules, where, c = v.rules, state.phase, seen.counts
    entitled = rules.dp_entitlement(v, state)
    disorder = state.extra.get("civil_disorder", ())
    for power in v.great_powers:
        if power in disorder:
            assert power not in entitled
        else:  # one DP per centre controlled, never more than three (section IV)
            assert entitled[power] == min(MAX_DP, len(state.centres_of(power))) <= MAX_DP
    valid: Counter = Counter()
    forfeited: set[str] = set()
    won_by: dict[str, set[str]] = {}
    for r in adj.results:
        if type(r.order) is not Allocation:
            continue
        a = r.order
        c[f"allocation {r.result.value}"] += 1
        if r.result is Result.VOID:
            continue
        valid[a.power] += a.points
        if r.result is Result.FAILS and "forfeited" in r.reason:
            forfeited.add(a.power)
        elif r.result is Result.SUCCEEDS:
            won_by.setdefault(a.order.province, set()).add(a.power)
    for power, spent in valid.items():
        # An allocation that counts belongs to a power within its entitlement; a power over it
        # forfeits every allocation it made.
        if power in forfeited:
            assert spent > entitled.get(power, 0), f"{where}: {power} forfeited {spent} DPs of {entitled.get(power)}"
            assert all(
                r.result is Result.VOID or "forfeited" in r.reason
                for r in adj.results
                if type(r.order) is Allocation and r.order.power == power
            )
            c["powers forfeiting"] += 1
        else:
            assert spent <= entitled.get(power, 0), f"{where}: {power} counted {spent} DPs of {entitled.get(power)}"
    c["identical orders won by two powers"] += sum(len(ps) > 1 for ps in won_by.values())
    # Minor units stay where they are, and a dislodged one is destroyed (no retreat).
    for prov, u in adj.units.items():
        if rules.is_minor(v, state, u.power):
            assert state.units.get(prov) == u, f"{where}: minor unit {u} moved"
    for prov, d in adj.dislodged.items():
        assert adj.units.get(prov) != d.unit
        if rules.is_minor(v, state, d.unit.power):
            assert d.retreats == (), f"{where}: dislodged minor unit {d.unit} may retreat"
            c["minor units destroyed"] += 1
        for loc in d.retreats:
            assert loc.split("/")[0] not in adj.units
    for r in adj.results:
        if type(r.order) is Move and r.order.via_convoy and r.result is Result.SUCCEEDS:
            c["convoyed moves"] += 1
        if type(r.order) is Convoy and r.result is Result.SUCCEEDS:
            c["convoys"] += 1


def check_retreat(v: Variant, state: GameState, adj: Adjudication, seen: Seen) -> None:
    where = state.phase
    for prov, d in state.dislodged.items():
        # The space a unit was dislodged from holds its attacker, never the unit itself.
        assert prov in state.units and state.units[prov] != d.unit, f"{where}: {d.unit} still in {prov}"
        assert d.unit not in state.units.values()
    # Nothing else moves; each unit that appears is a dislodged unit at one of its retreats.
    assert all(adj.units.get(p) == u for p, u in state.units.items()), f"{where}: a unit moved in the retreats"
    options = {(d.unit.power, d.unit.type, loc) for d in state.dislodged.values() for loc in d.retreats}
    for prov in set(adj.units) - set(state.units):
        assert _unit_key(adj.units[prov]) in {(p, t.value, loc) for p, t, loc in options}, f"{where}: {adj.units[prov]} appeared"
    for r in adj.results:
        if type(r.order) is Retreat and r.result is Result.SUCCEEDS:
            seen.counts["retreats"] += 1
            assert adj.units[r.order.dest.split("/")[0]].power == r.order.power


def check_adjustment(v: Variant, state: GameState, adj: Adjudication, seen: Seen) -> None:
    rules, where, c = v.rules, state.phase, seen.counts
    after = adj.state
    for power in v.great_powers:
        before_units, centres = len(state.units_of(power)), len(state.centres_of(power))
        now = len(after.units_of(power))
        assert now <= centres, f"{where}: {power} keeps {now} units on {centres} centres"
        if before_units > centres:
            assert now == centres, f"{where}: {power} removed too many or too few units"
        else:
            assert before_units <= now
    for power in rules.minor_powers(v, state):
        if len(after.units_of(power)) > len(state.units_of(power)):
            c["minor units restored"] += 1
    c["civil-disorder removals"] += len(adj.disbanded)
    for r in adj.results:
        if type(r.order) is Build and r.result is Result.SUCCEEDS:
            c["builds"] += 1
        if type(r.order) is DeclareHome and r.result is Result.SUCCEEDS:
            c["homes declared"] += 1
    if state.extra.get("home_choice"):
        c["winters with a home choice"] += 1
        assert not after.extra.get("home_choice"), f"{where}: a home choice outlived the winter"


def play_checked(name: str, seed: int, years: int, disorder: dict[int, str]) -> Seen:
    v = load_variant(name)
    seen = Seen()
    steps = list(play_random_game(v, seed, years, civil_disorder=disorder))
    for i, (state, orders, adj) in enumerate(steps):
        check_position(v, state, seen)
        assert adj.phase == state.phase
        assert adj.state.phase in _next_phases(state.phase), f"{state.phase} followed by {adj.state.phase}"
        if state.phase.kind is PhaseKind.MOVEMENT:
            # A retreat phase follows exactly when some dislodged unit has somewhere to go.
            assert (adj.state.phase.kind is PhaseKind.RETREAT) == any(d.retreats for d in adj.dislodged.values())
            check_movement(v, state, orders, adj, seen)
        elif state.phase.kind is PhaseKind.RETREAT:
            check_retreat(v, state, adj, seen)
        else:
            check_adjustment(v, state, adj, seen)
        assert adj.winner is None or i == len(steps) - 1, "the game went on after a win"
        seen.counts[state.phase.kind.value] += 1
    final = steps[-1][2]
    check_position(v, final.state, seen)
    assert final.winner is None, f"{final.winner} won in {final.phase}: choose another seed (module docstring)"
    seen.years = final.state.phase.year - v.first_phase.year
    return seen


def _seeds_without_winner(name: str, years: int, disorder: dict[int, str], tries: int = 60) -> list[int]:
    """The helper used to choose the seeds above (not run by the tests)."""
    v = load_variant(name)
    return [
        seed
        for seed in range(tries)
        if not any(adj.winner for _, _, adj in play_random_game(v, seed, years, civil_disorder=disorder))
    ]


@pytest.mark.parametrize("game", [GAME_2006, GAME_V6], ids=["2006", "v6"])
def test_random_game_keeps_the_invariants(game):
    name, seed, years, disorder = game
    seen = play_checked(name, seed, years, disorder)
    assert seen.years >= years
    c = seen.counts
    # What the game went through, so that the invariants above were really exercised.
    for what in (
        "allocation succeeds",
        "allocation fails",
        "allocation void",
        "powers forfeiting",
        "identical orders won by two powers",
        "minor units destroyed",
        "minor units restored",
        "Retreat",
        "retreats",
        "builds",
        "civil-disorder removals",
        "convoyed moves",
        "new minor powers",
    ):
        assert c[what] > 0, f"the game never exercised: {what} ({dict(c)})"
    if name == "ambition":
        assert c["homes declared"] > 0 and c["winters with a home choice"] > 0, dict(c)


def test_same_seed_same_game():
    v = load_variant("ambition")
    a = [(s.phase, [str(o) for o in orders]) for s, orders, _ in play_random_game(v, 11, 3)]
    b = [(s.phase, [str(o) for o in orders]) for s, orders, _ in play_random_game(v, 11, 3)]
    assert a == b
