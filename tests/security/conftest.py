"""The attacker's suite: each test plays someone who knows only the judge's public address (or,
where it says so, one player's password) and sends mail through the real intake path, on SQLite
and on PostgreSQL (the db fixtures of tests/conftest.py). The games and their players come from
tests/mail/master/desk.py: players '<power>@players.example' with password 'pw', the GM
'master@gms.example' with 'gm-pw'."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "mail" / "master"))

from desk import Desk, new_game  # noqa: E402


@pytest.fixture
def desk(session_factory: sessionmaker[Session]) -> Desk:
    """A standard game, g1, under way: every power played, a GM."""
    return new_game(session_factory)


@pytest.fixture
def forming(session_factory: sessionmaker[Session]) -> Desk:
    """A standard game, g2, forming: no power taken yet, a GM."""
    return new_game(session_factory, "g2", powers=[], start=False)
