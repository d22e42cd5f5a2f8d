"""`gm map render`, `gm map check`: a GM looks at a case or a stored game without a game running,
and the board is held to its rules."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from PIL import Image

from gm.games import find_game
from gm.lifecycle import phases
from gm.store.db import make_engine, make_session_factory, transaction, upgrade
from gm.store.models import Player, utcnow

ROOT = Path(__file__).resolve().parents[2]


def gm(*args: str, db: Path | None = None, maps: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {"GM_ADDRESS": "gm@example.org", "GM_DATABASE_URL": f"sqlite:///{db or '/nonexistent/gm.sqlite3'}",
           "PATH": "/usr/bin:/bin"}
    if maps is not None:
        env["GM_MAPS"] = str(maps)
    return subprocess.run([sys.executable, "-m", "gm", *args], capture_output=True, text=True, env=env, timeout=120,
                          cwd=ROOT)


def test_render_a_case(tmp_path: Path) -> None:
    out = tmp_path / "case.png"
    done = gm("map", "render", "bench/midgame.case", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"midgame.1905: {out}")
    with Image.open(out) as im:
        assert im.format == "PNG" and im.width == 1200
    missing = gm("map", "render", "bench/midgame.case", "--case", "6.A.1", "--out", str(out))
    assert missing.returncode == 2 and "no case 6.A.1 in bench/midgame.case" in missing.stderr
    neither = gm("map", "render", "--out", str(out))
    assert neither.returncode == 2 and "give a case file or --game NAME" in neither.stderr


def test_render_a_stored_game_now_and_a_past_phase(tmp_path: Path) -> None:
    db = tmp_path / "gm.sqlite3"
    upgrade(f"sqlite:///{db}")  # as `gm db upgrade` makes it: no other command does
    assert gm("game", "new", "g1", "--map-palette", "colourblind", db=db).returncode == 0
    factory = make_session_factory(make_engine(f"sqlite:///{db}"))
    with transaction(factory) as s:
        game = find_game(s, "g1")
        assert game is not None and game.options["map_palette"] == "colourblind"  # type: ignore[index]
        s.add(Player(game_id=game.id, power="France", email="france@players.example", password_hash="-"))
        s.flush()
        phases.start(s, game, utcnow())
    with transaction(factory) as s:
        game = find_game(s, "g1")
        phases.check(s, game, game.deadline_at)  # Spring 1901 ends: everyone holds
    now, past, plain = tmp_path / "now.png", tmp_path / "past.png", tmp_path / "plain.png"
    done = gm("map", "render", "--game", "G1", "--out", str(now), db=db)
    assert done.returncode == 0 and done.stdout.startswith("Fall 1901, Movement: "), done.stderr
    done = gm("map", "render", "--game", "g1", "--phase", "S1901", "--out", str(past), db=db)
    assert done.returncode == 0 and done.stdout.startswith("Spring 1901, Movement: "), done.stderr
    done = gm("map", "render", "--game", "g1", "--palette", "rulebook", "--out", str(plain), db=db)
    assert done.returncode == 0, done.stderr
    assert len({now.read_bytes(), past.read_bytes(), plain.read_bytes()}) == 3
    with transaction(factory) as s:  # a palette asked for one picture is not the game's
        assert find_game(s, "g1").options["map_palette"] == "colourblind"  # type: ignore[union-attr,index]
    for phase, said in (("Fall 1905", "g1 has had no phase Fall 1905, Movement"), ("Sprung", "'Sprung' is no phase")):
        refused = gm("map", "render", "--game", "g1", "--phase", phase, "--out", str(now), db=db)
        assert refused.returncode == 2 and said in refused.stderr
    nobody = gm("map", "render", "--game", "g2", "--out", str(now), db=db)
    assert nobody.returncode == 2 and "there is no game called g2" in nobody.stderr


def test_check_fails_on_a_difference_nobody_explained(tmp_path: Path) -> None:
    maps = tmp_path / "maps"
    shutil.copytree(ROOT / "maps", maps)
    geography = maps / "standard" / "geography.toml"
    text = geography.read_text()
    start = text.index('[[force]]\nspace = "DEN"')
    end = text.find("\n\n", start)
    geography.write_text(text[:start] + (text[end + 2:] if end >= 0 else ""))  # the Danish straits are water again
    done = gm("map", "check", "standard", maps=maps)
    assert done.returncode == 1
    assert "fleet BAL-SKA: art only" in done.stdout and "unexplained" in done.stdout
    geography.write_text(text + '\n[[crossing]]\nbetween = ["LON", "BEL"]\nwhy = "no such thing"\n')
    stale = gm("map", "check", "standard", maps=maps)
    assert stale.returncode == 1 and "stale crossing BEL-LON: geography.toml lists it" in stale.stdout
    assert gm("map", "check", "standard").returncode == 0
