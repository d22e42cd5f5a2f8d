"""The DATC case-file reader (gm/casefile.py) and the `gm adjudicate` command."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from gm.casefile import (
    CaseFileError,
    CaseRun,
    OrderEntry,
    build_state,
    check,
    parse_cases,
    run_case,
    select_cases,
    to_json,
)
from gm.cli import main
from gm.engine.model import Dislodged, GameState, Phase, PhaseKind, Season, Unit, UnitType
from gm.engine.orders import Move
from gm.engine.results import OrderResult, Result

ROOT = Path(__file__).resolve().parents[2]
JSON_KEYS = ["case", "variant", "phase", "orders", "units", "dislodged", "retreats", "supply_centers", "next_phase", "winner"]
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]

BOUNCE = """\
VARIANT_ALL Standard
CASE 6.A.11 SIMPLE BOUNCE
PRESTATE_SETPHASE Spring 1901, Movement
PRESTATE
\tAustria: A vie
\tItaly: A ven
ORDERS
\tAustria: A vie-tyr
\tItaly: A ven-tyr
POSTSTATE_SAME
END
"""

WRONG = """\
VARIANT_ALL Standard
CASE WRONG.1 a deliberately wrong expectation
PRESTATE
\tAustria: A vie
ORDERS
\tAustria: A vie-tyr
POSTSTATE
\tAustria: A vie
END
"""


def one(text: str):
    cases = parse_cases(text, "test.txt")
    assert len(cases) == 1
    return cases[0]


# --------------------------------------------------------------------------------------- reading
def test_sections_comments_and_crlf() -> None:
    text = (
        "# a header comment\r\n"
        "VARIANT_ALL Standard   # the map\r\n"
        "\r\n"
        "CASE 6.X.1. (A Title)   # comment after the title\r\n"
        "PRESTATE_SETPHASE Fall 1902, Movement  # comment\r\n"
        "PRESTATE_SUPPLYCENTER_OWNERS\r\n"
        "\tGermany: A ber\r\n"
        "\tGermany: F kie\r\n"
        "PRESTATE\r\n"
        "\tGermany: A ber     # an army\r\n"
        "\tGermany: F kie\r\n"
        "#\tGermany: A mun    (commented out)\r\n"
        "ORDERS\r\n"
        "\tGermany: A ber-mun   # a move\r\n"
        "POSTSTATE\r\n"
        "\tGermany: A mun\r\n"
        "\tGermany: F kie\r\n"
        "POSTSTATE_DISLODGED\r\n"
        "END\r\n"
    )
    case = one(text)
    assert case.id == "6.X.1"
    assert case.title == "A Title"
    assert case.variant.name == "standard"
    assert case.phase == Phase(1902, Season.FALL, PhaseKind.MOVEMENT)
    assert case.centre_owners == {"BER": "Germany", "KIE": "Germany"}
    assert case.prestate == [Unit("Germany", UnitType.ARMY, "BER"), Unit("Germany", UnitType.FLEET, "KIE")]
    assert case.orders == [("Germany", "A ber-mun")]
    assert case.poststate == [Unit("Germany", UnitType.ARMY, "MUN"), Unit("Germany", UnitType.FLEET, "KIE")]
    assert case.poststate_dislodged == []
    assert not case.poststate_same


def test_variant_name_is_case_insensitive_and_checked() -> None:
    assert one(BOUNCE.replace("Standard", "STANDARD")).variant.name == "standard"
    with pytest.raises(CaseFileError, match="unknown variant"):
        parse_cases(BOUNCE.replace("Standard", "Nowhere"), "test.txt")


def test_missing_setphase_means_the_variants_first_phase() -> None:
    case = one(WRONG)
    assert case.phase == Phase(1901, Season.SPRING, PhaseKind.MOVEMENT)


def test_adjustment_phase_is_winter() -> None:
    case = one(BOUNCE.replace("Spring 1901, Movement", "Fall 1901, Adjustment"))
    assert case.phase == Phase(1901, Season.WINTER, PhaseKind.ADJUSTMENT)


def test_year_goes_through_the_variant() -> None:
    from gm.variants import load_variant

    try:
        classical = load_variant("classical")
    except Exception:  # noqa: BLE001 - the variant may not be there yet
        pytest.skip("the classical variant is not available")
    if classical.rules.parse_year("273 BC") is None:
        pytest.skip("the classical variant has no BC years")
    text = "VARIANT_ALL Classical\nCASE C.1\nPRESTATE_SETPHASE Spring 273 BC, Movement\nPOSTSTATE_SAME\nEND\n"
    case = one(text)
    assert classical.phase_label(case.phase) == "Spring 273 BC, Movement"


def test_bad_phase_is_an_error() -> None:
    with pytest.raises(CaseFileError, match=r"test.txt:3: .*Movement"):
        parse_cases(BOUNCE.replace("Spring 1901, Movement", "Spring 1901"), "test.txt")


def test_power_names_are_loose_and_misspellings_resolve() -> None:
    case = one(BOUNCE.replace("\tAustria: A vie-tyr", "\tAUSTRIA: A vie-tyr").replace("\tItaly: A ven-tyr", "\tItlay: A ven-tyr"))
    assert [p for p, _ in case.orders] == ["Austria", "Italy"]
    assert one(BOUNCE.replace("Austria: A vie\n", "Germnay: A vie\n")).prestate[0].power == "Germany"


def test_unknown_power_is_a_clear_error() -> None:
    with pytest.raises(CaseFileError) as err:
        parse_cases(BOUNCE.replace("Italy: A ven-tyr", "Atlantis: A ven-tyr"), "test.txt")
    message = str(err.value)
    assert "test.txt:9" in message and "unknown power 'Atlantis'" in message


def test_unknown_province_is_a_clear_error() -> None:
    with pytest.raises(CaseFileError, match=r"test.txt:5: unknown province 'Atlantis'"):
        parse_cases(BOUNCE.replace("Austria: A vie\n", "Austria: A Atlantis\n"), "test.txt")


def test_structure_errors() -> None:
    with pytest.raises(CaseFileError, match="outside a case"):
        parse_cases("PRESTATE\n", "t")
    with pytest.raises(CaseFileError, match="has no END"):
        parse_cases("CASE 1\nPRESTATE\n", "t")
    with pytest.raises(CaseFileError, match="before case 1 has its END"):
        parse_cases("CASE 1\nCASE 2\nEND\n", "t")
    with pytest.raises(CaseFileError, match="in no section"):
        parse_cases("CASE 1\n\tEngland: F lon\nEND\n", "t")


def test_coasts_and_loose_locations_in_units() -> None:
    text = "CASE 1\nPRESTATE\n\tFrance: F spain(nc)\n\tTurkey: F Bul/SC\n\tRussia: F St Petersburg(sc)\n\tEngland: F North Sea\nEND\n"
    case = one(text)
    assert [u.location for u in case.prestate] == ["SPA/NC", "BUL/SC", "STP/SC", "NTH"]


# ------------------------------------------------------------------------------- the position
def test_supply_centre_owners_replace_the_whole_ownership() -> None:
    text = BOUNCE.replace("PRESTATE\n", "PRESTATE_SUPPLYCENTER_OWNERS\n\tRussia: A stp\n\tRussia: mos\nPRESTATE\n", 1)
    state = build_state(one(text))
    assert state.supply_centres == {"STP": "Russia", "MOS": "Russia"}


def test_without_owners_the_variant_starting_centres_are_used() -> None:
    case = one(BOUNCE)
    state = build_state(case)
    assert state.supply_centres == case.variant.starting_centres
    assert state.home_centres["Russia"] == frozenset({"MOS", "SEV", "STP", "WAR"})
    assert set(state.units) == {"VIE", "VEN"}


def test_home_centres_can_be_stated() -> None:
    text = BOUNCE.replace("PRESTATE\n", "PRESTATE_HOME_CENTERS\n\tGermany: war, mos\nPRESTATE\n", 1)
    state = build_state(one(text))
    assert state.home_centres["Germany"] == frozenset({"WAR", "MOS"})
    assert state.home_centres["France"] == frozenset({"BRE", "MAR", "PAR"})


RETREAT_CASE = """\
CASE R.1 attacker and contested areas from the previous results
PRESTATE_SETPHASE Spring 1901, Retreat
PRESTATE
\tEngland: F kie
\tEngland: F den
\tGermany: A pru
\tGermany: A sil
\tFrance: A mar
\tFrance: F lyo
PRESTATE_DISLODGED
\tRussia: A pru
\tGermany: F kie
\tItaly: A mar
PRESTATE_RESULTS
\tSUCCESS: England: F hel-kie
\tSUCCESS: England: F den S F hel-kie
\tSUCCESS: Germany: A ber-pru
\tFAILURE: Germany: F kie H
\tSUCCESS: Germany: A sil S A ber-pru
\tFAILURE: Russia: A pru-ber
\tSUCCESS: France: A gas-mar
\tSUCCESS: France: F lyo C A gas-mar
\tFAILURE: Italy: A mar H
\tFAILURE: Austria: A tyr-boh
\tFAILURE: Austria: A vie-boh
\tFAILURE: Turkey: A con-bul
ORDERS
\tGermany: F kie-ber
POSTSTATE
\tEngland: F kie
\tEngland: F den
\tGermany: A pru
\tGermany: A sil
\tGermany: F ber
\tFrance: A mar
\tFrance: F lyo
END
"""


def test_attacker_and_contested_come_from_the_results() -> None:
    state = build_state(one(RETREAT_CASE))
    d = state.dislodged
    assert set(d) == {"PRU", "KIE", "MAR"}
    assert d["KIE"].attacker_from == "HEL"
    assert d["PRU"].attacker_from == "BER"
    assert d["MAR"].attacker_from is None  # the move was made by convoy
    # Bohemia: two failed moves, a standoff. Berlin: only the failed move of the unit dislodged from
    # Prussia by the army from Berlin (DATC 6.H.9). Bulgaria: a lone failed move, no standoff.
    assert state.contested == frozenset({"BOH"})
    assert "BER" in d["KIE"].retreats and "HEL" not in d["KIE"].retreats
    assert "BER" not in d["PRU"].retreats
    assert "GAS" in d["MAR"].retreats


def test_explicit_via_convoy_means_no_attacker() -> None:
    text = RETREAT_CASE.replace("\tSUCCESS: France: F lyo C A gas-mar\n", "").replace("A gas-mar\n", "A gas-mar via convoy\n")
    assert build_state(one(text)).dislodged["MAR"].attacker_from is None
    text = RETREAT_CASE.replace("\tSUCCESS: France: F lyo C A gas-mar\n", "")
    assert build_state(one(text)).dislodged["MAR"].attacker_from == "GAS"


def test_dislodged_outside_a_retreat_phase_is_an_error() -> None:
    text = RETREAT_CASE.replace("Spring 1901, Retreat", "Spring 1901, Movement")
    with pytest.raises(CaseFileError, match="PRESTATE_DISLODGED outside a retreat phase"):
        build_state(one(text))


def test_unparsable_orders_are_void_with_the_parse_error() -> None:
    run = run_case(one(BOUNCE.replace("\tItaly: A ven-tyr\n", "\tItaly: A ven jumps about\n")))
    orders = to_json(run)["orders"]
    assert orders[1]["power"] == "Italy"
    assert orders[1]["order"] == "A ven jumps about"
    assert orders[1]["result"] == "void"
    assert orders[1]["reason"]
    assert orders[0] == {"power": "Austria", "order": "A VIE - TYR", "result": "succeeds", "reason": ""}


def test_select_cases() -> None:
    cases = parse_cases("CASE 6.J.9.part1\nEND\nCASE 6.J.9.part2\nEND\nCASE 6.J.1\nEND\nCASE 6.J.10\nEND\n", "t")
    assert [c.id for c in select_cases(cases, ["6.j.9"])] == ["6.J.9.part1", "6.J.9.part2"]
    assert [c.id for c in select_cases(cases, ["6.J.1"])] == ["6.J.1"]
    assert [c.datc_number for c in cases] == ["6.J.9", "6.J.9", "6.J.1", "6.J.10"]


# ------------------------------------------------------------------------------------- JSON
def _stub_run():
    """A CaseRun with a hand-made adjudication: the JSON shape without the engine."""
    from gm.engine.adjudicator import Adjudication

    case = one(BOUNCE)
    state = build_state(case)
    mun = Unit("Germany", UnitType.ARMY, "MUN")
    move = Move("Austria", UnitType.ARMY, "VIE", "TYR")
    adj = Adjudication(
        phase=state.phase,
        results=[OrderResult(move, Result.FAILS, "bounced")],
        units={"VIE": Unit("Austria", UnitType.ARMY, "VIE"), "SPA": Unit("France", UnitType.FLEET, "SPA/NC")},
        dislodged={"MUN": Dislodged(mun, "TYR", ("SIL", "BOH")), "KIE": Dislodged(Unit("Germany", UnitType.FLEET, "KIE"), "HEL", ())},
        state=GameState(Phase(1901, Season.FALL, PhaseKind.MOVEMENT), {}, {"VIE": "Austria", "BUD": "Austria"}, {}),
    )
    entries = [OrderEntry("Austria", "A vie-tyr", move, None), OrderEntry("Italy", "A ven flies", None, "no idea")]
    return CaseRun(case, state, entries, adj)


def test_json_shape_with_a_stub_adjudication() -> None:
    data = to_json(_stub_run())
    assert list(data) == JSON_KEYS
    assert data["case"] == "6.A.11"
    assert data["variant"] == "standard"
    assert data["phase"] == "Spring 1901, Movement"
    assert data["orders"] == [
        {"power": "Austria", "order": "A VIE - TYR", "result": "fails", "reason": "bounced"},
        {"power": "Italy", "order": "A ven flies", "result": "void", "reason": "no idea"},
    ]
    assert list(data["units"]) == POWERS
    assert data["units"]["Austria"] == ["A VIE"] and data["units"]["France"] == ["F SPA/NC"]
    assert data["units"]["England"] == []
    assert data["dislodged"]["Germany"] == ["A MUN", "F KIE"]
    assert data["retreats"] == {"A MUN": ["BOH", "SIL"], "F KIE": []}
    assert data["supply_centers"]["Austria"] == ["BUD", "VIE"] and data["supply_centers"]["Turkey"] == []
    assert data["next_phase"] == "Fall 1901, Movement"
    assert data["winner"] is None
    json.dumps(data)


def test_check_reports_differences_with_a_stub() -> None:
    run = _stub_run()
    problems = check(run)  # expected: A VIE and A VEN, no dislodged unit
    assert any("units" in p and "Italy A VEN" in p and "France F SPA/NC" in p for p in problems)
    assert any("dislodged" in p and "Germany A MUN" in p for p in problems)
    assert not any("F KIE" in p for p in problems)  # no retreat: destroyed, not expected in the list


def test_json_of_a_real_run() -> None:
    data = to_json(run_case(one(BOUNCE)))
    assert list(data) == JSON_KEYS
    assert [o["result"] for o in data["orders"]] == ["fails", "fails"]
    assert data["units"]["Austria"] == ["A VIE"] and data["units"]["Italy"] == ["A VEN"]
    assert data["next_phase"] == "Fall 1901, Movement"


# -------------------------------------------------------------------------------------- CLI
@pytest.fixture
def bounce_file(tmp_path: Path) -> Path:
    path = tmp_path / "bounce.txt"
    path.write_text(BOUNCE)
    return path


@pytest.fixture
def wrong_file(tmp_path: Path) -> Path:
    path = tmp_path / "wrong.txt"
    path.write_text(BOUNCE + "\n" + WRONG.replace("VARIANT_ALL Standard\n", ""))
    return path


def test_cli_json(bounce_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["adjudicate", str(bounce_file), "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1
    data = json.loads(lines[0])
    assert list(data) == JSON_KEYS
    assert data["case"] == "6.A.11"


def test_cli_check_passes(bounce_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["adjudicate", str(bounce_file), "--check"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 passed, 0 failed"


def test_cli_check_fails(wrong_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["adjudicate", str(wrong_file), "--check"]) != 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "1 passed, 1 failed"
    assert any(line.startswith("FAIL WRONG.1") and "Austria A VIE" in line and "Austria A TYR" in line for line in out)


def test_cli_case_option(wrong_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["adjudicate", str(wrong_file), "--check", "--case", "6.A.11"]) == 0
    assert capsys.readouterr().out.splitlines()[-1] == "1 passed, 0 failed"
    assert main(["adjudicate", str(wrong_file), "--case", "9.Z.9"]) == 2


def test_cli_text_report(bounce_file: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["adjudicate", str(bounce_file)]) == 0
    out = capsys.readouterr().out
    assert "CASE 6.A.11" in out and "A VIE - TYR" in out and "check: as expected" in out


def test_cli_bad_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("CASE 1\nPRESTATE\n\tNarnia: A vie\nEND\n")
    assert main(["adjudicate", str(bad)]) == 2
    assert "unknown power 'Narnia'" in capsys.readouterr().err
    assert main(["adjudicate", str(tmp_path / "missing.txt")]) == 2


def test_python_dash_m_gm(bounce_file: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "gm", "adjudicate", str(bounce_file), "--check"],
        capture_output=True, text=True, cwd=ROOT, timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == "1 passed, 0 failed"
