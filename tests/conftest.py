"""Database fixtures for every test: SQLite files and a real PostgreSQL server started for the session."""
from __future__ import annotations

import fcntl
import os
import pwd
import re
import shutil
import subprocess
import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from glob import glob
from pathlib import Path

import psycopg
import pytest
from argon2 import PasswordHasher
from sqlalchemy import Engine
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session, sessionmaker

from dnsserver import dns_zone  # noqa: F401 - a fixture, for every test
from loopback import free_port

from gm.store import judge_key, passwords
from gm.store.db import make_engine, make_session_factory, upgrade

# Argon2id at the judge's cost (RFC 9106: 64 MiB, t=3) takes 0.13 to 0.2 s a hash or a check, and
# the mail tests sign on thousands of times. Outside the tests marked `production_argon2` (the
# password module's own), hashes are made by the same algorithm and code at a small cost; a
# `gm serve` the tests start runs with the judge's own and rehashes them at a sign-on, as it
# does any hash of other parameters.
_TEST_HASHER = PasswordHasher(time_cost=1, memory_cost=2048, parallelism=1)
# The judge's secret key (gm.store.judge_key), as `gm serve` loads from its file: one for the run.
judge_key.use(bytes(range(32)))


@pytest.fixture(autouse=True)
def _argon2_cost(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("production_argon2") is None:
        monkeypatch.setattr(passwords, "_HASHER", _TEST_HASHER)


INITDB_GLOB = "/usr/lib/postgresql/*/bin/initdb"
PG_USER = "gm"


def _find_pg_bin() -> Path | None:
    """The bin/ folder of the newest PostgreSQL installed the Debian way."""
    found = glob(INITDB_GLOB)
    if not found:
        return None
    newest = max(found, key=lambda p: int(re.search(r"/postgresql/(\d+)/", p).group(1)))  # type: ignore[union-attr]
    return Path(newest).parent


def apt_install(packages: list[str], installed: Callable[[], bool]) -> str:
    """apt-get install `packages`, as scripts/setup does, unless `installed()` already holds;
    returns why it failed ('' on success). Shared by the PostgreSQL and the Dovecot fixtures."""
    if os.geteuid() == 0:
        sudo: list[str] = []
    elif shutil.which("sudo"):
        sudo = ["sudo", "-n"]
    else:
        return "not root and no sudo"
    apt = [*sudo, "env", "DEBIAN_FRONTEND=noninteractive", "apt-get"]
    # pytest-xdist workers all get here at once; dpkg takes one at a time.
    with open("/tmp/gm-tests-apt.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if installed():
            return ""
        for argv in ([*apt, "update", "-qq"], [*apt, "install", "-y", "-qq", "--no-install-recommends", *packages]):
            try:
                done = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
            except (OSError, subprocess.TimeoutExpired) as e:
                return f"{' '.join(argv)}: {e}"
            if done.returncode != 0:
                return f"{' '.join(argv)} failed: {done.stderr.strip()[-500:]}"
    return ""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Tests marked `long` (tens of seconds each) run first. pytest-xdist hands tests to its
    workers in collection order (one at a time with --dist loadgroup, see pyproject.toml): a test
    of a minute collected last would end the run a minute after everything else."""
    items.sort(key=lambda item: item.get_closest_marker("long") is None)  # stable: the rest keep their order


@pytest.fixture(scope="session")
def apt_installer() -> Callable[[list[str], Callable[[], bool]], str]:
    """apt_install, for conftest files below this one (they cannot import this module by name)."""
    return apt_install


def _pg_bin() -> Path:
    bin_dir = _find_pg_bin()
    if bin_dir is None:
        why = apt_install(["postgresql"], lambda: _find_pg_bin() is not None)
        bin_dir = _find_pg_bin()
        if bin_dir is None:
            message = (
                f"PostgreSQL is not installed ({INITDB_GLOB} matches nothing) and could not be "
                f"installed: {why or 'no initdb after installing'}. Run scripts/setup test."
            )
            if os.environ.get("CI"):
                pytest.fail(message)  # scripts/setup installs it: in CI its absence is a bug
            pytest.skip(message)
    return bin_dir


def _run(argv: list[str], as_postgres: bool) -> subprocess.CompletedProcess[str]:
    if as_postgres:  # postgres refuses to run as root
        argv = ["runuser", "-u", "postgres", "--", *argv]
    return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False)


def _server_url(port: int, database: str) -> str:
    return f"postgresql+psycopg://{PG_USER}@127.0.0.1:{port}/{database}"


def _admin(url: str) -> psycopg.Connection:
    """An autocommit connection to the server's maintenance database, for CREATE/DROP DATABASE."""
    u = make_url(url)
    return psycopg.connect(host=u.host, port=u.port, user=u.username, dbname="postgres", autocommit=True)


class ServerError(RuntimeError):
    pass


@contextmanager
def postgres_server(bin_dir: Path) -> Iterator[str]:
    """A PostgreSQL server of its own (fsync off, in a short folder under /tmp, stopped at the end)
    and an empty database `gmtest` on it; yields that database's URL. Used by the fixture below
    and by bench/ingest.py."""
    as_postgres = os.geteuid() == 0
    base = Path(tempfile.mkdtemp(prefix="gmpg", dir="/tmp"))  # short: the socket path must fit 107 bytes
    data, log = base / "data", base / "log"
    if as_postgres:
        pg = pwd.getpwnam("postgres")
        os.chown(base, pg.pw_uid, pg.pw_gid)
    try:
        done = _run(
            [str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", PG_USER, "-E", "UTF8", "--locale=C", "-N"],
            as_postgres,
        )
        if done.returncode != 0:
            raise ServerError(f"initdb failed: {done.stdout}{done.stderr}")
        for _ in range(5):  # another process may take the port between our probe and the start
            port = free_port()
            options = (
                f"-p {port} -k {base} -c listen_addresses=127.0.0.1 "
                "-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
            )
            start = [str(bin_dir / "pg_ctl"), "-D", str(data), "-w", "-l", str(log), "-o", options, "start"]
            done = _run(start, as_postgres)
            if done.returncode == 0:
                break
        else:
            raise ServerError(f"PostgreSQL did not start: {done.stderr}\n{log.read_text() if log.exists() else ''}")
        url = _server_url(port, "gmtest")
        with _admin(url) as admin:
            admin.execute("CREATE DATABASE gmtest")
        yield url
    finally:
        if (data / "postmaster.pid").exists():
            _run([str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "-w", "stop"], as_postgres)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL server for the test session; yields the URL of an empty database on it."""
    try:
        with postgres_server(_pg_bin()) as url:
            yield url
    except ServerError as e:
        pytest.fail(str(e))


@contextmanager
def _new_database(server: str, template: str = "template1") -> Iterator[str]:
    """A new database on the PostgreSQL server of `server` (a URL), a copy of `template` (empty
    by default), dropped at the end."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    with _admin(server) as admin:
        admin.execute(f"CREATE DATABASE {name} TEMPLATE {template}")
    try:
        yield make_url(server).set(database=name).render_as_string(hide_password=False)
    finally:
        with _admin(server) as admin:
            admin.execute(f"DROP DATABASE {name} WITH (FORCE)")


@pytest.fixture(scope="session")
def _migrated_sqlite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An SQLite file brought up to the latest revision, once per test process."""
    path = tmp_path_factory.mktemp("migrated") / "gm.sqlite3"
    upgrade(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def _migrated_postgres(postgres_url: str) -> str:
    """A database brought up to the latest revision, once per test process, on the session's
    PostgreSQL server (its name): the template of the tests' migrated databases."""
    name = "gm_migrated"
    with _admin(postgres_url) as admin:
        admin.execute(f"CREATE DATABASE {name}")
    upgrade(make_url(postgres_url).set(database=name).render_as_string(hide_password=False))
    return name


_MIGRATED = pytest.StashKey[bool]()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """An empty database of each kind, new for every test; for a test that asks for
    `migrated_url` too, a copy of a migrated one instead (see there)."""
    migrated = "migrated_url" in request.fixturenames
    request.node.stash[_MIGRATED] = migrated
    if request.param == "sqlite":
        path = tmp_path / "gm.sqlite3"
        if migrated:
            shutil.copyfile(request.getfixturevalue("_migrated_sqlite"), path)
        yield f"sqlite:///{path}"
        return
    template = request.getfixturevalue("_migrated_postgres") if migrated else "template1"
    with _new_database(request.getfixturevalue("postgres_url"), template) as url:
        yield url


@pytest.fixture
def other_db_url(db_url: str, tmp_path: Path) -> Iterator[str]:
    """A second empty database of the same kind as `db_url` (on PostgreSQL, on the same server)."""
    if db_url.startswith("sqlite"):
        yield f"sqlite:///{tmp_path / 'other' / 'gm.sqlite3'}"
        return
    with _new_database(db_url) as url:
        yield url


@pytest.fixture
def migrated_url(db_url: str, request: pytest.FixtureRequest) -> str:
    """`db_url` at the latest revision. Running the migrations takes about a second a test, on
    hundreds of tests: db_url copies a database they brought up once per test process instead
    (tests/store/ runs the migrations themselves)."""
    if not request.node.stash.get(_MIGRATED, False):
        upgrade(db_url)
    return db_url


@pytest.fixture
def engine(migrated_url: str) -> Iterator[Engine]:
    engine = make_engine(migrated_url)
    yield engine
    engine.dispose()


@pytest.fixture
def session_factory(engine: Engine) -> sessionmaker[Session]:
    return make_session_factory(engine)
