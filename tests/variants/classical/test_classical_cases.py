"""Run the Classical Mediterranean case files (cases/*.txt) through gm.casefile and the adjudicator.

Each case file tests one of the variant's special rules; its comment header says why the expected
positions follow from the rulebook. The DATC format states only positions, so the next phase
(rule 3: Fall 273 BC -> Winter 273 BC -> Spring 272 BC) and the winner (rule 4) that some cases
are about are checked here, from the runner's JSON view of each run.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from gm.casefile import check, read_cases, run_case, to_json

CASES_DIR = Path(__file__).parent / "cases"
FILES = sorted(CASES_DIR.glob("*.txt"))
ALL = [(f, c) for f in FILES for c in read_cases(f)]

# case id -> (next phase, winner) for the cases whose point is the calendar or victory.
NEXT = {
    "classical.3.1": ("Winter 273 BC, Adjustment", None),
    "classical.3.2": ("Spring 272 BC, Movement", None),
    "classical.3.3": ("Fall 272 BC, Movement", None),
    "classical.3.4": ("Winter 272 BC, Adjustment", None),
    "classical.4.1": ("Winter 273 BC, Adjustment", "Rome"),
    "classical.4.2": ("Fall 273 BC, Movement", None),
    "classical.4.3": ("Winter 273 BC, Adjustment", None),
    "classical.6.1": ("Spring 272 BC, Movement", None),
}

# Every special rule has at least one file.
RULE_FILES = {
    "rule3_calendar.txt", "rule4_victory.txt", "rule6_builds.txt", "rule7_one_coast.txt",
    "rule7a_nile_portage.txt", "rule7b_rhodes.txt", "rule8a_land_bridges.txt",
    "rule8b_seas_under_bridges.txt",
}


def test_every_rule_has_cases():
    assert RULE_FILES <= {f.name for f in FILES}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_file_is_classical_and_complete(path):
    text = path.read_text()
    assert re.search(r"^VARIANT_ALL classical\s*$", text, flags=re.M)
    assert text.lstrip().startswith("#"), "each file opens with a comment header"
    blocks = len(re.findall(r"^CASE ", text, flags=re.M))
    cases = read_cases(path)
    assert len(cases) == blocks > 0
    assert all(c.variant.name == "classical" for c in cases)
    ids = [c.id for c in cases]
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("path,case", ALL, ids=[c.id for _, c in ALL])
def test_case(path, case):
    run = run_case(case)
    unread = [f"{e.power}: {e.text}: {e.error}" for e in run.entries if e.order is None]
    assert not unread, "orders the parser could not read"
    assert check(run) == []
    if case.id in NEXT:
        data = to_json(run)
        assert (data["next_phase"], data["winner"]) == NEXT[case.id]


def test_case_ids_unique_across_files():
    ids = [c.id for _, c in ALL]
    assert len(set(ids)) == len(ids)
    assert set(NEXT) <= set(ids)
