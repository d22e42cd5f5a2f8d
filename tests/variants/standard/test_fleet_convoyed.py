"""A fleet is never convoyed: the case file's orders are refused with the parser's reason, and a
fleet's Move by convoy made in code is voided by the engine with the same words."""
from __future__ import annotations

from pathlib import Path

from gm.casefile import order_results, read_cases, run_case
from gm.engine.adjudicator import adjudicate, check_order
from gm.engine.model import UnitType
from gm.engine.orders import Move
from gm.engine.resolve import FLEET_CONVOYED
from gm.engine.results import Result
from gm.variants import load_variant

CASES = {c.id: c for c in read_cases(Path(__file__).parent / "cases" / "fleet_convoyed.txt")}


def results(case_id: str) -> list[tuple[str, str, str]]:
    return [(r["order"], r["result"], r["reason"]) for r in order_results(run_case(CASES[case_id]))]


def test_a_path_over_land_is_no_convoy_route() -> None:
    assert results("fleet.convoyed.1") == [
        ("F Lon - Wal - Yor", "void", "a fleet cannot be convoyed: F LON - WAL - YOR")]


def test_a_fleet_via_convoy_is_refused_and_so_is_its_convoy() -> None:
    assert results("fleet.convoyed.2") == [
        ("F Lon - Yor via convoy", "void", "a fleet cannot be convoyed: F LON - YOR VIA CONVOY"),
        ("F NTH C F LON - YOR", "void", "only armies can be convoyed")]


def test_the_unit_left_out_is_the_fleet_that_stands_there() -> None:
    assert results("fleet.convoyed.3") == [("Lon - Nth - Yor", "void", "a fleet cannot be convoyed: F LON - NTH - YOR")]


def test_an_army_on_the_same_route_is_convoyed() -> None:
    assert [r[1] for r in results("fleet.convoyed.4")] == ["succeeds", "succeeds"]


def test_the_engine_voids_a_fleet_moving_by_convoy_with_the_same_words() -> None:
    standard = load_variant("standard")
    state = standard.initial_state()
    order = Move("England", UnitType.FLEET, "LON", "YOR", via_convoy=True)
    result = adjudicate(standard, state, [order]).results[0]
    assert (result.result, result.reason) == (Result.VOID, FLEET_CONVOYED)
    assert check_order(standard, state, order) == FLEET_CONVOYED
