"""Whether an order came too late, by the judge's clock rather than the sender's: a Date in the
second a phase opened, a slow clock answering the new phase's results mail, the phase a subject or
quoted lines name; and a mail answering the phase before's mail, written before the adjudication,
still refused. Through the real intake, on SQLite and PostgreSQL."""
from __future__ import annotations

import itertools
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from functools import cache

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import create_game
from gm.lifecycle import phases
from gm.mail.ingest import ingest
from gm.scheduler import check_game
from gm.store.db import transaction
from gm.store.models import Game, GamePhase, OrderRecord, OutboundMail, Player, utcnow
from gm.store.passwords import PasswordVerifier, hash_password
from acks import verdict

GM = "gm@judge.example"
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
_ids = itertools.count(1)


@cache
def _hash() -> str:
    return hash_password("pw")


class Table:
    """A standard game, every power taken, its Spring orders in; `adjudicate` ends Spring as the
    scheduler does at a deadline (results mail queued), `send` mails orders in."""

    def __init__(self, sf: sessionmaker[Session]) -> None:
        self.sf = sf
        self.verifier = PasswordVerifier()
        with transaction(sf) as s:
            game = create_game(s, "g1", "standard")
            s.add_all(Player(game_id=game.id, power=p, email=f"{p.lower()}@players.example", password_hash=_hash())
                      for p in POWERS)
            s.flush()
            phases.start(s, game, utcnow())
            self.game_id = game.id

    def send(self, body: str, *, date: datetime, subject: str = "orders", in_reply_to: str | None = None,
             references: list[str] | None = None) -> tuple[str, str]:
        """France mails `body` (after its SIGNON): (the mail's Message-ID, the acknowledgement)."""
        m = EmailMessage()
        m["From"] = "france@players.example"
        m["To"] = GM
        m["Subject"] = subject
        m["Message-ID"] = message_id = f"<late{next(_ids)}@players.example>"
        m["Date"] = format_datetime(date)
        if in_reply_to:
            m["In-Reply-To"] = in_reply_to
        if references:
            m["References"] = " ".join(references)
        m.set_content(f"SIGNON France g1 pw\n{body}\n")
        out = ingest(self.sf, m.as_bytes(), gm_address=GM, verifier=self.verifier)
        with transaction(self.sf) as s:
            ack = s.scalars(select(OutboundMail.body_text).where(OutboundMail.inbound_id == out.inbound_id)).one()
        return message_id, ack

    def ack_id(self, mail_id: str) -> str:
        """The Message-ID of the judge's acknowledgement of the mail `mail_id`."""
        with transaction(self.sf) as s:
            return s.scalars(select(OutboundMail.message_id).where(OutboundMail.in_reply_to == mail_id)).one()

    def adjudicate(self, late_by: timedelta) -> GamePhase:
        """End Spring `late_by` after its deadline, as the scheduler does; the phase that opened."""
        with transaction(self.sf) as s:
            game = s.get(Game, self.game_id)
            assert game is not None and game.deadline_at is not None
            deadline = game.deadline_at
        assert check_game(self.sf, self.game_id, deadline + late_by, gm_address=GM)
        with transaction(self.sf) as s:
            fall = s.scalars(select(GamePhase).where(GamePhase.game_id == self.game_id, GamePhase.seq == 2)).one()
            s.expunge(fall)
        assert fall.label == "Fall 1901, Movement"
        return fall

    def results(self) -> tuple[str, str, str]:
        """France's results mail: (Message-ID, the game's thread, subject)."""
        with transaction(self.sf) as s:
            row = s.scalars(select(OutboundMail).where(OutboundMail.kind == "results",
                                                       OutboundMail.to_addr == "france@players.example")).one()
            return row.message_id, str(row.references), row.subject

    def fall_orders(self) -> list[str]:
        with transaction(self.sf) as s:
            return list(s.scalars(select(OrderRecord.canonical).join(GamePhase, GamePhase.id == OrderRecord.phase_id)
                                  .where(GamePhase.seq == 2, OrderRecord.current.is_(True))
                                  .order_by(OrderRecord.id)))


def test_a_mail_dated_in_the_second_the_phase_opened_is_taken(session_factory: sessionmaker[Session]) -> None:
    t = Table(session_factory)
    spring_mail, _ = t.send("A Par - Bur", date=utcnow())
    fall = t.adjudicate(timedelta(seconds=3, microseconds=700_000))
    second = fall.opened_at.replace(microsecond=0)
    assert second < fall.opened_at  # the Date says 0.7 s before the phase opened: its clock has no finer
    _, ack = t.send("A Bur - Mun", date=second)
    assert verdict(ack, "A Bur - Mun") == "accepted = A BUR - MUN"
    # Even in answer to the phase before's acknowledgement: a Date has whole seconds.
    _, ack = t.send("A Mar H", date=second, in_reply_to=t.ack_id(spring_mail))
    assert verdict(ack, "A Mar H") == "accepted = A MAR H"
    assert t.fall_orders() == ["A BUR - MUN", "A MAR H"]


def test_a_slow_clock_answering_the_new_phases_mail_is_taken(session_factory: sessionmaker[Session]) -> None:
    t = Table(session_factory)
    t.send("A Par - Bur", date=utcnow())
    fall = t.adjudicate(timedelta(seconds=1))
    results, thread, subject = t.results()
    assert subject == "[g1] Spring 1901 results"
    slow = fall.opened_at - timedelta(minutes=10)  # the phone's clock runs ten minutes slow
    _, ack = t.send("A Bur - Mun", date=slow, subject=f"Re: {subject}", in_reply_to=results,
                    references=[thread, results])
    assert verdict(ack, "A Bur - Mun") == "accepted = A BUR - MUN"
    # A mail program that keeps no In-Reply-To: the subject names the results it answers.
    _, ack = t.send("A Mar H", date=slow, subject=f"Re: {subject}")
    assert verdict(ack, "A Mar H") == "accepted = A MAR H"
    # Another subject, but the results mail quoted: its 'Next:' line names the phase under way.
    with transaction(session_factory) as s:
        text = s.scalars(select(OutboundMail.body_text).where(OutboundMail.message_id == results)).one()
    quoted = "\n".join("> " + line for line in text.splitlines())
    assert "> Next: Fall 1901, Movement, deadline" in quoted
    _, ack = t.send(f"F Bre - Mao\n\nOn Friday the judge wrote:\n{quoted}", date=slow, subject="my moves")
    assert verdict(ack, "F Bre - Mao") == "accepted = F BRE - MAO"
    assert t.fall_orders() == ["A BUR - MUN", "A MAR H", "F BRE - MAO"]


def test_a_mail_answering_the_phase_befores_mail_written_before_the_adjudication_is_too_late(
        session_factory: sessionmaker[Session]) -> None:
    t = Table(session_factory)
    spring_mail, _ = t.send("A Par - Bur", date=utcnow())
    fall = t.adjudicate(timedelta(seconds=1))
    with transaction(session_factory) as s:
        spring = s.scalars(select(GamePhase).where(GamePhase.game_id == t.game_id, GamePhase.seq == 1)).one()
        adjudicated = spring.adjudicated_at
    assert adjudicated is not None
    ack_of_spring = t.ack_id(spring_mail)
    before = fall.opened_at - timedelta(seconds=30)
    _, ack = t.send("A Par - Pic", date=before, subject="Re: orders", in_reply_to=ack_of_spring,
                    references=[spring_mail, ack_of_spring])
    assert verdict(ack, "A Par - Pic").startswith(
        "REJECTED : too late: Spring 1901, Movement was adjudicated at ")
    assert verdict(ack, "A Par - Pic").endswith("; this order was not applied to Fall 1901, Movement")
    # Naming the phase before in its subject tells the same.
    _, ack = t.send("A Mar - Spa", date=before, subject="Re: [g1] Reminder: France, orders due for Spring 1901")
    assert verdict(ack, "A Mar - Spa").startswith("REJECTED : too late")
    # A mail that answers nothing gets a clock's allowance (CLOCK_SKEW), and no more.
    _, ack = t.send("F Bre H", date=before, subject="moves")
    assert verdict(ack, "F Bre H") == "accepted = F BRE H"
    _, ack = t.send("A Mar H", date=fall.opened_at - timedelta(minutes=5), subject="moves")
    assert verdict(ack, "A Mar H").startswith("REJECTED : too late")
    # The same answer to the phase before, written after the adjudication: for this phase.
    _, ack = t.send("A Bur - Pic", date=fall.opened_at + timedelta(seconds=2), in_reply_to=ack_of_spring)
    assert verdict(ack, "A Bur - Pic") == "accepted = A BUR - PIC"
    assert t.fall_orders() == ["F BRE H", "A BUR - PIC"]
