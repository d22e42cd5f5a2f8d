"""`gm status`: a real `gm serve` seen by its heartbeat, live, then dead at once when killed on
this host, gone when stopped; the judge-wide checks (the mailbox, the outbox, the deadlines) on
rows as the service leaves them, on SQLite and PostgreSQL. Two servers sharing PostgreSQL are in
tests/mail/test_several_servers.py."""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import create_game
from gm.heartbeat import Heartbeat
from gm.status import problems, read_status, report
from gm.store.db import transaction, upgrade
from gm.store.models import (AuditEntry, Bounce, FailingAddress, GameStatus, InboundMail, OutboundMail, ServerBeat,
                             utcnow)
from loopback import stop


def gm(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gm", *args], capture_output=True, text=True, cwd=cwd,
                          env={"PATH": "/usr/bin:/bin", **env}, timeout=60)


def until(check, timeout: float = 30):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got or time.monotonic() > deadline:
            return got
        time.sleep(0.2)


def test_a_real_gm_serve_healthy_then_killed_then_stopped(tmp_path: Path) -> None:
    env = {"GM_DATA_DIR": str(tmp_path / "data"), "GM_ADDRESS": "gm@judge.example"}
    nothing = gm("status", cwd=tmp_path, **env)
    assert nothing.returncode == 2 and "make it with gm db upgrade" in nothing.stderr

    def serve() -> subprocess.Popen[bytes]:
        log = (tmp_path / "serve.log").open("ab")
        return subprocess.Popen([sys.executable, "-m", "gm", "serve"], cwd=tmp_path, env={"PATH": "/usr/bin:/bin", **env},
                                stdout=log, stderr=log, start_new_session=True)

    server = serve()
    try:
        healthy = until(lambda: (done := gm("status", cwd=tmp_path, **env)).returncode == 0 and done)
        assert healthy, (tmp_path / "serve.log").read_text()
        assert "next deadline: none (no game running)" in healthy.stdout
        host = socket.gethostname()
        assert f"  {host} (this host) pid {server.pid}: holds the mailbox, seen " in healthy.stdout
        assert healthy.stdout.splitlines()[-1] == "healthy"
        assert gm("status", "--this-host", cwd=tmp_path, **env).returncode == 0
        # Killed outright, with its outbox process: its row stays, and on this host it is dead at once.
        os.killpg(server.pid, signal.SIGKILL)
        server.wait()
        dead = gm("status", cwd=tmp_path, **env)
        assert dead.returncode == 1
        assert f"  {host} (this host) pid {server.pid}: DEAD, last seen " in dead.stdout
        assert dead.stdout.splitlines()[-1] == "UNHEALTHY: no gm serve runs"
        this_host = gm("status", "--this-host", cwd=tmp_path, **env)
        assert this_host.returncode == 1
        assert this_host.stdout.splitlines()[-1] == f"UNHEALTHY: no gm serve runs on this host ({host})"
        # Started again, then stopped as an operator stops it: no trace left.
        server = serve()
        assert until(lambda: gm("status", cwd=tmp_path, **env).returncode == 0), (tmp_path / "serve.log").read_text()
        stop(server)
        assert server.returncode == 0
        gone = gm("status", cwd=tmp_path, **env)
        assert gone.returncode == 1 and f"pid {server.pid}" not in gone.stdout
        assert gone.stdout.count("DEAD, last seen") == 1  # the killed one's row only
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    log = (tmp_path / "serve.log").read_text()
    assert "alembic" not in log  # no migration chatter at start
    assert log.count("made the database") == 1  # gm serve made it, and said so once: at its first start
    assert "upgraded the database" not in log


def test_bad_thresholds_are_refused_in_one_line(tmp_path: Path) -> None:
    done = gm("status", "--lag", "soon", cwd=tmp_path, GM_DATA_DIR=str(tmp_path))
    assert done.returncode == 2
    assert done.stderr.strip() == ("gm status: --lag: 'soon' is no duration: write it like 48h, 2d, 1d12h, 90m or 10s")


def test_the_judge_wide_checks(session_factory: sessionmaker[Session]) -> None:
    now = utcnow()
    with transaction(session_factory) as s:
        late = create_game(s, "late", "standard")
        late.status, late.next_check_at, late.deadline_at = GameStatus.ACTIVE, now - timedelta(minutes=10), now - timedelta(minutes=10)
        soon = create_game(s, "soon", "standard")
        soon.status, soon.next_check_at, soon.deadline_at = GameStatus.ACTIVE, now + timedelta(hours=3), now + timedelta(hours=3)
        paused = create_game(s, "paused", "standard")  # the clock stopped: not behind, however long ago
        paused.status, paused.paused_at = GameStatus.ACTIVE, now - timedelta(days=2)
        paused.next_check_at = paused.deadline_at = now - timedelta(days=1)
        s.add(OutboundMail(to_addr="a@example.org", subject="s", body_text="t", kind="ack", created_at=now - timedelta(minutes=20)))
        s.add(OutboundMail(to_addr="b@example.org", subject="s", body_text="t", kind="ack", created_at=now - timedelta(minutes=1)))
        s.add(OutboundMail(to_addr="c@example.org", subject="s", body_text="t", kind="ack", created_at=now - timedelta(days=1),
                           sent_at=now - timedelta(days=1)))
        s.add(InboundMail(message_id="<m@x>", dedup_key="k", sender="a@example.org", raw=b"", size=0,
                          received_at=now - timedelta(minutes=3)))
        # Mail that came back: one bounce matched to the judge's mail (its address marked failing),
        # one matched to none, and one from the day before, which no longer counts.
        sent = OutboundMail(to_addr="d@example.org", subject="s", body_text="t", kind="results", sent_at=now)
        s.add(sent)
        s.flush()
        marked = Bounce(address="d@example.org", outbox_id=sent.id, permanent=True, status="5.1.1", words="user unknown",
                        form="dsn", at=now - timedelta(minutes=5))
        s.add_all([marked, Bounce(address="e@example.org", permanent=True, words="", form="dsn", at=now),
                   Bounce(address="d@example.org", outbox_id=sent.id, permanent=False, words="", form="dsn",
                          at=now - timedelta(days=2))])
        s.flush()
        s.add(FailingAddress(address="d@example.org", since=marked.at, bounce_id=marked.id))
        # A server elsewhere, alive but standing by; one that stopped beating long ago.
        s.add(ServerBeat(host="elsewhere", pid=7, started_at=now - timedelta(hours=1), seen_at=now - timedelta(seconds=2)))
        s.add(ServerBeat(host="gone", pid=8, started_at=now - timedelta(hours=2), seen_at=now - timedelta(minutes=5),
                         holds_mailbox=True))
    with transaction(session_factory) as s:
        status = read_status(s, now)
    assert [(x.host, x.live) for x in status.servers] == [("gone", False), ("elsewhere", True)]
    assert problems(status) == [
        "no gm serve holds the mailbox: nobody reads the GM's mail",
        "the outbox is stuck: 2 mail unsent, the oldest queued 20 min ago (more than 15 min)",
        "the deadlines are behind: game late due 10 min ago, not yet dealt with (more than 5 min)",
    ]
    assert problems(status, outbox_age=timedelta(hours=1), lag=timedelta(minutes=15)) == [
        "no gm serve holds the mailbox: nobody reads the GM's mail"]
    # On this host no server runs: the others are not this container's business.
    assert problems(status, this_host_only=True) == [f"no gm serve runs on this host ({socket.gethostname()})"]
    lines = report(status)
    assert "  elsewhere pid 7: standby, seen 2 s ago; started " in "\n".join(lines)
    assert "  gone pid 8: DEAD, last seen 5 min ago; started " in "\n".join(lines)
    assert "last mail read: " in lines[3] and lines[3].endswith("(3 min ago)")
    assert lines[4:] == [
        "outbox: 2 unsent, the oldest queued 20 min ago",
        "mail not arriving: 1 address(es) failing (gm game show names them); 2 bounce(s) in the last day, "
        "1 matched to no mail of the judge's",
        f"next deadline: game soon, {(now + timedelta(hours=3)).strftime('%Y-%m-%d %H:%M:%S UTC')} (in 3 h)",
        f"paused: game paused since {(now - timedelta(days=2)).strftime('%Y-%m-%d %H:%M:%S UTC')} (2 days ago), "
        "by whom the audit log does not say",
        "behind: 1 game(s) overdue, game late the most, due 10 min ago",
    ]


def test_paused_games_say_since_when_and_by_whom(session_factory: sessionmaker[Session]) -> None:
    now = utcnow()
    with transaction(session_factory) as s:
        for i, (name, actor, action) in enumerate([("ae1", "master@gms.example", "pause"),
                                                    ("ae2", "operator (command line)", "rollback"),
                                                    ("ae3", "master@gms.example", "pause")]):
            game = create_game(s, name, "standard")
            game.status, game.paused_at = GameStatus.ACTIVE, now - timedelta(hours=2 + i)
            game.next_check_at = game.deadline_at = now + timedelta(days=1)
            s.flush()
            s.add(AuditEntry(game_id=game.id, actor="someone@else.example", action="pause"))  # an older pause
            s.add(AuditEntry(game_id=game.id, actor="master@gms.example", action="resume"))
            s.add(AuditEntry(game_id=game.id, actor=actor, action=action))
    with transaction(session_factory) as s:
        status = read_status(s, now)
    lines = report(status)
    assert "next deadline: none (every game under way is paused)" in lines
    since = {h: (now - timedelta(hours=h)).strftime("%Y-%m-%d %H:%M:%S UTC") for h in (2, 3, 4)}
    assert [line for line in lines if line.startswith("paused:")] == [  # the longest paused first
        f"paused: game ae3 since {since[4]} (4 h ago), by master@gms.example (PAUSE)",
        f"paused: game ae2 since {since[3]} (3 h ago), by operator (command line) (ROLLBACK)",
        f"paused: game ae1 since {since[2]} (2 h ago), by master@gms.example (PAUSE)",
    ]
    assert problems(status) == ["no gm serve runs"]  # a paused game is never behind
    with transaction(session_factory) as s:
        status = read_status(s, now)
    assert len(report(replace(status, paused=status.paused[:1]))) == len(lines) - 1  # the others counted
    assert "paused: 2 other game(s)" in report(replace(status, paused=status.paused[:1]))


def test_the_heartbeat_row(session_factory: sessionmaker[Session]) -> None:
    holds = [False]
    beat = Heartbeat(session_factory, lambda: holds[0])
    with transaction(session_factory) as s:  # this host and pid's row from an earlier life (a restarted container)
        s.add(ServerBeat(host=beat.host, pid=beat.pid, started_at=utcnow() - timedelta(days=1),
                         seen_at=utcnow() - timedelta(days=1)))
    beat.start()

    def rows() -> list[tuple[str, int, bool]]:
        with transaction(session_factory) as s:
            return [(r.host, r.pid, r.holds_mailbox) for r in s.scalars(select(ServerBeat))]

    assert rows() == [(beat.host, beat.pid, False)]
    holds[0] = True
    beat.beat()
    assert rows() == [(beat.host, beat.pid, True)]
    with transaction(session_factory) as s:  # deleted under it (a restore): written again
        s.query(ServerBeat).delete()
    beat.beat()
    assert rows() == [(beat.host, beat.pid, True)]
    with transaction(session_factory) as s:
        status = read_status(s, utcnow())
    assert problems(status) == [] and problems(status, this_host_only=True) == []
    beat.stop()
    assert rows() == []


def test_status_needs_an_up_to_date_database(db_url: str, tmp_path: Path) -> None:
    done = gm("status", cwd=tmp_path, GM_DATABASE_URL=db_url)
    assert done.returncode == 2 and "make it with gm db upgrade" in done.stderr
    upgrade(db_url)
    done = gm("status", cwd=tmp_path, GM_DATABASE_URL=db_url)
    assert done.returncode == 1 and done.stdout.splitlines()[-1] == "UNHEALTHY: no gm serve runs"
