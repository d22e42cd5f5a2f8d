"""Texts that cannot move in are refused with every problem named, each with its line: a text cut
short, a game of another variant, places the variant does not know, two units in one space, a
phase that is none, a power with no player. (That nothing is made of them is checked where a game
is made: tests/test_cli_game_import.py and tests/mail/master/test_master_import.py.)"""
from __future__ import annotations

from pathlib import Path

import pytest

from gm.lifecycle.moving_in import Refused, read_position

TEXTS = Path(__file__).parent / "texts"


def text(name: str) -> str:
    return (TEXTS / name).read_text(encoding="utf-8")


def problems(written: str, variant: str | None = None) -> list[str]:
    with pytest.raises(Refused) as refused:
        read_position(written, variant)
    return [str(p) for p in refused.value.problems]


def test_a_results_mail_cut_short_names_each_thing_it_lacks() -> None:
    lines = [line for line in text("njudge-standard-fall.txt").splitlines() if not line.startswith(":: Deadline")]
    cut = "\n".join(lines[:lines.index("Italy: Army Piedmont -> Marseilles.")]) + "\nItaly: Army Piedmont -> Mars"
    found = problems(cut)
    assert "line 28: the text ends in the middle of 'Italy: Army Piedmont -> Mars': is it cut short?" in found
    assert any("does not say which phase comes next" in p and "cut short" in p for p in found)
    assert any("does not say who owns the supply centres" in p for p in found)


def test_a_status_file_cut_short_is_refused() -> None:
    lines = text("dpjudge-standard-status.txt").splitlines()
    found = problems("\n".join(lines[:lines.index("DESC") + 1]))  # ends inside its description
    assert any("ends inside its DESC block" in p for p in found)
    assert any("no player for" in p for p in found) is False  # no unit, no centre: nobody is in the game yet
    assert any("does not say who owns" in p for p in found)


def test_a_game_of_another_variant_is_refused_naming_both() -> None:
    assert problems(text("dpjudge-classical-status.txt"), "standard") == [
        "line 7: wrong variant: the text is a game of Classical Mediterranean Diplomacy, not Diplomacy (standard map)"]
    assert problems(text("njudge-ambition-fall.txt"), "classical") == [
        "line 2: wrong variant: the text is a game of Ambition & Empire (2006), not Classical Mediterranean Diplomacy"]
    # the 2006 and version 6 rules of Ambition & Empire share the board: a game moves between them
    assert read_position(text("dpjudge-ambition-status.txt"), "ambition-v6").variant == "ambition-v6"


def test_a_variant_gm_does_not_play_and_a_text_without_one() -> None:
    status = text("dpjudge-standard-status.txt").replace("MAP standard", "MAP chaos")
    assert problems(status) == ["line 7: the text is a game of 'chaos', a variant gm does not play"]
    own = "Phase: Spring 1901, Movement\nFrance: A PAR\n"
    assert problems(own) == ["the text does not say which variant it is a game of: name it (--variant, or a "
                             "'Variant:' line)"]


def test_unknown_places_two_units_in_one_space_and_a_bad_phase_are_each_named() -> None:
    status = (text("dpjudge-standard-status.txt")
              .replace("PHASE FALL 1901 MOVEMENT", "PHASE FALL 1901 INCOME")
              .replace("A SER\n", "A XYZ\n")
              .replace("OWNS BRE MAR PAR", "OWNS BRE MAR PAR QQQ")
              .replace("A RUH\n", "A BUR\n"))
    found = problems(status)
    assert "line 2: 'FALL 1901 INCOME' is no phase of Diplomacy (standard map) as gm plays it" in found
    assert "line 19: 'XYZ' is no place on the Diplomacy (standard map) board" in found
    assert "line 31: 'QQQ' is no place on the Diplomacy (standard map) board" in found
    assert "line 38: two units in one space: Germany A BUR and France A BUR (line 32)" in found
    assert len(found) == 4, found


def test_units_the_board_refuses_and_centres_that_are_none() -> None:
    status = (text("dpjudge-standard-status.txt").replace("F MAO\n", "F PAR\n")
              .replace("A UKR\n", "A BLA\n").replace("OWNS NAP ROM VEN", "OWNS NAP ROM VEN PIE"))
    found = problems(status)
    assert "line 34: a fleet cannot stand in Paris: it is inland" in found
    assert "line 50: an army cannot stand in Black Sea: it is at sea" in found
    assert "line 58: two units in one space: Turkey F BLA and Russia A BLA (line 50)" in found
    assert "line 43: Piedmont is no supply centre of Diplomacy (standard map)" in found


def test_a_power_in_the_game_with_no_player_is_named_and_none_may_be_said() -> None:
    mail = text("njudge-standard-fall.txt")
    given = "\n".join(f"Player {p}: {p.lower()}@players.test" for p in ("Austria", "England", "France", "Germany"))
    found = problems(mail + "\n" + given)
    assert found == [f"no player for {p}: add 'Player {p}: <address>' (or 'Player {p}: none' for a power nobody "
                     "plays)" for p in ("Italy", "Russia", "Turkey")]
    taken = read_position(mail + "\n" + given + "\nPlayer Italy: none\nPlayer Russia: none\nPlayer Turkey: none")
    assert taken.players["Italy"] is None and taken.players["France"] == "france@players.test"


def test_a_dislodged_unit_must_have_been_pushed_out_and_retreat_next_door() -> None:
    mail = text("dpjudge-standard-spring.txt").replace("Bohemia or Budapest or", "Bohemia or Rome or")
    centres = "\nCentres Austria: BUD, GRE, TRI, VIE\nCentres Russia: MOS, RUM, STP, WAR\n"
    found = problems(mail + centres + "\n".join(f"Player {p}: none" for p in ("Austria", "England", "France",
                                                                                "Germany", "Italy", "Russia",
                                                                                "Turkey")))
    assert any("Austria A GAL cannot retreat to Rome: it is not next to it" in p for p in found)


def test_a_retreat_results_mail_alone_is_not_a_position() -> None:
    retreats = ("Retreat results for Spring of 1902.  (oldgame.S1902R)\n\nAustria: Army Galicia -> Budapest.\n\n"
                "The next phase of 'oldgame' will be Movement for Fall of 1902.\n")
    found = problems(retreats, "standard")
    assert any("retreat results name only the units that retreat" in p for p in found)
    assert any("gives no position" in p for p in found)


def test_a_finished_game_and_a_forming_one_do_not_move_in() -> None:
    status = text("dpjudge-standard-status.txt")
    assert any("only a game under way is moved in" in p
               for p in problems(status.replace("PHASE FALL 1901 MOVEMENT", "PHASE COMPLETED")))
    assert any("a finished game is not moved in" in p for p in problems(status + "RESULT F1905M FRANCE\n"))
    morphed = status.replace("MAP standard\n", "MAP standard\nMORPH COAST NTH ABUTS BAL\n")
    assert "line 8: MORPH changes the map: a game on a changed map is not moved in" in problems(morphed)


def test_gm_own_lines_it_cannot_read_are_named() -> None:
    own = ("Variant: standard\nPhase: Spring 1901, Movement\nFrance: A PAR, F XXX\nCentres France: PAR\n"
           "Player France: nobody@\nBank France: many\nThis is not a line\n")
    found = problems(own)
    assert "line 3: 'XXX' is no place on the Diplomacy (standard map) board" in found
    assert "line 5: 'nobody@' is no mail address (write 'none' for a power nobody plays)" in found
    assert "line 6: 'many' is no number of points" in found
    assert "line 7: not a line of gm's position text: 'This is not a line'" in found
