"""Engines, sessions, the one transaction helper, migrations, and positions as JSON."""
from __future__ import annotations

import fcntl
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
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
    at once wait for each other (up to the busy timeout) instead of failing half-way.
    """
    parsed = make_url(url)
    if parsed.get_backend_name() != "sqlite":
        return create_engine(url, **kwargs)
    if parsed.database and parsed.database != ":memory:" and not parsed.database.startswith("file:"):
        Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
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


# --- one service per database -------------------------------------------------------------------

SERVICE_LOCK_KEY = 0x676D5F7365727665  # 'gm_serve': PostgreSQL's advisory lock for `gm serve`


class AlreadyServing(RuntimeError):
    """Another `gm serve` is running on the same database."""


@contextmanager
def service_lock(url: str, wait: float = 0.0) -> Iterator[None]:
    """Held while one `gm serve` runs on the database at `url`: a second one raises AlreadyServing
    (after trying for `wait` seconds: a service restarted at once may find its killed
    predecessor's lock not yet let go). Two services would each fetch the same mail (ingest would
    keep each mail once) and take outbox rows in turn, with nobody the wiser. The lock goes with
    its process, however that ends: an exclusive flock on a file beside an SQLite database, a
    session-level advisory lock on PostgreSQL (its connection held open meanwhile)."""
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
                        raise AlreadyServing(f"another gm serve is running on {parsed.database}") from None
                    time.sleep(0.2)
            yield
        return
    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            while not connection.scalar(text("SELECT pg_try_advisory_lock(:key)"), {"key": SERVICE_LOCK_KEY}):
                if time.monotonic() >= deadline:
                    where = parsed.render_as_string(hide_password=True)
                    raise AlreadyServing(f"another gm serve is running on {where}")
                time.sleep(0.2)
            connection.commit()  # the lock is the session's, not the transaction's
            yield
    finally:
        engine.dispose()


# --- migrations ---------------------------------------------------------------------------------


def alembic_config(connection: Connection | None = None) -> Config:
    """The alembic configuration of gm's migrations; with `connection`, they run on it."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    if connection is not None:
        config.attributes["connection"] = connection
    return config


Revisions = tuple[str | None, str | None]  # the database's revision before and after; None: no tables


def upgrade(url: str, revision: str = "head") -> Revisions:
    """Bring the database at `url` up to `revision` (the latest by default), making it if need be."""
    return _migrate(url, command.upgrade, revision)


def downgrade(url: str, revision: str) -> Revisions:
    """Take the database at `url` back down to `revision` ('base': no tables at all)."""
    return _migrate(url, command.downgrade, revision)


def _migrate(url: str, step: Callable[[Config, str], None], revision: str) -> Revisions:
    engine = make_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
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


def _unit_to_json(unit: Unit) -> dict[str, str]:
    return {"power": unit.power, "type": unit.type.value, "location": unit.location}


def _unit_from_json(data: dict[str, str]) -> Unit:
    return Unit(data["power"], UnitType(data["type"]), data["location"])


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
