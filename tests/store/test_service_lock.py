"""Who serves: one `gm serve` per SQLite file; on PostgreSQL the mailbox lock, which one server
holds while the others stand by, and which goes with its holder's connection."""
from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
import pytest
from sqlalchemy.engine import make_url

from gm.server import read_mailbox_while_held
from gm.store.db import AlreadyServing, MailboxLock, service_lock

postgresql_only = pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)


def test_a_second_service_on_the_same_database_is_refused_until_the_first_ends(db_url: str) -> None:
    with service_lock(db_url):
        with pytest.raises(AlreadyServing, match="another gm serve is running"):
            with service_lock(db_url):
                pass
    with service_lock(db_url):  # the first has ended: free again
        pass


def test_services_on_different_databases_do_not_meet(tmp_path: object, db_url: str) -> None:
    other = f"sqlite:///{tmp_path}/other.sqlite3"
    with service_lock(db_url), service_lock(other):
        pass


def test_the_sqlite_refusal_says_where_several_servers_may_run(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path}/gm.sqlite3"
    with service_lock(url), pytest.raises(AlreadyServing, match="several share a PostgreSQL database"), service_lock(url):
        pass


@postgresql_only
def test_one_server_holds_the_mailbox_and_another_gets_it_once_it_is_let_go(db_url: str) -> None:
    first, second = MailboxLock(db_url), MailboxLock(db_url)
    try:
        assert first.try_acquire()
        assert first.try_acquire()  # held already: still True
        assert not second.try_acquire() and not second.held
        assert first.still_held()
        first.release()
        assert not first.held
        assert second.try_acquire()
        assert not first.try_acquire()
    finally:
        first.close()
        second.close()


def _terminate(url: str, application_name_start: str) -> int:
    """Ends (as a crash would) the server connections whose name starts so; returns how many."""
    u = make_url(url)
    with psycopg.connect(host=u.host, port=u.port, user=u.username, dbname=u.database, autocommit=True) as c:
        rows = c.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() "
            "AND application_name LIKE %s AND pid <> pg_backend_pid()",
            (application_name_start + "%",),
        ).fetchall()
    return len(rows)


def _soon(condition: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True


@postgresql_only
def test_a_lost_connection_is_a_lost_lock_which_another_takes(db_url: str) -> None:
    holder, standby = MailboxLock(db_url), MailboxLock(db_url)
    try:
        assert holder.try_acquire()
        assert not standby.try_acquire()
        holder.release()  # so that only the standby's connection is open ...
        assert standby.try_acquire()
        assert not holder.try_acquire()  # ... and the holder's, now waiting
        assert _terminate(db_url, "gm-mailbox") == 2  # both connections dropped, as by a dead host
        assert not standby.still_held() and not standby.held
        assert _soon(holder.try_acquire)  # a new connection, and the lock free (once the server let it go)
        assert holder.still_held()
    finally:
        holder.close()
        standby.close()


@postgresql_only
def test_servers_started_together_migrate_one_after_the_other(db_url: str) -> None:
    env = dict(os.environ, GM_DATABASE_URL=db_url)
    root = Path(__file__).resolve().parents[2]
    runs = [
        subprocess.Popen([sys.executable, "-m", "gm", "db", "upgrade"], cwd=root, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for _ in range(2)
    ]
    said = [run.communicate(timeout=60)[0] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], said
    assert sum("created" in s for s in said) == 1, said  # one made the tables, the other found them made


class _Watcher:
    """Stands in for the inbox watcher: counts its runs, runs until cancelled."""

    def __init__(self) -> None:
        self.running = 0
        self.runs = 0

    async def run(self) -> None:
        self.runs += 1
        self.running += 1
        try:
            await asyncio.Event().wait()
        finally:
            self.running -= 1


async def _until(predicate: object, timeout: float = 10.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():  # type: ignore[operator]
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.02)


@postgresql_only
def test_the_standby_reads_the_mailbox_once_the_holder_is_gone_and_a_lost_lock_stops_reading(
    db_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    async def scenario() -> None:
        other = MailboxLock(db_url)
        mine = MailboxLock(db_url)
        watcher = _Watcher()
        assert other.try_acquire()
        task = asyncio.create_task(read_mailbox_while_held(mine, watcher, retry=0.05))  # type: ignore[arg-type]
        try:
            await asyncio.sleep(0.3)
            assert watcher.runs == 0  # standing by
            other.release()  # the holder ends
            await _until(lambda: watcher.running == 1)
            await asyncio.to_thread(_terminate, db_url, "gm-mailbox")  # the lock's connection lost
            await _until(lambda: watcher.runs == 2)  # stopped, then held again on a new connection
            assert watcher.running == 1
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            mine.close()
            other.close()
        assert watcher.running == 0

    with caplog.at_level("INFO", logger="gm.server"):
        asyncio.run(scenario())
    said = [r.getMessage() for r in caplog.records]
    assert any(m.startswith("standby: another gm serve holds the mailbox") for m in said), said
    assert "took over the mailbox" in said
    assert any(m.startswith("lost the database connection holding the mailbox") for m in said), said
