"""The outbox sender: sends the rows of the `outbox` table over SMTP, retrying with back-off.

Protocol only; what a mail says was decided when its row was written. Each round takes the due
rows (not sent, next attempt now or past) in a short transaction, pushing their next attempt a
short lease ahead (so that a second sender would not take them too, and a process killed in the
middle leaves them to be sent by the next within half a minute); builds each mail with the row's own
Message-ID; sends them over a few SMTP connections side by side; and marks them sent as the server
accepts them, as many per transaction as were accepted while the previous marks were written.
Acknowledgements go first, and to one address nothing else goes while one waits (see _AFTER_ACKS). A
failure counts an attempt, keeps the error and puts the next attempt off exponentially (capped).
A retry carries the same Message-ID, so a mail sent twice (the process stopped between the SMTP
server's acceptance and the mark) is recognisably the same mail. The sender wakes when the inbox
signals new replies, when the next retry is due, and every `poll_seconds`.
"""
from __future__ import annotations

import asyncio
import base64
import binascii
import functools
import io
import logging
import re
import secrets
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
import email.policy
from email import encoders
from email.charset import QP, Charset
from email.generator import BytesGenerator
from email.header import Header
from email.message import Message
from email.mime.base import MIMEBase
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import format_datetime
from typing import Any

import aiosmtplib
from sqlalchemy import bindparam, case, exists, func, select, tuple_, update
from sqlalchemy.exc import DBAPIError
from sqlalchemy.orm import Session, aliased, sessionmaker

from gm.mail.backoff import Backoff
from gm.mail.oauth2 import sasl
from gm.mail.oauth2.providers import OAuth2
from gm.mail.oauth2.tokens import AccessTokens, SignInError
from gm.mail.outgoing import mail_log
from gm.mail.outgoing.mail_maps import DrawnMaps, draw_attachments, draw_planned, plan_attachments
from gm.mail.outgoing.maps_left_out import without_missing_maps
from gm.mail.outgoing.pacing import LATE_KIND, Limits, room, slow_down, tell_late
from gm.mail.outgoing.signing import DkimKey, sign
from gm.mail.outgoing import undelivered
from gm.mail.outgoing.list_headers import Headers, MailLinks, list_headers
from gm.maps.store import MapStore
from gm.settings import MailServer
from gm.store.db import transaction
from gm.store.models import OutboundMail

log = logging.getLogger(__name__)

# Of the mail due, what goes first: the players' acknowledgements (a player waits for one; and a
# GM's notice that results will be late), then the game's own mail (results, start, reminders,
# ...), then press, and last the notices to strangers (a flood of forged mail can queue many; none
# of them may delay a player's answer). Under the provider's limits (pacing), the order they go in.
_ACKS = ("ack", "paused")
ALERT_KIND = "alert"  # the judge's own trouble, to the GMs (gm.server.tell_grant_refused)
_FIRST = case((OutboundMail.kind.in_((*_ACKS, LATE_KIND, ALERT_KIND)), 0), (OutboundMail.kind == "press", 2),
              (OutboundMail.kind.in_(("notice", "confirm")), 3), else_=1)

# And to one address, no other mail while an acknowledgement to it waits, whichever sender holds
# it: the answer to a mail arrives before the mail the same mail caused (the game's start after the
# JOIN that filled it, the draw after the ACCEPT that made it). A row held back is taken once the
# acknowledgement is marked sent (its sender then looks again) or given up.
_ack = aliased(OutboundMail)
_AFTER_ACKS = OutboundMail.kind.in_(_ACKS) | ~exists().where(
    _ack.to_addr == OutboundMail.to_addr, _ack.kind.in_(_ACKS), _ack.sent_at.is_(None), _ack.gave_up_at.is_(None))

SEND_BACKOFF = Backoff(10.0, 600.0)  # 10 s, 20 s, 40 s, ... then every 10 minutes
SLOW_BACKOFF = Backoff(30.0, 1800.0)  # a server that asks to slow down: no sending for 30 s, 60 s, ... 30 min


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
    body_html: str | None = None  # with it, the mail is multipart/alternative
    references: str | None = None  # Message-IDs, space-separated; None: in_reply_to
    # The judge's own mail about a game (results, reminders), which answers no one's mail: it is
    # 'auto-generated' even though it is threaded.
    generated: bool = False
    about: str = ""  # its kind, game and the recipient's role, for its log line (gm.mail.outgoing.mail_log)
    kind: str = ""  # the row's: 'ack', 'results', ...
    headers: Headers = ()  # List-Id, List-Unsubscribe (gm.mail.outgoing.list_headers)

    @classmethod
    def of(cls, row: OutboundMail, session: Session | None = None, drawn: dict[Any, str | None] | None = None,
           *, draw: bool = True, plans: dict[str, Any] | None = None) -> Outgoing:
        """The row as the sender needs it; with `session`, its maps drawn, or taken from `drawn`,
        those drawn before (see draw_attachments); without `draw`, only planned (with `plans`,
        what the transaction's other rows planned: see plan_attachments): draw them with drawn()
        once the session's transaction is over."""
        attachments, text, html = row.attachments, row.body_text, row.body_html
        if session is not None:
            attachments = (draw_attachments(session, attachments, drawn) if draw else
                           plan_attachments(session, attachments, {} if drawn is None else drawn, plans))
            text, html = without_missing_maps(row.attachments, attachments, text, html)
        return cls(
            id=row.id,
            message_id=row.message_id,
            to_addr=row.to_addr,
            subject=row.subject,
            body_text=text,
            attachments=attachments,
            in_reply_to=row.in_reply_to,
            created_at=row.created_at,
            attempts=row.attempts,
            body_html=html,
            references=row.references,
            generated=row.game_id is not None and row.inbound_id is None,
            kind=row.kind,
        )

    def drawn(self, drawn: dict[Any, str | None]) -> Outgoing:
        """This mail with the maps planned by of(..., draw=False) drawn (and its words without
        those that could not be: gm.mail.outgoing.maps_left_out)."""
        attachments = draw_planned(self.attachments, drawn)
        text, html = without_missing_maps(self.attachments, attachments, self.body_text, self.body_html)
        return replace(self, attachments=attachments, body_text=text, body_html=html)


async def signed_in(server: MailServer, *, oauth2: OAuth2 | None = None, timeout: float = 30.0) -> aiosmtplib.SMTP:
    """A connection made as the outbox makes it (TLS as set, EHLO, AUTH by password or OAuth2),
    for `gm mail check`; raises what the outbox would meet. close() it after."""
    sender = OutboxSender(server, sessionmaker(), gm_address="", timeout=timeout, oauth2=oauth2)
    return await sender._connect()


class BadOutgoing(ValueError):
    """A row that cannot be made into a mail (e.g. an attachment that is not base64)."""


def build_message(mail: Outgoing, gm_address: str) -> bytes:
    """The mail of one outbox row as sent (CRLF line ends): plain text from the GM, with its
    attachments; with an HTML body, multipart/alternative, and the attachments that have a
    `content_id` shown inline in the HTML (multipart/related). Built with the email package's
    compat32 classes, which are several times faster than EmailMessage at this (a busy judge
    builds one for every acknowledgement); the few headers that may carry non-ASCII text are
    encoded explicitly. A results mail carries two maps, as many bytes as a hundred acknowledgements:
    each map is encoded once for all the mails that carry it (_encoded), the boundaries are chosen
    without searching the maps (_boundary), and the generator writes a payload at once
    (_WireGenerator)."""
    boundary = _boundary(mail.body_text, mail.body_html or "")
    inline: list[Message] = []  # images the HTML shows (cid:), with it in a multipart/related
    attached: list[Message] = []
    for i, attachment in enumerate(mail.attachments or []):
        shown = mail.body_html is not None and bool(_content_id(attachment))
        (inline if shown else attached).append(_attachment_part(i, attachment, inline=shown))
    msg: Message = _text_part(mail.body_text)
    if mail.body_html is not None:
        html: Message = _html_part(mail.body_html)
        if inline:
            html = _multipart("related", [html, *inline], boundary + "r", type="text/html")
        msg = _multipart("alternative", [msg, html], boundary + "a")
    if attached:
        msg = _multipart("mixed", [msg, *attached], boundary + "m")
    msg["From"] = gm_address
    msg["To"] = mail.to_addr
    msg["Subject"] = _header_text(mail.subject)
    msg["Date"] = format_datetime(mail.created_at.astimezone(UTC))  # stable across retries
    msg["Message-ID"] = mail.message_id
    if mail.in_reply_to:
        msg["In-Reply-To"] = mail.in_reply_to
    references = " ".join((mail.references or mail.in_reply_to or "").split())
    if references:
        msg["References"] = references
    # RFC 3834: so that vacation responders and other robots do not answer the GM.
    msg["Auto-Submitted"] = "auto-replied" if mail.in_reply_to and not mail.generated else "auto-generated"
    msg["X-Auto-Response-Suppress"] = "All"  # the same for Microsoft's
    for name, value in mail.headers:
        msg[name] = value
    out = io.BytesIO()
    _WireGenerator(out, mangle_from_=False, policy=_WIRE).flatten(msg)  # as msg.as_bytes(policy=_WIRE)
    return out.getvalue()


def _boundary(*texts: str) -> str:
    """A MIME boundary found in none of `texts`. The email package would search the whole mail
    for the one it picks, maps and all (milliseconds a mail); base64 never holds '-' or '_', and
    quoted-printable writes '=' as '=3D', so only the text as written can hold it."""
    while True:
        boundary = "=_" + secrets.token_hex(16)
        if not any(boundary in text for text in texts):
            return boundary


def _multipart(subtype: str, parts: list[Message], boundary: str, **params: str) -> MIMEMultipart:
    msg = MIMEMultipart(subtype, boundary, **params)
    for part in parts:
        msg.attach(part)
    return msg


def _content_id(attachment: Any) -> str:
    """The Content-ID an HTML body refers to the attachment by ('' for none), angle brackets off."""
    return str(attachment.get("content_id") or "").strip("<>") if isinstance(attachment, dict) else ""


class _WirePolicy(email.policy.Compat32):
    """compat32 with CRLF line ends, writing a short ASCII header as it is: compat32 puts every
    header through email.header.Header, which costs more than the rest of the mail."""

    def fold_binary(self, name: str, value: Any) -> bytes:
        if isinstance(value, str) and value.isascii() and len(name) + len(value) < 77 and value.isprintable():
            return f"{name}: {value}{self.linesep}".encode("ascii")
        return super().fold_binary(name, value)


_WIRE = _WirePolicy(linesep="\r\n")


class _WireGenerator(BytesGenerator):
    """BytesGenerator writing a payload with plain LF line ends in one piece: the same bytes, but
    not a write call for each of a map's thousands of base64 lines."""

    def _write_lines(self, lines: str) -> None:
        if "\r" in lines:
            super()._write_lines(lines)  # type: ignore[misc]
        else:
            self.write(lines.replace("\n", self._NL))  # type: ignore[attr-defined]
_UTF8_QP = Charset("utf-8")
_UTF8_QP.body_encoding = QP  # readable in any mail program's source view, unlike base64


def _text_part(body: str) -> MIMEText:
    # Plain ASCII in short lines goes as it is (7bit); anything else as quoted-printable UTF-8.
    if body.isascii() and all(len(line) <= 990 for line in body.splitlines()):
        return MIMEText(body, "plain", "us-ascii")
    return MIMEText(body, "plain", _UTF8_QP)  # type: ignore[arg-type]  # a Charset is accepted


def _html_part(body: str) -> MIMEText:
    return MIMEText(body, "html", _UTF8_QP)  # type: ignore[arg-type]  # a Charset is accepted


def _header_text(value: str) -> str | Header:
    value = " ".join(value.split())  # no line breaks: a header must stay one header
    return value if value.isascii() else Header(value, "utf-8")


def _attachment_part(i: int, attachment: Any, *, inline: bool = False) -> MIMEBase:
    try:
        filename = str(attachment["filename"])
        maintype, _, subtype = str(attachment.get("content_type") or "application/octet-stream").partition("/")
        encoded = _encoded(attachment["data"])
    except (KeyError, TypeError, AttributeError, binascii.Error) as e:
        raise BadOutgoing(f"attachment {i}: {type(e).__name__}: {e}") from e
    part = MIMEBase(maintype or "application", subtype or "octet-stream")
    part.set_payload(encoded)
    part["Content-Transfer-Encoding"] = "base64"
    # RFC 2231 for a name that is not ASCII
    name: str | tuple[str, str, str] = filename if filename.isascii() else ("utf-8", "", filename)
    if inline:  # shown where the HTML says <img src="cid:...">
        content_id = _content_id(attachment)
        if not _CONTENT_ID.fullmatch(content_id):
            raise BadOutgoing(f"attachment {i}: {content_id!r} is not a Content-ID")
        part["Content-ID"] = f"<{content_id}>"
    part.add_header("Content-Disposition", "inline" if inline else "attachment", filename=name)
    return part


_CONTENT_ID = re.compile(r"[!-;=?-~]+@[!-;=?-~]+")  # printable ASCII without spaces or angle brackets


@functools.lru_cache(maxsize=64)
def _encoded(data: str) -> str:
    """An attachment's base64 (as stored: one line) checked and encoded for the mail (lines of 76),
    as email.encoders.encode_base64 does it. Kept for the next mails: a results mail's ten readers
    share its maps, the very same string (the sender's drawn maps), so the look-up is cheap."""
    part = MIMEBase("application", "octet-stream")
    part.set_payload(base64.b64decode(data, validate=True))
    encoders.encode_base64(part)
    return str(part.get_payload())


class OutboxSender:
    """Sends due outbox rows through one SMTP server; `run()` until cancelled.

    One loop takes due rows from the database into a queue (at most `batch` waiting); `connections`
    workers each keep an SMTP connection open while there is mail to send (closing it after
    `idle_seconds` without) and send from the queue. A mail refused with a 5xx reply is given up
    for good; anything else (a 4xx, a refused connection, a timeout) is tried again later."""

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
        idle_seconds: float = 5.0,
        timeout: float = 60.0,
        ssl_context: ssl.SSLContext | None = None,
        oauth2: OAuth2 | None = None,
        limits: Limits = Limits(),
        slow_backoff: Backoff = SLOW_BACKOFF,
        dkim: DkimKey | None = None,
        links: MailLinks | None = None,
    ) -> None:
        self.server = server
        # The mails' own links: their return paths (gm.mail.outgoing.undelivered), List-Unsubscribe (list_headers).
        self.links = links
        self.session_factory = session_factory
        self.gm_address = gm_address
        self.wakeup = wakeup if wakeup is not None else asyncio.Event()
        self.poll_seconds = poll_seconds
        self.backoff = backoff
        self.lease = timedelta(seconds=lease_seconds)
        self.batch = batch
        self.connections = connections
        self.idle_seconds = idle_seconds
        self.timeout = timeout
        self.ssl_context = ssl_context
        self.tokens = AccessTokens(oauth2) if oauth2 is not None else None  # OAuth2 sign-in (server.oauth2)
        self.limits = limits  # the provider's, for the mailbox (pacing)
        self.dkim = dkim  # the judge's DKIM key: every mail signed with it (signing)
        self.slow_backoff = slow_backoff
        self._slowed = 0  # "slow down" answers in a row
        self._paused_until = 0.0  # time.monotonic(): no sending before (the server asked to slow down)
        self._warned_no_auth = False
        self._more_due = False  # the last look found more due mail than the queue had room for
        # The maps drawn last (gm.mail.outgoing.mail_maps.draw_attachments), kept for the rows that name them
        # too: every reader of a results mail, every address of an acknowledgement with a MAP; and
        # the database's, which every channel shares (gm.maps.store). Only _claim uses it, one call
        # at a time.
        self.drawn_maps = DrawnMaps()
        self.drawn_maps.store = MapStore(session_factory)

    async def run(self) -> None:
        """Send due mail until cancelled."""
        queue: asyncio.Queue[Outgoing] = asyncio.Queue()
        # Rows in the queue or being sent (id -> attempts when taken): not to be queued twice.
        taken: dict[int, int] = {}
        marks = _SentMarks(self._mark_sent, self.wakeup.set)
        workers = [asyncio.create_task(self._worker(queue, taken, marks)) for _ in range(self.connections)]
        try:
            while True:
                self.wakeup.clear()  # before looking: a signal meanwhile means look again
                wait = self.poll_seconds
                paused = self._paused_until - time.monotonic()
                if paused > 0:  # the server asked to slow down: nothing taken meanwhile
                    await asyncio.sleep(paused)
                    continue
                try:
                    room = self.batch - queue.qsize()
                    mails, next_due = await asyncio.to_thread(self._claim, max(room, 0), dict(taken))
                except asyncio.CancelledError:
                    raise
                except Exception:  # e.g. the database is away: log, and try again later
                    log.exception("outbox: could not read the due mail")
                else:
                    for mail in mails:
                        taken[mail.id] = mail.attempts
                        queue.put_nowait(mail)
                    if mails:
                        log.debug("outbox: %d mail to send", len(mails))
                    # Due mail that did not fit is taken when the queue has room (a worker wakes us).
                    self._more_due = len(mails) >= room
                    if next_due is not None and not self._more_due:
                        wait = min(wait, (next_due - datetime.now(UTC)).total_seconds())
                    wait = max(wait, 0.01)  # never spin on a row that someone else holds
                try:
                    async with asyncio.timeout(wait):  # not wait_for, which may swallow a cancellation
                        await self.wakeup.wait()
                except TimeoutError:
                    pass
        finally:
            for worker in workers:
                worker.cancel()
            await asyncio.gather(*workers, return_exceptions=True)
            await marks.drain()

    # --- SMTP ----------------------------------------------------------------------------------

    async def _worker(self, queue: asyncio.Queue[Outgoing], taken: dict[int, int], marks: _SentMarks) -> None:
        """Send mail from the queue over one connection, opened when needed, closed when idle."""
        client: aiosmtplib.SMTP | None = None
        try:
            while True:
                try:
                    async with asyncio.timeout(None if client is None else self.idle_seconds):
                        mail = await queue.get()
                except TimeoutError:  # nothing to send for a while: let the connection go
                    await self._close(client)
                    client = None
                    continue
                try:
                    while (paused := self._paused_until - time.monotonic()) > 0:
                        await asyncio.sleep(paused)
                    client = await self._send_one(client, mail)
                except asyncio.CancelledError:
                    raise
                except Exception as e:
                    if client is not None and not client.is_connected:
                        client = None
                    if slow_down(e):
                        self._slow(e)
                    await self._failed(mail, e)
                else:
                    self._slowed = 0
                    marks.add(mail.id, datetime.now(UTC), wake=mail.kind in _ACKS)  # what waited for it
                    log.info("mail out #%d: %s: sent", mail.id, mail.about)
                finally:
                    taken.pop(mail.id, None)
                    if self._more_due and queue.qsize() < self.batch // 2:
                        self._more_due = False
                        self.wakeup.set()  # room in the queue for the due mail left behind
        finally:
            if client is not None:
                await self._close(client)

    async def _send_one(self, client: aiosmtplib.SMTP | None, mail: Outgoing) -> aiosmtplib.SMTP:
        """Send one mail over `client` (connecting first if need be); returns the connection. A
        connection kept open may have been closed by the server meanwhile: then once more, anew."""
        message = build_message(mail, self.gm_address)
        if self.dkim is not None:  # signed by the GM address's domain (a millisecond or two with RSA)
            message = sign(message, self.dkim)
        sender = (undelivered.return_path(self.gm_address, mail.id, self.links.key)
                  if self.links is not None and self.links.tagged_return_path else self.gm_address)
        if client is not None and client.is_connected:
            try:
                await client.sendmail(sender, [mail.to_addr], message)
                return client
            except aiosmtplib.SMTPServerDisconnected:
                client.close()
        client = await self._connect()
        await client.sendmail(sender, [mail.to_addr], message)
        return client

    async def _connect(self) -> aiosmtplib.SMTP:
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
        await client.connect()
        try:
            await self._login(client)
        except BaseException:
            client.close()
            raise
        return client

    async def _close(self, client: aiosmtplib.SMTP | None) -> None:
        if client is None or not client.is_connected:
            return
        try:
            async with asyncio.timeout(5):
                await client.quit()
        except (OSError, TimeoutError, aiosmtplib.SMTPException):
            client.close()

    async def _login(self, client: aiosmtplib.SMTP) -> None:
        """Log in where the server offers AUTH (after STARTTLS, if any). A server that offers none,
        such as a local relay, gets the mail without: the login (by default the IMAP one) is kept
        for servers that want it, and one that wants it refuses the mail, which is logged."""
        s = self.server
        if s.user is None or (s.password is None and not s.oauth2):
            return
        if client.is_ehlo_or_helo_needed:  # not yet said on a connection without STARTTLS
            await client.ehlo()
        if client.supports_extension("auth"):
            if s.oauth2:
                await self._oauth2(client, s.user)
            else:
                await client.login(s.user, s.password)
        elif not self._warned_no_auth:
            log.info("SMTP %s offers no AUTH: sending without logging in", s)
            self._warned_no_auth = True

    async def _oauth2(self, client: aiosmtplib.SMTP, user: str) -> None:
        """AUTH with the current access token, by OAUTHBEARER where the server offers it, else
        XOAUTH2 (sasl); once more with a new token if it is refused (a provider may end a token
        before its time)."""
        if self.tokens is None:
            raise aiosmtplib.SMTPAuthenticationError(454, "OAuth2 sign-in is set but no grant was given to the sender")
        mechanism = sasl.mechanism(set(client.server_auth_methods))
        for attempt in (1, 2):
            try:
                token = await self.tokens.current()
            except SignInError as e:  # said once in the log by the tokens; the mail waits its turn
                raise aiosmtplib.SMTPAuthenticationError(454, str(e)) from None
            first = sasl.initial_response(mechanism, user, token, self.server.host, self.server.port)
            response = await client.execute_command(b"AUTH", mechanism.encode(), first.encode())
            if response.code == 334:  # the reason of a refusal, as a challenge: answered, for the 535
                response = await client.execute_command(sasl.ERROR_ANSWER[mechanism])
            if response.code == 235:
                return
            self.tokens.refused()
            if attempt == 2:
                raise aiosmtplib.SMTPAuthenticationError(response.code, response.message)

    def _slow(self, error: BaseException) -> None:
        """The server asked to slow down: no mail from this sender for a while, longer each time
        it asks again before one is taken. Said once a pause."""
        if time.monotonic() < self._paused_until:
            return  # another connection's answer to the same request
        self._slowed += 1
        delay = self.slow_backoff.delay(self._slowed)
        self._paused_until = time.monotonic() + delay
        log.warning("the SMTP server %s asks the judge to slow down (%s): no mail sent for %.0f s", self.server,
                    _describe(error), delay)

    async def _failed(self, mail: Outgoing, error: BaseException) -> None:
        permanent = _permanent(error)
        if permanent:
            log.error("mail out #%d: %s: refused for good, not tried again: %s", mail.id, mail.about, _describe(error))
        else:
            log.warning("mail out #%d: %s: not sent, tried again later: %s", mail.id, mail.about, _describe(error))
        try:
            await asyncio.to_thread(self._mark_failed, mail.id, _describe(error), permanent,
                                    _refused_recipient(error) if permanent else None)
        except Exception:  # the row stays leased, and is tried again when the lease runs out
            log.exception("could not record the failure of outbox %d", mail.id)
        self.wakeup.set()  # for the claiming loop to see when the retry falls due

    # --- the database (each in a worker thread, each its own short transaction) ----------------

    def _claim(self, limit: int, held: dict[int, int]) -> tuple[list[Outgoing], datetime | None]:
        """Up to `limit` due rows (acknowledgements first: see _FIRST) (none of `held`, the rows this sender holds already, whose
        lease is renewed), and the rest of the last results mail's readers; leased to this sender;
        and when the next row not taken falls due (None: no row waits)."""
        exclude = frozenset(held)
        now = datetime.now(UTC)
        waiting = (OutboundMail.sent_at.is_(None), OutboundMail.gave_up_at.is_(None))
        with transaction(self.session_factory) as session:
            if held:
                # Rows still queued here or being sent keep their lease: another server sharing
                # the database must not take them while they wait their turn. Not a row whose
                # attempt has just failed (its attempts went up): it keeps its back-off. Locked in
                # the order of their ids first, as _mark_sent takes them: the two never deadlock.
                session.execute(select(OutboundMail.id).where(OutboundMail.id.in_(sorted(held)))
                                .order_by(OutboundMail.id).with_for_update())
                session.execute(
                    update(OutboundMail)
                    .where(tuple_(OutboundMail.id, OutboundMail.attempts).in_(sorted(held.items())), *waiting)
                    .values(next_attempt_at=now + self.lease)
                    .execution_options(synchronize_session=False)
                )
            allowed, free_at, strangers = room(session, self.limits, now)  # the provider's limits (None: none)
            if allowed is not None:
                limit = min(limit, allowed)
            # Results that will be late under the limits: their GMs told first (the notice goes
            # with the acknowledgements, before anything this round takes).
            told = tell_late(session, self.limits, now, _FIRST, waiting, self.gm_address) if self.limits else 0
            if told:
                session.flush()
            rows = []
            # Mail to unproven addresses within its share of the limits (pacing.UNPROVEN_SHARE), or none.
            strangers_done = strangers == 0
            if limit > 0:
                rows = list(session.scalars(
                    select(OutboundMail)
                    .where(*waiting, OutboundMail.next_attempt_at <= now, OutboundMail.id.not_in(exclude), _AFTER_ACKS,
                           *((~OutboundMail.unproven,) if strangers_done else ()))
                    .order_by(_FIRST, OutboundMail.next_attempt_at, OutboundMail.id)
                    .limit(limit)
                    .with_for_update(skip_locked=True)  # PostgreSQL; SQLite locks the whole database anyway
                ).all())
                if strangers is not None and sum(row.unproven for row in rows) >= strangers:
                    kept = set([row.id for row in rows if row.unproven][:strangers])
                    rows = [row for row in rows if not row.unproven or row.id in kept]
                    strangers_done = True
            if allowed is None and rows and len(rows) == limit and rows[-1].game_id is not None and rows[-1].attachments:
                # The rest of the last mail's readers too: a sender draws a mail's maps once for
                # the readers it takes, and another sender taking the rest would draw them again.
                last = rows[-1]
                rows += session.scalars(
                    select(OutboundMail)
                    .where(*waiting, OutboundMail.next_attempt_at <= now,
                           OutboundMail.id.not_in(exclude | {r.id for r in rows}), OutboundMail.game_id == last.game_id,
                           OutboundMail.kind == last.kind, OutboundMail.created_at == last.created_at, _AFTER_ACKS)
                    .order_by(OutboundMail.id)
                    .with_for_update(skip_locked=True)
                ).all()
            for row in rows:
                row.next_attempt_at = now + self.lease  # if this process dies, the row is retried then
                row.claimed_at = now  # counted against the provider's limits from now (pacing)
            about = mail_log.describe(session, rows)
            listed = list_headers(session, rows, self.gm_address, self.links)
            plans: dict[str, Any] = {}  # a results mail's readers name the same maps: read once
            mails = [replace(Outgoing.of(row, session, self.drawn_maps, draw=False, plans=plans), about=about[row.id],
                             headers=listed.get(row.id, ())) for row in rows]
            due: datetime | None = session.scalar(
                select(func.min(OutboundMail.next_attempt_at)).where(
                    *waiting, OutboundMail.id.not_in(exclude | {m.id for m in mails}), _AFTER_ACKS,
                    *((~OutboundMail.unproven,) if strangers_done else ())  # theirs: at the next claim
                )
            )
        if due is not None and due.tzinfo is None:  # an aggregate's result skips the column type
            due = due.replace(tzinfo=UTC)
        if due is not None and free_at is not None:  # nothing more may go before a slot frees
            due = max(due, free_at)
        # The maps are drawn now, the database free: drawing inside the claim would hold an SQLite
        # database (and with it the intake of mail) for as long as the pictures take.
        return [mail.drawn(self.drawn_maps) for mail in mails], due

    def _mark_sent(self, sent: list[tuple[int, datetime]]) -> None:
        """Mark rows sent, in the order of their ids (as every sender does, and as a claim renews
        its leases, so that two never wait for each other's rows), and again should PostgreSQL
        still end the marking as a deadlock's victim: a mark lost sends a mail twice."""
        values = [{"row_id": row_id, "accepted_at": at} for row_id, at in sorted(sent)]
        for attempt in range(MARK_ATTEMPTS):
            try:
                with transaction(self.session_factory) as session:
                    session.connection().execute(_MARK_SENT, values)
                return
            except DBAPIError as e:
                if getattr(e.orig, "sqlstate", None) != DEADLOCK or attempt + 1 == MARK_ATTEMPTS:
                    raise
                log.info("marking %d outbox rows sent met a deadlock: again", len(values))

    def _mark_failed(self, mail_id: int, error: str, permanent: bool,
                     refused: tuple[str | None, str] | None = None) -> None:
        now = datetime.now(UTC)
        with transaction(self.session_factory) as session:
            row = session.get_one(OutboundMail, mail_id)
            row.attempts += 1
            row.last_error = error[:2000]
            if permanent:
                row.gave_up_at = now
                if refused is not None:  # the recipient refused for good: as a bounce would say
                    status, words = refused
                    undelivered.record(session, self.gm_address, row.to_addr, outbox_id=row.id, inbound_id=None,
                                       permanent=True, status=status, words=words, form="smtp")
            else:
                row.next_attempt_at = now + timedelta(seconds=self.backoff.delay(row.attempts))


MARK_ATTEMPTS = 3
DEADLOCK = "40P01"  # PostgreSQL's SQLSTATE for a transaction ended to break a deadlock

_MARK_SENT = (
    update(OutboundMail.__table__)
    .where(OutboundMail.__table__.c.id == bindparam("row_id"))
    .values(attempts=OutboundMail.__table__.c.attempts + 1, sent_at=bindparam("accepted_at"))
)


def _permanent(error: BaseException) -> bool:
    """Whether the mail itself was refused for good: a 5xx reply to its recipient or its content,
    or a row that cannot be made into a mail. A refused connection, login or sender address is
    the server's or the judge's setting, to be put right: the mail is tried again meanwhile."""
    if isinstance(error, BadOutgoing):
        return True
    if isinstance(error, aiosmtplib.SMTPRecipientsRefused):
        return bool(error.recipients) and all(500 <= r.code < 600 for r in error.recipients)
    if isinstance(error, (aiosmtplib.SMTPRecipientRefused, aiosmtplib.SMTPDataError)):
        return 500 <= error.code < 600
    return False


def _refused_recipient(error: BaseException) -> tuple[str | None, str] | None:
    """(RFC 3463 status, the server's words) of a recipient refused for good, or None for any other failure."""
    refusals = error.recipients if isinstance(error, aiosmtplib.SMTPRecipientsRefused) else [error]
    for refusal in refusals:
        if isinstance(refusal, aiosmtplib.SMTPRecipientRefused) and 500 <= refusal.code < 600:
            words = " ".join(f"{refusal.code} {refusal.message}".split())
            status = re.match(r"\d{3}[ -]([245]\.\d{1,3}\.\d{1,3})\b", words)
            return (status.group(1) if status else None), words
    return None


class _SentMarks:
    """Marks rows sent, in as few transactions as keep up: while one is written, the rows
    accepted meanwhile gather for the next. A mark lost to a crash or a database error means one
    more send of the same mail, with the same Message-ID, when the row's lease runs out."""

    def __init__(self, write: Callable[[list[tuple[int, datetime]]], None],
                 written: Callable[[], None] = lambda: None) -> None:
        self.write = write
        self.written = written  # called once a mark added with `wake` is written
        self.pending: list[tuple[int, datetime]] = []
        self.wake = False
        self.writing: asyncio.Task[None] | None = None

    def add(self, row_id: int, accepted_at: datetime, *, wake: bool = False) -> None:
        self.pending.append((row_id, accepted_at))
        self.wake = self.wake or wake
        if self.writing is None or self.writing.done():
            self.writing = asyncio.ensure_future(self._write_all())

    async def _write_all(self) -> None:
        while self.pending:
            (rows, self.pending), (wake, self.wake) = (self.pending, []), (self.wake, False)
            try:
                await asyncio.to_thread(self.write, rows)
            except Exception:
                log.exception("could not mark %d outbox rows sent; they will be sent again", len(rows))
            if wake:
                self.written()

    async def drain(self) -> None:
        """Wait until every row added so far is written (or given up)."""
        while self.writing is not None and not self.writing.done():
            await asyncio.shield(self.writing)


def _describe(error: BaseException) -> str:
    text = str(error)
    return f"{type(error).__name__}: {text}" if text else type(error).__name__
