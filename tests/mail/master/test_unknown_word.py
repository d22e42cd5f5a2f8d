"""A line of one word that is no command and no order word in any variant ('FROBNICATE', 'XYZZY')
is answered as an unknown command, with the nearest command names or HELP: a red team found it
answered as an order naming an unknown province. Order words alone keep their order errors, and
one-word prose ('Cheers', a name signing the mail) stays unanswered, as every line no order is
meant by (gm.mail.intake.reply_text.no_order_meant)."""
from __future__ import annotations

import re

from desk import new_game
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from gm.mail.commands import MASTERS_ONLY
from gm.store.db import transaction
from gm.store.models import OrderRecord

_RESULT = re.compile(r"^  (accepted|REJECTED|answered)  (.*)\n\s+[=:-] (.*)$", re.MULTILINE)
HELP_ONLY = "(HELP lists the commands)"


def _lines(ack: str) -> dict[str, tuple[str, str]]:
    """The ack's lines: line -> (accepted|REJECTED, detail)."""
    return {line: (status, detail) for status, line, detail in _RESULT.findall(ack)}


def _orders(session_factory: sessionmaker[Session]) -> list[str]:
    with transaction(session_factory) as s:
        return list(s.scalars(select(OrderRecord.canonical).where(OrderRecord.current.is_(True))))


def test_one_unknown_word_is_an_unknown_command(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    ack = _lines(desk.player("France", "FROBNICATE\nXYZZY\nBLAH!\nORDERS\nA PAR - BUR"))
    assert ack["FROBNICATE"] == ("REJECTED", f"unknown command 'FROBNICATE' {HELP_ONLY}")
    assert ack["XYZZY"] == ("REJECTED", f"unknown command 'XYZZY' {HELP_ONLY}")
    assert ack["BLAH!"] == ("REJECTED", f"unknown command 'BLAH' {HELP_ONLY}")
    assert ack["ORDERS"] == ("REJECTED", f"unknown command 'ORDERS' {HELP_ONLY}")
    assert ack["A PAR - BUR"][0] == "accepted"  # the orders of the mail are read on
    assert _orders(session_factory) == ["A PAR - BUR"]


def test_one_unknown_word_is_offered_the_nearest_commands(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    ack = _lines(desk.player("France", "SIGNUP\nPROPOSE\nDRAW"))
    assert ack["SIGNUP"] == ("REJECTED", f"unknown command 'SIGNUP': did you mean SIGNON or RESIGN or SIGNOFF? "
                                         f"{HELP_ONLY}")  # three at most
    assert ack["PROPOSE"] == ("REJECTED", f"unknown command 'PROPOSE': did you mean PROPOSE DRAW? {HELP_ONLY}")
    assert ack["DRAW"] == ("REJECTED", f"unknown command 'DRAW': did you mean SET DRAW? {HELP_ONLY}")


def test_one_unknown_word_from_the_gm_is_an_unknown_command(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    ack = _lines(desk.master("FROBNICATE"))
    assert ack["FROBNICATE"] == ("REJECTED", f"unknown command 'FROBNICATE' {HELP_ONLY}")


def test_order_words_alone_keep_their_order_errors(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    alone = {"H": "unexpected 'H' at the start of the order", "Hold": "unexpected 'Hold' at the start of the order",
             "PAR": "missing order after 'PAR'", "Mao": "missing order after 'Mao'",
             "WAIVE": "waive orders are only accepted in an adjustment phase",
             "BUILD": "missing province after 'BUILD'", "A": "missing province after 'A'",
             "France": "unknown province 'France'", "1.": "unknown province '1'"}
    ack = _lines(desk.player("France", "\n".join(alone)))
    for line, error in alone.items():
        assert ack[line] == ("REJECTED", error), line


def test_one_word_of_prose_stays_unanswered(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    ack = desk.player("France", "Hello\nA PAR - BUR\nFROBNICATE\nCheers\nJim")
    lines = _lines(ack)
    assert lines["A PAR - BUR"][0] == "accepted" and lines["FROBNICATE"][0] == "REJECTED"
    for prose in ("Hello", "Cheers", "Jim"):
        assert prose not in ack, prose


def test_a_gms_command_from_a_player_says_whose_it_is(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    ack = _lines(desk.player("France", "PAUSE\nPROCESS\nDP 1 A Par - Bur"))
    assert ack["PAUSE"] == ack["PROCESS"] == ("REJECTED", MASTERS_ONLY)
    assert ack["DP 1 A Par - Bur"][1] != MASTERS_ONLY  # an allocation's word, read as one
