"""Intake judges what it can of a support or a convoy (gm.engine.adjudicator.check_order): one that
cannot work from where the unit stands is refused at once, with the reason, as an impossible move
is, on every variant: the supporter cannot reach the space, the move it supports cannot be made,
the convoy has no route. One that could work is taken, whatever the partner unit's owner orders.
An allocation whose order could not work is taken with a warning (order_warning), and its result
says it was counted and did nothing."""
from __future__ import annotations

import pytest

from gm.engine.adjudicator import adjudicate, check_order, order_warning
from gm.engine.model import GameState, Phase, PhaseKind, Season, Unit, UnitType
from gm.engine.notation.parser import parse_order
from gm.engine.variant import Variant
from gm.variants import REGISTRY, load_variant

A, F = UnitType.ARMY, UnitType.FLEET


def judged(variant: Variant, state: GameState, power: str, text: str) -> str | None:
    parsed = parse_order(variant, text, power, state.phase.kind, state)
    assert parsed.order is not None, (text, parsed.error)
    return check_order(variant, state, parsed.order)


def _pairs(variant: Variant, state: GameState) -> tuple[Unit, Unit, str, str]:
    """Two armies of one great power on land next to each other, a space the second can move to
    and the first can reach, and one the second can move to that the first cannot reach."""
    army = variant.map.army
    for one in state.units.values():
        for two in state.units.values():
            if (one is two or one.power != two.power or one.type is not A or two.type is not A
                    or variant.powers[one.power].minor):
                continue
            reach_both = sorted((army[two.province] & army[one.province]) - {one.province, two.province})
            reach_two = sorted(army[two.province] - army[one.province] - {one.province})
            if reach_both and reach_two:
                return one, two, reach_both[0], reach_two[0]
    raise AssertionError(f"{variant.name}: no two armies of one power side by side at the start")


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_a_support_that_cannot_reach_is_refused_and_one_that_can_is_taken(name: str) -> None:
    variant = load_variant(name)
    state = variant.initial_state()
    if variant.rules.impulses > 1:
        pytest.skip("a turn of impulses is judged step by step at its end")
    if state.phase.kind is not PhaseKind.MOVEMENT:  # a game that opens with bids: its first turn
        state = state.with_(phase=Phase(state.phase.year + 1, Season.SPRING, PhaseKind.MOVEMENT))
    one, two, both, other = _pairs(variant, state)
    supporter, supported = f"A {one.location}", f"A {two.location}"
    assert judged(variant, state, one.power, f"{supporter} S {supported} - {both}") is None
    why = judged(variant, state, one.power, f"{supporter} S {supported} - {other}")
    assert why == (f"the army in {variant.map.name(one.location)} cannot reach {variant.map.name(other)}, so it "
                   "cannot support a move there")
    # Another power's unit: its owner has ordered nothing yet, and the support is judged as meant.
    assert judged(variant, state, one.power, f"{supporter} S {supported}") is None


def test_standards_impossible_supports_and_convoys_name_the_reason() -> None:
    variant = load_variant("standard")
    state = variant.initial_state()
    units = dict(state.units)
    units.update({"NTH": Unit("England", F, "NTH"), "ENG": Unit("England", F, "ENG"), "BUR": Unit("France", A, "BUR"),
                  "YOR": Unit("England", A, "YOR"), "LON": Unit("England", A, "LON")})
    state = state.with_(units=units)
    refused = {
        ("England", "F NTH S F ENG - PIC"): "the fleet in North Sea cannot reach Picardy, so it cannot support a move there",
        ("France", "A MAR S A BUR - SWI"): "the army in Burgundy cannot move to Switzerland: no army can reach "
                                           "Switzerland from Burgundy",
        ("France", "A MAR S A BUR - BEL"): "the army in Marseilles cannot reach Belgium, so it cannot support a move there",
        # a support of a move that needs a convoy nobody has ordered yet: the supporter's reach still counts
        ("England", "F EDI S A LON - NWY"): "the fleet in Edinburgh cannot reach Norway, so it cannot support a move there",
        ("England", "F NTH C A YOR - MUN"): "the fleet in North Sea cannot be part of any convoy route from Yorkshire to "
                                            "Munich",
    }
    for (power, text), why in refused.items():
        assert judged(variant, state, power, text) == why, text
    for power, text in (("England", "F NTH S A LON - BEL"), ("England", "F NTH C A YOR - BEL"),
                        ("France", "A MAR S A BUR - GAS"), ("England", "F NTH S A YOR - LON")):
        assert judged(variant, state, power, text) is None, text  # each can work, once its partner does its part


@pytest.mark.parametrize("name", ["ambition", "ambition-v6"])
def test_an_allocation_whose_order_cannot_work_is_warned_of_and_reported_as_void(name: str) -> None:
    variant = load_variant(name)
    state = variant.initial_state()
    state = state.with_(units={**state.units, "BUR": Unit("France", A, "BUR")})
    power = "France"

    def order(text: str):  # type: ignore[no-untyped-def]
        parsed = parse_order(variant, text, power, state.phase.kind, state)
        assert parsed.order is not None, parsed.error
        return parsed.order

    bad = order("DP 1 A SWI S A MAR - MAD")  # Marseilles does not border Madrid
    assert check_order(variant, state, bad) is None  # taken: the points are the player's to spend
    assert order_warning(variant, state, bad) == (
        "the order cannot work: the army in Marseilles cannot move to Madrid: no army can reach Madrid from "
        "Marseilles; the points would be spent all the same")
    assert order_warning(variant, state, order("DP 1 A SWI S A MAR - PIE")) is None
    # At adjudication (the Marseilles army holding): the allocation counted, and did nothing.
    results = adjudicate(variant, state, [order("DP 1 A SWI S A BUR - PIE")]).results
    (mine,) = [r for r in results if r.order.power == power]
    assert mine.result.value == "fails"
    assert mine.reason.startswith("allocation counted; the order was void: ")
