"""The game-loop commands by mail (WAIT, NOWAIT, SET ABSENCE, RESULTS, HISTORY, MAP), orders that come
too late for the phase they would land on, the mark that tells the scheduler orders changed, and
the lock that keeps a batch and the end of a phase apart: on SQLite and PostgreSQL."""
from __future__ import annotations

import base64
import io
import itertools
import threading
import time
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from functools import cache
from typing import Any
from zoneinfo import ZoneInfo

from sqlalchemy import Engine, event, select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import create_game
from gm.lifecycle import phases
from gm.mail.commands import history
from gm.mail.ingest import Fetched, IngestOutcome, ingest, ingest_batch
from gm.mail.intake.message import read_message
from gm.mail.outgoing.outbox import Outgoing
from gm.store.db import transaction
from gm.store.models import Game, GamePhase, OrderRecord, OutboundMail, Player, utcnow
from gm.store.passwords import PasswordVerifier, hash_password
from acks import verdict

GM = "gm@judge.example"
STANDARD = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
_ids = itertools.count(1)


@cache
def _hash() -> str:
    return hash_password("pw")  # one hash for every player: Argon2id is slow on purpose


def mail(sender: str, body: str, *, date: datetime | None = None) -> bytes:
    m = EmailMessage()
    m["From"] = sender
    m["To"] = GM
    m["Subject"] = "orders"
    m["Message-ID"] = f"<loop{next(_ids)}@players.example>"
    if date is not None:
        m["Date"] = format_datetime(date)
    m.set_content(body)
    return m.as_bytes()


class Judge:
    def __init__(self, session_factory: sessionmaker[Session], game: str) -> None:
        self.sf = session_factory
        self.game = game
        self.verifier = PasswordVerifier()

    def send(self, power: str, body: str, *, date: datetime | None = None) -> IngestOutcome:
        raw = mail(f"{power.lower()}@players.example", f"SIGNON {power} {self.game} pw\n{body}", date=date)
        return ingest(self.sf, raw, gm_address=GM, verifier=self.verifier)

    def say(self, power: str, body: str, *, date: datetime | None = None) -> str:
        """Send a mail as `power` and return the acknowledgement."""
        out = self.send(power, body, date=date)
        assert out.replies == 1, out
        with transaction(self.sf) as s:
            return s.scalars(select(OutboundMail.body_text).where(OutboundMail.inbound_id == out.inbound_id)).one()

    def send_batch(self, mails: list[tuple[str, str]]) -> list[IngestOutcome]:
        raws = [mail(f"{p.lower()}@players.example", f"SIGNON {p} {self.game} pw\n{body}") for p, body in mails]
        return ingest_batch(self.sf, [Fetched(5000 + i, raw) for i, raw in enumerate(raws)], gm_address=GM,
                            uidvalidity=3, verifier=self.verifier)

    def read(self, what: Any) -> Any:
        with transaction(self.sf) as s:
            return s.execute(what).all()

    def game_row(self, s: Session) -> Game:
        return s.scalars(select(Game).where(Game.name == self.game)).one()

    def player(self, power: str) -> Player:
        with transaction(self.sf) as s:
            return s.scalars(select(Player).join(Game).where(Game.name == self.game, Player.power == power)).one()

    def orders_changed(self) -> bool:
        with transaction(self.sf) as s:
            return self.game_row(s).orders_changed

    def reset_orders_changed(self) -> None:
        with transaction(self.sf) as s:
            self.game_row(s).orders_changed = False

    def current_orders(self, power: str) -> list[tuple[int, str]]:
        """(phase seq, order) of every current order of `power`."""
        return [tuple(r) for r in self.read(
            select(GamePhase.seq, OrderRecord.canonical).join(GamePhase, GamePhase.id == OrderRecord.phase_id)
            .where(OrderRecord.power == power, OrderRecord.current.is_(True)).order_by(OrderRecord.id))]

    def end_phase(self) -> phases.Progress:
        """The scheduler at the deadline."""
        with transaction(self.sf) as s:
            game = self.game_row(s)
            assert game.deadline_at is not None
            return phases.check(s, game, game.deadline_at)


def new_game(sf: sessionmaker[Session], name: str = "g1", variant: str = "standard", powers: list[str] = STANDARD,
             house_rules: dict[str, Any] | None = None, start: bool = True) -> Judge:
    """A game whose `powers` are taken (password 'pw', address '<power>@players.example'),
    started now unless `start` is false."""
    with transaction(sf) as s:
        game = create_game(s, name, variant)
        if house_rules:
            game.options = {"house_rules": house_rules}
        s.add_all(Player(game_id=game.id, power=p, email=f"{p.lower()}@players.example", password_hash=_hash())
                  for p in powers)
        s.flush()
        if start:
            phases.start(s, game, utcnow())
    return Judge(sf, name)


# --- WAIT and NOWAIT ---------------------------------------------------------------------------


def test_wait_keeps_the_phase_open_and_nowait_lets_it_end(session_factory: sessionmaker[Session]) -> None:
    judge = new_game(session_factory, powers=["France"])  # the only power awaited
    ack = judge.say("France", "WAIT")
    assert verdict(ack, "WAIT").startswith("accepted = Spring 1901, Movement will not end before its deadline (")
    assert judge.player("France").waiting and judge.orders_changed()
    judge.reset_orders_changed()
    judge.say("France", "A Par - Bur\nA Mar H\nF Bre - Mao")
    assert judge.orders_changed()
    with transaction(judge.sf) as s:  # every order is in, but France waits: the phase goes on
        assert phases.check(s, judge.game_row(s), utcnow()).ended == []
    judge.reset_orders_changed()
    ack = judge.say("France", "NOWAIT")
    assert verdict(ack, "NOWAIT") == "accepted = Spring 1901, Movement may end as soon as every power's orders are in"
    assert not judge.player("France").waiting and judge.orders_changed()
    with transaction(judge.sf) as s:  # now it ends at once
        (ended,) = phases.check(s, judge.game_row(s), utcnow()).ended
        assert ended.row.label == "Spring 1901, Movement"
    assert not judge.player("France").waiting  # a new phase: nobody waits


def test_wait_needs_a_game_under_way(session_factory: sessionmaker[Session]) -> None:
    judge = new_game(session_factory, powers=["France", "England"], start=False)
    ack = judge.say("France", "WAIT\nNOWAIT")
    assert verdict(ack, "WAIT") == "REJECTED : g1 has no phase under way"
    assert verdict(ack, "NOWAIT") == "REJECTED : g1 has no phase under way"


# --- SET ABSENCE -------------------------------------------------------------------------------


def test_set_absence_moves_the_deadline(session_factory: sessionmaker[Session]) -> None:
    zone = ZoneInfo("Europe/Berlin")
    judge = new_game(session_factory, house_rules={"timezone": "Europe/Berlin", "movement": "2d"})
    with transaction(judge.sf) as s:
        before = judge.game_row(s).deadline_at
    assert before is not None
    first = utcnow().astimezone(zone).date() + timedelta(days=1)
    last = first + timedelta(days=3)
    ack = judge.say("France", f"SET ABSENCE {first} {last}")
    back = datetime(last.year, last.month, last.day, tzinfo=zone) + timedelta(days=1)
    shown = back.astimezone(zone)
    assert verdict(ack, f"SET ABSENCE {first} {last}") == (
        f"accepted = absent from {first} 00:00 to {last} 24:00 (Europe/Berlin); the deadline of Spring 1901, "
        f"Movement moved to {shown:%A} {shown.day} {shown:%B} {shown.year}, 00:00 (Europe/Berlin)")
    france = judge.player("France")
    assert (france.absent_from, france.absent_until) == (
        datetime(first.year, first.month, first.day, tzinfo=zone), back)
    with transaction(judge.sf) as s:
        game = judge.game_row(s)
        row = s.scalars(select(GamePhase).where(GamePhase.game_id == game.id)).one()
        assert game.deadline_at == row.deadline_at == back
        # Every player is told the deadline moved, without being told whose absence moved it.
        told = s.scalars(select(OutboundMail).where(OutboundMail.kind == "deadline")).all()
        players = s.scalars(select(Player).where(Player.game_id == game.id, Player.left_at.is_(None))).all()
        assert sorted(m.to_addr for m in told) == sorted(p.email for p in players)
        assert all("France" not in m.body_text and "moved to" in m.body_text for m in told)

    # A new absence replaces the old; NONE clears it; the deadline stays where players were told.
    ack = judge.say("France", f"SET ABSENCE {first} {first}")
    assert "in place of the absence announced before; the deadline stays" in verdict(ack, f"SET ABSENCE {first} {first}")
    assert judge.player("France").absent_until == datetime(first.year, first.month, first.day, tzinfo=zone) + timedelta(days=1)
    ack = judge.say("France", "SET ABSENCE NONE")
    assert verdict(ack, "SET ABSENCE NONE") == "accepted = absence cleared"
    assert judge.player("France").absent_from is None and judge.player("France").absent_until is None
    with transaction(judge.sf) as s:
        assert judge.game_row(s).deadline_at == back


def test_set_absence_refusals(session_factory: sessionmaker[Session]) -> None:
    judge = new_game(session_factory, house_rules={"absence_days": "7"})
    today = utcnow().date()
    day = timedelta(days=1)
    cases = {
        f"SET ABSENCE {today - day} {today + day}": f"REJECTED : {today - day} is in the past (today is {today} in UTC)",
        f"SET ABSENCE {today} {today + 7 * day}": "REJECTED : 8 days is longer than this game allows: at most 7 days",
        f"SET ABSENCE {today + 3 * day} {today + day}": (
            f"REJECTED : the absence ends ({today + day}) before it begins ({today + 3 * day})"),
        f"SET ABSENCE 2026-13-01 {today}": "REJECTED : '2026-13-01' is no date: write it as YYYY-MM-DD, e.g. 2026-12-24",
        f"SET ABSENCE tomorrow {today}": "REJECTED : 'tomorrow' is no date: write it as YYYY-MM-DD, e.g. 2026-12-24",
        f"SET ABSENCE {today}": "REJECTED : usage: SET ABSENCE <from> <to>",
    }
    ack = judge.say("France", "\n".join(cases))
    for line, expected in cases.items():
        assert verdict(ack, line).startswith(expected), verdict(ack, line)
    france = judge.player("France")
    assert france.absent_from is None and france.absent_until is None
    ok = f"SET ABSENCE {today} {today + 6 * day}"
    assert verdict(judge.say("France", ok), ok).startswith("accepted = absent from")
    with transaction(judge.sf) as s:
        judge.game_row(s).status = "finished"
    assert verdict(judge.say("France", ok), ok) == "REJECTED : g1 is over: it has no deadlines to move"


def test_set_absence_in_a_forming_game(session_factory: sessionmaker[Session]) -> None:
    judge = new_game(session_factory, powers=["France"], start=False)
    today = utcnow().date()
    line = f"SET ABSENCE {today} {today}"
    assert verdict(judge.say("France", line), line) == f"accepted = absent from {today} 00:00 to {today} 24:00 (UTC)"
    assert judge.player("France").absent_from is not None


# --- RESULTS and HISTORY -----------------------------------------------------------------------


def test_results_of_a_past_phase_without_other_powers_secrets(session_factory: sessionmaker[Session]) -> None:
    judge = new_game(session_factory, "ae", "ambition", powers=["France", "Austria"])
    judge.say("France", "A Mar - Sav\nDP 2 A Swi H")
    judge.say("Austria", "A Vie - Tyr\nDP 1 A Bav H")
    (ended,) = judge.end_phase().ended
    assert ended.report["secret"]  # the allocations were stored and counted
    ack = judge.say("France", "RESULTS")
    assert verdict(ack, "RESULTS") == "accepted = Spring 1763, Movement: see below"
    assert "Results of Spring 1763, Movement in ae" in ack
    assert "A MAR - SAV" in ack and "A VIE - TYR" in ack
    assert ack.count("=== gm acknowledgement ===") == 1 and "=== gm results ===" not in ack
    assert "DP 2 A SWI H" in ack
    assert "DP 1" not in ack  # Austria's allocation
    for asked in ("RESULTS Spring 1763", "RESULTS S1763", "RESULTS S1763M", "RESULTS spring 1763 movement"):
        assert verdict(judge.say("France", asked), asked) == "accepted = Spring 1763, Movement: see below"
    austria = judge.say("Austria", "RESULTS S1763")
    assert "DP 1 A BAV H" in austria and "DP 2" not in austria
    ack = judge.say("France", "RESULTS Fall 1763\nRESULTS Fall 1790\nRESULTS Fall 1763 retreats\nRESULTS Sprung 1763")
    assert verdict(ack, "RESULTS Fall 1763") == (
        "REJECTED : Fall 1763, Movement has not been adjudicated yet: it is the phase under way")
    assert verdict(ack, "RESULTS Fall 1790") == "REJECTED : ae has had no phase Fall 1790, Movement"
    assert verdict(ack, "RESULTS Fall 1763 retreats") == "REJECTED : ae has had no phase Fall 1763, Retreat"
    assert verdict(ack, "RESULTS Sprung 1763").startswith("REJECTED : 'Sprung 1763' is no phase: usage: RESULTS")
    # HISTORY in the same format: public orders, and the asker's own secrets only.
    france = judge.say("France", "HISTORY")
    assert "France: A MAR - SAV -> fails" in france and "DP 2 A SWI H" in france and "DP 1" not in france


def test_results_before_any_phase_was_adjudicated(session_factory: sessionmaker[Session]) -> None:
    judge = new_game(session_factory, "c1", "classical", powers=["Rome", "Carthage"])
    ack = judge.say("Rome", "RESULTS\nRESULTS Spring 273 BC\nRESULTS W273")
    assert verdict(ack, "RESULTS") == "REJECTED : no phase of c1 has been adjudicated yet"
    assert verdict(ack, "RESULTS Spring 273 BC") == (
        "REJECTED : Spring 273 BC, Movement has not been adjudicated yet: it is the phase under way")
    assert verdict(ack, "RESULTS W273") == "REJECTED : c1 has had no phase Winter 273 BC, Adjustment"


def sent_attachments(judge: Judge, out: IngestOutcome) -> list[dict[str, Any]]:
    """The attachments of the acknowledgement of `out` as the outbox sender sends them: the row
    names its maps, the sender draws them."""
    with transaction(judge.sf) as s:
        row = s.scalars(select(OutboundMail).where(OutboundMail.inbound_id == out.inbound_id)).one()
        assert all("data" not in a and "map" in a for a in row.attachments or [])  # no picture stored
        return Outgoing.of(row, s).attachments or []


def test_map_attaches_the_position_or_a_past_phase(session_factory: sessionmaker[Session]) -> None:
    from PIL import Image

    judge = new_game(session_factory, "m1", "standard", powers=["France", "Germany"])
    out = judge.send("France", "MAP")
    (attachment,) = sent_attachments(judge, out)
    assert attachment["filename"] == "m1-spring-1901-movement.png" and "content_id" not in attachment
    picture = Image.open(io.BytesIO(base64.b64decode(attachment["data"])))
    assert picture.format == "PNG" and picture.width == 1200
    judge.say("France", "A PAR - BUR")
    judge.end_phase()
    (now,) = sent_attachments(judge, judge.send("France", "MAP"))
    (past,) = sent_attachments(judge, judge.send("Germany", "MAP S1901"))
    assert now["filename"] == "m1-fall-1901-movement.png" and past["filename"] == "m1-spring-1901-movement.png"
    assert now["data"] != past["data"] != attachment["data"]  # a new position; the past one with its orders
    ack = judge.say("France", "MAP\nMAP Fall 1905\nMAP Sprung 1901")
    assert verdict(ack, "MAP") == "accepted = Fall 1901, Movement: the map is attached (m1-fall-1901-movement.png)"
    assert verdict(ack, "MAP Fall 1905") == "REJECTED : m1 has had no phase Fall 1905, Movement"
    assert verdict(ack, "MAP Sprung 1901").startswith("REJECTED : 'Sprung 1901' is no phase: usage: MAP")


def test_map_without_a_phase_is_of_the_position_when_the_mail_was_read(session_factory: sessionmaker[Session]) -> None:
    judge = new_game(session_factory, "m3", "standard", powers=["France", "Germany"])
    asked = judge.send("France", "MAP")
    before = sent_attachments(judge, asked)
    judge.say("France", "A PAR - BUR")
    judge.end_phase()  # the reply goes out after the phase it asked about has ended
    (pinned,) = sent_attachments(judge, asked)
    assert pinned == before[0] and pinned["filename"] == "m3-spring-1901-movement.png"
    (now,) = sent_attachments(judge, judge.send("France", "MAP"))
    (results,) = sent_attachments(judge, judge.send("France", "MAP S1901"))
    assert now["filename"] == "m3-fall-1901-movement.png" and len({pinned["data"], now["data"], results["data"]}) == 3


def test_set_map_chooses_a_players_map_colours(session_factory: sessionmaker[Session]) -> None:
    judge = new_game(session_factory, "m2", "standard", powers=["France", "Germany"])
    ack = judge.say("France", "SET MAP COLOURBLIND\nSET MAP SEPIA")
    assert verdict(ack, "SET MAP COLOURBLIND") == "accepted = maps for France in colourblind colours"
    assert verdict(ack, "SET MAP SEPIA") == "REJECTED : usage: SET MAP COLOURBLIND | RULEBOOK | GAME"
    assert judge.player("France").map_palette == "colourblind" and judge.player("Germany").map_palette is None

    def drawn(power: str) -> dict[str, Any]:
        (attachment,) = sent_attachments(judge, judge.send(power, "MAP"))
        return attachment

    france, germany = drawn("France"), drawn("Germany")
    assert france["data"] != germany["data"]
    assert france["filename"] == "m2-spring-1901-movement-colourblind.png"
    assert germany["filename"] == "m2-spring-1901-movement.png"
    ack = judge.say("France", "SET MAP game")
    assert verdict(ack, "SET MAP game") == "accepted = maps for France in the game's (rulebook) colours"
    assert judge.player("France").map_palette is None and drawn("France") == drawn("Germany")


def test_history_shows_only_the_askers_secrets() -> None:
    report = {
        "orders": [{"power": "France", "order": "A PAR - BUR", "result": "succeeds"},
                   {"power": "France", "order": "DP 2 A TUS - ROM", "result": "counted"}],  # an old report's
        "secret": [{"power": "France", "order": "DP 1 A SWI H", "result": "succeeds"},
                   {"power": "Austria", "order": "DP 3 A BAV H", "result": "succeeds"}],
    }
    england = [e["order"] for e in history.entries_for(report, "England")]
    assert england == ["A PAR - BUR"]
    france = [e["order"] for e in history.entries_for(report, "France")]
    assert france == ["A PAR - BUR", "DP 2 A TUS - ROM", "DP 1 A SWI H"]
    assert [e["order"] for e in history.entries_for(report, None)] == ["A PAR - BUR"]
    assert history.is_secret({"order": "IP 1 F NAP H"}) and not history.is_secret({"order": "A PAR H"})


# --- too late ----------------------------------------------------------------------------------


def test_an_order_written_before_the_phase_opened_is_too_late(session_factory: sessionmaker[Session]) -> None:
    judge = new_game(session_factory, house_rules={"timezone": "Europe/London"})
    judge.say("France", "A Par - Bur")
    judge.end_phase()
    with transaction(judge.sf) as s:
        fall = s.scalars(select(GamePhase).where(GamePhase.seq == 2)).one()
        spring = s.scalars(select(GamePhase).where(GamePhase.seq == 1)).one()
        opened, adjudicated = fall.opened_at, spring.adjudicated_at
    assert fall.label == "Fall 1901, Movement" and adjudicated is not None
    local = adjudicated.astimezone(ZoneInfo("Europe/London"))
    when = f"{local:%A} {local.day} {local:%B} {local.year}, {local:%H:%M} (Europe/London)"
    ack = judge.say("France", "A Bur - Mun\nCLEAR\nA Mar H", date=opened - timedelta(minutes=5))
    assert verdict(ack, "A Bur - Mun") == (
        f"REJECTED : too late: Spring 1901, Movement was adjudicated at {when}; this order was not applied to "
        "Fall 1901, Movement")
    assert verdict(ack, "A Mar H").startswith("REJECTED : too late")
    assert verdict(ack, "CLEAR").startswith("accepted")  # a command, not an order
    assert judge.current_orders("France") == [(1, "A PAR - BUR")]  # Spring's, as adjudicated
    # Written after the phase opened, or with no Date at all: for this phase.
    judge.say("France", "A Bur - Mun", date=opened + timedelta(seconds=1))
    judge.say("France", "A Mar H")
    assert judge.current_orders("France") == [(1, "A PAR - BUR"), (2, "A BUR - MUN"), (2, "A MAR H")]


def test_the_first_phase_takes_mail_written_before_it(session_factory: sessionmaker[Session]) -> None:
    judge = new_game(session_factory)
    ack = judge.say("France", "A Par - Bur", date=utcnow() - timedelta(days=3))
    assert verdict(ack, "A Par - Bur") == "accepted = A PAR - BUR"


# --- the mark for the scheduler ----------------------------------------------------------------


def test_orders_mark_their_games_once_a_batch(session_factory: sessionmaker[Session], engine: Engine) -> None:
    g1 = new_game(session_factory, "g1")
    g2 = new_game(session_factory, "g2")
    for judge in (g1, g2):
        assert not judge.orders_changed()
    updates: list[str] = []

    def seen(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().upper().startswith("UPDATE GAMES"):
            updates.append(statement)

    event.listen(engine, "before_cursor_execute", seen)
    try:
        outcomes = ingest_batch(session_factory, [
            Fetched(7001, mail("france@players.example", "SIGNON France g1 pw\nA Par - Bur")),
            Fetched(7002, mail("england@players.example", "SIGNON England g1 pw\nF Lon - Nth")),
            Fetched(7003, mail("france@players.example", "SIGNON France g2 pw\nA Mar H")),
            Fetched(7004, mail("russia@players.example", "SIGNON Russia g2 pw\nSUMMARY")),
        ], gm_address=GM, uidvalidity=1, verifier=g1.verifier)
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    assert [o.outcome for o in outcomes] == ["processed"] * 4
    assert len(updates) == 1, updates
    assert g1.orders_changed() and g2.orders_changed()
    g1.reset_orders_changed()
    g1.say("Italy", "SUMMARY")
    assert not g1.orders_changed()  # nothing changed
    g1.say("France", "CLEAR")
    assert g1.orders_changed()


# --- the lock against the deadline ----------------------------------------------------------------


def test_a_batch_waits_for_the_end_of_a_phase_and_orders_the_next(session_factory: sessionmaker[Session]) -> None:
    """While the scheduler holds the game (FOR UPDATE on PostgreSQL, the database on SQLite), a
    batch reading the game waits, then sees the phase that opened: its orders never land on a
    phase adjudicated meanwhile."""
    judge = new_game(session_factory)
    done: list[IngestOutcome] = []
    with transaction(judge.sf) as s:
        game = s.scalars(select(Game).where(Game.name == "g1").with_for_update()).one()
        assert game.deadline_at is not None
        phases.check(s, game, game.deadline_at)
        worker = threading.Thread(target=lambda: done.append(judge.send("France", "A Par - Bur")))
        worker.start()
        time.sleep(0.5)
        assert worker.is_alive()  # waiting for the scheduler's transaction
    worker.join(timeout=30)
    assert done and done[0].outcome == "processed"
    assert judge.current_orders("France") == [(2, "A PAR - BUR")]


def test_help_lists_the_new_commands(session_factory: sessionmaker[Session]) -> None:
    judge = new_game(session_factory, powers=["France"])
    ack = judge.say("France", "HELP ALL")
    for usage in ("WAIT\n", "NOWAIT\n", "RESULTS [phase]", "SET ABSENCE <from> <to>"):
        assert usage in ack


def test_the_date_a_mail_was_written() -> None:
    def date_of(value: str | None) -> datetime | None:
        head = f"From: a@b.example\r\n{f'Date: {value}' if value is not None else 'X-No-Date: 1'}\r\n\r\nA Par H\r\n"
        return read_message(head.encode()).date

    assert date_of("Tue, 24 Nov 2026 10:00:00 +0100") == datetime(2026, 11, 24, 9, tzinfo=UTC)
    assert date_of("Tue, 24 Nov 2026 10:00:00 -0000") == datetime(2026, 11, 24, 10, tzinfo=UTC)  # no zone: UTC
    assert date_of("24 Nov 2026 10:00 PST") == datetime(2026, 11, 24, 18, tzinfo=UTC)
    for unreadable in (None, "", "yesterday", "Tue, 99 Nov 2026 10:00:00 +0100", "x" * 5000):
        assert date_of(unreadable) is None
