"""`gm serve`: the database brought up to date, then the inbox watcher and the outbox sender side by
side (with the embedded mail servers when no IMAP server is configured), and old mail cut to its
headers every hour, until SIGINT or SIGTERM.
The outbox sender runs in a process of its own (gm.mail.outbox_process), so that the two use two
cores."""
from __future__ import annotations

import asyncio
import functools
import logging
import signal
from collections.abc import Callable
from contextlib import AsyncExitStack

from gm.mail.embedded import embedded_mail
from gm.mail.inbox import InboxWatcher
from gm.mail.ingest import IngestOutcome, ingest_batch
from gm.mail.outbox_process import OutboxProcess
from gm.mail.retention import purge_raw_mail_forever
from gm.settings import MailServer, Settings
from gm.store.db import AlreadyServing, make_engine, make_session_factory, service_lock, upgrade
from gm.store.passwords import PasswordVerifier

log = logging.getLogger(__name__)


IngestFunction = Callable[..., list[IngestOutcome]]  # the signature of gm.mail.ingest.ingest_batch


async def serve(settings: Settings, *, ingest_function: IngestFunction = ingest_batch) -> None:
    """Run the GM's mail service until cancelled; raises AlreadyServing if another runs on the same
    database. `ingest_function` is gm.mail.ingest.ingest_batch except in tests."""
    url = settings.db_url
    with service_lock(url, wait=5.0):
        await _serve(settings, url, ingest_function)


async def _serve(settings: Settings, url: str, ingest_function: IngestFunction) -> None:
    await asyncio.to_thread(upgrade, url)
    engine = make_engine(url)
    try:
        session_factory = make_session_factory(engine)
        async with AsyncExitStack() as stack:
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
            outbox = OutboxProcess(smtp, url, gm_address=settings.gm_address)
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
            )
            watcher = InboxWatcher(
                imap,
                bound,
                on_replies=outbox.wake,
                poll_seconds=settings.poll_seconds,
                max_size=settings.max_mail_size,
            )
            log.info("gm serving %s: inbox %s, outbox %s", settings.gm_address, imap, smtp)
            async with asyncio.TaskGroup() as tasks:
                tasks.create_task(watcher.run(), name="inbox")
                tasks.create_task(outbox.supervise(), name="outbox")
                tasks.create_task(purge_raw_mail_forever(session_factory, settings.raw_mail_days), name="retention")
    finally:
        engine.dispose()


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
