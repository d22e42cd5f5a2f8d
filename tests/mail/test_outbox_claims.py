"""A deadline's results through the outbox: senders sharing a database take each results mail's
readers together (its maps drawn once), a map is encoded once for every mail that carries it, and
a mark of rows sent outlives a deadlock."""
from __future__ import annotations

import base64
import email
import email.policy
import threading
import time
from datetime import UTC, datetime

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from gm.games import create_game
from gm.mail.outgoing.outbox import OutboxSender, Outgoing, build_message
from gm.settings import MailServer
from gm.store.db import transaction
from gm.store.models import OutboundMail

GM = "gm@example.org"
PICTURE = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 40  # 10 KB: 135 lines of base64
MAP = {"filename": "map.png", "content_type": "image/png", "content_id": "map1@example.org",
       "data": base64.b64encode(PICTURE).decode("ascii")}


def _results(sessions: sessionmaker[Session], game: str, readers: int, at: datetime) -> None:
    """A results mail to `readers` players of a new game, each row carrying the same map."""
    with transaction(sessions) as session:
        game_id = create_game(session, game, "standard").id
        session.add_all(OutboundMail(to_addr=f"p{i}@example.org", subject=f"{game}: results", body_text="Results\n",
                                     body_html='<img src="cid:map1@example.org">', kind="results", game_id=game_id,
                                     created_at=at, next_attempt_at=at, attachments=[MAP])
                        for i in range(readers))


def _sender(sessions: sessionmaker[Session]) -> OutboxSender:
    return OutboxSender(MailServer("127.0.0.1", 1), sessions, gm_address=GM)


def test_a_claim_takes_the_rest_of_the_last_results_mails_readers(session_factory: sessionmaker[Session]) -> None:
    at = datetime.now(UTC)
    _results(session_factory, "one", 10, at)
    _results(session_factory, "two", 10, at)
    _results(session_factory, "three", 10, at)
    first, second = _sender(session_factory), _sender(session_factory)
    taken, _ = first._claim(15, {})
    assert [m.subject for m in taken] == ["one: results"] * 10 + ["two: results"] * 10
    rest, _ = second._claim(15, {})
    assert [m.subject for m in rest] == ["three: results"] * 10  # nothing the first holds
    assert first._claim(15, {})[0] == []


def test_a_claim_of_mail_without_maps_stops_at_its_limit(session_factory: sessionmaker[Session]) -> None:
    at = datetime.now(UTC)
    with transaction(session_factory) as session:
        game_id = create_game(session, "acks", "standard").id
        session.add_all(OutboundMail(to_addr=f"p{i}@example.org", subject="ack", body_text="Orders received.\n",
                                     kind="ack", game_id=game_id, created_at=at, next_attempt_at=at)
                        for i in range(20))
    taken, _ = _sender(session_factory)._claim(15, {})
    assert len(taken) == 15


def test_every_reader_of_a_results_mail_gets_the_map_whole() -> None:
    mails = [Outgoing(id=i, message_id=f"<r{i}@example.org>", to_addr=f"p{i}@example.org", subject="Results",
                      body_text="Results\n", attachments=[MAP], in_reply_to=None, created_at=datetime.now(UTC),
                      attempts=0, body_html='<p>--=_ looks like a boundary</p><img src="cid:map1@example.org">')
             for i in range(3)]
    sent = [build_message(m, GM) for m in mails]
    for raw in sent:
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        assert raw.count(b"\n") == raw.count(b"\r\n")  # CRLF throughout
        assert all(len(line) <= 78 for line in raw.split(b"\r\n"))
        (image,) = [part for part in msg.walk() if part.get_content_type() == "image/png"]
        assert image.get_content() == PICTURE and image["Content-ID"] == "<map1@example.org>"
        assert msg.get_body(("html",)).get_content().startswith("<p>--=_ looks like a boundary</p>")
    boundaries = {email.message_from_bytes(raw).get_boundary() for raw in sent}
    assert len(boundaries) == 3  # each mail its own


def test_marking_rows_sent_survives_being_a_deadlocks_victim(session_factory: sessionmaker[Session]) -> None:
    """PostgreSQL ends one of two transactions that wait for each other's rows: marking rows sent
    is done again then, so that no mail is sent twice for a lost mark."""
    at = datetime.now(UTC)
    _results(session_factory, "locked", 2, at)
    with transaction(session_factory) as session:
        first, second = session.scalars(select(OutboundMail.id).order_by(OutboundMail.id)).all()
    sender = _sender(session_factory)
    other = session_factory()
    try:
        other.execute(update(OutboundMail).where(OutboundMail.id == second).values(last_error="held"))  # holds `second`
        marking = threading.Thread(target=sender._mark_sent, args=([(second, at), (first, at)],))
        if session_factory.kw["bind"].dialect.name == "postgresql":
            marking.start()  # takes `first`, then waits for `second`
            time.sleep(0.3)
            # Waits for `first` in turn: a deadlock, which PostgreSQL breaks by ending one of the two.
            try:
                other.execute(update(OutboundMail).where(OutboundMail.id == first).values(last_error="held"))
                other.commit()
            except Exception:
                other.rollback()
        else:  # SQLite has no row locks: one writer at a time, and no deadlock to break
            other.commit()
            marking.start()
        marking.join(30)
        assert not marking.is_alive()
    finally:
        other.close()
    with transaction(session_factory) as session:
        assert all(row.sent_at is not None for row in session.scalars(select(OutboundMail)))
