"""Run the Napoleonic Wars case files (cases/*.txt) through gm.casefile and the adjudicator, and
check what a case file cannot state: each bid's result and reason, the winner, control lost for
good across phases, the phase sequence, how players write bids and X orders, and a seeded random
game of twenty years with the rules' invariants checked after every phase."""
from __future__ import annotations

from pathlib import Path

import pytest

from gm.casefile import check
from gm.engine.adjudicator import adjudicate
from gm.engine.adjust import adjustment_counts
from gm.engine.graph import Terrain
from gm.engine.model import Phase, PhaseKind, Season, Unit, UnitType
from gm.engine.orders import Bid, Build, Deny, Loan
from gm.engine.parse import parse_order
from gm.lifecycle.report import build_report
from gm.randomgame import play_random_game
from gm.store.db import state_from_json, state_to_json
from gm.variants import load_variant
from gm.variants.napoleonic import ALIENATED, BLOCKADED, CONTROL, HELD_SINCE, SP_BANK, SP_LOANS

from tests.variants.casebook import CaseBook

CASES_DIR = Path(__file__).parent / "cases"
BOOK = CaseBook(CASES_DIR)
FILES, ALL, BY_ID, run, adj = BOOK.files, BOOK.all, BOOK.by_id, BOOK.run, BOOK.adj
V = load_variant("napoleonic")



def results(case_id: str) -> list[tuple[str, str, str, str]]:
    return [(r.order.power, str(r.order), r.result.value, r.reason) for r in adj(case_id).results]


def test_every_rule_has_a_file() -> None:
    assert {"nw_bids.txt", "nw_control.txt", "nw_passages.txt", "nw_builds.txt", "nw_victory.txt",
            "nw_supply_points.txt", "nw_blockades.txt", "nw_second_moves.txt", "nw_multiple.txt",
            "nw_promotion.txt"} <= {
        f.name for f in FILES}


@pytest.mark.parametrize("case_id", sorted(BY_ID))
def test_case(case_id: str) -> None:
    assert check(run(case_id)) == []


# --- bids ---------------------------------------------------------------------------------------
def test_the_game_starts_in_winter_1800_with_bids() -> None:
    state = V.initial_state()
    assert V.phase_label(state.phase) == "Winter 1800, Bidding"
    assert V.rules.controllers(V, state) == {m: None for m in
                                             ["Bavaria", "Denmark", "Hanover", "Naples", "Portugal", "Spain",
                                              "Sweden", "Turkey", "Wurzburg"]}
    nxt = adjudicate(V, state, []).state
    assert V.phase_label(nxt.phase) == "Spring 1801, Movement"
    assert nxt.units == state.units


def test_ip_entitlement_at_the_start() -> None:
    state = V.initial_state()
    assert {p: V.rules.points_available(V, state, p) for p in V.great_powers} == {
        "Austria": 12, "England": 9, "France": 12, "Prussia": 12, "Russia": 12}
    spring = state.with_(phase=state.phase.__class__(1801, Season.SPRING, PhaseKind.MOVEMENT))
    assert V.rules.points_available(V, spring, "England") is None  # IPs exist only in the bidding phase


def test_bid_results_and_reasons() -> None:
    assert results("nw.bid.5") == [
        ("England", "IP 3 Denmark FOR Prussia", "succeeds", ""),
        ("Prussia", "IP 2 Denmark", "succeeds", ""),
        ("Russia", "IP 4 Denmark", "fails", "Prussia controls Denmark"),
    ]
    assert results("nw.bid.2") == [
        ("France", "IP 3 Spain", "fails", "no power won Spain: it stays uncontrolled"),
        ("Austria", "IP 3 Spain", "fails", "no power won Spain: it stays uncontrolled"),
    ]
    lost = "all of England's bids are lost this winter: it bid 10 IPs and has 9"
    assert results("nw.bid.7")[:2] == [("England", "IP 5 Denmark", "fails", lost), ("England", "IP 5 Sweden", "fails", lost)]
    assert ("France", "IP 2 Naples", "void", "replaced by a later bid for the same minor power") in results("nw.bid.13")
    assert results("nw.bid.14")[0][2:] == ("void", "France is not a minor power")
    assert results("nw.bid.14")[1][2:] == ("void", "Portugal is not a major power: only a major power's bid can be backed")


def test_years_of_control_are_counted() -> None:
    assert adj("nw.bid.10").state.extra["control_years"]["Sweden"] == 4  # kept: a fourth year
    assert adj("nw.bid.11").state.extra["control_years"]["Sweden"] == 1  # taken: a first year
    assert adj("nw.bid.1").state.extra["control_years"]["Denmark"] == 1


def test_a_bidding_phase_follows_every_winter() -> None:
    after = adj("nw.build.1").state
    assert (after.phase.season, after.phase.kind, after.phase.year) == (Season.WINTER, PhaseKind.BIDDING, 1801)
    # A Fall with no adjustment to make goes straight to the bids.
    start = V.initial_state()
    fall = start.with_(phase=start.phase.__class__(1801, Season.FALL, PhaseKind.MOVEMENT))
    assert adjudicate(V, fall, []).state.phase == start.phase.__class__(1801, Season.WINTER, PhaseKind.BIDDING)


# --- control lost for good ----------------------------------------------------------------------
def test_lost_control_is_for_good() -> None:
    after = adj("nw.control.3").state
    assert after.extra[ALIENATED] == {"Spain": ["France"]}
    report = build_report(V, run("nw.control.3").state, adj("nw.control.3"), game="g", label="Fall 1801", late=[])
    assert report["notes"] == ["France has lost control of Spain for good (rule 4: its units entered Spain's "
                               "centres); the GM gives Spain to the power it judges most concerned to protect it"]
    assert {"minor": "Spain", "controller": None, "was": "France"} in report["control"]
    bidding = after.with_(phase=after.phase.__class__(1801, Season.WINTER, PhaseKind.BIDDING))
    bids = [Bid("France", None, "Spain", 9), Bid("Austria", None, "Spain", 1)]
    result = adjudicate(V, bidding, bids)
    assert [(r.order.power, r.result.value, r.reason) for r in result.results] == [
        ("France", "void", "France has lost control of Spain for good and cannot win it back"),
        ("Austria", "succeeds", ""),
    ]
    assert result.state.extra[CONTROL]["Spain"] == "Austria"


def test_uncontrolled_minor_units_obey_nobody() -> None:
    reasons = {o: (r, why) for _, o, r, why in results("nw.control.1")}
    assert reasons["A POR - AND"] == ("void", "the unit in Portugal belongs to Portugal")


# --- victory ------------------------------------------------------------------------------------
def test_winners() -> None:
    assert adj("nw.victory.1").winner == "Russia"
    assert adj("nw.victory.2").winner is None
    assert adj("nw.victory.3").winner == "England"
    assert V.rules.strength(V, adj("nw.victory.1").state)["Russia"] == 20


# --- how players write them ---------------------------------------------------------------------
@pytest.mark.parametrize("text, expected", [
    ("IP 3 Denmark", "IP 3 Denmark"),
    ("ip 3 denmark", "IP 3 Denmark"),
    ("IP: 3 Danish", "IP 3 Denmark"),
    ("3 IPs on Denmark", None),  # no keyword first: an order line, not read as a bid
    ("IP 3 IPs on Denmark", "IP 3 Denmark"),
    ("IP Denmark 3", "IP 3 Denmark"),
    ("Bid 4 Spain", "IP 4 Spain"),
    ("IP 2 Denmark for France", "IP 2 Denmark FOR France"),
    ("IP 2 Denmark (supporting France)", "IP 2 Denmark FOR France"),
    ("IP 2 for Denmark FOR England", "IP 2 Denmark"),  # backing oneself is one's own bid
    ("IP 0 Sweden", "IP 0 Sweden"),
])
def test_bid_spellings(text: str, expected: str | None) -> None:
    parsed = parse_order(V, text, "England", PhaseKind.BIDDING, V.initial_state())
    assert (str(parsed.order) if parsed.order is not None else None) == expected, parsed.error


def test_bid_refusals_say_why() -> None:
    state = V.initial_state()
    assert parse_order(V, "IP 3 Atlantis", "England", PhaseKind.BIDDING, state).error.startswith(
        "'Atlantis' is no minor power; the minor powers are Bavaria, Denmark")
    assert parse_order(V, "IP Denmark", "England", PhaseKind.BIDDING, state).error.startswith(
        "a bid names its IPs and the minor power")
    assert parse_order(V, "IP 3 Denmark", "England", PhaseKind.MOVEMENT, state).error == (
        "IP bids for minor powers are made in the winter bidding phase")
    assert parse_order(V, "A PAR - BUR", "France", PhaseKind.BIDDING, state).order is None


@pytest.mark.parametrize("text", ["F SKA X Den-Swe", "F Skagerrak X Denmark - Sweden", "Skagerrak deny Den to Swe",
                                  "F SKA denies passage DEN-SWE", "f ska x swe-den"])
def test_deny_spellings(text: str) -> None:
    parsed = parse_order(V, text, "England", PhaseKind.MOVEMENT, None)
    assert isinstance(parsed.order, Deny), parsed.error
    assert parsed.order.location == "SKA" and parsed.order.passage == frozenset({"DEN", "SWE"})


def test_x_is_no_order_word_where_there_are_no_passages() -> None:
    standard = load_variant("standard")
    assert parse_order(standard, "F NTH X Den-Swe", "England", PhaseKind.MOVEMENT, None).order is None


# --- a seeded random game -----------------------------------------------------------------------
def test_a_random_game_of_twenty_years_keeps_the_rules() -> None:
    """Every phase of a 20-year game with random orders (or until someone wins): the position
    stays legal (armies at sea only aboard their fleets), control goes only to major powers that
    may hold it, IPs are as rule 4 counts them, every winter ends with bids, and winter leaves no
    power more units than it may keep."""
    rules = V.rules
    phases = 0
    seen_kinds: set[PhaseKind] = set()
    alienations = multiples = aboard = promotions = 0
    for seed in ("nw-1", "nw-2"):
        for state, orders, a in play_random_game(V, seed, 20, stop_at_winner=False):
            phases += 1
            seen_kinds.add(state.phase.kind)
            nxt = a.state
            assert state_from_json(state_to_json(nxt)) == nxt  # the position is stored whole
            for prov, unit in nxt.units.items():
                terrain = V.map.provinces[prov].terrain
                assert terrain is not Terrain.IMPASSABLE
                assert (terrain is not Terrain.SEA) if unit.type is UnitType.ARMY else unit.location in V.map.fleet_locations(prov)
                assert unit.count >= 1 and unit.armies >= 0 and (unit.type is UnitType.FLEET or not unit.armies)
                if terrain is Terrain.SEA:
                    assert unit.armies <= unit.count  # an army at sea is aboard a fleet of its own
                multiples += not unit.single
                aboard += terrain is Terrain.SEA and unit.armies > 0
            assert all(V.map.provinces[c].supply_centre for c in nxt.supply_centres)
            control = rules.controllers(V, nxt)
            alienated = nxt.extra.get(ALIENATED, {})
            for minor, major in control.items():
                assert major is None or (major in rules.major_powers(V, nxt) and major not in alienated.get(minor, []))
            alienations = max(alienations, sum(len(v) for v in alienated.values()))
            if state.phase.kind is PhaseKind.BIDDING:
                assert nxt.phase.season is Season.SPRING and nxt.phase.year == state.phase.year + 1
                majors = rules.major_powers(V, state)
                centres = {p: sum(1 for o in state.supply_centres.values() if o == p) for p in majors}
                for p in majors:
                    mine = sum(1 for c in rules.controllers(V, state).values() if c == p)
                    assert rules.points_available(V, state, p) == 3 * centres[p] + 2 * mine
            if state.phase.kind is PhaseKind.ADJUSTMENT:
                assert nxt.phase.kind is PhaseKind.BIDDING
                assert not {p: n for p, n in adjustment_counts(V, nxt).items() if n < 0}
            changes = rules.power_changes(V, state, nxt)
            for old, new in changes.items():  # rule 12: the old major is a minor power under the new one
                # (unless the new one's units stand in its centres: rule 4 takes it away at once)
                assert rules.controllers(V, nxt)[old] == new or new in alienated.get(old, [])
                assert len(nxt.home_centres[new]) >= 4
                assert sum(1 for o in state.supply_centres.values() if o == new) >= 4
            promotions += len(changes)
            assert len(rules.major_powers(V, nxt)) == 5
            if a.winner:
                assert rules.strength(V, nxt)[a.winner] >= V.facts["victory_exceptions"].get(a.winner, 20)  # type: ignore[union-attr]
        assert V.phase_label(nxt.phase) == "Spring 1820, Movement"  # twenty years played out, winners or not
    assert phases > 180
    assert seen_kinds == set(PhaseKind)
    assert alienations > 0  # the random armies lose their allies now and then
    assert multiples > 50 and aboard > 10  # units merge, armies go to sea (rules 6 and 7)
    assert promotions > 0  # a minor power becomes major now and then (rule 12)


# --- Supply Points ------------------------------------------------------------------------------
def bank_after(case_id: str) -> dict[str, int]:
    return adj(case_id).state.extra[SP_BANK]  # type: ignore[return-value]


def test_the_winter_accounts() -> None:
    assert bank_after("nw.sp.1")["France"] == 4  # 6 centres, 4 units: 6 banked; 2 converted
    assert bank_after("nw.sp.1")["Austria"] == 0  # as many units as centres
    assert bank_after("nw.sp.4")["France"] == 3 and bank_after("nw.sp.4")["England"] == 3  # lent 3
    assert bank_after("nw.sp.4")["England"] == 3  # England's fourth unit is free: nothing owed for it
    assert adj("nw.sp.4").state.extra[SP_LOANS] == [["France", "England", 3]]
    assert ("Russia", "CONVERT 1", "void", "Russia has 0 SPs in the bank") in results("nw.sp.3")


def test_a_loan_is_repaid_the_next_winter_unless_renewed() -> None:
    after = adj("nw.sp.4").state
    winter = after.with_(phase=after.phase.__class__(1802, Season.WINTER, PhaseKind.BIDDING))
    repaid = adjudicate(V, winter, []).state
    assert repaid.extra[SP_BANK]["France"] == 6 + 6 and repaid.extra[SP_BANK]["England"] == 0
    assert repaid.extra[SP_LOANS] == []
    renewed = adjudicate(V, winter, [Loan("France", None, "England", 3)]).state
    assert renewed.extra[SP_BANK]["France"] == 9 and renewed.extra[SP_BANK]["England"] == 3
    assert renewed.extra[SP_LOANS] == [["France", "England", 3]]


def test_banked_sps_keep_units_and_a_debt_costs_them() -> None:
    start = V.initial_state()
    winter = start.with_(phase=start.phase.__class__(1802, Season.WINTER, PhaseKind.ADJUSTMENT))
    rich = winter.with_(extra={**winter.extra, SP_BANK: {"France": 7}})
    assert V.rules.unit_allowance(V, rich, "France", 4) == 6  # 7 SPs keep two more units
    # Every centre is occupied, but a build may join the power's own unit there (rule 7).
    assert adjustment_counts(V, rich)["France"] == 2
    poor = winter.with_(extra={**winter.extra, SP_BANK: {"Russia": -1}})
    assert adjustment_counts(V, poor)["Russia"] == -1  # a debt costs a unit
    assert V.rules.unit_allowance(V, rich, "France", 0) == 0  # no centre: no unit, whatever the bank


def test_sp_spellings() -> None:
    state = V.initial_state()
    for text, expected in [("LOAN 3 France", "LOAN 3 France"), ("loan 3 SPs to the French", None),
                           ("Lend 2 SP to Russia", "LOAN 2 Russia"), ("CONVERT 2", "CONVERT 2"),
                           ("convert 2 SPs into IPs", "CONVERT 2")]:
        parsed = parse_order(V, text, "England", PhaseKind.BIDDING, state)
        assert (str(parsed.order) if parsed.order else None) == expected, (text, parsed.error)
    assert parse_order(V, "CONVERT 2", "England", PhaseKind.MOVEMENT, state).error == (
        "Supply Points are lent and converted in the winter bidding phase")


def test_the_ack_counts_converted_sps_and_shows_the_bank() -> None:
    state = adj("nw.sp.4").state.with_(phase=V.initial_state().phase.__class__(1802, Season.WINTER, PhaseKind.BIDDING))
    rules = V.rules
    assert rules.points_balance(V, state, "France", [("CONVERT 1", 1), ("IP 12 Spain", 12), ("LOAN 1 Russia", 1)]) == (
        6 * 3 + 2, 12)  # France holds six centres in this position
    assert rules.private_status(V, state, "England") == ["Supply Points in the bank: 3",
                                                         "you owe France 3 SPs, repaid from your bank this winter"]
    notes = rules.private_notes(V, run("nw.sp.4").state, adj("nw.sp.4").state)
    assert notes["France"] == ["Supply Points in the bank after the winter: 3", "England owes you 3 SPs next winter"]


# --- blockades ----------------------------------------------------------------------------------
def test_a_blockade_that_held_bars_fleet_builds_that_winter() -> None:
    after = adj("nw.blockade.1").state
    assert after.extra[BLOCKADED] == ["BRE"]
    assert "blockaded" not in adj("nw.blockade.2").state.extra
    winter = after.with_(phase=after.phase.__class__(1801, Season.WINTER, PhaseKind.ADJUSTMENT),
                         units={p: u for p, u in after.units.items() if p != "PIC"})
    result = adjudicate(V, winter, [Build("France", UnitType.FLEET, "BRE"), Build("France", UnitType.FLEET, "MAR"),
                                    Build("France", UnitType.ARMY, "BRE")])
    assert [(str(r.order), r.result.value, r.reason) for r in result.results] == [
        ("Build F BRE", "void", "Brest is blockaded: no fleet is built there this winter (rule 8)"),
        ("Build F MAR", "succeeds", ""),
        ("Build A BRE", "succeeds", ""),
    ]
    spring = adjudicate(V, result.state, []).state  # the bidding phase ends the winter
    assert BLOCKADED not in spring.extra and spring.phase.season is Season.SPRING


@pytest.mark.parametrize("text", ["F MAO B Bre", "F Mid-Atlantic Ocean blockades Brest", "mao blockade bre"])
def test_blockade_spellings(text: str) -> None:
    parsed = parse_order(V, text, "England", PhaseKind.MOVEMENT, None)
    assert str(parsed.order).endswith("MAO B BRE"), parsed.error


# --- second moves -------------------------------------------------------------------------------
def test_second_moves_wait_for_the_first_retreats() -> None:
    """nw.second.7: the French dislodge the English fleet in the North Sea; the English fleet in
    the Channel moves to the Mid-Atlantic only once the retreat is made."""
    retreat = adj("nw.second.7").state
    assert V.phase_label(retreat.phase) == "Spring 1801, Retreat"
    assert retreat.extra["second_moves"] == [["move", "England", "ENG", "MAO"]]
    assert "ENG" in retreat.units  # not yet moved
    after = adjudicate(V, retreat, [parse_order(V, "F NTH R NWG", "England", PhaseKind.RETREAT, retreat).order])
    assert [(str(r.order), r.result.value) for r in after.results] == [
        ("F NTH R NWG", "succeeds"), ("F ENG - MAO (second move)", "succeeds")]
    assert {p: str(u) for p, u in after.state.units.items() if u.power == "England"} == {"NWG": "F NWG", "MAO": "F MAO"}
    assert "second_moves" not in after.state.extra and after.state.phase.season is Season.FALL


def test_a_second_move_after_retreats_dislodges_into_a_second_retreat_phase() -> None:
    start = V.initial_state()
    spring = start.with_(
        phase=start.phase.__class__(1801, Season.SPRING, PhaseKind.MOVEMENT),
        units={u.province: u for u in [
            Unit("England", UnitType.FLEET, "NTH"), Unit("England", UnitType.FLEET, "ENG"),
            Unit("England", UnitType.FLEET, "IRI"), Unit("France", UnitType.FLEET, "BEL"),
            Unit("France", UnitType.FLEET, "HEL"), Unit("France", UnitType.FLEET, "MAO")]})
    texts = {"England": ["F NTH H", "F ENG H THEN MAO", "F IRI H THEN S F ENG - MAO"],
             "France": ["F BEL - NTH", "F HEL S F BEL - NTH", "F MAO H"]}
    orders = [parse_order(V, t, p, PhaseKind.MOVEMENT, spring).order for p, ts in texts.items() for t in ts]
    first = adjudicate(V, spring, orders)
    assert V.phase_label(first.state.phase) == "Spring 1801, Retreat"
    second = adjudicate(V, first.state, [])  # the English fleet is not retreated: it disbands
    assert V.phase_label(second.state.phase) == "Spring 1801, Second retreat"
    assert [str(d.unit) for d in second.state.dislodged.values()] == ["F MAO"]
    assert second.state.dislodged["MAO"].unit.power == "France"
    assert [u.power for u in second.disbanded] == ["England"]
    third = adjudicate(V, second.state, [parse_order(V, "F MAO R NAO", "France", PhaseKind.SECOND_RETREAT,
                                                     second.state).order])
    assert third.state.units["NAO"].power == "France" and V.phase_label(third.state.phase) == "Fall 1801, Movement"


@pytest.mark.parametrize("text, expected", [
    ("F NTH - ENG - MAO", "F NTH - ENG - MAO"),
    ("F North Sea - English Channel - Mid-Atlantic Ocean", "F NTH - ENG - MAO"),
    ("F NTH - ENG THEN MAO", "F NTH - ENG - MAO"),
    ("F IRI H THEN S F ENG - MAO", "F IRI H THEN F IRI S F ENG - MAO"),
    ("F IRI S F NTH - ENG then S F ENG - MAO", "F IRI S F NTH - ENG THEN F IRI S F ENG - MAO"),
    ("A WAL - ENG - MAO", "A WAL - MAO VIA CONVOY"),  # armies: a convoy route, as ever
])
def test_second_move_spellings(text: str, expected: str) -> None:
    parsed = parse_order(V, text, "England", PhaseKind.MOVEMENT, None)
    assert str(parsed.order) == expected, parsed.error
    again = parse_order(V, expected, "England", PhaseKind.MOVEMENT, None)  # the canonical form reads back
    assert str(again.order) == expected


def test_second_moves_only_where_the_rules_have_them() -> None:
    standard = load_variant("standard")
    # Elsewhere a fleet's route is no second move, and no convoy either: only armies are convoyed.
    assert parse_order(standard, "F NTH - ENG - MAO", "England", PhaseKind.MOVEMENT, None).error == \
        "a fleet cannot be convoyed: F NTH - ENG - MAO"
    assert parse_order(V, "F NTH - ENG THEN ENG - MAO THEN NAO", "England", PhaseKind.MOVEMENT, None).order is None


# --- promotion (rule 12) ------------------------------------------------------------------------
def test_a_promotion_swaps_the_powers_and_keeps_the_player_s_bank() -> None:
    a = adj("nw.promotion.1")
    after = a.state
    assert ("France", "PROMOTE Spain", "succeeds", "") in results("nw.promotion.1")
    assert V.rules.major_powers(V, after) == ["Austria", "England", "Spain", "Prussia", "Russia"]
    assert V.rules.power_changes(V, run("nw.promotion.1").state, after) == {"France": "Spain"}
    # Spain's own two home centres, and Morocco and Portugal (held as long: alphabetical)
    assert after.home_centres["Spain"] == {"MAD", "VAL", "MOR", "POR"}
    assert after.home_centres["France"] == V.initial_state().home_centres["France"]  # its home borders now
    assert after.extra[CONTROL]["France"] == "Spain" and "Spain" not in after.extra[CONTROL]
    note = V.rules.public_notes(V, run("nw.promotion.1").state, after)[0]
    assert note == ("France makes Spain its major power (rule 12): Spain's home centres are now Madrid, Morocco, "
                    "Portugal, Valencia; France is a minor power, controlled by Spain")


def test_promotion_refusals_say_why() -> None:
    assert results("nw.promotion.2")[-1][2:] == (
        "void", "Spain holds 3 supply centres; a minor power is promoted with at least 4 (rule 12)")
    assert results("nw.promotion.3")[-1][2:] == ("void", "France does not control Spain")


def test_the_new_home_centres_are_those_held_longest() -> None:
    start = run("nw.promotion.1").state
    held = start.with_(supply_centres={**start.supply_centres, "TUN": "Spain", "ALG": "Spain"},
                       extra={**start.extra, HELD_SINCE: {"POR": 1804, "MOR": 1802, "TUN": 1802, "ALG": 1803}})
    after = adjudicate(V, held, [parse_order(V, "PROMOTE Spain", "France", PhaseKind.MOVEMENT).order]).state  # type: ignore[list-item]
    assert after.home_centres["Spain"] == {"MAD", "VAL", "MOR", "TUN"}


def test_centres_taken_are_dated_in_the_autumn() -> None:
    state = V.initial_state().with_(phase=Phase(1803, Season.FALL, PhaseKind.MOVEMENT))
    a = adjudicate(V, state, [parse_order(V, "A BOR - AST", "France", PhaseKind.MOVEMENT, state).order,  # type: ignore[list-item]
                              parse_order(V, "A PAR - BUR", "France", PhaseKind.MOVEMENT, state).order])  # type: ignore[list-item]
    assert a.state.extra.get(HELD_SINCE, {}) == {}  # no centre changed hands
    state = state.with_(units={**state.units, "HRG": Unit("France", UnitType.ARMY, "HRG")})
    del state.units["PAR"]
    a = adjudicate(V, state, [parse_order(V, "A HRG H", "France", PhaseKind.MOVEMENT, state).order])  # type: ignore[list-item]
    assert a.state.extra[HELD_SINCE] == {"HRG": 1803}


def test_after_a_promotion_the_old_major_power_is_bid_for() -> None:
    after = adj("nw.promotion.1").state
    winter = after.with_(phase=Phase(1803, Season.WINTER, PhaseKind.BIDDING),
                         supply_centres={**after.supply_centres, "LON": "England", "LVP": "England", "SCO": "England"})
    orders = [Bid("England", None, "France", 9), Bid("Spain", None, "France", 1), Bid("France", None, "Denmark", 1)]
    a = adjudicate(V, winter, orders)
    assert V.rules.controllers(V, a.state)["France"] == "England"
    assert [r.reason for r in a.results if r.order.power == "France"] == ["France is not a major power and has no IPs"]


@pytest.mark.parametrize("text, expected", [
    ("PROMOTE Spain", "PROMOTE Spain"), ("promote spain to major power", "PROMOTE Spain"),
    ("Promote: Two Sicilies", "PROMOTE Naples")])
def test_promote_spellings(text: str, expected: str) -> None:
    assert str(parse_order(V, text, "France", PhaseKind.MOVEMENT).order) == expected


def test_promote_of_no_power_says_so() -> None:
    assert parse_order(V, "PROMOTE Narnia", "France", PhaseKind.MOVEMENT).error == \
        "'Narnia' is no power of Napoleonic Wars: PROMOTE <minor power>"
