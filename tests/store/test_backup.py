"""Backups: `gm db backup` while a real `gm serve` plays a game, more played after it, then `gm db
restore` into a fresh database: the game is as it was at the backup, not later, and plays on from
there (orders in, the phase adjudicated, results queued). On SQLite and PostgreSQL. Then what
restore refuses, and a backup of an older revision that `gm db upgrade` brings up to date."""
from __future__ import annotations

import os
import smtplib
import subprocess
import sys
import time
from collections.abc import Callable
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import Any

import pytest
from alembic.script import ScriptDirectory
from sqlalchemy import select
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from gm.games import create_game, current_phase, find_game
from gm.lifecycle.house_rules import OPTION_KEY, HouseRules, with_changes
from gm.mail.commands.master.start import start_game
from gm.store.db import alembic_config, make_engine, make_session_factory, transaction, upgrade
from gm.store.models import Base, OrderRecord, OutboundMail, Player, utcnow
from gm.store.passwords import hash_password
from loopback import free_port, listening, stop

ROOT = Path(__file__).resolve().parents[2]
GM = "gm@example.org"
GAME = "bk"
PLAYERS = {"France": "france@example.org", "Germany": "germany@example.org"}
SPRING = {"France": ["A Paris - Burgundy", "A Marseilles H", "F Brest - Mid-Atlantic Ocean"],
          "Germany": ["A Munich - Ruhr", "A Berlin - Kiel", "F Kiel - Holland"]}
FALL = {"France": ["A Burgundy H", "A Marseilles - Spain", "F Mid-Atlantic Ocean - Portugal"],
        "Germany": ["A Ruhr H", "A Kiel - Denmark", "F Holland H"]}
# What the running server changes on its own in rows it made: the outbox sender's bookkeeping.
VOLATILE = {"outbox": {"attempts", "next_attempt_at", "sent_at", "gave_up_at", "last_error"}}
GAME_TABLES = ("games", "masters", "players", "phases", "orders", "secret_allocations", "inbound_mail", "outbox",
               "audit_log", "confirmations", "auth_failures")


def gm(url: str, *args: str, data: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, GM_DATABASE_URL=url, GM_ADDRESS=GM)
    if data is not None:
        env["GM_DATA_DIR"] = str(data)
    return subprocess.run([sys.executable, "-m", "gm", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)


class Judge:
    """`gm serve` on its own embedded mail servers, the database at `url`; players' mail goes to
    its SMTP port as to a real MX."""

    def __init__(self, url: str, data: Path) -> None:
        data.mkdir(parents=True, exist_ok=True)
        self.url, self.smtp_port = url, free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith("GM_")}  # no mail server: embedded
        env.update(GM_ADDRESS=GM, GM_DATABASE_URL=url, GM_DATA_DIR=str(data), GM_IMAP_PORT=str(free_port()),
                   GM_SMTP_PORT=str(self.smtp_port), GM_POLL_SECONDS="1")
        log = (data / "serve.log").open("ab")
        self.process = subprocess.Popen([sys.executable, "-m", "gm", "serve"], cwd=ROOT, env=env, stdout=log,
                                        stderr=log)
        self.factory = make_session_factory(make_engine(url, poolclass=NullPool))
        until(lambda: listening(self.smtp_port), 30, lambda: (data / "serve.log").read_text()[-2000:])

    def orders(self, power: str, lines: list[str]) -> None:
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = PLAYERS[power], GM, f"{GAME} {power}"
        msg["Message-ID"] = make_msgid(domain="example.org")
        msg.set_content("\n".join([f"SIGNON {power} {GAME} pw-{power.lower()}", *lines]))
        with smtplib.SMTP("127.0.0.1", self.smtp_port) as smtp:
            smtp.send_message(msg)

    def stop(self) -> None:
        stop(self.process)


DB_PASSWORD = "s3cret-db"


def with_password(url: str) -> str:
    """`url` with a password (the test server trusts every local connection and ignores it)."""
    return url if url.startswith("sqlite") else make_url(url).set(password=DB_PASSWORD).render_as_string(False)


def until(condition: Callable[[], Any], timeout: float = 40, state: Callable[[], Any] | None = None) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out; state: {state() if state else '-'}"
        time.sleep(0.2)


def quiet(url: str, timeout: float = 30) -> dict[str, list[tuple[Any, ...]]]:
    """The snapshot of the database once it stays the same for a second and a half."""
    deadline = time.monotonic() + timeout
    last = snapshot(url)
    while True:
        time.sleep(1.5)
        now = snapshot(url)
        if now == last:
            return now
        assert time.monotonic() < deadline, "the judge never went quiet"
        last = now


def phase_label(url: str) -> str:
    with transaction(make_session_factory(make_engine(url, poolclass=NullPool))) as s:
        game = find_game(s, GAME)
        assert game is not None
        current = current_phase(s, game)
        return current.row.label if current else "-"


def orders_on_file(url: str, power: str) -> list[str]:
    """The current orders of `power` for the game's current phase."""
    with transaction(make_session_factory(make_engine(url, poolclass=NullPool))) as s:
        game = find_game(s, GAME)
        assert game is not None
        current = current_phase(s, game)
        assert current is not None
        return sorted(s.scalars(select(OrderRecord.canonical).where(
            OrderRecord.phase_id == current.row.id, OrderRecord.power == power, OrderRecord.current.is_(True))))


def snapshot(url: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the game's tables, in key order, leaving out the outbox sender's bookkeeping."""
    engine = make_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as c:
            found = {}
            for name in GAME_TABLES:
                table = Base.metadata.tables[name]
                columns = [col for col in table.columns if col.name not in VOLATILE.get(name, set())]
                found[name] = [tuple(row) for row in c.execute(select(*columns).order_by(*table.primary_key))]
            return found
    finally:
        engine.dispose()


def new_started_game(url: str) -> None:
    """A standard game with France and Germany played (the others hold), started now: players
    sign on with their passwords by mail."""
    upgrade(url)
    with transaction(make_session_factory(make_engine(url, poolclass=NullPool))) as s:
        game = create_game(s, GAME, "standard")
        game.options = {OPTION_KEY: with_changes(HouseRules(), {"movement": "1h", "retreat": "1h",
                                                                "adjustment": "1h", "remind_before": "0"}).to_options()}
        s.flush()
        for power, address in PLAYERS.items():
            s.add(Player(game_id=game.id, power=power, email=address, password_hash=hash_password(f"pw-{power.lower()}")))
        s.flush()
        start_game(s, game, gm_address=GM, now=utcnow())


@pytest.mark.long
def test_a_backup_taken_mid_game_restores_into_a_fresh_database_and_plays_on(
    db_url: str, other_db_url: str, tmp_path: Path
) -> None:
    new_started_game(db_url)
    backup_file = tmp_path / ("gm.dump" if db_url.startswith("postgresql") else "backup.sqlite3")
    judge = Judge(db_url, tmp_path / "data")
    try:
        for power, lines in SPRING.items():
            judge.orders(power, lines)
        until(lambda: phase_label(db_url) == "Fall 1901, Movement")  # early: both players' orders in
        judge.orders("France", FALL["France"])
        until(lambda: len(orders_on_file(db_url, "France")) == 3)
        before = quiet(db_url)  # the judge has answered, looked at the game, sent its mail
        made = gm(with_password(db_url), "db", "backup", str(backup_file))
        assert made.returncode == 0, made.stderr
        assert snapshot(db_url) == before  # nothing moved meanwhile: the backup is of `before`
        assert made.stdout.startswith(f"gm db backup: wrote {backup_file} (") and "1 game)" in made.stdout
        assert backup_file.stat().st_size > 10_000
        assert DB_PASSWORD not in made.stdout + made.stderr and not list(tmp_path.glob(".*.partial"))
        assert backup_file.read_bytes().startswith(b"PGDMP" if db_url.startswith("postgresql") else b"SQLite")

        # The judge is running: its database is not restored over.
        refused = gm(db_url, "db", "restore", str(backup_file))
        assert refused.returncode == 2
        assert refused.stderr.startswith("gm db restore: ") and "gm serve is running on" in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1

        judge.orders("Germany", FALL["Germany"])  # played after the backup
        until(lambda: phase_label(db_url) != "Fall 1901, Movement")
        later = snapshot(db_url)
        assert later != before
    finally:
        judge.stop()

    restored = gm(other_db_url, "db", "restore", str(backup_file))
    assert restored.returncode == 0, restored.stderr
    assert restored.stdout.strip().endswith("(revision " + head() + ", 1 game; up to date)")
    assert snapshot(other_db_url) == before  # as at the backup, not later
    assert len(orders_on_file(other_db_url, "France")) == 3 and orders_on_file(other_db_url, "Germany") == []
    assert phase_label(other_db_url) == "Fall 1901, Movement"

    # The restored judge plays on from the backed-up phase: France's orders were on file already.
    judge = Judge(other_db_url, tmp_path / "data-restored")
    try:
        judge.orders("Germany", ["A Ruhr - Belgium", "A Kiel H", "F Holland H"])  # other orders than later
        until(lambda: phase_label(other_db_url) == "Winter 1901, Adjustment")
        factory = make_session_factory(make_engine(other_db_url, poolclass=NullPool))
        with transaction(factory) as s:
            game = find_game(s, GAME)
            assert game is not None
            state = current_phase(s, game).state  # type: ignore[union-attr]
            results = s.scalars(select(OutboundMail.to_addr).where(
                OutboundMail.kind == "results", OutboundMail.subject.contains("Fall 1901"))).all()
        assert state.units["POR"].power == "France" and state.units["SPA"].power == "France"
        assert state.units["BEL"].power == "Germany" and "DEN" not in state.units
        assert sorted(results) == sorted(PLAYERS.values())
    finally:
        judge.stop()


def head() -> str:
    found = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert found is not None
    return found


def first_revision() -> str:
    return [r.revision for r in ScriptDirectory.from_config(alembic_config()).walk_revisions()][-1]


def test_an_older_backup_restores_over_a_newer_database_at_its_own_revision_for_gm_db_upgrade(
    db_url: str, other_db_url: str, tmp_path: Path
) -> None:
    old = first_revision()
    upgrade(db_url, old)
    backup_file = tmp_path / "old.backup"
    assert gm(db_url, "db", "backup", str(backup_file)).returncode == 0
    upgrade(other_db_url)  # at head, with tables the old revision lacks
    done = gm(other_db_url, "db", "restore", str(backup_file))
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith(f"(revision {old}, 0 games; gm db upgrade brings it up to date)")
    upgraded = gm(other_db_url, "db", "upgrade")
    assert upgraded.returncode == 0, upgraded.stderr
    assert f"from revision {old} to {head()}" in upgraded.stdout


@pytest.mark.parametrize("content, reason", [
    (b"", "is not a gm backup: neither an SQLite database nor a pg_dump archive"),
    (b"From: someone\n\nhello\n", "is not a gm backup: neither an SQLite database nor a pg_dump archive"),
    (b"SQLite format 3\x00" + b"\x00" * 200, "cannot read"),
    (b"PGDMP" + b"\x00" * 200, "is not a readable pg_dump archive"),
])
def test_restore_refuses_a_file_that_is_not_a_gm_backup_in_one_line(
    content: bytes, reason: str, tmp_path: Path
) -> None:
    url = f"sqlite:///{tmp_path / 'gm.sqlite3'}"
    upgrade(url)
    bad = tmp_path / "bad.backup"
    bad.write_bytes(content)
    done = gm(url, "db", "restore", str(bad))
    assert done.returncode == 2
    assert done.stderr.startswith("gm db restore: ") and str(bad) in done.stderr and reason in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_restore_refuses_an_sqlite_database_that_is_not_gms_and_a_backup_of_the_other_kind(
    tmp_path: Path, postgres_url: str
) -> None:
    import sqlite3

    other = tmp_path / "other.sqlite3"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE notes (text TEXT)")
    url = f"sqlite:///{tmp_path / 'gm.sqlite3'}"
    done = gm(url, "db", "restore", str(other))
    assert done.returncode == 2 and "is an SQLite database but not gm's" in done.stderr
    assert not (tmp_path / "gm.sqlite3").exists()  # nothing made

    upgrade(url)
    backup_file = tmp_path / "b.sqlite3"
    assert gm(url, "db", "backup", str(backup_file)).returncode == 0
    done = gm(postgres_url, "db", "restore", str(backup_file))
    assert done.returncode == 2
    assert "is a backup of an SQLite database: it restores into one of that kind" in done.stderr


def test_backup_of_a_missing_database_makes_nothing(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'nowhere' / 'gm.sqlite3'}"
    done = gm(url, "db", "backup", str(tmp_path / "b.sqlite3"))
    assert done.returncode == 2 and "there is no database at" in done.stderr
    assert not (tmp_path / "nowhere").exists() and not (tmp_path / "b.sqlite3").exists()



def test_a_failing_pg_dump_says_why_in_one_line_without_the_password(tmp_path: Path) -> None:
    url = f"postgresql+psycopg://gm:{DB_PASSWORD}@127.0.0.1:{free_port()}/gm"  # nothing listens there
    done = gm(url, "db", "backup", str(tmp_path / "gm.dump"))
    assert done.returncode == 2
    assert done.stderr.startswith("gm db backup: pg_dump of postgresql+psycopg://gm:***@127.0.0.1:")
    assert "Connection refused" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert DB_PASSWORD not in done.stderr + done.stdout and not list(tmp_path.iterdir())
