"""Mail that comes back reaches the GM (gm.mail.outgoing.undelivered): a bounce taken in by ingest
is matched to the mail it returns (by its tagged return path, or the Message-ID it quotes),
recorded, never answered; a permanent failure, or the third temporary one, marks the address
failing, and the GMs are told once, with the receiving server's words, which nobody else sees;
the overview, LIST, `gm game show` and the player's next sign-on show it; mail from the address,
proven its own, clears it. A bounce that matches no mail of the judge's changes nothing. On a real
SQLite file and a real PostgreSQL (tests/conftest.py)."""
from __future__ import annotations

import itertools
import re
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import add_master, create_game
from gm.lifecycle.leaving import links_key
from gm.lifecycle.overview import failing_mail, powers_at_a_glance
from gm.mail.outgoing import undelivered
from gm.mail.outgoing.outbox import OutboxSender
from gm.settings import MailServer
from gm.store import failing
from gm.store.db import transaction
from gm.store.models import Bounce, FailingAddress, Game, InboundMail, OutboundMail, Player, utcnow
from gm.store.passwords import hash_password
from loopback import free_port
from test_ingest import GM, Judge, mail

CORPUS = Path(__file__).parent / "bounces"
_reports = itertools.count()
PLAYER = "england@players.example"


@pytest.fixture
def judge(session_factory: sessionmaker[Session]) -> Judge:
    """A standard game g1 with England played by PLAYER (password pw-England) and a GM."""
    judge = Judge(session_factory)
    with transaction(session_factory) as s:
        game = create_game(s, "g1", "standard")
        s.add(Player(game_id=game.id, power="England", email=PLAYER, password_hash=hash_password("pw-England")))
        add_master(s, game, "master@judge.example", hash_password("pw-master"))
    return judge


def sent_to(judge: Judge, address: str, kind: str = "results") -> OutboundMail:
    """A mail of the judge's to `address`, sent."""
    with transaction(judge.sf) as s:
        game_id = s.scalar(select(Game.id).where(Game.name == "g1"))
        row = OutboundMail(to_addr=address, subject="g1 results", body_text="...", kind=kind, game_id=game_id,
                           message_id=f"<{len(address)}.{utcnow().timestamp()}.gm@judge.example>", sent_at=utcnow())
        s.add(row)
        s.flush()
        s.expunge(row)
    return row


def bounce(name: str, *, to: str, message_id: str, return_path: str = "gm@judge.example") -> bytes:
    """A corpus report made to return `message_id`, sent to `to`, to `return_path`."""
    raw = (CORPUS / name).read_bytes()
    raw = re.sub(rb"(?im)^(Message-Id: *)<[^>]+>", lambda m: m.group(1) + f"<report{next(_reports)}@mx.example>".encode(),
                 raw, count=1)  # each report a mail of its own
    raw = re.sub(rb"<17\d\.\d+\.gm@judge\.example>", message_id.encode(), raw)
    raw = re.sub(rb"alice@example\.org|erin@example\.net|frank@example\.net", to.encode(), raw)
    return re.sub(rb"gm\+b\.\d+\.[a-z0-9]+@judge\.example", return_path.encode(), raw)


def gm_notices(judge: Judge) -> list[OutboundMail]:
    with transaction(judge.sf) as s:
        rows = list(s.scalars(select(OutboundMail).where(OutboundMail.kind == undelivered.KIND)))
        s.expunge_all()
    return rows


def test_a_permanent_bounce_marks_the_address_and_tells_the_gm_once(judge: Judge) -> None:
    mail_out = sent_to(judge, PLAYER)
    out = judge.send(bounce("postfix.eml", to=PLAYER, message_id=mail_out.message_id))
    assert out.replies == 0  # a bounce is never answered
    with transaction(judge.sf) as s:
        (row,) = s.scalars(select(Bounce)).all()
        assert (row.address, row.outbox_id, row.permanent, row.status) == (PLAYER, mail_out.id, True, "5.1.1")
        assert "User unknown" in row.words
        assert s.get(FailingAddress, PLAYER) is not None
        inbound = s.get_one(InboundMail, out.inbound_id)
        assert inbound.outcome == f"bounce: mail out #{mail_out.id}, address marked failing"
    (notice,) = gm_notices(judge)
    assert notice.to_addr == "master@judge.example" and notice.subject == "[g1] Mail to England is not arriving"
    assert PLAYER in notice.body_text and "5.1.1" in notice.body_text and "User unknown" in notice.body_text
    # Another bounce of the same address: recorded, but the GM was told already.
    second = sent_to(judge, PLAYER)
    judge.send(bounce("postfix.eml", to=PLAYER, message_id=second.message_id))
    assert judge.count(Bounce) == 2 and len(gm_notices(judge)) == 1
    # The GM's views name it; nobody but the GM gets the server's words.
    with transaction(judge.sf) as s:
        game = s.scalars(select(Game)).one()
        assert [PLAYER + " (mail failing)"] == [row[1] for row in powers_at_a_glance(s, game) if row[0] == "England"]
        (line,) = failing_mail(s, game)
        assert line.startswith(f"mail to England ({PLAYER}): failing since ") and "User unknown" in line
    ack = judge.say("master@judge.example", "SIGNON MASTER g1 pw-master\nLIST g1")
    assert "User unknown" in ack and "(mail failing)" in ack
    assert all("User unknown" not in text for to, text in judge.replies() if to != "master@judge.example")


def test_the_player_is_told_at_sign_on_and_mail_from_the_address_clears_the_mark(judge: Judge) -> None:
    mail_out = sent_to(judge, PLAYER)
    judge.send(bounce("postfix.eml", to=PLAYER, message_id=mail_out.message_id))
    # From another address: the answer goes to the registered one; the sender hears it fails.
    notice = [text for to, text in judge.replies_for(judge.send(mail("elsewhere@players.example",
                                                                     "SIGNON England g1 pw-England")))
              if to == "elsewhere@players.example"]
    assert "comes back undelivered" in notice[0] and "England in g1" in notice[0]
    assert "User unknown" not in notice[0]
    # The same notice whether the password was right or not.
    wrong = [text for to, text in judge.replies_for(judge.send(mail("other@players.example",
                                                                    "SIGNON England g1 not-the-password")))
             if to == "other@players.example"]
    assert "comes back undelivered" in wrong[0]
    # From the address itself, with the password: it works again.
    ack = judge.say(PLAYER, "SIGNON England g1 pw-England")
    assert "coming back undelivered since" in ack and "works again" in ack
    with transaction(judge.sf) as s:
        assert failing.marks(s, [PLAYER]) == {}
        assert s.scalar(select(func.count()).select_from(Bounce).where(Bounce.cleared_at.is_(None))) == 0


def test_three_temporary_failures_mark_an_address_and_two_do_not(judge: Judge) -> None:
    for n in range(3):
        with transaction(judge.sf) as s:
            assert (s.get(FailingAddress, PLAYER) is not None) == (n == 3)
        mail_out = sent_to(judge, PLAYER)
        judge.send(bounce("postfix_delayed.eml", to=PLAYER, message_id=mail_out.message_id))
        with transaction(judge.sf) as s:
            assert (s.get(FailingAddress, PLAYER) is not None) == (n == 2)
    (notice,) = gm_notices(judge)
    assert "again and again" in notice.body_text


def test_a_bounce_of_no_mail_of_the_judges_changes_nothing(judge: Judge) -> None:
    sent_to(judge, PLAYER)
    forged = [
        bounce("postfix.eml", to=PLAYER, message_id="<guessed@judge.example>"),  # a Message-ID never sent
        # a tagged return path whose check is not the judge's
        bounce("postfix.eml", to=PLAYER, message_id="<guessed@judge.example>", return_path="gm+b.1.aaaaaaaaaaaaaaaa@judge.example"),
        bounce("unmatched.eml", to=PLAYER, message_id="<x@y>"),
    ]
    outs = [judge.send(raw) for raw in forged]
    assert all(out.replies == 0 for out in outs)
    with transaction(judge.sf) as s:
        assert s.scalar(select(func.count()).select_from(FailingAddress)) == 0
        assert all(row.outbox_id is None for row in s.scalars(select(Bounce)))
        assert [s.get_one(InboundMail, out.inbound_id).outcome for out in outs[:2]] == ["bounce: unmatched"] * 2
    assert gm_notices(judge) == []


def test_a_tagged_return_path_names_the_mail_even_when_the_report_quotes_nothing(judge: Judge) -> None:
    mail_out = sent_to(judge, PLAYER)
    tagged = undelivered.return_path(GM, mail_out.id, links_key())
    assert undelivered.mail_of_return_path(GM, tagged) == mail_out.id
    assert undelivered.mail_of_return_path(GM, tagged.replace(f".{mail_out.id}.", f".{mail_out.id + 1}.")) is None
    judge.send(bounce("postfix.eml", to=PLAYER, message_id="<not-quoted@elsewhere.example>", return_path=tagged))
    with transaction(judge.sf) as s:
        (row,) = s.scalars(select(Bounce)).all()
        assert row.outbox_id == mail_out.id and s.get(FailingAddress, PLAYER) is not None


def test_a_bounce_of_a_forwarded_address_is_the_players_failure(judge: Judge) -> None:
    mail_out = sent_to(judge, PLAYER)
    judge.send(bounce("postfix.eml", to="final@elsewhere.example", message_id=mail_out.message_id))
    with transaction(judge.sf) as s:
        (row,) = s.scalars(select(Bounce)).all()
        assert row.address == PLAYER and row.words.startswith("(forwarded to final@elsewhere.example)")


class _Refusing:
    """An SMTP server that refuses one recipient for good, as a receiving server does for a dead address."""

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: list[str]) -> str:
        if address == PLAYER:
            return "550 5.1.1 <england@players.example>: Recipient address rejected: User unknown"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        return "250 OK"


async def test_a_recipient_refused_as_the_judge_sends_is_a_bounce_too(judge: Judge) -> None:
    controller = Controller(_Refusing(), hostname="127.0.0.1", port=free_port())
    controller.start()
    try:
        with transaction(judge.sf) as s:
            game_id = s.scalar(select(Game.id))
            s.add(OutboundMail(to_addr=PLAYER, subject="g1 results", body_text="...", kind="results", game_id=game_id))
        sender = OutboxSender(MailServer("127.0.0.1", controller.port), judge.sf, gm_address=GM)
        mails, _ = sender._claim(10, {})
        for one in mails:
            try:
                await sender._send_one(None, one)
            except Exception as e:  # what the sending loop does with a failure
                await sender._failed(one, e)
    finally:
        controller.stop()
    with transaction(judge.sf) as s:
        (row,) = s.scalars(select(Bounce)).all()
        assert (row.address, row.form, row.status, row.inbound_id) == (PLAYER, "smtp", "5.1.1", None)
        assert "User unknown" in row.words and s.get(FailingAddress, PLAYER) is not None
    (notice,) = gm_notices(judge)
    assert "User unknown" in notice.body_text
