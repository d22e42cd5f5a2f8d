"""The outbox sender: sends the rows of the `outbox` table over SMTP, retrying with back-off.

Protocol only; what a mail says was decided when its row was written. Each round takes the due
rows (not sent, next attempt now or past) in a short transaction, pushing their next attempt a
short lease ahead (so that a second sender would not take them too, and a process killed in the
middle leaves them to be sent by the next within half a minute); builds each mail with the row's own
Message-ID; sends them over a few SMTP connections side by side; and marks them sent as the server
accepts them, as many per transaction as were accepted while the previous marks were written. A
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
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
import email.policy
from email import encoders
from email.charset import QP, Charset
from email.header import Header
from email.message import Message
from email.mime.base import MIMEBase
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import format_datetime
from typing import Any

import aiosmtplib
from sqlalchemy import bindparam, func, select, update
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


def build_message(mail: Outgoing, gm_address: str) -> bytes:
    """The mail of one outbox row as sent (CRLF line ends): plain text from the GM, with its
    attachments. Built with the email package's compat32 classes, which are several times
    faster than EmailMessage at this (a busy judge builds one for every acknowledgement); the
    few headers that may carry non-ASCII text are encoded explicitly."""
    text = _text_part(mail.body_text)
    if mail.attachments:
        msg: Message = MIMEMultipart("mixed")
        msg.attach(text)
        for i, attachment in enumerate(mail.attachments):
            msg.attach(_attachment_part(i, attachment))
    else:
        msg = text
    msg["From"] = gm_address
    msg["To"] = mail.to_addr
    msg["Subject"] = _header_text(mail.subject)
    msg["Date"] = format_datetime(mail.created_at.astimezone(UTC))  # stable across retries
    msg["Message-ID"] = mail.message_id
    if mail.in_reply_to:
        msg["In-Reply-To"] = mail.in_reply_to
        msg["References"] = mail.in_reply_to
    # RFC 3834: so that vacation responders and other robots do not answer the GM.
    msg["Auto-Submitted"] = "auto-replied" if mail.in_reply_to else "auto-generated"
    msg["X-Auto-Response-Suppress"] = "All"  # the same for Microsoft's
    return msg.as_bytes(policy=_WIRE)


_WIRE = email.policy.compat32.clone(linesep="\r\n")
_UTF8_QP = Charset("utf-8")
_UTF8_QP.body_encoding = QP  # readable in any mail program's source view, unlike base64


def _text_part(body: str) -> MIMEText:
    # Plain ASCII in short lines goes as it is (7bit); anything else as quoted-printable UTF-8.
    if body.isascii() and all(len(line) <= 990 for line in body.splitlines()):
        return MIMEText(body, "plain", "us-ascii")
    return MIMEText(body, "plain", _UTF8_QP)  # type: ignore[arg-type]  # a Charset is accepted


def _header_text(value: str) -> str | Header:
    value = " ".join(value.split())  # no line breaks: a header must stay one header
    return value if value.isascii() else Header(value, "utf-8")


def _attachment_part(i: int, attachment: Any) -> MIMEBase:
    try:
        filename = str(attachment["filename"])
        maintype, _, subtype = str(attachment.get("content_type") or "application/octet-stream").partition("/")
        data = base64.b64decode(attachment["data"], validate=True)
    except (KeyError, TypeError, AttributeError, binascii.Error) as e:
        raise BadOutgoing(f"attachment {i}: {type(e).__name__}: {e}") from e
    part = MIMEBase(maintype or "application", subtype or "octet-stream")
    part.set_payload(data)
    encoders.encode_base64(part)
    # RFC 2231 for a name that is not ASCII
    name: str | tuple[str, str, str] = filename if filename.isascii() else ("utf-8", "", filename)
    part.add_header("Content-Disposition", "attachment", filename=name)
    return part


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
        batch: int = 100,
        connections: int = 4,
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
        self.connections = connections  # SMTP connections a round sends over side by side, at most
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
            marks = _SentMarks(self._mark_sent)
            # Row i goes over connection i mod n: each connection sends its share in order.
            n = min(self.connections, len(mails))
            try:
                await asyncio.gather(*(self._send(mails[i::n], marks) for i in range(n)))
            finally:
                await marks.drain()
        return len(mails)

    # --- SMTP ----------------------------------------------------------------------------------

    async def _send(self, mails: Sequence[Outgoing], marks: _SentMarks) -> None:
        """Send `mails` in order over one connection."""
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
            await self._failed(mails, e)
            return
        try:
            for i, mail in enumerate(mails):
                try:
                    await client.sendmail(self.gm_address, [mail.to_addr], build_message(mail, self.gm_address))
                except asyncio.CancelledError:
                    raise
                except Exception as e:
                    log.warning("outbox %d to %s: %s", mail.id, mail.to_addr, _describe(e))
                    if not client.is_connected:  # the connection went: the rest wait for the next round
                        await self._failed(mails[i:], e)
                        return
                    await self._failed([mail], e)
                    continue
                marks.add(mail.id, datetime.now(UTC))
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

    async def _failed(self, mails: Sequence[Outgoing], error: BaseException) -> None:
        await asyncio.to_thread(self._mark_failed, [mail.id for mail in mails], _describe(error))

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

    def _mark_sent(self, sent: list[tuple[int, datetime]]) -> None:
        table = OutboundMail.__table__
        with transaction(self.session_factory) as session:
            session.connection().execute(  # one statement, executed for many rows
                update(table)
                .where(table.c.id == bindparam("row_id"))
                .values(attempts=table.c.attempts + 1, sent_at=bindparam("accepted_at")),
                [{"row_id": row_id, "accepted_at": at} for row_id, at in sent],
            )

    def _mark_failed(self, mail_ids: list[int], error: str) -> None:
        now = datetime.now(UTC)
        with transaction(self.session_factory) as session:
            for row in session.scalars(select(OutboundMail).where(OutboundMail.id.in_(mail_ids))):
                row.attempts += 1
                row.last_error = error[:2000]
                row.next_attempt_at = now + timedelta(seconds=self.backoff.delay(row.attempts))

    def _next_due(self) -> datetime | None:
        with transaction(self.session_factory) as session:
            due: datetime | None = session.scalar(
                select(func.min(OutboundMail.next_attempt_at)).where(OutboundMail.sent_at.is_(None))
            )
        if due is not None and due.tzinfo is None:  # an aggregate's result skips the column type
            due = due.replace(tzinfo=UTC)
        return due


class _SentMarks:
    """Marks rows sent, in as few transactions as keep up: while one is written, the rows
    accepted meanwhile gather for the next. A mark lost to a crash or a database error means one
    more send of the same mail, with the same Message-ID, when the row's lease runs out."""

    def __init__(self, write: Callable[[list[tuple[int, datetime]]], None]) -> None:
        self.write = write
        self.pending: list[tuple[int, datetime]] = []
        self.writing: asyncio.Task[None] | None = None

    def add(self, row_id: int, accepted_at: datetime) -> None:
        self.pending.append((row_id, accepted_at))
        if self.writing is None or self.writing.done():
            self.writing = asyncio.ensure_future(self._write_all())

    async def _write_all(self) -> None:
        while self.pending:
            rows, self.pending = self.pending, []
            try:
                await asyncio.to_thread(self.write, rows)
            except Exception:
                log.exception("could not mark %d outbox rows sent; they will be sent again", len(rows))

    async def drain(self) -> None:
        """Wait until every row added so far is written (or given up)."""
        while self.writing is not None and not self.writing.done():
            await asyncio.shield(self.writing)


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
