"""EXTEND means more time: a deadline the GM puts off (EXTEND, a later SET DEADLINE, `gm game master
NAME 'EXTEND 1h'`) holds the phase to it even once every order is in; the scheduler adjudicates it
at the deadline, PROCESS at once; the hold ends with the phase."""
from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta

from sqlalchemy.orm import Session, sessionmaker

from desk import JUDGE, MASTER, STANDARD, Desk, address, new_game

from gm.games import current_phase
from gm.scheduler import run_due
from gm.store.db import transaction
from gm.store.models import utcnow

HOLDS = {"Austria": "A Vie H\nA Bud H\nF Tri H", "England": "F Lon H\nF Edi H\nA Lvp H",
         "France": "A Par H\nA Mar H\nF Bre H", "Germany": "A Ber H\nA Mun H\nF Kie H",
         "Italy": "A Rom H\nA Ven H\nF Nap H", "Russia": "A Mos H\nA War H\nF Sev H\nF Stp/sc H",
         "Turkey": "A Con H\nA Smy H\nF Ank H"}
ACK_HELD = "the phase now ends at the new deadline even if every order is in (PROCESS ends it sooner)"
TOLD_HELD = "the phase now ends at the new deadline even if every order is in."
FUTURE = datetime.now(UTC).year + 2


def gm_command(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"GM_ADDRESS": JUDGE, "GM_DATABASE_URL": url, "GM_TIMEZONE": "UTC", "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "gm", *args], capture_output=True, text=True, env=env, timeout=60,
                          check=False)


def every_order_in(desk: Desk) -> None:
    for power, lines in HOLDS.items():
        assert "REJECTED" not in desk.player(power, lines)


def held(desk: Desk) -> bool:
    with transaction(desk.sf) as s:
        current = current_phase(s, desk.row(s))
        assert current is not None
        return current.row.held_to_deadline


def deadline_of(desk: Desk) -> datetime:
    with transaction(desk.sf) as s:
        deadline = desk.row(s).deadline_at
        assert deadline is not None
        return deadline


def test_every_order_in_after_extend_waits_for_the_deadline(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.master("EXTEND 1h")
    assert "accepted  EXTEND 1h" in ack and ACK_HELD in ack
    assert "(held: the phase ends then even if every order is in)" in ack  # the GM's overview says so
    moved = desk.mails(kind="deadline", since=before)
    assert sorted(m.to_addr for m in moved) == sorted([address(p) for p in STANDARD] + [MASTER])
    assert all(f"The GM put it off by 1h: {TOLD_HELD}" in " ".join(m.body_text.split()) for m in moved)
    assert desk.audit("extend")[0].detail["held"] is True
    every_order_in(desk)
    deadline = deadline_of(desk)
    # The scheduler sees every order in, now and up to the deadline: nothing is adjudicated.
    for now in (utcnow(), deadline - timedelta(seconds=1)):
        run_due(desk.sf, gm_address=JUDGE, now=now)
        assert desk.phase_label() == "Spring 1901, Movement"
    assert not desk.mails(kind="results")
    # At the deadline it is.
    run_due(desk.sf, gm_address=JUDGE, now=deadline)
    assert desk.phase_label() == "Fall 1901, Movement"
    assert desk.mails(kind="results", to=address("France"))
    # The hold ended with the phase: the next one ends as soon as every order is in.
    assert not held(desk)
    every_order_in(desk)
    run_due(desk.sf, gm_address=JUDGE, now=utcnow())
    assert desk.phase_label() == "Spring 1902, Movement"  # a winter with nothing to decide is skipped


def test_process_still_ends_a_held_phase_at_once(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.master("EXTEND 2d")
    every_order_in(desk)
    run_due(desk.sf, gm_address=JUDGE, now=utcnow())
    assert desk.phase_label() == "Spring 1901, Movement"
    ack = desk.master("PROCESS")
    assert "accepted  PROCESS" in ack and "Spring 1901, Movement adjudicated" in ack
    assert desk.phase_label() == "Fall 1901, Movement" and not held(desk)


def test_a_later_set_deadline_holds_an_earlier_one_does_not(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    earlier = deadline_of(desk) - timedelta(hours=1)
    ack = desk.master(f"SET DEADLINE {earlier:%Y-%m-%d %H:%M} UTC")
    assert "accepted  SET DEADLINE" in ack and ACK_HELD not in ack and not held(desk)
    assert all(m.body_text.rstrip().endswith("The GM set it.") for m in desk.mails(kind="deadline", since=before))
    every_order_in(desk)
    run_due(desk.sf, gm_address=JUDGE, now=utcnow())  # not held: every order in ends it
    assert desk.phase_label() == "Fall 1901, Movement"
    ack = desk.master(f"SET DEADLINE {FUTURE}-01-01 20:00")
    assert ACK_HELD in ack and held(desk)
    every_order_in(desk)
    run_due(desk.sf, gm_address=JUDGE, now=utcnow())
    assert desk.phase_label() == "Fall 1901, Movement"


def test_extend_on_the_command_line_holds_the_phase_too(
        session_factory: sessionmaker[Session], migrated_url: str) -> None:
    desk = new_game(session_factory)
    done = gm_command(migrated_url, "game", "master", "g1", "EXTEND 1h")
    assert done.returncode == 0, done.stderr
    assert ACK_HELD in done.stdout
    every_order_in(desk)
    run_due(desk.sf, gm_address=JUDGE, now=utcnow())
    assert desk.phase_label() == "Spring 1901, Movement" and held(desk)
    # A rollback opens the phase afresh: no hold.
    done = gm_command(migrated_url, "game", "master", "g1", "PROCESS")
    assert done.returncode == 0, done.stdout
    done = gm_command(migrated_url, "game", "master", "g1", "ROLLBACK", "RESUME")
    assert done.returncode == 0, done.stdout
    assert desk.phase_label() == "Spring 1901, Movement" and not held(desk)
