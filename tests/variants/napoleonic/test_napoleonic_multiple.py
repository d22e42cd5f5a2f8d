"""Multiple units and army/fleet combinations in Napoleonic Wars (rules 6 to 8, Multiplicity II and
the Full Abstraction A/F rules): what the case file cases/nw_multiple.txt cannot state. Each
result's reason, the rations of armies at sea across turns, builds and removals of parts, how
players write the orders, the acknowledgement check, loss of control and Supply Point upkeep
counted by army and fleet, and storage of the position."""
from __future__ import annotations

import re

import pytest

from gm.casefile import CaseRun, read_cases, run_case
from gm.engine.adjudicator import adjudicate, check_order
from gm.engine.adjust import adjustment_counts
from gm.engine.model import GameState, Phase, PhaseKind, Season, Unit, UnitType
from gm.engine.orders import Build, Disband, Hold, Move
from gm.engine.parse import parse_order
from gm.store.db import state_from_json, state_to_json
from gm.variants import load_variant
from gm.variants.napoleonic import BLOCKADED

from tests.variants.napoleonic.test_napoleonic_cases import CASES_DIR

V = load_variant("napoleonic")
CASES = {c.id: c for c in read_cases(CASES_DIR / "nw_multiple.txt")}


def run(case_id: str) -> CaseRun:
    return run_case(CASES[case_id])


def outcome(case_id: str) -> dict[str, tuple[str, str]]:
    a = run(case_id).adjudication
    assert a is not None
    return {str(r.order): (r.result.value, r.reason) for r in a.results}


def position(units: list[Unit], season: Season = Season.SPRING, kind: PhaseKind = PhaseKind.MOVEMENT,
             year: int = 1801) -> GameState:
    start = V.initial_state()
    return start.with_(phase=Phase(year, season, kind), units={u.province: u for u in units})


def unit(text: str, power: str = "England") -> Unit:
    """'2A BUR', 'A/F ENG', 'A/2F NAO' as a unit of `power`."""
    kind, location = text.split()
    counts = {"A": 0, "F": 0}
    for number, letter in re.findall(r"(\d*)([AF])", kind):
        counts[letter] += int(number or 1)
    return Unit.of(power, location, counts["A"], counts["F"])


# --- results and their reasons --------------------------------------------------------------------
def test_a_merge_and_a_boarding_succeed_and_say_nothing_more() -> None:
    assert outcome("nw.multiple.2")["A PAR - BUR MERGE"] == ("succeeds", "")
    assert outcome("nw.multiple.2")["A HRG - BUR"][0] == "fails"
    assert outcome("nw.multiple.14")["A WAL - ENG MERGE"] == ("succeeds", "")


def test_the_embarkation_that_fails_says_why() -> None:
    # rule 6: "the embarkation fails because the fleet was in NTH at the time"
    assert outcome("nw.multiple.16")["A WAL - ENG MERGE"] == (
        "void", "no fleet of England is in English Channel or gets there with its first move, to carry the army")
    assert outcome("nw.multiple.16")["F NWG - NTH"][0] == "succeeds"
    assert outcome("nw.multiple.16")["F NTH - ENG (second move)"][0] == "succeeds"


def test_a_landing_from_a_second_move_is_void() -> None:
    result, reason = outcome("nw.multiple.18")["A AEG - CON"]
    assert (result, reason) == ("void", "no fleet carried the army to Aegean Sea")


def test_a_unit_s_parts_give_orders_of_their_own() -> None:
    assert outcome("nw.multiple.35")["1A BUR S A PAR - PIC"] == ("succeeds", "")
    assert outcome("nw.multiple.35")["1A BUR S A MAR - HRG"] == ("succeeds", "")
    assert outcome("nw.multiple.36")["1A BUR S A PAR - PIC"] == ("cut", "cut by the attack from Palatinate")
    assert outcome("nw.multiple.36")["1A BUR - HRG"] == ("succeeds", "")
    assert outcome("nw.multiple.37")["2A BUR S A PAR - PIC"] == ("void", "replaced by a later order for the same unit")


def test_the_fast_ferry_refuses_two_seas() -> None:
    result, reason = outcome("nw.multiple.21")["A LON - POR"]
    assert result == "void" and "one sea only" in reason


def test_a_two_fleet_blockade_holds_against_one_fleet_and_falls_to_two() -> None:
    assert outcome("nw.multiple.23")["2F MAO B BRE"] == ("succeeds", "")
    assert "BRE" in run("nw.multiple.23").adjudication.state.extra[BLOCKADED]  # type: ignore[union-attr,operator]
    assert outcome("nw.multiple.24")["2F MAO B BRE"][0] == "cut"
    assert outcome("nw.multiple.25")["2F MAO B BRE"] == ("succeeds", "")


def test_a_fleet_carrying_an_army_does_not_blockade() -> None:
    state = position([unit("A/F MAO")], Season.FALL)
    order = parse_order(V, "F MAO B Bre", "England", PhaseKind.MOVEMENT, state).order
    assert order is not None
    reason = check_order(V, state, order)
    assert reason is not None and reason.startswith("a fleet carrying an army does not blockade")


def test_a_part_a_unit_lacks_is_refused() -> None:
    state = position([unit("2A BUR", "France")])
    order = parse_order(V, "3A BUR - PIC", "France", PhaseKind.MOVEMENT, state).order
    assert check_order(V, state, order) == "the unit in Burgundy is 2A, not 3A"  # type: ignore[arg-type]
    order = parse_order(V, "F BUR H", "France", PhaseKind.MOVEMENT, state).order
    assert check_order(V, state, order) == "the unit in Burgundy is 2A: it has no fleet"  # type: ignore[arg-type]


def test_armies_aboard_are_not_left_at_sea() -> None:
    state = position([unit("A/F ENG")])
    order = parse_order(V, "1F ENG - MAO", "England", PhaseKind.MOVEMENT, state).order
    assert check_order(V, state, order) == "the armies in English Channel would be left at sea without fleets to carry them"  # type: ignore[arg-type]
    # 'F ENG - MAO' names the fleets, and at sea the army goes with them
    a = adjudicate(V, state, [Move("England", UnitType.FLEET, "ENG", "MAO")])
    assert str(a.units["MAO"]) == "A/F MAO" and "ENG" not in a.units


def test_an_army_goes_to_sea_only_aboard() -> None:
    state = position([unit("A WAL")])
    reason = check_order(V, state, Move("England", UnitType.ARMY, "WAL", "ENG"))
    assert reason == "an army goes to sea only aboard a fleet of its power: E English Channel"


def test_the_acknowledgement_accepts_a_boarding_and_a_landing_that_need_a_fleet_s_move() -> None:
    state = position([unit("A WAL"), unit("F NTH")])
    for text in ("A WAL E ENG", "A ENG D PIC"):
        order = parse_order(V, text, "England", PhaseKind.MOVEMENT, state).order
        assert order is not None and check_order(V, state, order) is None, text


# --- rations ---------------------------------------------------------------------------------------
def test_an_army_at_sea_four_turns_starves_and_its_fleet_sails_on() -> None:
    state = position([unit("A/F NAO")])
    seen = []
    for _ in range(4):
        a = adjudicate(V, state, [Hold("England", None, "NAO")])
        state = a.state
        while state.phase.kind is not PhaseKind.MOVEMENT:  # winters
            state = adjudicate(V, state, []).state
        seen.append((a.units.get("NAO") and a.state.units["NAO"].designation, a.state.units["NAO"].at_sea,
                     [str(u) for u in a.disbanded]))
    assert seen == [("A/F", 1, []), ("A/F", 2, []), ("A/F", 3, []), ("F", 0, ["A NAO"])]


def test_an_army_landed_in_time_lives_and_its_count_follows_the_fleet() -> None:
    state = position([unit("A/F NAO")])
    a = adjudicate(V, state, [Move("England", UnitType.FLEET, "NAO", "IRI")])
    assert a.state.units["IRI"].at_sea == 1  # the count goes with the unit
    a = adjudicate(V, a.state, [Move("England", UnitType.ARMY, "IRI", "IRE")])
    assert str(a.state.units["IRE"]) == "A IRE" and a.state.units["IRI"].at_sea == 0


# --- adjustments -----------------------------------------------------------------------------------
def winter(units: list[Unit], centres: dict[str, str] | None = None) -> GameState:
    state = position(units, Season.WINTER, PhaseKind.ADJUSTMENT)
    return state.with_(supply_centres={**state.supply_centres, **(centres or {})})


def test_a_build_joins_the_power_s_own_unit() -> None:
    state = winter([unit("A PAR", "France"), unit("A BRE", "France")])
    assert adjustment_counts(V, state)["France"] == 2  # four centres, two units
    a = adjudicate(V, state, [Build("France", UnitType.ARMY, "PAR"), Build("France", UnitType.FLEET, "BRE")])
    assert [r.result.value for r in a.results] == ["succeeds", "succeeds"]
    assert str(a.units["PAR"]) == "2A PAR" and str(a.units["BRE"]) == "A/F BRE"


def test_a_removal_takes_one_army_or_fleet_unless_told_more() -> None:
    state = winter([unit("3A PAR", "France"), unit("2A BRE", "France")], {"MAR": "Austria", "BOR": "Austria"})
    assert adjustment_counts(V, state)["France"] == -3  # five armies on two centres
    a = adjudicate(V, state, [Disband("France", UnitType.ARMY, "PAR"), Disband("France", UnitType.ARMY, "BRE", part=(2, 0))])
    assert [r.result.value for r in a.results] == ["succeeds", "succeeds"]
    assert str(a.units["PAR"]) == "2A PAR" and "BRE" not in a.units


def test_civil_disorder_at_sea_removes_the_army_before_its_fleet() -> None:
    # one removal due: the unit farthest from home loses a part, fleets first (2000 rulebook),
    # except that an army at sea never outlives the fleet carrying it
    state = winter([unit("A/F NAO", "France"), unit("A PAR", "France")], {"MAR": "Austria", "BOR": "Austria"})
    assert adjustment_counts(V, state)["France"] == -1
    a = adjudicate(V, state, [])
    assert [str(u) for u in a.disbanded] == ["A NAO"] and str(a.units["NAO"]) == "F NAO"
    state = winter([unit("A/2F NAO", "France"), unit("A PAR", "France")], {"MAR": "Austria", "BOR": "Austria"})
    assert adjustment_counts(V, state)["France"] == -2
    a = adjudicate(V, state, [])
    assert [str(u) for u in a.disbanded] == ["F NAO", "A NAO"] and str(a.units["NAO"]) == "F NAO"


def test_removing_the_fleet_under_an_army_at_sea_is_refused() -> None:
    state = winter([unit("A/F NAO", "France")], {c: "Austria" for c in ("PAR", "MAR", "BOR", "BRE")} | {"LON": "France"})
    a = adjudicate(V, state, [Disband("France", UnitType.FLEET, "NAO")])
    assert a.results[0].result.value == "void" and "left without fleets" in a.results[0].reason


# --- the rest of the rules count armies and fleets -------------------------------------------------
def test_supply_point_upkeep_counts_each_army_and_fleet() -> None:
    state = position([unit("2A PAR", "France"), unit("A/F BRE", "France")], Season.WINTER, PhaseKind.BIDDING)
    # four centres (12 SPs) less four armies and fleets (12 SPs)
    assert V.rules.accounts(V, state)["France"] == 0


def test_a_multiple_unit_in_a_minor_power_s_centre_is_more_than_one_unit() -> None:
    state = V.rules.with_control(V, position([unit("2A BAV", "Austria")], Season.FALL), {"Bavaria": ("Austria", 1)})
    a = adjudicate(V, state, [])
    assert V.rules.controllers(V, a.state)["Bavaria"] is None


def test_the_position_is_stored_whole() -> None:
    state = position([unit("2A/3F MAO", "France"), Unit("France", UnitType.FLEET, "NAO", 1, 1, 2), unit("A PAR", "France")])
    assert state_from_json(state_to_json(state)) == state


# --- how players write them ------------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("2A Bur - Pic", "2A BUR - PIC"),
    ("1A BUR - PIC", "1A BUR - PIC"),
    ("A/F English Channel - Mid-Atlantic", "A/F ENG - MAO"),
    ("A/2F MAO H", "A/2F MAO H"),
    ("A Mar merge Bur", "A MAR - BUR MERGE"),
    ("A Mar - Bur merge", "A MAR - BUR MERGE"),
    ("A Mar merges into Burgundy", "A MAR - BUR MERGE"),
    ("A(Wal) E ENG", "A WAL - ENG MERGE"),
    ("A Wales embarks on F English Channel", "A WAL - ENG MERGE"),
    ("A(Tun) E F(BOT)-ION", "A TUN E F BOT - ION"),
    ("A(ION) D Bal", "A ION - BAL"),
    ("A/F Ionian Sea lands Balkans", "A/F ION - BAL"),
    ("F(NTH)-ENG-MAO", "F NTH - ENG - MAO"),
    ("2F(MAO) B Bre", "2F MAO B BRE"),
    ("2F SKA X Den-Swe", "2F SKA X DEN-SWE"),
    ("2A BUR S A PAR - PIC", "2A BUR S A PAR - PIC"),
])
def test_spellings(text: str, expected: str) -> None:
    parsed = parse_order(V, text, "France", PhaseKind.MOVEMENT)
    assert parsed.error is None and str(parsed.order) == expected
    again = parse_order(V, expected, "France", PhaseKind.MOVEMENT)
    assert again.order == parsed.order  # the canonical text reads back as the same order


@pytest.mark.parametrize("text, expected", [("Remove 2A Par", "2A PAR D"), ("Remove A/F Bre", "A/F BRE D"),
                                            ("Build A Par", "Build A PAR")])
def test_winter_spellings(text: str, expected: str) -> None:
    parsed = parse_order(V, text, "France", PhaseKind.ADJUSTMENT)
    assert parsed.error is None and str(parsed.order) == expected


def test_a_build_of_several_is_as_many_builds() -> None:
    state = winter([unit("A PAR", "France")])
    assert adjustment_counts(V, state)["France"] == 3
    orders = [parse_order(V, text, "France", PhaseKind.ADJUSTMENT, state).order for text in
              ("Build 2A Par", "Build A/F Bre", "Build A Mar")]
    a = adjudicate(V, state, orders)  # type: ignore[arg-type]
    assert [(str(r.order), r.result.value, r.reason) for r in a.results] == [
        ("Build 2A PAR", "succeeds", ""), ("Build A/F BRE", "void", "France has only 1 build left"),
        ("Build A MAR", "succeeds", "")]
    assert str(a.units["PAR"]) == "3A PAR" and str(a.units["MAR"]) == "A MAR"


@pytest.mark.parametrize("text", ["2A Par - Bur", "A Mar - Bur merge", "A/F Bre H"])
def test_other_variants_have_no_multiple_units(text: str) -> None:
    parsed = parse_order(load_variant("standard"), text, "France", PhaseKind.MOVEMENT)
    assert parsed.order is None and "has no multiple units" in parsed.error  # type: ignore[operator]


def test_other_variants_read_d_and_e_as_before() -> None:
    standard = load_variant("standard")
    assert parse_order(standard, "A Ion D Gre", "Italy", PhaseKind.MOVEMENT).order is None
    assert str(parse_order(standard, "A Par D", "France", PhaseKind.RETREAT).order) == "A PAR D"
