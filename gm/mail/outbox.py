"""The outbox sender: sends the rows of the `outbox` table over SMTP, retrying with back-off.

Protocol only; what a mail says was decided when its row was written. Each round takes the due
rows (not sent, next attempt now or past) in a short transaction, pushing their next attempt a
short lease ahead (so that a second sender would not take them too, and a process killed in the
middle leaves them to be sent by the next within half a minute); builds each mail with the row's own
Message-ID; sends them over one SMTP connection; and marks each sent in another transaction. A
failure counts an attempt, keeps the error and puts the next attempt off exponentially (capped).
A retry carries the same Message-ID, so a mail sent twice (the process stopped between the SMTP
server's acceptance and the mark) is recognisably the same mail. The sender wakes when the inbox
signals new replies, when the next retry is due, and every `poll_seconds`.
"""
from __future__ import annotations

import asyncio
import base64
import binascii
import logging
import ssl
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Any

import aiosmtplib
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from gm.mail.inbox import Backoff
from gm.settings import MailServer
from gm.store.db import transaction
from gm.store.models import OutboundMail

log = logging.getLogger(__name__)

SEND_BACKOFF = Backoff(10.0, 600.0)  # 10 s, 20 s, 40 s, ... then every 10 minutes


@dataclass(frozen=True)
class Outgoing:
    """What the sender needs of one outbox row, read in one transaction and used outside it."""

    id: int
    message_id: str
    to_addr: str
    subject: str
    body_text: str
    attachments: list[Any] | None
    in_reply_to: str | None
    created_at: datetime
    attempts: int

    @classmethod
    def of(cls, row: OutboundMail) -> Outgoing:
        return cls(
            id=row.id,
            message_id=row.message_id,
            to_addr=row.to_addr,
            subject=row.subject,
            body_text=row.body_text,
            attachments=row.attachments,
            in_reply_to=row.in_reply_to,
            created_at=row.created_at,
            attempts=row.attempts,
        )


class BadOutgoing(ValueError):
    """A row that cannot be made into a mail (e.g. an attachment that is not base64)."""


def build_message(mail: Outgoing, gm_address: str) -> EmailMessage:
    """The mail of one outbox row: plain text from the GM, with its attachments."""
    msg = EmailMessage()
    msg["From"] = gm_address
    msg["To"] = mail.to_addr
    msg["Subject"] = mail.subject
    msg["Date"] = format_datetime(mail.created_at.astimezone(UTC))  # stable across retries
    msg["Message-ID"] = mail.message_id
    if mail.in_reply_to:
        msg["In-Reply-To"] = mail.in_reply_to
        msg["References"] = mail.in_reply_to
    # RFC 3834: so that vacation responders and other robots do not answer the GM.
    msg["Auto-Submitted"] = "auto-replied" if mail.in_reply_to else "auto-generated"
    msg["X-Auto-Response-Suppress"] = "All"  # the same for Microsoft's
    msg.set_content(mail.body_text)
    for i, attachment in enumerate(mail.attachments or []):
        try:
            filename = str(attachment["filename"])
            maintype, _, subtype = str(attachment.get("content_type") or "application/octet-stream").partition("/")
            data = base64.b64decode(attachment["data"], validate=True)
        except (KeyError, TypeError, AttributeError, binascii.Error) as e:
            raise BadOutgoing(f"attachment {i}: {type(e).__name__}: {e}") from e
        msg.add_attachment(data, maintype=maintype, subtype=subtype or "octet-stream", filename=filename)
    return msg


class OutboxSender:
    """Sends due outbox rows through one SMTP server; `run()` until cancelled."""

    def __init__(
        self,
        server: MailServer,
        session_factory: sessionmaker[Session],
        *,
        gm_address: str,
        wakeup: asyncio.Event | None = None,
        poll_seconds: float = 5.0,
        backoff: Backoff = SEND_BACKOFF,
        lease_seconds: float = 30.0,
        batch: int = 50,
        timeout: float = 60.0,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self.server = server
        self.session_factory = session_factory
        self.gm_address = gm_address
        self.wakeup = wakeup if wakeup is not None else asyncio.Event()
        self.poll_seconds = poll_seconds
        self.backoff = backoff
        self.lease = timedelta(seconds=lease_seconds)
        self.batch = batch
        self.timeout = timeout
        self.ssl_context = ssl_context
        self._warned_no_auth = False

    async def run(self) -> None:
        """Send due mail until cancelled."""
        while True:
            self.wakeup.clear()  # before looking: a signal during the round starts another round
            wait = self.poll_seconds
            try:
                taken = await self.send_due()
                next_due = await asyncio.to_thread(self._next_due)
            except asyncio.CancelledError:
                raise
            except Exception:  # e.g. the database is away: log, and try again later
                log.exception("outbox round failed")
            else:
                if next_due is not None:
                    wait = min(wait, (next_due - datetime.now(UTC)).total_seconds())
                if taken < self.batch:
                    wait = max(wait, 0.01)  # never spin on a row that someone else holds
                else:
                    wait = 0.0
            if wait > 0:
                try:
                    await asyncio.wait_for(self.wakeup.wait(), wait)
                except TimeoutError:
                    pass

    async def send_due(self) -> int:
        """One round: take the due rows and send them. Returns how many rows were taken."""
        mails = await asyncio.to_thread(self._claim)
        if mails:
            await self._send(mails)
        return len(mails)

    # --- SMTP ----------------------------------------------------------------------------------

    async def _send(self, mails: Sequence[Outgoing]) -> None:
        s = self.server
        context = (self.ssl_context or ssl.create_default_context()) if s.tls != "none" else None
        client = aiosmtplib.SMTP(
            hostname=s.host,
            port=s.port,
            use_tls=s.tls == "ssl",
            start_tls=s.tls == "starttls",
            tls_context=context,
            timeout=self.timeout,
        )
        try:
            await client.connect()
            await self._login(client)
        except (OSError, TimeoutError, aiosmtplib.SMTPException) as e:
            log.warning("SMTP %s: %s", s, _describe(e))
            for mail in mails:
                await self._failed(mail, e)
            return
        try:
            for i, mail in enumerate(mails):
                try:
                    msg = build_message(mail, self.gm_address)
                    await client.send_message(msg, sender=self.gm_address, recipients=[mail.to_addr])
                except asyncio.CancelledError:
                    raise
                except Exception as e:
                    log.warning("outbox %d to %s: %s", mail.id, mail.to_addr, _describe(e))
                    await self._failed(mail, e)
                    if not client.is_connected:  # the connection went: the rest wait for the next round
                        for rest in mails[i + 1 :]:
                            await self._failed(rest, e)
                        return
                    continue
                await asyncio.to_thread(self._mark_sent, mail.id)
                log.info("sent outbox %d %s to %s", mail.id, mail.message_id, mail.to_addr)
        finally:
            if client.is_connected:
                try:
                    await asyncio.wait_for(client.quit(), 5)
                except (OSError, TimeoutError, aiosmtplib.SMTPException):
                    client.close()

    async def _login(self, client: aiosmtplib.SMTP) -> None:
        """Log in where the server offers AUTH (after STARTTLS, if any). A server that offers none,
        such as a local relay, gets the mail without: the login (by default the IMAP one) is kept
        for servers that want it, and one that wants it refuses the mail, which is logged."""
        s = self.server
        if s.user is None or s.password is None:
            return
        if client.is_ehlo_or_helo_needed:  # not yet said on a connection without STARTTLS
            await client.ehlo()
        if client.supports_extension("auth"):
            await client.login(s.user, s.password)
        elif not self._warned_no_auth:
            log.info("SMTP %s offers no AUTH: sending without logging in", s)
            self._warned_no_auth = True

    async def _failed(self, mail: Outgoing, error: BaseException) -> None:
        await asyncio.to_thread(self._mark_failed, mail.id, _describe(error))

    # --- the database (each in a worker thread, each its own short transaction) ----------------

    def _claim(self) -> list[Outgoing]:
        now = datetime.now(UTC)
        with transaction(self.session_factory) as session:
            rows = session.scalars(
                select(OutboundMail)
                .where(OutboundMail.sent_at.is_(None), OutboundMail.next_attempt_at <= now)
                .order_by(OutboundMail.next_attempt_at, OutboundMail.id)
                .limit(self.batch)
                .with_for_update(skip_locked=True)  # PostgreSQL; SQLite locks the whole database anyway
            ).all()
            for row in rows:
                row.next_attempt_at = now + self.lease  # if this process dies, the row is retried then
            return [Outgoing.of(row) for row in rows]

    def _mark_sent(self, mail_id: int) -> None:
        with transaction(self.session_factory) as session:
            row = session.get_one(OutboundMail, mail_id)
            row.attempts += 1
            row.sent_at = datetime.now(UTC)

    def _mark_failed(self, mail_id: int, error: str) -> None:
        with transaction(self.session_factory) as session:
            row = session.get_one(OutboundMail, mail_id)
            row.attempts += 1
            row.last_error = error[:2000]
            row.next_attempt_at = datetime.now(UTC) + timedelta(seconds=self.backoff.delay(row.attempts))

    def _next_due(self) -> datetime | None:
        with transaction(self.session_factory) as session:
            due: datetime | None = session.scalar(
                select(func.min(OutboundMail.next_attempt_at)).where(OutboundMail.sent_at.is_(None))
            )
        if due is not None and due.tzinfo is None:  # an aggregate's result skips the column type
            due = due.replace(tzinfo=UTC)
        return due


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
