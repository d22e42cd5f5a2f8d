"""`gm game new`: the GM creates a game on the command line; players then JOIN it by mail."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from sqlalchemy import select

from gm.store.db import make_engine, make_session_factory, transaction
from gm.store.models import Game


def gm(*args: str, db: Path) -> subprocess.CompletedProcess[str]:
    env = {"GM_ADDRESS": "gm@example.org", "GM_DATABASE_URL": f"sqlite:///{db}", "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "gm", *args], capture_output=True, text=True, env=env, timeout=60)


def test_game_new_creates_a_forming_game(tmp_path: Path) -> None:
    db = tmp_path / "gm.sqlite3"
    done = gm("game", "new", "ae1", "--variant", "ambition", db=db)
    assert done.returncode == 0, done.stderr
    assert "game ae1 (ambition) is forming: players send 'JOIN ae1 <power> <password>' to gm@example.org" in done.stdout
    with transaction(make_session_factory(make_engine(f"sqlite:///{db}"))) as s:
        game = s.scalars(select(Game)).one()
        assert (game.name, game.variant, game.status) == ("ae1", "ambition", "forming")
    again = gm("game", "new", "ae1", db=db)
    assert again.returncode == 2 and "there is already a game called ae1" in again.stderr
    bad = gm("game", "new", "x1", "--variant", "chess", db=db)
    assert bad.returncode == 2 and "unknown variant 'chess'" in bad.stderr
