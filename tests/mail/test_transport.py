"""The inbox watcher and the outbox sender against a real Dovecot, with a fake ingest function:
each mail ingested once, \\Seen only after ingest returns, IDLE and polling, reconnecting, and
outbox rows delivered with their own Message-ID, retried while SMTP is down, sent once."""
from __future__ import annotations

import asyncio
import base64
import email
import email.policy
import logging
import os
import signal
import smtplib
import subprocess
import sys
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from typing import TYPE_CHECKING, Any

import aioimaplib
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import create_game
from gm.mail.inbox import Backoff, InboxWatcher
from gm.mail.ingest import Fetched, IngestOutcome
from gm.mail.outgoing.outbox import OutboxSender, Outgoing, build_message
from gm.mail.outgoing.outbox_process import OutboxProcess
from gm.settings import MailServer, TlsMode
from gm.store.db import transaction
from gm.store.models import Master, OutboundMail, Player

if TYPE_CHECKING:  # fixtures' types only: see conftest.py on why nothing is imported from it
    from conftest import Dovecot, PlayerMail, ReadMailbox, SmtpFront, Stored, TlsFiles, WaitUntil

# The SMTP front over TLS from the first byte requires AUTH, which aiosmtpd takes for "no TLS".
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS:UserWarning")

GM = "gm@example.org"  # the Dovecot mailboxes: gm, alice, bob, carol, all @example.org
ALICE = "alice@example.org"


class FakeIngest:
    """Stands in for gm.mail.ingest.ingest_batch: records every mail it is given, processes each
    Message-ID once (later calls return 'duplicate', as the real one does), and can fail a mail or
    block on request."""

    def __init__(self, replies: int = 0, on_processed: Callable[[EmailMessage], None] | None = None) -> None:
        self.replies = replies
        self.on_processed = on_processed
        self.calls: list[tuple[str, int, int, float]] = []  # Message-ID, UIDVALIDITY, UID, when
        self.processed: list[str] = []
        self.fail: dict[str, int] = {}  # Message-ID -> how many more calls raise
        self.block: dict[str, tuple[threading.Event, threading.Event]] = {}  # Message-ID -> (entered, release)
        self.lock = threading.Lock()
        self.batches: list[int] = []  # how many mails each call had
        self.sizes: dict[bytes, int] = {}  # the bytes fetched of a mail -> its size, as the server gave it

    def __call__(self, mails: list[Fetched], *, uidvalidity: int) -> list[IngestOutcome]:
        self.batches.append(len(mails))
        for mail in mails:
            self.sizes[mail.raw] = mail.full_size
        return [self.one(mail.raw, uidvalidity=uidvalidity, uid=mail.uid) for mail in mails]

    def one(self, raw: bytes, *, uidvalidity: int, uid: int | None) -> IngestOutcome:
        assert uid is not None
        msg = email.message_from_bytes(raw, policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        message_id = str(msg["Message-ID"])
        with self.lock:
            self.calls.append((message_id, uidvalidity, uid, time.monotonic()))
            if self.fail.get(message_id, 0) > 0:
                self.fail[message_id] -= 1
                return IngestOutcome(None, "failed: RuntimeError", 0, RuntimeError("the database is away"))
            if message_id in self.processed:
                return IngestOutcome(None, "duplicate", 0)
        if message_id in self.block:
            entered, release = self.block.pop(message_id)
            entered.set()
            assert release.wait(10)
        with self.lock:
            self.processed.append(message_id)
        if self.on_processed is not None:
            self.on_processed(msg)
        return IngestOutcome(len(self.processed), "processed", self.replies)

    def calls_for(self, message_id: str) -> list[tuple[str, int, int, float]]:
        with self.lock:
            return [call for call in self.calls if call[0] == message_id]


def watcher(dovecot: Dovecot, ingest: FakeIngest, **kwargs: Any) -> InboxWatcher:
    kwargs.setdefault("reconnect", Backoff(0.05, 0.5))
    kwargs.setdefault("timeout", 5.0)
    return InboxWatcher(dovecot.account(), ingest, **kwargs)


@asynccontextmanager
async def running(*services: InboxWatcher | OutboxSender) -> AsyncIterator[list[asyncio.Task[None]]]:
    tasks = [asyncio.create_task(service.run()) for service in services]
    try:
        yield tasks
    finally:
        for task in tasks:
            task.cancel()
        # A service must stop when cancelled (gm serve on SIGTERM): one that does not fails the test.
        async with asyncio.timeout(10):
            await asyncio.gather(*tasks, return_exceptions=True)


async def send(front: SmtpFront, msg: EmailMessage) -> None:
    await asyncio.to_thread(front.send, msg)


def seen(read_mailbox: ReadMailbox, dovecot: Dovecot, message_id: str, user: str = "gm") -> Callable[[], Any]:
    """A predicate for wait_until: is the mail \\Seen in the mailbox?"""

    async def check() -> bool:
        for stored in await read_mailbox(dovecot.account(user)):
            if message_id.encode() in stored.raw:
                return "\\Seen" in stored.flags
        raise AssertionError(f"{message_id} not in the mailbox of {user}")

    return check


# --- the inbox -----------------------------------------------------------------------------------


async def test_each_mail_is_ingested_once_then_flagged_seen(
    dovecot: Dovecot, smtp_front: SmtpFront, player_mail: PlayerMail, read_mailbox: ReadMailbox, wait_until: WaitUntil
) -> None:
    ingest = FakeIngest()
    mails = [player_mail(f"A Par-Bur {i}\n") for i in range(3)]
    ids = [str(m["Message-ID"]) for m in mails]
    w = watcher(dovecot, ingest)
    async with running(w):
        for msg in mails:
            await send(smtp_front, msg)
        await wait_until(lambda: len(ingest.processed) == 3)
        for message_id in ids:
            await wait_until(seen(read_mailbox, dovecot, message_id))
        await wait_until(lambda: w.state == "idle")
    assert sorted(ingest.processed) == sorted(ids)
    assert len(ingest.calls) == 3  # nothing offered twice
    assert len({(validity, uid) for _, validity, uid, _ in ingest.calls}) == 3


def _deliver_many(dovecot: Dovecot, raws: list[bytes], connections: int = 4) -> None:
    """Straight into the GM's mailbox over LMTP, several connections at once."""

    def share(part: list[bytes]) -> None:
        with smtplib.LMTP("127.0.0.1", dovecot.lmtp_port) as lmtp:
            for raw in part:
                lmtp.sendmail(ALICE, [GM], raw)

    threads = [threading.Thread(target=share, args=(raws[i::connections],)) for i in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


async def test_a_backlog_of_over_a_thousand_mails_is_taken_in_batches(
    dovecot: Dovecot, player_mail: PlayerMail, read_mailbox: ReadMailbox, wait_until: WaitUntil
) -> None:
    """Mail that piled up while the judge was away: more than fits in one IMAP response as
    aioimaplib reads it (one recursion level per line), and more than one ingest batch."""
    mails = [player_mail(f"A Par-Bur {i}\n") for i in range(1100)]
    await asyncio.to_thread(_deliver_many, dovecot, [m.as_bytes() for m in mails])
    ingest = FakeIngest()
    async with running(watcher(dovecot, ingest)):
        await wait_until(lambda: len(ingest.processed) == 1100, timeout=60, state=lambda: len(ingest.processed))
        await wait_until(lambda: unseen(dovecot), timeout=10)
    assert sorted(ingest.processed) == sorted(str(m["Message-ID"]) for m in mails)
    assert len(ingest.calls) == 1100  # each offered once
    assert max(ingest.batches) <= 100 and len(ingest.batches) >= 11


async def test_a_backlog_is_read_players_first_and_each_sender_in_turn(
    dovecot: Dovecot, player_mail: PlayerMail, read_mailbox: ReadMailbox, wait_until: WaitUntil
) -> None:
    """Strangers' mail that piled up (a flood) does not hold up a player's: with `registered`, the
    players' mail of the backlog is read first, each sender's in turn; every mail is read once."""
    flood = [player_mail(f"junk {i}\n", sender=f"bot{i % 7}@evil.example") for i in range(450)]
    players = [player_mail(f"A Par-Bur {i}\n", sender=f"p{i % 3}@example.org") for i in range(6)]
    loud = [player_mail(f"MAP {i}\n", sender="p9@example.org") for i in range(30)]  # a player who sends much
    await asyncio.to_thread(_deliver_many, dovecot, [m.as_bytes() for m in [*flood, *loud, *players]], 1)
    ingest = FakeIngest()
    registered = {"p0@example.org", "p1@example.org", "p2@example.org", "p9@example.org"}
    async with running(watcher(dovecot, ingest, registered=lambda: registered)):
        await wait_until(lambda: len(ingest.processed) == 486, timeout=60, state=lambda: len(ingest.processed))
    first = ingest.processed[:len(players) + len(loud)]
    assert all(str(m["Message-ID"]) in first[:4] for m in players[:3])  # each player's first mail first of all
    assert all(str(m["Message-ID"]) in first[:12] for m in players)  # before most of the loud player's
    assert not any(str(m["Message-ID"]) in first for m in flood)
    assert sorted(ingest.processed) == sorted(str(m["Message-ID"]) for m in [*flood, *loud, *players])
    assert len(ingest.calls) == 486  # each offered once


async def test_a_newcomers_confirm_is_read_before_the_strangers_flood(
    dovecot: Dovecot, player_mail: PlayerMail, read_mailbox: ReadMailbox, wait_until: WaitUntil
) -> None:
    """An address the judge mailed a code to (`awaiting`) is read after the players, before the
    other strangers: a newcomer's CONFIRM does not wait for the end of a flood."""
    flood = [player_mail(f"JOIN g2 France x{i}\n", sender=f"bot{i}@evil.example") for i in range(200)]
    confirm = player_mail("CONFIRM ABCDE-FGHJK\n", sender="newcomer@example.org")
    player = player_mail("A Par-Bur\n", sender="p0@example.org")
    await asyncio.to_thread(_deliver_many, dovecot, [m.as_bytes() for m in [*flood, confirm, player]], 1)
    ingest = FakeIngest()
    async with running(watcher(dovecot, ingest, registered=lambda: {"p0@example.org"},
                               awaiting=lambda: {"newcomer@example.org"})):
        await wait_until(lambda: len(ingest.processed) == 202, timeout=60, state=lambda: len(ingest.processed))
    assert ingest.processed[:2] == [str(player["Message-ID"]), str(confirm["Message-ID"])]


async def unseen(dovecot: Dovecot) -> bool:
    """True when no mail in the GM's mailbox is unseen (one SEARCH: the mailbox may be large)."""
    account = dovecot.account()
    client = aioimaplib.IMAP4(host=account.host, port=account.port, timeout=5)
    await client.wait_hello_from_server()
    try:
        await client.login(account.user, account.password)
        await client.select("INBOX")
        response = await client.uid_search("UNSEEN", charset=None)
        return not bytes(response.lines[0]).split()
    finally:
        await client.logout()


async def test_a_mail_over_the_size_limit_is_fetched_as_its_header_only(
    dovecot: Dovecot, player_mail: PlayerMail, read_mailbox: ReadMailbox, wait_until: WaitUntil
) -> None:
    big = player_mail("A Par-Bur\n" + "x" * 300_000 + "\n")
    small = player_mail("A Mar-Bur\n")
    await asyncio.to_thread(_deliver_many, dovecot, [big.as_bytes(), small.as_bytes()], 1)
    ingest = FakeIngest()
    async with running(watcher(dovecot, ingest, max_size=100_000)):
        await wait_until(lambda: len(ingest.processed) == 2)
        await wait_until(lambda: unseen(dovecot))
    (big_raw, big_size), (small_raw, small_size) = ingest.sizes.items()
    assert big_size > 300_000 and len(big_raw) < 2_000  # the header, and the size the server gave
    assert str(big["Message-ID"]).encode() in big_raw and b"x" * 100 not in big_raw
    assert len(small_raw) == small_size and b"A Mar-Bur" in small_raw


async def test_seen_is_set_only_after_ingest_returns(
    dovecot: Dovecot, smtp_front: SmtpFront, player_mail: PlayerMail, read_mailbox: ReadMailbox, wait_until: WaitUntil
) -> None:
    """The watcher dies after ingest committed but before \\Seen: the mail is offered again on
    restart, and (ingest recognising it) processed once."""
    ingest = FakeIngest()
    msg = player_mail()
    message_id = str(msg["Message-ID"])
    entered, release = threading.Event(), threading.Event()
    ingest.block[message_id] = (entered, release)
    is_seen = seen(read_mailbox, dovecot, message_id)

    first = asyncio.create_task(watcher(dovecot, ingest).run())
    await send(smtp_front, msg)
    assert await asyncio.to_thread(entered.wait, 5)
    assert not await is_seen()
    first.cancel()  # the crash: ingest is still busy in its thread
    try:
        await first
    except asyncio.CancelledError:
        pass
    release.set()  # ingest now commits, with nobody left to set \Seen
    await wait_until(lambda: message_id in ingest.processed)
    assert not await is_seen()

    async with running(watcher(dovecot, ingest)):
        await wait_until(is_seen)
    assert ingest.processed == [message_id]
    assert len(ingest.calls_for(message_id)) == 2  # once processed, once a duplicate


async def test_mail_announced_between_two_commands_is_not_missed(
    dovecot: Dovecot, player_mail: PlayerMail, wait_until: WaitUntil
) -> None:
    """A mail that arrives while the watcher is busy is announced (EXISTS) in the response to the
    watcher's next command, not in the IDLE after it: it must still be taken without waiting
    for the next poll."""
    first, second = player_mail("first\n"), player_mail("second\n")

    def deliver_second(msg: EmailMessage) -> None:  # while the watcher is busy with the first
        if msg["Message-ID"] == first["Message-ID"]:
            dovecot.deliver(second.as_bytes(), [GM])

    ingest = FakeIngest(on_processed=deliver_second)
    async with running(watcher(dovecot, ingest, poll_seconds=60)):
        await asyncio.to_thread(dovecot.deliver, first.as_bytes(), [GM])
        # Well before the 60 s poll: 3 s proved too short on a loaded 2-core CI machine.
        await wait_until(lambda: len(ingest.processed) == 2, timeout=10)


async def test_idle_wakes_the_watcher_at_once(
    dovecot: Dovecot, smtp_front: SmtpFront, player_mail: PlayerMail, wait_until: WaitUntil
) -> None:
    ingest = FakeIngest()
    w = watcher(dovecot, ingest, poll_seconds=60)  # only IDLE can wake it within the test
    async with running(w):
        await wait_until(lambda: w.state == "idle")
        sent = time.monotonic()
        await send(smtp_front, player_mail())
        await wait_until(lambda: len(ingest.calls) == 1)
        assert ingest.calls[0][3] - sent < 2.0


async def test_polling_when_idle_is_off(
    dovecot: Dovecot, smtp_front: SmtpFront, player_mail: PlayerMail, read_mailbox: ReadMailbox, wait_until: WaitUntil
) -> None:
    ingest = FakeIngest()
    msg = player_mail()
    w = watcher(dovecot, ingest, use_idle=False, poll_seconds=0.2)
    async with running(w):
        await wait_until(lambda: w.state == "polling")
        await send(smtp_front, msg)
        await wait_until(seen(read_mailbox, dovecot, str(msg["Message-ID"])))
        assert w.state in ("polling", "working")
    assert len(ingest.calls) == 1


async def test_reconnects_after_the_imap_server_restarts(
    dovecot: Dovecot, smtp_front: SmtpFront, player_mail: PlayerMail, read_mailbox: ReadMailbox, wait_until: WaitUntil
) -> None:
    ingest = FakeIngest()
    before, after = player_mail("before\n"), player_mail("after\n")
    w = watcher(dovecot, ingest)
    async with running(w):
        await send(smtp_front, before)
        await wait_until(lambda: len(ingest.processed) == 1)
        await wait_until(lambda: w.state == "idle")
        await asyncio.to_thread(dovecot.stop)
        await wait_until(lambda: w.state in ("reconnecting", "connecting"))
        await asyncio.to_thread(dovecot.start)
        await send(smtp_front, after)
        await wait_until(lambda: len(ingest.processed) == 2)
        await wait_until(seen(read_mailbox, dovecot, str(after["Message-ID"])))
    assert ingest.processed == [str(before["Message-ID"]), str(after["Message-ID"])]


async def test_a_mail_whose_ingest_fails_stays_unseen_and_is_retried_later(
    dovecot: Dovecot, smtp_front: SmtpFront, player_mail: PlayerMail, read_mailbox: ReadMailbox, wait_until: WaitUntil
) -> None:
    ingest = FakeIngest()
    bad, good = player_mail("bad\n"), player_mail("good\n")
    bad_id, good_id = str(bad["Message-ID"]), str(good["Message-ID"])
    ingest.fail[bad_id] = 2
    async with running(watcher(dovecot, ingest, retry=Backoff(0.3, 10))):
        await send(smtp_front, bad)
        await wait_until(lambda: len(ingest.calls_for(bad_id)) == 1)
        assert not await seen(read_mailbox, dovecot, bad_id)()
        await send(smtp_front, good)  # the other mail goes on meanwhile
        await wait_until(lambda: good_id in ingest.processed)
        await wait_until(lambda: bad_id in ingest.processed)
        await wait_until(seen(read_mailbox, dovecot, bad_id))
    times = [when for *_, when in ingest.calls_for(bad_id)]
    assert len(times) == 3
    assert times[1] - times[0] >= 0.3 and times[2] - times[1] >= 0.6  # 0.3 s, then twice that


async def test_replies_queued_by_ingest_wake_the_outbox(
    dovecot: Dovecot, smtp_front: SmtpFront, player_mail: PlayerMail
) -> None:
    wakeup = asyncio.Event()
    async with running(watcher(dovecot, FakeIngest(replies=1), on_replies=wakeup.set)):
        await send(smtp_front, player_mail())
        await asyncio.wait_for(wakeup.wait(), 5)


@pytest.mark.parametrize("tls", ["starttls", "ssl"])
async def test_the_watcher_speaks_tls(
    tls: TlsMode, tls_dovecot: Dovecot, tls_files: TlsFiles, player_mail: PlayerMail, wait_until: WaitUntil
) -> None:
    port = tls_dovecot.imaps_port if tls == "ssl" else tls_dovecot.imap_port
    account = replace(tls_dovecot.account(), port=port, tls=tls)
    ingest = FakeIngest()
    w = InboxWatcher(account, ingest, ssl_context=tls_files.client_context(), timeout=5.0)
    async with running(w):
        await wait_until(lambda: w.state == "idle")
        await asyncio.to_thread(tls_dovecot.deliver, player_mail().as_bytes(), [GM])
        await wait_until(lambda: len(ingest.processed) == 1)


async def test_the_watcher_refuses_a_certificate_it_cannot_verify(
    tls_dovecot: Dovecot, player_mail: PlayerMail, wait_until: WaitUntil
) -> None:
    account = replace(tls_dovecot.account(), port=tls_dovecot.imaps_port, tls="ssl")
    ingest = FakeIngest()
    w = InboxWatcher(account, ingest, timeout=5.0, reconnect=Backoff(0.05, 0.5))  # the system's CAs
    await asyncio.to_thread(tls_dovecot.deliver, player_mail().as_bytes(), [GM])
    async with running(w):
        await wait_until(lambda: w.state == "reconnecting")
    assert ingest.calls == []


# --- the outbox ----------------------------------------------------------------------------------

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(256))).decode()


def queue(sessions: sessionmaker[Session], **fields: Any) -> str:
    """Write an outbox row as the judge would; returns its Message-ID."""
    values: dict[str, Any] = {"to_addr": ALICE, "subject": "Acknowledgement", "body_text": "Orders received.\n"}
    values.update({"kind": "ack", **fields})
    with transaction(sessions) as session:
        row = OutboundMail(**values)
        session.add(row)
        session.flush()
        return str(row.message_id)


def outbox_rows(sessions: sessionmaker[Session]) -> list[OutboundMail]:
    with transaction(sessions) as session:
        return list(session.scalars(select(OutboundMail).order_by(OutboundMail.id)))


def outbox_state(sessions: sessionmaker[Session]) -> Callable[[], object]:
    """For wait_until's failure message: what became of each row."""
    return lambda: [(r.id, r.attempts, r.sent_at, r.next_attempt_at, r.last_error) for r in outbox_rows(sessions)]


def sender(front: SmtpFront, sessions: sessionmaker[Session], **kwargs: Any) -> OutboxSender:
    kwargs.setdefault("timeout", 5.0)
    return OutboxSender(front.server, sessions, gm_address=GM, **kwargs)


def by_message_id(stored: list[Stored]) -> dict[str, EmailMessage]:
    found = {}
    for s in stored:
        msg = email.message_from_bytes(s.raw, policy=email.policy.default)
        assert isinstance(msg, EmailMessage)
        found[str(msg["Message-ID"])] = msg
    return found


async def test_the_outbox_sends_each_row_as_it_was_written(
    dovecot: Dovecot,
    smtp_front: SmtpFront,
    session_factory: sessionmaker[Session],
    read_mailbox: ReadMailbox,
    wait_until: WaitUntil,
) -> None:
    reply_id = queue(
        session_factory,
        in_reply_to="<orders-1@example.org>",
        body_text="Orders received: A Par-Bur. Ça va.\n",
        attachments=[{"filename": "map.png", "content_type": "image/png", "data": PNG}],
    )
    notice_id = queue(session_factory, to_addr="bob@example.org", subject="Spring 1901 results", kind="results")

    async with running(sender(smtp_front, session_factory)):
        await wait_until(
            lambda: all(row.sent_at is not None for row in outbox_rows(session_factory)),
            state=outbox_state(session_factory),
        )
    alice = by_message_id(await read_mailbox(dovecot.account("alice")))
    bob = by_message_id(await read_mailbox(dovecot.account("bob")))
    assert list(alice) == [reply_id] and list(bob) == [notice_id]

    reply = alice[reply_id]
    assert reply["From"] == GM and reply["To"] == ALICE
    assert reply["Subject"] == "Acknowledgement"
    assert reply["In-Reply-To"] == "<orders-1@example.org>"
    assert reply["References"] == "<orders-1@example.org>"
    assert reply["Auto-Submitted"] == "auto-replied"
    body = reply.get_body(("plain",))
    assert body is not None and body.get_content().replace("\r\n", "\n") == "Orders received: A Par-Bur. Ça va.\n"
    (attachment,) = reply.iter_attachments()
    assert isinstance(attachment, EmailMessage)
    assert attachment.get_filename() == "map.png"
    assert attachment.get_content_type() == "image/png"
    assert attachment.get_content() == base64.b64decode(PNG)

    notice = bob[notice_id]
    assert notice["Auto-Submitted"] == "auto-generated"
    assert notice["In-Reply-To"] is None
    rows = outbox_rows(session_factory)
    assert [row.attempts for row in rows] == [1, 1]
    assert all(row.last_error is None for row in rows)


async def test_the_outbox_retries_while_smtp_is_down_and_sends_once_it_is_back(
    dovecot: Dovecot,
    smtp_front: SmtpFront,
    session_factory: sessionmaker[Session],
    read_mailbox: ReadMailbox,
    wait_until: WaitUntil,
) -> None:
    smtp_front.stop()
    message_id = queue(session_factory)
    async with running(sender(smtp_front, session_factory, backoff=Backoff(0.1, 0.4), poll_seconds=60)):
        await wait_until(
            lambda: outbox_rows(session_factory)[0].attempts >= 3, state=outbox_state(session_factory)
        )
        (row,) = outbox_rows(session_factory)
        assert row.sent_at is None
        assert row.last_error is not None and "connect" in row.last_error.lower()
        assert row.next_attempt_at > row.created_at
        failures = row.attempts
        await asyncio.to_thread(smtp_front.start)
        await wait_until(
            lambda: outbox_rows(session_factory)[0].sent_at is not None, state=outbox_state(session_factory)
        )
    (row,) = outbox_rows(session_factory)
    assert failures <= row.attempts - 1 <= failures + 1  # perhaps one more failure before the start
    stored = await read_mailbox(dovecot.account("alice"))
    assert list(by_message_id(stored)) == [message_id]  # once, with the row's Message-ID


async def test_the_outbox_speaks_tls_and_logs_in(
    dovecot: Dovecot,
    tls_smtp_front: SmtpFront,
    tls_files: TlsFiles,
    session_factory: sessionmaker[Session],
    read_mailbox: ReadMailbox,
    wait_until: WaitUntil,
) -> None:
    message_id = queue(session_factory)
    s = OutboxSender(
        tls_smtp_front.server, session_factory, gm_address=GM, ssl_context=tls_files.client_context(), timeout=5.0
    )
    async with running(s):
        await wait_until(
            lambda: outbox_rows(session_factory)[0].sent_at is not None, state=outbox_state(session_factory)
        )
    assert list(by_message_id(await read_mailbox(dovecot.account("alice")))) == [message_id]


async def test_the_outbox_sends_without_login_where_the_server_offers_no_auth(
    dovecot: Dovecot,
    smtp_front: SmtpFront,
    session_factory: sessionmaker[Session],
    read_mailbox: ReadMailbox,
    wait_until: WaitUntil,
) -> None:
    """A login configured (by default the IMAP one) does not stop mail to a local relay."""
    message_id = queue(session_factory)
    server = replace(smtp_front.server, user="gm", password="secret")
    async with running(OutboxSender(server, session_factory, gm_address=GM, timeout=5.0)):
        await wait_until(
            lambda: outbox_rows(session_factory)[0].sent_at is not None, state=outbox_state(session_factory)
        )
    assert list(by_message_id(await read_mailbox(dovecot.account("alice")))) == [message_id]


async def test_a_row_that_cannot_be_sent_does_not_hold_up_the_others(
    dovecot: Dovecot,
    smtp_front: SmtpFront,
    session_factory: sessionmaker[Session],
    read_mailbox: ReadMailbox,
    wait_until: WaitUntil,
) -> None:
    broken = queue(session_factory, attachments=[{"filename": "x", "content_type": "text/plain", "data": "%%%"}])
    fine = queue(session_factory)
    async with running(sender(smtp_front, session_factory)):
        await wait_until(
            lambda: outbox_rows(session_factory)[1].sent_at is not None, state=outbox_state(session_factory)
        )
    bad, _ = outbox_rows(session_factory)
    assert bad.message_id == broken and bad.sent_at is None and bad.attempts == 1
    assert bad.last_error is not None and "attachment 0" in bad.last_error
    assert bad.gave_up_at is not None  # it would never be sent: not tried again
    assert list(by_message_id(await read_mailbox(dovecot.account("alice")))) == [fine]


async def test_a_mail_refused_for_good_is_given_up_and_one_refused_for_now_is_retried(
    dovecot: Dovecot,
    smtp_front: SmtpFront,
    session_factory: sessionmaker[Session],
    read_mailbox: ReadMailbox,
    wait_until: WaitUntil,
) -> None:
    smtp_front.relay.refused["nobody@example.org"] = "550 5.1.1 no such mailbox"
    smtp_front.relay.refused["bob@example.org"] = "450 4.2.1 mailbox busy, try later"
    queue(session_factory, to_addr="nobody@example.org")
    queue(session_factory, to_addr="bob@example.org")
    fine = queue(session_factory)
    async with running(sender(smtp_front, session_factory, backoff=Backoff(0.1, 0.2))):
        await wait_until(
            lambda: outbox_rows(session_factory)[1].attempts >= 3 and outbox_rows(session_factory)[2].sent_at is not None,
            state=outbox_state(session_factory),
        )
    nobody, bob, alice = outbox_rows(session_factory)
    assert nobody.gave_up_at is not None and nobody.sent_at is None
    assert nobody.attempts == 1  # not tried again, though the back-off was long over
    assert nobody.last_error is not None and "550" in nobody.last_error
    assert bob.gave_up_at is None and bob.sent_at is None and bob.last_error is not None and "450" in bob.last_error
    assert alice.sent_at is not None and alice.attempts == 1
    assert list(by_message_id(await read_mailbox(dovecot.account("alice")))) == [fine]


async def test_one_log_line_a_mail_out_saying_kind_game_role_and_outcome(
    dovecot: Dovecot,
    smtp_front: SmtpFront,
    session_factory: sessionmaker[Session],
    wait_until: WaitUntil,
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="gm.mail.outgoing.outbox")
    smtp_front.relay.refused["master@example.org"] = "550 5.1.1 no such mailbox"
    with transaction(session_factory) as session:
        game = create_game(session, "g1", "standard")
        session.add(Player(game_id=game.id, power="France", email="bob@example.org", password_hash="-"))
        session.add(Master(game_id=game.id, email="master@example.org", password_hash="-"))
        game_id = game.id
    queue(session_factory)  # an acknowledgement: its mail in's line says whose
    queue(session_factory, to_addr="bob@example.org", kind="results", game_id=game_id)
    queue(session_factory, to_addr="master@example.org", kind="results", game_id=game_id)
    async with running(sender(smtp_front, session_factory)):
        await wait_until(lambda: all(r.sent_at or r.gave_up_at for r in outbox_rows(session_factory)),
                         state=outbox_state(session_factory))
    said = sorted(r.getMessage() for r in caplog.records if r.name == "gm.mail.outgoing.outbox")
    assert said[:2] == ["mail out #1: ack: sent", "mail out #2: results, game g1, to France: sent"]
    assert said[2].startswith("mail out #3: results, game g1, to the GM: refused for good, not tried again: ")
    assert len(said) == 3


async def test_the_outbox_keeps_up_with_a_burst_over_parallel_connections(
    smtp_front: SmtpFront, session_factory: sessionmaker[Session], wait_until: WaitUntil
) -> None:
    """200 rows, more than one claim takes: all go, each once, over at most `connections` SMTP
    connections kept open between mails."""
    ids = [queue(session_factory, to_addr="nowhere@example.net") for _ in range(200)]
    smtp_front.relay.relay_only = True  # accept and count, do not deliver (no such mailbox here)
    async with running(sender(smtp_front, session_factory, batch=50, connections=3)):
        await wait_until(
            lambda: all(row.sent_at is not None for row in outbox_rows(session_factory)),
            timeout=30,
            state=lambda: sum(row.sent_at is not None for row in outbox_rows(session_factory)),
        )
    rows = outbox_rows(session_factory)
    assert sorted(r.message_id for r in rows) == sorted(ids)
    assert all(r.attempts == 1 and r.last_error is None for r in rows)
    assert smtp_front.relay.received == 200
    assert 1 <= smtp_front.relay.connections <= 3


async def test_the_outbox_process_sends_when_woken_and_comes_back_after_it_dies(
    smtp_front: SmtpFront, migrated_url: str, session_factory: sessionmaker[Session], wait_until: WaitUntil
) -> None:
    smtp_front.relay.relay_only = True
    outbox = OutboxProcess(smtp_front.server, migrated_url, gm_address=GM, poll_seconds=60)
    outbox.start()
    supervisor = asyncio.create_task(outbox.supervise())
    try:
        queue(session_factory)
        outbox.wake()  # the only way it could know before its next look, a minute away
        await wait_until(lambda: outbox_rows(session_factory)[0].sent_at is not None, timeout=20)
        first = outbox.process
        assert first is not None and first.pid is not None
        os.kill(first.pid, signal.SIGKILL)
        await wait_until(lambda: outbox.process is not first and outbox.process is not None
                         and outbox.process.is_alive(), timeout=20)
        queue(session_factory)
        outbox.wake()  # the new process may still be starting: the wake-up waits in the pipe
        await wait_until(lambda: outbox_rows(session_factory)[1].sent_at is not None, timeout=20)
    finally:
        supervisor.cancel()
        await asyncio.to_thread(outbox.stop)
    assert outbox.process is None and not first.is_alive()
    assert smtp_front.relay.received == 2 and [r.attempts for r in outbox_rows(session_factory)] == [1, 1]


PARENT = """
import sys, time
from gm.mail.outgoing.outbox_process import OutboxProcess
from gm.settings import MailServer
outbox = OutboxProcess(MailServer("127.0.0.1", int(sys.argv[2]), "none", None, None), sys.argv[1], gm_address="gm@x.example")
outbox.start()
print(*(c.process.pid for c in outbox.children), flush=True)
time.sleep(600)
"""


def test_the_outbox_process_ends_when_the_service_is_killed(smtp_front: SmtpFront, migrated_url: str) -> None:
    """A service killed outright (SIGKILL: no chance to stop its children) leaves no sender behind."""
    root = Path(__file__).resolve().parents[2]
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, migrated_url, str(smtp_front.port)], cwd=root, stdout=subprocess.PIPE, text=True
    )
    try:
        assert parent.stdout is not None
        children = [int(pid) for pid in parent.stdout.readline().split()]
        assert children and all(_alive(child) for child in children)
        parent.kill()
        parent.wait(10)
        # A child still starting (importing gm, on a loaded machine) sees the end of its pipe
        # only once started: the limit is generous, the assertion is that each ends.
        deadline = time.monotonic() + 60
        while any(_alive(child) for child in children) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not any(_alive(child) for child in children)
    finally:
        parent.kill()


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"  # a zombie has ended; only its parent (gone too) would reap it


async def test_an_acknowledgement_leaves_within_seconds(
    dovecot: Dovecot,
    smtp_front: SmtpFront,
    session_factory: sessionmaker[Session],
    player_mail: PlayerMail,
    read_mailbox: ReadMailbox,
    wait_until: WaitUntil,
) -> None:
    """Inbox and outbox together: the reply ingest queues goes out at once, not at the next poll."""

    def reply(msg: EmailMessage) -> None:
        queue(session_factory, to_addr=str(msg["From"]), in_reply_to=str(msg["Message-ID"]))

    ingest = FakeIngest(replies=1, on_processed=reply)
    orders = player_mail()
    wakeup = asyncio.Event()
    w = watcher(dovecot, ingest, on_replies=wakeup.set, poll_seconds=60)
    async with running(w, sender(smtp_front, session_factory, wakeup=wakeup, poll_seconds=60)):
        await wait_until(lambda: w.state == "idle")
        sent = time.monotonic()
        await send(smtp_front, orders)

        async def answered() -> bool:
            replies = by_message_id(await read_mailbox(dovecot.account("alice"))).values()
            return any(m["In-Reply-To"] == orders["Message-ID"] for m in replies)

        await wait_until(answered)
        assert time.monotonic() - sent < 3.0


def test_build_message_without_attachments() -> None:
    mail = Outgoing(
        id=1,
        message_id="<m1@gm.example>",
        to_addr="bob@example.org",
        subject="Deadline",
        body_text="Orders are due.\n",
        attachments=None,
        in_reply_to=None,
        created_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        attempts=0,
    )
    raw = build_message(mail, GM)
    assert b"\r\n" in raw and b"\n" not in raw.replace(b"\r\n", b"")
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert msg["Message-ID"] == "<m1@gm.example>"
    assert msg["Date"] == "Fri, 02 Jan 2026 03:04:05 +0000"
    assert msg["Auto-Submitted"] == "auto-generated"
    assert not msg.is_multipart()
    assert msg.get_content().replace("\r\n", "\n") == "Orders are due.\n"


def test_build_message_encodes_what_is_not_ascii_and_keeps_headers_whole() -> None:
    long_line = "A Par - Bur " * 120  # over the 998 characters a line may have on the wire
    mail = Outgoing(
        id=2,
        message_id="<m2@gm.example>",
        to_addr="zoë@example.org",
        subject="Re: Ordres d'été\r\nBcc: everyone@example.org",  # a header must not be smuggled in
        body_text=f"Ça va: Français 1901.\n{long_line}\n",
        attachments=[{"filename": "carte été.png", "content_type": "image/png", "data": PNG}],
        in_reply_to="<orders-2@example.org>",
        created_at=datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC),
        attempts=0,
    )
    raw = build_message(mail, GM)
    assert raw.isascii()
    assert max(len(line) for line in raw.split(b"\r\n")) <= 998
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    assert msg["Subject"] == "Re: Ordres d'été Bcc: everyone@example.org"
    assert msg["Bcc"] is None
    assert msg["In-Reply-To"] == "<orders-2@example.org>" and msg["Auto-Submitted"] == "auto-replied"
    body = msg.get_body(("plain",))
    assert body is not None and body.get_content().replace("\r\n", "\n") == f"Ça va: Français 1901.\n{long_line}\n"
    (attachment,) = msg.iter_attachments()
    assert isinstance(attachment, EmailMessage)
    assert attachment.get_filename() == "carte été.png"
    assert attachment.get_content() == base64.b64decode(PNG)


def test_uid_sets_and_batches() -> None:
    from gm.mail.inbox import BATCH_MAILS, _batches, _sequence_set

    assert _sequence_set([7, 3, 4, 5, 9, 12, 13, 4]) == "3:5,7,9,12:13"
    assert _sequence_set([1]) == "1"
    uids = list(range(1, 2 * BATCH_MAILS + 11))
    sizes = dict.fromkeys(uids, 1_000)
    assert [len(b) for b in _batches(uids, sizes, max_size=1_000_000)] == [BATCH_MAILS, BATCH_MAILS, 10]
    sizes.update({1: 6_000_000, 2: 6_000_000, 3: 50_000_000})  # 3 is over the limit: only its header counts
    batches = _batches(uids[:5], sizes, max_size=10_000_000)
    assert batches == [[1], [2, 3, 4, 5]]


def test_rows_a_sender_holds_keep_their_lease_while_they_wait_but_not_past_a_failure(
    session_factory: sessionmaker[Session],
) -> None:
    """Two senders on one database: rows waiting in one's queue are not taken by the other when
    their first lease runs out; a row whose attempt failed keeps the back-off it was given."""
    for n in range(3):
        queue(session_factory, subject=f"mail {n}")
    server = MailServer("127.0.0.1", 1)
    first = OutboxSender(server, session_factory, gm_address=GM, lease_seconds=0.5)
    second = OutboxSender(server, session_factory, gm_address=GM, lease_seconds=0.5)
    taken, _ = first._claim(10, {})
    assert len(taken) == 3
    held = {m.id: m.attempts for m in taken}
    failed = taken[0].id
    first._mark_failed(failed, "451 try later", permanent=False)  # back-off: 10 s
    time.sleep(0.3)
    first._claim(0, held)  # a round of the first sender renews what it still holds
    time.sleep(0.3)  # past the first lease
    assert second._claim(10, {})[0] == []
    with transaction(session_factory) as s:
        retry = s.get_one(OutboundMail, failed).next_attempt_at
    assert retry > datetime.now(UTC) + timedelta(seconds=5)  # the back-off, not a lease
