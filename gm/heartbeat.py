"""Each `gm serve` says it is alive: a row of its own in `servers` (host, process, when it started,
whether it holds the mailbox), its `seen_at` renewed every HEARTBEAT_SECONDS, deleted when it stops
cleanly. `gm status` (gm.status) reads them: a server not seen for STALE_SECONDS is dead, and so
is one on the same host whose process has gone, at once. Several `gm serve` sharing a PostgreSQL
database each have their row; on an SQLite file there is one."""
from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Callable
from datetime import datetime, timedelta

from sqlalchemy import delete, or_, update
from sqlalchemy.orm import Session, sessionmaker

from gm.store.db import transaction
from gm.store.models import ServerBeat, utcnow

log = logging.getLogger(__name__)

HEARTBEAT_SECONDS = 5.0
STALE_SECONDS = 30.0  # six heartbeats missed: that server is dead, or cannot reach the database
FORGET_AFTER = timedelta(days=7)  # rows of servers that died are deleted after this


def this_host() -> str:
    return socket.gethostname()


def process_runs(pid: int) -> bool:
    """Whether a process `pid` runs on this host (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it runs, as another user
        return True
    return True


class Heartbeat:
    """The row of this `gm serve`; `holds_mailbox()` says whether it reads the mailbox now."""

    def __init__(self, session_factory: sessionmaker[Session], holds_mailbox: Callable[[], bool]) -> None:
        self.session_factory = session_factory
        self.holds_mailbox = holds_mailbox
        self.host, self.pid = this_host(), os.getpid()
        self.id: int | None = None

    def start(self) -> None:
        now = utcnow()
        with transaction(self.session_factory) as session:
            # A row left by an earlier life with this host and pid (a container restarted: pid 1
            # again) is that server, dead; rows not seen for a week are forgotten.
            session.execute(delete(ServerBeat).where(
                or_((ServerBeat.host == self.host) & (ServerBeat.pid == self.pid), ServerBeat.seen_at < now - FORGET_AFTER)))
            row = ServerBeat(host=self.host, pid=self.pid, started_at=now, seen_at=now, holds_mailbox=self.holds_mailbox())
            session.add(row)
            session.flush()
            self.id = row.id

    def beat(self, now: datetime | None = None) -> None:
        with transaction(self.session_factory) as session:
            values = {"seen_at": now or utcnow(), "holds_mailbox": self.holds_mailbox()}
            done = session.execute(update(ServerBeat).where(ServerBeat.id == self.id).values(**values))
            if done.rowcount == 0:  # deleted meanwhile (a restore, or by hand): written again
                row = ServerBeat(host=self.host, pid=self.pid, **values)
                session.add(row)
                session.flush()
                self.id = row.id

    def stop(self) -> None:
        if self.id is None:
            return
        with transaction(self.session_factory) as session:
            session.execute(delete(ServerBeat).where(ServerBeat.id == self.id))
        self.id = None

    async def run(self, every: float = HEARTBEAT_SECONDS, look: float = 1.0) -> None:
        """Beat every `every` seconds until cancelled, and within `look` seconds of taking or
        losing the mailbox; a beat that fails (the database is away) is logged once, and the
        next tries again."""
        failing = False
        written, last = self.holds_mailbox(), asyncio.get_running_loop().time()
        while True:
            await asyncio.sleep(look)
            holds = self.holds_mailbox()
            if holds == written and asyncio.get_running_loop().time() - last < every:
                continue
            try:
                await asyncio.to_thread(self.beat)
                failing, written = False, holds
            except Exception as e:
                if not failing:
                    log.warning("heartbeat: cannot write to the database, trying again: %s: %s", type(e).__name__, e)
                failing = True
            last = asyncio.get_running_loop().time()
