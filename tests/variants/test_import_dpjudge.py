"""DPjudge's map files read into gm's variant data (gm.variants.importing.dpjudge), on Mini, a board
written for these tests: what is read, what is left aside and said, and what is refused with every
problem named by file and line (a file cut short, an unknown space, two units in one space, the
directives whose rules gm lacks)."""
from __future__ import annotations

import tomllib

import pytest

from gm.engine.adjudicator import adjudicate
from gm.engine.parse import parse_order
from gm.engine.model import PhaseKind
from gm.engine.results import Result
from gm.engine.rules import Rules
from gm.randomgame import play_random_game
from gm.variants import variant_from_data
from gm.variants.importing import ImportRefused
from gm.variants.importing.dpjudge import read_dpjudge
from gm.variants.importing.write import geography_scaffold, variant_toml
from tests.variants.import_maps import MINI_GEOGRAPHY, MINI_MAP, MINI_MILITARY, MINI_POLITICS, dpjudge_files


def refused(files: dict[str, str], map_file: str = "mini.map") -> ImportRefused:
    with pytest.raises(ImportRefused) as caught:
        read_dpjudge(map_file, files)
    return caught.value


def problems(files: dict[str, str], map_file: str = "mini.map") -> list[str]:
    return [str(p) for p in refused(files, map_file).problems]


def test_mini_is_read_whole() -> None:
    imported = read_dpjudge("mini.map", dpjudge_files())
    data = imported.data
    assert imported.source == "DPjudge"
    assert imported.files == ["mini.map", "mini.geography", "mini.politics", "mini.military"]
    assert imported.header == ["Mini: a board for gm's tests", "Drawn by the tests' author"]
    assert (data["title"], data["rules"], data["victory_centres"], data["start"]) == (
        "Mini", "standard", 4, {"season": "Spring", "year": 1850})
    assert data["powers"] == {
        "Redland": {"colour": "#8e44ad", "adjective": "Reddish", "home_centres": ["AMB", "CIN"],
                    "units": ["F AMB", "A CIN"]},
        "Blueland": {"colour": "#e67e22", "adjective": "Bluish", "home_centres": ["ELM", "FEN"],
                     "units": ["F ELM", "A FEN"]},
    }
    p = data["provinces"]
    assert p["DUN"] == {"name": "Dunmark", "terrain": "coast", "centre": True, "army": ["AMB", "CIN", "ELM", "GUL"],
                        "coasts": {"NC": ["AMB", "GRS", "GUL"], "SC": ["BOD", "ELM"]}}
    assert p["CIN"] == {"name": "Cinder", "terrain": "land", "centre": True, "army": ["AMB", "DUN", "FEN"]}
    assert p["BOD"] == {"name": "Bay of Dunes", "terrain": "sea", "aliases": ["dunes"],  # 'bay+of+dunes' is its name
                        "fleet": ["DUN/SC", "ELM", "GRS"]}
    # the ambiguous alias ('hip?') is left to the order reader, which knows ambiguity on its own
    assert p["HIP"] == {"name": "High Peaks", "terrain": "impassable", "aliases": ["peaks"]}
    assert sorted(k for k, v in p.items() if v.get("centre")) == ["AMB", "CIN", "DUN", "ELM", "FEN", "GUL"]
    assert imported.notes == []


def test_the_data_round_trips_through_variant_toml_and_plays_ten_years() -> None:
    data = read_dpjudge("mini.map", dpjudge_files()).data
    assert tomllib.loads(variant_toml(read_dpjudge("mini.map", dpjudge_files()))) == data
    variant = variant_from_data("mini", data, Rules())
    phases = list(play_random_game(variant, "mini", 10, stop_at_winner=False))
    assert phases[-1][0].phase.year == 1859 and len(phases) > 20
    scaffold = tomllib.loads(geography_scaffold(data, "mini"))
    assert scaffold == {"frame": {}, "anchors": {}}  # every line commented, for the author to fill


def test_a_phase_adjudicated_on_mini() -> None:
    variant = variant_from_data("mini", read_dpjudge("mini.map", dpjudge_files()).data, Rules())
    state = variant.initial_state()
    orders = [parse_order(variant, text, power, PhaseKind.MOVEMENT, state).order for power, text in (
        ("Redland", "A Cinder - Dunmark"), ("Redland", "F Amber Coast S A Cin - Dun"),
        ("Blueland", "F Elm - Dun/sc"), ("Blueland", "A Fen - Cin"))]
    assert None not in orders
    results = {str(r.order): r.result for r in adjudicate(variant, state, orders).results}
    assert results == {"A CIN - DUN": Result.SUCCEEDS, "F AMB S A CIN - DUN": Result.SUCCEEDS,
                       "F ELM - DUN/SC": Result.FAILS, "A FEN - CIN": Result.SUCCEEDS}


def test_a_map_that_uses_another_changes_it_by_name() -> None:
    """USE reads a map first; a rename carries every mention along, DROP forgets a space, AMEND
    changes a list, UNPLAYED removes a power and all it had."""
    variant_map = ("USE mini.map\n"
                   "CIN -> Cindermark = cdm cinder\n"
                   "DROP GUL\n"
                   "AMEND DUN/NC ABUTS -GUL\n"
                   "AMEND GRS ABUTS -GUL\n"
                   "AMEND ELM ABUTS -GUL\n"
                   "AMEND dun ABUTS -GUL\n"
                   "GREENLAND (GREENISH) DUN\n"
                   "F DUN/SC\n"
                   "UNPLAYED BLUELAND\n"
                   "NEUTRAL ELM FEN\n")
    data = read_dpjudge("variant.map", dpjudge_files(variant_map=variant_map)).data
    assert list(data["powers"]) == ["Redland", "Greenland"]
    assert data["powers"]["Redland"]["units"] == ["F AMB", "A CDM"]
    assert data["powers"]["Redland"]["home_centres"] == ["AMB", "CDM"]
    assert data["powers"]["Greenland"] == {"colour": "#e67e22", "adjective": "Greenish", "home_centres": ["DUN"],
                                           "units": ["F DUN/SC"]}
    assert "GUL" not in data["provinces"] and data["provinces"]["CDM"]["aliases"] == ["cinder"]
    assert data["provinces"]["AMB"]["army"] == ["CDM", "DUN"]
    assert data["victory_centres"] == 4  # Mini's: the map that uses it keeps what it does not change


def test_a_unit_of_a_used_map_is_replaced_but_two_in_one_file_are_a_problem() -> None:
    replaced = read_dpjudge("fleet.map", dpjudge_files(fleet_map="USE mini.map\nREDLAND\nF DUN/NC\nA AMB\n")).data
    assert sorted(replaced["powers"]["Redland"]["units"]) == ["A AMB", "A CIN", "F DUN/NC"]
    military = MINI_MILITARY.replace("A FEN", "A CIN")
    assert problems(dpjudge_files(mini_military=military)) == [
        "mini.military:7: two units in CIN: A CIN and Redland's A CIN of line 3"]


def test_a_file_cut_short_is_refused_with_every_problem_named() -> None:
    cut = MINI_GEOGRAPHY[:MINI_GEOGRAPHY.index("COAST GUL")]  # the last three spaces' lines are lost
    assert problems(dpjudge_files(mini_geography=cut)) == [
        "mini.geography:13: GRS borders GUL: no such space",
        "mini.geography:14: BOD borders ELM: no such space",
        "mini.geography:16: CIN borders FEN: no such space",
        "mini.geography:16: CIN borders HIP: no such space",
        "mini.geography:17: DUN/NC borders GUL: no such space",
        "mini.geography:18: DUN/SC borders ELM: no such space",
        "mini.geography:19: DUN borders ELM: no such space",
        "mini.geography:19: DUN borders GUL: no such space",
        "mini.geography:19: DUN borders HIP: no such space",
        "mini.military:6: Blueland's F ELM: no such space",
        "mini.military:7: Blueland's A FEN: no such space",
        "mini.politics:2: Blueland's home centre ELM: no such space",
        "mini.politics:2: Blueland's home centre FEN: no such space",
        "mini.politics:3: supply centre GUL: no such space",
    ]
    truncated_map = MINI_MAP.replace("BEGIN SPRING 1850 MOVEMENT", "BEGIN SPRING")
    assert problems(dpjudge_files(mini_map=truncated_map)) == ["mini.map:7: BEGIN SPRING: not 'season year phase'"]
    assert problems(dpjudge_files(mini_military="")) == ["mini.map:5: mini.military: no such file beside the map"]


def test_an_unknown_space_and_a_one_way_border_are_named_where_written() -> None:
    geography = MINI_GEOGRAPHY.replace("COAST GUL ABUTS GRS DUN/NC ELM", "COAST GUL ABUTS GRS DUN/NC ELM XYZ")
    assert problems(dpjudge_files(mini_geography=geography)) == ["mini.geography:20: GUL borders XYZ: no such space"]
    geography = MINI_GEOGRAPHY.replace("LAND FEN ABUTS CIN ELM HIP", "LAND FEN ABUTS ELM HIP")
    assert problems(dpjudge_files(mini_geography=geography)) == [
        "mini.geography:16: army: CIN borders FEN, but FEN does not border CIN"]
    geography = MINI_GEOGRAPHY.replace("Cinder = cin\n", "")
    assert problems(dpjudge_files(mini_geography=geography)) == [
        "mini.geography:15: CIN has no name (a 'Name = cin' line)"]


def test_directives_whose_rules_gm_lacks_are_refused_and_named() -> None:
    extra = ("RULE BUILD_ANY\n"
             "RULE HIDE_DUMMIES\n"
             "RULE !HIDE_DUMMIES\n"  # turned off again: no problem
             "REDLAND\n"
             "LEAGUE NORTH\n"
             "DUMMY\n"
             "FLOW SPRING:INCOME,MOVEMENT,RETREATS FALL:MOVEMENT,RETREATS WINTER:ADJUSTMENTS\n"
             "AMEND GRS ABUTS ~AMB\n"
             "BLUELAND &GUL\n"
             "PORT BOD ABUTS GRS DUN/SC ELM\n")
    error = refused(dpjudge_files(mini_map=MINI_MAP + extra))
    assert [str(p) for p in error.problems] == [
        "mini.map:9: RULE BUILD_ANY: a DPjudge rule gm does not play",
        "mini.map:13: LEAGUE: leagues that restrict supports and convoys, which gm's rules lack",
        "mini.map:14: DUMMY: powers no player plays, which gm's rules lack",
        "mini.map:15: FLOW SPRING:INCOME,MOVEMENT,RETREATS: INCOME phases, which gm's rules lack",
        "mini.map:16: '~AMB': the '~' mark: moves across without strength, supports not across (weak straits), "
        "which gm's rules lack",
        "mini.map:17: '&GUL': a home centre claimed later, which gm's rules lack",
        "mini.map:18: PORT BOD: fleets that convoy from a coastal space, which gm's rules lack",
    ]
    assert error.rules == ["RULE BUILD_ANY", "LEAGUE", "DUMMY", "FLOW INCOME", "adjacency mark '~'",
                           "centre mark '&'", "PORT"]


def test_what_only_shows_a_game_is_left_aside_and_said() -> None:
    extra = ("FLAGS standard\nFLAG ENGLAND\nNOTIFY someone@example.org\nTEXTONLY\n"
             "PAYOLA DIRECTIVES\nRULE PAY_DUMMIES\nEND DIRECTIVES\n")
    imported = read_dpjudge("mini.map", dpjudge_files(mini_map=MINI_MAP + extra))
    assert imported.notes == [
        "FLAG and FLAGS: the flags DPjudge shows beside its powers",
        "NOTIFY: an address DPjudge mails about games of the map (not kept)",
        "TEXTONLY: DPjudge draws no map for it",
        "PAYOLA DIRECTIVES: lines for DPjudge's Payola games only",
    ]
    assert "someone@example.org" not in repr(imported)


def test_the_standard_year_under_other_names_is_read_as_gm_s_and_said() -> None:
    extra = ("FLOW PRINTEMPS:MOVEMENT,RETREATS\nFLOW AUTOMNE:MOVEMENT,RETREATS\nFLOW HIVER:ADJUSTMENTS\n"
             "BEGIN HIVER 1849 ADJUSTMENTS\n")
    imported = read_dpjudge("mini.map", dpjudge_files(mini_map=MINI_MAP + extra))
    assert imported.data["start"] == {"season": "Winter", "year": 1849, "kind": "Adjustment"}
    assert imported.notes == ["Its seasons, Printemps, Automne, Hiver, are gm's Spring, Fall and Winter: "
                              "the year is the standard one."]
    assert problems(dpjudge_files(mini_map=MINI_MAP + "FLOW NEWYEAR:5\n")) == [
        "mini.map:9: FLOW NEWYEAR:5: years that do not follow one another, which gm's rules lack"]
    assert problems(dpjudge_files(mini_map=MINI_MAP + "BEGIN FALL 1850 RETREATS\n")) == [
        "mini.map:9: BEGIN FALL 1850 RETREATS: the game must begin with movement, or the winter's adjustments"]


def test_no_victory_count_is_one_more_than_half_the_centres_and_said() -> None:
    imported = read_dpjudge("mini.map", dpjudge_files(mini_map=MINI_MAP.replace("VICTORY 4\n", "")))
    assert imported.data["victory_centres"] == 4
    assert imported.notes == ["The files give no victory count: 4, one more than half of the 6 supply centres."]
    assert read_dpjudge("mini.map", dpjudge_files(), victory=5).data["victory_centres"] == 5


def test_a_map_that_uses_itself_or_a_file_outside_is_refused() -> None:
    assert problems({"loop.map": "USE loop.map\n"}, "loop.map") == [
        "loop.map: no powers: the map names no power with home centres or units",
        "loop.map:1: loop.map uses itself (through loop.map)",
    ]
    assert "no such file" in problems(dpjudge_files(mini_map=MINI_MAP + "USE ../secret\n"))[0]


def test_politics_and_military_lines_keep_their_lines_in_problems() -> None:
    politics = MINI_POLITICS.replace("UNOWNED DUN GUL", "UNOWNED DUN GUL XYZ")
    assert problems(dpjudge_files(mini_politics=politics)) == ["mini.politics:3: supply centre XYZ: no such space"]
    military = MINI_MILITARY.replace("A FEN", "A BOD")
    assert problems(dpjudge_files(mini_military=military)) == [
        "mini.military:7: Blueland's army in BOD: an army cannot stand there (sea)"]
    military = MINI_MILITARY.replace("F AMB", "F DUN")
    assert problems(dpjudge_files(mini_military=military)) == [
        "mini.military:2: Redland's fleet in DUN: a fleet cannot stand there (name its coast (DUN/NC, DUN/SC))"]
    assert problems(dpjudge_files(mini_military="A CIN\n")) == [
        "mini.military:1: A CIN: a unit of no power (a power's line must come first)"]
