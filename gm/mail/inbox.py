"""The inbox watcher: takes each unseen mail from an IMAP mailbox to an ingest function, exactly once.

Protocol only; what a mail means is the ingest function's business. The watcher asks for the
UNSEEN mail and their sizes, fetches them in batches without setting \\Seen (BODY.PEEK[]; only the
header of a mail over the size limit, which is refused unread), hands each batch to `ingest` in a
worker thread, and only after it returns sets \\Seen on the batch's mail, in one command. A crash
between ingest's commit and the flag leaves the mail unseen: it is fetched again, and ingest,
which knows it by its dedup key and IMAP UID, reports it as a duplicate. Between rounds the watcher
waits in IMAP IDLE where the server offers it (and still searches every `poll_seconds`, as a
safety net), else it polls. A lost connection is re-made with capped exponential back-off; a mail
that ingest reports failed stays unseen and is retried later, also with back-off, while the other
mail goes on; ingest is told how often it failed, and records it as failed in the end.

Players first: given `registered` (which addresses are a player's or a GM's now), the watcher
reads each unseen mail's From line with its size, and takes one small batch a round: the mail of
registered addresses if there is any (PLAYERS_BATCH), else the others' (STRANGERS_BATCH), each
address's mail in turn with the others' (one mail of each sender, then the second of each, ...).
Of the others, the addresses the judge mailed a confirmation code to (`awaiting`: a few dozen an
hour at most, gm.mail.budget) come first: a newcomer's CONFIRM does not wait behind a flood.
Between rounds it searches again, so that a player's mail that arrives behind a flood of
strangers' mail waits for one small batch, not for the flood. A From line proves nothing, so this
decides only what is read first: every mail is read in the end, and nothing else depends on it.
"""
from __future__ import annotations

import asyncio
import logging
import re
import ssl
import time
from collections.abc import Awaitable, Callable
from typing import Any, Protocol, TypeVar

from email.utils import parseaddr

import aioimaplib

from gm.mail.ingest import Fetched, IngestOutcome
from gm.mail.backoff import Backoff
from gm.mail.oauth2 import sasl
from gm.mail.oauth2.providers import OAuth2
from gm.mail.oauth2.tokens import AccessTokens, SignInError
from gm.settings import MailServer

log = logging.getLogger(__name__)

T = TypeVar("T")

IDLE_RENEW_SECONDS = 25 * 60  # RFC 2177: servers may drop an IDLE after 30 minutes
_UIDVALIDITY = re.compile(rb"\[UIDVALIDITY (\d+)\]", re.IGNORECASE)


_SIZE_CHANGE = re.compile(rb"^\*?\s*(\d+) (EXISTS|EXPUNGE)\s*$", re.IGNORECASE)
_FETCH_START = re.compile(rb"^\*?\s*\d+ FETCH \(", re.IGNORECASE)
_FETCH_UID = re.compile(rb"\bUID (\d+)", re.IGNORECASE)
_FETCH_SIZE = re.compile(rb"\bRFC822\.SIZE (\d+)", re.IGNORECASE)

BATCH_MAILS = 100  # mail per ingest call (one transaction), at most
BATCH_BYTES = 10_000_000  # and bytes (a single larger mail goes alone)
# aioimaplib reads a response recursively, one level per line, re-scanning the response so far at
# each line: a FETCH of many mail at once would exceed Python's recursion limit (and take time
# that grows with the square of its size). So no command asks about more mail than this.
FETCH_CHUNK = 50
# Mail taken in one round (one batch) while mail waits: small, so that a player's mail arriving
# meanwhile waits for little.
PLAYERS_BATCH = 25  # of registered addresses
STRANGERS_BATCH = 20  # of the others


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
    """What the watcher calls for each batch of mail: gm.mail.ingest.ingest_batch with its other
    arguments bound. One outcome per mail, in order; a failed one is left unseen and retried."""

    def __call__(self, mails: list[Fetched], *, uidvalidity: int) -> list[IngestOutcome]: ...


class ImapError(Exception):
    """The server refused something or the connection broke: the watcher reconnects."""


WORKED_SECONDS = 10.0  # a session logged in this long was a working connection: no back-off after it
RECONNECT_BACKOFF = Backoff(1.0, 60.0)  # after a lost connection: 1 s, 2 s, 4 s, ... then every minute
RETRY_BACKOFF = Backoff(5.0, 600.0)  # after ingest raised for a mail: 5 s, 10 s, ... then every 10 minutes


class InboxWatcher:
    """Watches one IMAP mailbox and hands each unseen mail to `ingest`; `run()` until cancelled."""

    def __init__(
        self,
        server: MailServer,
        ingest: Ingest,
        *,
        on_replies: Callable[[], None] | None = None,
        poll_seconds: float = 60.0,
        use_idle: bool = True,
        mailbox: str = "INBOX",
        max_size: int = 1_000_000,
        timeout: float = 30.0,
        reconnect: Backoff = RECONNECT_BACKOFF,
        retry: Backoff = RETRY_BACKOFF,
        ssl_context: ssl.SSLContext | None = None,
        registered: Callable[[], set[str]] | None = None,
        awaiting: Callable[[], set[str]] | None = None,
        oauth2: OAuth2 | None = None,
        on_grant_refused: Callable[[str], None] | None = None,
    ) -> None:
        self.server = server
        # OAuth2 sign-in (server.oauth2); a refused grant told by `on_grant_refused` (see AccessTokens)
        self.tokens = AccessTokens(oauth2, on_grant_refused) if oauth2 is not None else None
        self.ingest = ingest
        self.on_replies = on_replies  # called when ingest queued replies: wakes the outbox
        self.poll_seconds = poll_seconds
        self.use_idle = use_idle
        self.mailbox = mailbox
        self.max_size = max_size  # a mail over this is fetched as its header only
        self.timeout = timeout
        self.reconnect = reconnect
        self.retry = retry
        self.ssl_context = ssl_context
        # Mail whose ingest raised: (uidvalidity, uid) -> (failures so far, not before this monotonic time).
        self._failed: dict[tuple[int, int], tuple[int, float]] = {}
        # The addresses of players and GMs now (see the module's docstring); None: mail in UID order.
        self.registered = registered
        # The addresses a confirmation code was mailed to and not yet used: read before other strangers.
        self.awaiting = awaiting
        # What is known of each unseen mail: (uidvalidity, uid) -> (size, sender as its From line says).
        self._known: dict[tuple[int, int], tuple[int, str]] = {}
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
            # drops every session at once is not tried more often than one that refuses them);
            # one that ends IDLE early (Gmail, Exchange) or a NAT box that cuts quiet connections
            # after half a minute is reconnected to at once.
            lasted = session.ready and time.monotonic() - started >= WORKED_SECONDS
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


async def signed_in(server: MailServer, *, oauth2: OAuth2 | None = None, timeout: float = 30.0,
                    mailbox: str = "INBOX") -> tuple[_Session, Any]:
    """A connection made as the inbox watcher makes it (TLS, login, SELECT) and the SELECT's
    response, for `gm mail check`; raises ImapError, OSError or TimeoutError as the watcher meets
    them. close() the session after."""
    watcher = InboxWatcher(server, _reads_nothing, timeout=timeout, mailbox=mailbox, oauth2=oauth2)
    session = _Session(watcher)
    try:
        return session, await session.open()
    except BaseException:
        session.close()
        raise


def _reads_nothing(*args: Any, **kwargs: Any) -> list[IngestOutcome]:
    return []


def _answer_sasl_errors(client: aioimaplib.IMAP4, answer: bytes) -> None:
    """A server that refuses an XOAUTH2 or OAUTHBEARER token first sends its reason as a challenge
    ('+ <base64 JSON>', RFC 7628 §3.2.2) and says NO only once the client answers it; aioimaplib
    never answers, and would wait out its timeout. Answered here with the mechanism's `answer`
    (gm.mail.oauth2.sasl.ERROR_ANSWER)."""
    protocol = client.protocol
    passed_on = protocol._continuation

    def continuation(line: bytes) -> None:
        command = protocol.pending_sync_command
        if command is not None and command.name == "AUTHENTICATE" and protocol.transport is not None:
            protocol.transport.write(answer + b"\r\n")
        else:
            passed_on(line)

    protocol._continuation = continuation  # type: ignore[method-assign]


class _Session:
    """One connection: login, SELECT, then rounds of search-ingest-flag and waiting."""

    def __init__(self, watcher: InboxWatcher) -> None:
        self.w = watcher
        self.client: aioimaplib.IMAP4 | None = None
        self.lost = asyncio.Event()
        self.ready = False  # logged in and mailbox selected
        self.mechanism = "password"  # how it logged in: the password, or an OAuth2 SASL mechanism
        self.exists: int | None = None  # messages in the mailbox, as the server last said
        self.announced = False  # the server told of new mail since the last UID SEARCH

    async def open(self) -> Any:
        """Connect (TLS as set), log in (password or OAuth2) and SELECT the mailbox; the SELECT's
        response. What `gm mail check` tries too (signed_in())."""
        w = self.w
        client = self.client = await self._connect()
        if w.server.user is None or (w.server.password is None and not w.server.oauth2):
            raise ImapError("no IMAP user or password configured")
        if w.server.oauth2:
            response = await self._oauth2(client, w.server.user)
        else:
            response = await self._command(client.login(w.server.user, w.server.password))
        if response.result != "OK":
            raise ImapError(f"login as {w.server.user!r} refused: {_text(response)}")
        response = await self._command(client.select(w.mailbox))
        if response.result != "OK":
            raise ImapError(f"SELECT {w.mailbox} refused: {_text(response)}")
        return response

    async def run(self) -> None:
        w = self.w
        response = await self.open()
        client = self.client
        assert client is not None
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
        async with asyncio.timeout(self.w.timeout):
            transport = await loop.start_tls(protocol.transport, protocol, context, server_hostname=self.w.server.host)
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

    async def _oauth2(self, client: aioimaplib.IMAP4, user: str) -> Any:
        """AUTHENTICATE with the current access token, by OAUTHBEARER where the server offers it,
        else XOAUTH2 (sasl); once more with a new token if it is refused (a provider may end a
        token before its time)."""
        tokens = self.w.tokens
        if tokens is None:
            raise ImapError("OAuth2 sign-in is set but no grant was given to the inbox watcher")
        protocol = client.protocol
        self.mechanism = sasl.mechanism({c.removeprefix("AUTH=") for c in protocol.capabilities if c.startswith("AUTH=")})
        _answer_sasl_errors(client, sasl.ERROR_ANSWER[self.mechanism])
        for attempt in (1, 2):
            try:
                token = await tokens.current()
            except SignInError as e:
                raise ImapError(str(e)) from None
            first = sasl.initial_response(self.mechanism, user, token, self.w.server.host, self.w.server.port)
            command = aioimaplib.Command("AUTHENTICATE", protocol.new_tag(), self.mechanism, first, loop=protocol.loop)
            response = await self._command(protocol.execute(command, scrub=first))  # the token, encoded: never in a log
            if response.result == "OK":
                protocol.state = aioimaplib.AUTH
                break
            tokens.refused()
        return response

    async def _command(self, awaitable: Awaitable[T]) -> T:
        """One IMAP command, bounded by the timeout; a connection lost before it or while it waits
        for its answer is an error at once (a server restarted mid-command is not waited for)."""
        if self.lost.is_set():
            raise ImapError("connection lost")
        command = asyncio.ensure_future(awaitable)
        lost = asyncio.ensure_future(self.lost.wait())
        try:
            # asyncio.timeout, not wait_for: on Python 3.11 wait_for may swallow a cancellation
            # that comes as the command completes, and the watcher would then not stop when told to.
            async with asyncio.timeout(self.w.timeout):
                await asyncio.wait({command, lost}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            lost.cancel()
            if not command.done():
                command.cancel()
        if not command.done():
            raise ImapError("connection lost")
        return command.result()

    # --- one round ---------------------------------------------------------------------------

    async def _take_unseen(self, client: aioimaplib.IMAP4, uidvalidity: int) -> None:
        response = await self._command(client.uid_search("UNSEEN", charset=None))
        if response.result != "OK":
            raise ImapError(f"UID SEARCH UNSEEN refused: {_text(response)}")
        uids = sorted(int(n) for n in bytes(response.lines[0]).split() if n.isdigit()) if response.lines else []
        # Forget failures of mail that is no longer unseen (flagged or deleted by someone else).
        unseen = set(uids)
        self.w._failed = {key: value for key, value in self.w._failed.items() if key[1] in unseen}
        self.w._known = {key: value for key, value in self.w._known.items() if key[0] == uidvalidity and key[1] in unseen}
        now = time.monotonic()
        due = [uid for uid in uids if self.w._due((uidvalidity, uid), now)]
        if not due:
            return
        known = await self._sizes(client, uidvalidity, due)
        sizes = {uid: size for uid, (size, _) in known.items()}
        order = [uid for uid in due if uid in sizes]
        players, others = await self._players_first(order, known)
        if players is None:  # no backlog, or nobody to put first: in UID order
            batches = _batches(order, sizes, self.w.max_size)
        else:
            # A round is one batch: the players' mail alone, else a small batch of the others', so
            # that a player's mail arriving meanwhile waits for little.
            batches = (_batches(players[:PLAYERS_BATCH], sizes, self.w.max_size)[:1]
                       or _batches(others[:STRANGERS_BATCH], sizes, self.w.max_size)[:1])
            self.announced = True  # more is waiting: search again, without waiting for news
        if not batches or not batches[0]:  # all expunged meanwhile
            return
        # While ingest works on one batch (in a thread), the next is fetched: the IMAP server's
        # work and the round trips overlap the judge's. Commands on the connection stay one at a time.
        mails = await self._fetch_batch(client, uidvalidity, batches[0], sizes)
        for k in range(len(batches)):
            ingesting = asyncio.create_task(self._ingest(mails, uidvalidity))
            try:
                mails = await self._fetch_batch(client, uidvalidity, batches[k + 1], sizes) if k + 1 < len(batches) else []
            finally:
                # Fetched or not, this batch's ingest ends (its thread finishes in any case).
                outcomes = await ingesting
            await self._flag_seen(client, uidvalidity, outcomes)

    async def _players_first(self, uids: list[int], known: dict[int, tuple[int, str]]
                             ) -> tuple[list[int] | None, list[int]]:
        """`uids` as the mail of registered addresses and the others', each in the order to read
        them (see the module's docstring); (None, uids) when there is nothing to order."""
        if self.w.registered is None or len(uids) <= 1:
            return None, uids
        try:
            registered = await asyncio.to_thread(self.w.registered)
            awaiting = await asyncio.to_thread(self.w.awaiting) if self.w.awaiting is not None else set()
        except Exception as e:  # the database is away: ingest will say so; read in UID order
            log.warning("who is registered: %s: %s", type(e).__name__, e)
            return None, uids
        others = [uid for uid in uids if known[uid][1] not in registered]
        return (_in_turn([uid for uid in uids if known[uid][1] in registered], known),
                _in_turn([uid for uid in others if known[uid][1] in awaiting], known)
                + _in_turn([uid for uid in others if known[uid][1] not in awaiting], known))

    async def _sizes(self, client: aioimaplib.IMAP4, uidvalidity: int, uids: list[int]) -> dict[int, tuple[int, str]]:
        """UID -> (size in bytes, sender), for those of `uids` still in the mailbox; the sender
        only when the watcher puts players first (else ''). Each mail is asked about once."""
        item = "(RFC822.SIZE BODY.PEEK[HEADER.FIELDS (FROM)])" if self.w.registered is not None else "(RFC822.SIZE)"
        for chunk in _chunks([uid for uid in uids if (uidvalidity, uid) not in self.w._known], FETCH_CHUNK):
            response = await self._command(client.uid("fetch", _sequence_set(chunk), item))
            if response.result != "OK":
                raise ImapError(f"UID FETCH {item} refused: {_text(response)}")
            for uid, (text, literal) in _responses(response.lines).items():
                size = _FETCH_SIZE.search(text)
                if size:
                    sender = parseaddr((literal or b"").decode("utf-8", "replace").partition(":")[2].strip())[1]
                    self.w._known[(uidvalidity, uid)] = (int(size.group(1)), sender.strip().lower())
        return {uid: self.w._known[(uidvalidity, uid)] for uid in uids if (uidvalidity, uid) in self.w._known}

    async def _fetch_batch(
        self, client: aioimaplib.IMAP4, uidvalidity: int, uids: list[int], sizes: dict[int, int]
    ) -> list[Fetched]:
        """The mail of a batch; of a mail over the size limit only its header, which is enough to
        refuse it (with the size the server gave). Each says how often ingest failed on it."""
        whole = [uid for uid in uids if sizes[uid] <= self.w.max_size]
        fetched = await self._fetch(client, whole, "BODY.PEEK[]")
        fetched.update(await self._fetch(client, [uid for uid in uids if uid not in whole], "BODY.PEEK[HEADER]"))
        failures = {uid: self.w._failed.get((uidvalidity, uid), (0, 0.0))[0] for uid in uids}
        return [Fetched(uid, fetched[uid], sizes[uid], failures[uid]) for uid in uids if uid in fetched]  # else expunged

    async def _ingest(self, mails: list[Fetched], uidvalidity: int) -> list[tuple[Fetched, IngestOutcome]]:
        """Ingest a batch in a worker thread (ingest uses the blocking database). If this task is
        cancelled meanwhile, ingest still finishes in its thread, and the mail stays unseen."""
        if not mails:
            return []
        try:
            outcomes = await asyncio.to_thread(self.w.ingest, mails, uidvalidity=uidvalidity)
        except Exception as e:  # the ingest function's own failure: as if each mail had failed
            log.exception("ingest failed for %d mail", len(mails))
            outcomes = [IngestOutcome(None, "failed", 0, e) for _ in mails]
        return list(zip(mails, outcomes, strict=True))

    async def _flag_seen(
        self, client: aioimaplib.IMAP4, uidvalidity: int, outcomes: list[tuple[Fetched, IngestOutcome]]
    ) -> None:
        """\\Seen on what ingest recorded (or knew already); what failed is left for a retry."""
        if not outcomes:
            return
        w = self.w
        done = []
        for mail, outcome in outcomes:
            assert mail.uid is not None
            key = (uidvalidity, mail.uid)
            if outcome.failed:
                delay = w._failed_once(key)
                log.warning("UID %d (UIDVALIDITY %d) left unseen, retried in %.1f s: %s",
                            mail.uid, uidvalidity, delay, outcome.outcome)
                continue
            w._failed.pop(key, None)
            done.append(mail.uid)
            log.debug("UID %d: %s, %d repl%s", mail.uid, outcome.outcome, outcome.replies,
                      "y" if outcome.replies == 1 else "ies")
        results = [outcome for _, outcome in outcomes]
        log.debug("UID %s: %d mail, %d new, %d failed, %d replies",
                  _sequence_set([m.uid for m, _ in outcomes if m.uid is not None]), len(results),
                  sum(o.inbound_id is not None for o in results), sum(o.failed for o in results),
                  sum(o.replies for o in results))
        if w.on_replies is not None and any(o.replies for o in results):
            w.on_replies()
        if done:
            response = await self._command(client.uid("store", _sequence_set(done), "+FLAGS.SILENT", r"(\Seen)"))
            if response.result != "OK":
                raise ImapError(f"UID STORE +FLAGS (\\Seen) refused: {_text(response)}")

    async def _fetch(self, client: aioimaplib.IMAP4, uids: list[int], item: str) -> dict[int, bytes]:
        """UID -> the bytes of `item` (BODY.PEEK[] or BODY.PEEK[HEADER]) of each of `uids`."""
        fetched: dict[int, bytes] = {}
        for chunk in _chunks(uids, FETCH_CHUNK):
            response = await self._command(client.uid("fetch", _sequence_set(chunk), item))
            if response.result != "OK":
                raise ImapError(f"UID FETCH {item} refused: {_text(response)}")
            fetched.update(_fetched(response.lines))
        return fetched

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
            async with asyncio.timeout(seconds):
                await self.lost.wait()
        except TimeoutError:
            return
        raise ImapError("connection lost")


def _batches(uids: list[int], sizes: dict[int, int], max_size: int) -> list[list[int]]:
    """`uids` in order, cut into batches of at most BATCH_MAILS mail and BATCH_BYTES bytes."""
    batches: list[list[int]] = []
    current: list[int] = []
    total = 0
    for uid in uids:
        size = sizes[uid] if sizes[uid] <= max_size else 0  # only the header is fetched
        if current and (len(current) == BATCH_MAILS or total + size > BATCH_BYTES):
            batches.append(current)
            current, total = [], 0
        current.append(uid)
        total += size
    if current:
        batches.append(current)
    return batches


def _chunks(items: list[int], size: int) -> list[list[int]]:
    return [items[i : i + size] for i in range(0, len(items), size)]


def _sequence_set(uids: list[int]) -> str:
    """An IMAP sequence set for `uids`: runs of consecutive numbers as ranges ('3:7,9,12:13')."""
    parts = []
    ordered = sorted(set(uids))
    start = prev = ordered[0]
    for uid in [*ordered[1:], None]:
        if uid is not None and uid == prev + 1:
            prev = uid
            continue
        parts.append(str(start) if start == prev else f"{start}:{prev}")
        if uid is not None:
            start = prev = uid
    return ",".join(parts)


def _in_turn(uids: list[int], known: dict[int, tuple[int, str]]) -> list[int]:
    """`uids` with each sender's mail in turn with the others': the first of each sender (in UID
    order), then the second of each, ...: one address sending much delays only its own mail."""
    rounds: list[list[int]] = []
    seen: dict[str, int] = {}
    for uid in uids:
        sender = known[uid][1]
        k = seen[sender] = seen.get(sender, -1) + 1
        if k == len(rounds):
            rounds.append([])
        rounds[k].append(uid)
    return [uid for round_ in rounds for uid in round_]


def _responses(lines: list[bytes | bytearray]) -> dict[int, tuple[bytes, bytes | None]]:
    """Each FETCH response in `lines`, by its UID: its text and its literal (None without one).
    aioimaplib gives a response as its line up to the literal, the literal (a bytearray), then the
    rest; the UID may come before or after the literal."""
    out: dict[int, tuple[bytes, bytes | None]] = {}
    text = b""
    literal: bytes | None = None

    def close() -> None:
        match = _FETCH_UID.search(text)
        if match:
            out[int(match.group(1))] = (text, literal)

    for line in lines:
        if isinstance(line, bytearray):
            literal = bytes(line)
        elif isinstance(line, bytes) and _FETCH_START.match(line):
            close()
            text, literal = line, None
        elif isinstance(line, bytes):
            text += b" " + line
    close()
    return out


def _fetched(lines: list[bytes | bytearray]) -> dict[int, bytes]:
    """The literal of each FETCH response in `lines`, by its UID."""
    return {uid: literal for uid, (_, literal) in _responses(lines).items() if literal is not None}


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
