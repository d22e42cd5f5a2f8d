"""The adjudicator across a whole year: movement, retreats, centre ownership, adjustments, victory."""
from __future__ import annotations

import copy

import pytest

from gm.engine.adjudicator import adjudicate, check_order
from gm.engine.model import GameState, Phase, PhaseKind, Season, Unit, UnitType
from gm.engine.orders import Build, Disband, Hold, Move, Retreat, SupportMove, waive
from gm.engine.results import Result
from gm.variants import load_variant

A, F = UnitType.ARMY, UnitType.FLEET


@pytest.fixture(scope="module")
def std():
    return load_variant("standard")


def position(std, season, kind, units, centres=None, year=1901):
    return GameState(
        phase=Phase(year, Season(season), PhaseKind(kind)),
        units={u.province: u for u in units},
        supply_centres=dict(std.starting_centres if centres is None else centres),
        home_centres={p.name: p.home_centres for p in std.powers.values()},
    )


def test_spring_leads_to_fall_and_nothing_changes_hands(std):
    state = std.initial_state()
    adj = adjudicate(std, state, [Move("Germany", A, "BER", "KIE"), Move("Germany", F, "KIE", "DEN")])
    assert adj.state.phase == Phase(1901, Season.FALL, PhaseKind.MOVEMENT)
    assert adj.state.units["DEN"] == Unit("Germany", F, "DEN")
    assert "DEN" not in adj.state.supply_centres  # ownership changes only after Fall


def test_fall_moves_change_ownership_and_lead_to_winter(std):
    state = position(std, "Fall", "Movement", [Unit("Germany", F, "KIE"), Unit("Germany", A, "BER")])
    adj = adjudicate(std, state, [Move("Germany", F, "KIE", "DEN")])
    assert adj.state.supply_centres["DEN"] == "Germany"
    assert adj.state.phase == Phase(1901, Season.WINTER, PhaseKind.ADJUSTMENT)


def test_winter_is_skipped_when_no_power_can_adjust(std):
    state = std.initial_state().with_(phase=Phase(1901, Season.FALL, PhaseKind.MOVEMENT))
    adj = adjudicate(std, state, [])
    assert adj.state.phase == Phase(1902, Season.SPRING, PhaseKind.MOVEMENT)


def test_dislodged_unit_retreats_not_to_attackers_origin_nor_a_standoff(std):
    units = [
        Unit("France", A, "BUR"),
        Unit("Germany", A, "MUN"),
        Unit("Germany", A, "RUH"),
        Unit("Italy", A, "PIE"),
        Unit("Austria", A, "TYR"),
    ]
    state = position(std, "Spring", "Movement", units)
    orders = [
        Move("Germany", A, "MUN", "BUR"),
        SupportMove("Germany", A, "RUH", "MUN", "BUR"),
        Move("Italy", A, "PIE", "MAR"),
        Move("Austria", A, "TYR", "PIE"),
    ]
    adj = adjudicate(std, state, orders)
    # Marseilles was entered by Italy, Munich is where the attack came from.
    assert adj.dislodged["BUR"].retreats == ("BEL", "GAS", "PAR", "PIC")
    assert adj.state.phase.kind is PhaseKind.RETREAT
    after = adjudicate(std, adj.state, [Retreat("France", A, "BUR", "PAR")])
    assert after.state.units["PAR"] == Unit("France", A, "PAR")
    assert after.state.phase == Phase(1901, Season.FALL, PhaseKind.MOVEMENT)


def test_two_retreats_to_one_place_both_disband(std):
    state = position(std, "Spring", "Retreat", [Unit("Germany", A, "MUN")])
    from gm.engine.model import Dislodged

    state = state.with_(
        dislodged={
            "BUR": Dislodged(Unit("France", A, "BUR"), "MAR", ("BEL", "PIC")),
            "HOL": Dislodged(Unit("England", A, "HOL"), "KIE", ("BEL",)),
        }
    )
    adj = adjudicate(std, state, [Retreat("France", A, "BUR", "BEL"), Retreat("England", A, "HOL", "BEL")])
    assert [r.result for r in adj.results] == [Result.FAILS, Result.FAILS]
    assert "BEL" not in adj.state.units
    assert sorted(str(u) for u in adj.disbanded) == ["A BUR", "A HOL"]


def test_unordered_dislodged_unit_is_disbanded(std):
    from gm.engine.model import Dislodged

    state = position(std, "Fall", "Retreat", [Unit("Germany", A, "MUN")]).with_(
        dislodged={"BUR": Dislodged(Unit("France", A, "BUR"), "MAR", ("BEL",))}
    )
    adj = adjudicate(std, state, [])
    assert adj.disbanded == [Unit("France", A, "BUR")]
    assert "BUR" not in adj.state.units


def test_builds_only_in_vacant_owned_home_centres(std):
    centres = dict(std.starting_centres, DEN="Germany", HOL="Germany")
    state = position(std, "Winter", "Adjustment", [Unit("Germany", A, "MUN"), Unit("Germany", F, "DEN")], centres)
    orders = [
        Build("Germany", A, "MUN"),  # occupied
        Build("Germany", A, "HOL"),  # not a home centre
        Build("Germany", F, "KIE"),
        Build("Germany", A, "BER"),
        Build("Germany", F, "BER"),  # a third build: Germany has 4 centres and 2 units
    ]
    adj = adjudicate(std, state, orders)
    assert [r.result for r in adj.results] == [Result.VOID, Result.VOID, Result.SUCCEEDS, Result.SUCCEEDS, Result.VOID]
    assert adj.results[0].reason == "Munich is not vacant"
    assert adj.results[1].reason == "Germany cannot build in Holland"
    assert adj.state.phase == Phase(1902, Season.SPRING, PhaseKind.MOVEMENT)


def test_fleet_build_on_a_split_coast_needs_the_coast(std):
    state = position(std, "Winter", "Adjustment", [])
    assert adjudicate(std, state, [Build("Russia", F, "STP")]).results[0].reason == (
        "name the coast of St Petersburg to build the fleet on"
    )
    adj = adjudicate(std, state, [Build("Russia", F, "STP/NC")])
    assert adj.state.units["STP"] == Unit("Russia", F, "STP/NC")
    assert adjudicate(std, state, [Build("Russia", F, "MOS")]).results[0].reason == (
        "a fleet cannot be built in Moscow: it has no coast"
    )


def test_waive_uses_a_build(std):
    state = position(std, "Winter", "Adjustment", [])
    adj = adjudicate(std, state, [waive("Italy"), waive("Italy"), waive("Italy"), Build("Italy", A, "ROM")])
    assert [r.result for r in adj.results] == [Result.SUCCEEDS] * 3 + [Result.VOID]


def test_civil_disorder_removes_the_farthest_unit(std):
    centres = {"MOS": "Russia"}
    units = [Unit("Russia", A, "MOS"), Unit("Russia", A, "UKR"), Unit("Russia", A, "TYR")]
    state = position(std, "Winter", "Adjustment", units, centres)
    adj = adjudicate(std, state, [])
    assert sorted(str(u) for u in adj.disbanded) == ["A TYR", "A UKR"]
    assert list(adj.state.units) == ["MOS"]


def test_removal_orders_are_carried_out(std):
    state = position(std, "Winter", "Adjustment", [Unit("Russia", A, "MOS"), Unit("Russia", A, "UKR")], {"MOS": "Russia"})
    adj = adjudicate(std, state, [Disband("Russia", A, "MOS")])
    assert adj.results[0].result is Result.SUCCEEDS
    assert list(adj.state.units) == ["UKR"]
    assert adj.disbanded == []


def test_victory_after_fall(std):
    owned = sorted(p for p, prov in std.map.provinces.items() if prov.supply_centre)[:17]
    centres = {p: "Turkey" for p in owned}
    state = position(std, "Fall", "Movement", [Unit("Turkey", F, "NTH")], centres)
    adj = adjudicate(std, state, [Move("Turkey", F, "NTH", "NWY")])
    assert "NWY" not in owned
    assert adj.winner == "Turkey"


def test_adjudication_leaves_the_input_untouched(std):
    state = std.initial_state()
    before = copy.deepcopy(state)
    adjudicate(std, state, [Move("France", A, "PAR", "BUR"), Hold("Germany", A, "MUN")])
    assert state == before


def test_nonsense_orders_are_void_not_errors(std):
    state = std.initial_state()
    orders = [
        Move("France", A, "XYZ", "BUR"),
        Move("France", A, "PAR", "QQQ"),
        Move("France", A, "PAR", "PAR"),
        SupportMove("France", F, "BRE", "QQQ", "PAR"),
        Build("France", A, "PAR"),
        Retreat("France", A, "MAR", "SPA"),
    ]
    adj = adjudicate(std, state, orders)
    assert all(r.result is Result.VOID and r.reason for r in adj.results)


def test_check_order_explains_illegal_moves(std):
    state = std.initial_state()
    assert check_order(std, state, Move("England", F, "LON", "BEL")) == "no fleet can reach Belgium from London"
    assert check_order(std, state, Move("England", A, "LVP", "IRI")) == "no army can reach Irish Sea from Liverpool"
    assert check_order(std, state, Move("Germany", A, "MUN", "BUR")) is None
    # A convoyed move needs partners: legal on its own when fleets stand where they could carry it.
    assert check_order(std, state, Move("England", A, "LVP", "NWY")) == (
        "no army can reach Norway from Liverpool: no fleets stand where they could convoy it"
    )
    at_sea = position(std, "Spring", "Movement", [Unit("England", A, "YOR"), Unit("England", F, "NTH")])
    assert check_order(std, at_sea, Move("England", A, "YOR", "NWY")) is None
    assert check_order(std, at_sea, SupportMove("England", F, "NTH", "YOR", "NWY")) is None
