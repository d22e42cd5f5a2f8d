"""IMAP servers that do not behave like a quiet Dovecot: one that offers no IDLE (the judge polls),
and one whose connections are cut every few seconds, IDLE or not (as Gmail and Exchange end IDLE
early, and as NAT boxes drop quiet connections). Either way every mail is read and answered once."""
from __future__ import annotations

import asyncio
import copy
import email
import os
import threading
import time
from dataclasses import dataclass
from email.message import EmailMessage
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from sqlalchemy import func, select

from gm.games import create_game
from gm.lifecycle.phases import start as start_game
from gm.store.db import make_engine, make_session_factory, transaction
from gm.store.models import InboundMail, OutboundMail, Player, utcnow
from gm.store.passwords import hash_password
from loopback import free_port, stop

if TYPE_CHECKING:  # fixtures' types only (see conftest.py)
    from conftest import Dovecot, ReadMailbox, SmtpFront, StartGmServe

DOMAIN = "example.org"
GM = f"gm@{DOMAIN}"
MAILS = 6


NO_IDLE = "protocol imap {\n  imap_capability = IMAP4rev1 LITERAL+ SASL-IR ID ENABLE UIDPLUS NAMESPACE UNSELECT MOVE\n}\n"


@dataclass
class Cutter:
    """A TCP proxy in front of an IMAP server that cuts every connection `after` seconds old."""

    upstream: int
    after: float
    port: int = 0
    cuts: int = 0

    def start(self) -> None:
        self.port = free_port()
        self.loop = asyncio.new_event_loop()
        ready = threading.Event()
        self.thread = threading.Thread(target=self._run, args=(ready,), daemon=True)
        self.thread.start()
        ready.wait(5)

    def _run(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self.loop)
        server = self.loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", self.port))
        ready.set()
        self.loop.run_forever()
        server.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.upstream)

        async def pump(source: asyncio.StreamReader, sink: asyncio.StreamWriter) -> None:
            while data := await source.read(65536):
                sink.write(data)
                await sink.drain()

        pumps = asyncio.gather(pump(reader, up_writer), pump(up_reader, writer), return_exceptions=True)
        try:
            await asyncio.wait_for(pumps, self.after)
        except TimeoutError:
            self.cuts += 1
        for w in (writer, up_writer):
            w.transport.abort()

    def stop(self) -> None:
        async def end() -> None:  # the connections still open, dropped
            for task in asyncio.all_tasks():
                if task is not asyncio.current_task():
                    task.cancel()

        asyncio.run_coroutine_threadsafe(end(), self.loop).result(5)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


def _setup_game(url: str) -> None:
    with transaction(make_session_factory(make_engine(url))) as s:
        game = create_game(s, "idle", "standard")
        s.add(Player(game_id=game.id, power="France", email=f"alice@{DOMAIN}", password_hash=hash_password("pw")))
        s.flush()
        start_game(s, game, utcnow())


def _mail(n: int) -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = f"alice@{DOMAIN}", GM, f"orders {n}"
    msg["Message-ID"] = f"<idle-{os.getpid()}-{n}@{DOMAIN}>"
    msg.set_content(f"SIGNON France idle pw\n{('A Par - Bur', 'A Par - Pic', 'A Par H')[n % 3]}\n")
    return msg


async def _every_mail_answered_once(url: str, imap: Any, smtp_front: SmtpFront, read_mailbox: ReadMailbox,
                                    gm_serve: StartGmServe, data: Path, mailboxes: Any) -> None:
    """`gm serve` reading the GM's mail at `imap`; each mail answered once, in alice's mailbox at `mailboxes`."""
    await asyncio.to_thread(_setup_game, url)
    server = gm_serve(url, imap, smtp_front, data)
    factory = make_session_factory(make_engine(url))

    def answered() -> bool:
        with transaction(factory) as s:
            inbound = s.scalar(select(func.count()).select_from(InboundMail))
            unsent = s.scalar(select(func.count()).select_from(OutboundMail).where(OutboundMail.sent_at.is_(None)))
        return inbound == MAILS and unsent == 0

    try:
        for n in range(MAILS):  # spread over several of the server's cuts, or polls
            await asyncio.to_thread(smtp_front.send, _mail(n))
            await asyncio.sleep(0.7)
        deadline = time.monotonic() + 60
        while not await asyncio.to_thread(answered):
            assert server.poll() is None, (data / "serve.log").read_text()
            assert time.monotonic() < deadline, (data / "serve.log").read_text()
            await asyncio.sleep(0.2)
    finally:
        stop(server, timeout=15)
    answers = [email.message_from_bytes(m.raw) for m in await read_mailbox(mailboxes.account("alice"))]
    assert sorted(a["In-Reply-To"] for a in answers) == sorted(_mail(n)["Message-ID"] for n in range(MAILS))


@pytest.mark.long
async def test_a_server_without_idle_is_polled(
        migrated_url: str, dovecot_with: Callable[[str], Dovecot], front_for: Callable[[int], SmtpFront],
        read_mailbox: ReadMailbox, gm_serve: StartGmServe, tmp_path: Path) -> None:
    without_idle = dovecot_with(NO_IDLE)  # IDLE left out of what it offers once logged in
    front = front_for(without_idle.lmtp_port)
    await _every_mail_answered_once(migrated_url, without_idle, front, read_mailbox, gm_serve, tmp_path, without_idle)
    log = (tmp_path / "serve.log").read_text()
    assert "INBOX (UIDVALIDITY" in log and ", polling)" in log and ", IDLE)" not in log


@pytest.mark.long
async def test_connections_cut_every_few_seconds_lose_no_mail(
        migrated_url: str, dovecot: Dovecot, smtp_front: SmtpFront, read_mailbox: ReadMailbox,
        gm_serve: StartGmServe, tmp_path: Path) -> None:
    cutter = Cutter(dovecot.imap_port, after=1.5)
    cutter.start()
    behind = copy.copy(dovecot)
    behind.imap_port = cutter.port  # gm serve reads the mailbox through the cutter
    try:
        await _every_mail_answered_once(migrated_url, behind, smtp_front, read_mailbox, gm_serve, tmp_path, dovecot)
    finally:
        cutter.stop()
    assert cutter.cuts >= 1  # the judge was cut off mid-IDLE while mail still came, and came back
    assert "watching" in (tmp_path / "serve.log").read_text()
