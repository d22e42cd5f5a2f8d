"""The reconstructed map of 1700AD II (maps/1700ad/README.md): every space and fact the rules text
names is on it, the board is whole, and a game of it starts in 1700."""
from __future__ import annotations

from collections import deque

from sqlalchemy.orm import Session, sessionmaker

from gm.engine.graph import Terrain
from gm.games import create_game
from gm.store.db import transaction
from gm.variants import load_variant

V = load_variant("1700ad")
M = V.map
POWERS = ["Anglo-Dutch", "Austro-Hungarians", "French", "Russians", "Spanish", "Swedish", "Turks", "Poles"]


def test_the_eight_powers_of_rule_2() -> None:
    assert V.great_powers == POWERS
    assert load_variant("1700ad-ii").name == load_variant("1700").name == "1700ad"


def test_every_space_the_rules_name() -> None:
    for abbr in ("GOT", "DEN", "SCA", "LIV", "FIN", "KAR", "KUR", "DAL", "CRI", "VEN", "CON", "AND", "MOR",
                 "SWI", "BPR", "EPR", "COS", "AEG", "WBS"):
        assert abbr in M.provinces, abbr
    assert M.provinces["COS"].terrain is Terrain.SEA  # rule 10d: no land unit may occupy it


def test_the_rule_6_example_fits_the_board() -> None:
    # "2F(Sca)-COS-C CXII(Got)-Den": fleets in Scania reach COS, which touches Got and Den
    assert "COS" in M.fleet_provinces["SCA"] and {"GOT", "DEN"} <= M.sea_neighbours["COS"]
    assert "GOT" in M.army["SCA"]  # "A (Sca)-Hold-Got"
    assert "KAR" in M.army["LIV"] and "KAR" in M.army["FIN"]  # "A(Liv) S A(Fin)-Kar"
    assert "KUR" in M.army["LIV"]  # "Retreats: A(Liv)-Kur"
    # "Builds: A(Fin), A(Dal)", "Removes: A(Got)": Swedish home centres
    assert {"FIN", "DAL", "GOT"} <= V.powers["Swedish"].home_centres
    assert V.facts["leaders"]["Swedish"]["abbr"] == "CXII" and V.facts["leaders"]["Swedish"]["at"] == "GOT"  # type: ignore[index]


def test_the_geographical_notes_of_rule_10d() -> None:
    assert "WBS" in M.fleet_provinces["AEG"]  # F(AEG)-WBS is allowed
    assert {"AEG", "WBS"} <= M.sea_neighbours["CON"]  # Constantinople on both sides of the straits
    assert "MOR" not in M.army["AND"] and "AND" not in M.army["MOR"]  # no land bridge


def test_armed_neutrals_and_the_centres_of_rule_10b() -> None:
    neutral = {p for p, prov in M.provinces.items() if prov.supply_centre} - {
        c for p in V.powers.values() for c in p.home_centres}
    assert set(V.facts["armed_neutrals"]) == neutral  # type: ignore[arg-type]
    assert V.facts["armed_neutrals"]["BPR"] == 2  # type: ignore[index]
    assert not M.provinces["EPR"].supply_centre  # "EPr which is not a supply centre"
    assert "leaders" in V.facts and "Turks" not in V.facts["leaders"]  # type: ignore[operator]


def test_the_board_is_whole() -> None:
    start = next(iter(M.provinces))
    seen, queue = {start}, deque([start])
    while queue:
        for nxt in M.all_neighbours[queue.popleft()]:
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    assert seen == set(M.provinces)
    for here, there in ((a, b) for a, bs in M.army.items() for b in bs):
        assert here in M.army[there]
    centres = sum(1 for p in M.provinces.values() if p.supply_centre)
    assert 60 <= centres <= 75  # room for "sixteen additional centres" (rule 11) among eight powers


def test_a_game_starts_in_the_year_1700(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        game = create_game(s, "g1700", "1700ad")
        assert game.variant == "1700ad"
    assert V.phase_label(V.initial_state().phase) == "Year 1700"
