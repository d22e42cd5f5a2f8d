"""What players read, by mail on SQLite and PostgreSQL: each kind of mail headed as what it is (only
an answer to the reader's own mail as an acknowledgement), acknowledgements once a game is over, the
echo of a secret allocation, one notice per GM mail, and the summary that closes a game."""
from __future__ import annotations

import asyncio
import base64
import email
from typing import Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from desk import JUDGE, MASTER, STANDARD, Desk, address, new_game

from gm.mail.outgoing.mail_maps import draw_planned, plan_attachments
from gm.mail.intake.message import ACK_MARKER, command_lines
from gm.mail.outgoing.outbox import OutboxSender
from gm.mail.outgoing.reply import NOTICE_HEADING, PRESS_HEADING, RESULTS_HEADING
from gm.settings import MailServer
from gm.store.db import transaction
from gm.store.models import OutboundMail, utcnow
from gm.variants import load_variant

FRANCE_WINS = ["Bel", "Hol", "Den", "Spa", "Por", "Tun", "Nwy", "Swe", "Gre", "Ser", "Rum", "Bul", "Ber", "Kie",
               "Mun"]


def win_for_france(desk: Desk) -> None:
    """France holds 18 centres at the end of Fall 1901, by the GM's edits."""
    desk.master("PROCESS")
    desk.master("REMOVE UNIT Ber\nREMOVE UNIT Kie\nREMOVE UNIT Mun\n"
                + "\n".join(f"SET OWNER {c} France" for c in FRANCE_WINS) + "\nPROCESS")


def test_results_and_notices_are_headed_as_what_they_are(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.master("EXTEND 24h\nPROCESS")
    assert ack.startswith(ACK_MARKER + "\n")  # the GM's own mail answered
    results = desk.mails(kind="results", since=before)
    assert results and all(m.body_text.startswith(RESULTS_HEADING + "\n") for m in results)
    notices = desk.mails(kind="deadline", since=before)
    assert notices and all(m.body_text.startswith(NOTICE_HEADING + "\n") for m in notices)
    assert not any(ACK_MARKER in m.body_text for m in results + notices)
    # The code for an OBSERVE answers the observer's own mail.
    desk.send("watcher@elsewhere.example", "OBSERVE g1")
    (code,) = desk.mails(kind="confirm", to="watcher@elsewhere.example")
    assert code.body_text.startswith(ACK_MARKER + "\n")
    # A results mail pasted unquoted under a player's orders is not read as orders.
    mine = next(m for m in results if m.to_addr == address("France"))
    assert command_lines(f"A PAR - PIC\n\n{mine.body_text}") == ["A PAR - PIC"]


def test_press_is_headed_as_press(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.player("France", "PRESS TO England\nShall we share the Channel?\nENDPRESS\nPRESS TO GM\nA question.\nENDPRESS")
    assert ack.startswith(ACK_MARKER + "\n")
    press = desk.mails(kind="press", since=before)
    assert {m.to_addr for m in press} >= {address("England"), MASTER}
    assert all(m.body_text.startswith(PRESS_HEADING + "\n") and ACK_MARKER not in m.body_text for m in press)


def test_an_acknowledgement_after_the_end_names_no_phase_and_nothing_owed(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    win_for_france(desk)
    with desk.sf() as s:
        assert desk.row(s).status == "finished"
    ack = desk.player("Germany", "LIST")
    assert "Germany in g1: the game is over (won by France)." in ack
    assert "Units still without orders" not in ack and "Orders on file" not in ack
    assert "1902" not in ack and "Winter 1901" not in ack


def test_a_dp_allocation_echoes_its_unit_and_what_it_replaces(session_factory: sessionmaker[Session]) -> None:
    powers = list(load_variant("ambition").great_powers)
    desk = new_game(session_factory, "ae", "ambition", powers=powers)
    ack = desk.player("France", "DP 1 Swi H")
    assert "accepted  DP 1 Swi H\n            = DP 1 A SWI H\n" in ack
    assert "?" not in ack
    ack = desk.player("France", "DP 2 Swi H")
    assert "accepted  DP 2 Swi H\n            = DP 2 A SWI H (replaces DP 1 A SWI H)\n" in ack
    assert "DP allocations (secret: only you and the GM see them):\n  DP 2 A SWI H\nDPs used: 2 of" in ack
    other = desk.player("Austria", "DP 1 A Swi H")
    assert "= DP 1 A SWI H\n" in other and "replaces" not in other  # France's is France's alone


def test_one_gm_mail_is_one_notice_to_each_player(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.master("PAUSE")
    before = desk.last_mail_id()
    year = utcnow().year + 2
    ack = desk.master(f"RESUME\nEXTEND 24h\nSET DEADLINE {year}-12-01 20:00\nPAUSE")
    assert ack.count("accepted") == 5 and "REJECTED" not in ack  # the SIGNON and the four
    mails = desk.mails(since=before)
    notices = [m for m in mails if m.kind != "ack"]
    assert sorted(m.to_addr for m in notices) == sorted([address(p) for p in STANDARD] + [MASTER])  # one each
    france = next(m for m in notices if m.to_addr == address("France"))
    assert france.subject == ("[g1] The game runs again: Spring 1901; Deadline moved: Spring 1901; "
                              "The game is paused")
    text = france.body_text
    assert text.startswith(NOTICE_HEADING + "\n") and text.count(NOTICE_HEADING) == 1
    said = [text.index(s) for s in ("The GM resumed the game", "The GM put it off by", "The GM set it",
                                    "The GM paused the game")]
    assert said == sorted(said)  # in the order the GM wrote them
    assert f"1 December {year}, 20:00 (UTC)" in text
    # A mail with one such command is one notice as before; a player's own mail changes nothing here.
    before = desk.last_mail_id()
    desk.master("RESUME")
    assert [m.subject for m in desk.mails(since=before, to=address("France"))] == ["[g1] The game runs again: Spring 1901"]


# --- the end of a game ---------------------------------------------------------------------------


def test_the_mail_that_ends_a_game_has_the_centres_year_by_year_and_the_final_map(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    win_for_france(desk)
    (france,) = [m for m in desk.mails(kind="results", since=before, to=address("France"))
                 if "The game is over" in m.body_text]
    text = france.body_text
    assert "The game is over: won by France." in text
    table = text.split("Supply centres, year by year\n----------------------------\n", 1)[1].split("\n\n")[0]
    assert table.splitlines() == [
        "       Austria  England  France  Germany  Italy  Russia  Turkey",
        "start        3        3       3        3      3       4       3",
        "1901         3        3      18        0      3       4       3",
    ]
    assert "The map of the final position, with the final count of centres, is attached." in text
    assert "The final position" in (france.body_html or "")
    kinds = [a["map"]["kind"] for a in france.attachments or []]
    assert kinds == ["results", "final"]
    with transaction(session_factory) as s:
        drawn = {}
        planned = plan_attachments(s, france.attachments, drawn)
        assert planned is not None
        scene = planned[1]["drawing"][2]  # what the final map shows: its legend counts these centres
        assert list(scene.centres.values()).count("France") == 18 and scene.subtitle == "final position"
        pictures = draw_planned(planned, drawn)
    assert pictures is not None and all(base64.b64decode(p["data"]).startswith(b"\x89PNG") for p in pictures)
    assert pictures[0]["data"] != pictures[1]["data"]



def test_the_gms_terminate_tells_the_centres_year_by_year(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.player("France", "A PAR - BUR\nA MAR - SPA")
    desk.master("PROCESS\nPROCESS")  # Spring and Fall 1901: France takes Spain
    before = desk.last_mail_id()
    desk.master("TERMINATE")
    (told,) = [m.body_text for m in desk.mails(since=before, to=address("England")) if m.kind != "ack"]
    assert "The final position (Winter 1901):" in told or "The final position (Spring 1902):" in told
    assert told.split("Supply centres, year by year:\n", 1)[1].splitlines()[:3] == [
        "       Austria  England  France  Germany  Italy  Russia  Turkey",
        "start        3        3       3        3      3       4       3",
        "1901         3        3       4        3      3       4       3",
    ]


# --- an acknowledgement before the mail its mail caused -------------------------------------------


def _last_to_join(session_factory: sessionmaker[Session]) -> Desk:
    """Six powers taken; Turkey's JOIN and CONFIRM by mail fill the game, which starts."""
    desk = new_game(session_factory, powers=STANDARD[:6], start=False)
    desk.join(address("Turkey"), "Turkey")
    assert desk.phase_label() == "Spring 1901, Movement"
    return desk


def test_no_mail_to_an_address_is_taken_while_an_acknowledgement_to_it_waits(
        session_factory: sessionmaker[Session]) -> None:
    desk = _last_to_join(session_factory)
    turkey = address("Turkey")
    sender = OutboxSender(MailServer("127.0.0.1", 1), session_factory, gm_address=JUDGE)
    taken, _ = sender._claim(100, {})
    mine = [(m.kind, m.subject) for m in taken if m.to_addr == turkey]
    assert [kind for kind, _ in mine] == ["ack"]  # the CONFIRM's; not the code nor the start yet
    assert any(m.kind == "start" for m in taken if m.to_addr != turkey)  # the others' start goes out
    with transaction(session_factory) as s:
        s.execute(update(OutboundMail).where(OutboundMail.id.in_([m.id for m in taken])).values(sent_at=utcnow()))
    rest, _ = sender._claim(100, {})
    assert sorted((m.to_addr, m.kind) for m in rest) == [(turkey, "confirm"), (turkey, "start")]


async def test_the_join_is_acknowledged_before_the_game_starts_by_mail(
        session_factory: sessionmaker[Session], smtp_front: Any, wait_until: Any) -> None:
    desk = await asyncio.to_thread(_last_to_join, session_factory)
    code = desk.mails(kind="confirm")[0].subject  # JOIN's answer: the code, sent to the address
    arrived: list[tuple[str, str]] = []
    relay = smtp_front.relay
    relay.relay_only = True
    original = relay.handle_DATA

    async def recording(server: Any, session: Any, envelope: Any) -> str:
        reply = await original(server, session, envelope)
        subject = email.message_from_bytes(envelope.original_content or b"")["Subject"]
        arrived.extend((to, str(subject)) for to in envelope.rcpt_tos)
        return reply

    relay.handle_DATA = recording
    senders = [OutboxSender(smtp_front.server, session_factory, gm_address=JUDGE, poll_seconds=0.5)
               for _ in range(2)]  # two senders, four connections each, as two processes share the outbox
    tasks = [asyncio.create_task(s.run()) for s in senders]

    def unsent() -> int:
        with transaction(session_factory) as s:
            return s.scalar(select(func.count()).select_from(OutboundMail).where(OutboundMail.sent_at.is_(None))) or 0

    try:
        await wait_until(lambda: unsent() == 0, timeout=60)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    turkey = [subject for to, subject in arrived if to == address("Turkey")]
    assert sorted(turkey) == sorted(["Re: orders", "[g1] The game starts: you play Turkey", code]), turkey
    assert turkey.index("Re: orders") < turkey.index("[g1] The game starts: you play Turkey")  # CONFIRM's ack first
    assert [subject for to, subject in arrived if to == MASTER][-1].startswith("[g1] The game starts")
