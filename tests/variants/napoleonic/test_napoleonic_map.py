"""The Napoleonic Wars data: maps/napoleonic/variant.toml.

Rule numbers are those of shared/rules/napoleonic-wars.txt; the map decisions tested here are
explained in maps/napoleonic/README.md ("Map decisions").
"""
from __future__ import annotations

import re
from collections import Counter, deque

import pytest

from gm.engine.graph import Terrain
from gm.engine.model import PhaseKind, Season, UnitType
from gm.engine.parse import KEYWORDS, TYPES, _norm, resolve_location, resolve_power
from gm.variants import load_variant, maps_dir


@pytest.fixture(scope="module")
def v():
    return load_variant("napoleonic")


@pytest.fixture(scope="module")
def m(v):
    return v.map


def army(m, a: str, b: str) -> bool:
    return b in m.army.get(a, ())


def fleet_any(m, a: str, b: str) -> bool:
    """Can a fleet on any coast of province a move to any coast of province b?"""
    return b in m.sea_neighbours.get(a, ())


# --- size and terrain -------------------------------------------------------------------------

def test_space_counts(m):
    terrains = Counter(p.terrain for p in m.provinces.values())
    assert len(m.provinces) == 105
    assert terrains[Terrain.SEA] == 25
    assert terrains[Terrain.COAST] == 54 and terrains[Terrain.LAND] == 26
    assert Terrain.IMPASSABLE not in terrains


def test_edge_counts(m):
    assert sum(len(d) for d in m.army.values()) == 326
    assert sum(len(d) for d in m.fleet.values()) == 376


def test_adjacency_symmetric_and_typed(m):
    for kind, adj in (("army", m.army), ("fleet", m.fleet)):
        for here, dests in adj.items():
            assert here not in dests
            for there in dests:
                assert here in adj[there], f"{kind} {here}-{there} one way"
    for here, dests in m.army.items():
        assert m.provinces[here].terrain is not Terrain.SEA
        assert all(m.provinces[d].terrain is not Terrain.SEA for d in dests)
    for here, dests in m.fleet.items():
        assert m.provinces[here.split("/")[0]].terrain is not Terrain.LAND
        assert all(m.provinces[d.split("/")[0]].terrain is not Terrain.LAND for d in dests)
    islands = {"ICE", "CRE", "CAN"}  # no land touches them
    for p in m.provinces.values():
        if p.terrain is Terrain.COAST:
            locations = m.fleet_locations(p.abbr)
            assert locations and all(m.fleet[loc] & m.seas for loc in locations), p.abbr
            assert p.abbr in m.army and (bool(m.army[p.abbr]) != (p.abbr in islands)), p.abbr
        if p.terrain is Terrain.LAND:
            assert p.abbr not in m.fleet and m.army[p.abbr], p.abbr
        if p.terrain is Terrain.SEA:
            assert p.abbr not in m.army and m.fleet[p.abbr], p.abbr


def test_provinces_written_in_sorted_order():
    text = (maps_dir() / "napoleonic" / "variant.toml").read_text()
    heads = re.findall(r"^\[provinces\.(\w+)\]", text, flags=re.M)
    assert len(heads) == 105 and heads == sorted(heads)
    for body in re.findall(r"^(?:army|fleet|EC|WC) = \[(.*)\]$", text, flags=re.M):
        items = re.findall(r'"([^"]+)"', body)
        assert items == sorted(items)


def test_every_space_connected(m):
    start = "PAR"
    seen, todo = {start}, deque([start])
    while todo:
        for n in m.all_neighbours[todo.popleft()] - seen:
            seen.add(n)
            todo.append(n)
    assert seen == set(m.provinces)


def test_every_sea_reachable_by_fleet(m):
    """From the North Sea a fleet can sail to every sea and every coast, coast by coast."""
    start = "NTH"
    seen, todo = {start}, deque([start])
    while todo:
        for n in m.fleet[todo.popleft()] - seen:
            seen.add(n)
            todo.append(n)
    assert seen == set(m.fleet)
    assert {loc for loc in seen if loc in m.seas} == m.seas
    # Sea to sea, every sea but the Black Sea: a fleet enters that through Constantinople (the
    # Sea of Marmara is no space), as in standard Diplomacy.
    seen, todo = {start}, deque([start])
    while todo:
        for n in (m.fleet[todo.popleft()] & m.seas) - seen:
            seen.add(n)
            todo.append(n)
    assert seen == m.seas - {"BLA"}
    assert m.fleet["BLA"] & m.seas == frozenset()
    assert {"AEG", "BLA"} <= m.fleet["CON"]


# --- supply centres ---------------------------------------------------------------------------

HOME = {
    "Austria": {"VIE", "BUD", "TRA", "DAL"},
    "England": {"LON", "LVP", "SCO"},
    "France": {"BRE", "PAR", "BOR", "MAR"},
    "Prussia": {"BER", "KOL", "KON", "BRT"},
    "Russia": {"STP", "MOS", "SIB", "AZO"},
}
MINOR = {
    "Bavaria": {"BAV"}, "Denmark": {"DEN"}, "Hanover": {"HAN"}, "Naples": {"NAP"}, "Portugal": {"POR"},
    "Sweden": {"SWE"}, "Spain": {"MAD", "VAL"}, "Turkey": {"CON", "SMY"}, "Wurzburg": {"WUR"},
}
NEUTRAL = {"IRE", "NWY", "ANX", "BEL", "HES", "SAX", "PAL", "HRG", "SAV", "VEN", "TUS", "PAP", "WAR",
           "KAU", "MOR", "TUN", "EGY", "SYR"}
UNITS = {
    "Austria": {"F DAL", "A VIE", "A BUD", "A TRA"},
    "England": {"F LON", "F SCO", "A LVP", "F SAR"},
    "France": {"F BRE", "A PAR", "A BOR", "F MAR"},
    "Prussia": {"A BER", "A KOL", "A KON", "A BRT"},
    "Russia": {"A STP", "A MOS", "A SIB", "A AZO"},
    "Bavaria": {"A BAV"}, "Denmark": {"F DEN"}, "Hanover": {"A HAN"}, "Naples": {"F NAP"},
    "Portugal": {"A POR"}, "Sweden": {"F SWE"}, "Spain": {"A MAD", "F VAL"},
    "Turkey": {"A CON", "A SMY"}, "Wurzburg": {"A WUR"},
}


def test_supply_centres(v, m):
    centres = {a for a, p in m.provinces.items() if p.supply_centre}
    home = set().union(*HOME.values())
    minor = set().union(*MINOR.values())
    assert (len(home), len(minor), len(NEUTRAL)) == (19, 11, 18)
    assert centres == home | minor | NEUTRAL
    assert len(centres) == 48
    # The rules count 50 (rule 14); the picture shows 48 and gm ships those (README).
    assert v.facts["centres_in_rules"] == 50 == len(centres) + 2


def test_powers_and_home_centres(v):
    assert set(v.powers) == set(HOME) | set(MINOR)
    assert sorted(v.great_powers) == sorted(HOME)
    for name, homes in HOME.items():
        assert v.powers[name].home_centres == frozenset(homes), name
        assert not v.powers[name].minor
    for name, homes in MINOR.items():
        assert v.powers[name].minor, name
        assert v.powers[name].home_centres == frozenset(homes), name


def test_starting_units(v):
    got = {(u.power, f"{u.type.value} {u.location}") for u in v.starting_units}
    assert got == {(p, u) for p, units in UNITS.items() for u in units}
    assert len(v.starting_units) == 20 + 11
    assert all("/" not in u.location for u in v.starting_units)  # nobody starts on a split coast


def test_england_starts_with_a_unit_more_than_centres(v, m):
    english = [u for u in v.starting_units if u.power == "England"]
    assert len(english) == 4 and len(v.powers["England"].home_centres) == 3
    assert not m.provinces["SAR"].supply_centre
    sar = next(u for u in english if u.province == "SAR")
    assert sar.type is UnitType.FLEET
    assert "SAR" not in v.starting_centres


def test_starting_centres(v):
    expected = {c: p for p, homes in {**HOME, **MINOR}.items() for c in homes}
    assert v.starting_centres == expected
    assert len(v.starting_centres) == 30
    assert not NEUTRAL & set(v.starting_centres)


def test_initial_state(v):
    s = v.initial_state()
    assert s.phase.year == 1800 and s.phase.season is Season.WINTER
    assert s.phase.kind is PhaseKind.BIDDING
    assert v.phase_label(s.phase) == "Winter 1800, Bidding"
    assert len(s.units) == 31 and len(s.supply_centres) == 30
    assert s.units["SAR"].power == "England" and s.units["VAL"].type is UnitType.FLEET


def test_victory(v):
    assert v.victory_centres == 20
    assert v.facts["victory_exceptions"] == {"England": 19}


def test_facts_keys(v):
    assert set(v.facts) == {"build_centres", "direct_passages", "victory_exceptions", "centres_in_rules"}


def test_colours(v):
    hexes = {p.name: p.colour for p in v.powers.values()}
    assert all(re.fullmatch(r"#[0-9a-f]{6}", c) for c in hexes.values()), hexes
    majors = [hexes[p] for p in HOME]
    assert len(set(majors)) == 5
    minor = {hexes[p] for p in MINOR}
    assert len(minor) == 1 and not minor & set(majors)


# --- rule 11: split coasts, no canal, build centres, the Canary Islands --------------------------

def test_split_coasts(m):
    assert [p.abbr for p in m.provinces.values() if p.coasts] == ["HAN", "PAP"]
    assert m.provinces["HAN"].coasts == ("EC", "WC") and m.provinces["PAP"].coasts == ("EC", "WC")
    assert m.fleet["HAN/EC"] == {"DEN", "KOL", "SKA"}
    assert m.fleet["HAN/WC"] == {"ANX", "DEN", "HEL"}
    assert m.fleet["PAP/EC"] == {"ADR", "NAP", "VEN"}
    assert m.fleet["PAP/WC"] == {"NAP", "TUS", "TYS"}
    # the sea each coast touches
    assert m.fleet["HAN/EC"] & m.seas == {"SKA"}
    assert m.fleet["HAN/WC"] & m.seas == {"HEL"}
    assert m.fleet["PAP/EC"] & m.seas == {"ADR"}
    assert m.fleet["PAP/WC"] & m.seas == {"TYS"}
    assert m.army["HAN"] == {"ANX", "DEN", "HES", "KOL", "SAX"}
    assert m.army["PAP"] == {"NAP", "TUS", "VEN"}


def test_no_kiel_canal(m):
    # No fleet goes through Hanover or Jutland from the Heligoland Bight to the Baltic side.
    assert m.fleet["HEL"] == {"ANX", "DEN", "HAN/WC", "NTH"}
    for sea in ("BLT", "SKA"):
        assert not fleet_any(m, "HEL", sea) and not fleet_any(m, sea, "HEL")
    assert "HAN/EC" not in m.fleet["HAN/WC"] and "HAN/WC" not in m.fleet["HAN/EC"]
    assert not fleet_any(m, "HAN", "BLT")
    assert not fleet_any(m, "NTH", "BLT")


def test_build_centres(v, m):
    assert v.facts["build_centres"] == {
        "ARK": {"power": "Russia", "units": ["F"]},
        "SAR": {"power": "England", "units": ["A", "F"]},
    }
    for abbr, power in (("ARK", "Russia"), ("SAR", "England")):
        p = m.provinces[abbr]
        assert p.terrain is Terrain.COAST and not p.supply_centre
        assert abbr not in v.powers[power].home_centres
        assert m.fleet[abbr] & m.seas  # a fleet built there can sail
    assert m.fleet["ARK"] & m.seas == {"ARC", "BAR"}


def test_canary_islands(m):
    can = m.provinces["CAN"]
    assert can.terrain is Terrain.COAST and can.name == "Canary Islands" and not can.supply_centre
    assert m.army["CAN"] == frozenset()
    assert m.fleet["CAN"] == {"NAO", "SAO"}
    assert not any("CAN" in dests for dests in m.army.values())
    # an army reaches it by convoy only: from Portugal through the South Atlantic
    assert m.sea_path_exists("POR", "CAN", {"SAO"})
    assert not m.sea_path_exists("POR", "CAN", {"MAO"})


def test_islands(m):
    for island in ("ICE", "CRE", "CAN", "SAR", "COR", "SIC", "IRE"):
        assert m.provinces[island].terrain is Terrain.COAST, island
    assert m.army["ICE"] == m.army["CRE"] == frozenset()
    assert m.army["SAR"] == {"COR"} and m.army["COR"] == {"SAR"}  # drawn touching (decision 3)
    assert m.army["SIC"] == {"NAP"} and m.army["IRE"] == {"SCO"}  # the direct passages alone


# --- rule 10: direct passages ------------------------------------------------------------------

PASSAGES = [("IRE", "SCO", "IRI"), ("AND", "MOR", "WMS"), ("NAP", "SIC", "TYS"), ("DEN", "SWE", "SKA")]


def test_direct_passages_fact(v):
    assert [tuple(p) for p in v.facts["direct_passages"]] == PASSAGES


@pytest.mark.parametrize("a,b,sea", PASSAGES)
def test_direct_passage_army_only(m, a, b, sea):
    assert army(m, a, b) and army(m, b, a)
    assert b not in m.fleet[a] and a not in m.fleet[b]
    assert not fleet_any(m, a, b) and not fleet_any(m, b, a)
    # the sea crossed touches both ends
    assert sea in m.fleet[a] and sea in m.fleet[b]
    assert m.provinces[sea].terrain is Terrain.SEA


# --- map decisions (README) ----------------------------------------------------------------------

def test_decision_liverpool_wales(m):
    assert army(m, "LVP", "WAL") and fleet_any(m, "LVP", "WAL")
    assert not fleet_any(m, "LVP", "YOR") and army(m, "LVP", "YOR")


def test_decision_strait_of_dover(m):
    assert fleet_any(m, "BEL", "ENG") and fleet_any(m, "BEL", "NTH")
    assert fleet_any(m, "PIC", "ENG") and not fleet_any(m, "PIC", "NTH")
    assert fleet_any(m, "ENG", "NTH")


def test_decisions_corsica_and_the_gulf_of_lion(m):
    assert army(m, "COR", "SAR") and fleet_any(m, "COR", "SAR")
    assert not army(m, "COR", "TUS") and not fleet_any(m, "COR", "TUS")
    assert fleet_any(m, "GOL", "TUS") and fleet_any(m, "TYS", "TUS")
    assert fleet_any(m, "GOL", "TYS")
    assert m.fleet["COR"] == {"GOL", "SAR", "TYS"}


def test_decision_point_contacts(m):
    for a, b in (("BRT", "SPR"), ("KON", "WAR"), ("KAU", "GAL"), ("SIB", "ARC"), ("CAU", "TKS")):
        assert b not in m.all_neighbours[a], (a, b)
    assert m.provinces["SIB"].terrain is Terrain.LAND
    assert m.army["SPR"] == {"BER", "GAL", "KON", "SIL", "WAR"}
    assert m.provinces["SPR"].name == "South Prussia"


def test_decision_sicily_ionian(m):
    assert m.fleet["SIC"] == {"BOT", "ION", "TYS"}


def test_decision_hanover_saxony(m):
    assert army(m, "HAN", "SAX") and army(m, "KOL", "SAX")


def test_prussian_coast(m):
    assert army(m, "KOL", "KON") and fleet_any(m, "KOL", "KON")
    assert army(m, "KON", "BRT") and fleet_any(m, "KON", "BRT")
    assert army(m, "KOL", "BER") and army(m, "KON", "BER")
    assert m.fleet["KOL"] & m.seas == {"BLT", "SKA"}
    assert m.fleet["KON"] & m.seas == {"BLT", "RIG"}
    assert m.fleet["BRT"] & m.seas == {"RIG"}
    assert m.provinces["BER"].terrain is Terrain.LAND


def test_gibraltar(m):
    assert m.fleet["AND"] & m.seas == {"SAO", "WMS"}
    assert m.fleet["MOR"] & m.seas == {"SAO", "WMS"}
    assert "GIB" not in m.provinces


def test_the_east(m):
    assert m.army["CAU"] == {"AZO", "MID", "MOS", "SIB", "TRE", "WRU"}
    assert m.army["TKS"] == {"MID", "SIB"} and m.provinces["TKS"].terrain is Terrain.LAND
    assert m.fleet["CON"] & m.seas == {"AEG", "BLA", "EMS"}
    assert m.fleet["CRE"] == {"AEG", "EMS", "ION", "SMS"}
    assert m.army["ARK"] == {"FIN", "MOS", "NWY", "SIB", "STP", "SWE"}


# --- names ---------------------------------------------------------------------------------------

def test_abbreviations(m):
    named = {
        "NWG": "Norwegian Sea", "NTH": "North Sea", "ENG": "English Channel", "MAO": "Mid-Atlantic Ocean",
        "BOB": "Bay of Biscay", "WAL": "Wales", "TUN": "Tunisia", "BOT": "Bay of Tunis",
        "ION": "Ionian Sea", "AEG": "Aegean Sea", "CON": "Constantinople", "BAL": "Balkans",
        "IRI": "Irish Sea", "WMS": "Western Mediterranean Sea", "TYS": "Tyrrhenian Sea",
        "SKA": "Skagerrak", "BLT": "Baltic Sea", "DEN": "Denmark", "SWE": "Sweden", "FIN": "Finland",
        "ARK": "Arkangel", "SAR": "Sardinia", "KON": "Konigsburg", "ANX": "Austrian Netherlands",
        "HRG": "Helvetian Republic", "GOB": "Gulf of Bothnia", "MID": "Middle East",
    }
    for abbr, name in named.items():
        assert m.provinces[abbr].name == name, abbr
    for abbr in m.provinces:
        assert re.fullmatch(r"[A-Z]{3}", abbr)


def _spellings(m) -> dict[str, set[str]]:
    """Every spelling as the order parser folds it (and without spaces) -> provinces."""
    seen: dict[str, set[str]] = {}
    for p in m.provinces.values():
        for s in (p.abbr, p.name, *p.aliases):
            key = _norm(s)
            for k in (key, key.replace(" ", "")):
                seen.setdefault(k, set()).add(p.abbr)
    return seen


def test_no_name_names_two_provinces(m):
    seen = _spellings(m)
    assert not {s: ps for s, ps in seen.items() if len(ps) > 1}
    abbrs = {a.casefold() for a in m.provinces}
    for p in m.provinces.values():
        for a in (p.name, *p.aliases):
            assert _norm(a) not in abbrs - {p.abbr.casefold()}, (p.abbr, a)


def test_no_name_is_an_order_word(m):
    words = KEYWORDS | set(TYPES) | {"coast", "x", "deny", "ip", "dp", "home"}
    for p in m.provinces.values():
        for s in (p.abbr, p.name, *p.aliases):
            assert _norm(s) not in words, (p.abbr, s)


@pytest.mark.parametrize("text,abbr", [
    ("Konigsberg", "KON"), ("Königsberg", "KON"), ("Konigsburg", "KON"), ("Archangel", "ARK"),
    ("Arkangel", "ARK"), ("St. Petersburg", "STP"), ("Saint Petersburg", "STP"), ("Naples", "NAP"),
    ("Wuerzburg", "WUR"), ("Würzburg", "WUR"), ("Baltic", "BLT"), ("Balkans", "BAL"),
    ("Mid-Atlantic", "MAO"), ("Gulf of Lyon", "GOL"), ("Canaries", "CAN"), ("Posen", "SPR"),
    ("LPL", "LVP"), ("Hannover", "HAN"), ("Rome", "PAP"),
])
def test_aliases(v, text, abbr):
    assert resolve_location(v, text) == abbr


def test_coast_spellings(v):
    assert resolve_location(v, "Hanover (ec)") == "HAN/EC"
    assert resolve_location(v, "PAP/WC") == "PAP/WC"


@pytest.mark.parametrize("text,power", [
    ("Britain", "England"), ("English", "England"), ("Habsburg", "Austria"), ("Two Sicilies", "Naples"),
    ("Ottoman Empire", "Turkey"), ("Danish", "Denmark"), ("Wuerzburg", "Wurzburg"), ("Spanish", "Spain"),
])
def test_power_aliases(v, text, power):
    assert resolve_power(v, text) == power


def test_power_names_do_not_clash(v):
    seen: dict[str, set[str]] = {}
    for p in v.powers.values():
        for text in filter(None, (p.name, p.adjective, *p.aliases)):
            key = _norm(text)
            for k in (key, key.replace(" ", "")):
                seen.setdefault(k, set()).add(p.name)
    assert not {k: ps for k, ps in seen.items() if len(ps) > 1}
    for p in v.powers.values():
        assert all(len(a) > 1 for a in p.aliases), "no one-letter power aliases (A = army)"
