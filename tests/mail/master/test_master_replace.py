"""REPLACE by mail: the addresses it takes are those a player may JOIN from (one rule, in
gm.mail.intake.addresses), and the new player's welcome holds what they need to play at once."""
from __future__ import annotations

import re

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from desk import JUDGE, STANDARD, Desk, address, new_game

from gm.mail.intake.addresses import AddressError, player_address
from gm.store.db import transaction
from gm.store.models import AuthFailure, Confirmation, OrderRecord, Player

# (address, whether a player may have it)
ADDRESSES = [
    ("someone@players.test", True),  # a name reserved for tests and private networks: mail goes there
    ("Some.One+diplomacy@Mail.Example.ORG", True),
    ("o'brien@pub.example", True),
    (JUDGE, False),  # the judge's own
    ("noreply@players.example", False),  # a machine's: the judge never reads mail from it
    ("mailer-daemon@players.example", False),
    ("someone@localhost", False),
    ("someone@box.invalid", False),
]


@pytest.mark.parametrize(("written", "good"), ADDRESSES)
def test_join_and_replace_give_the_same_verdict_on_an_address(session_factory: sessionmaker[Session], written: str,
                                                              good: bool) -> None:
    forming = new_game(session_factory, "g1", start=False, powers=[])
    running = new_game(session_factory, "g2")
    # JOIN from the address: taken (a code is mailed to confirm it), or refused.
    forming.send(written, "JOIN g1 France s3cret")
    with transaction(session_factory) as s:
        asked = s.scalar(select(func.count()).select_from(Confirmation).where(
            Confirmation.address == written.lower())) or 0
    assert asked == (1 if good else 0)
    # REPLACE with it, by the GM: the same verdict.
    ack = running.master(f"REPLACE France {written}")
    assert (f"accepted  REPLACE France {written}" in ack) == good, ack
    with transaction(session_factory) as s:
        france = s.scalars(select(Player.email).where(Player.power == "France", Player.left_at.is_(None),
                                                      Player.game_id == running.row(s).id)).one()
    assert france == (written.lower() if good else address("France"))
    # ... and the one rule says so, with its reason.
    if good:
        assert player_address(written, JUDGE) == written.lower()
    else:
        with pytest.raises(AddressError):
            player_address(written, JUDGE)


def test_replace_says_why_an_address_is_refused(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    ack = desk.master(f"REPLACE France noreply@x.example\nREPLACE France someone@box.invalid\nREPLACE France {JUDGE}")
    assert "noreply@x.example is a machine's address (mailer-daemon, no-reply): the judge never reads mail " \
           "from it; usage: REPLACE <power> <address>" in ack
    assert "'someone@box.invalid' is not a mail address (The part after the @-sign is a special-use or reserved " \
           "name" in ack
    assert f"{JUDGE} is the judge's own address: a player needs an address of their own" in ack
    assert not desk.audit("replace")


def welcome(desk: Desk, to: str, since: int) -> tuple[str, list[dict[str, object]] | None]:
    (mail,) = [m for m in desk.mails(to=to, since=since)]
    assert mail.kind == "notice" and mail.subject == "g1: you play France"
    return mail.body_text, mail.attachments


def test_the_new_player_gets_the_position_the_last_results_what_is_due_and_how_to_sign_on(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.player("France", "A Par - Bur\nA Mar - Spa\nF Bre - Mao")
    desk.player("Germany", "A Mun - Ruh")
    desk.end_phase()  # Spring 1901 adjudicated: Fall 1901 under way
    desk.player("France", "A Bur - Mun")
    before = desk.last_mail_id()
    new = "someone@players.test"
    ack = desk.master(f"REPLACE France {new}")
    assert f"{new} plays France in place of france@players.example" in ack
    text, attachments = welcome(desk, new, before)
    password = re.search(r"Your password: (\S+)", text).group(1)  # type: ignore[union-attr]
    # How to sign on, never with the password written into the SIGNON line.
    assert "  SIGNON France g1 <password>\n" in text and f"SIGNON France g1 {password}" not in text
    assert text.count(password) == 1
    # The phase, its deadline, what is due now and what is on file.
    assert re.search(r"g1 is in Fall 1901, Movement; the deadline is \w+day \d+ \w+ 20\d\d, \d\d:\d\d \(UTC\)", text)
    assert "Due from France now: A SPA, F MAO." in text
    assert "On file for France (its last player's; CLEAR withdraws them, a new order replaces one):\n  A BUR - MUN" \
           in text
    # The position as it stands, every power's units and centres.
    assert "France: A BUR, A SPA, F MAO; centres: Brest, Marseilles, Paris" in text
    assert "Germany: A BER, A RUH, F KIE; centres: Berlin, Kiel, Munich" in text
    # The last results, as the results mail showed them to France.
    assert "The last results, as they were mailed to France:" in text
    assert "Spring 1901, Movement\n=====================" in text and "A PAR - BUR                  succeeds" in text
    assert "=== gm results ===" not in text
    # The map of the position, drawn by the outbox sender as it sends the mail.
    assert "The map of the position is attached." in text
    assert attachments is not None and attachments[0]["filename"] == "g1-position.png"
    assert attachments[0]["map"]["kind"] == "position"  # type: ignore[index]
    # Nobody else gets the password.
    assert all(password not in m.body_text for m in desk.mails(since=before) if m.to_addr != new)
    # The new player signs on with it and plays.
    out = desk.send(new, f"SIGNON France g1 {password}\nA Spa - Por")
    assert "accepted  A Spa - Por" in desk.ack(out, new)


def test_the_new_player_of_a_forming_game_is_told_it_has_not_started(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, start=False, powers=[p for p in STANDARD if p != "Italy"])
    before = desk.last_mail_id()
    desk.master("REPLACE France someone@players.test")
    text, attachments = welcome(desk, "someone@players.test", before)
    assert "The game has not started yet: you get a mail when it does." in text and attachments is None
    assert "Position" not in text


def test_the_replaced_and_the_ejected_player_are_told_they_play_no_more(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.master("REPLACE France someone@players.test\nEJECT Italy")
    before = desk.last_mail_id()
    for power, how in (("France", "replaced"), ("Italy", "taken from you by the GM")):
        desk.send(address(power), f"SIGNON {power} g1 pw\nA Par - Bur\nWAIT")
        (told,) = desk.mails(to=address(power), since=before)
        assert f"you no longer play {power} in g1 ({how} on " in told.body_text
        assert "A Par - Bur" not in told.body_text and "pw" not in told.body_text.split()
    # Nothing else changes: no order, no mail to anyone else, no wrong password counted for France.
    assert [m.to_addr for m in desk.mails(since=before)] == [address("France"), address("Italy")]
    with transaction(session_factory) as s:
        assert s.scalar(select(func.count()).select_from(AuthFailure)) == 0
        assert s.scalar(select(func.count()).select_from(OrderRecord)) == 0
    # Another address is answered as before: where the power's answers go.
    desk.send("stranger@else.example", "SIGNON France g1 pw")
    assert "no longer play" not in desk.mails(to="stranger@else.example")[-1].body_text
