"""The outbox sender in processes of their own, so that sending mail and reading it use several cores.

Python runs one thread at a time per process: with the inbox's ingest (parsing, adjudicating
orders, the database) and the outbox's SMTP conversations in one process, each waits for the
other. A deadline's results are CPU work too, for the sender: two maps drawn a game, and for each
reader a mail of a few hundred kilobytes built and handed to SMTP. So `OutboxProcess` starts
`OutboxSender.run()` in one child process a core (at most MAX_PROCESSES), wakes them through a
pipe each when the inbox has queued replies, and restarts a child that died. A child ends when it
reads end-of-file on its pipe, so it never outlives the service, even one killed outright.
Everything the senders share is in the database, where each claims the rows it sends as several
servers' senders do (gm.mail.outgoing.outbox), so exactly-once holds as with one.
"""
from __future__ import annotations

import asyncio
import logging
import multiprocessing
import os
import signal
import time
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess

from gm.logs import configure
from gm.mail.backoff import Backoff
from gm.mail.oauth2.providers import OAuth2
from gm.mail.outgoing.outbox import OutboxSender
from gm.mail.outgoing.pacing import Limits
from gm.mail.outgoing.list_headers import MailLinks
from gm.mail.outgoing.signing import DkimKey
from gm.settings import MailServer
from gm.store.db import make_engine, make_session_factory

log = logging.getLogger(__name__)

RESTART_BACKOFF = Backoff(1.0, 60.0)
MAX_PROCESSES = 4  # senders a server starts at most: past that, the SMTP server is the limit


def default_processes() -> int:
    """One sender a core, at most MAX_PROCESSES."""
    return max(1, min(MAX_PROCESSES, os.cpu_count() or 1))


class OutboxProcess:
    """Runs the outbox sender for `smtp` in `processes` child processes (default: one a core, see
    default_processes); start(), wake() at will, stop()."""

    def __init__(self, smtp: MailServer, db_url: str, *, gm_address: str, poll_seconds: float = 5.0,
                 processes: int | None = None, oauth2: OAuth2 | None = None, limits: Limits = Limits(),
                 dkim: DkimKey | None = None, links: MailLinks | None = None) -> None:
        args = (smtp, db_url, gm_address, poll_seconds, logging.getLogger().getEffectiveLevel(), oauth2, limits, dkim,
                links)
        self.children = [_Child(args) for _ in range(processes or default_processes())]

    @property
    def process(self) -> BaseProcess | None:
        """The first sender's process (None when stopped)."""
        return self.children[0].process

    def start(self) -> None:
        for child in self.children:
            child.start()

    def wake(self) -> None:
        """Tell the senders that replies were queued."""
        for child in self.children:
            child.wake()

    async def supervise(self) -> None:
        """Restart each child whenever it ends, with back-off; until cancelled."""
        async with asyncio.TaskGroup() as tasks:
            for child in self.children:
                tasks.create_task(child.supervise())

    def stop(self, timeout: float = 10.0) -> None:
        """End the children: SIGTERM (each finishes the mail it is sending), then SIGKILL."""
        for child in self.children:
            child.terminate()
        for child in self.children:
            child.join(timeout)


class _Child:
    """One sender's process."""

    def __init__(self, args: tuple[object, ...]) -> None:
        self.args = args
        self.process: BaseProcess | None = None
        self.started = 0.0  # time.monotonic() of the last start
        self._wake: Connection | None = None

    def start(self) -> None:
        context = multiprocessing.get_context("spawn")  # a fresh interpreter: no threads, locks or sockets inherited
        reader, writer = context.Pipe(duplex=False)
        process = context.Process(target=_child, args=(*self.args, reader), name="gm-outbox", daemon=True)
        process.start()
        reader.close()  # the child's end: once the child is gone, nobody reads
        os.set_blocking(writer.fileno(), False)  # a wake-up never waits for a busy (or hung) child
        self.process, self._wake, self.started = process, writer, time.monotonic()
        log.info("outbox sender started (process %s)", process.pid)

    def wake(self) -> None:
        """Tell the child that replies were queued; a wake-up already pending is enough."""
        if self._wake is None:
            return
        try:
            self._wake.send_bytes(b"!")
        except (BlockingIOError, BrokenPipeError, OSError):
            pass  # the pipe is full of wake-ups, or the child is gone (supervise() restarts it)

    async def supervise(self) -> None:
        """Restart the child whenever it ends, with back-off; until cancelled."""
        failures = 0
        while True:
            await asyncio.sleep(0.5)
            if self.process is None or self.process.is_alive():
                continue
            log.error("outbox sender (process %s) ended with code %s", self.process.pid, self.process.exitcode)
            self._close()
            # Back off further unless it had run for a while (as the inbox watcher does).
            failures = 1 if time.monotonic() - self.started >= RESTART_BACKOFF.cap else failures + 1
            await asyncio.sleep(RESTART_BACKOFF.delay(failures))
            self.start()

    def terminate(self) -> None:
        """Ask the child to end (SIGTERM: it finishes the mail it is sending); stop() waits."""
        self._close()
        if self.process is not None and self.process.is_alive():
            self.process.terminate()

    def join(self, timeout: float = 10.0) -> None:
        """Wait for the child asked to end; killed (SIGKILL) if it has not within `timeout` s."""
        process = self.process
        if process is None:
            return
        if process.is_alive():
            process.join(timeout)
            if process.is_alive():
                process.kill()
                process.join(timeout)
        self.process = None

    def _close(self) -> None:
        if self._wake is not None:
            self._wake.close()
            self._wake = None


def _child(smtp: MailServer, db_url: str, gm_address: str, poll_seconds: float, level: int, oauth2: OAuth2 | None,
           limits: Limits, dkim: DkimKey | None, links: MailLinks | None, wake: Connection) -> None:
    configure(level)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C goes to the service, which stops us
    asyncio.run(_serve_outbox(smtp, db_url, gm_address, poll_seconds, oauth2, limits, dkim, links, wake))


async def _serve_outbox(smtp: MailServer, db_url: str, gm_address: str, poll_seconds: float, oauth2: OAuth2 | None,
                        limits: Limits, dkim: DkimKey | None, links: MailLinks | None,
                        wake: Connection) -> None:
    loop = asyncio.get_running_loop()
    task = asyncio.current_task()
    assert task is not None
    loop.add_signal_handler(signal.SIGTERM, task.cancel)
    wakeup = asyncio.Event()

    def readable() -> None:
        try:
            while wake.poll():
                wake.recv_bytes()
        except (EOFError, OSError):  # the service is gone: so are we
            loop.remove_reader(wake.fileno())
            task.cancel()
            return
        wakeup.set()

    loop.add_reader(wake.fileno(), readable)
    engine = make_engine(db_url)
    try:
        sender = OutboxSender(smtp, make_session_factory(engine), gm_address=gm_address, wakeup=wakeup,
                              poll_seconds=poll_seconds, oauth2=oauth2, limits=limits, dkim=dkim,
                              links=links)
        await sender.run()
    except asyncio.CancelledError:
        pass
    finally:
        engine.dispose()
