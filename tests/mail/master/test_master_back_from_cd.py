"""A power in civil disorder whose player orders again by mail is out of it at once, as after
UNCD: the game waits for its orders again, the GM and every player are told, and `gm game show`
names the powers in civil disorder."""
from __future__ import annotations

import subprocess
import sys

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from desk import MASTER, STANDARD, Desk, address, new_game

from gm.games import current_phase, variant_of
from gm.lifecycle import phases
from gm.store.db import transaction
from gm.store.models import Player
from gm.variants import load_variant


def in_disorder(desk: Desk, power: str) -> bool:
    with transaction(desk.sf) as s:
        return s.scalars(select(Player.civil_disorder).where(
            Player.game_id == desk.row(s).id, Player.power == power, Player.left_at.is_(None))).one()


def awaited(desk: Desk) -> list[str]:
    with transaction(desk.sf) as s:
        game = desk.row(s)
        current = current_phase(s, game)
        assert current is not None
        return sorted(phases.awaited(s, game, variant_of(game), current, phases.players_by_power(s, game)))


def game_show(db_url: str, name: str) -> str:
    done = subprocess.run([sys.executable, "-m", "gm", "game", "show", name], capture_output=True, text=True,
                          timeout=60, env={"GM_DATABASE_URL": db_url, "GM_ADDRESS": "gm@judge.example",
                                           "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_a_player_who_orders_again_takes_the_power_out_of_civil_disorder(
        db_url: str, session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    assert "France is in civil disorder" in desk.master("CIVIL DISORDER France")
    assert "France" not in awaited(desk)
    show = game_show(db_url, "g1")
    assert any(line.split()[:1] == ["France"] and "civil disorder" in line for line in show.splitlines()), show
    assert not any(line.split()[:1] == ["Germany"] and "civil disorder" in line for line in show.splitlines())
    before = desk.last_mail_id()
    # An order that is refused changes nothing.
    ack = desk.player("France", "A Par - Mos")
    assert "REJECTED  A Par - Mos" in ack and "Civil disorder" not in ack
    assert in_disorder(desk, "France") and desk.mails(kind="announcement", since=before) == []
    # A valid one: France is back, and awaited as everyone is.
    ack = desk.player("France", "A Par - Bur")
    assert "accepted  A Par - Bur" in ack
    assert "France was in civil disorder: with your orders it is out of it, and the game waits for your orders " \
           "again, as for everyone's." in ack
    assert not in_disorder(desk, "France") and "France" in awaited(desk)
    told = desk.mails(kind="announcement", since=before)
    assert sorted(m.to_addr for m in told) == sorted([address(p) for p in STANDARD] + [MASTER])
    for mail in told:
        assert mail.subject == "[g1] France out of civil disorder"
        assert "France's player has ordered again: France is out of civil disorder" in mail.body_text
    (entry,) = desk.audit("back from civil disorder")
    assert entry.actor == address("France") and entry.detail == {"power": "France"}
    # The GM's view says so too; and the next order is an order like any other.
    assert not [line for line in game_show(db_url, "g1").splitlines() if "civil disorder;" in line]
    again = desk.player("France", "A Mar - Spa")
    assert "Civil disorder" not in again and len(desk.audit("back from civil disorder")) == 1


def test_the_gms_orders_for_a_power_in_civil_disorder_leave_it_there(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.master("CIVIL DISORDER France")
    assert "accepted  ORDER France A Par - Bur" in desk.master("ORDER France A Par - Bur")
    assert "A MAR - SPA (as France, by the GM)" in desk.master("BECOME France\nA Mar - Spa")
    assert in_disorder(desk, "France") and not desk.audit("back from civil disorder")


def test_civil_disorder_for_good_stays(session_factory: sessionmaker[Session]) -> None:
    powers = list(load_variant("ambition").great_powers)
    desk = new_game(session_factory, variant="ambition", powers=powers)
    power = powers[0]
    desk.master(f"CIVIL DISORDER {power}")
    desk.player(power, "A Par - Bur")  # its units are gone: whatever it writes, it is out for good
    assert in_disorder(desk, power) and not desk.audit("back from civil disorder")

