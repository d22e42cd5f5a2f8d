"""The Ambition & Empire data: maps/ambition/variant.toml (2006) and maps/ambition-v6/variant.toml.

Section numbers are those of the 2006 rulebook, shared/rules/ambition-and-empire-2006.txt; the
decisions tested here are explained in maps/ambition/README.md and maps/ambition-v6/README.md.

These tests check the data alone: they build the variant with the base `Rules`, so they do not
need the rules modules gm/variants/ambition.py and ambition_v6.py.
"""
from __future__ import annotations

import csv
import re
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from gm.engine.graph import Terrain
from gm.engine.model import UnitType
from gm.engine.parse import KEYWORDS, TYPES, _norm
from gm.engine.rules import Rules
from gm.variants import maps_dir, read_variant_data, variant_from_data

REFERENCE = Path(__file__).resolve().parents[4] / "shared" / "reference" / "maps" / "ambition-and-empire"

# DPjudge abbreviation -> the 2006 rulebook's (section IX), for the reference files.
DPJUDGE = {
    "ADL": "AND", "BAR": "BAS", "BOT": "GBO", "LYO": "GLY", "HLS": "HOL",
    "KIV": "KEV", "LVN": "LIV", "MAO": "MID", "NAO": "NAT", "NWG": "NWS",
}


def _variant(folder: str):
    return variant_from_data(folder, read_variant_data(folder), Rules())


@pytest.fixture(scope="module")
def v():
    return _variant("ambition")


@pytest.fixture(scope="module")
def v6():
    return _variant("ambition-v6")


@pytest.fixture(scope="module")
def m(v):
    return v.map


@pytest.fixture(scope="module")
def raw():
    return read_variant_data("ambition")


def army(m, a: str, b: str) -> bool:
    return b in m.army.get(a, ())


def fleet_any(m, a: str, b: str) -> bool:
    """Can a fleet on any coast of province a move to any coast of province b?"""
    return b in m.sea_neighbours.get(a, ())


# --- size and terrain (section IX) -------------------------------------------------------------

def test_space_counts(m):
    terrains = Counter(p.terrain for p in m.provinces.values())
    assert len(m.provinces) == 95
    assert terrains[Terrain.SEA] == 20
    assert terrains[Terrain.COAST] + terrains[Terrain.LAND] == 75
    assert terrains[Terrain.COAST] == 56 and terrains[Terrain.LAND] == 19
    assert Terrain.IMPASSABLE not in terrains


def test_edge_counts(m):
    # the reference CSV: 302 army and 346 fleet directed edges
    assert sum(len(d) for d in m.army.values()) == 302
    assert sum(len(d) for d in m.fleet.values()) == 346


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
    for p in m.provinces.values():
        if p.terrain is Terrain.COAST:
            assert m.fleet_locations(p.abbr) and all(m.fleet[loc] for loc in m.fleet_locations(p.abbr)), p.abbr
            assert p.abbr in m.army and (m.army[p.abbr] or p.abbr in {"ICE", "SAR"}), p.abbr  # islands
        if p.terrain is Terrain.LAND:
            assert p.abbr not in m.fleet and m.army[p.abbr]


def test_provinces_written_in_sorted_order():
    text = (maps_dir() / "ambition" / "variant.toml").read_text()
    heads = re.findall(r"^\[provinces\.(\w+)\]", text, flags=re.M)
    assert len(heads) == 95 and heads == sorted(heads)
    for body in re.findall(r"^(?:army|fleet|EC|WC) = \[(.*)\]$", text, flags=re.M):
        items = re.findall(r'"([^"]+)"', body)
        assert items == sorted(items)


# --- supply centres, powers and starting position (sections II, III, V.1) ----------------------

GREAT = {
    "Austria": ({"BUD", "MIL", "VIE"}, {"A VIE", "A BUD", "A MIL", "A ANE"}, "Catholic"),
    "Denmark-Norway": ({"COP", "CHR"}, {"F COP", "F CHR"}, "Protestant"),
    "France": ({"PAR", "MAR", "BRE"}, {"A PAR", "A MAR", "F BRE"}, "Catholic"),
    "Great Britain": ({"LON", "EDI", "HAN", "LVP"}, {"F LON", "F EDI", "F GIB", "A HAN"}, "Protestant"),
    "Poland-Saxony": ({"DRE", "WAR"}, {"A DRE", "A WAR"}, "Catholic"),
    "Prussia": ({"BER", "BRL", "KON"}, {"A BER", "A BRL", "A KON"}, "Protestant"),
    "Russia": ({"MOS", "KEV", "STP", "CRI"}, {"A MOS", "A KEV", "F STP"}, "Orthodox"),
    "Spain": ({"MAD", "BRC"}, {"A MAD", "F BRC"}, "Catholic"),
    "Sweden": ({"STO", "ABO"}, {"F STO", "A ABO"}, "Protestant"),
    "Turkey": ({"ANK", "CON"}, {"A ANK", "F CON"}, "Islamic"),
}
# minor power -> (its centre, unit type, religion)
MINOR = {
    "Algiers": ("ALG", "F", "Islamic"),
    "Baden-Wuerttemberg": ("BAW", "A", "Protestant"),
    "Bavaria": ("BAV", "A", "Catholic"),
    "Courland": ("COU", "F", "Protestant"),
    "Crimea": ("CRI", "A", "Islamic"),
    "Hesse-Westphalia": ("HEW", "A", "Protestant"),
    "Mecklenburg": ("MEC", "A", "Protestant"),
    "Morocco": ("MOR", "F", "Islamic"),
    "Papal States": ("PAP", "A", "Catholic"),
    "Portugal": ("POR", "F", "Catholic"),
    "Sardinia": ("SAV", "A", "Catholic"),
    "Switzerland": ("SWI", "A", "Protestant"),
    "Tunis": ("TUN", "F", "Islamic"),
    "Tuscany": ("TUS", "A", "Catholic"),
    "Two Sicilies": ("TWS", "F", "Catholic"),
    "United Provinces": ("UPR", "F", "Protestant"),
    "Venice": ("VEN", "F", "Catholic"),
}


def test_supply_centres(v, m):
    centres = {a for a, p in m.provinces.items() if p.supply_centre}
    assert len(centres) == 44
    great_homes = set().union(*(h for h, _, _ in GREAT.values())) - {"CRI"}
    minor = {c for c, _, _ in MINOR.values()}
    assert len(great_homes) == 26 and len(minor) == 17
    assert centres == great_homes | minor | {"ANE"}
    assert not m.provinces["GIB"].supply_centre and m.provinces["LVP"].supply_centre
    assert v.victory_centres == 15


def test_powers_and_home_centres(v):
    assert set(v.powers) == set(GREAT) | set(MINOR)
    assert sorted(v.great_powers) == sorted(GREAT)
    for name, (homes, _, _) in GREAT.items():
        assert v.powers[name].home_centres == frozenset(homes), name
        assert not v.powers[name].minor
    for name, (centre, _, _) in MINOR.items():
        assert v.powers[name].minor, name
        assert v.powers[name].home_centres == {centre}, name


def test_starting_units(v):
    got = {(u.power, f"{u.type.value} {u.location}") for u in v.starting_units}
    expected = {(p, u) for p, (_, units, _) in GREAT.items() for u in units}
    expected |= {(p, f"{t} {c}") for p, (c, t, _) in MINOR.items()}
    assert got == expected
    assert len(v.starting_units) == 27 + 17 == 44
    fleets = {p for p, (_, t, _) in MINOR.items() if t == "F"}
    assert fleets == {"Courland", "Portugal", "Venice", "Two Sicilies", "United Provinces",
                      "Morocco", "Tunis", "Algiers"}
    # no unit starts on a split-coast province, so none needs a coast
    assert all("/" not in u.location for u in v.starting_units)


def test_starting_centres(v):
    expected = {c: p for p, (homes, _, _) in GREAT.items() for c in homes}
    expected.update({c: p for p, (c, _, _) in MINOR.items()})
    expected["ANE"] = "Austria"
    assert v.starting_centres == expected
    assert len(v.starting_centres) == 44


def test_austrian_netherlands_owned_but_no_home(v):
    # Section V.1: Austria starts with ANE but may not build there.
    assert v.starting_centres["ANE"] == "Austria"
    assert "ANE" not in v.powers["Austria"].home_centres
    assert not any("ANE" in p.home_centres for p in v.powers.values())
    assert v.facts["no_build_centres"] == {"Austria": ["ANE"]}
    s = v.initial_state()
    assert "ANE" not in s.home_centres["Austria"] and s.supply_centres["ANE"] == "Austria"


def test_crimea_russian_home_but_not_owned(v):
    # Section V.1: Crimea serves as a home SC for Russia if Russia controls it.
    assert "CRI" in v.powers["Russia"].home_centres
    assert v.starting_centres["CRI"] == "Crimea"
    assert [c for c, p in v.starting_centres.items() if p == "Russia"] == ["KEV", "MOS", "STP"]


def test_religions(raw):
    for name, (_, _, religion) in GREAT.items():
        assert raw["powers"][name]["religion"] == religion, name
    for name, (_, _, religion) in MINOR.items():
        assert raw["powers"][name]["religion"] == religion, name


def test_religion_reaches_the_rules_module(v):
    # The loader keeps the keys it does not know (religion) in Power.traits.
    for name, (_, _, religion) in {**GREAT, **MINOR}.items():
        assert v.powers[name].traits.get("religion") == religion, name


def test_religions_match_reference(raw):
    path = REFERENCE / "religions.csv"
    if not path.exists():
        pytest.skip("reference data not available")
    code = {"SAXONY": "Poland-Saxony", "SWEDEN": "Sweden", "SPAIN": "Spain", "DENMARK": "Denmark-Norway",
            "AUSTRIA": "Austria", "BRITAIN": "Great Britain", "FRANCE": "France", "RUSSIA": "Russia",
            "PRUSSIA": "Prussia", "TURKEY": "Turkey"}
    code.update({c: p for p, (c, _, _) in MINOR.items() if c != "SAV"})
    code["SAV"] = "Sardinia"
    with path.open() as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 27
    for r in rows:
        assert raw["powers"][code[r["code"]]]["religion"] == r["religion"], r["code"]


def test_facts(v):
    f = v.facts
    # Section V.3, word for word: Poland & Saxony and the Republic of Venice by their names here.
    assert f["catholic_states_2006"] == ["Austria", "France", "Poland-Saxony", "Spain", "Tuscany",
                                         "Two Sicilies", "Venice"]
    assert set(f["catholic_states_2006"]) <= set(v.powers)
    assert f["two_centre_powers"] == ["Poland-Saxony", "Spain", "Sweden", "Denmark-Norway", "Turkey"]
    assert all(len(v.powers[p].home_centres) == 2 for p in f["two_centre_powers"])
    assert {p for p in v.great_powers if len(v.powers[p].home_centres) == 2} == set(f["two_centre_powers"])
    assert f["crossings"] == [["EDI", "IRE"], ["ANK", "CON"], ["COP", "SCA"]]


def test_power_aliases(v):
    gb, dn = v.powers["Great Britain"], v.powers["Denmark-Norway"]
    assert {"Britain", "England", "British", "English", "GB", "Hanover"} <= {gb.adjective, *gb.aliases}
    assert {"Denmark", "Norway", "Danish"} <= {dn.adjective, *dn.aliases}
    ps = v.powers["Poland-Saxony"]
    assert {"Poland", "Saxony", "Polish", "Saxon", "Poland-Lithuania"} <= {ps.adjective, *ps.aliases}
    assert {"Ottoman", "Ottoman Empire", "Ottomans"} <= set(v.powers["Turkey"].aliases)
    assert {"Habsburg", "Hapsburg"} <= set(v.powers["Austria"].aliases)
    for name, (centre, _, _) in MINOR.items():
        assert centre in v.powers[name].aliases, name
    for name, aliases in {
        "Venice": {"Republic of Venice"}, "Sardinia": {"Savoy"}, "Switzerland": {"Swiss Confederation"},
        "United Provinces": {"Netherlands", "Dutch Republic"}, "Papal States": {"Papacy"},
        "Baden-Wuerttemberg": {"Baden"}, "Hesse-Westphalia": {"Hesse"}, "Two Sicilies": {"Naples"},
    }.items():
        assert aliases <= set(v.powers[name].aliases), name
    for p in v.powers.values():
        assert all(len(a) > 1 for a in p.aliases), "no one-letter power aliases (A = army)"


def test_power_names_do_not_clash(v):
    seen: dict[str, set[str]] = {}
    for p in v.powers.values():
        for text in filter(None, (p.name, p.adjective, *p.aliases)):
            key = _norm(text)
            for k in (key, key.replace(" ", "")):
                seen.setdefault(k, set()).add(p.name)
    assert not {k: ps for k, ps in seen.items() if len(ps) > 1}


# --- names and abbreviations (section IX) -------------------------------------------------------

def test_rulebook_abbreviations(m):
    named = {
        "AND": "Andalusia", "KEV": "Kiev", "LIV": "Livonia", "NWS": "Norwegian Sea",
        "MID": "Mid-Atlantic Ocean", "NAT": "North Atlantic Ocean", "GBO": "Gulf of Bothnia",
        "GLY": "Gulf of Lyon", "BAS": "Barents Sea", "HOL": "Holstein", "ANE": "Austrian Netherlands",
        "UPR": "United Provinces", "BRC": "Barcelona", "BRL": "Breslau", "HEW": "Hesse-Westphalia",
        "BAW": "Baden-Wuerttemberg", "TWS": "Two Sicilies", "TYS": "Tyrrhenian Sea", "TYR": "Tyrol",
        "LVP": "Liverpool", "STP": "St Petersburg", "VEN": "Republic of Venice", "GIB": "Gibraltar",
        "ZAP": "Zaporozh'ye", "SAV": "Savoy", "SAR": "Sardinia",
    }
    for abbr, name in named.items():
        assert m.provinces[abbr].name == name
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
    # and no alias is another province's abbreviation (the parser would read the abbreviation)
    abbrs = {a.casefold() for a in m.provinces}
    for p in m.provinces.values():
        for a in (p.name, *p.aliases):
            assert a.casefold() == p.abbr.casefold() or a.casefold() not in abbrs, (p.abbr, a)
            assert _norm(a) not in abbrs - {p.abbr.casefold()}, (p.abbr, a)


def test_no_name_is_an_order_word(m):
    words = KEYWORDS | set(TYPES) | {"coast"}
    for p in m.provinces.values():
        for s in (p.abbr, p.name, *p.aliases):
            assert _norm(s) not in words, (p.abbr, s)


def test_aliases_from_dpjudge_and_others(m):
    seen = _spellings(m)
    for spelling, abbr in {
        **{dp.lower(): ours for dp, ours in DPJUDGE.items()},
        "hst": "HOL", "southern netherlands": "ANE", "sne": "ANE", "belgium": "ANE",
        "saint petersburg": "STP", "st petersburg": "STP", "stpete": "STP", "venice": "VEN",
        "silesia": "BRL", "norway": "CHR", "sevastopol": "CRI", "rome": "PAP", "holland": "UPR",
        "mid atlantic ocean": "MID", "zaporozhye": "ZAP", "baden wurttemberg": "BAW", "kie": "KEV",
        "lvl": "LVP", "skagerrak": "SKA",
    }.items():
        assert seen.get(spelling) == {abbr}, spelling
    assert "liv" in seen and seen["liv"] == {"LIV"}  # Livonia: not DPjudge's Liverpool alias


# --- special map features (section VIII) --------------------------------------------------------

def test_split_coasts(m):
    assert m.provinces["HOL"].coasts == ("EC", "WC")
    assert m.provinces["PAP"].coasts == ("EC", "WC")
    assert [p.abbr for p in m.provinces.values() if p.coasts] == ["HOL", "PAP"]
    assert m.fleet["HOL/EC"] == {"BAL", "COP", "MEC"}
    assert m.fleet["HOL/WC"] == {"COP", "HAN", "HEL"}
    assert m.fleet["PAP/EC"] == {"ADR", "TWS", "VEN"}
    assert m.fleet["PAP/WC"] == {"TUS", "TWS", "TYS"}
    assert m.army["HOL"] == {"COP", "HAN", "MEC"}
    assert m.army["PAP"] == {"TUS", "TWS", "VEN"}
    assert not army(m, "HOL", "BER")  # no Kiel canal, and no Holstein-Berlin border


def test_st_petersburg_has_one_coast(m):
    assert m.provinces["STP"].coasts == ()
    assert m.fleet["STP"] == {"GBO", "KAR", "LIV"}


def test_lake_ladoga_is_impassable(m):
    for a, b in (("STP", "NOV"), ("KAR", "MOS")):
        assert not army(m, a, b) and not army(m, b, a)
        assert not fleet_any(m, a, b) and not fleet_any(m, b, a)
    assert "LAD" not in m.provinces


def test_lithuania_landlocked(m):
    assert m.provinces["LIT"].terrain is Terrain.LAND
    assert "LIT" not in m.fleet and not any("LIT" in d for d in m.fleet_provinces.values())
    assert army(m, "COU", "KON") and army(m, "KON", "COU")
    assert fleet_any(m, "COU", "KON") and fleet_any(m, "KON", "COU")


def test_gibraltar_is_a_sea(m):
    assert m.provinces["GIB"].terrain is Terrain.SEA
    assert m.fleet["GIB"] == {"AND", "MID", "MOR", "WES"}
    # Gibraltar breaks no coast: Andalusia and Morocco are each one coast; no army crossing
    assert not m.provinces["AND"].coasts and not m.provinces["MOR"].coasts
    assert not army(m, "AND", "MOR")


@pytest.mark.parametrize("a,b", [("EDI", "IRE"), ("ANK", "CON"), ("COP", "SCA")])
def test_crossings(m, a, b):
    # Armies cross without a convoy; fleets too (README decision 2): both ends share two seas.
    assert army(m, a, b) and army(m, b, a)
    assert fleet_any(m, a, b) and fleet_any(m, b, a)
    assert len(m.sea_neighbours[a] & m.sea_neighbours[b] & m.seas) == 2


def test_islands(m):
    for island in ("ICE", "SAR", "IRE"):
        assert m.provinces[island].terrain is Terrain.COAST
    assert m.army["ICE"] == frozenset() and m.army["SAR"] == frozenset()
    assert m.army["IRE"] == {"EDI"}
    assert "SIC" not in m.provinces


def test_initial_state(v):
    s = v.initial_state()
    assert v.phase_label(s.phase) == "Spring 1763, Movement"
    assert len(s.units) == 44 and len(s.supply_centres) == 44
    assert s.units["GIB"].type is UnitType.FLEET and s.units["GIB"].power == "Great Britain"


def test_matches_reference_adjacency(m):
    """Edge for edge the derived DPjudge CSV, after mapping DPjudge abbreviations to ours."""
    path = REFERENCE / "ae2006-adjacency.csv"
    if not path.exists():
        pytest.skip("reference data not available")

    def ren(loc: str) -> str:
        prov, _, coast = loc.partition("/")
        prov = DPJUDGE.get(prov, prov)
        return f"{prov}/{coast}" if coast else prov

    ref: dict[str, set[tuple[str, str]]] = {"A": set(), "F": set()}
    with path.open() as fh:
        for row in csv.DictReader(fh):
            ref[row["unit"]].add((ren(row["from"]), ren(row["to"])))
    assert {(a, b) for a, ds in m.army.items() for b in ds} == ref["A"]
    assert {(a, b) for a, ds in m.fleet.items() for b in ds} == ref["F"]

    provinces = REFERENCE / "ae2006-provinces.csv"
    with provinces.open() as fh:
        rows = {ren(r["abbr"]): r for r in csv.DictReader(fh) if r["terrain"] != "coast-spec"}
    assert set(rows) == set(m.provinces)
    for abbr, r in rows.items():
        p = m.provinces[abbr]
        assert p.name == r["name"]
        assert r["rules2006_abbr"].upper() == abbr
        assert p.supply_centre == (r["supply_center"] == "1") == (r["rules2006_sc"] == "1")
        assert p.terrain.value == r["terrain"]


# --- version 6 on the same map ------------------------------------------------------------------

def test_v6_file_holds_only_the_differences():
    with (maps_dir() / "ambition-v6" / "variant.toml").open("rb") as fh:
        data = tomllib.load(fh)
    assert data["base"] == "ambition"
    assert set(data) == {"base", "title", "facts", "powers"}
    assert set(data["powers"]) == {"Russia"} and set(data["powers"]["Russia"]) == {"home_centres"}


def test_v6_loads_with_its_facts(v, v6):
    f = v6.facts
    assert f["build_limit"] == 3 and f["max_home_centres"] == 4
    assert f["predetermined_homes"] == {
        "Turkey": ["ALG", "CRI", "TUN"], "Poland-Saxony": ["COU"], "Russia": ["CRI"],
        "Austria": ["TUS"], "Spain": ["TWS"],
    }
    assert f["elective_homes"] == {"France": 1, "Prussia": 1, "Poland-Saxony": 1, "Spain": 1,
                                   "Denmark-Norway": 2, "Sweden": 2}
    assert f["blocked_crossings"] == [["EDI", "IRE", "IRI"]]
    for a, b, sea in f["blocked_crossings"]:
        assert army(v6.map, a, b) and sea in v6.map.sea_neighbours[a] & v6.map.sea_neighbours[b]
    for p, centres in f["predetermined_homes"].items():
        assert p in v6.great_powers and all(v6.map.provinces[c].supply_centre for c in centres)
    assert set(f["elective_homes"]) <= set(v6.great_powers)
    # the 2006 facts are inherited (the tables merge)
    assert f["no_build_centres"] == {"Austria": ["ANE"]}
    assert f["crossings"] == v.facts["crossings"]


def test_v6_crimea_is_no_permanent_russian_home(v, v6):
    assert v6.powers["Russia"].home_centres == {"KEV", "MOS", "STP"}
    assert v6.starting_centres == v.starting_centres  # Russia still starts with KEV, MOS, STP
    assert v6.powers["Russia"].adjective == "Russian"  # the rest of the table is inherited
    assert v6.starting_units == v.starting_units
    assert len(v6.map.provinces) == 95 and v6.map.army == v.map.army and v6.map.fleet == v.map.fleet
    assert v6.title != v.title and v6.victory_centres == 15


def test_v6_loads_through_the_registry():
    # Needs the rules modules (written separately); the data tests above do not.
    pytest.importorskip("gm.variants.ambition_v6")
    from gm.variants import load_variant

    v6 = load_variant("ambition-v6")
    assert v6.name == "ambition-v6" and v6.docs.endswith("ambition-v6/README.md")
    assert v6.facts["build_limit"] == 3 and v6.facts["blocked_crossings"] == [["EDI", "IRE", "IRI"]]
    assert "CRI" not in v6.powers["Russia"].home_centres
    assert "CRI" in load_variant("ambition").powers["Russia"].home_centres
