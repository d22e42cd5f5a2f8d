"""1700AD II's turns of impulses (gm/engine/impulses.py): the case files (cases/*.txt), what a case
file cannot state (each step's result and reason, the garrisons lost, the phase sequence, how
players write the rule 6 notation), and a seeded random game with the rules' invariants checked
after every turn."""
from __future__ import annotations

from pathlib import Path

import pytest

from gm.casefile import check, order_results
from gm.engine.adjudicator import adjudicate
from gm.engine.adjust import supply_needed
from gm.engine.impulses import GARRISONS_LOST, OCCUPIED, PERMITS
from gm.engine.model import PhaseKind, Season, Unit, UnitType
from gm.engine.orders import Build, Retreat, Step, Steps
from gm.engine.parse import order_texts, parse_order
from gm.engine.results import Result
from gm.randomgame import play_random_game
from gm.variants import load_variant

from tests.variants.casebook import CaseBook

BOOK = CaseBook(Path(__file__).parent / "cases")
BY_ID, run, adj = BOOK.by_id, BOOK.run, BOOK.adj
V = load_variant("1700ad")


@pytest.mark.parametrize("case_id", sorted(BY_ID))
def test_case(case_id: str) -> None:
    assert check(run(case_id)) == []


def steps(case_id: str) -> list[tuple[str, int, Result, str]]:
    return [(str(r.order.order), r.order.impulse, r.result, r.reason) for r in adj(case_id).results if type(r.order) is Step]


def test_one_step_an_impulse() -> None:
    assert steps("ad.impulses.1") == [("A PAR - BUR", 1, Result.SUCCEEDS, ""), ("A BUR - LYO", 2, Result.SUCCEEDS, "")]


def test_a_second_step_made_senseless_is_a_hold_with_the_reason() -> None:
    (first, second, spanish) = steps("ad.impulses.2")
    assert first[2] is Result.FAILS and "bounced" in first[3]
    assert second[:3] == ("A BUR - ALS", 2, Result.VOID)
    assert "is in Paris" in second[3] and "it stands" in second[3]


def test_a_double_action_is_made_in_the_second_impulse() -> None:
    assert steps("ad.impulses.4") == [("A FIN - KAR", 2, Result.SUCCEEDS, "")]
    shown = [r for r in adj("ad.impulses.4").results if type(r.order) is Step]
    assert str(shown[0].order) == "A FIN - KAR (x2) (impulse 2)"


def test_a_first_impulse_support_of_a_double_move_is_reported_with_it() -> None:
    counted = [s for s in steps("ad.impulses.7") if s[0].startswith("A LIV S")]
    assert counted == [("A LIV S A FIN - KAR", 1, Result.SUCCEEDS, "counted with the move at double strength")]
    cut = [s for s in steps("ad.impulses.8") if s[0].startswith("A LIV S")]
    assert cut[0][2] is Result.CUT


def test_too_many_points_are_refused_with_the_reason() -> None:
    (r,) = [r for r in adj("ad.impulses.9").results]
    assert r.result is Result.VOID and "2 impulse points" in r.reason and "spend 3" in r.reason


def test_retreats_as_ordered_and_as_the_rules_make_them() -> None:
    ordered = [r for r in adj("ad.impulses.10").results if type(r.order) is Retreat]
    assert [(str(r.order), r.result, r.reason) for r in ordered] == [("A LIV R KUR", Result.SUCCEEDS, "")]
    automatic = [r for r in adj("ad.impulses.4").results if type(r.order) is Retreat]
    assert [(str(r.order), r.reason) for r in automatic] == [("A KAR R NOV", "made by the rules: toward the nearest centre")]
    assert adj("ad.impulses.11").disbanded and adj("ad.impulses.11").disbanded[0].province == "KAR"


def test_removals_beyond_those_due_are_void() -> None:
    results = {str(r.order): (r.result, r.reason) for r in adj("ad.impulses.14").results}
    assert results["A NRL D"] == (Result.SUCCEEDS, "")
    assert results["A DAL D"][0] is Result.VOID


def test_the_case_report_gives_a_plans_steps() -> None:
    rows = order_results(run("ad.impulses.7"))
    liv = next(r for r in rows if r["order"].startswith("A LIV"))
    assert liv["order"] == "A LIV S A FIN - KAR THEN A LIV H"
    assert liv["reason"].startswith("impulse 1: succeeds (counted with the move at double strength); impulse 2: succeeds")


def test_a_garrison_once_occupied_is_lost_for_good() -> None:
    assert adj("ad.neutrals.7").state.extra[GARRISONS_LOST] == ["FLA"]
    assert adj("ad.neutrals.2").state.extra[GARRISONS_LOST] == ["FLA"]
    assert GARRISONS_LOST not in adj("ad.neutrals.1").state.extra


def test_a_turn_is_a_year() -> None:
    state = V.initial_state()
    assert (state.phase.season, state.phase.year, state.phase.kind) == (Season.SPRING, 1700, PhaseKind.MOVEMENT)
    after = adjudicate(V, state, []).state
    assert (after.phase.season, after.phase.year, after.phase.kind) == (Season.SPRING, 1701, PhaseKind.MOVEMENT)


@pytest.mark.parametrize("text, expected", [
    ("A(Fin)-Kar (x2);", "A FIN - KAR (x2)"),
    ("A(Liv) S A(Fin)-Kar (x2);", "A LIV S A FIN - KAR (x2)"),
    ("A (Dal)-Hold-Got", "A DAL H THEN A DAL - GOT"),
    ("F(Got)-COS-C A(Sca)-Den", "F GOT - COS THEN F COS C A SCA - DEN"),
    ("A Dal - Got - Sca", "A DAL - GOT THEN A GOT - SCA"),
    ("A Fin - Kar THEN Nov", "A FIN - KAR THEN A KAR - NOV"),
    ("A Fin H THEN S A Liv - Kar", "A FIN H THEN A FIN S A LIV - KAR"),
    ("A Fin - Kar - hold", "A FIN - KAR THEN A KAR H"),
    ("A Fin-Kar double strength", "A FIN - KAR (x2)"),
    ("a fin - kar x2", "A FIN - KAR (x2)"),
    ("A Fin - Kar", "A FIN - KAR"),
    ("Retreats: A(Liv)-Kur", "A LIV R KUR"),
    ("A Liv R Kur", "A LIV R KUR"),
    ("Builds: A(Fin)", "Build A FIN"),
    ("Removes: A(Got).", "A GOT D"),
    ("build a fin", "Build A FIN"),
])
def test_the_notation_of_rule_6(text: str, expected: str) -> None:
    parsed = parse_order(V, text, "Swedish", PhaseKind.MOVEMENT, V.initial_state())
    assert parsed.error is None
    assert str(parsed.order) == expected


@pytest.mark.parametrize("text", ["(x2)", "x2", ".", "Builds:", "THEN THEN", "CXII()"])
def test_a_line_with_no_order_in_it_gets_a_reason(text: str) -> None:
    parsed = parse_order(V, text, "Swedish", PhaseKind.MOVEMENT, V.initial_state())
    assert parsed.order is None and parsed.error


def test_a_step_that_cannot_be_read_says_which() -> None:
    parsed = parse_order(V, "A Fin - Kar THEN Xyzzy", "Swedish", PhaseKind.MOVEMENT, V.initial_state())
    assert parsed.order is None and parsed.error.startswith("step 2: ")


def test_a_line_of_builds_is_several_orders() -> None:
    assert order_texts(V, "Builds: A(Fin), A(Dal).") == ["Builds: A(Fin)", "Builds: A(Dal)"]
    assert order_texts(V, "Removes: A(Got) and A(Sca)") == ["Removes: A(Got)", "Removes: A(Sca)"]
    assert order_texts(load_variant("standard"), "Builds: A Par, A Mar") == ["Builds: A Par, A Mar"]


def test_other_variants_keep_their_notation() -> None:
    standard = load_variant("standard")
    parsed = parse_order(standard, "A Par - Bur (x2)", "France", PhaseKind.MOVEMENT, standard.initial_state())
    assert parsed.order is None


def test_a_seeded_random_game_keeps_the_rules() -> None:
    """Fifteen years and more of random orders: every turn is a year; armies alone take centres;
    garrisons once lost stay lost; no power ends a turn with more units than centres (leaders
    need none); leaders are never rebuilt; every unit stands on land, or is a fleet."""
    seen = {"double": 0, "two steps": 0, "dislodged": 0, "retreats made": 0, "garrisons lost": 0, "builds": 0,
            "triple": 0, "leaders dislodged": 0}
    turns = 0
    for seed in (1, 2):
        lost: set[str] = set()
        leaders = {u.leader for u in V.initial_state().units.values() if u.leader}
        year = V.first_phase.year
        for state, orders, a in play_random_game(V, seed, 20, stop_at_winner=False):
            turns += 1
            assert state.phase.year == year and a.state.phase.year == year + 1
            year += 1
            now_lost = set(a.state.extra.get(GARRISONS_LOST, ()))
            assert lost <= now_lost
            seen["garrisons lost"] += len(now_lost - lost)
            lost = now_lost
            for prov, owner in a.state.supply_centres.items():
                if state.supply_centres.get(prov) != owner:
                    unit = a.units.get(prov)
                    moved_on = unit is None or unit.power != owner  # taken, then left (or removed) in the turn
                    assert moved_on or unit.n_armies, (prov, owner)
            count = {p: supply_needed(V, a.state.units_of(p)) for p in V.powers}  # two fleets a centre, leaders none
            for unit in a.state.units.values():
                terrain = V.map.provinces[unit.province].terrain.name
                assert unit.type is UnitType.FLEET or terrain != "SEA", unit
                assert unit.n_armies <= 1 and unit.n_fleets <= (2 if terrain == "COAST" else 99), unit  # rule 8's stacks
            held: dict[str, int] = {}
            for owner in a.state.supply_centres.values():
                held[owner] = held.get(owner, 0) + 1
            for power, n in count.items():
                assert n <= held.get(power, 0), (state.phase, power)
            now_leaders = [u.leader for u in a.state.units.values() if u.leader]
            assert len(now_leaders) == len(set(now_leaders)) and set(now_leaders) <= leaders  # never rebuilt
            leaders = set(now_leaders)
            seen["leaders dislodged"] += sum(1 for d in a.dislodged.values() if d.unit.leader)
            seen["triple"] += sum(1 for o in orders if type(o) is Steps and 3 in o.points)
            seen["double"] += sum(1 for o in orders if type(o) is Steps and o.points == (2,))
            seen["two steps"] += sum(1 for o in orders if type(o) is Steps and len(o.steps) == 2)
            seen["dislodged"] += len(a.dislodged)
            seen["retreats made"] += sum(1 for r in a.results if type(r.order) is Retreat and r.result is Result.SUCCEEDS)
            seen["builds"] += sum(1 for r in a.results if type(r.order) is Build and r.result is Result.SUCCEEDS)
    assert turns >= 30
    assert all(n > 5 for n in seen.values()), seen


def test_a_permission_lasts_until_revoked() -> None:
    permitted = adj("ad.fleets.4").state
    assert permitted.extra[PERMITS] == {"Anglo-Dutch": ["French"]}
    revoke = parse_order(V, "REVOKE French", "Anglo-Dutch", PhaseKind.MOVEMENT, permitted).order
    assert str(revoke) == "REVOKE French"
    # Revoked, the French fleet in York is in an enemy coast: it retreats (rule 8).
    after = adjudicate(V, permitted, [revoke])
    assert after.state.extra[PERMITS] == {}
    assert "YOR" not in after.state.units and "YOR" in after.dislodged


def test_a_permission_names_another_power() -> None:
    parsed = parse_order(V, "PERMIT Swedish", "Swedish", PhaseKind.MOVEMENT, V.initial_state())
    assert parsed.order is None and "another power" in parsed.error


def test_where_land_units_stood_last_is_remembered() -> None:
    # The French army left Flanders in the second impulse; Flanders stays French for fleets.
    assert adj("ad.fleets.1").state.extra[OCCUPIED]["FLA"] == "French"


def test_a_unit_out_of_supply_is_disbanded_with_the_reason() -> None:
    (cut,) = [r for r in adj("ad.supply.1").results if r.reason.startswith("out of supply")]
    assert str(cut.order) == "A KAR D"
    assert [str(u) for u in adj("ad.supply.1").disbanded] == ["A KAR"]


def test_a_fleet_support_of_an_army_says_why_it_is_void() -> None:
    (support,) = [r for r in adj("ad.fleets.2").results if type(r.order) is Step and r.order.order.unit_type is UnitType.FLEET]
    assert support.result is Result.VOID and "no influence on land units" in support.reason


def test_the_retreat_ordered_but_not_needed_is_void() -> None:
    results = {str(r.order): (r.result, r.reason) for r in adj("ad.rule6").results}
    assert results["A LIV R KUR"] == (Result.VOID, "not needed: the unit was not dislodged")


def test_stacks_start_as_the_data_says() -> None:
    units = V.initial_state().units
    assert str(units["SCA"]) == "A/2F SCA" and str(units["GOT"]) == "CXII GOT" and str(units["LON"]) == "2F LON"


def test_the_map_draws_each_step_with_its_impulse_and_strength() -> None:
    from gm.maps.render import drawn_order, render_run, run_scene

    drawn = drawn_order("Swedish", "A GOT - DEN (x2) (impulse 2)", "succeeds")
    assert drawn is not None and (drawn.kind, drawn.unit, drawn.dest, drawn.impulse, drawn.strength) == \
        ("move", "GOT", "DEN", 2, 2)
    scene = run_scene(run("ad.rule6"))
    moves = {(o.unit, o.dest, o.impulse) for o in scene.orders if o.kind == "move"}
    assert {("GOT", "DEN", 2), ("SCA", "COS", 1), ("SCA", "GOT", 2), ("FIN", "KAR", 2)} <= moves
    assert "CXII GOT" in {str(u) for u in scene.units}
    assert render_run(run("ad.rule6")).startswith(b"\x89PNG")


def test_a_leader_beside_fleets_is_written_and_read_back() -> None:
    from gm.store.db import state_from_json, state_to_json

    state = adj("ad.leaders.10").state  # Charles XII held Gothenburg; the fleet went to the Sound
    with_fleets = state.with_(units={**state.units, "GOT": Unit("Swedish", UnitType.FLEET, "GOT", 2, 1, 0, "CXII")})
    assert str(with_fleets.units["GOT"]) == "CXII/2F GOT"
    assert state_from_json(state_to_json(with_fleets)).units["GOT"] == with_fleets.units["GOT"]


def test_a_single_move_bounces_against_a_double_attack_in_the_whole_turn_comparison() -> None:
    assert steps("ad.whole.1") == [
        ("A FIN - KAR", 2, Result.SUCCEEDS,
         "entered Karelia in the whole-turn comparison of the double-strength conflict: 2 against the attack from Vologda (1)"),
        ("A VOL - KAR", 1, Result.FAILS,
         "bounced in Karelia against the double-strength attack from Finland in the whole-turn comparison (1 against 2)"),
    ]
    assert adj("ad.whole.1").dislodged == {}


def test_the_whole_turn_comparison_counts_the_supports_of_both_impulses() -> None:
    shown = {(s[0], s[1]): s[2:] for s in steps("ad.whole.3")}
    assert shown[("A VOL - KAR", 1)] == (Result.SUCCEEDS, "entered Karelia in the whole-turn comparison of the "
                                         "double-strength conflict: 3 against the double-strength attack from Finland (2)")
    assert shown[("A NOV S A VOL - KAR", 1)] == (Result.SUCCEEDS, "counted with the move, decided at the end of the turn")
    assert shown[("A FIN - KAR", 2)] == (Result.FAILS, "bounced in Karelia against the attack from Vologda in the "
                                         "whole-turn comparison (2 against 3)")
    once = [s for s in steps("ad.whole.4") if s[0] == "A NOV S A VOL - KAR"]
    assert once[0][1:3] == (1, Result.SUCCEEDS) and once[0][3].startswith("counted once")
    cut = {(s[0], s[1]): s[2] for s in steps("ad.whole.6")}
    assert cut[("A LIV S A FIN - KAR", 1)] is Result.CUT


def test_a_unit_whose_move_waits_makes_no_later_step() -> None:
    (second,) = [s for s in steps("ad.whole.12") if s[1] == 2 and s[0].startswith("A KAR")]
    assert second == ("A KAR - LIV", 2, Result.VOID, "its move into Karelia waits for the end of the turn, where the "
                                                      "double-strength attack on it is decided: it stands")
    alone = [s for s in steps("ad.whole.13") if s[0] == "A VOL - KAR"]
    assert alone == [("A VOL - KAR", 1, Result.SUCCEEDS, "entered Karelia at the end of the turn: no other attack on it "
                                                          "was made, in the whole-turn comparison")]
    gone = [s for s in steps("ad.whole.21") if s[0] == "A VOL - KAR"]
    assert gone[0][2] is Result.FAILS and "dislodged before the end of the turn" in gone[0][3]


def test_a_unit_dislodged_in_a_whole_turn_conflict_retreats_after_the_turn() -> None:
    a = adj("ad.whole.17")
    assert a.dislodged["KAR"].attacker_from == "VOL"
    retreats = [(str(r.order), r.result) for r in a.results if type(r.order) is Retreat]
    assert retreats == [("A KAR R LIV", Result.SUCCEEDS)]  # Livonia, left by the Russian supporter in the second impulse


def test_the_case_report_says_a_move_waited() -> None:
    rows = order_results(run("ad.whole.11"))
    vol = next(r for r in rows if r["order"].startswith("A VOL"))
    assert "whole-turn comparison" in vol["reason"] and "waits for the end of the turn" in vol["reason"]


def test_the_results_mail_says_what_the_whole_turn_comparison_did() -> None:
    from gm.lifecycle.report import build_report
    from gm.mail.outgoing import game_mail
    from gm.store.models import Game

    case = run("ad.whole.1")
    report = build_report(V, case.state, adj("ad.whole.1"), game="y1700", label=V.phase_label(case.state.phase), late=[])
    text = game_mail.results_text(Game(id=7, name="y1700", variant="1700ad", options={}), V, report, "Russians")
    flat = " ".join(text.split())  # a long result goes on under its column, within 78 characters
    assert "A VOL - KAR (impulse 1) fails: bounced in Karelia against the double-strength attack from Finland " \
           "in the whole-turn comparison (1 against 2)" in flat
    assert "A FIN - KAR (x2) (impulse 2) succeeds (entered Karelia in the whole-turn comparison" in flat
    assert all(len(line) <= 78 for line in text.splitlines())
