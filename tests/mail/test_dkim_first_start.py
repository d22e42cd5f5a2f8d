"""The judge's DKIM key made by `gm serve` at its first start (gm.server.judge_dkim_key), as the compose
stack needs it: two judges starting at once on one data volume make one key between them and both
sign with it; the record to publish is logged, and `gm mail dkim-key --show` prints it again."""
from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gm.mail.outgoing.signing import load_key, new_key

ROOT = Path(__file__).resolve().parents[2]
DOMAIN = "example.org"
GM = f"gm@{DOMAIN}"

# One starting judge: ready, then at the word go makes or reads the key; prints its record, and on
# stderr what it logged. `new_key` alone (no check for the file first) makes the race certain.
RACER = """
import logging, sys, time
from pathlib import Path
from gm.mail.outgoing.signing import load_key, new_key
from gm.server import judge_dkim_key
from gm.settings import load_settings

logging.basicConfig(level=logging.INFO, format="%(message)s")
data, mode, me = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
settings = load_settings(environ={"GM_ADDRESS": "gm@example.org", "GM_DATA_DIR": str(data), "GM_DKIM_SELECTOR": "gm1"})
(data / f"ready-{me}").touch()
while not (data / "go").exists():
    time.sleep(0.001)
if mode == "new_key":
    try:
        new_key(data / "dkim-gm1.key", "rsa")
        print("made", file=sys.stderr)
    except FileExistsError:
        pass
    print(load_key(data / "dkim-gm1.key", "gm1", "example.org").record())
else:
    print(judge_dkim_key(settings, make=True).record())
"""


def _race(data: Path, mode: str, n: int = 2) -> list[subprocess.CompletedProcess[str]]:
    data.mkdir()
    base = {k: v for k, v in os.environ.items() if not k.startswith("GM_")}
    procs = [subprocess.Popen([sys.executable, "-c", RACER, str(data), mode, str(i)], cwd=ROOT, env=base,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for i in range(n)]
    end = time.monotonic() + 60
    while not all((data / f"ready-{i}").exists() for i in range(n)):
        assert time.monotonic() < end and all(p.poll() is None for p in procs), [p.communicate() for p in procs]
        time.sleep(0.01)
    (data / "go").touch()
    done = []
    for p in procs:
        out, err = p.communicate(timeout=60)
        assert p.returncode == 0, err
        done.append(subprocess.CompletedProcess(p.args, p.returncode, out, err))
    return done


def _one_key_both_read(data: Path, done: list[subprocess.CompletedProcess[str]], made: str) -> None:
    key = load_key(data / "dkim-gm1.key", "gm1", DOMAIN)
    assert key.algorithm == "rsa"
    assert [d.stdout.strip() for d in done] == [key.record()] * len(done)
    assert sum(made in d.stderr for d in done) == 1
    assert stat.S_IMODE((data / "dkim-gm1.key").stat().st_mode) == 0o600
    assert sorted(p.name for p in data.iterdir() if not p.name.startswith("ready-")) == ["dkim-gm1.key", "go"]


def test_two_processes_making_the_key_at_once_end_with_one_key_both_read(tmp_path: Path) -> None:
    # The loser reads the winner's key whole at once: it is never seen half written.
    _one_key_both_read(tmp_path / "a", _race(tmp_path / "a", "new_key"), "made")
    # As two judges starting together do: one logs the record, both sign with that key.
    _one_key_both_read(tmp_path / "b", _race(tmp_path / "b", "serve"), "made the DKIM key")


def test_a_key_being_written_is_not_there_yet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Between one maker's create and its write, another finds no key, never half a key: it makes
    its own, which the first then finds in place, whole."""
    path = tmp_path / "dkim-gm1.key"
    seen: list[bool] = []
    fsync = os.fsync

    def writing(fd: int) -> None:  # the first maker's key written, not yet in place
        fsync(fd)
        if not seen:
            seen.append(path.exists())
            new_key(path, "rsa")  # the other judge, at that moment

    monkeypatch.setattr(os, "fsync", writing)
    with pytest.raises(FileExistsError):
        new_key(path, "rsa")
    assert seen == [False]
    assert load_key(path, "gm1", DOMAIN).algorithm == "rsa"
    assert [p.name for p in tmp_path.iterdir()] == ["dkim-gm1.key"]  # no temporary file left


def _gm(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("GM_")}
    return subprocess.run([sys.executable, "-m", "gm", *args], cwd=ROOT, env={**base, "GM_ADDRESS": GM, **env},
                          capture_output=True, text=True, timeout=60)


def test_gm_serve_makes_the_key_at_its_first_start_and_logs_its_record(tmp_path: Path) -> None:
    env = {"GM_DATA_DIR": str(tmp_path), "GM_DKIM_SELECTOR": "gm1"}
    shown = _gm(env, "mail", "dkim-key", "--show")
    assert shown.returncode == 2 and not shown.stdout
    assert shown.stderr.strip() == (f"gm mail dkim-key: no DKIM key at {tmp_path / 'dkim-gm1.key'} for the selector "
                                    "gm1: gm serve makes it at its first start when GM_DKIM_SELECTOR is set, or make "
                                    "one with gm mail dkim-key")
    log_path = tmp_path / "serve.log"
    base = {k: v for k, v in os.environ.items() if not k.startswith("GM_")}
    with log_path.open("w") as log:
        server = subprocess.Popen([sys.executable, "-m", "gm", "serve"], cwd=ROOT, stdout=log, stderr=log,
                                  env={**base, "GM_ADDRESS": GM, **env}, start_new_session=True)
    try:
        end = time.monotonic() + 60
        while "made the DKIM key" not in log_path.read_text():
            assert server.poll() is None and time.monotonic() < end, log_path.read_text()
            time.sleep(0.1)
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        server.wait(timeout=30)
    path = tmp_path / "dkim-gm1.key"
    key = load_key(path, "gm1", DOMAIN)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    (line,) = [line for line in log_path.read_text().splitlines() if "DKIM" in line]
    assert line.endswith(f"gm.server: made the DKIM key {path} (there was none): publish this TXT record: "
                         f"gm1._domainkey.{DOMAIN}. IN TXT \"{key.record()}\"")
    assert "PRIVATE" not in log_path.read_text() and path.read_text().splitlines()[1] not in log_path.read_text()
    # The record again, of the key now in use: what the operator publishes.
    shown = _gm(env, "mail", "dkim-key", "--show")
    assert shown.returncode == 0, shown.stderr
    assert shown.stdout.splitlines()[-1] == f"gm1._domainkey.{DOMAIN}. IN TXT \"{key.record()}\""
    assert _gm(env, "mail", "dkim-key", "--show", "--ed25519").returncode == 2  # one or the other


def test_a_key_named_in_gm_dkim_key_is_never_made(tmp_path: Path) -> None:
    """GM_DKIM_KEY names the operator's own key: missing, it is a mistake to say, not a key to make."""
    named = tmp_path / "keys" / "judge.key"
    done = _gm({"GM_DATA_DIR": str(tmp_path / "data"), "GM_DKIM_SELECTOR": "gm1", "GM_DKIM_KEY": str(named)}, "serve")
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert done.stderr.splitlines()[-1] == (f"gm: no DKIM key at {named} for the selector gm1 (GM_DKIM_SELECTOR): make "
                                            "one with gm mail dkim-key, or set GM_DKIM_KEY to yours")
    assert not named.exists() and not named.parent.exists()
