"""ROLLFORWARD: after a ROLLBACK the phases it undid are played again with the orders then on file,
up to where the game was or to a phase named; refusals change nothing."""
from __future__ import annotations

from sqlalchemy import Select, select
from sqlalchemy.orm import Session, sessionmaker

from desk import MASTER, Desk, address, new_game
from gm.store.db import transaction
from gm.store.models import GamePhase
from test_master_adjudication import on_file, on_file_in, unchanged


def test_rollforward_replays_the_phases_a_rollback_undid_with_their_orders(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.player("France", "A Par - Bur\nA Mar - Spa")
    desk.master("PROCESS")
    desk.player("France", "A Bur - Mun")
    desk.master("ORDER Germany A Mun - Ruh\nPROCESS")
    assert desk.phase_label() == "Winter 1901, Adjustment"
    desk.player("France", "Build A Par")
    fall = on_file_in(desk, "Fall 1901, Movement")
    winter = on_file(desk)
    with transaction(desk.sf) as s:
        centres_then = s.scalar(select_results(desk, "Fall 1901, Movement"))["centres"]
    assert "REJECTED  ROLLFORWARD" in desk.master("ROLLFORWARD")  # no rollback yet
    desk.master("ROLLBACK S1901")
    assert desk.phase_label() == "Spring 1901, Movement"
    before = desk.last_mail_id()
    ack = desk.master("ROLLFORWARD")
    assert "accepted  ROLLFORWARD" in ack
    assert "Spring 1901, Movement, Fall 1901, Movement adjudicated again with the orders then on file" in ack
    assert "3 orders put back on file" in ack and "now Winter 1901, Adjustment" in ack
    assert "paused" not in ack.split("now Winter 1901")[1].splitlines()[0]
    assert desk.phase_label() == "Winter 1901, Adjustment"
    assert on_file_in(desk, "Fall 1901, Movement") == fall and on_file(desk) == winter
    with transaction(desk.sf) as s:
        assert s.scalar(select_results(desk, "Fall 1901, Movement"))["centres"] == centres_then
        assert desk.row(s).paused_at is None
    results = desk.mails(kind="results", to=address("France"), since=before)
    assert len(results) == 1 and results[0].subject.startswith("[g1] Correction:")
    assert "A MUN - RUH" in results[0].body_text
    [entry] = desk.audit("rollforward")
    assert entry.actor == MASTER and entry.detail["phases"] == ["Spring 1901, Movement", "Fall 1901, Movement"]
    # Done: a second one has nothing to do.
    before = desk.last_mail_id()
    assert "already: there is nothing to roll forward" in desk.master("ROLLFORWARD")
    unchanged(desk, before, "Winter 1901, Adjustment")


def test_rollforward_to_a_phase_named_and_refusals(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.master("ORDER France A Par - Bur\nPROCESS")
    desk.player("France", "A Bur - Mun")
    desk.master("PROCESS")
    desk.master("ROLLBACK S1901")
    before = desk.last_mail_id()
    assert "'Autumn of 1901' is no phase: usage: ROLLFORWARD" in desk.master("ROLLFORWARD Autumn of 1901")
    assert "Fall 1902, Movement is not a phase after Spring 1901, Movement that the last rollback undid " \
           "(Fall 1901, Movement, Spring 1902, Movement)" in desk.master("ROLLFORWARD F1902M")
    assert "REJECTED  ROLLFORWARD" in desk.player("France", "ROLLFORWARD")
    unchanged(desk, before)
    ack = desk.master("ROLLFORWARD Fall 1901")
    assert "Spring 1901, Movement adjudicated again" in ack and "1 orders put back on file" in ack
    assert desk.phase_label() == "Fall 1901, Movement"
    assert on_file(desk) == [("France", "A BUR - MUN", None)]  # on file again, as when the GM rolled back


def select_results(desk: Desk, label: str) -> Select[tuple[dict | None]]:
    return select(GamePhase.results_json).where(GamePhase.label == label)
