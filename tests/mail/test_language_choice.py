"""Who reads in which language: SET LANGUAGE by mail (a player's, a GM's, a signed mail's), the
game's language (SET OPTION language, gm game new --language), English where nothing is set; on
SQLite and PostgreSQL."""
from __future__ import annotations

from sqlalchemy import select

from gm.games import add_master, find_game
from gm.i18n import _, language_name, translated
from gm.lifecycle.house_rules import rules_of
from gm.store.db import transaction
from gm.view.languages import language_of
from gm.store.models import ReaderLanguage
from gm.store.passwords import hash_password
from tests.mail.test_ingest import Judge, line_of
from tests.mail.test_ingest import game as game  # noqa: F401  (the fixture)
from tests.mail.test_ingest import judge as judge  # noqa: F401  (the fixture)

FRANCE = "france@players.example"


def chosen(judge: Judge) -> dict[str, str]:
    with transaction(judge.sf) as s:
        return {r.address: r.language for r in s.scalars(select(ReaderLanguage))}


def test_a_player_chooses_french_and_the_answer_is_already_in_it(game: Judge) -> None:
    ack = game.say(FRANCE, "SIGNON France g1 pw-France\nSET LANGUAGE fr\nA Par - Bur")
    assert chosen(game) == {FRANCE: "fr"}
    said = _("the judge writes to {address} in {language}", address=FRANCE, language=language_name("fr"))
    assert translated(said, "fr") in ack
    assert translated(said, "fr") != str(said)  # it is French, not the English
    assert "A PAR - BUR" in ack


def test_any_name_of_a_language_is_read(game: Judge) -> None:
    for word, code in (("Deutsch", "de"), ("italiano", "it"), ("French", "fr"), ("FR", "fr"), ("english", "en")):
        game.say(FRANCE, f"SIGNON France g1 pw-France\nSET LANGUAGE {word}")
        assert chosen(game) == {FRANCE: code}, word
    game.say(FRANCE, "SIGNON France g1 pw-France\nSET LANGUAGE GAME")
    assert chosen(game) == {}


def test_an_unknown_language_is_refused_and_changes_nothing(game: Judge) -> None:
    ack = game.say(FRANCE, "SIGNON France g1 pw-France\nSET LANGUAGE klingon")
    assert line_of(ack, "SET LANGUAGE klingon").startswith("REJECTED")
    assert "usage: SET LANGUAGE en | de | fr | it | GAME" in ack
    assert chosen(game) == {}


def test_mail_that_proves_nothing_changes_no_ones_language(game: Judge) -> None:
    # Without a sign-on, a forged From could set a player's language for them.
    game.say(FRANCE, "SET LANGUAGE de")
    assert chosen(game) == {}


def test_a_wrong_password_changes_nothing(game: Judge) -> None:
    game.say(FRANCE, "SIGNON France g1 wrong\nSET LANGUAGE de")
    assert chosen(game) == {}


def test_the_games_language_is_the_default_and_a_readers_own_choice_wins(game: Judge) -> None:
    with transaction(game.sf) as s:
        g = find_game(s, "g1")
        assert g is not None
        add_master(s, g, "master@example.org", hash_password("gm-pw"))
    ack = game.say("master@example.org", "SIGNON MASTER g1 gm-pw\nSET LANGUAGE en\nSET OPTION language italiano")
    assert line_of(ack, "SET OPTION language italiano").startswith("accepted")
    with transaction(game.sf) as s:
        g = find_game(s, "g1")
        assert g is not None and rules_of(g.options).language == "it"
        assert language_of(s, "england@players.example", g) == "it"
    game.say(FRANCE, "SIGNON France g1 pw-France\nSET LANGUAGE de")
    with transaction(game.sf) as s:
        g = find_game(s, "g1")
        assert language_of(s, FRANCE, g) == "de" and language_of(s, FRANCE.upper(), g) == "de"
        assert language_of(s, "stranger@example.org", None) == "en"
    ack = game.say("master@example.org", "SIGNON MASTER g1 gm-pw\nSET OPTION language klingon")
    assert line_of(ack, "SET OPTION language klingon").startswith("REJECTED")
