"""njudge's map.<variant> and seed.<variant> read into gm's variant data
(gm.variants.importing.njudge), on Mini, the tests' board: the same board as its DPjudge files, the
powers named by the caller (njudge keeps their names in its C code), and what is refused with
every problem named by file and line."""
from __future__ import annotations

import pytest

from gm.engine.rules import Rules
from gm.randomgame import play_random_game
from gm.variants import variant_from_data
from gm.variants.importing import ImportRefused
from gm.variants.importing.dpjudge import read_dpjudge
from gm.variants.importing.njudge import read_njudge
from tests.variants.import_maps import NJ_MAP, NJ_POWERS, NJ_SEED, dpjudge_files, njudge_files


def read(map_text: str = NJ_MAP, seed_text: str | None = NJ_SEED, **kwargs):
    kwargs.setdefault("powers", NJ_POWERS)
    return read_njudge("map.mini", "seed.mini", njudge_files(map_text, seed_text), **kwargs)


def problems(map_text: str = NJ_MAP, seed_text: str | None = NJ_SEED, **kwargs) -> list[str]:
    with pytest.raises(ImportRefused) as caught:
        read(map_text, seed_text, **kwargs)
    return [str(p) for p in caught.value.problems]


def test_mini_reads_as_its_dpjudge_files_do() -> None:
    imported = read(victory=4)
    dp = read_dpjudge("mini.map", dpjudge_files()).data
    data = imported.data
    assert imported.source == "njudge" and imported.files == ["map.mini", "seed.mini"]
    assert imported.header == ["Mini: a board for gm's tests, njudge's way"]
    assert (data["title"], data["start"], data["victory_centres"]) == ("Mini", dp["start"], 4)
    assert data["powers"] == dp["powers"]
    for abbr, p in dp["provinces"].items():
        theirs = data["provinces"][abbr]
        for key in ("name", "terrain", "centre", "army", "fleet", "coasts"):
            assert theirs.get(key) == p.get(key), (abbr, key)
    assert data["provinces"]["HIP"]["terrain"] == "impassable"  # 'hip-mv: hip': it moves nowhere else
    assert imported.notes == ["The order of centres in njudge's summary report is not kept."]
    variant = variant_from_data("mini", data, Rules())
    assert len(list(play_random_game(variant, "njudge", 10, stop_at_winner=False))) > 20


def test_without_a_victory_count_half_the_centres_and_one_more_and_said() -> None:
    imported = read()
    assert imported.data["victory_centres"] == 4
    assert imported.notes[-2:] == ["The files give no victory count: 4, one more than half of the 6 supply centres.",
                                   "njudge keeps the victory count in its C code, not in the map files."]


def test_a_power_letter_with_no_name_is_a_problem_never_a_guess() -> None:
    assert problems(powers={"R": ("Redland", "Reddish")}) == [
        "map.mini:8: power B has no name: njudge keeps its powers' names in its C code, not in the map files; "
        "name it (B=Name)"]


def test_the_ownership_record_and_a_winter_start() -> None:
    seed = NJ_SEED.replace("S1850M", "F1849B").replace("data.\n-1\n", "data.\n..RRR.BB.\n-1\n")
    data = read(seed_text=seed).data
    assert data["start"] == {"season": "Winter", "year": 1849, "kind": "Adjustment"}
    assert data["powers"]["Redland"]["centres"] == ["AMB", "CIN", "DUN"]
    assert "centres" not in data["powers"]["Blueland"]  # its home centres, as by default
    short = seed.replace("..RRR.BB.", "..RRR.BB")
    assert problems(seed_text=short) == ["seed.mini:7: the ownership record has 8 characters for 9 provinces"]
    given = seed.replace("..RRR.BB.", "R.RRR.BB.")
    assert problems(seed_text=given) == ["seed.mini:7: the ownership record gives GRS to R, but GRS is no supply centre"]


def test_a_file_cut_short_is_refused_with_every_problem_named() -> None:
    cut = NJ_MAP[:NJ_MAP.index("gul-mv")]
    assert problems(cut) == [  # Gulls Reach, Elmwood and Fenland lost their lines: they read as inland spaces
        "map.mini: the file ends before the '-1' that closes the adjacency",
        "map.mini:12: fleet: GRS borders GUL, where no fleet stands",
        "map.mini:13: fleet: BOD borders ELM, where no fleet stands",
        "map.mini:16: army: CIN borders FEN, but FEN does not border CIN",
        "map.mini:17: army: DUN borders ELM, but ELM does not border DUN",
        "map.mini:17: army: DUN borders GUL, but GUL does not border DUN",
        "map.mini:18: fleet: DUN/NC borders GUL, where no fleet stands",
        "map.mini:19: fleet: DUN/SC borders ELM, where no fleet stands",
        "seed.mini:4: Blueland's fleet in ELM: a fleet cannot stand there (land)",
    ]
    assert problems(seed_text=NJ_SEED[:NJ_SEED.index("B: A")]) == [
        "seed.mini: the file ends before the '-1' that closes the units"]
    assert problems(seed_text=None) == ["map.mini: no seed.mini beside it: the starting units and phase are there"]


def test_an_unknown_province_and_two_units_in_one_space() -> None:
    assert problems(NJ_MAP.replace("gul-xc: grs dun/nc elm", "gul-xc: grs dun/nc elm xyz")) == [
        "map.mini:21: GUL borders XYZ: no such space"]
    assert problems(seed_text=NJ_SEED.replace("B: A Fenland", "B: A Cinder")) == [
        "seed.mini:5: two units in CIN: Blueland's A CIN and the A CIN of line 3"]
    assert problems(seed_text=NJ_SEED.replace("B: A Fenland", "B: A Atlantis")) == [
        "seed.mini:5: Atlantis: no such province in the map"]


def test_what_gm_s_rules_lack_is_refused_and_named() -> None:
    odd = (NJ_MAP.replace("Dunmark,         x dun", "Dunmark,         xw dun")
           .replace("fen-mv: cin elm", "fen-mv: cin elm\nfen-rr: elm"))
    seed = NJ_SEED.replace("B: A Fenland", "B: W Fenland")
    with pytest.raises(ImportRefused) as caught:
        read(odd, seed)
    assert [str(p) for p in caught.value.problems] == [
        "map.mini:6: type 'xw': Dunmark is land that fleets also cross and convoy through, which gm's rules lack",
        "map.mini:25: '-rr': gm reads -mv (armies), -xc (fleets) and a coast's -nc, -sc, -ec, -wc",
        "seed.mini:5: W Fenland: a unit of kind W (wings?), which gm's rules lack",
    ]
    assert caught.value.rules == ["type '?w' (land fleets convoy through)", "'-rr' lines", "unit kind W"]
    assert problems(seed_text=NJ_SEED.replace("S1850M", "F1850R")) == [
        "seed.mini:1: F1850R: the game must begin with movement, or the winter's adjustments"]
