"""`gm serve`: the database brought up to date, then the inbox watcher and the outbox sender side by
side (with the embedded mail servers when no IMAP server is configured), the deadline scheduler
(gm.scheduler), and old mail cut to its headers every hour, until SIGINT or SIGTERM; its heartbeat
(gm.heartbeat) tells `gm status` it runs. It makes the database on first start, or upgrades it.
The outbox senders run in processes of their own, one a core (gm.mail.outgoing.outbox_process), so that
reading, adjudicating, drawing maps and sending use every core.

Several `gm serve` may share one PostgreSQL database (with a real mail server): all adjudicate
deadlines and send the outbox (each claims its games and rows with FOR UPDATE SKIP LOCKED), and
the one holding the mailbox lock (gm.store.db.MailboxLock) reads the mailbox; the others stand
by and take it over within seconds of its holder's end. On an SQLite file, or with embedded mail
servers, one `gm serve` runs per database and a second stops at once."""
from __future__ import annotations

import asyncio
import functools
import logging
import signal
from collections.abc import Callable
from contextlib import AsyncExitStack

from sqlalchemy import select
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

import gm.mail.intake.dns
from gm.heartbeat import Heartbeat
from gm.mail.embedded import embedded_mail
from gm.mail.inbox import InboxWatcher
from gm.mail.ingest import IngestOutcome, awaiting_addresses, ingest_batch, registered_addresses
from gm.mail.oauth2 import grant
from gm.mail.oauth2.providers import OAuth2
from gm.mail.oauth2.providers import from_settings as oauth2_settings
from gm.mail.outgoing.outbox_process import OutboxProcess
from gm.mail.outgoing.outbox import ALERT_KIND
from gm.mail.outgoing.pacing import Limits
from gm.mail.outgoing.signing import DkimKey, load_key, new_key
from gm.mail.retention import purge_raw_mail_forever
from gm.scheduler import run_scheduler
from gm.settings import EMBEDDED_AUTHSERV_ID, MailServer, Settings, SettingsError
from gm.store.db import (
    AlreadyServing,
    MailboxLock,
    make_engine,
    make_session_factory,
    service_lock,
    shared_database,
    transaction,
    upgrade,
)
from gm.store import judge_key
from gm.lifecycle import leaving
from gm.lifecycle.leaving import links_key
from gm.mail.outgoing.list_headers import MailLinks
from gm.store.models import Game, GameStatus, Master, OutboundMail, new_message_id
from gm.store.passwords import PasswordVerifier
from gm.web.publish import TICK_SECONDS as PAGES_TICK
from gm.web.publish import UNSUBSCRIBE_PATH, http_server, keep_pages, serve_pages

log = logging.getLogger(__name__)


IngestFunction = Callable[..., list[IngestOutcome]]  # the signature of gm.mail.ingest.ingest_batch


def judge_dkim_key(settings: Settings, *, make: bool = False) -> DkimKey | None:
    """The key the judge signs its mail with (none without a selector); raises SettingsError. With
    `make` (gm serve), the default key file (data_dir/dkim-<selector>.key) is made if there is none,
    and its DNS record logged: the compose stack signs from its first start. A key file named in
    GM_DKIM_KEY is the operator's own, and one missing stops the start instead."""
    path = settings.dkim_key_path
    if settings.dkim_selector is None or path is None:
        return None
    domain = settings.gm_address.rpartition("@")[2].lower()
    made = False
    if not path.exists():
        if not make or settings.dkim_key is not None:
            raise SettingsError(f"no DKIM key at {path} for the selector {settings.dkim_selector} (GM_DKIM_SELECTOR): "
                                "make one with gm mail dkim-key, or set GM_DKIM_KEY to yours"
                                + ("" if settings.dkim_key is not None else "; gm serve makes it at its first start"))
        try:
            new_key(path, "rsa")
            made = True
        except FileExistsError:
            pass  # another gm serve on the same data folder made it first: both sign with that one
        except OSError as e:
            raise SettingsError(f"cannot make the DKIM key {path}: {e.strerror or e}") from None
    try:
        key = load_key(path, settings.dkim_selector, domain)
    except ValueError as e:
        raise SettingsError(str(e)) from None
    if made:  # the public half only: the operator publishes it (gm mail dkim-key --show prints it again)
        log.info("made the DKIM key %s (there was none): publish this TXT record: %s. IN TXT \"%s\"",
                 path, key.record_name, key.record())
    return key


def mail_links(settings: Settings) -> MailLinks:
    """The outbox's links (once the judge's secret is loaded): tagged return paths if asked for, and
    one-click leaving where gm serve takes the web's POSTs at the published address."""
    served = settings.public_url is not None and settings.pages_dir is not None and settings.http_port is not None
    return MailLinks(links_key(), settings.smtp_return_path == "tagged",
                     f"{settings.public_url}/{UNSUBSCRIBE_PATH}" if served else None)


def _leave(session_factory: sessionmaker[Session], token: str) -> str | None:
    """A one-click link's POST (gm.web.publish), carried out in a transaction of its own."""
    with transaction(session_factory) as session:
        return leaving.leave(session, token)


def tell_grant_refused(session_factory: sessionmaker[Session], settings: Settings, wake: Callable[[], None],
                       why: str) -> None:
    """Mail the GMs of the games not finished, and the trusted masters, that the provider refused
    the judge's OAuth2 grant: the judge reads no mail until `gm mail authorize` is run again."""
    with transaction(session_factory) as session:
        running = select(Master.email).join(Game, Game.id == Master.game_id).where(
            Master.left_at.is_(None), Game.status != GameStatus.FINISHED)
        for to in sorted({*settings.trusted_masters, *session.scalars(running)}):
            session.add(OutboundMail(
                to_addr=to, kind=ALERT_KIND, message_id=new_message_id(settings.gm_address.rpartition("@")[2]),
                subject=f"gm: the judge cannot read the mail sent to {settings.gm_address}",
                body_text=f"gm: the mail provider refused the judge's sign-in ({why}). Until the operator runs "
                          f"`gm mail authorize` again, the judge reads no mail sent to {settings.gm_address}: orders "
                          "mailed meanwhile wait there, unread, and are read then. Deadlines still pass as set; "
                          "a GM may want to extend them (EXTEND).\n"))
    wake()


MAILBOX_RETRY_SECONDS = 1.5  # how often a standby tries for the mailbox, and the holder checks it has it


async def serve(settings: Settings, *, ingest_function: IngestFunction = ingest_batch) -> None:
    """Run the GM's mail service until cancelled; raises AlreadyServing if another runs on the same
    database where only one may (an SQLite file, or embedded mail servers). `ingest_function` is
    gm.mail.ingest.ingest_batch except in tests."""
    gm.mail.intake.dns.configure(settings.dns_server)  # dkimpy, pyspf and authheaders ask dnspython's default resolver
    oauth2 = None if settings.embedded else oauth2_settings(settings)
    if oauth2 is not None and grant.load(oauth2.grant_path) is None:
        raise SettingsError(f"OAuth2 sign-in to {oauth2.provider.name} is set but the judge has no grant yet "
                            f"({oauth2.grant_path}): run `gm mail authorize` once")
    url = settings.db_url
    # A key that cannot be read stops the start, in one line, before anything runs.
    dkim = judge_dkim_key(settings, make=True)
    if settings.embedded or not shared_database(url):
        with service_lock(url, wait=5.0):
            await _serve(settings, url, ingest_function, None, oauth2, dkim)
        return
    lock = MailboxLock(url)
    try:
        await _serve(settings, url, ingest_function, lock, oauth2, dkim)
    finally:
        await asyncio.to_thread(lock.close)


async def _serve(settings: Settings, url: str, ingest_function: IngestFunction, mailbox: MailboxLock | None,
                 oauth2: OAuth2 | None, dkim: DkimKey | None) -> None:
    before, after = await asyncio.to_thread(upgrade, url)
    where = make_url(url).render_as_string(hide_password=True)
    if before is None:
        log.info("made the database %s (revision %s): there was none", where, after)
    elif before != after:
        log.info("upgraded the database %s from revision %s to %s", where, before, after)
    # Once the database is there: the quick checks of passwords, sealed requests (gm.store.judge_key).
    await asyncio.to_thread(judge_key.load, settings.secret_key_path)
    engine = make_engine(url)
    try:
        session_factory = make_session_factory(engine)
        async with AsyncExitStack() as stack:
            heartbeat = Heartbeat(session_factory, (lambda: True) if mailbox is None else (lambda: mailbox.held))
            await asyncio.to_thread(heartbeat.start)
            stack.push_async_callback(_stop_heartbeat, heartbeat)
            imap: MailServer
            smtp: MailServer
            if settings.embedded:
                # GM_IMAP_PORT / GM_SMTP_PORT fix the embedded servers' ports; else any free ones.
                embedded = embedded_mail(
                    settings.data_dir,
                    settings.gm_address,
                    imap_port=settings.imap_port or 0,
                    smtp_port=settings.smtp_port or 0,
                    password=settings.imap_password,
                    authserv_id=settings.trusted_authserv_id or EMBEDDED_AUTHSERV_ID,
                )
                mail = await stack.enter_async_context(embedded)
                imap, smtp = mail.imap, mail.smtp
                log.info(
                    "no IMAP server configured: embedded mail on %s:%d (IMAP) and %s:%d (SMTP), "
                    "user %s, password in %s",
                    imap.host, imap.port, smtp.host, smtp.port, imap.user, settings.data_dir / "mail" / "password",
                )
            else:
                imap, smtp = settings.imap_server(), settings.smtp_server()
            outbox = OutboxProcess(smtp, url, gm_address=settings.gm_address, processes=settings.outbox_senders,
                                   oauth2=oauth2, limits=Limits(settings.smtp_per_hour, settings.smtp_per_day),
                                   dkim=dkim, links=mail_links(settings))
            outbox.start()
            stack.push_async_callback(asyncio.to_thread, outbox.stop)
            # One password cache for the life of the service: a player's later mails check fast.
            bound = functools.partial(
                ingest_function,
                session_factory,
                gm_address=settings.gm_address,
                max_size=settings.max_mail_size,
                verifier=PasswordVerifier(),
                replies_per_hour=settings.replies_per_hour,
                trusted_masters=settings.trusted_masters,
                public_url=settings.public_url,
                authserv_id=settings.trusted_authserv_id,
            )
            watcher = InboxWatcher(
                imap,
                bound,
                on_replies=outbox.wake,
                poll_seconds=settings.poll_seconds,
                max_size=settings.max_mail_size,
                registered=functools.partial(registered_addresses, session_factory),
                awaiting=functools.partial(awaiting_addresses, session_factory),
                oauth2=oauth2,
                # A refused grant stops the reading of mail; where SMTP has a password of its own,
                # the GMs can still be told by mail.
                on_grant_refused=functools.partial(tell_grant_refused, session_factory, settings, outbox.wake)
                if oauth2 is not None and not smtp.oauth2 else None,
            )
            log.info("gm serving %s: inbox %s, outbox %s", settings.gm_address, imap, smtp)
            # Bound now, so that a port in use stops the start with a clear word, not a task later.
            pages_http = http_server(settings.pages_dir, settings.http_port,
                                     leave=functools.partial(_leave, session_factory)) \
                if settings.pages_dir is not None and settings.http_port else None
            async with asyncio.TaskGroup() as tasks:
                if mailbox is None:
                    tasks.create_task(watcher.run(), name="inbox")
                else:
                    tasks.create_task(read_mailbox_while_held(mailbox, watcher), name="inbox")
                tasks.create_task(outbox.supervise(), name="outbox")
                tasks.create_task(heartbeat.run(), name="heartbeat")
                tasks.create_task(purge_raw_mail_forever(session_factory, settings.raw_mail_days), name="retention")
                tasks.create_task(
                    run_scheduler(session_factory, gm_address=settings.gm_address, on_mail=outbox.wake,
                                  tick=settings.scheduler_seconds, public_url=settings.public_url),
                    name="deadlines",
                )
                if settings.pages_dir is not None:  # the games' web pages (gm.web)
                    tasks.create_task(keep_pages(session_factory, settings.pages_dir,
                                                 tick=max(settings.scheduler_seconds, PAGES_TICK)),
                                      name="pages")
                if pages_http is not None:
                    tasks.create_task(serve_pages(pages_http), name="pages http")
    finally:
        engine.dispose()


async def _stop_heartbeat(heartbeat: Heartbeat) -> None:
    try:
        await asyncio.to_thread(heartbeat.stop)
    except Exception as e:  # the database is away: gm status sees the row's heartbeat stop
        log.warning("heartbeat: could not say this server stops: %s: %s", type(e).__name__, e)


async def read_mailbox_while_held(lock: MailboxLock, watcher: InboxWatcher,
                                  retry: float = MAILBOX_RETRY_SECONDS) -> None:
    """Run the inbox watcher while this server holds the mailbox lock; stand by while another does,
    trying for it every `retry` seconds. A lost lock connection stops the watcher (another server
    may have the lock now) and this one stands by again; should two read at once meanwhile,
    ingest still keeps each mail once."""
    try:
        await _read_mailbox_while_held(lock, watcher, retry)
    finally:
        # At once, not after the outbox has stopped: a standby takes over the sooner.
        await asyncio.to_thread(lock.release)


async def _read_mailbox_while_held(lock: MailboxLock, watcher: InboxWatcher, retry: float) -> None:
    waited = False  # this server has stood by: getting the lock now is taking the mailbox over
    said = False  # "standby" logged since the lock was last held
    unreachable = False  # the database could not be reached at the last try (said once)
    while True:
        try:
            held = await asyncio.to_thread(lock.try_acquire)
            unreachable = False
        except Exception as e:  # the database is away: the other tasks say so too; try again
            if not unreachable:
                log.warning("mailbox lock: cannot reach the database, trying again: %s", e)
            unreachable, held = True, False
        if not held:
            if not said and not unreachable:
                log.info("standby: another gm serve holds the mailbox; this one takes it over when that one ends")
                said = True
            waited = True
            await asyncio.sleep(retry)
            continue
        log.info("took over the mailbox" if waited else "holding the mailbox")
        said = False
        inbox = asyncio.create_task(watcher.run(), name="inbox watcher")
        try:
            while True:
                done, _ = await asyncio.wait({inbox}, timeout=retry)
                if done:
                    inbox.result()  # the watcher runs until cancelled: it ended only by a bug
                    raise RuntimeError("the inbox watcher ended")
                if not await asyncio.to_thread(lock.still_held):
                    log.error("lost the database connection holding the mailbox: stopped reading it "
                              "(another gm serve may take it over)")
                    break
        finally:
            if not inbox.done():
                inbox.cancel()
                await asyncio.gather(inbox, return_exceptions=True)
        waited = True


def run(settings: Settings) -> int:
    """Serve until SIGINT or SIGTERM, then stop cleanly; for `gm serve`."""

    async def main() -> None:
        task = asyncio.current_task()
        if task is not None:  # always, in asyncio.run
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(signum, task.cancel)
        try:
            await serve(settings)
        except asyncio.CancelledError:
            log.info("gm stopped")

    try:
        asyncio.run(main())
    except AlreadyServing as e:
        log.error("%s: this one stops", e)
        return 1
    return 0
