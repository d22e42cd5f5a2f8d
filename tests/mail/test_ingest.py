"""Ingest: every player command, bad input, exactly-once recording and the acknowledgement, on a
real SQLite file and a real PostgreSQL server (the db fixtures in tests/conftest.py)."""
from __future__ import annotations

import itertools
from email.message import EmailMessage
from pathlib import Path

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import create_game
from gm.mail import ingest as ingest_module
from gm.mail.ingest import Fetched, IngestOutcome, ingest, ingest_batch
from gm.mail.message import ACK_MARKER
from gm.store.db import make_engine, make_session_factory, transaction, upgrade
from gm.store.models import (
    AuthFailure,
    Game,
    InboundMail,
    OrderRecord,
    OutboundMail,
    Player,
    SecretAllocation,
)
from gm.store.passwords import PasswordVerifier

GM = "gm@judge.example"
STANDARD = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
_ids = itertools.count(1)


def mail(sender: str, body: str, *, subject: str = "orders", html: bool = False, **headers: str) -> bytes:
    m = EmailMessage()
    m["From"] = sender
    m["To"] = GM
    m["Subject"] = subject
    m["Message-ID"] = f"<m{next(_ids)}@players.example>"
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
        """Send a mail and return the acknowledgement it got."""
        out = self.send(mail(sender, body, **kw))
        assert out.replies == 1, out
        return self.last_reply(sender)

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
        judge.say(f"{p.lower()}@players.example", f"JOIN g1 {p} pw-{p}")
    return judge


def line_of(ack: str, text: str) -> str:
    """The acknowledgement's verdict on one line of the mail: 'accepted = ...' or 'REJECTED : ...'."""
    lines = ack.splitlines()
    for i, line in enumerate(lines):
        if line.strip().endswith(text) and line.strip().split()[0] in ("accepted", "REJECTED"):
            return f"{line.split()[0]} {lines[i + 1].strip()}"
    raise AssertionError(f"{text!r} not in {ack}")


def test_join_fills_the_game_and_starts_it(game: Judge) -> None:
    ack = game.last_reply("turkey@players.example")
    assert "every power is taken: the game starts with Spring 1901, Movement" in ack
    with transaction(game.sf) as s:
        assert s.scalar(select(Game.status)) == "active"
        hashes = s.scalars(select(Player.password_hash)).all()
    assert all(h.startswith("$argon2id$") and "pw-" not in h for h in hashes)


def test_signon_orders_and_the_acknowledgement(game: Judge) -> None:
    ack = game.say("fr@players.example", "SIGNON France g1 pw-France\nA Par-Bur\nA Paris - Munich\nF Bre - Mao")
    assert ack.startswith(ACK_MARKER)
    assert "pw-France" not in ack  # the password is never echoed
    assert line_of(ack, "SIGNON France g1 ********") == "accepted = signed on as France in g1"
    assert line_of(ack, "A Par-Bur") == "accepted = A PAR - BUR"
    assert line_of(ack, "A Paris - Munich") == "REJECTED : no army can reach Munich from Paris"
    assert line_of(ack, "F Bre - Mao") == "accepted = F BRE - MAO"
    assert "Orders on file:\n  A PAR - BUR\n  F BRE - MAO" in ack
    assert "Units still without orders: A MAR" in ack
    assert game.current_orders("France") == ["A PAR - BUR", "F BRE - MAO"]


def test_a_later_order_for_a_unit_replaces_the_earlier_one(game: Judge) -> None:
    game.say("fr@x.example", "SIGNON France g1 pw-France\nA Par-Bur")
    ack = game.say("fr@x.example", "SIGNON France g1 pw-France\nA Par - Pic\nA Mar H")
    assert game.current_orders("France") == ["A PAR - PIC", "A MAR H"]
    assert "Orders on file:\n  A PAR - PIC\n  A MAR H" in ack
    assert game.count(OrderRecord) == 3  # nothing is ever deleted


def test_njudge_signon_form(game: Judge) -> None:
    ack = game.say("e@x.example", "SIGNON Eg1 pw-England\nF Lon - Nth")
    assert line_of(ack, "F Lon - Nth") == "accepted = F LON - NTH"


def test_wrong_password_changes_nothing_and_is_rate_limited(game: Judge) -> None:
    for _ in range(5):
        ack = game.say("mallory@evil.example", "SIGNON France g1 guess\nA Par - Bur")
        assert line_of(ack, "SIGNON France g1 ********") == "REJECTED : wrong password for France in g1"
        assert line_of(ack, "A Par - Bur").startswith("REJECTED : not a command, and not an order: sign on first")
    ack = game.say("mallory@evil.example", "SIGNON France g1 pw-France\nA Par - Bur")
    assert "too many wrong passwords" in ack
    assert game.current_orders("France") == []
    assert game.count(AuthFailure) == 5
    # The right password from another address still works: the From line proves nothing either way.
    ack = game.say("someone@else.example", "SIGNON France g1 pw-France\nA Par - Bur")
    assert game.current_orders("France") == ["A PAR - BUR"]


def test_clear_withdraws_the_orders(game: Judge) -> None:
    game.say("fr@x.example", "SIGNON France g1 pw-France\nA Par-Bur\nA Mar - Spa")
    ack = game.say("fr@x.example", "SIGNON France g1 pw-France\nCLEAR")
    assert "Orders on file:\n  none" in ack
    assert game.current_orders("France") == []


def test_set_password_and_address(game: Judge) -> None:
    ack = game.say("fr@x.example", "SIGNON France g1 pw-France\nSET PASSWORD newpw\nSET ADDRESS France <new@x.example>")
    assert "newpw" not in ack
    assert line_of(ack, "SET PASSWORD ********") == "accepted = password changed"
    assert line_of(ack, "SET ADDRESS France <new@x.example>") == "accepted = mail for France now goes to new@x.example"
    assert "wrong password" in game.say("fr@x.example", "SIGNON France g1 pw-France")
    assert "signed on as France" in game.say("fr@x.example", "SIGNON France g1 newpw")


def test_list_help_summary_history_signoff(game: Judge) -> None:
    ack = game.say("anyone@x.example", "LIST\nLIST g1\nHELP")
    assert "g1: Diplomacy (standard map), active" in ack
    assert "phase: Spring 1901, Movement" in ack
    assert "SIGNON <power> <game> <password>" in ack and "SET ADDRESS <mail address>" in ack
    ack = game.say("fr@x.example", "SIGNON France g1 pw-France\nSUMMARY\nHISTORY\nSIGNOFF\nA Par - Bur")
    assert "France: A MAR, A PAR, F BRE; 3 centres (BRE, MAR, PAR)" in ack
    assert "no phase has been played yet" in ack
    assert "A Par - Bur" not in ack  # after SIGNOFF nothing is read
    assert game.current_orders("France") == []


def test_join_errors(game: Judge) -> None:
    with transaction(game.sf) as s:
        create_game(s, "g2", "classical")
    ack = game.say("x@x.example", "JOIN g1 France pw\nJOIN g2 Atlantis pw\nJOIN g3 Rome pw\nJOIN g2 Rome pw")
    assert line_of(ack, "JOIN g1 France ********") == "REJECTED : g1 is not taking new players"
    assert line_of(ack, "JOIN g2 Atlantis ********").startswith("REJECTED : g2 (Classical")
    assert line_of(ack, "JOIN g3 Rome ********") == "REJECTED : there is no game called 'g3'"
    assert line_of(ack, "JOIN g2 Rome ********") == "accepted = you play Rome in g2 (1 of 5 powers taken)"


def test_orders_without_signon_and_nonsense(game: Judge) -> None:
    ack = game.say("x@x.example", "A Par - Bur\nHello judge!")
    assert line_of(ack, "A Par - Bur").startswith("REJECTED : not a command, and not an order")
    ack = game.say("fr@x.example", "SIGNON France g1 pw-France\nHello judge!\nA Par - Xyzzy\nBuild A Par")
    assert line_of(ack, "A Par - Xyzzy") == "REJECTED : unknown province 'Xyzzy'"
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
    assert game.count(InboundMail) == 8  # 7 joins and this one
    with transaction(game.sf) as s:
        stored = s.scalar(select(InboundMail.raw).where(InboundMail.imap_uid == 42))
    assert stored == raw  # kept whole, for disputes and replay


def test_reply_goes_to_the_sender_only_and_never_to_the_judge(game: Judge) -> None:
    out = game.send(mail("fr@x.example", "LIST", Reply_To="<france.replies@x.example>"))
    assert out.replies == 1
    assert "Games" in game.last_reply("france.replies@x.example")
    assert game.send(mail(GM, "LIST")).replies == 0  # a mail from the judge itself is not answered
    with transaction(game.sf) as s:
        reply_id = s.scalars(select(OutboundMail.message_id).order_by(OutboundMail.id.desc())).first()
    assert reply_id is not None and reply_id.endswith("@judge.example>")  # the GM's own domain


@pytest.fixture
def ambition(judge: Judge) -> Judge:
    from gm.variants import load_variant

    with transaction(judge.sf) as s:
        create_game(s, "ae", "ambition")
    for p in load_variant("ambition").great_powers:
        judge.say(f"{p.split()[0].lower()}@ae.example", f"JOIN ae {p} pw-{p.replace(' ', '')}")
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
    return orders, judge.count(InboundMail), judge.count(AuthFailure), [text for _, text in judge.replies()]


def test_a_batch_does_what_its_mails_do_one_by_one(session_factory: sessionmaker[Session], tmp_path: Path) -> None:
    reference = f"sqlite:///{tmp_path / 'one-by-one.sqlite3'}"
    upgrade(reference)
    one_by_one, batched = Judge(make_session_factory(make_engine(reference))), Judge(session_factory)
    for judge in (one_by_one, batched):
        with transaction(judge.sf) as s:
            create_game(s, "g1", "standard")
        for p in STANDARD:
            judge.say(f"{p.lower()}@players.example", f"JOIN g1 {p} pw-{p}")
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
    ack = game.last_reply("en@x.example")
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
