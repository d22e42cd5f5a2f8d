"""Every map DPjudge ships (the reference copy in ../shared/reference/dpjudge, maps/ and trials/):
each either imported and a random game of ten years played on it by the engine without an error,
or refused with the directives or problems that stop it named. The table below is the tally; a
change in the importer that changes an outcome shows here, and README's Variants section gives
the same count."""
from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest

from gm.cli.variant import FilesBeside
from gm.engine.rules import Rules
from gm.randomgame import play_random_game
from gm.variants import variant_from_data
from gm.variants.importing import ImportRefused
from gm.variants.importing.dpjudge import read_dpjudge
from gm.variants.importing.write import summary

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT.parent / "shared" / "reference" / "dpjudge"

# map -> what comes of it: a summary of the variant imported, or the directives (and, for a map
# that cannot be read as it stands, the problems) that refuse it.
IMPORTED = {
    "brazilian.map": "7 powers, 76 spaces (19 seas, 42 coastal, 14 inland, 1 impassable), 35 supply centres, victory at 18",
    "britain.map": "7 powers, 76 spaces (19 seas, 42 coastal, 14 inland, 1 impassable), 37 supply centres, victory at 19",
    "canton.map": "7 powers, 82 spaces (22 seas, 41 coastal, 18 inland, 1 impassable), 36 supply centres, victory at 19",
    "chromatic.map": "5 powers, 56 spaces (20 seas, 35 coastal, 1 inland), 21 supply centres, victory at 11",
    "crowded.map": "11 powers, 76 spaces (19 seas, 42 coastal, 14 inland, 1 impassable), 35 supply centres, victory at 18",
    "empire-up.map": "10 powers, 161 spaces (49 seas, 88 coastal, 24 inland), 58 supply centres, victory at 30",
    "empire.map": "10 powers, 161 spaces (49 seas, 88 coastal, 24 inland), 58 supply centres, victory at 30",
    "fiveman.map": "5 powers, 67 spaces (19 seas, 35 coastal, 12 inland, 1 impassable), 27 supply centres, victory at 14",
    "fleetrome.map": "7 powers, 76 spaces (19 seas, 42 coastal, 14 inland, 1 impassable), 34 supply centres, victory at 18",
    "milan.map": "7 powers, 76 spaces (19 seas, 41 coastal, 15 inland, 1 impassable), 34 supply centres, victory at 18",
    "modern-up.map": "10 powers, 143 spaces (33 seas, 79 coastal, 31 inland), 64 supply centres, victory at 33",
    "modern.map": "10 powers, 141 spaces (33 seas, 78 coastal, 30 inland), 64 supply centres, victory at 33",
    "pure.map": "7 powers, 7 spaces (7 inland), 7 supply centres, victory at 4",
    "shiftaround.map": "7 powers, 76 spaces (19 seas, 42 coastal, 14 inland, 1 impassable), 34 supply centres, victory at 18",
    "shiftleft.map": "7 powers, 76 spaces (19 seas, 42 coastal, 14 inland, 1 impassable), 34 supply centres, victory at 18",
    "shiftright.map": "7 powers, 76 spaces (19 seas, 42 coastal, 14 inland, 1 impassable), 34 supply centres, victory at 18",
    "slovenia.map": "10 powers, 144 spaces (33 seas, 80 coastal, 31 inland), 64 supply centres, victory at 33",
    "standard.map": "7 powers, 76 spaces (19 seas, 42 coastal, 14 inland, 1 impassable), 34 supply centres, victory at 18",
    "v8.map": "8 powers, 78 spaces (19 seas, 44 coastal, 14 inland, 1 impassable), 38 supply centres, victory at 20",
    "youngstown.map": "10 powers, 184 spaces (50 seas, 96 coastal, 34 inland, 4 impassable), 72 supply centres, victory at 37",
}
REFUSED = {
    "1897.map": ["NEWHOMES", "RULE MOBILIZE"],
    "1898.map": ["RULE MOBILIZE"],
    "1900.map": ["adjacency mark '*'", "PORT", "centre mark '*'"],
    "aberration.map": ["RULE REMOTE_BUILDS"],
    "ambition.map": ["centre mark '&'", "LEAGUE", "DUMMY", "FLOW INCOME", "RULE CD_DUMMIES", "RULE CD_BUILDS",
                     "RULE IMMOBILE_DUMMIES", "RULE DUMMY_FIRE"],
    "ancmed.map": ["PORT"],
    "chaos.map": ["RULE BUILD_ANY"],
    "classical.map": ["RULE REMOTE_BUILDS", "FLOW NEWYEAR", "FLOW IFYEARDIV"],
    "hundred.map": ["RULE BUILD_ANY", "FLOW NEWYEAR", "FLOW IFYEARDIV"],
    "imperial.map": ["PORT", "adjacency by centres owned ('(...)')", "RULE HOME_BUILDS"],
    "loeb9.map": ["IN", "adjacency mark '~'", "RULE HIBERNATE"],
    "minorpower.map": ["RULE BUILD_ANY"],
    # 'LAND SWI' with no ABUTS: Switzerland borders nothing, while its neighbours still border it
    "renaissance.map": ["standard.geography:112: army: BUR borders SWI, but SWI does not border BUR",
                        "standard.geography:133: army: MAR borders SWI, but SWI does not border MAR",
                        "standard.geography:135: army: MUN borders SWI, but SWI does not border MUN",
                        "standard.geography:144: army: GEN borders SWI, but SWI does not border GEN",
                        "standard.geography:166: army: TYR borders SWI, but SWI does not border TYR"],
    "sailho.map": ["RULE FTF_PRESS"],
    "sengoku.map": ["DUMMY", "RULE BUILD_ANY", "RULE NO_DRAW", "RULE CD_DUMMIES", "RULE CD_BUILDS", "RULE IMMOBILE_DUMMIES"],
    "vassal.map": ["RULE VASSAL_DUMMIES", "DUMMY"],
    "void.map": ["RULE BUILD_ANY"],
    "zeus.map": ["PORT", "centre mark '@'", "DUMMY", "RULE CD_DUMMIES", "RULE CD_BUILDS", "RULE IMMOBILE_DUMMIES", "IN",
                 "centre mark '~'"],
}
# DPjudge's trial maps: the standard map in other languages, and two changes to Modern.
TRIALS = {
    "azov.map": "10 powers, 145 spaces (34 seas, 80 coastal, 31 inland), 64 supply centres, victory at 33",
    "midi.map": "10 powers, 145 spaces (34 seas, 80 coastal, 31 inland), 64 supply centres, victory at 33",
    "standard_dutch.map": "7 powers, 76 spaces (19 seas, 42 coastal, 14 inland, 1 impassable), 34 supply centres, victory at 18",
    "standard_french.map": "7 powers, 76 spaces (19 seas, 42 coastal, 14 inland, 1 impassable), 34 supply centres, victory at 18",
    "standard_german.map": "7 powers, 76 spaces (19 seas, 42 coastal, 14 inland, 1 impassable), 34 supply centres, victory at 18",
    "standard_glhetg.map": "7 powers, 76 spaces (19 seas, 42 coastal, 14 inland, 1 impassable), 34 supply centres, victory at 18",
}


class Beside(Mapping[str, str]):
    """The trial maps USE the maps of maps/: the files of a trial's folder, then of that one."""

    def __init__(self, *folders: Path) -> None:
        self.folders = [FilesBeside(f) for f in folders]

    def __getitem__(self, name: str) -> str:
        for f in self.folders:
            if name in f:
                return f[name]
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter(sorted({n for f in self.folders for n in f}))

    def __len__(self) -> int:
        return sum(1 for _ in self)


@pytest.fixture(scope="module")
def reference() -> Path:
    if not (REFERENCE / "maps").is_dir():
        pytest.skip(f"no DPjudge reference maps at {REFERENCE}")
    return REFERENCE


def outcome(map_file: str, files: Mapping[str, str]) -> str | list[str]:
    """The variant's summary, after ten years of random orders played on it; or why it is refused."""
    try:
        imported = read_dpjudge(map_file, files)
    except ImportRefused as e:
        return e.rules or [str(p) for p in e.problems]
    variant = variant_from_data(map_file.removesuffix(".map"), imported.data, Rules())
    start = variant.first_phase.year
    played = [state.phase.year for state, _, _ in play_random_game(variant, map_file, 10, stop_at_winner=False)]
    assert played[-1] == start + 9, f"{map_file}: the game stopped in {played[-1]}"
    return summary(imported.data)


def test_every_dpjudge_map_is_imported_and_played_or_refused_with_its_reason(reference: Path) -> None:
    maps = sorted(p.name for p in (reference / "maps").glob("*.map"))
    assert maps == sorted([*IMPORTED, *REFUSED]), "a map was added to or removed from the reference"
    files = FilesBeside(reference / "maps")
    found = {m: outcome(m, files) for m in maps}
    assert found == {**IMPORTED, **REFUSED}


def test_every_trial_map_is_imported_and_played(reference: Path) -> None:
    trials = sorted(p.name for p in (reference / "trials").glob("*.map"))
    assert trials == sorted(TRIALS)
    files = Beside(reference / "trials", reference / "maps")
    assert {m: outcome(m, files) for m in trials} == TRIALS


# The reasons README's tally groups the refusals by, each with the directives it covers.
FAMILIES = {
    "DPjudge rules gm does not play (RULE)": lambda r: r.startswith("RULE "),
    "PORT spaces": lambda r: r == "PORT",
    "years of another shape (FLOW)": lambda r: r.startswith("FLOW "),
    "powers no player plays (DUMMY)": lambda r: r == "DUMMY",
    "home centres of other kinds": lambda r: r.startswith("centre mark"),
    "adjacencies of other kinds": lambda r: r.startswith("adjacency"),
    "a board that changes in play (IN)": lambda r: r == "IN",
    "leagues (LEAGUE)": lambda r: r == "LEAGUE",
    "home centres given anew (NEWHOMES)": lambda r: r == "NEWHOMES",
    "a map that cannot be read as it stands": lambda r: ":" in r.split()[0],
}


def test_the_readme_gives_the_tally() -> None:
    text = " ".join((ROOT / "README.md").read_text().split())
    tally = text[text.index("### Importing a variant"):]
    assert f"imports {len(IMPORTED)} of the {len(IMPORTED) + len(REFUSED)} maps DPjudge ships" in tally
    assert f"all {len(TRIALS)} of its trial maps" in tally
    assert f"refuses {len(REFUSED)}" in tally
    for family, covers in FAMILIES.items():
        maps = sorted(m.removesuffix(".map") for m, rules in REFUSED.items() if any(covers(r) for r in rules))
        assert f"* {family}, {len(maps)}: {', '.join(maps)} " in tally, family


def test_dpjudge_s_standard_map_imports_as_gm_s_own_standard(reference: Path) -> None:
    """Every space, name, terrain, centre, border, coast, home centre and unit the same."""
    from gm.variants import read_variant_data

    imported = read_dpjudge("standard.map", FilesBeside(reference / "maps")).data
    ours = read_variant_data("standard")
    keys = ("name", "terrain", "centre", "army", "fleet", "coasts")
    assert {a: {k: p.get(k) for k in keys} for a, p in imported["provinces"].items()} == {
        a: {k: p.get(k) for k in keys} for a, p in ours["provinces"].items()}
    for name, power in ours["powers"].items():
        got = imported["powers"][name]
        assert (got["adjective"], got["home_centres"], sorted(got["units"])) == (
            power["adjective"], power["home_centres"], sorted(power["units"])), name
    assert (imported["start"], imported["victory_centres"]) == (ours["start"], ours["victory_centres"])
