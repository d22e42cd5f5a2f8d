"""The Classical Mediterranean data (maps/classical/variant.toml) and rule hooks (gm/variants/classical.py).

Rule numbers are those of the rulebook, shared/rules/classical-mediterranean.txt; the
decisions tested here are explained in maps/classical/README.md.
"""
from __future__ import annotations

import csv
import re
from collections import Counter
from pathlib import Path

import pytest

from gm.engine.graph import Terrain
from gm.engine.model import GameState, Phase, PhaseKind, Season, UnitType
from gm.engine.rules import Rules
from gm.variants import load_variant, maps_dir
from gm.variants.classical import VariantRules

REFERENCE = Path(__file__).resolve().parents[4] / "shared" / "reference" / "maps" / "classical-mediterranean"


@pytest.fixture(scope="module")
def v():
    return load_variant("classical")


@pytest.fixture(scope="module")
def m(v):
    return v.map


def army(m, a: str, b: str) -> bool:
    return b in m.army.get(a, ())


def fleet(m, a: str, b: str) -> bool:
    return b in m.fleet.get(a, ())


# --- size and terrain ---------------------------------------------------------------------------

def test_registry_and_aliases_of_the_variant(v):
    assert v.name == "classical"
    assert load_variant("classical-mediterranean").name == "classical"
    assert isinstance(v.rules, VariantRules) and isinstance(v.rules, Rules)
    assert v.docs.endswith("classical/README.md")


def test_space_counts(m):
    terrains = Counter(p.terrain for p in m.provinces.values())
    assert len(m.provinces) == 117
    assert terrains[Terrain.SEA] == 37
    assert terrains[Terrain.COAST] + terrains[Terrain.LAND] == 80
    # The reference counts 64 coastal and 16 inland with Syene coastal; Syene is inland here
    # because no fleet may move Thebes-Syene (decision 1 in the README).
    assert terrains[Terrain.COAST] == 63
    assert terrains[Terrain.LAND] == 17
    assert not any(p.coasts for p in m.provinces.values()), "rule 7: one coast per province"


def test_edge_counts(m):
    # NOTES.md: 308 army and 512 fleet directed edges; minus F THE->SYE and F SYE->THE.
    assert sum(len(d) for d in m.army.values()) == 308
    assert sum(len(d) for d in m.fleet.values()) == 510


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
        assert m.provinces[here].terrain is not Terrain.LAND
        assert all(m.provinces[d].terrain is not Terrain.LAND for d in dests)
    for p in m.provinces.values():
        # coastal means: a fleet can go somewhere from here
        if p.terrain is Terrain.COAST:
            assert m.fleet[p.abbr], p.abbr
        if p.terrain is Terrain.LAND:
            assert p.abbr not in m.fleet


# --- supply centres and powers (rules 4 and 5) --------------------------------------------------

HOMES = {
    "Macedon": {"PEL", "CAS", "KAL"},
    "Carthage": {"CAR", "PAN", "LEP"},
    "Egypt": {"THE", "ALE", "MEM"},
    "Rome": {"BRU", "ROM", "CAP"},
    "Syria": {"ANT", "DAM", "TYR"},
}
NEUTRAL = {
    "ATH", "CHE", "CIS", "COR", "CYD", "CYR", "DEL", "JER", "KNO", "MAS",
    "NAX", "PER", "PET", "RHO", "SAG", "SAR", "SPA", "SYR", "TRA", "TRO",
}


def test_supply_centres(v, m):
    centres = {a for a, p in m.provinces.items() if p.supply_centre}
    assert len(centres) == 35
    homes = set().union(*HOMES.values())
    assert len(homes) == 15
    assert centres == homes | NEUTRAL and not homes & NEUTRAL
    assert len(NEUTRAL) == 20
    assert v.victory_centres == 18


def test_powers(v):
    assert set(v.powers) == set(HOMES)
    assert sorted(v.great_powers) == sorted(HOMES)
    for name, homes in HOMES.items():
        assert v.powers[name].home_centres == frozenset(homes), name
        assert not v.powers[name].minor
    assert v.starting_centres == {c: p for p, cs in HOMES.items() for c in cs}
    assert "Macedonia" in v.powers["Macedon"].aliases
    assert "Carthaginian" in v.powers["Carthage"].aliases
    assert v.powers["Egypt"].adjective == "Egyptian"
    for p in v.powers.values():
        assert all(len(a) > 1 for a in p.aliases), "no one-letter power aliases (A = army)"


def test_starting_units_rule_5(v):
    # Rule 5, with "Cumae" = Capua and "Carthage" = Carthago.
    expected = {
        ("Macedon", "A", "PEL"), ("Macedon", "F", "CAS"), ("Macedon", "F", "KAL"),
        ("Carthage", "F", "CAR"), ("Carthage", "F", "PAN"), ("Carthage", "F", "LEP"),
        ("Egypt", "A", "THE"), ("Egypt", "F", "ALE"), ("Egypt", "F", "MEM"),
        ("Rome", "A", "BRU"), ("Rome", "A", "ROM"), ("Rome", "F", "CAP"),
        ("Syria", "A", "ANT"), ("Syria", "A", "DAM"), ("Syria", "F", "TYR"),
    }
    got = {(u.power, u.type.value, u.location) for u in v.starting_units}
    assert got == expected and len(v.starting_units) == 15


def test_initial_state_and_phase(v):
    s = v.initial_state()
    assert s.phase == Phase(-273, Season.SPRING, PhaseKind.MOVEMENT)
    assert v.phase_label(s.phase) == "Spring 273 BC, Movement"
    assert len(s.units) == 15 and len(s.supply_centres) == 15


# --- names and abbreviations (rule 9) -----------------------------------------------------------

def test_rule_9_abbreviations(m):
    named = {
        "MIN": "Mare Internum", "MIS": "Minoan Sea", "ANT": "Antioch", "ANS": "Antigonid Sea",
        "SAR": "Sardo", "SRM": "Sarmatia", "SMA": "Syrtis Major", "SMI": "Syrtis Minor",
        "BAS": "Barcid Sea", "BAL": "Baleares", "FET": "The Fetters", "MAM": "The Mamertines",
        "BOP": "Bay of Pelusium", "MGS": "Magna Grecian Sea", "SLI": "Sinus Ligusticum",
        "MAD": "Mare Adriaticum", "MEG": "Messenian Gulf", "MAE": "Maeotis Palus",
        "DES": "Desert of Palms", "EAS": "East Sahara", "WES": "West Sahara",
        "CAP": "Capua", "CAR": "Carthago", "HAL": "Halycus", "SGU": "Saronic Gulf",
    }
    for abbr, name in named.items():
        assert m.provinces[abbr].name == name
    for abbr in m.provinces:
        assert re.fullmatch(r"[A-Z]{3}", abbr)


def _spellings(m) -> dict[str, set[str]]:
    seen: dict[str, set[str]] = {}
    for p in m.provinces.values():
        for s in (p.abbr, p.name, *p.aliases):
            seen.setdefault(s.lower(), set()).add(p.abbr)
    return seen


def test_aliases_unique_and_sources_covered(m):
    seen = _spellings(m)
    clashes = {s: ps for s, ps in seen.items() if len(ps) > 1}
    assert not clashes
    for spelling, abbr in {
        "cumae": "CAP", "cum": "CAP", "carthage": "CAR", "agrigentum": "HAL",  # the rulebook
        "isb": "INS", "mns": "MIS",  # Parterre
        "liparacae": "LIP",  # DPjudge
        "dop": "DES", "esa": "EAS", "wsa": "WES", "mpa": "MAE",  # njudge/DPjudge abbreviations
        "fetters": "FET", "mamertines": "MAM", "rome": "ROM", "coele syria": "COE",
    }.items():
        assert seen[spelling] == {abbr}, spelling
    assert "syria" not in seen  # the power, not Coele-Syria


def test_provinces_written_in_sorted_order():
    text = (maps_dir() / "classical" / "variant.toml").read_text()
    heads = re.findall(r"^\[provinces\.(\w+)\]", text, flags=re.M)
    assert len(heads) == 117 and heads == sorted(heads)
    for body in re.findall(r"^(?:army|fleet) = \[(.*)\]$", text, flags=re.M):
        items = re.findall(r'"([^"]+)"', body)
        assert items == sorted(items)


# --- special map features (rules 7, 7a, 7b, 8) --------------------------------------------------

LAND_BRIDGES = [
    ("MAU", "SAG"), ("KYR", "SAR"), ("CAP", "MAM"), ("BRU", "EPI"),
    ("BIT", "THR"), ("THR", "TRO"), ("CHE", "TAN"), ("COR", "DEL"),
]


@pytest.mark.parametrize("a,b", LAND_BRIDGES)
def test_land_bridges_for_armies_and_fleets(m, a, b):
    assert army(m, a, b) and army(m, b, a)
    assert fleet(m, a, b) and fleet(m, b, a)


def test_seas_under_bridges_stay_open(m):
    # rule 8b: the Propontis still links Thrace, Bithynia, Troy and Lesbos
    assert fleet(m, "PRO", "LES") and fleet(m, "PRO", "THR") and fleet(m, "PRO", "BIT")
    assert fleet(m, "LES", "PER")
    assert m.sea_path_exists("BIT", "PER", {"PRO", "LES"})
    assert m.sea_path_exists("BIT", "THR", {"PRO"})


def test_no_fleet_etruria_cisalpina(m):
    assert army(m, "ETR", "CIS") and army(m, "CIS", "ETR")
    assert not fleet(m, "ETR", "CIS") and not fleet(m, "CIS", "ETR")


def test_one_coast_examples_of_rule_7(m):
    assert fleet(m, "EUB", "ATH") and fleet(m, "ATH", "COR")
    assert fleet(m, "MEM", "SIN") and fleet(m, "SIN", "PET")
    assert fleet(m, "MIN", "HAL") and fleet(m, "HAL", "MGS")  # Agrigentum = Halycus


def test_nile_and_portage(m):
    assert m.fleet["THE"] == frozenset({"ALE", "MEM", "SIN", "SOR", "NUB"})
    for there in ("SIN", "SOR", "NUB", "ALE", "MEM"):
        assert fleet(m, there, "THE")
    assert not fleet(m, "THE", "LIB") and army(m, "THE", "LIB")


def test_thebes_syene_decision(m):
    # Rule 7a: the Nile is navigable up to Thebes only; Syene is upstream. Armies may go.
    assert not fleet(m, "THE", "SYE") and not fleet(m, "SYE", "THE")
    assert army(m, "THE", "SYE") and army(m, "SYE", "THE")
    assert m.provinces["SYE"].terrain is Terrain.LAND
    assert m.fleet_locations("SYE") == ()


def test_rhodes_is_one_province(m):
    assert m.provinces["RHO"].name == "Rhodes" and m.provinces["RHO"].supply_centre
    assert not [p for p in m.provinces.values() if p.name.lower().startswith("caria")]
    # a fleet entering from the Sea of Alexander may go on to Pergamum, and vice versa
    assert fleet(m, "SOA", "RHO") and fleet(m, "RHO", "PER") and fleet(m, "PER", "RHO")
    assert fleet(m, "RHO", "SOA")
    assert not fleet(m, "SOA", "PER")
    assert army(m, "RHO", "PER") and army(m, "RHO", "PIS") and army(m, "RHO", "PHR")
    # the Lycian Sea still touches the Cretan Sea and Kos
    assert fleet(m, "LYS", "CRS") and fleet(m, "LYS", "KOS")


def test_matches_reference_adjacency(m):
    """Edge for edge the derived njudge CSV, after renames and the Thebes-Syene decision."""
    path = REFERENCE / "classical-adjacency.csv"
    if not path.exists():
        pytest.skip("reference data not available")
    rename = {"DOP": "DES", "ESA": "EAS", "WSA": "WES", "MPA": "MAE"}
    ref: dict[str, set[tuple[str, str]]] = {"A": set(), "F": set()}
    with path.open() as fh:
        for row in csv.DictReader(fh):
            a, b = rename.get(row["from"], row["from"]), rename.get(row["to"], row["to"])
            ref[row["unit"]].add((a, b))
    ref["F"] -= {("THE", "SYE"), ("SYE", "THE")}
    ours_a = {(a, b) for a, ds in m.army.items() for b in ds}
    ours_f = {(a, b) for a, ds in m.fleet.items() for b in ds}
    assert ours_a == ref["A"]
    assert ours_f == ref["F"]
    with (REFERENCE / "classical-provinces.csv").open() as fh:
        rows = {rename.get(r["abbr"], r["abbr"]): r for r in csv.DictReader(fh)}
    assert set(rows) == set(m.provinces)
    for abbr, r in rows.items():
        p = m.provinces[abbr]
        assert p.name == r["name"]
        assert p.supply_centre == (r["supply_center"] == "1")
        assert p.terrain.value == ("land" if abbr == "SYE" else r["terrain"])


# --- calendar (rule 3) --------------------------------------------------------------------------

@pytest.mark.parametrize("year,label", [(-273, "273 BC"), (-272, "272 BC"), (-1, "1 BC"), (0, "AD 1"), (9, "AD 10")])
def test_year_label(v, year, label):
    assert v.rules.year_label(year) == label
    assert v.rules.parse_year(label) == year


@pytest.mark.parametrize("text", ["273 BC", "273 B.C.", "273BC", "273 bc", "273 b.c.", " 273 BCE ", "-273", "273"])
def test_parse_year_273_bc(v, text):
    assert v.rules.parse_year(text) == -273


@pytest.mark.parametrize("text", ["", "BC", "0 BC", "AD 0", "Spring", "273 AC", "1e3"])
def test_parse_year_rejects(v, text):
    assert v.rules.parse_year(text) is None


def test_year_rollover_labels(v):
    # 273 BC is followed by 272 BC: stored years run forward.
    assert v.rules.year_label(-273 + 1) == "272 BC"
    labels = [v.phase_label(Phase(-273, s, k)) for s, k in (
        (Season.SPRING, PhaseKind.MOVEMENT), (Season.FALL, PhaseKind.MOVEMENT),
        (Season.WINTER, PhaseKind.ADJUSTMENT))] + [v.phase_label(Phase(-272, Season.SPRING, PhaseKind.MOVEMENT))]
    assert labels == ["Spring 273 BC, Movement", "Fall 273 BC, Movement",
                      "Winter 273 BC, Adjustment", "Spring 272 BC, Movement"]
    for y in range(-273, 0):
        assert v.rules.parse_year(v.rules.year_label(y)) == y


# --- builds (rule 6) and victory (rule 4) -------------------------------------------------------

def _winter(v, owners: dict[str, str], units=()) -> GameState:
    s = v.initial_state()
    return s.with_(
        phase=Phase(-273, Season.WINTER, PhaseKind.ADJUSTMENT),
        supply_centres=dict(owners),
        units={u.province: u for u in units},
    )


def test_build_sites_any_owned_centre_while_an_original_is_held(v):
    owners = {"CAR": "Carthage", "SYR": "Carthage", "SAR": "Carthage",
              "PAN": "Rome", "LEP": "Egypt", "ROM": "Rome"}
    assert v.rules.build_sites(v, _winter(v, owners), "Carthage") == {"CAR", "SYR", "SAR"}
    # only Leptis Magna left of the originals: still fine
    owners = {"LEP": "Carthage", "SYR": "Carthage", "CAR": "Rome", "PAN": "Rome"}
    assert v.rules.build_sites(v, _winter(v, owners), "Carthage") == {"LEP", "SYR"}


def test_build_sites_none_without_an_original(v):
    owners = {"SYR": "Carthage", "SAR": "Carthage", "MAS": "Carthage",
              "CAR": "Rome", "PAN": "Rome", "LEP": "Egypt"}
    assert v.rules.build_sites(v, _winter(v, owners), "Carthage") == set()
    assert v.rules.build_sites(v, _winter(v, {}), "Carthage") == set()


def test_build_sites_use_original_homes_not_state_homes(v):
    # Rome captures Carthago: Rome may build there (it holds Roma); Carthage may not.
    s = _winter(v, {"ROM": "Rome", "CAR": "Rome", "PAN": "Carthage"})
    assert v.rules.build_sites(v, s, "Rome") == {"ROM", "CAR"}
    assert v.rules.build_sites(v, s, "Carthage") == {"PAN"}
    # home_centres in the state do not widen or narrow the rule
    s2 = s.with_(home_centres={"Rome": frozenset({"CAR"}), "Carthage": frozenset()})
    assert v.rules.build_sites(v, s2, "Rome") == {"ROM", "CAR"}
    assert v.rules.build_sites(v, s2, "Carthage") == {"PAN"}
    assert v.rules.build_sites(v, s2, "Nobody") == set()


def test_build_sites_vacancy_is_left_to_the_engine(v):
    from gm.engine.model import Unit

    s = _winter(v, {"CAR": "Carthage", "SYR": "Carthage"}, [Unit("Carthage", UnitType.FLEET, "CAR")])
    assert v.rules.build_sites(v, s, "Carthage") == {"CAR", "SYR"}


def test_victory_at_18(v):
    centres = sorted(HOMES["Rome"] | NEUTRAL)  # 23 centres
    s = _winter(v, {c: "Rome" for c in centres[:17]})
    assert v.rules.winner(v, s) is None
    s = _winter(v, {c: "Rome" for c in centres[:18]})
    assert v.rules.winner(v, s) == "Rome"
