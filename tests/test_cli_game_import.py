"""`gm game import FILE --name NAME`: the GM moves a game in from another judge on the command line.
What was read is shown (and its map written with --map); the game is made only with the GM's yes
(--yes), paused, each player mailed a code; a text that cannot move in makes nothing."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from sqlalchemy import func, select

from gm.store.db import make_engine, make_session_factory, transaction, upgrade
from gm.store.models import AuditEntry, Confirmation, Game, GamePhase, Master, OutboundMail

TEXTS = Path(__file__).parent / "lifecycle" / "moving_in" / "texts"


def gm(*args: str, db: Path) -> subprocess.CompletedProcess[str]:
    env = {"GM_ADDRESS": "gm@example.org", "GM_DATABASE_URL": f"sqlite:///{db}", "GM_TIMEZONE": "Europe/Paris",
           "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "gm", *args], capture_output=True, text=True, env=env, timeout=60,
                          stdin=subprocess.DEVNULL)


def stored(db: Path) -> dict[str, int]:
    with transaction(make_session_factory(make_engine(f"sqlite:///{db}"))) as s:
        return {t.__tablename__: s.scalar(select(func.count()).select_from(t)) or 0
                for t in (Game, GamePhase, Confirmation, OutboundMail, AuditEntry)}


NOTHING = {"games": 0, "phases": 0, "confirmations": 0, "outbox": 0, "audit_log": 0}


def test_a_status_file_moves_in_paused_once_the_gm_says_yes(tmp_path: Path) -> None:
    db = tmp_path / "gm.sqlite3"
    upgrade(f"sqlite:///{db}")
    status = str(TEXTS / "dpjudge-standard-status.txt")
    asked = gm("game", "import", status, "--name", "old1", db=db)
    assert asked.returncode == 2 and "add --yes to make it" in asked.stderr and "nothing was made" in asked.stderr
    assert "DPjudge status file of oldgame: Diplomacy (standard map), Fall 1901, Movement" in asked.stdout
    assert "Player France: france@players.test" in asked.stdout
    assert stored(db) == NOTHING

    picture = tmp_path / "read.png"
    made = gm("game", "import", status, "--name", "old1", "--map", str(picture), "--yes", db=db)
    assert made.returncode == 0, made.stderr
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "old1 is under way in Fall 1901, Movement, paused: 7 players" in made.stdout
    assert "gm game master old1 RESUME starts the clock" in made.stdout
    assert "GM: gm.old@example.org; no GM password was given" in made.stdout  # the file's MASTER
    with transaction(make_session_factory(make_engine(f"sqlite:///{db}"))) as s:
        game = s.scalars(select(Game)).one()
        assert (game.name, game.status, game.variant) == ("old1", "active", "standard") and game.paused_at
        assert [m.email for m in s.scalars(select(Master))] == ["gm.old@example.org"]
        codes = s.scalars(select(OutboundMail).where(OutboundMail.kind == "confirm")).all()
        assert sorted(m.to_addr for m in codes) == sorted(f"{p}@players.test" for p in (
            "austria", "england", "france", "germany", "italy", "russia", "turkey"))
        assert all(m.subject.startswith("gm: confirm you play ") for m in codes)
        actions = [a.action for a in s.scalars(select(AuditEntry).order_by(AuditEntry.id))]
        assert actions == ["create game", "add master", "move in"]
    again = gm("game", "import", status, "--name", "old1", "--yes", db=db)
    assert again.returncode == 2 and "there is already a game called old1" in again.stderr


def test_a_text_that_cannot_move_in_names_every_problem_and_makes_nothing(tmp_path: Path) -> None:
    db = tmp_path / "gm.sqlite3"
    upgrade(f"sqlite:///{db}")
    broken = tmp_path / "status"
    broken.write_text((TEXTS / "dpjudge-standard-status.txt").read_text().replace("A SER\n", "A XYZ\n")
                      .replace("PHASE FALL 1901 MOVEMENT", "PHASE FALL 1901 INCOME"))
    done = gm("game", "import", str(broken), "--name", "old2", "--yes", db=db)
    assert done.returncode == 2
    assert f"gm game import: {broken} cannot move in (2 problems); nothing was made:" in done.stderr
    assert "  line 2: 'FALL 1901 INCOME' is no phase of Diplomacy (standard map) as gm plays it" in done.stderr
    assert "  line 19: 'XYZ' is no place on the Diplomacy (standard map) board" in done.stderr
    mail = gm("game", "import", str(TEXTS / "njudge-standard-fall.txt"), "--name", "old3", "--yes", db=db)
    assert mail.returncode == 2 and "no player for Turkey: add 'Player Turkey: <address>'" in mail.stderr
    wrong = gm("game", "import", str(TEXTS / "njudge-classical-fall.txt"), "--name", "old4", "--variant", "standard",
               "--yes", db=db)
    assert wrong.returncode == 2 and "wrong variant: the text is a game of Classical Mediterranean Diplomacy" \
        in wrong.stderr
    assert stored(db) == NOTHING
