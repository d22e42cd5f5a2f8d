"""Engines, sessions, the one transaction helper, migrations, and positions as JSON."""
from __future__ import annotations

import fcntl
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from alembic.util import CommandError
from sqlalchemy import Connection, Engine, create_engine, event, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.pool import NullPool

from gm.engine.model import Dislodged, GameState, Phase, PhaseKind, Season, Unit, UnitType

DEFAULT_URL = "sqlite:///data/gm.sqlite3"
MIGRATIONS = Path(__file__).resolve().parents[2] / "migrations"
SQLITE_BUSY_TIMEOUT_MS = 10_000

# --- engines and sessions -----------------------------------------------------------------------


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for `url`: 'sqlite:///path' or 'postgresql+psycopg://user@host/db'.

    SQLite gets foreign keys, WAL and a busy timeout on every connection, and transactions that
    begin with BEGIN IMMEDIATE: the write lock is taken at the start, so two processes writing
    at once wait for each other (up to the busy timeout) instead of failing half-way. It makes no
    folder: only upgrade() makes a database (see require_database).
    """
    if make_url(url).get_backend_name() != "sqlite":
        return create_engine(url, **kwargs)
    engine = create_engine(url, **kwargs)
    event.listen(engine, "connect", _sqlite_connect)
    event.listen(engine, "begin", _sqlite_begin)
    return engine


def _sqlite_connect(dbapi_connection: Any, _record: object) -> None:
    # Take transaction control from the sqlite3 module, whose legacy mode starts no transaction
    # for SELECT or DDL; _sqlite_begin starts every transaction instead.
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        # In WAL mode NORMAL keeps every committed transaction through a crash of the process
        # (the case exactly-once is about); only a power cut may lose the last few commits.
        cursor.execute("PRAGMA synchronous = NORMAL")
    finally:
        cursor.close()


def _sqlite_begin(connection: Connection) -> None:
    connection.exec_driver_sql("BEGIN IMMEDIATE")


def make_session_factory(engine: Engine) -> sessionmaker[Session]:
    # Objects stay readable after their transaction ends, e.g. to render a reply from them.
    return sessionmaker(engine, expire_on_commit=False)


@contextmanager
def transaction(session_factory: sessionmaker[Session]) -> Iterator[Session]:
    """A session in one transaction: committed if the block ends normally, rolled back if it raises."""
    with session_factory() as session, session.begin():
        yield session


# --- who serves: the mailbox lock ---------------------------------------------------------------

MAILBOX_LOCK_KEY = 0x676D5F7365727665  # 'gm_serve': PostgreSQL's advisory lock on the GM's mailbox
MIGRATION_LOCK_KEY = 0x676D5F6D69677261  # 'gm_migra': one `gm db upgrade` at a time on PostgreSQL
# The lock's connection notices a dead network within seconds, not the kernel's two hours.
_LOCK_CONNECT_ARGS = {
    "connect_timeout": 10,
    "keepalives": 1,
    "keepalives_idle": 5,
    "keepalives_interval": 2,
    "keepalives_count": 3,
    "tcp_user_timeout": 10_000,
}


class AlreadyServing(RuntimeError):
    """Another `gm serve` is running on the same database, and this set-up allows only one."""


def shared_database(url: str) -> bool:
    """Whether several `gm serve` may share the database at `url` (PostgreSQL; not an SQLite file)."""
    return make_url(url).get_backend_name() == "postgresql"


@contextmanager
def service_lock(url: str, wait: float = 0.0) -> Iterator[None]:
    """Held while the one `gm serve` allowed runs on the database at `url`: on an SQLite file, and
    with embedded mail servers (whose mailbox is the server's own). A second raises AlreadyServing
    (after trying for `wait` seconds: a service restarted at once may find its killed
    predecessor's lock not yet let go). The lock goes with its process, however that ends: an
    exclusive flock on a file beside an SQLite database, on PostgreSQL the mailbox lock (see
    MailboxLock), held for the whole run."""
    parsed = make_url(url)
    deadline = time.monotonic() + wait
    if parsed.get_backend_name() == "sqlite":
        if not parsed.database or parsed.database == ":memory:" or parsed.database.startswith("file:"):
            yield
            return
        path = Path(f"{parsed.database}.serve-lock")
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a") as lock:
            while True:
                try:
                    fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() >= deadline:
                        raise AlreadyServing(
                            f"another gm serve is running on {parsed.database} (one per SQLite file: "
                            "several share a PostgreSQL database)"
                        ) from None
                    time.sleep(0.2)
            yield
        return
    lock = MailboxLock(url)
    try:
        while not lock.try_acquire():
            if time.monotonic() >= deadline:
                raise AlreadyServing(f"another gm serve is running on {lock.where}")
            time.sleep(0.2)
        yield
    finally:
        lock.close()


class MailboxLock:
    """Which of the `gm serve` sharing a PostgreSQL database reads the GM's mailbox: the one that
    holds a session-level advisory lock, on a connection of its own kept open meanwhile. Two
    readers would be safe (ingest keeps each mail once) but would each fetch every mail; the
    others stand by, sharing deadlines and the outbox, and try for the lock every second or two.
    A holder that dies, even by SIGKILL, drops its connection, and PostgreSQL lets the lock go at
    once. The connection is named `gm-mailbox pid=... host=...` (pg_stat_activity shows who holds
    it). Its methods may be called from several threads, one at a time."""

    def __init__(self, url: str) -> None:
        self.where = make_url(url).render_as_string(hide_password=True)
        name = f"gm-mailbox pid={os.getpid()} host={socket.gethostname()}"[:63]
        connect_args: dict[str, Any] = {**_LOCK_CONNECT_ARGS, "application_name": name}
        self._engine = create_engine(url, poolclass=NullPool, connect_args=connect_args)
        self._connection: Connection | None = None
        self._mutex = threading.Lock()
        self.held = False

    def try_acquire(self) -> bool:
        """Take the lock if it is free; whether it is held now. Raises if the database cannot be reached."""
        with self._mutex:
            if self.held:
                return True
            while True:
                fresh = self._connection is None
                try:
                    if self._connection is None:
                        # Autocommit: no transaction left open between two tries, holding back VACUUM.
                        self._connection = self._engine.connect().execution_options(isolation_level="AUTOCOMMIT")
                    query = text("SELECT pg_try_advisory_lock(:key)")
                    self.held = bool(self._connection.scalar(query, {"key": MAILBOX_LOCK_KEY}))
                    return self.held
                except Exception:
                    self._drop()
                    if fresh:
                        raise
                    # The connection kept from the last try was lost meanwhile: once more on a new one.

    def still_held(self) -> bool:
        """Whether the lock is still held: False once its connection is lost (PostgreSQL has let
        the lock go with it, and another server may have it now)."""
        with self._mutex:
            if not self.held or self._connection is None:
                return False
            try:
                self._connection.scalar(text("SELECT 1"))
            except Exception:
                self._drop()
                return False
            return True

    def release(self) -> None:
        """Let the lock go: at once (a closed connection's lock goes a moment later), then its connection."""
        with self._mutex:
            if self.held and self._connection is not None:
                try:
                    self._connection.scalar(text("SELECT pg_advisory_unlock(:key)"), {"key": MAILBOX_LOCK_KEY})
                except Exception:  # the connection is lost: so is the lock
                    pass
            self._drop()

    def close(self) -> None:
        self.release()
        self._engine.dispose()

    def _drop(self) -> None:
        self.held = False
        connection, self._connection = self._connection, None
        if connection is not None:
            try:
                connection.close()
            except Exception:  # a connection already lost cannot be closed cleanly; it is gone anyway
                pass


# --- migrations ---------------------------------------------------------------------------------


def alembic_config(connection: Connection | None = None) -> Config:
    """The alembic configuration of gm's migrations; with `connection`, they run on it."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


Revisions = tuple[str | None, str | None]  # the database's revision before and after; None: no tables


class DatabaseNotReady(RuntimeError):
    """The database at `where` cannot be used as it is: `gm db upgrade` makes it ready."""

    def __init__(self, where: str, revision: str | None, head: str) -> None:
        super().__init__(f"database {where} at revision {revision}, gm's latest {head}")
        self.where, self.revision, self.head = where, revision, head


class NoDatabase(DatabaseNotReady):
    """No gm database at `where`: no SQLite file, or no gm tables in it or in the PostgreSQL database."""


class DatabaseBehind(DatabaseNotReady):
    """The database at `where` lacks migrations this gm has (or has one this gm does not know: `known`)."""

    def __init__(self, where: str, revision: str | None, head: str, known: bool) -> None:
        super().__init__(where, revision, head)
        self.known = known


def sqlite_file(url: str) -> Path | None:
    """The file of an SQLite database at `url`; None for PostgreSQL and in-memory databases."""
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    if not parsed.database or parsed.database == ":memory:" or parsed.database.startswith("file:"):
        return None
    return Path(parsed.database)


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    assert head is not None  # there are migrations
    return head


def require_database(url: str) -> None:
    """Raise NoDatabase or DatabaseBehind unless the database at `url` is gm's, up to date. Makes
    nothing: a mistyped path must not look like a judge with no games, and only upgrade() (`gm db
    upgrade`, `gm serve`) makes a database or changes its tables."""
    head = head_revision()
    path = sqlite_file(url)
    where = str(path) if path is not None else make_url(url).render_as_string(hide_password=True)
    if path is not None and not path.is_file():  # connecting would make an empty file
        raise NoDatabase(where, None, head)
    engine = make_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            revision = _revision(connection)
    finally:
        engine.dispose()
    if revision is None:
        raise NoDatabase(where, None, head)
    if revision != head:
        scripts = ScriptDirectory.from_config(alembic_config())
        try:
            known = scripts.get_revision(revision) is not None
        except CommandError:
            known = False
        raise DatabaseBehind(where, revision, head, known)


def upgrade(url: str, revision: str = "head") -> Revisions:
    """Bring the database at `url` up to `revision` (the latest by default), making it (and an
    SQLite file's folder) if need be."""
    path = sqlite_file(url)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
    return _migrate(url, command.upgrade, revision)


def downgrade(url: str, revision: str) -> Revisions:
    """Take the database at `url` back down to `revision` ('base': no tables at all)."""
    return _migrate(url, command.downgrade, revision)


def _migrate(url: str, step: Callable[[Config, str], None], revision: str) -> Revisions:
    engine = make_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            if connection.dialect.name == "postgresql":
                # Servers started together would each create the same tables: one at a time, and
                # the next finds the work done. The lock is the session's: it goes with the connection.
                connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK_KEY})
                connection.commit()
            before = _revision(connection)
            # Not in a transaction now: migrations/env.py sets SQLite pragmas first, then begins one.
            step(alembic_config(connection), revision)
            return before, _revision(connection)
    finally:
        engine.dispose()


def _revision(connection: Connection) -> str | None:
    current = MigrationContext.configure(connection).get_current_revision()
    connection.rollback()  # the read began a transaction
    return current


# --- positions as JSON --------------------------------------------------------------------------

STATE_FORMAT = 1  # raise when the shape below changes, and read the old shapes too


def state_to_json(state: GameState) -> dict[str, Any]:
    """The whole position as plain JSON values; state_from_json gives back an equal GameState."""
    return {
        "format": STATE_FORMAT,
        "phase": {"year": state.phase.year, "season": state.phase.season.value, "kind": state.phase.kind.value},
        "units": {p: _unit_to_json(u) for p, u in sorted(state.units.items())},
        "supply_centres": dict(sorted(state.supply_centres.items())),
        "home_centres": {power: sorted(homes) for power, homes in sorted(state.home_centres.items())},
        "dislodged": {
            p: {
                "unit": _unit_to_json(d.unit),
                "attacker_from": d.attacker_from,
                "retreats": list(d.retreats),
            }
            for p, d in sorted(state.dislodged.items())
        },
        "contested": sorted(state.contested),
        "extra": {key: _encode(value) for key, value in state.extra.items()},
    }


def state_from_json(data: dict[str, Any]) -> GameState:
    if data.get("format") != STATE_FORMAT:
        raise ValueError(f"unknown position format {data.get('format')!r}")
    phase = data["phase"]
    return GameState(
        phase=Phase(phase["year"], Season(phase["season"]), PhaseKind(phase["kind"])),
        units={p: _unit_from_json(u) for p, u in data["units"].items()},
        supply_centres=dict(data["supply_centres"]),
        home_centres={power: frozenset(homes) for power, homes in data["home_centres"].items()},
        dislodged={
            p: Dislodged(_unit_from_json(d["unit"]), d["attacker_from"], tuple(d["retreats"]))
            for p, d in data["dislodged"].items()
        },
        contested=frozenset(data["contested"]),
        extra={key: _decode(value) for key, value in data["extra"].items()},
    )


def _unit_to_json(unit: Unit) -> dict[str, Any]:
    out: dict[str, Any] = {"power": unit.power, "type": unit.type.value, "location": unit.location}
    if not unit.single:  # a multiple unit (Multiplicity): the keys are left out for every other
        out["count"], out["armies"] = unit.count, unit.armies
    if unit.at_sea:
        out["at_sea"] = unit.at_sea
    if unit.leader:
        out["leader"] = unit.leader
    return out


def _unit_from_json(data: dict[str, Any]) -> Unit:
    return Unit(data["power"], UnitType(data["type"]), data["location"], data.get("count", 1), data.get("armies", 0),
                data.get("at_sea", 0), data.get("leader", ""))


# GameState.extra may hold tuples and frozensets, which JSON lacks: they are written as one-key
# objects {"$tuple": [...]}. A dict with a key starting with "$" is itself written as {"$dict":
# [[key, value], ...]}, so no value of the variant's can be mistaken for a marker.
_TUPLE, _FROZENSET, _DICT = "$tuple", "$frozenset", "$dict"


def _encode(value: object) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, tuple):
        return {_TUPLE: [_encode(v) for v in value]}
    if isinstance(value, frozenset):
        return {_FROZENSET: sorted((_encode(v) for v in value), key=repr)}
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise TypeError(f"GameState.extra: dict keys must be strings, not in {value!r}")
        if any(k.startswith("$") for k in value):
            return {_DICT: [[k, _encode(v)] for k, v in value.items()]}
        return {k: _encode(v) for k, v in value.items()}
    raise TypeError(f"GameState.extra: cannot store a {type(value).__name__} as JSON: {value!r}")


def _decode(value: Any) -> object:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        ((key, inner),) = value.items()
        if key == _TUPLE:
            return tuple(_decode(v) for v in inner)
        if key == _FROZENSET:
            return frozenset(_decode(v) for v in inner)
        if key == _DICT:
            return {k: _decode(v) for k, v in inner}
    return {k: _decode(v) for k, v in value.items()}
