"""The DATC v2.4 section 6 cases (tests/datc/), run through the parser and the adjudicator.

Each case's result must match its POSTSTATE (or POSTSTATE_SAME) and POSTSTATE_DISLODGED.
The canonical file tests the adjudicator; the loose file, in player spelling, also tests the parser.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from gm.casefile import Case, check, read_cases, run_case, text_report

DATC = Path(__file__).resolve().parents[1] / "datc"
CANONICAL = DATC / "datc_v2.4_6_canonical.txt"
LOOSE = DATC / "datc_v2.4_6_loose.txt"
EXTRA = DATC / "datc_extra.txt"

# Number of test cases in each part of DATC v2.4 section 6.
SECTION_SIZES = {"A": 12, "B": 14, "C": 7, "D": 34, "E": 15, "F": 24, "G": 18, "H": 16, "I": 7, "J": 11}
DATC_NUMBERS = {f"6.{s}.{i}" for s, n in SECTION_SIZES.items() for i in range(1, n + 1)}


def _cases(path: Path) -> list[Case]:
    return read_cases(path)


def _assert_passes(case: Case) -> None:
    run = run_case(case)
    problems = check(run)
    assert not problems, f"DATC {case.id} {case.title}\n" + "\n".join(problems) + "\n\n" + text_report(run)


@pytest.mark.parametrize("case", _cases(CANONICAL), ids=lambda c: c.id)
def test_datc_canonical(case: Case) -> None:
    _assert_passes(case)


@pytest.mark.parametrize("case", _cases(CANONICAL), ids=lambda c: c.id)
def test_datc_every_dislodged_unit_is_reported(case: Case) -> None:
    """The project's files list every dislodged unit, also those destroyed for want of a retreat,
    and the engine reports exactly those."""
    adjudication = run_case(case).adjudication
    assert adjudication is not None
    reported = sorted((d.unit.power, str(d.unit)) for d in adjudication.dislodged.values())
    expected = sorted((u.power, str(u)) for u in case.poststate_dislodged or [])
    if case.phase.kind.value == "Retreat":
        assert reported == []  # a retreat phase dislodges nothing
    else:
        assert reported == expected


@pytest.mark.parametrize("case", _cases(LOOSE), ids=lambda c: c.id)
def test_datc_loose(case: Case) -> None:
    _assert_passes(case)


@pytest.mark.parametrize("case", _cases(EXTRA), ids=lambda c: c.id)
def test_datc_extra(case: Case) -> None:
    _assert_passes(case)


@pytest.mark.parametrize("path", [CANONICAL, LOOSE], ids=lambda p: p.name)
def test_each_file_has_the_158_datc_cases_once(path: Path) -> None:
    cases = _cases(path)
    numbers = [c.datc_number for c in cases]
    assert None not in numbers, [c.id for c in cases if c.datc_number is None]
    assert len(set(numbers)) == 158
    assert set(numbers) == DATC_NUMBERS
    # Only 6.J.9 comes in two blocks (one DATC case with two positions).
    assert len(cases) == 159
    assert sorted(c.id for c in cases if c.datc_number == "6.J.9") == ["6.J.9.part1", "6.J.9.part2"]
    assert len({c.id for c in cases}) == len(cases)


def test_both_files_hold_the_same_cases() -> None:
    canonical = {c.id: c for c in _cases(CANONICAL)}
    loose = {c.id: c for c in _cases(LOOSE)}
    assert canonical.keys() == loose.keys()
    for cid, c in canonical.items():
        other = loose[cid]
        assert c.title == other.title, cid
        assert c.phase == other.phase, cid
        assert sorted(map(repr, c.prestate)) == sorted(map(repr, other.prestate)), cid
        assert sorted(map(repr, c.expected_units or [])) == sorted(map(repr, other.expected_units or [])), cid
        assert sorted(map(repr, c.poststate_dislodged or [])) == sorted(map(repr, other.poststate_dislodged or [])), cid
        assert len(c.orders) == len(other.orders), cid
        assert [(ok, str(o)) for ok, o in c.results] == [(ok, str(o)) for ok, o in other.results], cid
        assert c.centre_owners == other.centre_owners, cid


def test_every_case_has_an_expected_outcome() -> None:
    for path in (CANONICAL, LOOSE, EXTRA):
        for case in _cases(path):
            assert case.expected_units is not None, f"{path.name}: {case.id} has no POSTSTATE"
            assert case.title, f"{path.name}: {case.id} has no title"
