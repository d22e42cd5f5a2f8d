"""The GM's guards: PROCESS <phase> processes only the phase named, ROLLBACK undoes the end of a
game only when told REOPEN, and after a rollback the clock does what the players were told."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy.orm import Session, sessionmaker

from desk import MASTER, STANDARD, Desk, address, new_game
from gm.lifecycle import phases
from gm.store.db import transaction
from gm.store.models import Observer, utcnow
from test_cli_game import gm
from test_master_adjudication import phase_count, unchanged

PLAYERS = [address(p) for p in STANDARD]
OBSERVER = "kibitzer@watchers.example"
CENTRES = ["Bel", "Hol", "Den", "Spa", "Por", "Tun", "Nwy", "Swe", "Gre", "Ser", "Rum", "Bul", "Ber", "Kie", "Mun"]


def won_by_france(desk: Desk) -> None:
    """France wins in the Fall of 1901, by the GM's edits."""
    desk.master("PROCESS")
    desk.master("REMOVE UNIT Ber\nREMOVE UNIT Kie\nREMOVE UNIT Mun\n"
                + "\n".join(f"SET OWNER {c} France" for c in CENTRES) + "\nPROCESS")
    with transaction(desk.sf) as s:
        game = desk.row(s)
        assert (game.status, game.outcome) == ("finished", "won by France")


# --- PROCESS <phase> --------------------------------------------------------------------------------


def test_process_with_a_phase_processes_only_the_phase_under_way(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    for stale in ("PROCESS F1901M", "PROCESS Fall 1901", "PROCESS S1901R", "PROCESS Spring 1902"):
        ack = desk.master(stale)
        assert f"REJECTED  {stale}" in ack
        assert "is not the phase under way: g1 is in Spring 1901, Movement; nothing was processed" in ack
    ack = desk.master("PROCESS Autumn of 1901")
    assert "'Autumn of 1901' is no phase: usage: PROCESS [phase]" in ack
    unchanged(desk, before)
    assert not desk.audit("process")
    assert "now Fall 1901, Movement" in desk.master("PROCESS S1901M")
    # A second mail written for Spring 1901 (sent twice, or late) changes nothing now.
    ack = desk.master("PROCESS Spring 1901")
    assert "Spring 1901, Movement is not the phase under way: g1 is in Fall 1901, Movement" in ack
    assert desk.phase_label() == "Fall 1901, Movement"
    assert "now Spring 1902, Movement" in desk.master("PROCESS fall 1901 movement")
    assert "now Fall 1902, Movement" in desk.master("PROCESS")  # alone, as ever
    assert len(desk.audit("process")) == 3


def test_process_with_a_phase_on_the_command_line(session_factory: sessionmaker[Session], migrated_url: str) -> None:
    desk = new_game(session_factory)
    refused = gm("game", "process", "g1", "F1901M", url=migrated_url)
    assert refused.returncode == 2 and "REJECTED  PROCESS F1901M" in refused.stdout
    assert "g1 is in Spring 1901, Movement; nothing was processed" in refused.stdout
    assert desk.phase_label() == "Spring 1901, Movement"
    done = gm("game", "process", "g1", "Spring", "1901", url=migrated_url)
    assert done.returncode == 0, done.stdout + done.stderr
    assert desk.phase_label() == "Fall 1901, Movement"


# --- ROLLBACK ... REOPEN --------------------------------------------------------------------------


def test_a_finished_game_is_rolled_back_only_with_reopen_and_everyone_is_told(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    running = new_game(session_factory, "g2")
    running.master("PROCESS")
    with transaction(desk.sf) as s:
        s.add(Observer(game_id=desk.row(s).id, email=OBSERVER))  # as OBSERVE and its confirmation leave it
    won_by_france(desk)
    before = desk.last_mail_id()
    for line in ("ROLLBACK", "ROLLBACK F1901"):
        ack = desk.master(line)
        assert f"REJECTED  {line}" in ack
        assert "g1 is over (won by France): rolling it back undoes its end, so say so: " \
               "ROLLBACK Fall 1901 Movement REOPEN" in ack
    assert "g2 is not over: REOPEN is only for undoing the end of a game" in running.master("ROLLBACK REOPEN")
    with transaction(desk.sf) as s:
        assert desk.row(s).status == "finished"
    assert not desk.audit("rollback") and {m.kind for m in desk.mails(since=before)} <= {"ack"}
    ack = desk.master("ROLLBACK Fall 1901 REOPEN")
    assert "accepted  ROLLBACK Fall 1901 REOPEN" in ack
    assert "back at the start of Fall 1901, Movement" in ack and "its end is undone (won by France no longer stands)" in ack
    with transaction(desk.sf) as s:
        game = desk.row(s)
        assert (game.status, game.outcome, game.finished_at) == ("active", None, None)
    told = desk.mails(kind="announcement", since=before)
    assert sorted(m.to_addr for m in told) == sorted([*PLAYERS, MASTER, OBSERVER])
    assert told[0].subject == "[g1] Game reopened by the GM"
    assert "The GM has undone the end of the game: \"won by France\" no longer stands" in told[0].body_text
    assert "The results of Fall 1901, Movement no longer stand either" in told[0].body_text
    [entry] = desk.audit("rollback")
    assert entry.detail["reopened"] == "won by France"


def test_a_terminated_game_reopens_in_the_phase_it_stopped_in(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.master("PROCESS\nTERMINATE")
    assert "so say so: ROLLBACK Fall 1901 Movement REOPEN" in desk.master("ROLLBACK Fall 1901")
    ack = desk.master("ROLLBACK Fall 1901 REOPEN")
    assert "back at the start of Fall 1901, Movement with the orders then on file (void: nothing)" in ack
    assert desk.phase_label() == "Fall 1901, Movement" and phase_count(desk) == 2
    told = desk.mails(kind="announcement")[-1]
    assert "\"terminated by the GM\" no longer stands, and the game goes on from the start of Fall 1901" in \
        told.body_text
    assert "no longer stand either" not in told.body_text  # no results were undone
    desk.master("PROCESS")
    assert desk.phase_label() == "Spring 1902, Movement"
    assert not [m for m in desk.mails(kind="results") if "Correction" in m.subject]


# --- the clock after a rollback -------------------------------------------------------------------


def test_after_a_rollback_process_goes_on_with_a_fresh_deadline_as_the_players_were_told(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.master("PROCESS")
    before = desk.last_mail_id()
    ack = desk.master("ROLLBACK")
    assert "paused until PROCESS or RESUME" in ack
    [told] = desk.mails(kind="announcement", to=address("France"), since=before)
    assert "It goes on when the GM processes Spring 1901, Movement (the next phase then opens with a fresh " \
           "deadline) or resumes the game" in told.body_text
    with transaction(desk.sf) as s:
        assert desk.row(s).paused_at is not None
    start = utcnow()
    ack = desk.master("PROCESS")
    assert "now Fall 1901, Movement, deadline" in ack and "paused" not in ack.split("now Fall 1901")[1].split("\n")[0]
    with transaction(desk.sf) as s:
        game = desk.row(s)
        assert game.paused_at is None and not (game.options or {}).get("paused_by_rollback")
        assert start + timedelta(hours=47) < game.deadline_at < utcnow() + timedelta(hours=49)  # fresh: 48 hours
        # The scheduler ends the phase at its deadline, as at any other.
        assert [e.row.label for e in phases.check(s, game, game.deadline_at).ended] == ["Fall 1901, Movement"]
    [entry] = desk.audit("process")[-1:]
    assert entry.detail == {"phases": ["Spring 1901, Movement"], "resumed": True}


def test_a_rollback_of_a_game_the_gm_paused_stays_paused_until_resume(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.master("PROCESS\nPAUSE")
    ack = desk.master("ROLLBACK")
    assert "still paused (PAUSE): RESUME starts the clock" in ack
    told = desk.mails(kind="announcement")[-1]
    assert "The game stays paused, as the GM had paused it: it goes on when the GM resumes it" in told.body_text
    assert "the game is paused: RESUME starts the clock" in desk.master("PROCESS")
    with transaction(desk.sf) as s:
        assert desk.row(s).paused_at is not None
    assert "g1 runs again" in desk.master("RESUME")
    # A RESUME ends a rollback's pause too: a later PAUSE is the GM's own, which PROCESS keeps.
    desk.master("ROLLBACK")
    desk.master("RESUME\nPAUSE\nPROCESS")
    with transaction(desk.sf) as s:
        assert desk.row(s).paused_at is not None
    # A PAUSE during a rollback's pause makes it the GM's own: PROCESS keeps it too.
    desk.master("RESUME\nROLLBACK")
    assert "g1 is paused; every player is told" in desk.master("PAUSE")
    assert "the game is paused: RESUME starts the clock" in desk.master("PROCESS")
