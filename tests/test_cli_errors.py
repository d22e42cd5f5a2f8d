"""Failures an operator can fix end every command in one line, `gm: what is wrong: what to do`,
with exit status 2; `gm --debug` shows the traceback instead. Run through the real command."""
from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

import pytest

COMMANDS = [["db", "upgrade"], ["game", "new", "g1"], ["game", "list"], ["game", "show", "g1"], ["serve"]]


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


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # nothing listens once it is closed


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_database_path_that_cannot_be_made(command: list[str], tmp_path: Path) -> None:
    # A folder under a regular file cannot be made, even by root.
    (tmp_path / "afile").write_text("")
    done = gm(*command, cwd=tmp_path, GM_DATABASE_URL=f"sqlite:///{tmp_path}/afile/sub/db.sqlite3")
    assert one_line(done) == (
        f"gm: cannot make or write {tmp_path}/afile/sub: Not a directory: "
        "fix that, or set GM_DATABASE_URL (or database_url) to a place gm may write"
    )


@pytest.mark.parametrize("command", [["db", "upgrade"], ["serve"]], ids=" ".join)
def test_a_data_folder_that_cannot_be_made(command: list[str], tmp_path: Path) -> None:
    done = gm(*command, cwd=tmp_path, GM_DATA_DIR="/proc/gm-no-such-folder/data")
    line = one_line(done)
    assert line.startswith("gm: cannot make or write /proc/gm-no-such-folder")
    assert line.endswith("fix that, or set GM_DATA_DIR (or data_dir) to a place gm may write")


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_postgresql_down(command: list[str], tmp_path: Path) -> None:
    port = closed_port()
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


def test_settings_that_cannot_work_stop_gm_serve_at_once(tmp_path: Path) -> None:
    done = gm("serve", cwd=tmp_path, GM_IMAP_HOST="imap.example.org", GM_ADDRESS="judge@example.org")
    assert one_line(done).startswith("gm: no IMAP user (GM_IMAP_USER or [imap] user): set it and GM_IMAP_PASSWORD")
    assert not (tmp_path / "data").exists()  # refused before anything was made


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    done = gm("--debug", "db", "upgrade", cwd=tmp_path, GM_DATABASE_URL=f"postgresql+psycopg://gm@127.0.0.1:{closed_port()}/gm")
    assert done.returncode != 0
    assert "Traceback" in done.stderr and "OperationalError" in done.stderr
