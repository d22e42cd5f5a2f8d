"""Exactly once with several servers: two `gm serve` on one PostgreSQL database run a game with
three-second deadlines; the one holding the mailbox is killed outright (SIGKILL, with its outbox
process) mid-game. The standby takes the mailbox over and answers an order mail within seconds,
the deadlines go on, and in the end every phase was adjudicated once and every mail sent once.

Outgoing mail goes to an SMTP sink of the test's own that notes each Message-ID; the order mail
comes in through the SMTP front to Dovecot, whose mailbox the judges watch. One duplicate is
allowed, and only one kind: a mail whose first copy the sink took before the kill while its row
was not yet marked sent (the killed server had it leased, and the SMTP server had accepted it):
it goes again when the lease runs out, with the same Message-ID, as gm.mail.outgoing.outbox says."""
from __future__ import annotations

import asyncio
import email
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterable
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import select, text, update
from sqlalchemy.orm import Session, sessionmaker

from gm.games import create_game, find_game
from gm.lifecycle.house_rules import HouseRules, with_changes
from gm.lifecycle.phases import start as start_game
from gm.store.db import make_engine, make_session_factory, transaction
from gm.store.models import AuditEntry, Game, GamePhase, InboundMail, OutboundMail, Player, utcnow
from gm.store.passwords import hash_password
from loopback import free_port

if TYPE_CHECKING:  # fixtures' types only (see conftest.py)
    from conftest import Dovecot, SmtpFront, StartGmServe

DOMAIN = "example.org"  # the test Dovecot's domain and password (tests/mail/conftest.py)
GM = f"gm@{DOMAIN}"
PASSWORD = "secret"
GAME = "twins"
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
RULES = {"movement": "3s", "retreat": "3s", "adjustment": "3s", "remind_before": "0", "late_limit": "0"}
MORE_DEADLINES = 3  # adjudications after the kill, at the least


class Sink:
    """aiosmtpd handler taking every mail, noting its Message-ID and when it came."""

    def __init__(self) -> None:
        self.got: list[tuple[str, float]] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        msg = email.message_from_bytes(envelope.original_content or b"")
        with self.lock:
            self.got.append((str(msg["Message-ID"]), time.monotonic()))
        return "250 2.0.0 OK"

    def copies(self) -> Counter[str]:
        with self.lock:
            return Counter(mid for mid, _ in self.got)

    def first_before(self, moment: float) -> set[str]:
        with self.lock:
            return {mid for mid, at in self.got if at < moment}


def _setup_game(factory: sessionmaker[Session]) -> None:
    with transaction(factory) as s:
        game = create_game(s, GAME, "standard")
        game.options = {"house_rules": with_changes(HouseRules(), RULES).to_options()}
        password = hash_password(PASSWORD)
        for power in POWERS:
            s.add(Player(game_id=game.id, power=power, email=f"{power.lower()}@{DOMAIN}", password_hash=password))


def _start(factory: sessionmaker[Session]) -> None:
    with transaction(factory) as s:
        game = find_game(s, GAME)
        assert game is not None
        start_game(s, game, utcnow())


def _mailbox_holder(factory: sessionmaker[Session]) -> int | None:
    """The process id of the `gm serve` holding the mailbox lock (its connection's name says it)."""
    with transaction(factory) as s:
        names = s.scalars(text(
            "SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
            "WHERE l.locktype = 'advisory' AND l.granted AND a.datname = current_database() "
            "AND a.application_name LIKE 'gm-mailbox %'"
        )).all()
    assert len(names) <= 1, names
    match = re.search(r"pid=(\d+)", names[0]) if names else None
    return int(match.group(1)) if match else None


def _adjudicated(factory: sessionmaker[Session]) -> int:
    with transaction(factory) as s:
        return len(s.scalars(select(GamePhase.id).where(GamePhase.adjudicated_at.is_not(None))).all())


def _until_deadline(factory: sessionmaker[Session]) -> float:
    with transaction(factory) as s:
        deadline = s.scalar(select(Game.deadline_at).where(Game.name == GAME))
    assert deadline is not None
    return max(0.0, (deadline - utcnow()).total_seconds())


def _unsent(factory: sessionmaker[Session]) -> set[str]:
    with transaction(factory) as s:
        return set(s.scalars(select(OutboundMail.message_id).where(OutboundMail.sent_at.is_(None))))


def _answered(factory: sessionmaker[Session], message_id: str) -> bool:
    with transaction(factory) as s:
        inbound = s.scalar(select(InboundMail.id).where(InboundMail.message_id == message_id))
        if inbound is None:
            return False
        return s.scalar(select(OutboundMail.sent_at).where(OutboundMail.inbound_id == inbound)) is not None


def _stop_the_clock(factory: sessionmaker[Session]) -> None:
    """Put the current deadline a day off, as a GM would, so that nothing more falls due."""
    later = utcnow() + timedelta(days=1)
    with transaction(factory) as s:
        game = s.scalar(select(Game).where(Game.name == GAME).with_for_update())  # waits for a scheduler at it
        assert game is not None
        game.deadline_at = game.next_check_at = later
        game.orders_changed = False
        s.execute(update(GamePhase).where(GamePhase.game_id == game.id, GamePhase.adjudicated_at.is_(None))
                  .values(deadline_at=later))


def _log(data: Path) -> str:
    return (data / "serve.log").read_text(errors="replace")


async def _wait(predicate: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not await asyncio.to_thread(predicate):
        assert time.monotonic() < deadline, f"not within {timeout} s: {what}"
        await asyncio.sleep(0.1)


def _order_mail() -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = f"france@{DOMAIN}"
    msg["To"] = GM
    msg["Subject"] = "orders"
    msg["Message-ID"] = f"<twins-{os.getpid()}-{time.time_ns()}@{DOMAIN}>"
    msg.set_content(f"SIGNON France {GAME} {PASSWORD}\nA Par - Bur\n")
    return msg


async def _stop(servers: Iterable[subprocess.Popen[bytes]]) -> None:
    """Stop each server still running as an operator does (SIGTERM), killed if it takes over 15 s."""
    for server in servers:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            try:
                await asyncio.to_thread(server.wait, 15)
            except subprocess.TimeoutExpired:
                _kill(server)


def _kill(server: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(server.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    server.wait()


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
@pytest.mark.long
async def test_two_servers_one_killed_mid_game_every_deadline_and_mail_once(
    migrated_url: str, dovecot: Dovecot, smtp_front: SmtpFront, gm_serve: StartGmServe, tmp_path: Path
) -> None:
    engine = make_engine(migrated_url)
    factory = make_session_factory(engine)
    sink = Sink()
    controller = Controller(sink, hostname="127.0.0.1", port=free_port())
    controller.start()
    await asyncio.to_thread(_setup_game, factory)
    data = {"a": tmp_path / "a", "b": tmp_path / "b"}
    for folder in data.values():
        folder.mkdir()
    # Each in a process group of its own, so that its outbox process dies with it.
    servers = {name: gm_serve(migrated_url, dovecot, controller.port, folder, own_group=True, GM_SCHEDULER_SECONDS="0.2")
               for name, folder in data.items()}
    try:
        await _wait(lambda: _mailbox_holder(factory) in {s.pid for s in servers.values()}, 20, "a mailbox holder")
        holder = next(name for name, s in servers.items() if s.pid == _mailbox_holder(factory))
        standby = "b" if holder == "a" else "a"
        await _wait(lambda: "standby: another gm serve holds the mailbox" in _log(data[standby]), 20,
                    "the other server standing by")
        await asyncio.to_thread(_start, factory)

        await _wait(lambda: _adjudicated(factory) >= 2, 20, "two phases adjudicated")
        # Killed just as the next deadline falls due: both servers are after that game then.
        await asyncio.sleep(await asyncio.to_thread(_until_deadline, factory) + 0.05)
        _kill(servers[holder])
        killed_at = time.monotonic()
        unsent_at_kill = await asyncio.to_thread(_unsent, factory)
        adjudicated_at_kill = await asyncio.to_thread(_adjudicated, factory)

        order = _order_mail()
        await asyncio.to_thread(smtp_front.send, order)
        await _wait(lambda: _answered(factory, order["Message-ID"]), 15, "the order mail answered by the standby")
        answered_in = time.monotonic() - killed_at
        assert "took over the mailbox" in _log(data[standby])
        assert _mailbox_holder(factory) == servers[standby].pid

        await _wait(lambda: _adjudicated(factory) >= adjudicated_at_kill + MORE_DEADLINES, 30,
                    "more deadlines after the kill")
        await asyncio.to_thread(_stop_the_clock, factory)
        # The killed server's leased rows go when their lease (30 s) runs out.
        await _wait(lambda: not _unsent(factory), 45, "every mail sent")
    finally:
        await _stop(servers.values())
        controller.stop()

    assert servers[standby].returncode == 0, _log(data[standby])
    with transaction(factory) as s:
        game = s.scalar(select(Game).where(Game.name == GAME))
        assert game is not None
        rows = s.scalars(select(GamePhase).where(GamePhase.game_id == game.id).order_by(GamePhase.seq)).all()
        done = [r for r in rows if r.adjudicated_at is not None]
        audit = s.scalars(select(AuditEntry.detail).where(AuditEntry.game_id == game.id,
                                                          AuditEntry.action == "adjudicate")).all()
        outbox = s.scalars(select(OutboundMail)).all()
    # Every phase adjudicated once: contiguous, each label once, each with results, each once in the log.
    assert [r.seq for r in rows] == list(range(1, len(rows) + 1))
    assert len({r.label for r in rows}) == len(rows), [r.label for r in rows]
    assert rows[-1].adjudicated_at is None and done == rows[:-1]
    assert all(r.results_json for r in done)
    assert sorted(d["phase"] for d in audit) == sorted(r.label for r in done)
    assert len(done) >= adjudicated_at_kill + MORE_DEADLINES
    # One results mail per player per adjudication, each sent, the sink having each Message-ID once.
    results = Counter((m.to_addr, m.subject) for m in outbox if m.kind == "results")
    assert results and max(results.values()) == 1, results
    assert {to for to, _ in results} == {f"{p.lower()}@{DOMAIN}" for p in POWERS}
    assert all(m.sent_at is not None for m in outbox)
    copies = sink.copies()
    assert set(copies) == {m.message_id for m in outbox}
    # A second copy only of a mail the killed server had sent without marking it (see above).
    may_repeat = unsent_at_kill & sink.first_before(killed_at + 0.5)
    repeated = {mid: n for mid, n in copies.items() if n > 1}
    assert all(n == 2 and mid in may_repeat for mid, n in repeated.items()), (repeated, may_repeat)
    print(f"order answered {answered_in:.1f} s after the kill; {len(done)} phases; "
          f"{len(outbox)} mails, {len(repeated)} sent twice (of {len(unsent_at_kill)} unsent at the kill)")
    engine.dispose()


def _status(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "gm", "status", *args], capture_output=True, text=True, timeout=60,
                          env={"PATH": "/usr/bin:/bin", "GM_DATABASE_URL": url})


@pytest.mark.parametrize("db_url", ["postgresql"], indirect=True)
@pytest.mark.long
async def test_gm_status_names_the_mailbox_holder_the_standby_and_a_dead_server(
    migrated_url: str, dovecot: Dovecot, smtp_front: SmtpFront, gm_serve: StartGmServe, tmp_path: Path
) -> None:
    data = {"a": tmp_path / "a", "b": tmp_path / "b"}
    for folder in data.values():
        folder.mkdir()
    servers = {name: gm_serve(migrated_url, dovecot, smtp_front, folder, own_group=True) for name, folder in data.items()}
    host = socket.gethostname()

    def line_of(done: subprocess.CompletedProcess[str], pid: int) -> str:
        return next((line for line in done.stdout.splitlines() if f" pid {pid}: " in line), "")

    try:
        def both_seen() -> subprocess.CompletedProcess[str] | None:
            done = _status(migrated_url)
            said = [line_of(done, s.pid) for s in servers.values()]
            return done if done.returncode == 0 and all(said) and any("standby" in x for x in said) else None

        await _wait(lambda: both_seen() is not None, 30, "both servers in gm status, one standing by")
        done = both_seen()
        assert done is not None
        holder = next(name for name, s in servers.items() if "holds the mailbox" in line_of(done, s.pid))
        standby = "b" if holder == "a" else "a"
        assert line_of(done, servers[standby].pid).startswith(f"  {host} (this host) pid {servers[standby].pid}: standby")
        assert _status(migrated_url, "--this-host").returncode == 0

        _kill(servers[holder])  # its row stays; on this host gm status sees its process gone
        def taken_over() -> bool:
            done = _status(migrated_url)
            return (done.returncode == 0 and "DEAD, last seen" in line_of(done, servers[holder].pid)
                    and "holds the mailbox" in line_of(done, servers[standby].pid))
        await _wait(taken_over, 20, "the standby holding the mailbox in gm status, the killed one dead")
    finally:
        await _stop(servers.values())
    assert servers[standby].returncode == 0
    done = _status(migrated_url)
    assert done.returncode == 1 and done.stdout.splitlines()[-1] == "UNHEALTHY: no gm serve runs"
    assert f"pid {servers[standby].pid}" not in done.stdout  # stopped cleanly: its row is gone
