"""The rulebook's printed orders (cases/nw_printed_orders.txt) read as printed and play as the rules
say: each order is read (none refused for its notation), and the results are those the rules give."""
from __future__ import annotations

from pathlib import Path

import pytest

from gm.casefile import check, order_results, read_cases, run_case
from gm.games import OnFile, units_without_orders

CASES = {c.id: c for c in read_cases(Path(__file__).parent / "cases" / "nw_printed_orders.txt")}


@pytest.mark.parametrize("case_id", sorted(CASES))
def test_every_printed_order_is_read(case_id: str) -> None:
    run = run_case(CASES[case_id])
    assert [e.error for e in run.entries if e.error] == []
    assert check(run) == []


def results(case_id: str) -> dict[str, tuple[str, str]]:
    return {r["order"]: (r["result"], r["reason"]) for r in order_results(run_case(CASES[case_id]))}


def test_no_boarding_where_the_fleet_arrives_by_its_second_move() -> None:
    assert results("nw.printed.1")["A WAL - ENG MERGE"][0] == "void"


def test_the_boarding_gives_the_fleet_its_moves_and_no_landing_follows_a_second_move() -> None:
    got = results("nw.printed.2")
    assert got["A TUN E F BOT - ION - AEG"] == ("succeeds", "")
    assert got["F BOT - ION"] == ("succeeds", "")  # the fleet's order, from the boarding
    assert got["F ION - AEG (second move)"] == ("succeeds", "")
    assert got["A AEG - CON"] == ("void", "no fleet carried the army to Aegean Sea")


def test_the_legal_landing_of_rule_6() -> None:
    got = results("nw.printed.4")
    assert got["A ION - BAL"] == ("succeeds", "")
    assert got["F BOT - ION"] == ("succeeds", "")


def test_the_denial_beats_the_supported_russian_move() -> None:
    got = results("nw.printed.9")
    assert got["A DEN - SWE"] == ("fails", "the direct passage was denied by the fleet in Skagerrak")
    assert got["A SWE - DEN"] == ("succeeds", "")


def test_the_support_of_a_merge_counts_for_it() -> None:
    got = results("nw.printed.12")
    assert got["A PAR S MERGE BUR"] == ("succeeds", "")
    assert got["A MAR - BUR MERGE"][0] == got["A PIC - BUR MERGE"][0] == "succeeds"
    assert results("nw.printed.13")["A MAR - BUR MERGE"][0] == "fails"


def test_a_support_of_a_merge_nobody_makes() -> None:
    from gm.engine.adjudicator import adjudicate, check_order
    from gm.engine.model import Phase, PhaseKind, Season
    from gm.engine.parse import parse_order

    v = next(iter(CASES.values())).variant
    state = v.initial_state().with_(phase=Phase(1801, Season.SPRING, PhaseKind.MOVEMENT))
    order = parse_order(v, "A(Par) S MERGE (Bur)", "France", PhaseKind.MOVEMENT, state).order
    result = next(r for r in adjudicate(v, state, [order]).results if r.order is order)
    assert (result.result.value, result.reason) == ("void", "no unit merges into Burgundy")
    assert check_order(v, state, order) is None  # the merging orders may come in a later mail


@pytest.mark.parametrize("text", ["A(Tun) E F(BOT)-ION-AEG", "A(AEG) D Con", "A(Tun) E F(BOT)-ION", "A(ION) D Bal."])
def test_the_acknowledgement_takes_each_printed_order_alone(text: str) -> None:
    """Each order of rule 6's examples, sent alone (its partner may come in another mail), is
    accepted: its legality is the engine's, as check_order judges it for the acknowledgement."""
    from gm.engine.adjudicator import check_order
    from gm.engine.model import Phase, PhaseKind, Season, Unit, UnitType
    from gm.engine.parse import parse_order

    v = next(iter(CASES.values())).variant
    state = v.initial_state().with_(phase=Phase(1801, Season.SPRING, PhaseKind.MOVEMENT), units={
        "TUN": Unit("France", UnitType.ARMY, "TUN"), "BOT": Unit("France", UnitType.FLEET, "BOT")})
    parsed = parse_order(v, text, "France", PhaseKind.MOVEMENT, state)
    assert parsed.order is not None, parsed.error
    assert check_order(v, state, parsed.order) is None


def test_more_moves_than_a_fleet_makes_are_refused() -> None:
    from gm.engine.model import PhaseKind
    from gm.engine.parse import parse_order

    v = next(iter(CASES.values())).variant
    assert parse_order(v, "A(Tun) E F(BOT)-ION-AEG-EMS", "France", PhaseKind.MOVEMENT).error == \
        "the fleet boarded moves at most twice a turn"
    assert parse_order(v, "F(NTH)-ENG-MAO-POR", "England", PhaseKind.MOVEMENT).error == \
        "a fleet moves at most twice a turn: F NTH - ENG - MAO - POR"


def test_a_boarding_with_the_fleets_moves_leaves_the_fleet_owing_no_order() -> None:
    """Rule 6 prints two orders for the army and the fleet it boards: the phase does not wait for a
    third, and the power is not late for the fleet."""
    run = run_case(CASES["nw.printed.2"])
    state = run.state
    boarding = OnFile("TUN", "A TUN E F BOT - ION - AEG", 0)
    assert "F BOT" in units_without_orders(run.variant, state, "France", [])
    assert "F BOT" not in units_without_orders(run.variant, state, "France", [boarding])
    # a boarding without the fleet's moves leaves the fleet to its own order
    assert "F BOT" in units_without_orders(run.variant, state, "France", [OnFile("TUN", "A TUN E F BOT", 0)])
