"""A map that cannot be drawn when its mail is sent: the mail goes without the picture, its HTML
shows no broken image (no cid: naming a part it lacks), and its text says the map could not be
drawn. Through the real outbox, a real SMTP server and Dovecot, on SQLite and PostgreSQL."""
from __future__ import annotations

import asyncio
import email
import email.policy
import re
from datetime import UTC, datetime
from email.message import EmailMessage
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import create_game
from gm.lifecycle import phases
from gm.mail.outgoing import game_mail
from gm.mail.outgoing.maps_left_out import without_missing_maps
from gm.mail.outgoing.outbox import OutboxSender
from gm.store.db import transaction
from gm.store.models import Game, GamePhase, OutboundMail, Player

if TYPE_CHECKING:  # fixtures' types only (see conftest.py)
    from conftest import Dovecot, ReadMailbox, SmtpFront, WaitUntil

GM = "gm@example.org"
START = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


def results_queued(sf: sessionmaker[Session]) -> None:
    """A standard game whose Spring is adjudicated, its results queued to France (alice) and
    England (bob): each with the map of Spring's orders and the map of the position now."""
    with transaction(sf) as s:
        game = create_game(s, "t1", "standard")
        s.add_all([Player(game_id=game.id, power="France", email="alice@example.org", password_hash="x"),
                   Player(game_id=game.id, power="England", email="bob@example.org", password_hash="x")])
        s.flush()
        phases.start(s, game, START)
        progress = phases.check(s, game, game.deadline_at)
        assert game_mail.queue_progress(s, game, progress, gm_address=GM, now=START) == 2


def spoil_the_results_map(sf: sessionmaker[Session]) -> None:
    """Spring's stored results name a space no board has: the renderer refuses the picture of its
    orders (the position after it still draws)."""
    with transaction(sf) as s:
        spring = s.scalars(select(GamePhase).where(GamePhase.seq == 1)).one()
        results = dict(spring.results_json or {})
        results["orders"] = [*results.get("orders", []), {"power": "France", "order": "A XYZ - BUR", "result": "fails"}]
        spring.results_json = results


def cids_in(html: str) -> list[str]:
    return re.findall(r'src="cid:([^"]+)"', html)


async def test_a_map_that_cannot_be_drawn_leaves_no_broken_image_and_the_text_says_so(
    dovecot: Dovecot, smtp_front: SmtpFront, session_factory: sessionmaker[Session], read_mailbox: ReadMailbox,
    wait_until: WaitUntil,
) -> None:
    results_queued(session_factory)
    spoil_the_results_map(session_factory)
    with transaction(session_factory) as s:
        row = s.scalars(select(OutboundMail).where(OutboundMail.to_addr == "alice@example.org")).one()
        phase_map, now_map = row.attachments or []
        assert len(cids_in(row.body_html or "")) == 2  # as queued: both pictures shown

    sender = OutboxSender(smtp_front.server, session_factory, gm_address=GM, timeout=5.0)
    task = asyncio.create_task(sender.run())
    try:
        def all_sent() -> bool:
            with transaction(session_factory) as s:
                return all(r.sent_at is not None for r in s.scalars(select(OutboundMail)))
        await wait_until(all_sent)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)

    for user in ("alice", "bob"):
        (stored,) = await read_mailbox(dovecot.account(user))
        msg = email.message_from_bytes(stored.raw, policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        html_part, text_part = msg.get_body(("html",)), msg.get_body(("plain",))
        assert html_part is not None and text_part is not None
        html, text = html_part.get_content(), text_part.get_content()
        parts = {str(p["Content-ID"]).strip("<>") for p in msg.walk() if p["Content-ID"]}
        # Every picture the HTML shows is in the mail: the position now, not Spring's orders.
        assert cids_in(html) and set(cids_in(html)) <= parts
        assert [p.get_filename() for p in msg.walk() if p.get_content_type() == "image/png"] == \
            [now_map["filename"]]
        assert "The map could not be drawn." in html
        assert "The map of this phase, its orders and their results, could not be drawn." in text
        assert "The map of this phase, its orders and their results, is attached." not in text
        assert "The map of the position now is attached." in text


def test_the_words_follow_the_maps_left_out() -> None:
    first = {"filename": "g1-spring-1901-movement.png", "content_type": "image/png", "content_id": "a@x"}
    second = {"filename": "g1-fall-1901-retreat.png", "content_type": "image/png", "content_id": "b@x"}
    now = {"filename": "g1-winter-1901-position.png", "content_type": "image/png", "content_id": "c@x"}
    text = ("Spring\nThe map of this phase, its orders and their results, is attached.\n"
            "Fall\nThe map of this phase, its orders and their results, is attached.\n"
            "The map of the position now is attached.\n")
    html = "".join(f'<p><img src="cid:{a["content_id"]}" alt="m"></p>' for a in (first, second, now))
    # the second of two alike sentences is the one said otherwise
    told, shown = without_missing_maps([first, second, now], [first, now], text, html)
    assert told == text.replace("Fall\nThe map of this phase, its orders and their results, is attached.",
                                "Fall\nThe map of this phase, its orders and their results, could not be drawn.")
    assert cids_in(shown or "") == ["a@x", "c@x"]
    assert without_missing_maps([first, second, now], [first, second, now], text, html) == (text, html)
    # MAP's answer names its file
    answer = "accepted  MAP\n            = Fall 1901, Movement: the map is attached (m1-fall-1901-movement.png)\n"
    wanted = {"filename": "m1-fall-1901-movement.png", "content_type": "image/png"}
    told, _ = without_missing_maps([wanted], [], answer, None)
    assert "Fall 1901, Movement: the map could not be drawn (m1-fall-1901-movement.png)" in told


def test_a_phase_that_makes_no_scene_leaves_the_map_out_rather_than_the_mail(
        session_factory: sessionmaker[Session]) -> None:
    results_queued(session_factory)
    with transaction(session_factory) as s:
        spring = s.scalars(select(GamePhase).where(GamePhase.seq == 1)).one()
        spring.results_json = {**(spring.results_json or {}), "dislodged": [{"power": "France"}]}  # no unit
    from gm.mail.outgoing.outbox import Outgoing

    with transaction(session_factory) as s:
        row = s.scalars(select(OutboundMail).where(OutboundMail.to_addr == "alice@example.org")).one()
        mail = Outgoing.of(row, s)
        game = s.scalars(select(Game)).one()
        assert game.name == "t1"
    assert [a["filename"] for a in mail.attachments or []] == ["t1-fall-1901-position.png"]
    assert "could not be drawn" in mail.body_text and len(cids_in(mail.body_html or "")) == 1
