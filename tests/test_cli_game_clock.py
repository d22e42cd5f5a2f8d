"""`gm game new` warns of movement phases too short for a reminder (they get none) and of
reminders soon after a phase opens; `gm game start` says the deadline as a person reads it, in
the game's time zone."""
from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from gm.games import find_game
from gm.lifecycle.house_rules import rules_of
from gm.mail.outgoing.game_mail import deadline_text
from gm.store.db import make_engine, make_session_factory, transaction, upgrade
from gm.store.models import Game, Player
from test_cli_game import gm


def test_game_new_warns_of_a_reminder_before_or_soon_after_a_phase_opens_and_makes_the_game(tmp_path: Path) -> None:
    db = tmp_path / "gm.sqlite3"
    upgrade(f"sqlite:///{db}")
    done = gm("game", "new", "blitz", "--movement", "1h", "--retreat", "30m", "--adjustment", "30m",
              "--remind-before", "1d", db=db)
    assert done.returncode == 0, done.stderr
    assert "game blitz (standard) is forming" in done.stdout
    assert done.stderr.splitlines() == [
        "gm game new: warning: reminders go 1d before a deadline, but these phases are no longer than that "
        "(movement 1h): they get no reminder; set a shorter --remind-before (0: none) or longer phases"]
    soon = gm("game", "new", "soon", "--movement", "10h", "--retreat", "2h", "--adjustment", "2h",
              "--remind-before", "9h", db=db)
    assert soon.returncode == 0, soon.stderr
    assert "retreat" not in soon.stderr  # retreats and adjustments shorter than the reminder: the usual case
    assert "gm game new: warning: reminders go 9h before a deadline: in a movement phase of 10h that is 1h after " \
           "it opens" in soon.stderr
    quiet = gm("game", "new", "calm", "--movement", "2d", "--retreat", "1d", "--adjustment", "1d",
               "--remind-before", "6h", db=db)
    assert quiet.returncode == 0 and quiet.stderr == ""
    default = gm("game", "new", "usual", db=db)  # the default phases and reminders: nothing odd
    assert default.returncode == 0 and default.stderr == ""
    none = gm("game", "new", "none", "--movement", "1h", "--remind-before", "0", db=db)
    assert none.returncode == 0 and none.stderr == ""
    with transaction(make_session_factory(make_engine(f"sqlite:///{db}"))) as s:
        assert sorted(s.scalars(select(Game.name))) == ["blitz", "calm", "none", "soon", "usual"]  # every game made


def test_game_start_says_the_deadline_in_the_games_time_zone(tmp_path: Path) -> None:
    db = tmp_path / "gm.sqlite3"
    upgrade(f"sqlite:///{db}")
    assert gm("game", "new", "tokyo", "--timezone", "Asia/Tokyo", "--hour", "21", db=db).returncode == 0
    factory = make_session_factory(make_engine(f"sqlite:///{db}"))
    with transaction(factory) as s:
        game = find_game(s, "tokyo")
        assert game is not None
        s.add(Player(game_id=game.id, power="France", email="france@players.example", password_hash="-"))
    started = gm("game", "start", "tokyo", db=db)
    assert started.returncode == 0, started.stderr
    with transaction(factory) as s:
        game = find_game(s, "tokyo")
        assert game is not None and game.deadline_at is not None
        text = deadline_text(game.deadline_at, rules_of(game.options).timezone)
    assert text.endswith(", 21:00 (Asia/Tokyo)")
    assert started.stdout.startswith(f"game tokyo starts with Spring 1901, Movement; deadline {text}; 1 players told")
    assert "+00:00" not in started.stdout and "T12:" not in started.stdout  # not ISO 8601
