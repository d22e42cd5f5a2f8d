"""AUDIT by mail and `gm game audit` on the command line: the game's audit log, newest last, the
same text in both; never a password."""
from __future__ import annotations

import re

from sqlalchemy.orm import Session, sessionmaker

from desk import MASTER, new_game
from test_cli_game import gm
from test_master_views import section

from gm.lifecycle.audit_log import duration_text
from gm.store.db import transaction
from gm.store.models import AuditEntry


def test_audit_shows_the_log_newest_last_without_passwords(session_factory: sessionmaker[Session],
                                                           migrated_url: str) -> None:
    desk = new_game(session_factory)
    desk.master("EXTEND 1d\nORDER France A Par - Bur\nSET PASSWORD Secret-Horse-42")
    desk.master("PROCESS", password="Secret-Horse-42")
    ack = desk.master("AUDIT", password="Secret-Horse-42")
    assert "accepted  AUDIT" in ack
    log = section(ack, "Audit log of g1")
    lines = log.splitlines()
    entries = desk.audit()
    assert lines[0] == f"Audit log of g1: all {len(entries)} entries, newest last (times in UTC)"
    assert len(lines) == len(entries) + 1
    actions = [line.split("  ")[2].partition(":")[0] for line in lines[1:]]
    assert actions == [e.action for e in entries]  # oldest first, newest last
    assert actions[:2] == ["create game", "add master"] and actions[-2:] == ["adjudicate", "process"]
    assert f"  {MASTER}  order: phase Spring 1901, Movement; power France; order A PAR - BUR" in log
    assert f"  {MASTER}  process: phases Spring 1901, Movement" in log
    assert f"  {MASTER}  set password: master {MASTER}" in log
    assert "  system  adjudicate: phase Spring 1901, Movement; orders 1; late none" in log
    assert "Secret-Horse-42" not in ack and "$argon2" not in ack and "gm-pw" not in ack
    newest = section(desk.master("AUDIT 2", password="Secret-Horse-42"), "Audit log of g1").splitlines()
    assert newest[0] == f"Audit log of g1: the newest 2 of {len(entries)} entries, newest last (times in UTC)"
    assert newest[1:] == lines[-2:]
    for bad in ("AUDIT 0", "AUDIT many", "AUDIT 5 6"):
        refused = desk.master(bad, password="Secret-Horse-42")
        assert f"REJECTED  {bad}" in refused and "usage: AUDIT [count]" in refused
    assert "REJECTED  AUDIT" in desk.player("France", "AUDIT")
    # On the command line, the same text.
    done = gm("game", "audit", "G1", url=migrated_url)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == log
    two = gm("game", "audit", "g1", "--count", "2", url=migrated_url)
    assert two.stdout.splitlines()[1:] == lines[-2:]
    missing = gm("game", "audit", "nope", url=migrated_url)
    assert missing.returncode == 2 and "there is no game called nope" in missing.stderr
    assert gm("game", "audit", "g1", "--count", "0", url=migrated_url).returncode == 2


def test_a_time_paused_is_shown_with_its_unit(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.master("PAUSE\nRESUME")
    with transaction(desk.sf) as s:  # as RESUME recorded a pause of two hours and five minutes
        s.add(AuditEntry(game_id=desk.row(s).id, actor=MASTER, action="resume",
                         detail={"phase": "Spring 1901, Movement", "paused": 7500.4}))
    log = section(desk.master("AUDIT"), "Audit log of g1")
    assert re.search(r"  resume: phase Spring 1901, Movement; paused \d+ ms; deadline ", log), log
    assert "  resume: phase Spring 1901, Movement; paused 2 h 5 min" in log
    assert [duration_text(s) for s in (0.013164, 0.8, 42.4, 200, 7500, 90000)] == [
        "13 ms", "0.8 s", "42 s", "3 min 20 s", "2 h 5 min", "1 d 1 h"]
