"""Ingest: every player command, bad input, exactly-once recording and the acknowledgement, on a
real SQLite file and a real PostgreSQL server (the db fixtures in tests/conftest.py)."""
from __future__ import annotations

import itertools
import logging
import re
import sys
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import create_game
from gm.mail import budget
from gm.mail.intake import auth
from gm.mail import ingest as ingest_module
from gm.mail.outgoing import reply as reply_module
from gm.mail.ingest import Fetched, IngestOutcome, ingest, ingest_batch
from gm.mail.intake.message import ACK_MARKER
from gm.store.db import make_engine, make_session_factory, transaction, upgrade
from gm.store.models import (
    AuthFailure,
    Game,
    GamePhase,
    InboundMail,
    OrderRecord,
    OutboundMail,
    Player,
    SecretAllocation,
)
from gm.store.passwords import PasswordVerifier
from acks import VERDICTS, verdict

sys.path.insert(0, str(Path(__file__).resolve().parent / "master"))
from desk import confirmation_code  # noqa: E402
from desk import join as join_by_mail  # noqa: E402

GM = "gm@judge.example"
STANDARD = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
_ids = itertools.count(1)


def mail(sender: str, body: str, *, subject: str = "orders", html: bool = False, **headers: str) -> bytes:
    m = EmailMessage()
    m["From"] = sender
    m["To"] = GM
    m["Subject"] = subject
    m["Message-ID"] = headers.pop("Message_ID", f"<m{next(_ids)}@players.example>")
    for k, v in headers.items():
        m[k.replace("_", "-")] = v
    if html:
        m.set_content(body, subtype="html")
    else:
        m.set_content(body)
    return m.as_bytes()


class Judge:
    """The ingest function with a database, a password cache and helpers to read the outbox."""

    def __init__(self, session_factory: sessionmaker[Session]):
        self.sf = session_factory
        self.verifier = PasswordVerifier()

    def send(self, raw: bytes, **kw: object) -> IngestOutcome:
        return ingest(self.sf, raw, gm_address=GM, verifier=self.verifier, **kw)  # type: ignore[arg-type]

    def send_batch(self, raws: list[bytes], first_uid: int = 1000) -> list[IngestOutcome]:
        mails = [Fetched(first_uid + i, raw) for i, raw in enumerate(raws)]
        return ingest_batch(self.sf, mails, gm_address=GM, uidvalidity=9, verifier=self.verifier)

    def replies(self) -> list[tuple[str, str]]:
        """(to, text) of every acknowledgement, oldest first, the Message-ID lines left out."""
        with transaction(self.sf) as s:
            rows = s.execute(select(OutboundMail.to_addr, OutboundMail.body_text).order_by(OutboundMail.id)).all()
        return [(to, text) for to, text in rows]

    def say(self, sender: str, body: str, **kw: str) -> str:
        """Send a mail and return the one answer it got, wherever that went: its acknowledgement
        (beside which a sender that is not the power's address gets a fixed notice), or else its
        one notice."""
        out = self.send(mail(sender, body, **kw))
        replies = self.replies_for(out)
        acks = [r for r in replies if ACK_MARKER in r[1] and "line by line" in r[1]]
        if len(acks) == 1 and len(replies) == 2:
            return acks[0][1]
        assert out.replies == 1, (out, replies)
        return replies[0][1]

    def join(self, sender: str, game: str, power: str, password: str) -> str:
        """JOIN and CONFIRM as a player does (desk.join); the CONFIRM's acknowledgement."""
        out = join_by_mail(self.sf, lambda by, body: self.send(mail(by, body)), sender, game, power, password)
        ((_, ack),) = self.replies_for(out)
        return ack

    def replies_for(self, out: IngestOutcome) -> list[tuple[str, str]]:
        """(to, text) of the replies to one mail, in order."""
        with transaction(self.sf) as s:
            rows = s.execute(select(OutboundMail.to_addr, OutboundMail.body_text)
                             .where(OutboundMail.inbound_id == out.inbound_id).order_by(OutboundMail.id)).all()
        return [(to, text) for to, text in rows]

    def last_reply(self, to: str) -> str:
        with transaction(self.sf) as s:
            row = s.scalars(select(OutboundMail).where(OutboundMail.to_addr == to).order_by(OutboundMail.id.desc())).first()
            assert row is not None
            return row.body_text

    def count(self, table: type) -> int:
        with transaction(self.sf) as s:
            return s.scalar(select(func.count()).select_from(table))  # type: ignore[no-any-return]

    def current_orders(self, power: str) -> list[str]:
        with transaction(self.sf) as s:
            return list(
                s.scalars(
                    select(OrderRecord.canonical)
                    .where(OrderRecord.power == power, OrderRecord.current.is_(True))
                    .order_by(OrderRecord.id)
                )
            )


@pytest.fixture
def judge(session_factory: sessionmaker[Session]) -> Judge:
    return Judge(session_factory)


@pytest.fixture
def game(judge: Judge) -> Judge:
    """A standard game, g1, with all seven powers joined (password 'pw-<power>')."""
    with transaction(judge.sf) as s:
        create_game(s, "g1", "standard")
    for p in STANDARD:
        judge.join(f"{p.lower()}@players.example", "g1", p, f"pw-{p}")
    return judge


def line_of(ack: str, text: str) -> str:
    """The acknowledgement's verdict on one line of the mail, an answered command's too."""
    return verdict(ack, text, (*VERDICTS, "answered"))


def test_join_fills_the_game_and_starts_it(game: Judge) -> None:
    ack = game.last_reply("turkey@players.example")
    assert "every power is taken: the game starts with Spring 1901, Movement" in ack
    with transaction(game.sf) as s:
        assert s.scalar(select(Game.status)) == "active"
        hashes = s.scalars(select(Player.password_hash)).all()
    assert all(h.startswith("$argon2id$") and "pw-" not in h for h in hashes)


def test_signon_orders_and_the_acknowledgement(game: Judge) -> None:
    ack = game.say("france@players.example", "SIGNON France g1 pw-France\nA Par-Bur\nA Paris - Munich\nF Bre - Mao")
    assert ack.startswith(ACK_MARKER)
    assert "pw-France" not in ack  # the password is never echoed
    assert line_of(ack, "SIGNON France g1 ********") == "accepted = signed on as France in g1"
    assert line_of(ack, "A Par-Bur") == "accepted = A PAR - BUR"
    assert line_of(ack, "A Paris - Munich") == "REJECTED : no army can reach Munich from Paris"
    assert line_of(ack, "F Bre - Mao") == "accepted = F BRE - MAO"
    assert "Orders on file:\n  A PAR - BUR\n  F BRE - MAO" in ack
    assert "Units still without orders: A MAR" in ack
    assert game.current_orders("France") == ["A PAR - BUR", "F BRE - MAO"]


def test_one_log_line_a_mail_saying_game_phase_role_and_outcome(game: Judge, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="gm.mail.ingest")
    raw = mail("france@players.example", "SIGNON France g1 pw-France\nA Par-Bur\nPRESS TO England\nhello\nENDPRESS")
    out = game.send(raw)
    stranger = game.send(mail("eve@elsewhere.example", "SIGNON France g1 guess\nA Par-Bur"))
    again = game.send(raw)
    said = [r.getMessage() for r in caplog.records if r.name == "gm.mail.ingest"]
    assert said == [
        f"mail in #{out.inbound_id}: game g1, Spring 1901, Movement, from France: processed, 2 replies",
        f"mail in #{stranger.inbound_id}: from a sender not signed on: processed, 1 reply",
        "mail in (not recorded): duplicate",
    ]
    assert again.inbound_id is None
    text = "\n".join(said)
    for secret in ("pw-France", "guess", "players.example", "elsewhere.example", "hello", "Par"):
        assert secret not in text


def test_a_later_order_for_a_unit_replaces_the_earlier_one(game: Judge) -> None:
    game.say("fr@x.example", "SIGNON France g1 pw-France\nA Par-Bur")
    ack = game.say("fr@x.example", "SIGNON France g1 pw-France\nA Par - Pic\nA Mar H")
    assert game.current_orders("France") == ["A PAR - PIC", "A MAR H"]
    assert "Orders on file:\n  A PAR - PIC\n  A MAR H" in ack
    assert game.count(OrderRecord) == 3  # nothing is ever deleted


def test_njudge_signon_form(game: Judge) -> None:
    ack = game.say("e@x.example", "SIGNON Eg1 pw-England\nF Lon - Nth")
    assert line_of(ack, "F Lon - Nth") == "accepted = F LON - NTH"


def test_wrong_password_changes_nothing(game: Judge) -> None:
    notice = game.say("mallory@evil.example", "SIGNON France g1 guess\nA Par - Bur")
    # Another address than France's is told only where the answer went, as for the right password.
    assert "Your mail signed on as:\n  France in g1\nThe answer to each goes to the address registered" in notice
    assert "wrong password for" not in notice
    assert "A Par - Bur" not in notice and "guess" not in notice  # nothing of the mail is repeated
    assert game.current_orders("France") == []
    with transaction(game.sf) as s:
        failure = s.scalars(select(AuthFailure)).one()
        assert (failure.sender, failure.power) == ("mallory@evil.example", "France")


def test_a_wrong_password_from_the_players_own_address_is_said_to_be_wrong(game: Judge) -> None:
    notice = game.say("france@players.example", "SIGNON France g1 pw-Frnace\nA Par - Bur")
    assert "Signing on failed:\n  wrong password for France in g1" in notice
    assert game.current_orders("France") == []


def test_the_right_password_works_after_guesses_in_the_players_name(game: Judge) -> None:
    """Ten wrong passwords sent from the player's own address (forged) do not lock the player out,
    and the player is told of them at the next sign-on."""
    for _ in range(10):
        game.send(mail("france@players.example", "SIGNON France g1 guess"))
    ack = game.say("france@players.example", "SIGNON France g1 pw-France\nA Par - Bur")
    assert line_of(ack, "A Par - Bur") == "accepted = A PAR - BUR"
    assert "warning: 10 wrong passwords for France were sent to the judge" in ack
    ack = game.say("france@players.example", "SIGNON France g1 pw-France")
    assert "wrong passwords" not in ack  # told once


def test_a_failed_second_signon_leaves_the_mail_signed_off(game: Judge) -> None:
    ack = game.say("x@x.example", "SIGNON France g1 pw-France\nSIGNON England g1 wrong\nA Par - Bur")
    # France's answer shows nothing of what was done, or not, for England: only where it went.
    assert line_of(ack, "SIGNON England g1 ********") == "answered - answered at the address registered for England in g1"
    assert "A Par - Bur" not in ack and "(1 line for another power is answered at its own address)" in ack
    assert game.current_orders("France") == []


def test_password_checks_per_mail_are_bounded(game: Judge) -> None:
    body = "\n".join(f"SIGNON France g1 guess{i}" for i in range(auth.CHECKS_PER_MAIL + 3))
    notice = game.say("france@players.example", body)
    assert notice.count("wrong password for France in g1") == auth.CHECKS_PER_MAIL  # the problems told, no more
    assert game.count(AuthFailure) == auth.CHECKS_PER_MAIL


def test_clear_withdraws_the_orders(game: Judge) -> None:
    game.say("fr@x.example", "SIGNON France g1 pw-France\nA Par-Bur\nA Mar - Spa")
    ack = game.say("fr@x.example", "SIGNON France g1 pw-France\nCLEAR")
    assert "Orders on file:\n  none" in ack
    assert game.current_orders("France") == []


def test_set_password_and_address(game: Judge) -> None:
    out = game.send(mail("fr@x.example", "SIGNON France g1 pw-France\nSET PASSWORD newpw\nSET ADDRESS France <new@x.example>"))
    ((to, ack), (new, code_mail)) = [r for r in game.replies_for(out) if r[0] != "fr@x.example"]
    assert (to, new) == ("france@players.example", "new@x.example")  # the ack as before; the new address its code
    assert "newpw" not in ack and "newpw" not in code_mail and "SET" not in code_mail
    assert line_of(ack, "SET PASSWORD ********") == "accepted = password changed"
    assert line_of(ack, "SET ADDRESS France <new@x.example>") == (
        "accepted = a code to confirm it was mailed to new@x.example: mail for France moves there once the code "
        "comes back (CONFIRM <code>, within 24 hours); until then it goes to france@players.example")
    assert "signed on as France" in game.say("fr@x.example", "SIGNON France g1 newpw")  # still to the old address
    # The new address confirms: mail moves there, and the old address is told.
    out = game.send(mail("new@x.example", f"CONFIRM {confirmation_code(game.sf, 'new@x.example')}"))
    (to, ack), (old, notice) = game.replies_for(out)
    assert (to, old) == ("new@x.example", "france@players.example")
    assert line_of(ack, "CONFIRM ********") == (
        "accepted = mail for France in g1 now goes to new@x.example (it went to france@players.example)")
    assert "Mail for France in g1 now goes to new@x.example, no longer to this address." in notice
    assert "wrong password" in game.say("fr@x.example", "SIGNON France g1 pw-France")
    assert "signed on as France" in game.say("fr@x.example", "SIGNON France g1 newpw")


@pytest.mark.parametrize("address", ["nobody", "a b@c.example", "x@", "@x.example", "x@localhost", "x@[127.0.0.1]",
                                     "x@y..example"])
def test_set_address_refuses_what_is_no_mail_address(game: Judge, address: str) -> None:
    ack = game.say("france@players.example", f"SIGNON France g1 pw-France\nSET ADDRESS {address}")
    assert line_of(ack, f"SET ADDRESS {address}").startswith(f"REJECTED : {address!r} is not a mail address")
    with transaction(game.sf) as s:
        assert s.scalar(select(Player.email).where(Player.power == "France")) == "france@players.example"


def test_one_new_password_a_mail(game: Judge) -> None:
    ack = game.say("france@players.example", "SIGNON France g1 pw-France\nSET PASSWORD one\nSET PASSWORD two")
    assert ack.count("= password changed") == 1
    assert ": one new password a mail (JOIN or SET PASSWORD): send this line in a mail of its own" in ack
    assert "signed on as France" in game.say("france@players.example", "SIGNON France g1 one")


def test_new_passwords_per_sender_are_bounded(game: Judge) -> None:
    for i in range(auth.NEW_PER_SENDER - 1):  # the JOIN of the fixture was the first
        game.say("france@players.example", f"SIGNON France g1 {'pw-France' if i == 0 else f'p{i - 1}'}\nSET PASSWORD p{i}")
    ack = game.say("france@players.example", f"SIGNON France g1 p{auth.NEW_PER_SENDER - 2}\nSET PASSWORD last")
    assert line_of(ack, "SET PASSWORD ********") == "REJECTED : too many new passwords from this address: try again in an hour"


def test_one_address_plays_one_power_unless_the_game_allows_more(judge: Judge) -> None:
    with transaction(judge.sf) as s:
        create_game(s, "g1", "standard")
        create_game(s, "g2", "standard").options = {"several_powers_per_address": True}
    judge.join("me@x.example", "g1", "France", "pw1")
    notice = judge.say("me@x.example", "JOIN g1 England pw2")
    assert "this address plays France in g1 already: one address plays one power" in notice
    judge.join("me@x.example", "g2", "France", "pw1")
    ack = judge.join("me@x.example", "g2", "England", "pw2")
    assert line_of(ack, "CONFIRM ********").startswith("accepted = you play England in g2")


@pytest.mark.parametrize("line, shown", [
    ("JOIN g1 hunter2", "JOIN g1 ********"),
    ("JOIN hunter2", "JOIN ********"),
    ("SINGON France g1 hunter2", "SINGON France g1 ********"),
    ("Sign-on France g1 hunter2", "Sign-on France g1 ********"),
    ("SET PASWORD hunter2", "SET PASWORD ********"),
    ("SET PASSWORD hunter2 hunter2", "SET PASSWORD hunter2 ********"),
])
def test_a_password_is_never_shown_back(game: Judge, line: str, shown: str) -> None:
    ack = game.say("france@players.example", f"SIGNON France g1 pw-France\n{line}")
    assert "pw-France" not in ack
    assert shown in ack
    if line.count("hunter2") == 1:
        assert "hunter2" not in ack


def test_list_help_summary_history_signoff(game: Judge) -> None:
    ack = game.say("anyone@x.example", "LIST\nLIST g1\nHELP ALL")
    assert "g1: Diplomacy (standard map), active" in ack
    assert "phase: Spring 1901, Movement" in ack
    assert "SIGNON <power> <game> <password>" in ack and "SET ADDRESS <mail address>" in ack
    ack = game.say("fr@x.example", "SIGNON France g1 pw-France\nSUMMARY\nHISTORY\nSIGNOFF\nA Par - Bur")
    assert "France: A MAR, A PAR, F BRE; 3 centres (BRE, MAR, PAR)" in ack
    assert "no phase has been played yet" in ack
    assert "A Par - Bur" not in ack  # after SIGNOFF nothing is read
    assert game.current_orders("France") == []


def test_history_never_shows_an_allocation_but_to_its_owner(game: Judge) -> None:
    """Allocations (under "secret" in a report; and any that slipped among its orders, flagged or
    not) are shown to their owner only."""
    with transaction(game.sf) as s:
        phase = s.scalars(select(GamePhase)).one()
        phase.adjudicated_at = phase.opened_at
        phase.results_json = {
            "orders": [
                {"power": "France", "order": "A PAR - BUR", "result": "succeeds"},
                {"power": "France", "order": "DP 2 A TUS - ROM", "result": "counted"},
                {"power": "France", "order": "HOME MAR", "result": "counted", "secret": True},
            ],
            "secret": [
                {"power": "France", "order": "IP 1 F NAP H", "result": "succeeds"},
                {"power": "Austria", "order": "DP 3 A BAV H", "result": "succeeds"},
            ],
        }
    england = game.say("england@players.example", "SIGNON England g1 pw-England\nHISTORY")
    assert "A PAR - BUR" in england
    assert "DP 2" not in england and "IP 1" not in england and "HOME MAR" not in england and "DP 3" not in england
    france = game.say("france@players.example", "SIGNON France g1 pw-France\nHISTORY")
    assert "DP 2 A TUS - ROM" in france and "IP 1 F NAP H" in france and "HOME MAR" in france
    assert "DP 3" not in france


def test_join_errors(game: Judge) -> None:
    with transaction(game.sf) as s:
        create_game(s, "g2", "classical")
    notice = game.say("x@x.example", "JOIN g1 France pw\nJOIN g2 Atlantis pw\nJOIN g3 Rome pw\nJOIN g2")
    assert "Signing on failed:\n  g1 is not taking new players\n  g2 (Classical" in notice
    assert "  there is no such game (LIST shows the games)\n  usage: JOIN <game> <power> <password>" in notice
    ack = game.join("x@x.example", "g2", "Rome", "pw")
    assert line_of(ack, "CONFIRM ********") == "accepted = you play Rome in g2 (1 of 5 powers taken)"


def test_orders_without_signon_and_nonsense(game: Judge) -> None:
    notice = game.say("x@x.example", "A Par - Bur\nHello judge!")
    assert "Your mail signed on to no game" in notice and "Hello" not in notice
    ack = game.say("fr@x.example", "SIGNON France g1 pw-France\nHello judge!\nA Par - Xyzzy\nBuild A Par")
    assert line_of(ack, "A Par - Xyzzy") == ("REJECTED : unknown province 'Xyzzy'; Paris borders Brest (BRE), "
                                             "Burgundy (BUR), Gascony (GAS), Picardy (PIC)")
    assert line_of(ack, "Build A Par") == "REJECTED : build orders are only accepted in an adjustment phase"
    assert game.current_orders("France") == []


def test_quoted_reply_does_not_resubmit(game: Judge) -> None:
    first = game.say("fr@x.example", "SIGNON France g1 pw-France\nA Par-Bur")
    quoted = "\n".join("> " + line for line in first.splitlines())
    body = f"SIGNON France g1 pw-France\nA Mar H\n\nOn Sun, 22 Nov 2026, gm wrote:\n{quoted}\n-- \nA Par - Gas"
    ack = game.say("fr@x.example", body)
    assert game.current_orders("France") == ["A PAR - BUR", "A MAR H"]
    assert "A Par - Gas" not in ack


def test_html_only_mail(game: Judge) -> None:
    ack = game.say("fr@x.example", "<p>SIGNON France g1 pw-France</p><div>A Par&nbsp;-&nbsp;Bur</div>", html=True)
    assert game.current_orders("France") == ["A PAR - BUR"]
    assert "signed on as France" in ack


def test_automatic_mail_is_recorded_and_never_answered(game: Judge) -> None:
    before = game.count(OutboundMail)
    for raw in (
        mail("fr@x.example", "SIGNON France g1 pw-France\nA Par-Bur", Auto_Submitted="auto-replied"),
        mail("list@x.example", "A Par-Bur", List_Id="<players.x.example>"),
        mail("MAILER-DAEMON@x.example", "bounce", subject="Undelivered Mail Returned to Sender"),
    ):
        out = game.send(raw)
        assert out.outcome.startswith("automatic") and out.replies == 0
    assert game.count(OutboundMail) == before
    assert game.current_orders("France") == []


def _recorded_outcome(judge: Judge, inbound_id: int | None) -> str | None:
    with transaction(judge.sf) as s:
        return s.scalar(select(InboundMail.outcome).where(InboundMail.id == inbound_id))


# What a mailing list or a relay adds to a player's mail on its way to the judge.
LIST_HEADERS = {"Precedence": "bulk", "List_Id": "<players.x.example>", "List_Unsubscribe": "<mailto:leave@x.example>"}


@pytest.mark.parametrize("headers", [{"Precedence": "bulk"}, {"Precedence": "list"}, LIST_HEADERS])
def test_list_or_bulk_mail_that_signs_on_is_a_players_and_answered(game: Judge, headers: dict[str, str]) -> None:
    out = game.send(mail("fr@x.example", "SIGNON France g1 pw-France\nA Par-Bur", **headers))
    assert (out.outcome, out.replies) == ("processed", 1)
    assert _recorded_outcome(game, out.inbound_id) == "processed"
    assert line_of(game.last_reply("france@players.example"), "A Par-Bur") == "accepted = A PAR - BUR"
    assert game.current_orders("France") == ["A PAR - BUR"]
    # CONFIRM of a JOIN signs on too
    with transaction(game.sf) as s:
        create_game(s, f"g{len(headers) + 1}", "standard")
    game.send(mail("new@x.example", f"JOIN g{len(headers) + 1} France pw"))
    out = game.send(mail("new@x.example", f"CONFIRM {confirmation_code(game.sf, 'new@x.example')}", **headers))
    assert (out.outcome, out.replies) == ("processed", 1)


def test_list_or_bulk_mail_that_does_not_sign_on_is_never_answered(game: Judge) -> None:
    before = game.count(OutboundMail)
    for body in ("A Par-Bur", "LIST\nHELP", "SIGNON France g1 wrong\nA Par-Bur", "SIGNON France g9 pw-France"):
        out = game.send(mail("fr@x.example", body, **LIST_HEADERS))
        assert (out.outcome, out.replies) == ("automatic: Precedence: bulk", 0)
        assert _recorded_outcome(game, out.inbound_id) == "automatic: Precedence: bulk"
    assert game.count(OutboundMail) == before
    assert game.current_orders("France") == []


def test_signs_of_a_machines_mail_are_never_answered_even_with_a_password(game: Judge) -> None:
    for headers in ({"Auto_Submitted": "auto-replied"}, {"Precedence": "auto_reply"}, {"X_Autoreply": "yes"},
                    {"Auto_Submitted": "auto-generated", **LIST_HEADERS}):
        out = game.send(mail("fr@x.example", "SIGNON France g1 pw-France\nA Par-Bur", **headers))
        assert out.outcome.startswith("automatic") and out.replies == 0
    out = game.send(mail("fr@x.example", "SIGNON France g1 pw-France\nA Par-Bur", subject="Automatic reply: orders",
                         Precedence="bulk"))
    assert out.outcome == "automatic: Subject: Automatic reply" and out.replies == 0
    assert game.current_orders("France") == []


def test_list_mail_in_a_batch_done_again_mail_by_mail(game: Judge, monkeypatch: pytest.MonkeyPatch) -> None:
    """In the careful run (a savepoint per mail) the row of a list mail that signs on is written
    as it is processed, and says so too."""
    from gm.mail.commands import summary

    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(summary, "run", broken)
    raws = [
        mail("england@players.example", "SIGNON England g1 pw-England\nSUMMARY\nF Lon-Nth"),
        mail("france@players.example", "SIGNON France g1 pw-France\nA Par-Bur", **LIST_HEADERS),
        mail("de@x.example", "A Mun-Ruh", **LIST_HEADERS),
    ]
    outcomes = game.send_batch(raws)
    assert [(o.outcome, o.replies) for o in outcomes] == [
        ("processed", 1), ("processed", 1), ("automatic: Precedence: bulk", 0)]
    assert [_recorded_outcome(game, o.inbound_id) for o in outcomes] == [o.outcome for o in outcomes]
    assert game.current_orders("France") == ["A PAR - BUR"]


def test_too_large_mail_is_refused_with_a_reply(game: Judge) -> None:
    raw = mail("fr@x.example", "SIGNON France g1 pw-France\nA Par-Bur\n" + "x" * 3000)
    out = game.send(raw, max_size=2000)
    assert out.outcome == "too large"
    ack = game.last_reply("fr@x.example")
    assert "this judge reads mail up to 2,000 bytes" in ack
    assert game.current_orders("France") == []
    with transaction(game.sf) as s:
        stored = s.scalar(select(InboundMail.raw).where(InboundMail.id == out.inbound_id))
    assert stored is not None and b"x" * 100 not in stored  # only its header is kept


def test_a_mail_fetched_as_its_header_is_refused_by_the_size_the_server_gave(game: Judge) -> None:
    """The IMAP watcher fetches only the header of a mail over the limit, with its size."""
    raw = mail("fr@x.example", "SIGNON France g1 pw-France\nA Par-Bur\n")
    header = raw.split(b"\n\n", 1)[0] + b"\n\n"
    (out,) = ingest_batch(game.sf, [Fetched(77, header, 5_000_000)], gm_address=GM, max_size=1_000_000)
    assert out.outcome == "too large"
    assert "Your mail is 5,000,000 bytes long" in game.last_reply("fr@x.example")
    with transaction(game.sf) as s:
        row = s.scalars(select(InboundMail).where(InboundMail.id == out.inbound_id)).one()
    assert (row.size, row.raw, row.imap_uid) == (5_000_000, header, 77)


def test_each_mail_is_processed_exactly_once(game: Judge) -> None:
    raw = mail("fr@x.example", "SIGNON France g1 pw-France\nA Par-Bur")
    first = game.send(raw, uidvalidity=7, uid=42)
    assert first.outcome == "processed"
    replies = game.count(OutboundMail)
    assert game.send(raw, uidvalidity=7, uid=42).outcome == "duplicate"
    assert game.send(raw).outcome == "duplicate"  # same Message-ID, another way in
    other = mail("fr@x.example", "SIGNON France g1 pw-France\nA Mar H")
    assert game.send(other, uidvalidity=7, uid=42).outcome == "duplicate"  # same IMAP UID
    assert game.count(OutboundMail) == replies
    assert game.count(InboundMail) == 15  # 7 JOINs, their 7 CONFIRMs and this one
    with transaction(game.sf) as s:
        stored = s.scalar(select(InboundMail.raw).where(InboundMail.imap_uid == 42))
    assert stored == raw.replace(b"pw-France", b"********")  # kept whole but for the password


def test_the_ack_goes_to_the_powers_address_whoever_sends(game: Judge) -> None:
    """Once a mail signs on, its acknowledgement goes to the address the power registered, not to
    the From or Reply-To of the mail: those can name anyone."""
    out = game.send(mail("fr@x.example", "SIGNON France g1 pw-France\nA Par-Bur", Reply_To="<victim@else.example>"))
    # The sender, not France's address, is told only where the answer went (the same for a wrong password).
    assert [to for to, _ in game.replies_for(out)] == ["france@players.example", "fr@x.example"]
    assert "A Par" not in game.replies_for(out)[1][1]
    # Signed on as two powers: each of their addresses gets the acknowledgement.
    out = game.send(mail("france@players.example",
                         "SIGNON France g1 pw-France\nSIGNON England g1 pw-England\nF Lon H"))
    assert [to for to, _ in game.replies_for(out)] == ["france@players.example", "england@players.example"]


def test_a_stranger_gets_a_short_fixed_notice_and_nothing_of_the_mail(game: Judge) -> None:
    spam = "\n".join(f"Buy cheap watches at spam{i}.example {'x' * 300}" for i in range(400))
    out = game.send(mail("victim@else.example", spam, subject="Cheap watches " * 50))
    ((to, text),) = game.replies_for(out)
    assert to == "victim@else.example"
    assert "watches" not in text and "spam" not in text and len(text) < 1500
    with transaction(game.sf) as s:
        subject = s.scalar(select(OutboundMail.subject).where(OutboundMail.inbound_id == out.inbound_id))
    assert subject == "gm: how to send orders"
    # LIST and HELP are the judge's own words: a stranger gets them, as an answer, not a failure.
    answer = game.say("someone@else.example", "LIST")
    assert "g1: Diplomacy (standard map), active" in answer and "Here is what you asked for" in answer
    assert "nothing in it was carried out" not in answer
    with transaction(game.sf) as s:
        assert s.scalars(select(OutboundMail.subject).order_by(OutboundMail.id.desc())).first() == "gm: Games"


def test_replies_to_one_address_are_limited_per_hour(game: Judge) -> None:
    answered = [game.send(mail("victim@else.example", "hello")).replies
                for _ in range(budget.STRANGER_NOTICES_PER_HOUR + 2)]
    assert answered == [1] * budget.STRANGER_NOTICES_PER_HOUR + [0, 0]
    with transaction(game.sf) as s:  # its CONFIRM's
        before = s.scalar(select(func.count()).select_from(OutboundMail).where(
            OutboundMail.to_addr == "france@players.example", OutboundMail.kind == "ack"))
    limited = [ingest(game.sf, mail("france@players.example", "SIGNON France g1 pw-France\nA Par H"), gm_address=GM,
                      verifier=game.verifier, replies_per_hour=before + 2).replies for _ in range(4)]
    assert limited == [1, 1, 1, 0]  # then one notice that answers are paused; the orders are on file all the same
    assert game.current_orders("France") == ["A PAR H"]


def test_an_acknowledgement_shows_a_bounded_part_of_the_mail(game: Judge) -> None:
    body = "SIGNON France g1 pw-France\n" + "\n".join(f"A Par - Bur {'x' * 500}" for _ in range(700))
    ack = game.say("fr@x.example", body)
    assert max(len(line) for line in ack.splitlines()) < 2 * reply_module.MAX_SHOWN_CHARS + 50
    assert f"... and {ingest_module.MAX_LINES - reply_module.MAX_SHOWN_LINES} more lines, not shown here" in ack
    assert "(201 lines after these were not read: send at most 500 lines a mail)" in ack


def test_the_judge_never_answers_itself(game: Judge) -> None:
    assert game.send(mail(GM, "LIST")).replies == 0  # a mail from the judge itself is not answered
    out = game.send(mail("fr@x.example", "LIST"))
    assert out.replies == 1
    with transaction(game.sf) as s:
        reply_id = s.scalars(select(OutboundMail.message_id).order_by(OutboundMail.id.desc())).first()
    assert reply_id is not None and reply_id.endswith("@judge.example>")  # the GM's own domain


@pytest.fixture
def ambition(judge: Judge) -> Judge:
    from gm.variants import load_variant

    with transaction(judge.sf) as s:
        create_game(s, "ae", "ambition")
    for p in load_variant("ambition").great_powers:
        judge.join(f"{p.split()[0].lower()}@ae.example", "ae", p, f"pw-{p.replace(' ', '')}")
    return judge


def test_dp_allocations_are_secret_and_counted(ambition: Judge) -> None:
    ack = ambition.say(
        "fr@ae.example",
        "SIGNON France ae pw-France\nA Mar - Sav\nDP 2 A Swi S A Mar - Sav\nDP 5 A Pap H\nDP A Swi - Bur",
    )
    assert line_of(ack, "DP 2 A Swi S A Mar - Sav") == "accepted = DP 2 A SWI S A MAR - SAV"
    assert line_of(ack, "DP A Swi - Bur") == "REJECTED : a minor power may only be ordered to hold or support"
    assert "DP allocations (secret: only you and the GM see them):\n  DP 2 A SWI S A MAR - SAV" in ack
    assert "DP 5 A PAP H" in ack
    assert "DPs used: 7 of 3: over the limit, so ALL your DPs are forfeited this turn unless you withdraw some" in ack
    ack = ambition.say("fr@ae.example", "SIGNON France ae pw-France\nDP 1 A Pap H")
    assert "DPs used: 3 of 3, left: 0" in ack
    ack2 = ambition.say("at@ae.example", "SIGNON Austria ae pw-Austria\nDP 1 A Swi S A Mil - Ven")
    assert "A MAR - SAV" not in ack2 and "DP 2" not in ack2  # never another power's orders
    with transaction(ambition.sf) as s:
        assert s.scalar(select(func.count()).select_from(SecretAllocation)) == 4  # one replaced, kept
        assert s.scalar(select(func.count()).select_from(SecretAllocation).where(SecretAllocation.current)) == 3
        assert s.scalar(select(func.count()).select_from(OrderRecord)) == 1


# --- batches ---------------------------------------------------------------------------------------

BURST = [
    ("fr@x.example", "SIGNON France g1 pw-France\nA Par-Bur\nF Bre-Mao"),
    ("de@x.example", "SIGNON Germany g1 pw-Germany\nA Mun-Ruh\nA Ber-Kie"),
    ("fr@x.example", "SIGNON France g1 pw-France\nA Par-Pic\nA Mar H"),  # replaces A Par's order
    ("it@x.example", "SIGNON Italy g1 wrong\nA Ven-Tyr"),  # wrong password: nothing on file
    ("de@x.example", "SIGNON Germany g1 pw-Germany\nCLEAR\nF Kie-Den"),
    ("en@x.example", "SIGNON England g1 pw-England\nF Lon-Nth\nA Xyz-Abc\nSUMMARY"),
]


def _burst() -> list[bytes]:
    raws = [mail(sender, body, subject=f"burst {i}") for i, (sender, body) in enumerate(BURST)]
    return [*raws[:3], raws[1], *raws[3:]]  # the second mail again, as a mail server may deliver it twice


def _state(judge: Judge) -> tuple[object, ...]:
    orders = {p: judge.current_orders(p) for p in STANDARD}
    # The two judges' games start seconds apart: their deadlines may fall in different minutes; and
    # each judge mails codes of its own.
    replies = [re.sub(r"CONFIRM \w{5}-\w{5}", "CONFIRM <code>", re.sub(r"its deadline is [^\n]*", "its deadline is ...", text))
               for _, text in judge.replies()]
    return orders, judge.count(InboundMail), judge.count(AuthFailure), replies


def test_a_batch_does_what_its_mails_do_one_by_one(session_factory: sessionmaker[Session], tmp_path: Path) -> None:
    reference = f"sqlite:///{tmp_path / 'one-by-one.sqlite3'}"
    upgrade(reference)
    one_by_one, batched = Judge(make_session_factory(make_engine(reference))), Judge(session_factory)
    for judge in (one_by_one, batched):
        with transaction(judge.sf) as s:
            create_game(s, "g1", "standard")
        for p in STANDARD:
            judge.join(f"{p.lower()}@players.example", "g1", p, f"pw-{p}")
    raws = _burst()
    singles = [one_by_one.send(raw, uidvalidity=9, uid=1000 + i) for i, raw in enumerate(raws)]
    outcomes = batched.send_batch(raws)
    assert [o.outcome for o in outcomes] == [o.outcome for o in singles]
    assert [o.outcome for o in outcomes][:4] == ["processed", "processed", "processed", "duplicate"]
    assert _state(batched) == _state(one_by_one)
    assert batched.current_orders("France") == ["F BRE - MAO", "A PAR - PIC", "A MAR H"]
    assert batched.current_orders("Germany") == ["F KIE - DEN"]  # CLEAR took back what came before it
    assert batched.current_orders("Italy") == []
    # The same mails again: all known, nothing changes.
    before = _state(batched)
    assert {o.outcome for o in batched.send_batch(raws, first_uid=5000)} == {"duplicate"}
    assert _state(batched) == before


def test_a_command_that_raises_is_rejected_alone_and_the_batch_goes_on(
    game: Judge, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A bug in one command: its line is rejected, the rest of its mail and the other mails of
    the batch are carried out (the batch is done again with a savepoint per mail and command)."""
    from gm.mail.commands import summary

    def broken(*args: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(summary, "run", broken)
    raws = [
        mail("fr@x.example", "SIGNON France g1 pw-France\nA Par-Bur"),
        mail("en@x.example", "SIGNON England g1 pw-England\nSUMMARY\nF Lon-Nth"),
        mail("de@x.example", "SIGNON Germany g1 pw-Germany\nA Mun-Ruh"),
    ]
    outcomes = game.send_batch(raws)
    assert [o.outcome for o in outcomes] == ["processed"] * 3
    assert game.current_orders("France") == ["A PAR - BUR"]
    assert game.current_orders("England") == ["F LON - NTH"]
    assert game.current_orders("Germany") == ["A MUN - RUH"]
    ack = game.last_reply("england@players.example")
    assert "could not carry this out" in line_of(ack, "SUMMARY")
    assert "RuntimeError: a bug" in caplog.text


def test_a_mail_that_fails_is_left_for_later_and_the_others_are_kept(
    game: Judge, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = ingest_module.render_ack

    def render(subject: str, *args: object, **kwargs: object) -> str:
        if subject == "doomed":
            raise RuntimeError("the template is broken")
        return real(subject, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(ingest_module, "render_ack", render)
    doomed = mail("fr@x.example", "SIGNON France g1 pw-France\nA Par-Bur", subject="doomed")
    fine = mail("de@x.example", "SIGNON Germany g1 pw-Germany\nA Mun-Ruh")
    first, second = game.send_batch([doomed, fine])
    assert first.failed and first.inbound_id is None and isinstance(first.error, RuntimeError)
    assert second.outcome == "processed" and not second.failed
    assert game.current_orders("France") == []  # nothing of the failed mail is kept
    assert game.current_orders("Germany") == ["A MUN - RUH"]
    monkeypatch.setattr(ingest_module, "render_ack", real)  # mended: the retry goes through
    again, known = game.send_batch([doomed, fine])
    assert (again.outcome, known.outcome) == ("processed", "duplicate")
    assert game.current_orders("France") == ["A PAR - BUR"]


# --- what a hostile mail cannot do ---------------------------------------------------------------


def test_over_long_ids_and_addresses_are_bounded_when_read(game: Judge) -> None:
    """On PostgreSQL an over-long Message-ID, From or Reply-To would not fit its column: the mail
    would fail for ever. They are bounded when the mail is read, and the mail is answered."""
    long_id = f"<{'x' * 2000}@players.example>"
    out = game.send(mail("france@players.example", "SIGNON France g1 pw-France\nA Par H", Message_ID=long_id))
    assert out.outcome == "processed" and out.replies == 1
    assert game.current_orders("France") == ["A PAR H"]
    again = game.send(mail("france@players.example", "SIGNON France g1 pw-France\nA Par H", Message_ID=long_id))
    assert again.outcome == "duplicate"  # the hash of an id is the same every time
    out = game.send(mail(f"{'a' * 400}@players.example", "LIST", Reply_To=f"{'b' * 400}@x.example"))
    assert (out.outcome, out.replies) == ("automatic: no From address", 0)
    out = game.send(mail("fr@x.example", "SIGNON France g1 pw-France\nA Mar H", Reply_To=f"{'b' * 400}@x.example"))
    assert out.replies == 2  # the acknowledgement to France's address, where the answer went to the sender


def test_a_mail_id_sent_first_by_someone_else_does_not_drop_the_real_mail(game: Judge) -> None:
    real = mail("france@players.example", "SIGNON France g1 pw-France\nA Par-Bur", Message_ID="<real-1@players.example>")
    game.send(mail("mallory@evil.example", "hello", Message_ID="<real-1@players.example>"))
    assert game.send(real).outcome == "processed"
    assert game.current_orders("France") == ["A PAR - BUR"]
    assert game.send(real).outcome == "duplicate"  # the same mail again is still a duplicate


def test_a_game_name_with_a_look_alike_letter_names_no_game(judge: Judge) -> None:
    with transaction(judge.sf) as s:
        create_game(s, "game", "standard")
    notice = judge.say("x@x.example", "JOIN g\u0430me France pw")  # a CYRILLIC SMALL LETTER A
    assert "there is no such game" in notice
    assert "you play France in game" in judge.join("x@x.example", "GAME", "France", "pw")


def test_a_joins_password_is_hashed_before_the_transaction(judge: Judge, monkeypatch: pytest.MonkeyPatch) -> None:
    from gm.mail.commands import context

    def no_hashing_here(password: str) -> str:
        raise AssertionError("a password was hashed inside the transaction")

    monkeypatch.setattr(context, "hash_password", no_hashing_here)
    with transaction(judge.sf) as s:
        create_game(s, "g1", "standard")
    assert "you play France in g1" in judge.join("me@x.example", "g1", "France", "pw1")
    # SET PASSWORD is hashed in the transaction, once its sign-on has shown the mail may: a guess
    # of the sign-on's password must cost no hash.
    monkeypatch.undo()
    ack = judge.say("me@x.example", "SIGNON France g1 pw1\nSET PASSWORD pw2")
    assert line_of(ack, "SET PASSWORD ********") == "accepted = password changed"
    assert "signed on as France" in judge.say("me@x.example", "SIGNON France g1 pw2")


def test_a_mail_that_fails_again_and_again_is_recorded_and_its_sender_told(
    game: Judge, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = ingest_module._Batch._record

    def failing(self, session, lookups, i, row, *, careful):  # type: ignore[no-untyped-def]
        if "poison" in self.messages[i].text:
            raise RuntimeError("cannot be processed")
        return real(self, session, lookups, i, row, careful=careful)

    monkeypatch.setattr(ingest_module._Batch, "_record", failing)
    poison = mail("fr@x.example", "SIGNON France g1 pw-France\npoison")
    fine = mail("en@x.example", "SIGNON England g1 pw-England\nF Lon H")
    for attempt in range(ingest_module.GIVE_UP_AFTER - 1):
        outcomes = ingest_batch(game.sf, [Fetched(1, poison, attempts=attempt), Fetched(2 + attempt, fine)],
                                gm_address=GM, uidvalidity=9, verifier=game.verifier)
        assert outcomes[0].failed and not outcomes[1].failed
    last = ingest_batch(game.sf, [Fetched(1, poison, attempts=ingest_module.GIVE_UP_AFTER - 1)],
                        gm_address=GM, uidvalidity=9, verifier=game.verifier)[0]
    assert not last.failed and last.replies == 1
    assert last.outcome == f"failed: RuntimeError (gave up after {ingest_module.GIVE_UP_AFTER} attempts)"
    assert "The judge could not read your mail" in game.last_reply("fr@x.example")
    assert game.current_orders("France") == []
    assert ingest_batch(game.sf, [Fetched(1, poison)], gm_address=GM, uidvalidity=9)[0].outcome == "duplicate"


def test_stored_mail_keeps_no_password(game: Judge) -> None:
    body = ("SIGNON France g1 pw-France\nSET PASSWORD s3cret-New\nA Par-Bur\n\n"
            "On Mon, 23 Nov 2026 at 10:00, France <france@players.example> wrote:\n> SIGNON France g1 old-Pass")
    html = "".join(f"<div>{line}</div>" if not line.startswith(">") else f"<blockquote>{line[1:]}</blockquote>"
                   for line in body.splitlines())
    raws = [mail("fr@x.example", body), mail("x@x.example", "JOIN g9 France j0in-pw"),
            mail("fr@x.example", html, html=True)]
    for raw in raws:
        game.send(raw)
    with transaction(game.sf) as s:
        stored = s.scalars(select(InboundMail.raw).order_by(InboundMail.id.desc()).limit(3)).all()
    for raw in stored:
        for password in (b"pw-France", b"s3cret-New", b"old-Pass", b"j0in-pw"):
            assert password not in raw
    assert b"A Par-Bur" in stored[-1]


def test_a_mail_nested_too_deep_is_answered(game: Judge) -> None:
    inner = "Content-Type: text/plain\r\n\r\nSIGNON France g1 pw-France\r\nA Par-Bur\r\n"
    for i in range(300):
        inner = f'Content-Type: multipart/mixed; boundary="b{i}"\r\n\r\n--b{i}\r\n{inner}\r\n--b{i}--\r\n'
    raw = (f"From: fr@x.example\r\nTo: {GM}\r\nSubject: deep\r\nMessage-ID: <deep@x.example>\r\n"
           f"MIME-Version: 1.0\r\n{inner}").encode()
    out = game.send(raw)
    assert (out.outcome, out.replies) == ("processed", 1)  # not filed as automatic: told how to play
