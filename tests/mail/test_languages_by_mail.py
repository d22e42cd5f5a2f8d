"""A whole game by mail with players in four languages at once (standard and Ambition & Empire, on
SQLite and PostgreSQL): each chooses a language by mail (SET LANGUAGE), or reads the game's
(Italian here); each writes orders in their own language's words and province names; every mail
each gets (the start, acknowledgements, results, notices, the end) is in that language, with no
English sentence left in a French, German or Italian one; the GM reads in yet another; the pages
are in the game's language."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from gm.engine.parse import spell_order
from gm.games import find_game
from gm.i18n import _, translated
from gm.store.db import transaction
from gm.variants import load_variant
from gm.web.writer import write_game
from tests.mail.languages_check import english_lines, written_in
from tests.mail.reader_game import MASTER, Played, address, play

SUBJECTS = {"en": "g1", "fr": "ordres", "de": "Befehle", "it": "ordini"}
GAME_LANGUAGE = "it"
# who chose what (the others read the game's language); the GM reads German
GAMES = {
    "standard": {"England": "fr", "France": "de", "Germany": "it", "Italy": "en", "Austria": "fr", MASTER: "de"},
    "ambition": {"France": "fr", "Prussia": "de", "Spain": "it", "Great Britain": "en", "Austria": "fr", MASTER: "de"},
}


def _played(factory: sessionmaker[Session], variant: str) -> Played:
    languages = GAMES[variant]
    v = load_variant(variant)
    return play(factory, variant, phase_count=4, languages=languages, subjects=SUBJECTS,
                spell=lambda order, language: spell_order(v, order, language), language=GAME_LANGUAGE)


def _language(played: Played, to: str) -> str:
    languages = GAMES[played.variant]
    who = next((w for w in languages if (MASTER if w == MASTER else address(w)) == to), None)
    return languages[who] if who is not None else GAME_LANGUAGE


@pytest.mark.long
@pytest.mark.parametrize("variant", list(GAMES))
def test_every_reader_gets_every_mail_in_their_language(session_factory: sessionmaker[Session], variant: str,
                                                        tmp_path: Path) -> None:
    played = _played(session_factory, variant)
    readers = {to: _language(played, to) for to in played.mail}
    assert set(readers.values()) == {"en", "fr", "de", "it"}
    kinds = set()
    accepted = 0
    for to, mails in played.mail.items():
        language = readers[to]
        for mail in mails:
            kinds.add(mail.kind)
            where = f"{to} ({language}), {mail.kind} {mail.subject!r}"
            if mail.kind == "ack":  # every order, in the player's own words, read as meant
                refused = translated(_("REJECTED"), language)
                assert not [line for line in mail.text.splitlines() if line.strip().startswith(refused)], where
                took = translated(_("accepted"), language)
                accepted += sum(line.startswith(f"  {took}  ") for line in mail.text.splitlines())
            assert written_in(mail.text, language), where
            if language != "en":
                left = english_lines(mail.text) + english_lines(mail.subject)
                assert not left, f"{where}: English left:\n" + "\n".join(left[:20])
                if mail.html:
                    text = re.sub(r"<[^>]+>", "\n", mail.html)
                    left = english_lines(text)
                    assert not left, f"{where} (HTML): English left:\n" + "\n".join(left[:20])
    assert {"start", "ack", "results"} <= kinds
    # and none was taken for prose and passed over: each line sent was answered as accepted
    assert accepted == sum(len(body.splitlines()) for body in played.sent)
    # every order written in a player's own words was read as meant: none held for want of one
    assert not [o for o in played.orders if "no order" in o]
    with transaction(session_factory) as s:
        game = find_game(s, "g1")
        assert game is not None
        write_game(s, game, tmp_path)
    pages = list(tmp_path.rglob("*.html"))
    assert pages
    for page in pages:
        html = page.read_text(encoding="utf-8")
        assert f'<html lang="{GAME_LANGUAGE}"' in html, page
        text = re.sub(r"<[^>]+>", "\n", re.sub(r"<(script|style)[^>]*>.*?</\1>", "", html, flags=re.S))
        left = english_lines(text)
        assert not left, f"{page.name}: English left:\n" + "\n".join(left[:20])
