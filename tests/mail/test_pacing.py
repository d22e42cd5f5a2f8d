"""Sending within the provider's limits (gm.mail.outgoing.pacing), against a real SMTP server that
takes N mails an hour and answers 452 4.7.0 and 421 4.7.0 past them, as providers do: with the
limit set the judge keeps under it and sends in priority order (acknowledgements, results, press,
notices), the game's GM told once and at once when its results will be late; without the limit
set, the server's "slow down" pauses the judge, which loses nothing and sends nothing twice."""
from __future__ import annotations

import asyncio
import contextlib
import email
import logging
import threading
import time
from datetime import UTC, datetime, timedelta
from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import add_master, create_game
from gm.mail.backoff import Backoff
from gm.mail.outgoing.outbox import OutboxSender
from gm.mail.outgoing.pacing import LATE_KIND, Limits, slow_down
from gm.settings import MailServer
from gm.store.db import transaction
from gm.store.models import OutboundMail
from loopback import free_port

GM = "gm@example.org"
MASTER = "master@example.org"


class Capped:
    """aiosmtpd handler: takes `cap` mails, then answers each RCPT 452 4.7.0 and each new
    connection's MAIL 421 4.7.0, until `reset()` (the provider's hour over)."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.taken: list[bytes] = []
        self.refused = 0
        self.this_hour = 0
        self.lock = threading.Lock()

    def reset(self) -> None:
        with self.lock:
            self.this_hour = 0

    async def handle_MAIL(self, server: Any, session: Any, envelope: Any, address: str, options: list[str]) -> str:
        with self.lock:
            if self.this_hour >= self.cap and self.refused % 2:
                self.refused += 1
                return "421 4.7.0 Too many messages, try again later: closing"
        envelope.mail_from = address
        return "250 OK"

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: list[str]) -> str:
        with self.lock:
            if self.this_hour >= self.cap:
                self.refused += 1
                return "452 4.7.0 Daily user sending limit exceeded"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.lock:
            self.taken.append(envelope.content)
            self.this_hour += 1
        return "250 Accepted"

    def ids(self) -> list[str]:
        return [str(email.message_from_bytes(raw)["Message-ID"]) for raw in self.taken]


@pytest.fixture
def capped() -> Any:
    def start(cap: int) -> tuple[Capped, int]:
        handler = Capped(cap)
        port = free_port()
        controller = Controller(handler, hostname="127.0.0.1", port=port)
        controller.start()
        started.append(controller)
        return handler, port

    started: list[Controller] = []
    yield start
    for controller in started:
        controller.stop()


def _queue(sessions: sessionmaker[Session]) -> None:
    """Three of each kind of mail, notices first and acknowledgements last; game g1 has a GM."""
    at = datetime.now(UTC)
    with transaction(sessions) as session:
        game = create_game(session, "g1", "standard")
        add_master(session, game, MASTER, None)
        for n, kind in enumerate(["notice", "press", "results", "ack"] * 3):
            session.add(OutboundMail(to_addr=f"p{n}@example.org", subject=f"{kind}: {n}", body_text="text\n",
                                     kind=kind, game_id=game.id, created_at=at, next_attempt_at=at))


@contextlib.asynccontextmanager
async def running(sender: OutboxSender) -> AsyncIterator[asyncio.Task[None]]:
    """The sender running (one run for the whole test, as in gm serve), cancelled after."""
    task = asyncio.create_task(sender.run())
    try:
        yield task
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def until(task: asyncio.Task[None], done: Any, state: Any = None, timeout: float = 20) -> None:
    end = time.monotonic() + timeout
    while not await asyncio.to_thread(done):
        assert not task.done(), task
        assert time.monotonic() < end, f"the outbox did not get there in time: {state() if state else ''}"
        await asyncio.sleep(0.05)


def _unsent(sessions: sessionmaker[Session]) -> int:
    with transaction(sessions) as session:
        return session.scalar(select(func.count()).select_from(OutboundMail).where(OutboundMail.sent_at.is_(None))) or 0


def _an_hour_passes(sessions: sessionmaker[Session]) -> None:
    with transaction(sessions) as session:
        for row in session.scalars(select(OutboundMail).where(OutboundMail.claimed_at.is_not(None))):
            assert row.claimed_at is not None
            row.claimed_at -= timedelta(hours=1, seconds=1)


async def test_the_outbox_keeps_to_the_limit_in_priority_order_and_tells_the_gm_once(
        session_factory: sessionmaker[Session], capped: Any) -> None:
    server, port = capped(5)
    _queue(session_factory)
    # One connection, so that the order the server sees is the order the mail was taken in.
    sender = OutboxSender(MailServer("127.0.0.1", port), session_factory, gm_address=GM, poll_seconds=0.1,
                          limits=Limits(per_hour=5), connections=1)
    async with running(sender) as task:
        await _keeps_to_the_limit(session_factory, server, task)


async def _keeps_to_the_limit(session_factory: sessionmaker[Session], server: Capped, task: asyncio.Task[None]) -> None:
    # The first hour: five, and the server never had to refuse one.
    await until(task, lambda: len(server.taken) == 5 and _unsent(session_factory) == 8)
    await asyncio.sleep(0.5)
    assert len(server.taken) == 5 and server.refused == 0
    # After the acknowledgements, the GM heard that g1's results go out late, and when (12 mails at 5 an hour).
    subjects = [str(email.message_from_bytes(raw)["Subject"]) for raw in server.taken]
    assert subjects[:3] == ["ack: 3", "ack: 7", "ack: 11"]
    assert subjects[3].startswith("[g1] The results will reach the last players around ")
    assert subjects[4] == "results: 2"
    for _ in range(2):  # the next hours: the rest, in order, never past the limit
        server.reset()
        await asyncio.to_thread(_an_hour_passes, session_factory)
        sent = len(server.taken)
        await until(task, lambda: len(server.taken) == min(sent + 5, 13))  # at the sender's next look
        assert server.refused == 0
    # The server has the mail before the sender records it sent: wait for the record.
    await until(task, lambda: _unsent(session_factory) == 0)
    assert [s.split(":")[0] for s in (str(email.message_from_bytes(r)["Subject"]) for r in server.taken)][4:] == \
        ["results"] * 3 + ["press"] * 3 + ["notice"] * 3
    assert len(set(server.ids())) == 13  # each once
    with transaction(session_factory) as session:  # told once, to the GM
        late = session.scalars(select(OutboundMail).where(OutboundMail.kind == LATE_KIND)).all()
        assert [m.to_addr for m in late] == [MASTER]
        assert "may send only 5 an hour" in late[0].body_text


async def test_a_server_that_says_slow_down_pauses_the_judge_and_loses_nothing(
        session_factory: sessionmaker[Session], capped: Any, caplog: pytest.LogCaptureFixture) -> None:
    server, port = capped(4)
    _queue(session_factory)
    sender = OutboxSender(MailServer("127.0.0.1", port), session_factory, gm_address=GM, poll_seconds=0.1,
                          backoff=Backoff(0.1, 0.2), slow_backoff=Backoff(0.3, 0.6), connections=2)
    state = lambda: (len(server.taken), server.refused, _unsent(session_factory))  # noqa: E731
    with caplog.at_level(logging.WARNING, logger="gm.mail.outgoing.outbox"):
        async with running(sender) as task:
            await until(task, lambda: len(server.taken) >= 4 and server.refused >= 2, state)
            # The provider's hour ends: everything else goes, once each.
            server.reset()
            server.cap = 100
            await until(task, lambda: _unsent(session_factory) == 0, state)
    assert len(server.taken) == 12 and len(set(server.ids())) == 12
    assert "asks the judge to slow down (SMTP" in caplog.text and "4.7.0" in caplog.text
    # It paused rather than trying every mail against a closed door.
    assert server.refused < 12


def test_what_asks_to_slow_down() -> None:
    import aiosmtplib

    assert slow_down(aiosmtplib.SMTPResponseException(421, "4.7.0 Try again later"))
    assert slow_down(aiosmtplib.SMTPRecipientsRefused([aiosmtplib.SMTPRecipientRefused(452, "4.5.3 Too many", "a@b")]))
    assert slow_down(aiosmtplib.SMTPResponseException(450, "4.7.1 Rate limited"))
    assert not slow_down(aiosmtplib.SMTPResponseException(450, "4.2.0 Mailbox busy"))
    assert not slow_down(aiosmtplib.SMTPRecipientsRefused([aiosmtplib.SMTPRecipientRefused(550, "5.1.1 No", "a@b")]))
    assert not slow_down(OSError("connection refused"))


async def test_two_senders_sharing_the_database_keep_under_the_limit_together(
        session_factory: sessionmaker[Session], capped: Any) -> None:
    server, port = capped(100)  # the server would take more: the limit is the judge's own
    _queue(session_factory)
    senders = [OutboxSender(MailServer("127.0.0.1", port), session_factory, gm_address=GM, poll_seconds=0.05,
                            limits=Limits(per_hour=5)) for _ in range(2)]
    async with running(senders[0]) as first, running(senders[1]):
        await until(first, lambda: len(server.taken) >= 5)
        await asyncio.sleep(1.0)  # both keep looking, often
    assert len(server.taken) == 5 and len(set(server.ids())) == 5
    with transaction(session_factory) as session:  # and the GM was told once, not once a sender
        assert session.scalar(select(func.count()).select_from(OutboundMail)
                              .where(OutboundMail.kind == LATE_KIND)) == 1


def test_mail_to_unproven_addresses_may_use_only_its_share_of_the_limits(session_factory: sessionmaker[Session]) -> None:
    """Notices that mail in strangers' names caused (a forger's, within gm.mail.budget) take at most
    a quarter of each window: the players' acknowledgements after them still go at once."""
    sender = OutboxSender(MailServer("127.0.0.1", 1), session_factory, gm_address=GM, limits=Limits(per_hour=8))
    with transaction(session_factory) as s:
        for i in range(10):
            s.add(OutboundMail(to_addr=f"stranger{i}@example.net", subject="gm: how to send orders", body_text=".",
                               kind="notice", unproven=True))
    taken, _ = sender._claim(100, {})
    assert len(taken) == 2 and all(m.kind == "notice" for m in taken)  # 8 // 4
    assert sender._claim(100, {m.id: m.attempts for m in taken})[0] == []  # their share is used up
    with transaction(session_factory) as s:
        for i in range(6):
            s.add(OutboundMail(to_addr=f"player{i}@example.org", subject="Re: orders", body_text=".", kind="ack"))
    acks, _ = sender._claim(100, {m.id: m.attempts for m in taken})
    assert sorted(m.to_addr for m in acks) == [f"player{i}@example.org" for i in range(6)]
