"""The embedded mail servers (pymap IMAP + aiosmtpd SMTP, in the caller's event loop): delivery to
the GM and to any other address, authentication, persistence across restarts; and `gm serve` on
them, from mail in to reply out, stopped cleanly by a signal."""
from __future__ import annotations

import asyncio
import base64
import email
import email.policy
import os
import signal
import subprocess
import sys
import threading
from dataclasses import replace
from email.message import EmailMessage
from pathlib import Path
from typing import TYPE_CHECKING

import aiosmtplib
import pytest
from sqlalchemy import create_engine, inspect
from sqlalchemy.orm import Session, sessionmaker

from gm.mail.embedded import EmbeddedMail, MailboxNameError, embedded_mail, mailbox_name
from gm.mail.ingest import Fetched, IngestOutcome
from gm.server import serve
from gm.settings import MailServer, Settings
from gm.store.db import transaction
from gm.store.models import OutboundMail
from loopback import free_port, listening

if TYPE_CHECKING:  # fixtures' types only: see conftest.py on why nothing is imported from it
    from conftest import PlayerMail, ReadMailbox, WaitUntil

GM = "gm@example.org"
ALICE = "alice@example.org"


async def submit(server: MailServer, msg: EmailMessage, recipients: list[str] | None = None) -> None:
    """Send `msg` through an SMTP server, logged in as the server's user (if any)."""
    await aiosmtplib.send(
        msg,
        hostname=server.host,
        port=server.port,
        username=server.user,
        password=server.password,
        recipients=recipients,
        start_tls=False,
        timeout=5,
    )


def parse(raw: bytes) -> EmailMessage:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


async def test_delivers_to_the_gm_and_to_any_other_address(
    tmp_path: Path, player_mail: PlayerMail, read_mailbox: ReadMailbox
) -> None:
    async with embedded_mail(tmp_path, GM) as mail:
        assert mail.imap.host == mail.smtp.host == "127.0.0.1"
        orders = player_mail("A Par-Bur\n")
        await submit(mail.smtp, orders)
        (stored,) = await read_mailbox(mail.imap)
        got = parse(stored.raw)
        assert got["Message-ID"] == orders["Message-ID"]
        assert got["Return-Path"] == f"<{ALICE}>" and got["Delivered-To"] == GM
        assert "\\Seen" not in stored.flags

        # Mail to anyone else makes that address a mailbox of its own, for a demo to read.
        reply = player_mail("Orders received.\n", sender=GM, to=ALICE.upper())
        await submit(mail.smtp, reply)
        (stored,) = await read_mailbox(mail.mailbox(ALICE))
        assert parse(stored.raw)["Message-ID"] == reply["Message-ID"]
        assert len(await read_mailbox(mail.imap)) == 1


async def test_smtp_takes_mail_for_the_gm_from_anyone_and_relays_only_after_a_login(
    tmp_path: Path, player_mail: PlayerMail, read_mailbox: ReadMailbox
) -> None:
    async with embedded_mail(tmp_path, GM, password="right") as mail:
        assert mail.password == "right"
        anonymous = replace(mail.smtp, user=None, password=None)
        await submit(anonymous, player_mail("A Par-Bur\n"))  # to the GM: as a real MX takes it
        assert len(await read_mailbox(mail.imap)) == 1
        with pytest.raises(aiosmtplib.SMTPRecipientsRefused):  # to anyone else: 530, log in first
            await submit(anonymous, player_mail(sender=GM, to=ALICE))
        with pytest.raises(aiosmtplib.SMTPAuthenticationError):
            await submit(replace(mail.smtp, password="wrong"), player_mail())
        with pytest.raises(aiosmtplib.SMTPAuthenticationError):
            await submit(replace(mail.smtp, user="nobody@example.org"), player_mail())
        with pytest.raises(aiosmtplib.SMTPRecipientsRefused):
            await submit(mail.smtp, player_mail(), recipients=['"a b"@example.org'])
        await submit(mail.smtp, player_mail("Orders received.\n", sender=GM, to=ALICE))  # logged in
        assert len(await read_mailbox(mail.mailbox(ALICE))) == 1


async def test_a_mail_with_a_very_long_line_is_delivered(tmp_path: Path, read_mailbox: ReadMailbox) -> None:
    """One line of base64 far over RFC 5321's 1,000 octets, as some mail programs send: real
    servers take it, and so does the embedded one."""
    line = base64.b64encode(os.urandom(75_000)).decode()
    assert len(line) == 100_000
    raw = (
        f"From: {ALICE}\r\nTo: {GM}\r\nSubject: the map\r\nMessage-ID: <long-line@example.org>\r\n"
        "MIME-Version: 1.0\r\nContent-Type: application/octet-stream\r\n"
        f"Content-Transfer-Encoding: base64\r\n\r\n{line}\r\n"
    ).encode()
    async with embedded_mail(tmp_path, GM) as mail:
        server = mail.smtp
        await aiosmtplib.send(
            raw,
            sender=ALICE,
            recipients=[GM],
            hostname=server.host,
            port=server.port,
            username=server.user,
            password=server.password,
            start_tls=False,
            timeout=10,
        )
        (stored,) = await read_mailbox(mail.imap)
        assert line.encode() in stored.raw


def test_mailbox_names() -> None:
    assert mailbox_name(" <Alice@Example.ORG> ") == ALICE
    for bad in ("alice", "a/b@example.org", "a:b@example.org", "a@b@example.org", "x@..", ""):
        with pytest.raises(MailboxNameError):
            mailbox_name(bad)


async def test_mail_and_password_survive_a_restart(
    tmp_path: Path, player_mail: PlayerMail, read_mailbox: ReadMailbox
) -> None:
    async with embedded_mail(tmp_path, GM) as first:
        await submit(first.smtp, player_mail())
    password_file = tmp_path / "mail" / "password"
    assert password_file.read_text().strip() == first.password
    assert password_file.stat().st_mode & 0o777 == 0o600
    async with embedded_mail(tmp_path, GM) as second:
        assert second.password == first.password
        assert len(await read_mailbox(second.imap)) == 1
    # A password given (GM_IMAP_PASSWORD) replaces the stored one for every mailbox.
    async with embedded_mail(tmp_path, GM, password="given") as third:
        assert len(await read_mailbox(third.imap)) == 1


# --- gm serve on the embedded servers ------------------------------------------------------------


class ReplyingIngest:
    """A stand-in for gm.mail.ingest.ingest_batch with its signature: answers each new mail with
    one outbox row in the session factory serve() made, and knows mail it has seen."""

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def __call__(
        self,
        session_factory: sessionmaker[Session],
        mails: list[Fetched],
        *,
        gm_address: str,
        uidvalidity: int | None = None,
        max_size: int = 1_000_000,
        verifier: object = None,
        replies_per_hour: int = 60,
        **policy: object,  # the rest of ingest_batch's keywords (trusted GMs, DKIM look-up)
    ) -> list[IngestOutcome]:
        return [self.one(session_factory, mail.raw, gm_address) for mail in mails]

    def one(self, session_factory: sessionmaker[Session], raw: bytes, gm_address: str) -> IngestOutcome:
        msg = parse(raw)
        message_id = str(msg["Message-ID"])
        if message_id in self.seen:
            return IngestOutcome(None, "duplicate", 0)
        self.seen.add(message_id)
        with transaction(session_factory) as session:
            session.add(
                OutboundMail(
                    to_addr=str(msg["From"]),
                    subject=f"Re: {msg['Subject']}",
                    body_text=f"{gm_address} received your orders.\n",
                    in_reply_to=message_id,
                    kind="ack",
                )
            )
        return IngestOutcome(len(self.seen), "processed", 1)


async def test_serve_answers_mail_on_the_embedded_servers(
    tmp_path: Path, player_mail: PlayerMail, read_mailbox: ReadMailbox, wait_until: WaitUntil
) -> None:
    imap_port, smtp_port = free_port(), free_port()
    settings = Settings(gm_address=GM, data_dir=tmp_path, imap_port=imap_port, smtp_port=smtp_port)
    assert settings.embedded
    service = asyncio.create_task(serve(settings, ingest_function=ReplyingIngest()))
    password_file = tmp_path / "mail" / "password"
    # Migrations and pymap's start: a second or so, but allow for a machine that is busy.
    await wait_until(lambda: service.done() or (password_file.exists() and listening(smtp_port)), timeout=30)
    assert not service.done()
    password = password_file.read_text().strip()
    mail = EmbeddedMail(
        imap=MailServer("127.0.0.1", imap_port, "none", GM, password),
        smtp=MailServer("127.0.0.1", smtp_port, "none", GM, password),
        password=password,
    )
    orders = player_mail("A Par-Bur\n")
    await submit(mail.smtp, orders)

    async def answered() -> bool:
        try:
            stored = await read_mailbox(mail.mailbox(ALICE))
        except AssertionError:  # no mailbox yet
            return False
        return any(parse(s.raw)["In-Reply-To"] == orders["Message-ID"] for s in stored)

    await wait_until(answered)
    service.cancel()
    with pytest.raises(asyncio.CancelledError):
        await service
    assert not listening(imap_port) and not listening(smtp_port)
    tables = inspect(create_engine(settings.db_url)).get_table_names()
    assert "outbox" in tables and "alembic_version" in tables


def test_gm_serve_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    env = {**os.environ, "GM_DATA_DIR": str(tmp_path), "GM_CONFIG": "", "GM_IMAP_HOST": ""}
    process = subprocess.Popen(
        [sys.executable, "-m", "gm", "serve"], env=env, stderr=subprocess.PIPE, text=True, cwd=tmp_path
    )
    watchdog = threading.Timer(30, process.kill)  # a hung start ends the process, and so the loop below
    watchdog.start()
    try:
        assert process.stderr is not None
        log = []
        for line in process.stderr:
            log.append(line)
            if "gm serving" in line:
                break
        else:
            pytest.fail(f"gm serve ended early with {process.wait()}:\n{''.join(log)}")
        process.send_signal(signal.SIGTERM)
        _, rest = process.communicate(timeout=10)
        assert process.returncode == 0, "".join(log) + rest
        assert "Traceback" not in rest, rest
    finally:
        watchdog.cancel()
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert (tmp_path / "gm.sqlite3").exists() and (tmp_path / "mail" / "password").exists()


def test_gm_db_upgrade(tmp_path: Path) -> None:
    env = {**os.environ, "GM_DATABASE_URL": f"sqlite:///{tmp_path / 'x.sqlite3'}", "GM_CONFIG": ""}
    done = subprocess.run(
        [sys.executable, "-m", "gm", "db", "upgrade"], env=env, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert "up to date" in done.stdout
    assert "outbox" in inspect(create_engine(f"sqlite:///{tmp_path / 'x.sqlite3'}")).get_table_names()
