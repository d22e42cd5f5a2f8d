"""Run the Ambition & Empire case files (cases/*.txt) through gm.casefile and the adjudicator.

Each case file tests one rule of the 2006 rules (`ae2006_*.txt`, variant `ambition`) or of the
version 6 rules (`aev6_*.txt`, variant `ambition-v6`); its comment header quotes the rule and each
case's comment says why the expected position follows. The DATC format states positions only, so
what a position cannot say is checked here from the Adjudication (or the runner's JSON view):

* the next phase, the winner, the owners of centres and the home centres after a phase;
* the results of the DP allocations and of the minor units' orders (with their reasons);
* the retreat options of dislodged units;
* that chained cases (a Fall case, then the winter after it) agree with each other;
* the winters of the 2006 "additional home centre" example 3 and of civil disorder, played on from
  the Adjudication's state, because a pending home choice cannot be written in a case file and
  a new minor power of civil disorder can be named only in POSTSTATE, not in PRESTATE.
"""
from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from gm.casefile import check, parse_cases, read_cases, run_case, to_json
from gm.engine.adjudicator import Adjudication, adjudicate
from gm.engine.model import GameState, PhaseKind, Unit, UnitType
from gm.engine.orders import Allocation
from gm.engine.parse import parse_order
from gm.variants import load_variant

from tests.variants.casebook import CaseBook

CASES_DIR = Path(__file__).parent / "cases"
BOOK = CaseBook(CASES_DIR)
FILES, ALL, BY_ID, run, adj = BOOK.files, BOOK.all, BOOK.by_id, BOOK.run, BOOK.adj

# Every rule has at least one file, for both rule sets.
RULE_FILES = {
    "ae2006_dp_examples.txt", "ae2006_dp_rules.txt", "ae2006_minor_powers.txt", "ae2006_religion.txt",
    "ae2006_home_centres.txt", "ae2006_victory.txt", "ae2006_civil_disorder.txt", "ae2006_map.txt",
    "aev6_dp_examples.txt", "aev6_dp.txt", "aev6_sorties.txt", "aev6_religion.txt",
    "aev6_homes_and_builds.txt", "aev6_irish_sea.txt", "aev6_minor_powers.txt", "aev6_victory.txt",
    "aev6_civil_disorder.txt",
}



def results(case_id: str) -> list[tuple[str, str, str, str]]:
    """(power, order, result, reason) of every result, unit orders and allocations alike."""
    return [(r.order.power, str(r.order), r.result.value, r.reason) for r in adj(case_id).results]


def homes(state: GameState, power: str) -> set[str]:
    return set(state.home_centres[power])


# ------------------------------------------------------------------------------------ the files
def test_every_rule_has_cases():
    assert RULE_FILES <= {f.name for f in FILES}


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_file_is_ambition_and_complete(path):
    text = path.read_text()
    assert path.name.startswith(("ae2006_", "aev6_"))
    wanted = {"ambition"} if path.name.startswith("ae2006_") else {"ambition-v6"}
    assert set(re.findall(r"^VARIANT_ALL (\S+)\s*$", text, flags=re.M)) == wanted
    assert text.lstrip().startswith("#"), "each file opens with a comment header"
    blocks = len(re.findall(r"^CASE ", text, flags=re.M))
    cases = read_cases(path)
    assert len(cases) == blocks > 0
    assert {c.variant.name for c in cases} == wanted
    # Every case has a title and a comment right above its CASE line.
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("CASE "):
            assert lines[i - 1].startswith("#"), f"no comment above {line}"
    assert all(c.title for c in cases)


def test_case_ids_unique_and_prefixed():
    ids = [c.id for _, c in ALL]
    assert len(set(ids)) == len(ids)
    for _, c in ALL:
        assert c.id.startswith("ae2006." if c.variant.name == "ambition" else "aev6.")


@pytest.mark.parametrize("path,case", ALL, ids=[c.id for _, c in ALL])
def test_case(path, case):
    r = run(case.id)
    unread = [f"{e.power}: {e.text}: {e.error}" for e in r.entries if e.order is None]
    assert not unread, "orders the parser could not read"
    assert check(r) == []


# --------------------------------------------------------------- next phase, winner, owners
NEXT = {
    # the calendar (2006 V.1)
    "ae2006.map.1": "Fall 1763, Movement",
    "ae2006.map.2": "Spring 1764, Movement",
    # a dislodged minor unit never causes a retreat phase
    "ae2006.ex.1": "Fall 1763, Movement",
    "ae2006.minor.2": "Fall 1763, Movement",
    "ae2006.minor.3": "Winter 1763, Adjustment",  # Savoy's unit comes back
    "ae2006.minor.10": "Fall 1763, Retreat",  # for the Austrian army only
    "aev6.minor.2": "Fall 1763, Movement",
    "aev6.minor.3": "Winter 1763, Adjustment",
    "aev6.sortie.4": "Fall 1763, Movement",
    "aev6.sortie.6": "Spring 1763, Retreat",
    "aev6.irish.6": "Fall 1764, Movement",  # the British army has no retreat
    "aev6.irish.7": "Spring 1764, Retreat",
    "aev6.irish.8": "Fall 1764, Movement",
    # a pending home choice opens a winter
    "ae2006.home.15": "Winter 1763, Adjustment",
    # civil disorder: a vacated centre's new minor unit is built in a winter
    "ae2006.cd.3": "Winter 1764, Adjustment",
    "aev6.cd.3": "Winter 1764, Adjustment",
    "ae2006.cd.5": "Fall 1764, Movement",  # the new minor power's army is destroyed, no retreat
    "aev6.cd.5": "Fall 1764, Movement",
}

WINNER = {
    "ae2006.win.1": "France",
    "ae2006.win.2": None,
    "ae2006.win.3": "France",
    "ae2006.win.4": None,
    "ae2006.win.5": None,
    "ae2006.win.6": "France",
    "ae2006.win.7": None,
    "aev6.win.1": "France",
    "aev6.win.2": "France",
    "aev6.win.3": None,
}

# Owners of centres once the phase is over.
OWNERS = {
    "ae2006.minor.2": {"SAV": "Sardinia"},  # a Spring turn changes no owner
    "ae2006.minor.3": {"SAV": "Sardinia"},  # France left before controlling it
    "ae2006.minor.6": {"SAV": "France"},
    "ae2006.minor.8": {"SAV": "Austria"},
    "ae2006.minor.9": {"SAV": "France"},
    "ae2006.minor.10": {"SAV": "Sardinia", "VIE": "Austria"},  # not before the Fall retreats are over
    "aev6.minor.3": {"SAV": "Sardinia"},
    "aev6.minor.6": {"SAV": "France"},
    "ae2006.home.4": {"POR": "Spain"},
    "ae2006.home.6": {"MOR": "Spain"},
    "ae2006.home.7": {"POR": "Great Britain", "MOR": "Spain"},
    "ae2006.home.10": {"STO": "Denmark-Norway"},
    "ae2006.home.11": {"STO": "Sweden"},
    "ae2006.home.12": {"MEC": "Sweden"},
    "ae2006.home.15": {"HEW": "Poland-Saxony", "BRL": "Poland-Saxony"},
    "ae2006.home.19": {"POR": "Portugal"},
    "ae2006.cd.1": {"PAR": "France", "MAR": "France", "BRE": "France"},
    "ae2006.cd.2": {"PAR": "France", "MAR": "France", "BRE": "France"},
    "ae2006.cd.3": {"PAR": "Austria", "MAR": "Marseilles", "BRE": "Great Britain"},
    "aev6.cd.2": {"PAR": "France", "MAR": "France", "BRE": "France"},
    "aev6.cd.3": {"PAR": "Paris", "MAR": "Spain", "BRE": "Brest"},
}

# Home centres once the phase is over (only the powers named).
HOMES = {
    "ae2006.home.4": {"Spain": {"MAD", "BRC", "POR"}},
    "ae2006.home.6": {"Spain": {"MAD", "BRC", "POR"}},
    "ae2006.home.7": {"Spain": {"MAD", "BRC", "POR"}},
    "ae2006.home.10": {"Denmark-Norway": {"CHR", "COP", "STO"}, "Sweden": {"ABO", "STO"}},
    "ae2006.home.11": {"Denmark-Norway": {"CHR", "COP", "STO"}, "Sweden": {"ABO", "STO"}},
    "ae2006.home.12": {"Denmark-Norway": {"CHR", "COP", "STO"}, "Sweden": {"ABO", "STO", "MEC"}},
    "ae2006.home.13": {"Denmark-Norway": {"CHR", "COP", "STO"}, "Sweden": {"ABO", "STO", "MEC"}},
    "ae2006.home.14": {"Sweden": {"ABO", "STO", "MEC"}},
    "ae2006.home.15": {"Poland-Saxony": {"DRE", "WAR"}},  # not yet: the choice is pending
    "ae2006.home.18": {"France": {"PAR", "MAR", "BRE"}},
    "ae2006.home.19": {"Spain": {"MAD", "BRC"}},
    "aev6.home.1": {"Russia": {"MOS", "KEV", "STP"}},  # Crimea was not built in
    "aev6.home.3": {"Austria": {"VIE", "BUD", "MIL", "TUS"}},
    "aev6.home.4": {"Spain": {"MAD", "BRC", "TWS", "POR"}},
    "aev6.home.5": {"Poland-Saxony": {"DRE", "WAR", "COU", "HEW"}},
    "aev6.home.6": {"Turkey": {"ANK", "CON", "ALG", "CRI"}},
    "aev6.home.7": {"Great Britain": {"LON", "EDI", "LVP", "HAN"}},
    "aev6.home.8": {"France": {"PAR", "MAR", "BRE", "SAV"}},
    "aev6.home.9": {"France": {"PAR", "MAR", "BRE", "SAV"}},
    "aev6.home.10": {"Denmark-Norway": {"CHR", "COP", "STO", "MEC"}},
    "aev6.home.11": {"Sweden": {"ABO", "STO", "MEC", "UPR"}, "Denmark-Norway": {"CHR", "COP", "STO"}},
    "aev6.home.12": {"Russia": {"MOS", "KEV", "STP", "CRI"}, "Turkey": {"ANK", "CON", "CRI"}},
    "aev6.home.13": {"France": {"PAR", "MAR", "BRE", "BRC"}, "Spain": {"MAD", "BRC"}},
    "aev6.home.15": {"Spain": {"MAD", "BRC"}},
    "aev6.minor.7": {"France": {"PAR", "MAR", "BRE", "SAV"}},
}

# Retreat options of the dislodged units ([] for a unit destroyed).
RETREATS = {
    "ae2006.ex.1": {"A SAV": []},
    "ae2006.minor.2": {"A SAV": []},
    "ae2006.minor.10": {"A SAV": [], "A VIE": ["BAV", "CRO", "TYR", "VEN"]},
    "aev6.minor.2": {"A SAV": []},
    "aev6.sortie.4": {"A SWI": []},
    "aev6.sortie.6": {"A VIE": ["CRO"]},
    "aev6.sortie.7": {"A VIE": ["CRO", "TYR"]},
    "aev6.sortie.11": {"A SWI": []},
    "aev6.irish.6": {"A IRE": []},
    "aev6.irish.7": {"A IRE": ["EDI"]},
    "aev6.irish.8": {"A IRE": []},
}


@pytest.mark.parametrize("case_id", sorted(NEXT))
def test_next_phase(case_id):
    assert to_json(run(case_id))["next_phase"] == NEXT[case_id]


@pytest.mark.parametrize("case_id", sorted(WINNER))
def test_winner(case_id):
    assert adj(case_id).winner == WINNER[case_id]
    assert to_json(run(case_id))["winner"] == WINNER[case_id]


@pytest.mark.parametrize("case_id", sorted(OWNERS))
def test_owners(case_id):
    state = adj(case_id).state
    assert {c: state.supply_centres.get(c) for c in OWNERS[case_id]} == OWNERS[case_id]


@pytest.mark.parametrize("case_id", sorted(HOMES))
def test_home_centres(case_id):
    state = adj(case_id).state
    assert {p: homes(state, p) for p in HOMES[case_id]} == HOMES[case_id]


@pytest.mark.parametrize("case_id", sorted(RETREATS))
def test_retreats(case_id):
    assert to_json(run(case_id))["retreats"] == RETREATS[case_id]


def test_first_phase_is_spring_1763():
    """2006 V.1: "The first turn of the game begins in the Spring of 1763." """
    case = BY_ID["ae2006.map.1"]
    assert to_json(run(case.id))["phase"] == "Spring 1763, Movement"
    for name in ("ambition", "ambition-v6"):
        v = load_variant(name)
        assert v.phase_label(v.first_phase) == "Spring 1763, Movement"
        assert {u.province: u for u in v.starting_units} == v.initial_state().units


# ---------------------------------------------------------------- allocations and minor orders
# (power, order, result, reason or a part of it) that must be among the results. A minor unit's
# own order is there in the minor power's name: it is what gets published.
RESULTS = {
    "ae2006.ex.1": [
        ("Switzerland", "A SWI S A MAR - SAV", "succeeds", ""),
        ("France", "DP 1 A SWI S A MAR - SAV", "succeeds", ""),
    ],
    "ae2006.ex.2": [
        ("France", "DP 1 A SWI S A MAR - SAV", "fails", "no order had the most DPs: the unit holds"),
        ("Austria", "DP 1 A SWI S A MIL - VEN", "fails", "no order had the most DPs: the unit holds"),
    ],
    "ae2006.ex.3": [
        ("Switzerland", "A SWI S A MAR - SAV", "succeeds", ""),
        ("France", "DP 2 A SWI S A MAR - SAV", "succeeds", ""),
        ("Austria", "DP 1 A SWI S A MIL - VEN", "fails", "the unit carried out another order: A SWI S A MAR - SAV"),
    ],
    "ae2006.ex.4": [
        ("Switzerland", "A SWI S A MAR - SAV", "succeeds", ""),
        ("France", "DP 1 A SWI S A MAR - SAV", "succeeds", ""),
        ("Turkey", "DP 1 A SWI S MAR - SAV", "succeeds", ""),  # as written; the same order as France's
        ("Austria", "DP 1 A SWI S A MIL - VEN", "fails", "another order"),
    ],
    "ae2006.dp.2": [
        ("Spain", "DP 2 A SWI S A MAR - SAV", "fails", "all of Spain's DPs are forfeited this turn: it allocated 3 and has 2"),
        ("Spain", "DP 1 A BAV H", "fails", "all of Spain's DPs are forfeited"),
        ("Switzerland", "A SWI S A MIL - VEN", "succeeds", ""),
    ],
    "ae2006.dp.3": [("Austria", "DP 3 A SWI S A MIL - VEN", "fails", "it allocated 4 and has 3")],
    "ae2006.dp.4": [("Austria", "DP 3 A SWI S A MIL - VEN", "succeeds", "")],
    "ae2006.dp.5": [("Spain", "DP 2 A SWI S A MIL - VEN", "fails", "it allocated 2 and has 1")],
    "ae2006.dp.6": [("Turkey", "DP 1 A SWI S A MAR - SAV", "fails", "no order had the most DPs")],
    "ae2006.dp.7": [("Spain", "DP 1 A SWI H", "fails", "another order")],
    "ae2006.dp.8": [("France", "DP 1 A SWI H", "fails", "no order had the most DPs")],
    "ae2006.dp.9": [
        ("France", "DP 3 A MIL H", "void", "the unit in Milan belongs to Austria, not to a minor power"),
        ("France", "DP 1 A SWI S A MAR - SAV", "succeeds", ""),
    ],
    "ae2006.dp.10": [("France", "DP 1 A SWI - TYR", "void", "a minor power may only be ordered to hold or support")],
    "ae2006.dp.11": [("Austria", "DP 2 A SWI - SAV", "void", "may only be ordered to hold or support")],
    "ae2006.dp.12": [("Switzerland", "A SWI S A SAV", "succeeds", "")],
    "ae2006.dp.13": [("Switzerland", "A SWI S A MAR - SAV", "succeeds", ""), ("Tuscany", "A TUS S A MAR - SAV", "succeeds", "")],
    "ae2006.dp.14": [("Austria", "DP 1 A SAV H", "void", "there is no unit in Savoy")],
    "ae2006.dp.15": [("France", "DP 2 F SWI S A MAR - SAV", "void", "the unit in Switzerland is an army")],
    "ae2006.dp.17": [("Spain", "DP 3 A SWI S A MIL - VEN", "fails", "it allocated 3 and has 2")],
    "ae2006.dp.18": [("Switzerland", "A SWI S A MAR - SAV", "void", "the unit in Marseilles is not moving to Savoy")],
    "ae2006.dp.19": [("Venice", "DP 1 A SWI S A MIL - VEN", "void", "Venice is not a great power and has no DPs")],
    "ae2006.rel.1": [("Papal States", "A PAP S A MIL - TUS", "succeeds", "")],
    "ae2006.rel.2": [("Great Britain", "DP 1 A PAP S F TYS - TUS", "void", "the Papal States may only support a unit of a Catholic state")],
    "ae2006.rel.3": [("Russia", "DP 1 A PAP S F TYS - TWS", "void", "the Papal States may only support a unit of a Catholic state")],
    "ae2006.rel.4": [("Papal States", "A PAP S A TUS", "succeeds", "")],
    "ae2006.rel.5": [("Austria", "DP 1 A PAP S A SAV", "void", "the Papal States may only support a unit of a Catholic state")],
    "ae2006.rel.6": [("Spain", "DP 1 F TUN S F WES - ALG", "void", "may not support a Christian great power's attack on a Muslim unit")],
    "ae2006.rel.7": [("Russia", "DP 1 A CRI S A LIT - WLA", "void", "may not support a Christian great power's attack on a Muslim unit")],
    "ae2006.rel.8": [("Russia", "DP 1 A CRI S A LIT - WLA", "void", "Muslim unit in Wallachia")],
    "ae2006.rel.9": [("Crimea", "A CRI S A LIT - WLA", "succeeds", "")],
    "ae2006.rel.10": [("Tunis", "F TUN S F WES - ALG", "succeeds", "")],
    "ae2006.rel.11": [("Turkey", "DP 1 F VEN S F ADR - VIE", "void", "may not support an Ottoman attack on a Christian unit")],
    "ae2006.rel.12": [("Turkey", "DP 1 A SAV S F TYS - TUS", "void", "may not support an Ottoman attack on a Christian unit")],
    "ae2006.rel.13": [("Venice", "F VEN S F ADR - VIE", "succeeds", "")],
    "ae2006.rel.14": [("Venice", "F VEN S F CRO - ADR", "succeeds", "")],
    "ae2006.rel.15": [
        ("Great Britain", "DP 2 A PAP S F TYS - TUS", "void", "Catholic state"),
        ("Papal States", "A PAP S A MIL - TUS", "succeeds", ""),
    ],
    "ae2006.cd.1": [("France", "DP 1 A SWI H", "void", "France is in civil disorder")],
    "ae2006.cd.4": [("Brest", "A BRE S A PAR", "succeeds", ""), ("Austria", "DP 1 A BRE S A PAR", "succeeds", "")],
    "ae2006.minor.12": [
        ("Switzerland", "A SWI - TYR", "void", "Switzerland is a minor power: its unit is ordered only through DPs"),
        ("Sardinia", "A SAV - MIL", "void", "Sardinia is a minor power: its unit is ordered only through DPs"),
    ],
    "aev6.minor.8": [("Switzerland", "A SWI - TYR", "void", "Switzerland is a minor power: its unit is ordered only through DPs")],
    "aev6.dp.15": [
        # it wins the count... (counted, but its owner is told the order it bought did nothing)
        ("France", "DP 2 F SWI S A MAR - SAV", "fails", "allocation counted; the order was void: the unit in Switzerland is an army"),
        ("Switzerland", "F SWI S A MAR - SAV", "void", "the unit in Switzerland is an army"),  # ...and is void
        ("Austria", "DP 1 A SWI S A MIL - VEN", "fails", "the unit carried out another order: F SWI S A MAR - SAV"),
    ],
    "aev6.ex.4": [("Switzerland", "A SWI S A MAR - SAV", "succeeds", ""), ("Turkey", "DP 1 A SWI S MAR - SAV", "succeeds", "")],
    "aev6.dp.2": [("Spain", "DP 1 A BAV H", "fails", "all of Spain's DPs are forfeited")],
    "aev6.dp.3": [("Austria", "DP 4 A SWI S A MIL - VEN", "fails", "it allocated 4 and has 3")],
    "aev6.dp.4": [("Austria", "DP 2 A SWI S A MIL - VEN", "fails", "no order had the most DPs")],
    "aev6.dp.6": [("Spain", "DP 3 A SWI S A MIL - VEN", "fails", "it allocated 3 and has 2")],
    "aev6.dp.7": [("France", "DP 2 A MIL H", "void", "belongs to Austria, not to a minor power")],
    "aev6.dp.8": [("France", "DP 1 A SAV - SWI", "void", "France attacks Sardinia this turn, so it may not allocate DPs to Sardinia")],
    "aev6.dp.9": [
        ("Spain", "DP 1 A SAV - SWI", "succeeds", ""),
        ("Sardinia", "A SAV - SWI", "fails", "a sortie: the unit never leaves its space"),
        ("Austria", "A MIL S A SAV", "void", "moving, not holding"),
    ],
    "aev6.dp.10": [("France", "DP 1 A SAV - MAR", "void", "France supports an attack on Sardinia this turn")],
    "aev6.dp.11": [("France", "DP 1 A SWI S A MAR - SAV", "succeeds", "")],
    "aev6.dp.12": [
        ("France", "DP 2 A SWI - PAR", "fails", "allocation counted; the order was void: no army can reach Paris"),
        ("Switzerland", "A SWI - PAR", "void", "no army can reach Paris from Switzerland"),
        ("Austria", "DP 1 A SWI S A MIL - VEN", "fails", "the unit carried out another order: A SWI - PAR"),
    ],
    "aev6.dp.13": [("Switzerland", "A SWI S A MAR - SAV", "void", "not moving to Savoy")],
    "aev6.dp.14": [("Austria", "DP 1 A SAV - MAR", "void", "there is no unit in Savoy")],
    "aev6.sortie.1": [("Switzerland", "A SWI - TYR", "fails", "a sortie: the unit never leaves its space")],
    "aev6.sortie.2": [("Austria", "A VIE - TYR", "fails", "bounced in Tyrol")],
    "aev6.sortie.3": [("Baden-Wuerttemberg", "A BAW S A SWI - TYR", "succeeds", ""), ("Austria", "A VIE - TYR", "fails", "bounced")],
    "aev6.sortie.4": [("Baden-Wuerttemberg", "A BAW S A SWI", "void", "the unit in Switzerland is moving, not holding")],
    "aev6.sortie.5": [("Baden-Wuerttemberg", "A BAW S A SWI", "succeeds", "")],
    "aev6.sortie.8": [("Austria", "A MIL S A TYR - VEN", "cut", "cut by the attack from Switzerland")],
    "aev6.sortie.9": [("Sardinia", "A SAV S A SWI - MIL", "succeeds", ""), ("Switzerland", "A SWI - MIL", "fails", "a sortie")],
    "aev6.sortie.12": [("Sardinia", "A SAV - SAR", "fails", "a sortie")],
    "aev6.rel.1": [("Papal States", "A PAP - TUS", "fails", "a sortie")],
    "aev6.rel.2": [("Great Britain", "F TUS S F GLY - SAV", "cut", "cut by the attack from Papal States")],
    "aev6.rel.3": [
        ("France", "DP 1 A PAP - TUS", "succeeds", ""),  # the count is won; the order itself is void
        ("Papal States", "A PAP - TUS", "void", "the Papal States may not sortie against a Catholic unit in Tuscany"),
    ],
    "aev6.rel.4": [("Papal States", "A PAP S F TYS - TWS", "succeeds", "")],
    "aev6.rel.5": [("Papal States", "A PAP S F TYS - TUS", "void", "the Papal States may only support a Catholic unit")],
    "aev6.rel.6": [("Papal States", "A PAP S F TYS - TWS", "void", "the Papal States may only support a Catholic unit")],
    "aev6.rel.7": [("Papal States", "A PAP S A TUS", "succeeds", "")],
    "aev6.rel.8": [("Papal States", "A PAP C A TUS - TYS", "void", "the Papal States may only hold, sortie or support")],
    "aev6.rel.9": [
        ("Great Britain", "DP 2 A PAP S F TYS - TUS", "succeeds", ""),
        ("Austria", "DP 1 A PAP S A MIL - TUS", "fails", "the unit carried out another order: A PAP S F TYS - TUS"),
        ("Papal States", "A PAP S F TYS - TUS", "void", "the Papal States may only support a Catholic unit"),
    ],
    "aev6.rel.10": [("Tunis", "F TUN S F WES - ALG", "void", "Tunis may not support a Christian attack on an Islamic unit in Algiers")],
    "aev6.rel.11": [("Crimea", "A CRI S A LIT - WLA", "void", "Crimea may not support a Christian attack on an Islamic unit in Wallachia")],
    "aev6.rel.12": [("Tunis", "F TUN S F WES - ALG", "succeeds", "")],
    "aev6.rel.13": [("Venice", "F VEN S F ADR - VIE", "void", "Venice may not support an Islamic attack on a Christian unit in Vienna")],
    "aev6.rel.14": [("Venice", "F VEN S F ADR - VIE", "void", "may not support an Islamic attack on a Christian unit")],
    "aev6.rel.15": [("Switzerland", "A SWI S A TYR - VEN", "void", "Switzerland may not support an Islamic attack on a Christian unit")],
    "aev6.rel.16": [("Venice", "F VEN S F ADR - VIE", "succeeds", "")],
    "aev6.rel.17": [("Tunis", "F TUN S F TWS - ION", "void", "Tunis may not support a Christian attack on an Islamic unit in Ionian Sea")],
    "aev6.rel.18": [("Tunis", "F TUN S F TWS - ION", "succeeds", "")],
    "aev6.irish.1": [("Great Britain", "A EDI - IRE", "void", "blocked by the fleet of France")],
    "aev6.irish.2": [("Great Britain", "F EDI - IRE", "void", "blocked by the fleet of France")],
    "aev6.irish.5": [("Great Britain", "A EDI - IRE", "void", "blocked by the fleet of France")],
    "aev6.irish.9": [("Great Britain", "F IRE R EDI", "void", "cannot retreat to Edinburgh")],
    "aev6.cd.1": [("France", "DP 1 A SWI H", "void", "France is in civil disorder")],
    "aev6.cd.4": [("Brest", "F BRE - PIC", "fails", "a sortie"), ("Spain", "A PIC S A GAS - PAR", "cut", "cut by the attack from Brest")],
    "ae2006.home.1": [("Austria", "Build A ANE", "void", "Austria cannot build in Austrian Netherlands")],
    "ae2006.home.3": [("Russia", "Build A CRI", "void", "Russia cannot build in Crimea"), ("Turkey", "Build A CRI", "succeeds", "")],
    "ae2006.home.8": [("Spain", "Build F MOR", "void", "Spain cannot build in Morocco")],
    "ae2006.home.13": [("Sweden", "Build F STO", "void", "Sweden cannot build in Stockholm")],
    "ae2006.home.17": [("Poland-Saxony", "Build A HEW", "void", "cannot build in Hesse-Westphalia")],
    "aev6.home.1": [("Russia", "Build A CRI", "void", "Russia has already used all 3 of its builds")],
    "aev6.home.2": [("Austria", "Build A ANE", "void", "Austria cannot build in Austrian Netherlands")],
    "aev6.home.4": [("Spain", "Build F MOR", "void", "Spain cannot build in Morocco")],
    "aev6.home.6": [("Turkey", "Build F TUN", "void", "Turkey cannot build in Tunis")],
    "aev6.home.7": [("Great Britain", "Build F UPR", "void", "cannot build in United Provinces")],
    "aev6.home.8": [("France", "Build A SWI", "void", "France cannot build in Switzerland")],
}


@pytest.mark.parametrize("case_id", sorted(RESULTS))
def test_results(case_id):
    got = results(case_id)
    for power, order, result, reason in RESULTS[case_id]:
        found = [g for g in got if g[0] == power and g[1] == order]
        assert found, f"no result for {power}: {order} among {got}"
        assert found[0][2] == result, found[0]
        assert (found[0][3] == "") if reason == "" else (reason in found[0][3]), found[0]


def test_only_winning_minor_orders_are_carried_out():
    """Section IV: "Only the GM will know how Great Powers have allocated their DPs ... only the
    end results are published." The minor unit's order is a result in the minor power's own name,
    one per minor unit, and it is the winning order; the losing allocations are results of their
    owners only."""
    got = results("ae2006.ex.3")
    minor_orders = [g for g in got if g[0] == "Switzerland"]
    assert minor_orders == [("Switzerland", "A SWI S A MAR - SAV", "succeeds", "")]
    allocations = [r for r in adj("ae2006.ex.3").results if isinstance(r.order, Allocation)]
    assert {(r.order.power, r.order.points) for r in allocations} == {("France", 2), ("Austria", 1)}
    # Where no order wins (a tie) the unit holds: no order is published for it at all.
    assert [g for g in results("ae2006.ex.2") if g[0] == "Switzerland"] == []


def test_json_orders_show_each_allocation_result_and_the_minor_order():
    """`gm adjudicate --json`: each ORDERS line with its own result (allocations included), then the
    minor unit's published order under the minor power's name."""
    data = to_json(run("ae2006.ex.1"))
    assert data["orders"] == [
        {"power": "France", "order": "A MAR - SAV", "result": "succeeds", "reason": ""},
        {"power": "France", "order": "DP 1 A SWI S A MAR - SAV", "result": "succeeds", "reason": ""},
        {"power": "Austria", "order": "A MIL - VEN", "result": "fails", "reason": "bounced in Republic of Venice"},
        {"power": "Switzerland", "order": "A SWI S A MAR - SAV", "result": "succeeds", "reason": ""},
    ]
    rows = {(o["power"], o["order"]): (o["result"], o["reason"]) for o in to_json(run("aev6.rel.9"))["orders"]}
    assert rows[("Great Britain", "DP 2 A PAP S F TYS - TUS")] == ("succeeds", "")
    assert rows[("Papal States", "A PAP S F TYS - TUS")] == ("void", "the Papal States may only support a Catholic unit")


def test_cli_json_lists_the_minor_order():
    path = CASES_DIR / "ae2006_dp_examples.txt"
    proc = subprocess.run(
        [sys.executable, "-m", "gm", "adjudicate", str(path), "--json", "--case", "ae2006.ex.2"],
        capture_output=True, text=True, cwd=Path(__file__).resolve().parents[3],
    )
    assert proc.returncode == 0, proc.stderr
    orders = json.loads(proc.stdout)["orders"]
    assert [o["result"] for o in orders if o["order"].startswith("DP")] == ["fails", "fails"]
    assert not [o for o in orders if o["power"] == "Switzerland"]  # a tie: the unit holds, nothing published


# ----------------------------------------------------------------------------- chained cases
# (case, next case): the units after the first are the great-power units the second starts with.
UNIT_CHAINS = [
    ("ae2006.dp.16", "ae2006.dp.17"),
    ("aev6.dp.5", "aev6.dp.6"),
    ("ae2006.minor.2", "ae2006.minor.3"),
    ("ae2006.minor.3", "ae2006.minor.4"),
    ("aev6.minor.2", "aev6.minor.3"),
    ("aev6.minor.3", "aev6.minor.4"),
    ("ae2006.home.10", "ae2006.home.11"),
]
# (case, later case): the later case states the home centres the first one left.
HOME_CHAINS = [
    ("ae2006.home.4", "ae2006.home.6"),
    ("ae2006.home.6", "ae2006.home.7"),
    ("ae2006.home.7", "ae2006.home.8"),
    ("ae2006.home.8", "ae2006.home.9"),
    ("ae2006.home.10", "ae2006.home.11"),
    ("ae2006.home.11", "ae2006.home.12"),
    ("ae2006.home.12", "ae2006.home.13"),
    ("aev6.home.8", "aev6.home.9"),
    ("aev6.home.13", "aev6.home.14"),
]
# (case, later case): the later case states the ownership the first one left.
OWNER_CHAINS = [("ae2006.win.4", "ae2006.win.5"), ("ae2006.win.4", "ae2006.win.6")]


def _great_units(case_id: str, units) -> set[tuple[str, str]]:
    v = BY_ID[case_id].variant
    return {(u.power, str(u)) for u in units if not v.powers[u.power].minor}


@pytest.mark.parametrize("first,second", UNIT_CHAINS, ids=[f"{a}->{b}" for a, b in UNIT_CHAINS])
def test_unit_chain(first, second):
    after = adj(first)
    assert _great_units(first, after.units.values()) == _great_units(second, BY_ID[second].prestate)
    if BY_ID[second].phase.kind is PhaseKind.ADJUSTMENT:
        assert after.state.phase == BY_ID[second].phase


@pytest.mark.parametrize("first,second", HOME_CHAINS, ids=[f"{a}->{b}" for a, b in HOME_CHAINS])
def test_home_chain(first, second):
    stated = BY_ID[second].home_centres
    assert stated
    state = adj(first).state
    assert {p: homes(state, p) for p in stated} == {p: set(h) for p, h in stated.items()}


@pytest.mark.parametrize("first,second", OWNER_CHAINS, ids=[f"{a}->{b}" for a, b in OWNER_CHAINS])
def test_owner_chain(first, second):
    assert adj(first).state.supply_centres == BY_ID[second].centre_owners


# ------------------------------------------------------- 2006 V.2 example 3: the winter declaration
def _orders(state: GameState, variant_name: str, lines: list[str]):
    v = load_variant(variant_name)
    out = []
    for line in lines:
        power, _, text = line.partition(":")
        parsed = parse_order(v, text.strip(), power.strip(), state.phase.kind, state)
        assert parsed.order is not None, parsed.error
        out.append(parsed.order)
    return out


def _winter_after(case_id: str, lines: list[str]) -> Adjudication:
    state = adj(case_id).state
    v = BY_ID[case_id].variant
    return adjudicate(v, state, _orders(state, v.name, lines))


def test_example3_choice_is_pending_after_the_fall():
    state = adj("ae2006.home.15").state
    assert state.extra.get("home_choice") == {"Poland-Saxony": ("BRL", "HEW")}
    assert homes(state, "Poland-Saxony") == {"DRE", "WAR"}


def test_example3_home_order_declares_the_third_home():
    """"Poland & Saxony must designate one of these as its 3rd home SC": HOME BRL."""
    winter = _winter_after("ae2006.home.15", ["Poland-Saxony: HOME BRL", "Poland-Saxony: Build A DRE"])
    got = [(type(r.order).__name__, r.result.value) for r in winter.results]
    assert ("DeclareHome", "succeeds") in got and ("Build", "succeeds") in got
    assert homes(winter.state, "Poland-Saxony") == {"DRE", "WAR", "BRL"}
    assert "home_choice" not in winter.state.extra or not winter.state.extra["home_choice"]
    assert winter.state.phase.season.value == "Spring"
    # The homes ae2006.home.17 states are exactly these.
    assert BY_ID["ae2006.home.17"].home_centres == {"Poland-Saxony": frozenset({"DRE", "WAR", "BRL"})}


def test_example3_default_is_the_nearest_candidate():
    """No declaration and no build in a candidate: Hesse-Westphalia (next to Dresden) rather than
    Breslau (two spaces from Dresden and Warsaw)."""
    winter = _winter_after("ae2006.home.15", [])
    assert homes(winter.state, "Poland-Saxony") == {"DRE", "WAR", "HEW"}


def test_example3_default_tie_is_broken_by_name():
    state = adj("ae2006.home.16").state
    assert state.extra.get("home_choice") == {"Poland-Saxony": ("BAW", "HEW")}
    winter = _winter_after("ae2006.home.16", [])
    assert homes(winter.state, "Poland-Saxony") == {"DRE", "WAR", "BAW"}  # Baden-W... before Hesse-W...


def test_example3_a_home_order_for_another_centre_is_void():
    winter = _winter_after("ae2006.home.15", ["Poland-Saxony: HOME BER", "Spain: HOME MAD"])
    reasons = [r.reason for r in winter.results if r.result.value == "void"]
    assert any("may choose Breslau or Hesse-Westphalia, not Berlin" in r for r in reasons), reasons
    assert any("Spain has no home centre to choose this winter" in r for r in reasons), reasons
    assert homes(winter.state, "Poland-Saxony") == {"DRE", "WAR", "HEW"}  # then the default applies


def test_home_order_only_in_a_winter():
    v = load_variant("ambition")
    parsed = parse_order(v, "HOME POR", "Spain", PhaseKind.MOVEMENT, None)
    assert parsed.order is None and "adjustment phase" in (parsed.error or "")


def test_dp_allocation_only_in_a_movement_phase():
    v = load_variant("ambition")
    parsed = parse_order(v, "DP 1 A SWI H", "France", PhaseKind.ADJUSTMENT, None)
    assert parsed.order is None and "movement phase" in (parsed.error or "")


def test_v6_has_no_home_declaration():
    state = adj("aev6.home.15").state
    assert not state.extra.get("home_choice")
    winter = adjudicate(BY_ID["aev6.home.15"].variant, state, _orders(state, "ambition-v6", ["Spain: HOME POR"]))
    assert [r.result.value for r in winter.results] == ["void"]
    assert homes(winter.state, "Spain") == {"MAD", "BRC"}


# -------------------------------------------------------------------- civil disorder (VII / v6)
@pytest.mark.parametrize("case_id,brest", [("ae2006.cd.5", UnitType.ARMY), ("aev6.cd.5", UnitType.FLEET)])
def test_cd_units_disbanded_and_empty_centres_independent(case_id, brest):
    """2006: "All units of the [GPCD] are immediately disbanded. All SCs controlled by the GPCD
    that are unoccupied are immediately considered newly independent minor powers. Minor power army
    units are built in those minor power spaces." v6: "armies or fleets depending on the type of
    unit that was in that SC at game-start" (France started with a fleet in Brest) and "New minor
    powers share the religious affiliation of the former Great Power"."""
    r = run(case_id)
    start = r.state
    assert {p: (u.power, u.type) for p, u in start.units.items() if p in ("PAR", "MAR", "BRE")} == {
        "PAR": ("Paris", UnitType.ARMY),
        "MAR": ("Marseilles", UnitType.ARMY),
        "BRE": ("Brest", brest),
    }
    assert not start.units_of("France")
    assert {c: start.supply_centres[c] for c in ("PAR", "MAR", "BRE")} == {"PAR": "Paris", "MAR": "Marseilles", "BRE": "Brest"}
    v = r.variant
    for name in ("Paris", "Marseilles", "Brest"):
        assert v.rules.is_minor(v, start, name)
        assert v.rules.religion(v, start, name) == "Catholic"
    assert start.extra["civil_disorder"] == ("France",)


@pytest.mark.parametrize("case_id", ["ae2006.cd.5", "aev6.cd.5"])
def test_cd_new_minor_powers_regain_their_unit_like_any_minor(case_id):
    """New minor powers "are subject to the provisions of III. MINOR POWERS": after the case (Paris's
    army destroyed), Spain leaves Paris empty through the Fall; Paris is still its own, and the army
    comes back in the winter."""
    a = adj(case_id)
    variant = BY_ID[case_id].variant
    state = a.state
    fall = adjudicate(variant, state, _orders(state, variant.name, ["Spain: A PAR - GAS"]))
    assert fall.state.supply_centres["PAR"] == "Paris"
    assert fall.state.phase.kind is PhaseKind.ADJUSTMENT
    winter = adjudicate(variant, fall.state, [])
    assert winter.units["PAR"] == Unit("Paris", UnitType.ARMY, "PAR")


@pytest.mark.parametrize(
    "case_id,built",
    [
        ("ae2006.cd.3", {"MAR": Unit("Marseilles", UnitType.ARMY, "MAR")}),
        ("aev6.cd.3", {"PAR": Unit("Paris", UnitType.ARMY, "PAR"), "BRE": Unit("Brest", UnitType.FLEET, "BRE")}),
    ],
)
def test_cd_vacated_centre_gets_its_unit_in_the_winter(case_id, built):
    """"If the occupying Great Power moves its unit out of the GPCD's SC so that the SC is
    unoccupied at the conclusion of a Fall turn, a minor power army unit is built there" (2006; in
    v6 "the appropriate unit": a fleet in Brest)."""
    state = adj(case_id).state
    for prov, unit in built.items():
        assert state.supply_centres[prov] == unit.power
        assert prov not in state.units  # built in the winter, not yet
    winter = adjudicate(BY_ID[case_id].variant, state, [])
    for prov, unit in built.items():
        assert winter.units[prov] == unit


def test_cd_spring_vacancy_frees_nothing_until_the_fall():
    """ae2006.cd.2: Marseilles, left in Spring, stays French; left empty through the Fall it becomes
    a new minor power."""
    state = adj("ae2006.cd.2").state
    assert state.supply_centres["MAR"] == "France"
    assert "independents" not in state.extra
    fall = adjudicate(BY_ID["ae2006.cd.2"].variant, state, [])
    assert fall.state.supply_centres["MAR"] == "Marseilles"
    assert fall.state.supply_centres["PAR"] == "Austria"


def test_cd_name_clash_with_a_power():
    """A new minor power named like an existing power gets a distinct name: Russia in civil
    disorder owning Crimea (a Russian home in 2006) makes "Free Crimea"."""
    text = """
VARIANT_ALL ambition
CASE cd.crimea (Russia in civil disorder owns Crimea)
PRESTATE_SETPHASE Spring 1765, Movement
PRESTATE_SUPPLYCENTER_OWNERS
    Russia: MOS
    Russia: CRI
PRESTATE_CIVIL_DISORDER
    Russia
PRESTATE
    Russia: A CRI
ORDERS
END
"""
    r = run_case(parse_cases(text)[0])
    assert r.state.units["CRI"] == Unit("Free Crimea", UnitType.ARMY, "CRI")
    assert r.state.units["MOS"] == Unit("Moscow", UnitType.ARMY, "MOS")
    assert r.state.supply_centres["CRI"] == "Free Crimea"
