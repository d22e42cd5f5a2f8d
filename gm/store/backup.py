"""Backups of a judge's database, taken while `gm serve` runs, and their restore.

SQLite: the online backup API of sqlite3 copies the database as one consistent snapshot (a read
transaction, which WAL lets the server's writers go on beside) into a file of its own, in rollback
journal mode so that it is one self-contained file. PostgreSQL: `pg_dump --format=custom`, and
`pg_restore` back, run as child processes; the password goes to them through PGPASSWORD in their
environment, never on a command line or in what is printed.

A backup is written under a temporary name and renamed once complete and read back: a file with
the backup's name is always a whole one. Restore reads the file first (an SQLite file or a
pg_dump archive, with gm's tables and a revision this gm knows) and refuses anything else in one
line, refuses while a `gm serve` uses the database, and leaves the database at the backup's
revision, for `gm db upgrade` to bring up to date.
"""
from __future__ import annotations

import os
import re
import shutil
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path

import psycopg
import psycopg.sql
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy.engine import URL, make_url

from gm.store.db import AlreadyServing, alembic_config, head_revision, service_lock, sqlite_file

SQLITE_MAGIC = b"SQLite format 3\x00"
PG_DUMP_MAGIC = b"PGDMP"  # the first bytes of a pg_dump archive in the custom format
PG_TIMEOUT = 3600  # seconds a pg_dump or pg_restore may take: a stuck one must end some day
SQLITE_TIMEOUT = 10.0  # seconds to wait for a writer's lock, as gm's own connections do


class BackupError(RuntimeError):
    """What is wrong with a backup or restore, in one line the operator can act on."""


@dataclass(frozen=True)
class Backup:
    """What a backup file holds: its kind ('sqlite' or 'postgresql'), gm's revision, its games."""

    path: Path
    kind: str
    revision: str
    games: int

    @property
    def up_to_date(self) -> bool:
        return self.revision == head_revision()

    def describe(self) -> str:
        return f"revision {self.revision}, {self.games} game{'s' if self.games != 1 else ''}"


def size_text(size: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1000 or unit == "GB":
            return f"{size} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1000  # type: ignore[assignment]
    raise AssertionError("unreachable")


def _kind(url: str) -> str:
    return "sqlite" if make_url(url).get_backend_name() == "sqlite" else "postgresql"


def _sqlite_path(url: str) -> Path:
    path = sqlite_file(url)
    if path is None:
        raise BackupError(f"{url} is no database file: back up and restore a database in a file")
    return path


def _where(url: str) -> str:
    return make_url(url).render_as_string(hide_password=True)


# --- reading a backup ---------------------------------------------------------------------------


def read_backup(path: Path) -> Backup:
    """What the backup at `path` holds; BackupError, saying why, if it is not a gm backup this gm
    can restore."""
    try:
        with path.open("rb") as f:
            head = f.read(len(SQLITE_MAGIC))
    except FileNotFoundError:
        raise BackupError(f"{path}: no such file") from None
    except OSError as e:
        raise BackupError(f"cannot read {path}: {e.strerror}") from None
    if head.startswith(SQLITE_MAGIC):
        revision, games = _read_sqlite(path)
        kind = "sqlite"
    elif head.startswith(PG_DUMP_MAGIC):
        revision, games = _read_pg_dump(path)
        kind = "postgresql"
    else:
        raise BackupError(f"{path} is not a gm backup: neither an SQLite database nor a pg_dump archive (custom format)")
    _known_revision(path, revision)
    return Backup(path, kind, revision, games)


def _known_revision(path: Path, revision: str) -> None:
    try:
        known = ScriptDirectory.from_config(alembic_config()).get_revision(revision) is not None
    except CommandError:
        known = False
    if not known:
        raise BackupError(f"{path} is at revision {revision}, which this gm does not know: restore it with the gm "
                          "that made it (or a newer one)")


def _read_sqlite(path: Path) -> tuple[str, int]:
    try:
        # Read-only: looking at a file must never change it (nor make a -wal beside it).
        with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as db:
            if db.execute("PRAGMA quick_check").fetchone() != ("ok",):
                raise BackupError(f"{path} is a damaged SQLite database (PRAGMA quick_check fails)")
            tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not {"alembic_version", "games"} <= tables:
                raise BackupError(f"{path} is an SQLite database but not gm's: it has no games or alembic_version table")
            row = db.execute("SELECT version_num FROM alembic_version").fetchone()
            games = db.execute("SELECT count(*) FROM games").fetchone()[0]
    except sqlite3.DatabaseError as e:
        raise BackupError(f"cannot read {path} as an SQLite database: {e}") from None
    if row is None:
        raise BackupError(f"{path} is an SQLite database but not gm's: its alembic_version table is empty")
    return str(row[0]), int(games)


_TABLE = re.compile(r"^\d+; \d+ \d+ TABLE (\S+) (\S+) ", re.MULTILINE)


def _read_pg_dump(path: Path) -> tuple[str, int]:
    listing = _pg_run("pg_restore", ["--list", str(path)], {}, f"{path} is not a readable pg_dump archive")
    tables = {name for _schema, name in _TABLE.findall(listing)}
    if not {"alembic_version", "games"} <= tables:
        raise BackupError(f"{path} is a pg_dump archive but not of gm's database: it has no games or alembic_version table")
    # The data of those two tables, as the COPY blocks of an SQL script: one row a line.
    script = _pg_run("pg_restore", ["--data-only", "--table=alembic_version", "--table=games", "--file=-", str(path)],
                     {}, f"cannot read the data in {path}")
    rows = _copy_rows(script)
    revisions = rows.get("alembic_version", [])
    if len(revisions) != 1:
        raise BackupError(f"{path} is a pg_dump archive but not of gm's database: no revision in its alembic_version")
    return revisions[0].split("\t")[0], len(rows.get("games", []))


def _copy_rows(script: str) -> dict[str, list[str]]:
    rows: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in script.splitlines():
        if current is None:
            found = re.match(r"COPY (?:\S+\.)?(\S+) \(.*\) FROM stdin;$", line)
            if found:
                current = rows.setdefault(found.group(1).strip('"'), [])
        elif line == "\\.":
            current = None
        else:
            current.append(line)
    return rows


# --- PostgreSQL's programs ----------------------------------------------------------------------


def _pg_env(url: URL) -> dict[str, str]:
    """libpq's variables for the database at `url`: the password among them, so that no command
    line (which `ps` shows to everyone) carries it."""
    env = {"PGHOST": url.host or "", "PGPORT": str(url.port or ""), "PGUSER": url.username or "",
           "PGDATABASE": url.database or "", "PGPASSWORD": url.password or ""}
    for key, value in url.query.items():  # e.g. ?host=/run/postgresql or ?sslmode=require
        if isinstance(value, str) and key in ("host", "port", "sslmode", "sslrootcert", "sslcert", "sslkey"):
            env[f"PG{key.upper()}"] = value
    return {k: v for k, v in env.items() if v}


def _pg_run(program: str, args: list[str], env: dict[str, str], failing: str) -> str:
    """Run one of PostgreSQL's client programs; its output, or BackupError: `failing`, then the
    first line of what the program said."""
    found = shutil.which(program)
    if found is None:
        raise BackupError(f"{program} is not installed: install PostgreSQL's client programs (Debian: "
                          "postgresql-client), of the server's version or newer")
    # --no-password: never ask on a terminal; a password it needs and lacks is an error.
    child_env = {k: v for k, v in os.environ.items() if not k.startswith("PG")} | env
    try:
        done = subprocess.run([found, "--no-password", *args], env=child_env, capture_output=True, text=True,
                              timeout=PG_TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise BackupError(f"{failing}: {program} took longer than {PG_TIMEOUT} s") from None
    if done.returncode != 0:
        said = next((line for line in done.stderr.splitlines() if line.strip()), f"exit status {done.returncode}")
        raise BackupError(f"{failing}: {said.removeprefix(f'{program}: ').strip()}")
    return done.stdout


# --- backup -------------------------------------------------------------------------------------


def backup(url: str, path: Path) -> Backup:
    """Write a backup of the database at `url` to `path` (replaced if it exists) while a `gm serve`
    may be running on it; what was written."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        if _kind(url) == "sqlite":
            _backup_sqlite(_sqlite_path(url), partial)
        else:
            parsed = make_url(url)
            _pg_run("pg_dump", ["--format=custom", f"--file={partial}"], _pg_env(parsed),
                    f"pg_dump of {_where(url)} failed")
        written = read_backup(partial)
        os.replace(partial, path)
    except OSError as e:
        raise BackupError(f"cannot write {path}: {e.strerror}") from None
    finally:
        partial.unlink(missing_ok=True)
    return Backup(path, written.kind, written.revision, written.games)


def _backup_sqlite(source: Path, target: Path) -> None:
    if not source.is_file():  # sqlite3.connect would make an empty one
        raise BackupError(f"there is no database at {source}: nothing to back up")
    target.unlink(missing_ok=True)
    with closing(sqlite3.connect(source, timeout=SQLITE_TIMEOUT)) as db, \
            closing(sqlite3.connect(target)) as copy:
        db.backup(copy)  # every page in one step: one snapshot, whatever the server writes meanwhile
        copy.execute("PRAGMA journal_mode = DELETE")  # one file, no -wal beside it


# --- restore ------------------------------------------------------------------------------------


def restore(url: str, path: Path) -> Backup:
    """Replace the database at `url` by the backup at `path`, unless a `gm serve` uses it; the
    database is left at the backup's revision (`gm db upgrade` brings it up to date)."""
    found = read_backup(path)
    kind = _kind(url)
    if found.kind != kind:
        raise BackupError(f"{path} is a backup of {'an SQLite' if found.kind == 'sqlite' else 'a PostgreSQL'} "
                          f"database: it restores into one of that kind, not into {_where(url)}")
    if kind == "sqlite":
        _restore_sqlite(url, path)
    else:
        _restore_postgresql(url, found)
    return found


def _restore_sqlite(url: str, path: Path) -> None:
    target = _sqlite_path(url)
    target.parent.mkdir(parents=True, exist_ok=True)  # a restore makes a database, as gm db upgrade does
    with _not_served(url):
        try:
            with closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)) as source, \
                    closing(sqlite3.connect(target, timeout=SQLITE_TIMEOUT)) as db:
                # The backup API writes every page of the target in one transaction, its -wal too:
                # a copy of the file would leave a stale -wal beside it.
                source.backup(db)
        except sqlite3.Error as e:
            raise BackupError(f"cannot restore into {target}: {e}") from None


@contextmanager
def _not_served(url: str) -> Iterator[None]:
    """Held while restoring an SQLite file: refuses if a `gm serve` runs on it, and keeps one from
    starting meanwhile."""
    try:
        with service_lock(url):
            yield
    except AlreadyServing as e:
        raise BackupError(f"{e}: stop it before restoring") from None


def _restore_postgresql(url: str, found: Backup) -> None:
    parsed = make_url(url)
    where = _where(url)
    with closing(_pg_connect(parsed)) as db:
        serving = db.execute(
            "SELECT application_name FROM pg_stat_activity WHERE datname = current_database() "
            "AND application_name LIKE 'gm-mailbox%%' AND pid <> pg_backend_pid()").fetchall()
        if serving:
            who = serving[0][0].removeprefix("gm-mailbox ")
            raise BackupError(f"a gm serve is running on {where} ({who}): stop every gm serve on it before restoring")
        # Every table goes first, in one transaction: pg_restore --clean would drop only the
        # backup's, and a later revision's tables and keys would stand in its way. The backup
        # was read through already, so what follows fails only if the server does.
        tables = [name for (name,) in db.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")]
        try:
            if tables:
                db.execute(psycopg.sql.SQL("DROP TABLE {} CASCADE").format(
                    psycopg.sql.SQL(", ").join(psycopg.sql.Identifier(name) for name in tables)))
            db.commit()
        except psycopg.Error as e:
            raise BackupError(f"cannot empty {where} to restore into it: {str(e).strip().splitlines()[0]}") from None
    _pg_run("pg_restore", ["--single-transaction", "--exit-on-error", "--no-owner", "--no-privileges",
                           f"--dbname={parsed.database}", str(found.path)],
            _pg_env(parsed), f"pg_restore into {where} failed, leaving it empty (restore again once that is fixed)")


def _pg_connect(url: URL) -> psycopg.Connection:
    params = {"host": url.host, "port": url.port, "user": url.username, "password": url.password,
              "dbname": url.database, **{k: v for k, v in url.query.items() if isinstance(v, str)}}
    try:
        return psycopg.connect(**{k: v for k, v in params.items() if v is not None}, connect_timeout=10)
    except psycopg.OperationalError as e:
        raise BackupError(f"cannot reach {_where(url.render_as_string(hide_password=False))}: "
                          f"{str(e).strip().splitlines()[0]}") from None
