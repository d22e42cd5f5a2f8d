"""After the end of a game its players still read it: MAP (the final position), SUMMARY, HISTORY and
RESULTS answer as before the end, whether a win, a draw or the GM ended it."""
from __future__ import annotations

import base64

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from desk import Desk, address, new_game
from gm.mail.outgoing.mail_maps import draw_attachments
from gm.store.db import transaction
from gm.store.models import OutboundMail
from test_master_guards import won_by_france
from test_master_views import section

PNG = b"\x89PNG\r\n\x1a\n"


def ask(desk: Desk, power: str, body: str) -> tuple[str, list[dict]]:
    """Mail as `power`: the acknowledgement's text, and its attachments as the outbox sends them."""
    out = desk.send(address(power), f"SIGNON {power} {desk.game} pw\n{body}")
    with transaction(desk.sf) as s:
        ack = s.scalars(select(OutboundMail).where(OutboundMail.inbound_id == out.inbound_id,
                                                   OutboundMail.to_addr == address(power))).one()
        return ack.body_text, draw_attachments(s, ack.attachments) or []


def test_a_won_game_is_read_after_its_end(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    won_by_france(desk)
    text, attachments = ask(desk, "Germany", "MAP\nSUMMARY\nHISTORY\nRESULTS")
    assert "has not started" not in text and "REJECTED" not in text
    assert "accepted  MAP\n            = the final position (won by France): the map is attached " \
           "(g1-final-position.png)" in text
    [picture] = attachments
    assert picture["filename"] == "g1-final-position.png" and base64.b64decode(picture["data"]).startswith(PNG)
    summary = section(text, "Summary of g1")
    assert summary.startswith("The final position (won by France), after Fall 1901, Movement")
    france = next(line for line in summary.splitlines() if line.startswith("  France:"))
    assert "18 centres" in france  # the position after the results that ended the game
    assert "Spring 1901, Movement\n" in section(text, "History of g1")
    assert "Fall 1901, Movement" in section(text, "History of g1")
    assert section(text, "Results of Fall 1901, Movement in g1")
    # The map of a past phase, and a second MAP in the same mail, as before the end.
    text, attachments = ask(desk, "France", "MAP\nMAP S1901M\nMAP")
    assert [a["filename"] for a in attachments] == ["g1-final-position.png", "g1-spring-1901-movement.png"]


def test_a_terminated_game_shows_the_position_it_stopped_in(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.master("PROCESS\nTERMINATE")
    text, attachments = ask(desk, "Italy", "MAP\nSUMMARY\nHISTORY\nRESULTS")
    assert "REJECTED" not in text
    assert "the final position (terminated by the GM): the map is attached (g1-final-position.png)" in text
    [picture] = attachments
    assert base64.b64decode(picture["data"]).startswith(PNG)
    assert section(text, "Summary of g1").startswith("The final position (terminated by the GM), Fall 1901, Movement")
    assert section(text, "Results of Spring 1901, Movement in g1")
