"""Mail servers of gm's own, for a new user with none: IMAP (pymap) and SMTP (aiosmtpd) on loopback.

Everything runs in the caller's asyncio loop, so `gm serve` is one process with nothing else to
install. pymap keeps the mailboxes as Maildirs under DATA_DIR/mail, so mail survives a restart;
it has no SMTP or LMTP of its own, so the SMTP server delivers each mail by IMAP APPEND, logged
in as the recipient. Mail to the GM address goes to the GM's mailbox; mail to any other address
goes to a mailbox of that address (made on first delivery), so a demo can log in as a player and
read the GM's replies. Mail to the GM's mailbox gets an Authentication-Results header (RFC 8601)
on top, its SPF, DKIM and DMARC verdict (see _Delivery.verdict), which the judge trusts as it would
a real receiving server's. Every mailbox has the same password: DATA_DIR/mail/password, made at
random on first start (or the one given). The SMTP server takes mail for the GM address from
anyone, as a real MX does (a player's mail program, or `swaks --to GM --server 127.0.0.1:PORT`);
mail for any other address only after AUTH with any mailbox and that password (so it relays for
gm's own outbox and no one else). Both listen on loopback only; GM_IMAP_PORT and GM_SMTP_PORT
fix their ports.

Why in-process and not `pymap` as a subprocess: pymap is an asyncio library, it starts in a few
tenths of a second in the same loop, its Maildir work runs in its own worker threads, and there
is no child process to find, wait for or leave behind. Its IMAP server is started the way
`pymap.main` starts it, but on a socket we bind, so that port 0 (any free port) works.
"""
from __future__ import annotations

import argparse
import asyncio
import contextvars
import functools
import hmac
import logging
import mailbox
import os
import re
import secrets
import tempfile
import warnings
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aioimaplib
import authheaders
from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword, Session
from proxyprotocol.reader import ProxyProtocolReader
from pymap.backend.maildir import Config as MaildirConfig
from pymap.backend.maildir import Login as MaildirLogin
from pymap.backend.maildir import MaildirBackend
from pymap.imap import IMAPServer, IMAPService
from pysasl.hashing import BuiltinHash

import gm.mail.intake.dns  # noqa: F401 - authheaders reads the public suffix list once (see there)
from gm.settings import EMBEDDED_AUTHSERV_ID, MailServer

log = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"
PASSWD_FILE = "pymap-etc-passwd"
SHADOW_FILE = "pymap-etc-shadow"
PASSWORD_FILE = "password"
# Addresses that make a safe user name and folder name (no ':', '/', spaces or quotes).
_ADDRESS = re.compile(r"^[a-z0-9._+-]+@[a-z0-9.-]+$")
# pbkdf2 is what pymap checks; a cleartext entry makes its maildir backend fail. Few rounds:
# the password guards loopback mailboxes of a demo, and every delivery logs in once.
_HASH = BuiltinHash(rounds=10_000)


class MailboxNameError(ValueError):
    """An address the embedded server makes no mailbox for."""


class PortUnavailable(RuntimeError):
    """An embedded server cannot listen on the port it was given (in use, or not allowed)."""

    def __init__(self, server: str, port: int, reason: str) -> None:
        setting = f"GM_{server}_PORT (or [{server.lower()}] port)"
        super().__init__(
            f"the embedded {server} server cannot listen on {LOOPBACK}:{port}: {reason}: stop what uses that port, "
            f"or set {setting} to another, or leave it unset for any free port"
        )
        self.server, self.port = server, port


async def _listen(server: str, port: int, start: Callable[[], Awaitable[asyncio.Server]]) -> asyncio.Server:
    try:
        return await start()
    except OSError as e:  # EADDRINUSE above all: say which port and which setting moves it
        raise PortUnavailable(server, port, os.strerror(e.errno) if e.errno else str(e)) from e


@dataclass(frozen=True)
class EmbeddedMail:
    """The running embedded servers: where the inbox watcher and the outbox sender connect."""

    imap: MailServer  # the GM's mailbox
    smtp: MailServer  # submission, with the GM's login
    password: str  # of every mailbox

    def mailbox(self, address: str) -> MailServer:
        """The IMAP account of the mailbox of `address` (a player's, in a demo)."""
        return MailServer(self.imap.host, self.imap.port, "none", mailbox_name(address), self.password)


def mailbox_name(address: str) -> str:
    """The user (and folder) name of an address's mailbox: the address, lower-cased."""
    name = address.strip().strip("<>").lower()
    if not _ADDRESS.match(name) or ".." in name:
        raise MailboxNameError(f"no mailbox for {address!r}")
    return name


@asynccontextmanager
async def embedded_mail(
    data_dir: Path,
    gm_address: str,
    *,
    imap_port: int = 0,
    smtp_port: int = 0,
    password: str | None = None,
    authserv_id: str = EMBEDDED_AUTHSERV_ID,
) -> AsyncIterator[EmbeddedMail]:
    """Start the embedded IMAP and SMTP servers (port 0: any free port) and stop them on exit; the
    SMTP server writes its Authentication-Results on the GM's mail as `authserv_id`."""
    base = Path(data_dir) / "mail"
    base.mkdir(parents=True, exist_ok=True)
    password = password or _stored_password(base)
    users = _Users(base, _HASH.hash(password))
    gm_user = mailbox_name(gm_address)
    await users.ensure(gm_user)
    users.rehash()  # the password may have changed since the mailboxes were made
    async with AsyncExitStack() as stack:
        imap = await _start_imap(stack, base, imap_port)
        delivery = _Delivery(users, imap, password, gm_address, authserv_id)
        smtp = await _start_smtp(stack, delivery, users, password, smtp_port)
        log.debug("embedded mail: IMAP on %s:%d, SMTP on %s:%d, mailboxes in %s", LOOPBACK, imap, LOOPBACK, smtp, base)
        yield EmbeddedMail(
            imap=MailServer(LOOPBACK, imap, "none", gm_user, password),
            smtp=MailServer(LOOPBACK, smtp, "none", gm_user, password),
            password=password,
        )


def _stored_password(base: Path) -> str:
    path = base / PASSWORD_FILE
    try:
        stored = path.read_text().strip()
    except FileNotFoundError:
        stored = ""
    if stored:
        return stored
    new = secrets.token_urlsafe(18)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write(new + "\n")
    return new


# --- the mailboxes: pymap's passwd and shadow files ----------------------------------------------


class _Users:
    """The mailbox users in pymap's passwd/shadow files, which pymap reads at every login; the
    files are replaced whole (write, then rename), so pymap never reads half a file."""

    def __init__(self, base: Path, password_hash: str) -> None:
        self.base = base
        self.password_hash = password_hash
        self.lock = asyncio.Lock()

    def names(self) -> set[str]:
        try:
            lines = (self.base / PASSWD_FILE).read_text().splitlines()
        except FileNotFoundError:
            return set()
        return {line.split(":", 1)[0] for line in lines if line.strip()}

    async def ensure(self, name: str) -> None:
        """Make a mailbox user `name`, and its Maildir, unless there are."""
        async with self.lock:
            # pymap makes a Maildir at its first login; two first logins at once (the poller's
            # and a delivery's) race to make it and one fails. So it is made here, before either.
            if not (self.base / name).exists():
                mailbox.Maildir(str(self.base / name), create=True)
            names = self.names()
            if name in names:
                return
            self._write(names | {name})

    def rehash(self) -> None:
        self._write(self.names())

    def _write(self, names: set[str]) -> None:
        ordered = sorted(names)
        # Fields of passwd(5): name, password, uid, gid, comment, home (the Maildir folder), shell.
        _replace(self.base / PASSWD_FILE, "".join(f"{n}:x::::{n}:\n" for n in ordered))
        _replace(self.base / SHADOW_FILE, "".join(f"{n}:{self.password_hash}:::::::\n" for n in ordered), 0o600)


def _replace(path: Path, text: str, mode: int = 0o644) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


# --- IMAP: pymap ---------------------------------------------------------------------------------


async def _start_imap(stack: AsyncExitStack, base: Path, port: int) -> int:
    """pymap's maildir backend and IMAP server on loopback; returns the port."""
    # pymap keeps its concurrency settings in context variables: set them in a context of its
    # own, which the server's connection callbacks inherit, so the caller's context stays as it was.
    context = contextvars.copy_context()
    task = asyncio.get_running_loop().create_task(_start_pymap(stack, base, port), context=context)
    return await task


async def _start_pymap(stack: AsyncExitStack, base: Path, port: int) -> int:
    parser = argparse.ArgumentParser(add_help=False)  # the arguments `pymap` itself would parse
    parser.add_argument("--debug", action="store_true")
    parser.set_defaults(passlib_cfg=None, skip_services=[])
    MaildirBackend.add_subparser("maildir", parser.add_subparsers(dest="backend"))
    IMAPService.add_arguments(parser)
    args = parser.parse_args(["--no-tls", "--host", LOOPBACK, "--port", str(port), "maildir", str(base)])
    config = MaildirConfig.from_args(args, hash_context=_HASH)
    backend = MaildirBackend(MaildirLogin(config), config)
    config.apply_context()
    await backend.start(stack)

    connections: set[asyncio.StreamWriter] = set()
    pymap_callback = ProxyProtocolReader(config.proxy_protocol).get_callback(IMAPServer(backend.login, config))

    async def serve_one(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        connections.add(writer)
        try:
            await pymap_callback(reader, writer)
        finally:
            connections.discard(writer)

    server = await _listen("IMAP", port, lambda: asyncio.start_server(serve_one, host=LOOPBACK, port=port))

    async def stop() -> None:
        server.close()
        for writer in list(connections):  # so that each connection's task ends with the server
            writer.close()
        for _ in range(100):
            if not connections:
                break
            await asyncio.sleep(0.01)
        await server.wait_closed()

    stack.push_async_callback(stop)
    return int(server.sockets[0].getsockname()[1])


# --- SMTP: aiosmtpd, delivering by IMAP APPEND ---------------------------------------------------


VERDICT_SECONDS = 15.0  # the longest a mail's SPF, DKIM and DMARC verdict may hold its delivery
DNS_DOWN_SECONDS = 60.0  # after a verdict that failed or was slow, none is tried for this long
SLOW_VERDICT_SECONDS = 5.0  # a verdict slower than this: DNS does not answer (a look-up waits 3 s)


class _Delivery:
    """aiosmtpd handler: accepts mail for any sensible address and appends it to that mailbox."""

    def __init__(self, users: _Users, imap_port: int, password: str, gm_address: str, authserv_id: str) -> None:
        self.users = users
        self.imap_port = imap_port
        self.password = password
        self.gm_mailbox = mailbox_name(gm_address)
        self.authserv_id = authserv_id
        self.no_verdict_until = 0.0  # loop time: DNS failed lately, a verdict would only hold the mail

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, rcpt_options: list[str]
    ) -> str:
        try:
            mailbox = mailbox_name(address)
        except MailboxNameError:
            return "550 5.1.3 this server makes no mailbox for such an address"
        if mailbox != self.gm_mailbox and not session.authenticated:
            return "530 5.7.0 log in (AUTH) to send to any address but the GM's"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        content = envelope.original_content or b""
        if isinstance(content, str):  # only with decode_data=True, which we do not use
            content = content.encode()
        # The verdict is for the judge only: players' mailboxes (a demo's) get the mail as it came.
        # It is of the mail as it came, too (a signature may cover a forged header dropped below).
        to_gm = [rcpt for rcpt in envelope.rcpt_tos if mailbox_name(rcpt) == self.gm_mailbox]
        gm_content = content
        if to_gm:
            gm_content = await self.verdict(session, envelope, content) + drop_results(content, self.authserv_id)
        try:
            for rcpt in envelope.rcpt_tos:
                await self.deliver(envelope.mail_from or "", rcpt, gm_content if rcpt in to_gm else content)
        except (OSError, TimeoutError, aioimaplib.AioImapException, RuntimeError) as e:
            log.warning("embedded delivery failed: %s", e)
            return "451 4.3.0 delivery failed, try again later"
        return "250 2.0.0 delivered"

    async def verdict(self, session: Session, envelope: Envelope, content: bytes) -> bytes:
        """The Authentication-Results header line(s) of a mail to the GM: SPF of the connecting
        address, DKIM and DMARC, by authheaders. DNS look-ups block, so in a worker thread, for
        VERDICT_SECONDS at most; a verdict that fails or takes longer is `none`, and the mail is
        delivered all the same. After one that failed or was slow, the mails of the next
        DNS_DOWN_SECONDS get `none` at once: a DNS that does not answer must not slow every delivery."""
        check = functools.partial(
            authheaders.authenticate_message,
            content,
            self.authserv_id,
            spf=True,
            dkim=True,
            dmarc=True,
            ip=session.peer[0] if isinstance(session.peer, tuple) else LOOPBACK,
            mail_from=envelope.mail_from or "",
            helo=session.host_name or "",
        )
        loop = asyncio.get_running_loop()
        header = f"Authentication-Results: {self.authserv_id}; none"
        if loop.time() < self.no_verdict_until:
            return header.encode() + b"\r\n"
        started = loop.time()
        try:
            header = await asyncio.wait_for(asyncio.to_thread(check), VERDICT_SECONDS)
            if loop.time() - started > SLOW_VERDICT_SECONDS:  # DNS answers slowly: spare the next mails
                log.warning("embedded delivery: a verdict took %.0f s: none for %.0f s", loop.time() - started,
                            DNS_DOWN_SECONDS)
                self.no_verdict_until = loop.time() + DNS_DOWN_SECONDS
        except Exception as e:  # noqa: BLE001 - whatever goes wrong in three libraries, the mail goes in
            log.warning("embedded delivery: no SPF/DKIM/DMARC verdict (%s: %s): writing none for %.0f s",
                        type(e).__name__, e, DNS_DOWN_SECONDS)
            self.no_verdict_until = loop.time() + DNS_DOWN_SECONDS
        # authheaders writes one line; should it fold one, with "\n": the mail is stored with CRLF throughout.
        return "\r\n".join(header.splitlines()).encode("utf-8", "replace") + b"\r\n"

    async def deliver(self, sender: str, rcpt: str, content: bytes) -> None:
        user = mailbox_name(rcpt)
        await self.users.ensure(user)
        # What an LMTP delivery would add, so that the mail reads the same as from a real server.
        head = f"Return-Path: <{sender}>\r\nDelivered-To: {user}\r\n".encode()
        client = aioimaplib.IMAP4(host=LOOPBACK, port=self.imap_port, timeout=10)
        try:
            await client.wait_hello_from_server()
            response = await client.login(user, self.password)
            if response.result != "OK":
                raise RuntimeError(f"login as {user} refused: {response.lines}")
            response = await client.append(head + content, mailbox="INBOX")
            if response.result != "OK":
                raise RuntimeError(f"APPEND for {user} refused: {response.lines}")
            await client.logout()
        finally:
            if client.protocol.transport is not None:
                client.protocol.transport.close()


# An Authentication-Results field, unfolded or not, up to its authserv-id (RFC 8601 section 2.2:
# after comments, maybe in quotes).
_RESULTS = re.compile(rb'authentication-results[ \t]*:\s*(?:\([^)]*\)\s*)*"?([^\s;()"]+)', re.IGNORECASE)


def drop_results(raw: bytes, authserv_id: str) -> bytes:
    """The mail without the Authentication-Results fields in its header that claim `authserv_id`:
    only this server writes those, so any that came with the mail are forged (RFC 8601 section 5).
    The rest of the mail is left byte for byte as it was."""
    lines = raw.splitlines(keepends=True)
    fields: list[list[bytes]] = []  # the header's fields, each its lines; then the body, whole
    for i, line in enumerate(lines):
        if line in (b"\r\n", b"\n"):  # the end of the header
            fields.append(lines[i:])
            break
        if line[:1] in (b" ", b"\t") and fields:  # a folded field goes on
            fields[-1].append(line)
        else:
            fields.append([line])
    wanted = authserv_id.lower().encode()
    kept = [f for f in fields if not ((m := _RESULTS.match(b"".join(f))) and m.group(1).lower() == wanted)]
    return b"".join(b"".join(f) for f in kept)


class _AiosmtpdNoise(logging.Filter):
    """Drops two warnings aiosmtpd logs for every connection or login: that AUTH is required
    without TLS (knowingly, on loopback) and that it sets its own deprecated `login_data`."""

    NOISE = (
        "auth_required == True but auth_require_tls == False",
        "Session.login_data is deprecated and will be removed in version 2.0",
    )

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() not in self.NOISE


_aiosmtpd_log = logging.getLogger("mail.log")
if not any(isinstance(f, _AiosmtpdNoise) for f in _aiosmtpd_log.filters):
    _aiosmtpd_log.addFilter(_AiosmtpdNoise())


DATA_SIZE_LIMIT = 32 * 1024 * 1024


class _SMTP(SMTP):
    """aiosmtpd's server, taking lines of any length up to the size of a whole mail: aiosmtpd
    refuses a line over RFC 5321's 1,000 octets, where real servers take it (Postfix folds long
    lines and refuses none), and mail programs do send one line of base64 or HTML that long."""

    line_length_limit = DATA_SIZE_LIMIT


async def _start_smtp(stack: AsyncExitStack, handler: _Delivery, users: _Users, password: str, port: int) -> int:
    """aiosmtpd on loopback, in this loop; returns the port."""

    def authenticate(server: SMTP, session: Session, envelope: Envelope, mechanism: str, data: Any) -> AuthResult:
        if isinstance(data, LoginPassword):
            login = data.login.decode("utf-8", "replace").lower()
            if hmac.compare_digest(data.password, password.encode()) and login in users.names():
                return AuthResult(success=True)
        # handled=False lets aiosmtpd answer 535; handled=True would leave the client waiting.
        return AuthResult(success=False, handled=False)

    protocols: weakref.WeakSet[SMTP] = weakref.WeakSet()

    def factory() -> SMTP:
        with warnings.catch_warnings():  # "AUTH without TLS": on loopback only, knowingly
            warnings.filterwarnings("ignore", "Requiring AUTH while not requiring TLS", UserWarning)
            protocol = _SMTP(
                handler,
                hostname="localhost",
                authenticator=authenticate,
                auth_required=False,  # mail to the GM from anyone; to others after AUTH (see _Delivery)
                auth_require_tls=False,
                data_size_limit=DATA_SIZE_LIMIT,
            )
        protocols.add(protocol)
        return protocol

    loop = asyncio.get_running_loop()
    server = await _listen("SMTP", port, lambda: loop.create_server(factory, host=LOOPBACK, port=port))

    async def stop() -> None:
        server.close()
        for protocol in list(protocols):
            if protocol.transport is not None:
                protocol.transport.close()  # ends the session's task
        await server.wait_closed()
        await asyncio.sleep(0)

    stack.push_async_callback(stop)
    return int(server.sockets[0].getsockname()[1])
