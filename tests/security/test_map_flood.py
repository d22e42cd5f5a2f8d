"""A MAP flood: a player who signed on asks for hundreds of maps in one mail. The intake draws
none (the reply names its maps, the outbox sender draws them as it sends it), a mail gets one map
for each phase it asks for and at most MAPS_PER_MAIL in all, and the sender draws a map once for
every mail that names it."""
from __future__ import annotations

import email
import email.policy
import io
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from PIL import Image
from sqlalchemy.orm import Session, sessionmaker

from desk import JUDGE, Desk, address
from gm.mail.outgoing import mail_maps
from gm.mail.commands.map import MAPS_PER_MAIL
from gm.mail.ingest import IngestOutcome
from gm.mail.outgoing.outbox import OutboxSender, Outgoing, build_message
from gm.settings import MailServer
from gm.store.db import transaction
from gm.store.models import OutboundMail

FRANCE = address("France")
PNG_IN_BASE64 = "iVBORw0KGgo"  # how every PNG starts, base64


@contextmanager
def drawing_counted(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The titles of the maps drawn meanwhile, by anyone."""
    drawn: list[str] = []
    draw = mail_maps.draw_scene

    def counted(variant: Any, scene: Any, palette: str = "rulebook") -> bytes:
        drawn.append(scene.title)
        return draw(variant, scene, palette)

    with monkeypatch.context() as patch:
        patch.setattr(mail_maps, "draw_scene", counted)
        yield drawn


def ack_of(desk: Desk, out: IngestOutcome) -> OutboundMail:
    (row,) = [m for m in desk.mails(kind="ack") if m.inbound_id == out.inbound_id]
    return row


def verdicts(row: OutboundMail) -> list[tuple[str, str, str]]:
    """(accepted or REJECTED, the line, why) for each line the acknowledgement shows."""
    return re.findall(r"^ +(accepted|REJECTED) +(.+)\n +[=:] (.+)$", row.body_text, re.M)


def images_sent(desk: Desk, row: OutboundMail) -> list[bytes]:
    """The PNG images of the mail of `row` as the outbox sender builds it."""
    with transaction(desk.sf) as s:
        raw = build_message(Outgoing.of(row, s), JUDGE)
    mail = email.message_from_bytes(raw, policy=email.policy.default)
    return [part.get_content() for part in mail.walk() if part.get_content_type() == "image/png"]


def assert_png(data: bytes) -> None:
    picture = Image.open(io.BytesIO(data))
    assert picture.format == "PNG"
    picture.verify()


def assert_only_references(desk: Desk) -> None:
    """No outbox row holds a picture: attachments name their maps, at most MAPS_PER_MAIL a row."""
    for row in desk.mails():
        attachments = row.attachments or []
        assert PNG_IN_BASE64 not in repr(attachments), row.subject
        assert all("data" not in a and "map" in a for a in attachments), row.subject
        if row.kind == "ack":
            assert len(attachments) <= MAPS_PER_MAIL


def advance(desk: Desk, phases: int) -> None:
    for _ in range(phases):
        desk.end_phase()


def test_499_map_lines_are_taken_in_without_drawing_and_get_one_map(
        desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    with drawing_counted(monkeypatch) as drawn:
        out = desk.send(FRANCE, "SIGNON France g1 pw\n" + "MAP\n" * 499)
    assert drawn == []  # the intake draws nothing
    assert_only_references(desk)
    row = ack_of(desk, out)
    assert row.to_addr == FRANCE and len(row.attachments or []) == 1  # the same map, asked 499 times
    maps = [v for v in verdicts(row) if v[1] == "MAP"]
    assert maps and all(v == ("accepted", "MAP", "Spring 1901, Movement: the map is attached "
                                                 "(g1-spring-1901-movement.png)") for v in maps)
    (image,) = images_sent(desk, row)
    assert_png(image)


def test_499_map_lines_of_as_many_phases_get_three_maps_and_the_rest_refused(
        desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    advance(desk, 4)  # five phases to ask for
    asked = [f"MAP {season}{year}" for year in range(1901, 2151) for season in "SF"][:499]
    with drawing_counted(monkeypatch) as drawn:
        out = desk.send(FRANCE, "SIGNON France g1 pw\n" + "\n".join(asked))
    assert drawn == []
    assert_only_references(desk)
    row = ack_of(desk, out)
    assert [a["filename"] for a in row.attachments or []] == [
        "g1-spring-1901-movement.png", "g1-fall-1901-movement.png", "g1-spring-1902-movement.png"]
    shown = [v for v in verdicts(row) if v[1].startswith("MAP")]
    assert [v[1] for v in shown if v[0] == "accepted"] == asked[:MAPS_PER_MAIL]
    refused = [v for v in shown if v[0] == "REJECTED"]
    assert len(refused) == len(shown) - MAPS_PER_MAIL > 0
    assert all(v[2].startswith(f"at most {MAPS_PER_MAIL} maps a mail: ") for v in refused)
    images = images_sent(desk, row)
    assert len(images) == MAPS_PER_MAIL and len(set(images)) == MAPS_PER_MAIL
    for image in images:
        assert_png(image)


def test_a_phase_asked_for_again_names_the_same_map(desk: Desk) -> None:
    advance(desk, 3)  # Spring and Fall 1901, Spring 1902, and Fall 1902 under way
    lines = ["MAP S1901", "MAP Spring 1901", "MAP F1901M", "MAP", "MAP Fall 1902", "MAP S1902", "MAP S1901"]
    row = ack_of(desk, desk.send(FRANCE, "SIGNON France g1 pw\n" + "\n".join(lines)))
    told = [(line, (verdict, why)) for verdict, line, why in verdicts(row) if line.startswith("MAP")]
    spring = ("accepted", "Spring 1901, Movement: the map is attached (g1-spring-1901-movement.png)")
    now = ("accepted", "Fall 1902, Movement: the map is attached (g1-fall-1902-movement.png)")
    assert told == [
        ("MAP S1901", spring), ("MAP Spring 1901", spring),
        ("MAP F1901M", ("accepted", "Fall 1901, Movement: the map is attached (g1-fall-1901-movement.png)")),
        ("MAP", now), ("MAP Fall 1902", now),
        ("MAP S1902", ("REJECTED", f"at most {MAPS_PER_MAIL} maps a mail: ask for the others in another mail")),
        ("MAP S1901", spring)]
    assert len(row.attachments or []) == MAPS_PER_MAIL
    images = images_sent(desk, row)
    assert len(images) == MAPS_PER_MAIL and len(set(images)) == MAPS_PER_MAIL


def test_the_sender_draws_a_map_once_for_every_mail_that_names_it(
        session_factory: sessionmaker[Session], desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    # Signed on twice, the mail is answered at both addresses, each asking for the same map.
    out = desk.send(FRANCE, "SIGNON France g1 pw\nMAP\nSIGNON England g1 pw\nMAP S1901")
    acks = {m.id: m for m in desk.mails(kind="ack") if m.inbound_id == out.inbound_id}
    assert sorted(m.to_addr for m in acks.values()) == [address("England"), FRANCE]
    sender = OutboxSender(MailServer("127.0.0.1", 25), session_factory, gm_address=JUDGE)
    with drawing_counted(monkeypatch) as drawn:
        claimed, _ = sender._claim(100, {})
    assert len(drawn) == 1
    england, france = sorted((m for m in claimed if m.id in acks), key=lambda m: m.to_addr)
    assert england.attachments == france.attachments and len(france.attachments or []) == 1
    mail = email.message_from_bytes(build_message(france, JUDGE), policy=email.policy.default)
    (image,) = [part.get_content() for part in mail.walk() if part.get_content_type() == "image/png"]
    assert_png(image)
