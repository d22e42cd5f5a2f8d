"""Failures an operator can fix end every command in one line, `gm: what is wrong: what to do`,
with exit status 2; `gm --debug` shows the traceback instead. Run through the real command."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.pool import NullPool

from gm.store.db import alembic_config, make_engine, upgrade
from loopback import free_port, listening
from tests.store.test_migrations import table_names

COMMANDS = [["db", "upgrade"], ["game", "new", "g1"], ["game", "list"], ["game", "show", "g1"], ["status"], ["serve"]]
MAKERS = [["db", "upgrade"], ["serve"]]  # the commands that make a database
USERS = [c for c in COMMANDS if c not in MAKERS]  # the commands that need one


def gm(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gm", *args],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", **env},
        cwd=cwd,
        timeout=60,
    )


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The failure's line, after checking that it is the only thing said and the status is 2."""
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("gm: "), done.stderr
    return lines[0]


@pytest.mark.parametrize("command", MAKERS, ids=" ".join)
def test_a_database_path_that_cannot_be_made(command: list[str], tmp_path: Path) -> None:
    # A folder under a regular file cannot be made, even by root.
    (tmp_path / "afile").write_text("")
    done = gm(*command, cwd=tmp_path, GM_DATABASE_URL=f"sqlite:///{tmp_path}/afile/sub/db.sqlite3")
    assert one_line(done) == (
        f"gm: cannot make or write {tmp_path}/afile/sub: Not a directory: "
        "fix that, or set GM_DATABASE_URL (or database_url) to a place gm may write"
    )


@pytest.mark.parametrize("command", USERS, ids=" ".join)
def test_no_command_but_db_upgrade_and_serve_makes_a_database(command: list[str], tmp_path: Path) -> None:
    # A mistyped path must not look like a judge with no games.
    where = tmp_path / "no" / "such" / "gm.sqlite3"
    done = gm(*command, cwd=tmp_path, GM_DATABASE_URL=f"sqlite:///{where}")
    assert one_line(done) == (
        f"gm: there is no gm database at {where}: make it with gm db upgrade, "
        "or set GM_DATABASE_URL (or database_url) to where yours is"
    )
    assert not (tmp_path / "no").exists()
    # The default place, under the data folder: that is the setting named.
    done = gm(*command, cwd=tmp_path, GM_DATA_DIR=str(tmp_path / "data"))
    assert one_line(done).endswith("or set GM_DATA_DIR (or data_dir) to where yours is")
    assert not (tmp_path / "data").exists()


@pytest.mark.parametrize("command", USERS, ids=" ".join)
def test_a_postgresql_database_without_gm_tables(command: list[str], db_url: str, tmp_path: Path) -> None:
    if not db_url.startswith("postgresql"):
        (tmp_path / "empty.sqlite3").write_bytes(b"")  # an empty file, as sqlite3 leaves one
        db_url = f"sqlite:///{tmp_path / 'empty.sqlite3'}"
    line = one_line(gm(*command, cwd=tmp_path, GM_DATABASE_URL=db_url))
    where = db_url.removeprefix("sqlite:///")
    said = f"is no gm database at {where}" if db_url.startswith("sqlite") else f"are no gm tables in the database {where}"
    assert line == f"gm: there {said}: make it with gm db upgrade, or set GM_DATABASE_URL (or database_url) to where yours is"
    assert table_names(db_url) == set()


@pytest.mark.parametrize("command", USERS, ids=" ".join)
def test_a_database_behind_the_migrations_is_not_upgraded_behind_the_operators_back(
        command: list[str], tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'gm.sqlite3'}"
    scripts = ScriptDirectory.from_config(alembic_config())
    head = scripts.get_current_head()
    earlier = scripts.get_revision(head).down_revision
    upgrade(url, str(earlier))
    assert one_line(gm(*command, cwd=tmp_path, GM_DATABASE_URL=url)) == (
        f"gm: the database {tmp_path / 'gm.sqlite3'} is at revision {earlier}, older than this gm's {head}: "
        "bring it up to date with gm db upgrade (gm serve does it at start)"
    )
    engine = make_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            assert MigrationContext.configure(connection).get_current_revision() == earlier
    finally:
        engine.dispose()


@pytest.mark.parametrize("command", MAKERS, ids=" ".join)
def test_a_data_folder_that_cannot_be_made(command: list[str], tmp_path: Path) -> None:
    done = gm(*command, cwd=tmp_path, GM_DATA_DIR="/proc/gm-no-such-folder/data")
    line = one_line(done)
    assert line.startswith("gm: cannot make or write /proc/gm-no-such-folder")
    assert line.endswith("fix that, or set GM_DATA_DIR (or data_dir) to a place gm may write")


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_postgresql_down(command: list[str], tmp_path: Path) -> None:
    port = free_port()
    done = gm(*command, cwd=tmp_path, GM_DATABASE_URL=f"postgresql+psycopg://gm:sekret@127.0.0.1:{port}/gm")
    line = one_line(done)
    assert line.startswith(f"gm: cannot use the database postgresql+psycopg://gm:***@127.0.0.1:{port}/gm: ")
    assert "Connection refused" in line
    assert line.endswith("check that PostgreSQL runs there and that the user and database in GM_DATABASE_URL (or database_url) exist")
    assert "sekret" not in done.stderr


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql+psycopg://::::", "gm: the database URL (GM_DATABASE_URL or database_url) is not a URL: write sqlite:///"),
        ("nosuchdb://x", "gm: unknown kind of database 'nosuchdb' (GM_DATABASE_URL or database_url): write sqlite:///"),
    ],
)
@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_malformed_database_url(command: list[str], url: str, message: str, tmp_path: Path) -> None:
    assert one_line(gm(*command, cwd=tmp_path, GM_DATABASE_URL=url)).startswith(message)


@pytest.mark.parametrize("server", ["IMAP", "SMTP"])
def test_a_busy_embedded_mail_port(server: str, tmp_path: Path) -> None:
    port = free_port()
    with socket.socket() as other:  # another program on the port gm is told to use
        other.bind(("127.0.0.1", port))
        other.listen()
        assert listening(port)
        done = gm("serve", cwd=tmp_path, GM_ADDRESS="gm@judge.example", GM_DATA_DIR=str(tmp_path / "data"),
                  **{f"GM_{server}_PORT": str(port)})
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    said = [line for line in done.stderr.splitlines() if line.startswith("gm: ")]
    assert said == [
        f"gm: the embedded {server} server cannot listen on 127.0.0.1:{port}: Address already in use: stop what "
        f"uses that port, or set GM_{server}_PORT (or [{server.lower()}] port) to another, or leave it unset for "
        "any free port"
    ]
    assert said[0] == done.stderr.splitlines()[-1]


def test_settings_that_cannot_work_stop_gm_serve_at_once(tmp_path: Path) -> None:
    done = gm("serve", cwd=tmp_path, GM_IMAP_HOST="imap.example.org", GM_ADDRESS="judge@example.org")
    assert one_line(done).startswith("gm: no IMAP user (GM_IMAP_USER or [imap] user): set it and GM_IMAP_PASSWORD")
    assert not (tmp_path / "data").exists()  # refused before anything was made


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    done = gm("--debug", "db", "upgrade", cwd=tmp_path, GM_DATABASE_URL=f"postgresql+psycopg://gm@127.0.0.1:{free_port()}/gm")
    assert done.returncode != 0
    assert "Traceback" in done.stderr and "OperationalError" in done.stderr


@pytest.mark.parametrize("command", [["game", "list"], ["game", "show", "g1"], ["status"], ["--help"]], ids=" ".join)
def test_output_into_a_pipe_nobody_reads(command: list[str], tmp_path: Path) -> None:
    # `gm game show g1 | head -1`, with head gone before gm writes: no traceback, nothing said.
    url = f"sqlite:///{tmp_path / 'gm.sqlite3'}"
    upgrade(url)
    assert gm("game", "new", "g1", cwd=tmp_path, GM_DATABASE_URL=url).returncode == 0
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run([sys.executable, "-m", "gm", *command], stdout=write, stderr=subprocess.PIPE, text=True,
                              env={"PATH": "/usr/bin:/bin", "GM_DATABASE_URL": url}, cwd=tmp_path, timeout=60)
    finally:
        os.close(write)
    assert done.stderr == ""
    assert done.returncode in (0, 1)  # 1: cut short (gm status is 1 anyway here: no gm serve runs)
