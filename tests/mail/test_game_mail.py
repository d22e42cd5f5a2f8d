"""The judge's own mail about a game: results for each reader (a player never sees another's
secret allocations, the GM sees them all), the start of a game, reminders, threading under one
Message-ID per game, and the seam where a map image goes inline."""
from __future__ import annotations

import email
import email.policy
import html
import io
import itertools
import re
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import create_game
from gm.lifecycle import phases
from gm.lifecycle.report import build_report
from gm.mail.outgoing import game_mail, mail_maps
from gm.mail.intake.message import ACK_MARKER, command_lines, read_message
from gm.mail.outgoing.outbox import Outgoing, build_message
from gm.mail.outgoing.reply import RESULTS_HEADING, render
from gm.randomgame import play_random_game
from gm.store.db import transaction
from gm.store.models import Game, OutboundMail, Player, SecretAllocation
from gm.variants import load_variant

GM = "gm@example.org"
MASTER = "master@example.org"
START = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)  # a Friday
LONDON = {"house_rules": {"timezone": "Europe/London"}}


def ambition_reports(seed: int = 3, years: int = 2) -> list[dict[str, Any]]:
    variant = load_variant("ambition")
    return [build_report(variant, state, adj, game="ae1", label=variant.phase_label(state.phase), late=[])
            for state, _, adj in play_random_game(variant, seed, years)]


def in_memory_game(variant: str = "ambition", options: dict[str, Any] | None = None) -> Game:
    return Game(id=7, name="ae1", variant=variant, options=options or LONDON)


def parse(raw: bytes) -> EmailMessage:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def tiny_png() -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new("RGB", (4, 3), (200, 30, 30)).save(out, format="PNG")
    return out.getvalue()


# --- rendering one report ---------------------------------------------------------------------


def test_a_players_copy_holds_its_own_allocations_and_nobody_elses() -> None:
    variant = load_variant("ambition")
    game = in_memory_game()
    reports = [r for r in ambition_reports() if r["secret"]]
    assert reports
    checked = 0
    for report in reports:
        for viewer in variant.great_powers:
            own = {e["order"] for e in report["secret"] if e["power"] == viewer}
            others = {e["order"] for e in report["secret"] if e["power"] != viewer} - own
            text = game_mail.results_text(game, variant, report, viewer)
            markup = html.unescape(game_mail.results_html(game, variant, report, viewer))
            for body in (text, markup):
                for order in others:
                    assert order not in body
                # Every figure of points in the copy is one of the reader's own allocations.
                shown = set(re.findall(r"DP \d+ [^<\n]*?(?=\s{2,}|<|$)", body, re.MULTILINE))
                assert {s.strip() for s in shown} <= own
            for order in own:
                assert order in text and order in markup
                checked += 1
    assert checked


def test_the_gm_copy_has_every_allocation_with_its_result() -> None:
    variant = load_variant("ambition")
    game = in_memory_game()
    report = next(r for r in ambition_reports() if r["secret"])
    text = game_mail.results_text(game, variant, report, None, gm=True)
    markup = html.unescape(game_mail.results_html(game, variant, report, None, gm=True))
    assert "GM only" in text and "GM copy" in text
    lines = text.splitlines()
    for e in report["secret"]:
        at = next(i for i, line in enumerate(lines) if e["order"] in line and e["power"] in line)
        # a result too long for the line goes on under it, indented
        line = " ".join([lines[at], *(more.strip() for more in itertools.takewhile(
            lambda more: more.startswith(" " * 30), lines[at + 1:]))])
        assert e["result"] in line
        if e["result"] != "succeeds" and e["reason"]:
            assert e["reason"] in line
        assert e["order"] in markup
    # Nobody without gm=True gets that section, not even a reader of no power.
    public = game_mail.results_text(game, variant, report, None)
    assert "GM only" not in public and "DP " not in public


def test_minor_powers_show_the_order_their_units_carried_out_and_not_who_paid() -> None:
    variant = load_variant("ambition")
    game = in_memory_game()
    report = next(r for r in ambition_reports() if r["secret"])
    minor = [e for e in report["orders"] if variant.powers[e["power"]].minor and not e.get("default")]
    assert minor
    text = game_mail.results_text(game, variant, report, "Russia")
    public = text.partition("Minor powers (the orders their units carried out):")[2]
    for e in minor:
        assert e["order"] in public
    allocators = {e["power"] for e in report["secret"]} - {"Russia"}
    section = public.split("\n\n")[0]  # the minor powers' orders, up to the next section
    for power in allocators:
        assert power not in section


def test_the_next_deadline_is_shown_in_the_games_time_zone() -> None:
    variant = load_variant("standard")
    report = fake_report(next={"phase": "Fall 1901, Movement", "deadline": "2026-11-27T20:00:00+00:00"})
    london = game_mail.results_text(in_memory_game("standard"), variant, report, "France")
    assert "Next: Fall 1901, Movement, deadline\n  Friday 27 November 2026, 20:00 (Europe/London)" in london
    new_york = in_memory_game("standard", {"house_rules": {"timezone": "America/New_York"}})
    text = game_mail.results_text(new_york, variant, report, "France")
    assert "Friday 27 November 2026, 15:00 (America/New_York)" in text
    assert "15:00 (America/New_York)" in game_mail.results_html(new_york, variant, report, "France")


def test_deadline_text_is_english_and_names_the_zone() -> None:
    summer = datetime(2027, 7, 4, 9, 30, tzinfo=UTC)
    assert game_mail.deadline_text(summer, "Europe/London") == "Sunday 4 July 2027, 10:30 (Europe/London)"
    assert game_mail.deadline_text(summer.isoformat(), "UTC") == "Sunday 4 July 2027, 09:30 (UTC)"
    assert game_mail.deadline_text(None, "UTC") == "none"


def fake_report(**changes: Any) -> dict[str, Any]:
    report: dict[str, Any] = {
        "format": 1, "game": "ae1", "variant": "Diplomacy (standard map)", "phase": "Spring 1901, Movement",
        "skipped": False,
        "orders": [
            {"power": "France", "order": "A PAR - BUR", "result": "succeeds", "reason": ""},
            {"power": "Germany", "order": "A MUN - BUR", "result": "fails", "reason": "bounced in Burgundy"},
            {"power": "Germany", "order": "F KIE H", "result": "succeeds", "reason": "", "default": True},
        ],
        "secret": [],
        "dislodged": [{"power": "Austria", "unit": "A VIE", "retreats": ["BOH", "GAL"]}],
        "disbanded": [{"power": "Italy", "unit": "F NAP"}],
        "centres": {"France": 4, "Germany": 3, "Austria": 2},
        "centre_changes": [{"centre": "BEL", "name": "Belgium", "from": None, "to": "France"},
                           {"centre": "VIE", "name": "Vienna", "from": "Austria", "to": "Russia"}],
        "adjustments": {"France": 1, "Austria": -1},
        "late": ["Turkey"],
        "civil_disorder": ["Italy"],
        "next": {"phase": "Winter 1901, Adjustment", "deadline": "2026-11-27T20:00:00+00:00"},
        "winner": None,
        "ended": None,
    }
    report.update(changes)
    return report


def test_results_name_everything_a_player_needs() -> None:
    variant = load_variant("standard")
    game = in_memory_game("standard")
    text = game_mail.results_text(game, variant, fake_report(), "France")
    assert text.startswith(RESULTS_HEADING + "\n")  # a reply quoting it unmarked is read up to here only
    assert "A MUN - BUR" in text and "fails: bounced in Burgundy" in text
    assert "Held without orders: Germany F KIE" in text and "F KIE H" not in text  # one line for them all
    assert "Austria A VIE: may retreat to Bohemia (BOH), Galicia (GAL), or disband" in text
    assert "Disbanded: Italy F NAP" in text
    assert "Belgium: neutral -> France" in text and "Vienna: Austria -> Russia" in text
    assert "France: 1 build" in text and "Austria: 1 removal" in text
    assert "Builds and removals owed in Winter 1901, Adjustment" in text
    assert "Late (missed the deadline): Turkey" in text
    assert "Now in civil disorder: Italy" in text
    assert "skipped" not in text.lower() and "resolved at once" not in text.lower()
    assert "attached" not in text


def test_owners_are_named_when_the_position_before_is_given() -> None:
    variant = load_variant("standard")
    game = in_memory_game("standard")
    before = variant.initial_state()
    report = fake_report(centres={"France": 4, "Russia": 5, "Austria": 2})
    text = game_mail.results_text(game, variant, report, "France", before=before)
    owners = {line.split()[0]: line for line in text.splitlines() if re.match(r"  \w+ +\d+  ", line)}
    assert "Belgium" in owners["France"] and "Paris" in owners["France"]
    assert "Vienna" in owners["Russia"] and "Vienna" not in owners["Austria"]


def test_a_skipped_phase_says_why_and_an_ended_game_says_how() -> None:
    variant = load_variant("standard")
    game = in_memory_game("standard")
    skipped = fake_report(phase="Fall 1901, Retreat", skipped=True, orders=[], dislodged=[])
    text = game_mail.results_text(game, variant, skipped, "France")
    assert "Resolved at once: nobody had anything to decide in this phase." in text
    over = fake_report(next=None, winner="France", ended="won by France")
    text = game_mail.results_text(game, variant, over, "Germany")
    assert "The game is over: won by France." in text and "Next:" not in text
    assert "game over" in game_mail.results_subject(game, [over])


def test_html_escapes_what_it_shows() -> None:
    variant = load_variant("standard")
    game = in_memory_game("standard")
    report = fake_report(orders=[{"power": "France", "order": "A PAR - BUR", "result": "fails",
                                  "reason": "<script>alert(1)</script> & more"}])
    markup = game_mail.results_html(game, variant, report, "France")
    assert "<script>" not in markup
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in markup
    assert "&lt;script&gt;" not in game_mail.results_text(game, variant, report, "France")


def test_subjects_name_the_game_and_every_phase() -> None:
    game = in_memory_game("standard")
    one = [fake_report()]
    assert game_mail.results_subject(game, one) == "[ae1] Spring 1901 results"
    several = [fake_report(phase="Fall 1901, Movement"), fake_report(phase="Fall 1901, Retreat"),
               fake_report(phase="Winter 1901, Adjustment")]
    assert game_mail.results_subject(game, several) == (
        "[ae1] Fall 1901 results (and Fall 1901 retreats, Winter 1901 adjustments)")


# --- queueing, on both databases ----------------------------------------------------------------


STANDARD = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]


def new_game(session: Session, variant: str, powers: list[str]) -> Game:
    game = create_game(session, "t1", variant)
    game.options = LONDON
    for power in powers:
        session.add(Player(game_id=game.id, power=power, email=f"{power.lower().replace(' ', '-')}@example.org",
                           password_hash="x"))
    session.flush()
    return game


def outbox(session: Session, kind: str) -> list[OutboundMail]:
    return list(session.scalars(select(OutboundMail).where(OutboundMail.kind == kind).order_by(OutboundMail.id)))


def test_start_mail_goes_to_every_player_with_power_position_rules_and_deadline(
    session_factory: sessionmaker[Session],
) -> None:
    with transaction(session_factory) as s:
        game = new_game(s, "standard", STANDARD)
        phases.start(s, game, START)
        assert game_mail.queue_start(s, game, gm_address=GM, now=START) == 7
        rows = outbox(s, "start")
        assert game.thread_id == f"<game.t1.{game.id}@example.org>"
        deadline = game_mail.deadline_text(game.deadline_at, "Europe/London")
    assert sorted(r.to_addr for r in rows) == sorted(f"{p.lower()}@example.org" for p in STANDARD)
    france = next(r for r in rows if r.to_addr == "france@example.org")
    assert france.subject == "[t1] The game starts: you play France"
    assert "You play France." in france.body_text
    assert "A MAR, A PAR, F BRE" in france.body_text and "Brest, Marseilles, Paris" in france.body_text
    assert "F STP/SC" in france.body_text  # every power's units, not only the reader's
    assert "Spring 1901, Movement" in france.body_text and deadline in france.body_text
    assert "(Europe/London)" in deadline
    assert "Reminders: 1d before each deadline" in france.body_text  # the house rules
    assert "Press: white: press is signed with the sender's power" in france.body_text  # and how press goes
    assert france.body_html is not None and "You play France." in france.body_html
    (opening,) = france.attachments or []  # the map of the starting position, the same for all
    assert opening["map"]["kind"] == "position" and opening["filename"] == "t1-spring-1901-position.png"
    assert f'src="cid:{opening["content_id"]}"' in france.body_html
    assert "The map of the starting position is attached." in france.body_text
    for row in rows:
        assert row.in_reply_to == row.references == f"<game.t1.{row.game_id}@example.org>"
        assert row.attachments == france.attachments


def test_the_gm_gets_the_start_mail_without_a_power(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        game = new_game(s, "standard", STANDARD)
        phases.start(s, game, START)
        assert game_mail.queue_start(s, game, gm_address=GM, gm_addresses=[MASTER], now=START) == 8
        rows = outbox(s, "start")
    master = next(r for r in rows if r.to_addr == MASTER)
    assert master.subject == "[t1] The game starts" and "You play" not in master.body_text


def test_results_go_to_every_player_and_a_gm_copy_to_the_gm_only(session_factory: sessionmaker[Session]) -> None:
    variant = load_variant("ambition")
    powers = variant.great_powers
    with transaction(session_factory) as s:
        game = new_game(s, "ambition", powers)
        game.name = "ae1"
        current = phases.start(s, game, START)
        ids = {p.power: p.id for p in s.scalars(select(Player).where(Player.game_id == game.id))}
        for power, text, points in [("France", "DP 2 A SAV S A TUS", 2), ("Austria", "DP 1 A SAV H", 1)]:
            s.add(SecretAllocation(game_id=game.id, phase_id=current.row.id, player_id=ids[power], power=power,
                                   text=text, canonical=text, unit="SAV", points=points))
        s.flush()
        progress = phases.check(s, game, game.deadline_at)
        assert [e.row.label for e in progress.ended] == ["Spring 1763, Movement"]
        queued = game_mail.queue_progress(s, game, progress, gm_address=GM, gm_addresses=[MASTER], now=START)
        assert queued == len(powers) + 1
        rows = outbox(s, "results")
        thread = game.thread_id
        game_id = game.id
    assert len(rows) == queued
    by_addr = {r.to_addr: r for r in rows}
    assert set(by_addr) == {f"{p.lower().replace(' ', '-')}@example.org" for p in powers} | {MASTER}
    france, austria, russia, master = (by_addr[f"{p}@example.org"] for p in ("france", "austria", "russia", "master"))
    assert france.subject == "[ae1] Spring 1763 results"
    assert master.subject == "[ae1] Spring 1763 results (GM copy)"
    for row in rows:
        assert (row.kind, row.game_id, row.in_reply_to, row.references) == ("results", game_id, thread, thread)
        assert row.inbound_id is None
        # the maps of the phase and of the position now, named for the sender to draw
        assert [a["map"]["kind"] for a in row.attachments or []] == ["results", "position"]
        assert row.attachments == master.attachments
        assert "Sardinia:" in row.body_text and "A SAV S A TUS" in row.body_text  # what the minor unit did
    assert "DP 2 A SAV S A TUS" in france.body_text and "DP 1 A SAV H" not in france.body_text
    assert "DP 1 A SAV H" in austria.body_text and "DP 2" not in austria.body_text
    assert "DP " not in russia.body_text and "DP " not in (russia.body_html or "")
    assert "DP 2 A SAV S A TUS" in master.body_text and "DP 1 A SAV H" in master.body_text
    assert "DP 1 A SAV H" in (master.body_html or "") and "DP 1 A SAV H" not in (france.body_html or "")
    lines = russia.body_text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("Next: "))
    assert lines[at] == "Next: Fall 1763, Movement, deadline" and lines[at + 1].endswith("(Europe/London)")
    assert at < 5  # first: what the reader must act on

    with transaction(session_factory) as s:
        raw = build_message(Outgoing.of(france, s), GM)
    msg = parse(raw)
    assert msg.get_content_type() == "multipart/alternative"
    assert msg["In-Reply-To"] == thread and msg["References"] == thread
    assert msg["Message-ID"] == france.message_id and msg["Message-ID"].endswith("@example.org>")
    assert msg["Auto-Submitted"] == "auto-generated"
    plain, markup = msg.get_body(("plain",)), msg.get_body(("html",))
    assert plain is not None and markup is not None
    assert plain.get_content().replace("\r\n", "\n") == france.body_text
    assert markup.get_content().count("<img") == 2  # the maps, inline (see test_the_results_mail_shows_the_map...)


def test_several_phases_at_once_make_one_mail_per_reader(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        game = new_game(s, "standard", STANDARD)
        phases.start(s, game, START)
        first = phases.check(s, game, game.deadline_at)  # Spring 1901
        second = phases.check(s, game, game.deadline_at)  # Fall 1901: nothing changes hands, so no winter
        both = phases.Progress(ended=first.ended + second.ended, players=second.players)
        assert game_mail.queue_progress(s, game, both, gm_address=GM, now=START) == 7
        (row, *_) = outbox(s, "results")
    assert row.subject == "[t1] Spring 1901 results (and Fall 1901 results)"
    assert "Spring 1901, Movement\n=====" in row.body_text and "Fall 1901, Movement\n=====" in row.body_text


def test_reminders_name_what_each_late_power_owes(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        game = new_game(s, "standard", STANDARD)
        phases.start(s, game, START)
        assert game.deadline_at is not None
        progress = phases.check(s, game, game.deadline_at - timedelta(hours=12))
        assert not progress.ended and set(progress.reminders) == set(STANDARD)
        progress.reminders = {"France": ["A MAR", "F BRE"], "Russia": progress.reminders["Russia"]}
        assert game_mail.queue_progress(s, game, progress, gm_address=GM, now=START) == 2
        rows = outbox(s, "reminder")
        deadline = game_mail.deadline_text(game.deadline_at, "Europe/London")
    france = next(r for r in rows if r.to_addr == "france@example.org")
    assert france.subject == "[t1] Reminder: France, orders due for Spring 1901"
    assert "France still owes orders for A MAR, F BRE." in france.body_text
    assert f"The deadline is {deadline}." in france.body_text
    assert france.in_reply_to == france.references == game.thread_id and france.body_html is None
    russia = next(r for r in rows if r.to_addr == "russia@example.org")
    assert "A MOS, A WAR, F SEV, F STP/SC" in " ".join(russia.body_text.split())


def test_a_reminder_after_the_deadline_says_the_game_waits() -> None:
    text = render("reminder.txt.j2", marker=ACK_MARKER, game="t1", power="France",
                            phase="Winter 1901, Adjustment", owed=["2 builds"], units=False,
                            deadline="Friday 27 November 2026, 20:00 (UTC)", passed=True)
    assert "France still owes 2 builds." in text
    assert "The deadline was Friday 27 November 2026, 20:00 (UTC); the game waits for these orders." in " ".join(
        text.split())


# --- the maps ----------------------------------------------------------------------------------------


def test_the_results_mail_shows_the_map_of_the_phase_and_of_the_position_now(
        session_factory: sessionmaker[Session]) -> None:
    from PIL import Image

    with transaction(session_factory) as s:
        game = new_game(s, "standard", STANDARD)
        phases.start(s, game, START)
        progress = phases.check(s, game, game.deadline_at)
        game_mail.queue_progress(s, game, progress, gm_address=GM, now=START)
        rows = outbox(s, "results")
        sent = [Outgoing.of(r, s) for r in rows]  # as the sender reads them: pictures drawn
    row = rows[0]
    # one picture for every reader (maps hold no secret), drawn by the sender, not stored per reader
    assert all(r.attachments == row.attachments for r in rows)
    assert all("data" not in a for a in row.attachments or [])
    assert all(m.attachments == sent[0].attachments for m in sent)
    phase_map, now_map = row.attachments or []
    assert phase_map["filename"] == "t1-spring-1901-movement.png" and now_map["filename"] == "t1-fall-1901-position.png"
    html = row.body_html or ""
    assert html.index(f'src="cid:{phase_map["content_id"]}"') < html.index(f'src="cid:{now_map["content_id"]}"')
    assert "The map of this phase, its orders and their results, is attached." in row.body_text
    assert "The map of the position now is attached." in row.body_text

    msg = parse(build_message(sent[0], GM))
    assert msg.get_content_type() == "multipart/alternative"
    plain, related = msg.get_payload()  # type: ignore[misc]
    assert plain.get_content_type() == "text/plain"
    assert related.get_content_type() == "multipart/related" and related.get_param("type") == "text/html"
    markup, *images = related.get_payload()
    assert markup.get_content_type() == "text/html"
    assert [i["Content-ID"] for i in images] == [f"<{phase_map['content_id']}>", f"<{now_map['content_id']}>"]
    for image in images:
        assert image.get_content_type() == "image/png" and image.get_content_disposition() == "inline"
        picture = Image.open(io.BytesIO(image.get_content()))
        assert picture.width == 1200 and picture.format == "PNG"


def test_a_player_who_chose_other_map_colours_gets_pictures_of_their_own(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        game = new_game(s, "standard", STANDARD)
        france = s.scalars(select(Player).where(Player.power == "France")).one()
        france.map_palette = "colourblind"
        phases.start(s, game, START)
        game_mail.queue_start(s, game, gm_address=GM, gm_addresses=[MASTER], now=START)
        progress = phases.check(s, game, game.deadline_at)
        game_mail.queue_progress(s, game, progress, gm_address=GM, gm_addresses=[MASTER], now=START)
        for kind in ("start", "results"):
            rows = {r.to_addr: r for r in outbox(s, kind)}
            mine, other, gm = rows["france@example.org"], rows["england@example.org"], rows[MASTER]
            assert {a["map"]["palette"] for a in mine.attachments or []} == {"colourblind"}
            assert {a["map"]["palette"] for a in other.attachments or []} == {"rulebook"}
            assert gm.attachments == other.attachments  # the GM sees the game's colours
            for row in (mine, other):
                shown = [f'cid:{a["content_id"]}' for a in row.attachments or []]
                assert shown and all(cid in (row.body_html or "") for cid in shown), kind
            assert not any(f'cid:{a["content_id"]}' in (mine.body_html or "") for a in other.attachments or [])
            drawn = Outgoing.of(mine, s).attachments, Outgoing.of(other, s).attachments
            assert all(a["data"] != b["data"] for a, b in zip(*drawn))  # other colours, other pictures


def test_a_map_that_cannot_be_drawn_leaves_the_results_without_it(session_factory: sessionmaker[Session],
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> bytes:
        raise RuntimeError("no ink")

    monkeypatch.setattr(mail_maps, "draw_scene", broken)
    with transaction(session_factory) as s:
        game = new_game(s, "standard", STANDARD)
        phases.start(s, game, START)
        progress = phases.check(s, game, game.deadline_at)
        game_mail.queue_progress(s, game, progress, gm_address=GM, now=START)
        (row, *_) = outbox(s, "results")
        mail = Outgoing.of(row, s)
    assert len(row.attachments or []) == 2 and mail.attachments == []
    msg = parse(build_message(mail, GM))  # sent all the same, text and HTML, without the pictures
    assert [p.get_content_type() for p in msg.get_payload()] == ["text/plain", "text/html"]  # type: ignore[union-attr]
    assert "Spring 1901" in row.body_text


# --- the outbox's part of it ------------------------------------------------------------------


def outgoing(**changes: Any) -> Outgoing:
    values: dict[str, Any] = {"id": 1, "message_id": "<m1@gm.example>", "to_addr": "bob@example.org", "subject": "s",
                              "body_text": "text\n", "attachments": None, "in_reply_to": None,
                              "created_at": datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC), "attempts": 0}
    values.update(changes)
    return Outgoing(**values)


def test_references_come_from_the_row_and_default_to_in_reply_to() -> None:
    threaded = parse(build_message(outgoing(in_reply_to="<b@x>", references="<a@x>  <b@x>", generated=True), GM))
    assert threaded["References"] == "<a@x> <b@x>" and threaded["In-Reply-To"] == "<b@x>"
    assert threaded["Auto-Submitted"] == "auto-generated"
    answer = parse(build_message(outgoing(in_reply_to="<b@x>"), GM))
    assert answer["References"] == "<b@x>" and answer["Auto-Submitted"] == "auto-replied"


def test_an_inline_image_without_html_is_an_ordinary_attachment_and_other_files_stay_attached() -> None:
    import base64

    data = base64.b64encode(tiny_png()).decode()
    image = {"filename": "map.png", "content_type": "image/png", "data": data, "content_id": "map1@gm.example"}
    plain = parse(build_message(outgoing(attachments=[image]), GM))
    assert plain.get_content_type() == "multipart/mixed"
    (part,) = plain.iter_attachments()
    assert part.get_content_disposition() == "attachment" and part["Content-ID"] is None
    extra = {"filename": "notes.txt", "content_type": "text/plain", "data": base64.b64encode(b"hi").decode()}
    both = parse(build_message(outgoing(body_html="<p>x</p>", attachments=[image, extra]), GM))
    assert both.get_content_type() == "multipart/mixed"
    body, attached = both.get_payload()  # type: ignore[misc]
    assert body.get_content_type() == "multipart/alternative"
    assert attached.get_filename() == "notes.txt" and attached.get_content_disposition() == "attachment"
    assert body.get_payload()[1].get_content_type() == "multipart/related"


def test_a_content_id_that_could_break_the_header_is_refused() -> None:
    from gm.mail.outgoing.outbox import BadOutgoing

    bad = {"filename": "map.png", "content_type": "image/png", "data": "", "content_id": "a b\r\nBcc: x@y"}
    with pytest.raises(BadOutgoing):
        build_message(outgoing(body_html="<p>x</p>", attachments=[bad]), GM)


def test_thread_id_is_made_once() -> None:
    game = in_memory_game()
    first = game_mail.thread_id(game, GM)
    assert first == "<game.ae1.7@example.org>"
    assert game_mail.thread_id(game, "other@elsewhere.example") == first


# --- replies to game mail --------------------------------------------------------------------


def _reply(text: str, markup: str | None = None) -> list[str]:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "austria@example.org", GM, "Re: [ae1] Spring 1763 results"
    msg.set_content(text)
    if markup is not None:
        msg.add_alternative(markup, subtype="html")
    return command_lines(read_message(msg.as_bytes()).text)


def test_a_reply_to_the_results_reads_only_what_the_player_wrote() -> None:
    """Results mail is full of lines that look like orders ('A VIE - BOH  succeeds'): however the
    mail program quotes it in a reply, with marks, under an attribution without marks, below an
    Outlook header block, pasted bare, or as HTML, only the player's new lines are read."""
    variant = load_variant("ambition")
    report = next(r for r in ambition_reports() if r["secret"])
    text = game_mail.results_text(in_memory_game(), variant, report, "Austria")
    markup = game_mail.results_html(in_memory_game(), variant, report, "Austria")
    mine = ["SIGNON Austria ae1 secret", "A VIE - BOH"]
    new = "\n".join(mine) + "\n"
    quoted = "\n".join("> " + line for line in text.splitlines())
    on = "On Wed, Nov 25, 2026 at 10:00 AM gm <gm@example.org> wrote:\n"
    outlook = "________________________________\nFrom: gm <gm@example.org>\nSent: Wednesday, November 25, 2026 10:00\n" \
              "To: austria@example.org\nSubject: [ae1] Spring 1763 results\n\n"
    for body in (new + "\n" + on + quoted, new + "\n" + on + text, new + "\n" + outlook + text, new + "\n" + text,
                 quoted + "\n\n" + new):
        assert _reply(body) == mine, body[:200]
    gmail = (f'<div dir="ltr">{"<br>".join(mine)}</div><br><div class="gmail_quote"><div class="gmail_attr">'
             f'{html.escape(on)}</div><blockquote class="gmail_quote">{markup}</blockquote></div>')
    assert _reply(new + "\n" + on + quoted, gmail) == mine
    apple = f'<html><body>{"<br>".join(mine)}<br><blockquote type="cite">{markup}</blockquote></body></html>'
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "austria@example.org", GM, "Re"
    msg.set_content(apple, subtype="html")
    assert command_lines(read_message(msg.as_bytes()).text) == mine
