"""The GM's hand on the clock: SET DEADLINE, EXTEND, SET GRACE, SET NMR, PAUSE and RESUME, by mail
and on the command line; what each changes, who is told, the audit log, and the refusals."""
from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

from sqlalchemy.orm import Session, sessionmaker

from desk import MASTER, STANDARD, Desk, address, new_game

from gm.games import current_phase
from gm.lifecycle import phases
from gm.lifecycle.house_rules import OPTION_KEY, rules_of
from gm.scheduler import due_games, next_due, run_due
from gm.store.db import transaction
from gm.store.models import OutboundMail, utcnow

EVERYONE = sorted([address(p) for p in STANDARD] + [MASTER])
FUTURE = datetime.now(UTC).year + 2


def clock(desk: Desk) -> dict[str, object]:
    """What the game's clock stands at: deadlines, next check, reminder, pause."""
    with transaction(desk.sf) as s:
        game = desk.row(s)
        current = current_phase(s, game)
        assert current is not None
        return {"game": game.deadline_at, "phase": current.row.deadline_at, "next_check": game.next_check_at,
                "reminded": current.row.reminded_at, "paused": game.paused_at, "changed": game.orders_changed,
                "rules": rules_of(game.options), "options": game.options}


def said(mail: OutboundMail) -> str:
    """A mail's text with its lines joined: what it says, however the text is wrapped."""
    return " ".join(mail.body_text.split())


def set_rules(desk: Desk, **rules: str) -> None:
    with transaction(desk.sf) as s:
        game = desk.row(s)
        game.options = {OPTION_KEY: {**(game.options or {}).get(OPTION_KEY, {}), **rules}}


def test_set_deadline_moves_the_deadline_and_tells_every_player_and_the_gm(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.master(f"SET DEADLINE {FUTURE}-12-01 20:00")
    want = datetime(FUTURE, 12, 1, 20, tzinfo=UTC)
    assert f"accepted  SET DEADLINE {FUTURE}-12-01 20:00" in ack
    assert "the deadline of Spring 1901, Movement is " in ack and f"1 December {FUTURE}, 20:00 (UTC)" in ack
    now = clock(desk)
    assert now["game"] == now["phase"] == want
    assert now["next_check"] == want - timedelta(hours=24)  # the reminder a day before
    moved = desk.mails(kind="deadline", since=before)
    assert sorted(m.to_addr for m in moved) == EVERYONE
    # A later deadline holds the phase to it (tests/mail/master/test_master_extend_hold.py): every player is told so.
    assert all(f"1 December {FUTURE}, 20:00 (UTC)" in said(m) and "The GM set it: the phase now ends at the new "
               "deadline even if every order is in." in said(m) for m in moved)
    (entry,) = desk.audit("set deadline")
    assert entry.actor == MASTER and entry.inbound_id is not None and entry.detail["deadline"] == want.isoformat()


def test_set_deadline_reads_the_forms_a_gm_writes_in_the_games_time_zone(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    set_rules(desk, timezone="Europe/Paris")
    paris = ZoneInfo("Europe/Paris")
    desk.master(f"SET DEADLINE {FUTURE}-06-01T18:30")
    assert clock(desk)["game"] == datetime(FUTURE, 6, 1, 18, 30, tzinfo=paris)
    desk.master(f"SET DEADLINE {FUTURE}-06-02")  # no hour in the house rules: midnight
    assert clock(desk)["game"] == datetime(FUTURE, 6, 2, tzinfo=paris)
    set_rules(desk, hour="20")
    desk.master(f"SET DEADLINE {FUTURE}-06-03")  # the house rules' hour
    assert clock(desk)["game"] == datetime(FUTURE, 6, 3, 20, tzinfo=paris)
    desk.master(f"SET DEADLINE {FUTURE}-06-04 20:00 UTC")
    assert clock(desk)["game"] == datetime(FUTURE, 6, 4, 20, tzinfo=UTC)
    assert len(desk.audit("set deadline")) == 4


def test_a_reminder_sent_goes_out_again_before_a_deadline_put_far_off(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    with transaction(desk.sf) as s:
        current = current_phase(s, desk.row(s))
        assert current is not None
        current.row.reminded_at = utcnow()
    desk.master("EXTEND 3d")
    assert clock(desk)["reminded"] is None
    assert clock(desk)["next_check"] == clock(desk)["game"] - timedelta(hours=24)


def test_set_deadline_refusals_change_nothing(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    was = clock(desk)
    before = desk.last_mail_id()
    ack = desk.master("SET DEADLINE 2001-01-01 20:00\nSET DEADLINE next tuesday\nSET DEADLINE\n"
                      f"SET DEADLINE {FUTURE}-02-30 20:00\nSET DEADLINE {FUTURE}-01-01 20:00 Mars/Olympus")
    assert "REJECTED  SET DEADLINE 2001-01-01 20:00\n            : that is not in the future" in ack
    assert "'next tuesday' is no date and time: write it like 2026-12-01 20:00" in ack
    assert "usage: SET DEADLINE <when>" in ack
    assert "day is out of range for month" in ack
    assert "unknown time zone 'Mars/Olympus'" in ack
    # A player's mail: no GM command at all.
    ack = desk.player("France", f"SET DEADLINE {FUTURE}-01-01 20:00")
    assert f"REJECTED  SET DEADLINE {FUTURE}-01-01 20:00" in ack
    assert clock(desk) == was
    assert not desk.mails(kind="deadline", since=before) and not desk.audit("set deadline")
    forming = new_game(session_factory, "g2", start=False)
    assert "g2 is forming, not under way" in forming.master(f"SET DEADLINE {FUTURE}-01-01 20:00")
    assert "g2 is forming, not under way" in forming.master("EXTEND 1d")
    assert not forming.audit("set deadline") and not forming.audit("extend")


def test_extend_puts_the_deadline_off(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    was = clock(desk)["game"]
    assert isinstance(was, datetime)
    before = desk.last_mail_id()
    ack = desk.master("EXTEND 1d12h")
    assert "accepted  EXTEND 1d12h" in ack
    now = clock(desk)
    assert now["game"] == now["phase"] == was + timedelta(days=1, hours=12)
    moved = desk.mails(kind="deadline", since=before)
    assert sorted(m.to_addr for m in moved) == EVERYONE
    assert all("The GM put it off by 1d12h: the phase now ends at the new deadline even if every order is in."
               in said(m) for m in moved)
    (entry,) = desk.audit("extend")
    assert entry.detail["by"] == "1d12h" and entry.actor == MASTER
    ack = desk.master("EXTEND soon\nEXTEND 0h\nEXTEND")
    assert "EXTEND: 'soon' is no duration: write it like 48h, 2d, 1d12h, 90m or 10s" in ack
    assert "EXTEND: must be longer than nothing" in ack and "usage: EXTEND <duration>" in ack
    # A deadline long past (the game waiting for orders) put off too little is still past.
    with transaction(desk.sf) as s:
        game = desk.row(s)
        current = current_phase(s, game)
        assert current is not None
        game.deadline_at = current.row.deadline_at = utcnow() - timedelta(days=5)
    assert "the deadline would still be in the past" in desk.master("EXTEND 1d")
    assert len(desk.audit("extend")) == 1


def test_set_grace_and_set_nmr_change_the_house_rules_and_tell_every_player(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.master("SET GRACE 6h\nSET NMR WAIT")
    assert "accepted  SET GRACE 6h\n            = house rules: grace 6h; every player is told" in ack
    assert "accepted  SET NMR WAIT\n            = house rules: nmr wait; every player is told" in ack
    now = clock(desk)
    rules = now["rules"]
    assert rules.grace == timedelta(hours=6) and rules.nmr == "wait"  # type: ignore[attr-defined]
    assert now["options"][OPTION_KEY]["grace"] == "6h"  # type: ignore[index]
    told = desk.mails(kind="announcement", since=before)
    assert sorted(m.to_addr for m in told) == EVERYONE  # one notice each for the GM's mail
    assert all("grace 6h" in said(m) and "nmr wait" in said(m) for m in told)
    assert "Grace: orders are taken 6h past the deadline" in said(told[0])
    assert told[0].subject == "[g1] House rules changed"
    assert desk.audit("set grace")[0].detail == {"grace": "6h"}
    assert desk.audit("set nmr")[0].detail == {"nmr": "wait"}
    # The scheduler looks at the game at once: a grace cut short ends a phase now.
    assert now["next_check"] <= utcnow()  # type: ignore[operator]
    ack = desk.master("SET GRACE soon\nSET NMR sometimes\nSET NMR")
    assert "grace: 'soon' is no duration" in ack
    assert "nmr must be one of defaults, wait, not 'sometimes'" in ack and "usage: SET NMR DEFAULTS|WAIT" in ack
    assert clock(desk)["rules"] == rules
    assert len(desk.audit("set grace")) == 1 and len(desk.audit("set nmr")) == 1


def test_a_paused_game_is_not_adjudicated_reminded_or_ended_early_but_takes_orders(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.master("PAUSE")
    assert "accepted  PAUSE\n            = g1 is paused; every player is told" in ack
    paused = clock(desk)
    assert paused["paused"] is not None
    told = desk.mails(kind="announcement", since=before)
    assert sorted(m.to_addr for m in told) == EVERYONE and "paused the game" in said(told[0])
    assert desk.audit("pause")[0].actor == MASTER
    assert "REJECTED  PAUSE\n            : g1 is paused already (since" in desk.master("PAUSE")
    assert "g1 is paused: RESUME it first" in desk.master(f"SET DEADLINE {FUTURE}-01-01 20:00")
    # Orders are still taken; even every order in does not end the phase.
    for power, lines in {"Austria": "A Vie H\nA Bud H\nF Tri H", "England": "F Lon H\nF Edi H\nA Lvp H",
                         "France": "A Par H\nA Mar H\nF Bre H", "Germany": "A Ber H\nA Mun H\nF Kie H",
                         "Italy": "A Rom H\nA Ven H\nF Nap H", "Russia": "A Mos H\nA War H\nF Sev H\nF Stp/sc H",
                         "Turkey": "A Con H\nA Smy H\nF Ank H"}.items():
        assert "REJECTED" not in desk.player(power, lines)
    deadline = paused["game"]
    assert isinstance(deadline, datetime)
    later = deadline + timedelta(days=3)
    assert due_games(desk.sf, later) == []
    assert run_due(desk.sf, gm_address="gm@judge.example", now=later) == (0, 0)
    assert next_due(desk.sf) is None
    with transaction(desk.sf) as s:
        progress = phases.check(s, desk.row(s), later)
        assert not progress.ended and not progress.reminders
    assert desk.phase_label() == "Spring 1901, Movement"


def test_resume_moves_the_deadline_on_by_the_time_paused(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    assert "REJECTED  RESUME\n            : g1 is not paused" in desk.master("RESUME")
    desk.master("PAUSE")
    was = clock(desk)["game"]
    assert isinstance(was, datetime)
    with transaction(desk.sf) as s:  # the phase opened four hours ago, paused three hours ago
        game = desk.row(s)
        game.paused_at = utcnow() - timedelta(hours=3)
        current = current_phase(s, game)
        assert current is not None
        current.row.opened_at = utcnow() - timedelta(hours=4)
    before = desk.last_mail_id()
    ack = desk.master("RESUME")
    assert "accepted  RESUME\n            = g1 runs again; the deadline of Spring 1901, Movement is" in ack
    now = clock(desk)
    assert now["paused"] is None and now["changed"] is True
    moved = now["game"] - was  # type: ignore[operator]
    assert timedelta(hours=3) <= moved < timedelta(hours=3, minutes=1)
    assert now["phase"] == now["game"] and now["next_check"] == now["game"] - timedelta(hours=24)
    told = desk.mails(kind="deadline", since=before)
    assert sorted(m.to_addr for m in told) == EVERYONE
    assert "The GM resumed the game after a pause: the deadline moved on by the time paused (3h" in said(told[0])
    (entry,) = desk.audit("resume")
    assert entry.actor == MASTER and 3 * 3600 <= entry.detail["paused"] < 3 * 3600 + 60
    assert due_games(desk.sf, utcnow()) != []  # it may end at once, should every order be in


def test_a_phase_opened_during_the_pause_moves_on_by_the_time_since_it_opened(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.master("PAUSE")
    was = clock(desk)["game"]
    with transaction(desk.sf) as s:  # paused a day ago; the GM processed a phase an hour ago
        game = desk.row(s)
        game.paused_at = utcnow() - timedelta(days=1)
        current = current_phase(s, game)
        assert current is not None
        current.row.opened_at = utcnow() - timedelta(hours=1)
    desk.master("RESUME")
    moved = clock(desk)["game"] - was  # type: ignore[operator]
    assert timedelta(hours=1) <= moved < timedelta(hours=1, minutes=1)


def test_extend_while_paused_adds_to_the_deadline_resume_moves_on(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    was = clock(desk)["game"]
    ack = desk.master("PAUSE\nEXTEND 1d")
    assert "(the game is paused: RESUME moves it on by the time paused)" in ack
    assert clock(desk)["game"] == was + timedelta(days=1)  # type: ignore[operator]


def test_pause_and_resume_refused_in_a_game_not_under_way(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, start=False)
    ack = desk.master("PAUSE\nRESUME\nSET GRACE 2h")
    assert "REJECTED  PAUSE\n            : g1 is forming, not under way" in ack
    assert "REJECTED  RESUME\n            : g1 is forming, not under way" in ack
    assert "accepted  SET GRACE 2h" in ack  # house rules may change before the start
    assert not desk.audit("pause") and not desk.audit("resume")


def gm_command(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"GM_ADDRESS": "gm@judge.example", "GM_DATABASE_URL": url, "GM_TIMEZONE": "UTC", "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "gm", *args], capture_output=True, text=True, env=env, timeout=60,
                          check=False)


def test_the_same_commands_run_on_the_server_with_gm_game_master(
        session_factory: sessionmaker[Session], migrated_url: str) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    done = gm_command(migrated_url, "game", "master", "g1", "PAUSE", "EXTEND 2d", "SET GRACE later")
    assert done.returncode == 2, done.stderr  # one line refused
    assert "accepted  PAUSE" in done.stdout and "accepted  EXTEND 2d" in done.stdout
    assert "REJECTED  SET GRACE later\n          : grace: 'later' is no duration" in done.stdout
    assert clock(desk)["paused"] is not None
    told = desk.mails(since=before)  # one notice each, as for a GM's mail: the pause, then the deadline moved
    assert sorted(m.to_addr for m in told) == EVERYONE
    assert all(said(m).index("paused the game") < said(m).index("put it off by 2d") for m in told)
    (entry,) = desk.audit("pause")
    assert entry.actor == "operator (command line)" and entry.inbound_id is None
    done = gm_command(migrated_url, "game", "master", "g1", "RESUME")
    assert done.returncode == 0 and clock(desk)["paused"] is None
