"""`gm mail check`: the mail settings tried as the judge uses them, before a game depends on them.

It logs in to IMAP as the inbox watcher does (TLS as set, a password or an OAuth2 token, the mailbox
selected) and to SMTP as the outbox does, says what each server offers (IDLE, the ways to log in,
TLS) and how long each step took, then mails the judge's own address and reads the mail back: the
round trip a player's mail and its answer make. Each problem is one line saying what to do about
it: a port that expects the other TLS mode, a login refused, a provider that rewrites From, a
mailbox that another program marks read (the judge reads only unread mail). The test mail is
marked read and deleted after.
"""
from __future__ import annotations

import asyncio
import re
import secrets
import ssl
import time
from collections.abc import Callable
from email.message import EmailMessage
from email.utils import formatdate, parseaddr
from typing import Any

import aiosmtplib

from gm.mail.inbox import ImapError, signed_in
from gm.mail.oauth2 import sasl
from gm.mail.oauth2.providers import OAuth2
from gm.mail.oauth2.providers import from_settings as oauth2_settings
from gm.mail.oauth2.tokens import SignInError
from gm.mail.outgoing.outbox import signed_in as smtp_signed_in
from gm.settings import MailServer, Settings

ROUND_TRIP_SECONDS = 60.0  # for the test mail to come back
MARKED_READ_SECONDS = 3.0  # after it came: does another program mark it read?
TLS_PORTS = {993: "ssl", 465: "ssl", 143: "starttls", 587: "starttls", 25: "starttls"}


class Check:
    """What one run found: lines said as it goes, problems kept for the end."""

    def __init__(self, say: Callable[[str], None]) -> None:
        self.say = say
        self.problems: list[str] = []

    def ok(self, text: str) -> None:
        self.say(f"ok       {text}")

    def problem(self, text: str) -> None:
        self.say(f"PROBLEM  {text}")
        self.problems.append(text)


async def check(settings: Settings, say: Callable[[str], None] = print, *, send: bool = True,
                timeout: float = 15.0, wait: float = ROUND_TRIP_SECONDS) -> list[str]:
    """Try the settings' mail servers; the problems found (none: the mail settings work)."""
    found = Check(say)
    if settings.embedded:
        found.problem("no IMAP host is set: gm serve runs its own mail servers, on this machine only; set "
                      "[imap] host and [smtp] host for a real mailbox (docs/mail-account.md)")
        return found.problems
    try:
        oauth2 = oauth2_settings(settings)
    except ValueError as e:
        found.problem(f"OAuth2: {e}")
        return found.problems
    imap, smtp = settings.imap_server(), settings.smtp_server()
    session = await _imap(found, imap, oauth2, timeout)
    client = await _smtp(found, smtp, oauth2, timeout)
    try:
        if send and session is not None and client is not None:
            await _round_trip(found, settings.gm_address, session, client, wait)
    finally:
        if session is not None:
            session.close()
        if client is not None:
            client.close()
    return found.problems


def _took(started: float) -> str:
    return f"{(time.monotonic() - started) * 1000:.0f} ms"


def _tls_hint(server: MailServer, what: str) -> str:
    """What to set when the TLS mode does not fit the port, or ''."""
    usual = TLS_PORTS.get(server.port)
    if usual is not None and usual != server.tls and not (usual == "starttls" and server.tls == "none"):
        return f": port {server.port} usually wants tls = \"{usual}\" (set [{what}] tls, or the port)"
    if server.tls == "ssl":
        return f": the server does not speak TLS from the first byte here; try [{what}] tls = \"starttls\""
    return f": try [{what}] tls = \"ssl\" if this port expects TLS from the first byte"


async def _imap(found: Check, server: MailServer, oauth2: OAuth2 | None, timeout: float) -> Any:
    where = f"IMAP {server.host}:{server.port} ({server.tls})"
    started = time.monotonic()
    try:
        session, selected = await signed_in(server, oauth2=oauth2 if server.oauth2 else None, timeout=timeout)
    except ssl.SSLError as e:
        found.problem(f"{where}: TLS failed ({e.reason or e}){_tls_hint(server, 'imap')}")
    except (TimeoutError, asyncio.TimeoutError):
        found.problem(f"{where}: no answer in {timeout:.0f} s{_tls_hint(server, 'imap')}")
    except SignInError as e:
        found.problem(f"{where}: {e}")
    except ImapError as e:
        found.problem(f"{where}: {_imap_refusal(str(e), server)}")
    except OSError as e:
        found.problem(f"{where}: cannot connect ({e.strerror or type(e).__name__}): check [imap] host and port")
    else:
        capabilities = set(session.client.protocol.capabilities)
        ways = sorted(c.removeprefix("AUTH=") for c in capabilities if c.startswith("AUTH="))
        count = next((int(m.group(1)) for line in selected.lines if isinstance(line, bytes)
                      and (m := re.match(rb"(\d+) EXISTS", line))), None)
        found.ok(f"{where}: logged in as {server.user} by {session.mechanism} in "
                 f"{_took(started)}; offers {'IDLE' if 'IDLE' in capabilities else 'no IDLE (the judge polls)'}"
                 f"{', log-in by ' + ' '.join(ways) if ways else ''}; INBOX holds {count if count is not None else '?'} mails")
        return session
    return None


def _imap_refusal(error: str, server: MailServer) -> str:
    if "refused" in error and "login" in error:
        if server.oauth2:
            return f"{error}: the provider refused the token: run gm mail authorize again"
        return f"{error}: check [imap] user and password (with two-step login, an app password)"
    if "STARTTLS" in error:
        return f"{error}{_tls_hint(server, 'imap')}"
    return error


async def _smtp(found: Check, server: MailServer, oauth2: OAuth2 | None, timeout: float) -> aiosmtplib.SMTP | None:
    where = f"SMTP {server.host}:{server.port} ({server.tls})"
    started = time.monotonic()
    try:
        client = await smtp_signed_in(server, oauth2=oauth2 if server.oauth2 else None, timeout=timeout)
    except aiosmtplib.SMTPAuthenticationError as e:
        fix = ("run gm mail authorize again" if server.oauth2 else
               "check [smtp] user and password (by default the IMAP ones; with two-step login, an app password)")
        found.problem(f"{where}: login as {server.user} refused ({e.code} {e.message}): {fix}")
    except (ssl.SSLError, aiosmtplib.SMTPConnectError, aiosmtplib.SMTPServerDisconnected,
            aiosmtplib.SMTPConnectTimeoutError, aiosmtplib.SMTPTimeoutError, TimeoutError) as e:
        cause = e.__cause__ or e.__context__
        if isinstance(e, aiosmtplib.SMTPConnectError) and isinstance(cause, ConnectionRefusedError):
            found.problem(f"{where}: cannot connect (connection refused): check [smtp] host and port")
        else:
            found.problem(f"{where}: {type(e).__name__} ({e}){_tls_hint(server, 'smtp')}")
    except aiosmtplib.SMTPException as e:
        found.problem(f"{where}: {type(e).__name__} ({e})")
    except OSError as e:
        found.problem(f"{where}: cannot connect ({e.strerror or type(e).__name__}): check [smtp] host and port")
    else:
        ways = sorted(client.server_auth_methods)
        size = client.esmtp_extensions.get("size")
        how = sasl.mechanism(set(ways)) if server.oauth2 else "password"
        logged = (f"logged in as {server.user} by {how}" if ways and server.user
                  else "no log-in (the server offers none)" if not ways else "no log-in set")
        found.ok(f"{where}: {logged} in {_took(started)}; offers "
                 f"{'log-in by ' + ' '.join(w.upper() for w in ways) if ways else 'no AUTH'}"
                 f"{', mails up to ' + str(int(size) // 1_000_000) + ' MB' if size and size.isdigit() and int(size) else ''}")
        return client
    return None


async def _round_trip(found: Check, address: str, session: Any, client: aiosmtplib.SMTP, wait: float) -> None:
    token = secrets.token_hex(6)
    msg = EmailMessage()
    msg["From"] = msg["To"] = address
    msg["Subject"] = f"gm mail check {token}"
    msg["Date"] = formatdate(localtime=False)
    message_id = f"<gm-check-{token}@{address.partition('@')[2] or 'localhost'}>"
    msg["Message-ID"] = message_id
    msg.set_content("gm mail check: a test of the judge's own mail; it deletes it once read back.\n")
    started = time.monotonic()
    try:
        await client.send_message(msg)
    except aiosmtplib.SMTPException as e:
        found.problem(f"SMTP would not send from {address} to itself ({e}): the login may not send as the GM's "
                      "address (GM_ADDRESS), or the server refuses it")
        return
    sent = time.monotonic()
    imap = session.client
    uid = None
    while uid is None and time.monotonic() - sent < wait:
        response = await imap.uid_search("HEADER", "Message-ID", message_id, charset=None)
        found_uids = [int(u) for line in response.lines if isinstance(line, bytes) for u in line.split() if u.isdigit()]
        uid = found_uids[-1] if found_uids else None
        if uid is None:
            await asyncio.sleep(0.5)
    if uid is None:
        found.problem(f"the test mail sent to {address} did not arrive in {wait:.0f} s: is GM_ADDRESS "
                      "the address of the mailbox the judge reads?")
        return
    found.ok(f"a mail from {address} to itself was sent in {(sent - started) * 1000:.0f} ms and read back "
             f"{time.monotonic() - sent:.1f} s after")
    head = await _head(imap, uid)
    sender = parseaddr(_header(head, "From"))[1]
    if sender.lower() != address.lower():
        found.problem(f"the provider rewrote From: {address} arrived as {sender or 'nothing'}: players would answer "
                      "another address; send through a server that keeps From (or make GM_ADDRESS that address)")
    await asyncio.sleep(MARKED_READ_SECONDS)
    if "\\Seen" in await _flags(imap, uid):
        found.problem("the test mail was marked read before the judge read it: another program (a phone, a mail "
                      "program, or a gm serve running now) reads this mailbox, and the judge reads only unread "
                      "mail: give the judge a mailbox of its own (or stop gm serve while checking)")
    await imap.uid("store", str(uid), "+FLAGS.SILENT", r"(\Seen \Deleted)")
    if "UIDPLUS" in imap.protocol.capabilities:
        await imap.uid("expunge", str(uid))


async def _head(imap: Any, uid: int) -> bytes:
    response = await imap.uid("fetch", str(uid), "(BODY.PEEK[HEADER])")
    return b"".join(bytes(line) for line in response.lines if isinstance(line, bytearray))


def _header(head: bytes, name: str) -> str:
    found = re.search(rb"(?im)^" + name.encode() + rb":[ \t]*(.*(?:\r?\n[ \t].*)*)", head)
    return found.group(1).decode(errors="replace").strip() if found else ""


async def _flags(imap: Any, uid: int) -> str:
    response = await imap.uid("fetch", str(uid), "(FLAGS)")
    return " ".join(line.decode(errors="replace") for line in response.lines if isinstance(line, bytes))
