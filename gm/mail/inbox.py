"""The inbox watcher: takes each unseen mail from an IMAP mailbox to an ingest function, exactly once.

Protocol only; what a mail means is the ingest function's business. For each UNSEEN mail the
watcher fetches the raw bytes without setting \\Seen (BODY.PEEK[]), calls `ingest` in a worker
thread, and only after it returns sets \\Seen. A crash between ingest's commit and the flag leaves
the mail unseen: it is fetched again, and ingest, which knows it by Message-ID and IMAP UID,
reports it as a duplicate. Between rounds the watcher waits in IMAP IDLE where the server offers
it (and still searches every `poll_seconds`, as a safety net), else it polls. A lost connection
is re-made with capped exponential back-off; a mail whose ingest raises stays unseen and is
retried later, also with back-off, while the other mail goes on.
"""
from __future__ import annotations

import asyncio
import logging
import re
import ssl
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

import aioimaplib

from gm.mail.ingest import IngestOutcome
from gm.settings import MailServer

log = logging.getLogger(__name__)

T = TypeVar("T")

IDLE_RENEW_SECONDS = 25 * 60  # RFC 2177: servers may drop an IDLE after 30 minutes
_UIDVALIDITY = re.compile(rb"\[UIDVALIDITY (\d+)\]", re.IGNORECASE)


_SIZE_CHANGE = re.compile(rb"^\*?\s*(\d+) (EXISTS|EXPUNGE)\s*$", re.IGNORECASE)


class _Protocol(aioimaplib.IMAP4ClientProtocol):  # type: ignore[misc]
    """aioimaplib's protocol, but telling of every untagged EXISTS and EXPUNGE. A server announces
    new mail in the response to whatever command comes next (RFC 3501 7.3.1), and aioimaplib
    drops what comes with a command other than IDLE or NOOP: a mail that arrives while the
    watcher is busy would then wait for the next poll."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        conn_lost_cb: Callable[[Exception | None], None] | None,
        on_size_change: Callable[[str, int], None],
    ) -> None:
        super().__init__(loop, conn_lost_cb)
        self.on_size_change = on_size_change

    def _untagged_response(self, line: bytes) -> Any:
        match = _SIZE_CHANGE.match(line)
        if match:
            self.on_size_change(match.group(2).decode().upper(), int(match.group(1)))
        return super()._untagged_response(line)


class _Client(aioimaplib.IMAP4):  # type: ignore[misc]
    """aioimaplib's client on _Protocol."""

    def __init__(self, *, on_size_change: Callable[[str, int], None], **kwargs: Any) -> None:
        self._on_size_change = on_size_change
        super().__init__(**kwargs)

    def create_client(
        self,
        host: str,
        port: int,
        loop: asyncio.AbstractEventLoop | None,
        conn_lost_cb: Callable[[Exception | None], None] | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        local_loop = loop if loop is not None else asyncio.get_running_loop()
        self.protocol = _Protocol(local_loop, conn_lost_cb, self._on_size_change)
        self._client_task = local_loop.create_task(
            local_loop.create_connection(lambda: self.protocol, host, port, ssl=ssl_context)
        )


class Ingest(Protocol):
    """What the watcher calls for each mail: gm.mail.ingest.ingest with its other arguments bound."""

    def __call__(self, raw: bytes, *, uidvalidity: int, uid: int) -> IngestOutcome: ...


class ImapError(Exception):
    """The server refused something or the connection broke: the watcher reconnects."""


@dataclass(frozen=True)
class Backoff:
    """Delays of `base`, 2*base, 4*base, ... seconds, never more than `cap`."""

    base: float
    cap: float

    def delay(self, failures: int) -> float:
        return float(min(self.cap, self.base * 2 ** max(0, failures - 1)))


RECONNECT_BACKOFF = Backoff(1.0, 60.0)  # after a lost connection: 1 s, 2 s, 4 s, ... then every minute
RETRY_BACKOFF = Backoff(5.0, 600.0)  # after ingest raised for a mail: 5 s, 10 s, ... then every 10 minutes


class InboxWatcher:
    """Watches one IMAP mailbox and hands each unseen mail to `ingest`; `run()` until cancelled."""

    def __init__(
        self,
        server: MailServer,
        ingest: Ingest,
        *,
        outbox_wakeup: asyncio.Event | None = None,
        poll_seconds: float = 60.0,
        use_idle: bool = True,
        mailbox: str = "INBOX",
        timeout: float = 30.0,
        reconnect: Backoff = RECONNECT_BACKOFF,
        retry: Backoff = RETRY_BACKOFF,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        self.server = server
        self.ingest = ingest
        self.outbox_wakeup = outbox_wakeup
        self.poll_seconds = poll_seconds
        self.use_idle = use_idle
        self.mailbox = mailbox
        self.timeout = timeout
        self.reconnect = reconnect
        self.retry = retry
        self.ssl_context = ssl_context
        # Mail whose ingest raised: (uidvalidity, uid) -> (failures so far, not before this monotonic time).
        self._failed: dict[tuple[int, int], tuple[int, float]] = {}
        # What the watcher is doing, for logs and health checks: 'connecting', 'working', 'idle'
        # (in IMAP IDLE), 'polling' (between two polls) or 'reconnecting' (waiting to).
        self.state = "connecting"

    # --- the outer loop: connect, watch, reconnect ------------------------------------------

    async def run(self) -> None:
        """Watch the mailbox until cancelled, reconnecting after any failure."""
        failures = 0
        while True:
            session = _Session(self)
            started = time.monotonic()
            try:
                await session.run()
            except asyncio.CancelledError:
                raise
            except (OSError, TimeoutError, ImapError, aioimaplib.AioImapException) as e:
                why = f"{type(e).__name__}: {e}" if str(e) else type(e).__name__
                log.warning("IMAP %s: %s", self.server, why)
            except Exception:  # a bug here must not stop the service: log it and start again
                log.exception("IMAP watcher failed on %s", self.server)
            finally:
                session.close()
            # Back off further unless the connection had worked for a while (a server that
            # drops every session at once is not tried more often than one that refuses them).
            lasted = session.ready and time.monotonic() - started >= self.reconnect.cap
            failures = 1 if lasted else failures + 1
            delay = self.reconnect.delay(failures)
            log.info("reconnecting to %s in %.1f s", self.server, delay)
            self.state = "reconnecting"
            await asyncio.sleep(delay)
            self.state = "connecting"

    # --- what to do with failed mail ----------------------------------------------------------

    def _due(self, key: tuple[int, int], now: float) -> bool:
        failed = self._failed.get(key)
        return failed is None or failed[1] <= now

    def _next_retry_in(self, uidvalidity: int, now: float) -> float | None:
        waits = [at - now for (validity, _), (_, at) in self._failed.items() if validity == uidvalidity]
        return max(0.0, min(waits)) if waits else None

    def _failed_once(self, key: tuple[int, int]) -> float:
        failures = self._failed.get(key, (0, 0.0))[0] + 1
        delay = self.retry.delay(failures)
        self._failed[key] = (failures, time.monotonic() + delay)
        return delay


class _Session:
    """One connection: login, SELECT, then rounds of search-ingest-flag and waiting."""

    def __init__(self, watcher: InboxWatcher) -> None:
        self.w = watcher
        self.client: aioimaplib.IMAP4 | None = None
        self.lost = asyncio.Event()
        self.ready = False  # logged in and mailbox selected
        self.exists: int | None = None  # messages in the mailbox, as the server last said
        self.announced = False  # the server told of new mail since the last UID SEARCH

    async def run(self) -> None:
        w = self.w
        client = self.client = await self._connect()
        if w.server.user is None or w.server.password is None:
            raise ImapError("no IMAP user or password configured")
        response = await self._command(client.login(w.server.user, w.server.password))
        if response.result != "OK":
            raise ImapError(f"login as {w.server.user!r} refused: {_text(response)}")
        response = await self._command(client.select(w.mailbox))
        if response.result != "OK":
            raise ImapError(f"SELECT {w.mailbox} refused: {_text(response)}")
        uidvalidity = _uidvalidity(response)
        # Failed mail of another UIDVALIDITY are other mail now (or gone): forget them.
        w._failed = {key: value for key, value in w._failed.items() if key[0] == uidvalidity}
        idle = w.use_idle and client.has_capability("IDLE")
        log.info("watching %s %s (UIDVALIDITY %d, %s)", w.server, w.mailbox, uidvalidity, "IDLE" if idle else "polling")
        self.ready = True
        while True:
            w.state = "working"
            self.announced = False
            await self._take_unseen(client, uidvalidity)
            if self.announced:  # mail came in meanwhile: look again before waiting
                continue
            wait = w.poll_seconds
            retry_in = w._next_retry_in(uidvalidity, time.monotonic())
            if retry_in is not None:
                wait = min(wait, retry_in)
            if idle:
                await self._idle(client, min(wait, IDLE_RENEW_SECONDS))
            else:
                w.state = "polling"
                await self._sleep(wait)

    async def _connect(self) -> aioimaplib.IMAP4:
        s = self.w.server
        context = (self.w.ssl_context or ssl.create_default_context()) if s.tls != "none" else None
        client = _Client(
            host=s.host,
            port=s.port,
            timeout=self.w.timeout,
            conn_lost_cb=self._connection_lost,
            ssl_context=context if s.tls == "ssl" else None,
            on_size_change=self._size_changed,
        )
        self.client = client
        await client.wait_hello_from_server()
        if s.tls == "starttls" and context is not None:
            await self._starttls(client, context)
        return client

    async def _starttls(self, client: aioimaplib.IMAP4, context: ssl.SSLContext) -> None:
        """STARTTLS, which aioimaplib lacks: the command, the TLS handshake on the same
        transport, then CAPABILITY again (RFC 3501 6.2.1: what was said before TLS is void)."""
        protocol = client.protocol
        if "STARTTLS" not in protocol.capabilities:
            raise ImapError("the server does not offer STARTTLS")
        command = aioimaplib.Command("STARTTLS", protocol.new_tag(), loop=protocol.loop)
        response = await self._command(protocol.execute(command))
        if response.result != "OK":
            raise ImapError(f"STARTTLS refused: {_text(response)}")
        loop = asyncio.get_running_loop()
        transport = await asyncio.wait_for(
            loop.start_tls(protocol.transport, protocol, context, server_hostname=self.w.server.host),
            self.w.timeout,
        )
        if transport is None:
            raise ImapError("TLS handshake failed")
        protocol.transport = transport
        await self._command(protocol.capability())

    def _connection_lost(self, exc: Exception | None) -> None:
        self.lost.set()

    def _size_changed(self, kind: str, number: int) -> None:
        """Count the mailbox's messages; more than before means new mail."""
        if kind == "EXPUNGE":
            if self.exists is not None:
                self.exists -= 1
            return
        if self.exists is not None and number > self.exists:
            self.announced = True
        self.exists = number

    def close(self) -> None:
        """Drop the connection, and aioimaplib's tasks waiting on it (an unfinished IDLE)."""
        if self.client is None:
            return
        for task in [*self.client.tasks, *self.client.protocol.tasks]:
            task.cancel()
        if self.client.protocol.transport is not None:
            self.client.protocol.transport.close()

    async def _command(self, awaitable: Awaitable[T]) -> T:
        """One IMAP command, bounded by the timeout; a connection lost before it is an error."""
        if self.lost.is_set():
            raise ImapError("connection lost")
        return await asyncio.wait_for(awaitable, self.w.timeout)

    # --- one round ---------------------------------------------------------------------------

    async def _take_unseen(self, client: aioimaplib.IMAP4, uidvalidity: int) -> None:
        response = await self._command(client.uid_search("UNSEEN", charset=None))
        if response.result != "OK":
            raise ImapError(f"UID SEARCH UNSEEN refused: {_text(response)}")
        uids = sorted(int(n) for n in bytes(response.lines[0]).split() if n.isdigit()) if response.lines else []
        # Forget failures of mail that is no longer unseen (flagged or deleted by someone else).
        unseen = set(uids)
        self.w._failed = {key: value for key, value in self.w._failed.items() if key[1] in unseen}
        now = time.monotonic()
        for uid in uids:
            if self.w._due((uidvalidity, uid), now):
                await self._take(client, uidvalidity, uid)

    async def _take(self, client: aioimaplib.IMAP4, uidvalidity: int, uid: int) -> None:
        w = self.w
        if self.lost.is_set():
            raise ImapError("connection lost")
        response = await client.uid("fetch", str(uid), "BODY.PEEK[]")
        if response.result != "OK":
            raise ImapError(f"UID FETCH {uid} refused: {_text(response)}")
        raw = next((bytes(line) for line in response.lines if isinstance(line, bytearray)), None)
        if raw is None:  # expunged meanwhile
            return
        key = (uidvalidity, uid)
        try:
            # In a worker thread: ingest uses the (blocking) database. If this task is cancelled
            # meanwhile, ingest still finishes in its thread, and the mail stays unseen.
            outcome = await asyncio.to_thread(w.ingest, raw, uidvalidity=uidvalidity, uid=uid)
        except Exception:
            delay = w._failed_once(key)
            log.exception(
                "ingest failed for UID %d (UIDVALIDITY %d); left unseen, retried in %.1f s", uid, uidvalidity, delay
            )
            return
        w._failed.pop(key, None)
        log.info("UID %d: %s, %d repl%s", uid, outcome.outcome, outcome.replies, "y" if outcome.replies == 1 else "ies")
        if outcome.replies and w.outbox_wakeup is not None:
            w.outbox_wakeup.set()
        response = await self._command(client.uid("store", str(uid), "+FLAGS.SILENT", r"(\Seen)"))
        if response.result != "OK":
            raise ImapError(f"UID STORE {uid} +FLAGS (\\Seen) refused: {_text(response)}")

    # --- waiting -----------------------------------------------------------------------------

    async def _idle(self, client: aioimaplib.IMAP4, timeout: float) -> None:
        """IDLE until the server reports a change, the connection drops, or `timeout` passes."""
        if timeout <= 0:
            return
        # aioimaplib's own IDLE timer is not used (we end IDLE ourselves): give it a longer one.
        idle = await self._command(client.idle_start(timeout=timeout + self.w.timeout))
        self.w.state = "idle"
        push = asyncio.ensure_future(client.wait_server_push(timeout + self.w.timeout))
        lost = asyncio.ensure_future(self.lost.wait())
        try:
            if not self.announced:  # else new mail was announced just before the IDLE began
                await asyncio.wait({push, lost, idle}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (push, lost):
                task.cancel()
        if self.lost.is_set():
            idle.cancel()
            raise ImapError("connection lost")
        if not idle.done():  # else the server ended the IDLE itself
            client.idle_done()
        response = await self._command(idle)
        if response.result != "OK":
            raise ImapError(f"IDLE ended with {response.result}: {_text(response)}")

    async def _sleep(self, seconds: float) -> None:
        """Wait between two polls; wakes early if the connection drops."""
        try:
            await asyncio.wait_for(self.lost.wait(), seconds)
        except TimeoutError:
            return
        raise ImapError("connection lost")


def _uidvalidity(response: aioimaplib.Response) -> int:
    for line in response.lines:
        if isinstance(line, (bytes, bytearray)):
            match = _UIDVALIDITY.search(bytes(line))
            if match:
                return int(match.group(1))
    raise ImapError("the server gave no UIDVALIDITY on SELECT")


def _text(response: aioimaplib.Response) -> str:
    return b" ".join(bytes(line) for line in response.lines if isinstance(line, (bytes, bytearray))).decode(
        "utf-8", "replace"
    )
