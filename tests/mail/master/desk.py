"""What the tests of the GM's commands share: a game with players and a GM, mail to the judge as
any of them, and what the judge mailed back (see the tests beside this file)."""
from __future__ import annotations

import itertools
from collections.abc import Callable
from datetime import datetime
from email.message import EmailMessage
from email.utils import format_datetime
from functools import cache
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import add_master, create_game, current_phase, find_game
from gm.lifecycle import phases
from gm.mail.commands.confirmations import code_in_subject
from gm.mail.ingest import IngestOutcome, ingest
from gm.store.db import transaction
from gm.store.models import AuditEntry, Game, OutboundMail, Player, utcnow
from gm.store.passwords import PasswordVerifier, hash_password

JUDGE = "gm@judge.example"
MASTER = "master@gms.example"
STANDARD = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
_ids = itertools.count(1)


@cache
def password_hash(password: str) -> str:
    return hash_password(password)  # Argon2id is slow on purpose: one hash per password per run


def address(power: str) -> str:
    return f"{power.lower()}@players.example"


def mail(sender: str, body: str, *, date: datetime | None = None, subject: str = "orders") -> bytes:
    m = EmailMessage()
    m["From"] = sender
    m["To"] = JUDGE
    m["Subject"] = subject
    m["Message-ID"] = f"<desk{next(_ids)}@senders.example>"
    if date is not None:
        m["Date"] = format_datetime(date)
    m.set_content(body)
    return m.as_bytes()


def confirmation_code(sf: sessionmaker[Session], to: str) -> str:
    """The code of the last confirmation the judge mailed to `to`, read from its subject as a
    reply carries it."""
    with transaction(sf) as s:
        subject = s.scalar(select(OutboundMail.subject).where(OutboundMail.to_addr == to, OutboundMail.kind == "confirm")
                           .order_by(OutboundMail.id.desc()).limit(1))
    code = code_in_subject(subject or "")
    assert code is not None, f"no confirmation code was mailed to {to}"
    return code


def join(sf: sessionmaker[Session], send: Callable[[str, str], IngestOutcome], sender: str, game: str, power: str,
         password: str) -> IngestOutcome:
    """Take a power as a player does: JOIN by mail (`send(sender, body)`), then CONFIRM with the code
    mailed back. The CONFIRM's outcome: it signs on as the power."""
    send(sender, f"JOIN {game} {power} {password}")
    return send(sender, f"CONFIRM {confirmation_code(sf, sender)}")


class Desk:
    """One game on a judge, its players (password 'pw', address <power>@players.example) and its
    GM (MASTER, password 'gm-pw')."""

    def __init__(self, session_factory: sessionmaker[Session], game: str) -> None:
        self.sf = session_factory
        self.game = game
        self.verifier = PasswordVerifier()

    def send(self, sender: str, body: str, **kwargs: Any) -> IngestOutcome:
        return ingest(self.sf, mail(sender, body, **kwargs), gm_address=JUDGE, verifier=self.verifier)

    def join(self, sender: str, power: str, password: str = "pw") -> IngestOutcome:
        """JOIN this game and CONFIRM (see join)."""
        return join(self.sf, self.send, sender, self.game, power, password)

    def master(self, body: str, *, password: str = "gm-pw", sender: str = MASTER) -> str:
        """Mail GM command lines after SIGNON MASTER; the acknowledgement (to MASTER)."""
        out = self.send(sender, f"SIGNON MASTER {self.game} {password}\n{body}")
        return self.ack(out, MASTER)

    def player(self, power: str, body: str) -> str:
        """Mail as `power` after SIGNON; the acknowledgement."""
        out = self.send(address(power), f"SIGNON {power} {self.game} pw\n{body}")
        return self.ack(out, address(power))

    def ack(self, out: IngestOutcome, to: str) -> str:
        with transaction(self.sf) as s:
            rows = s.scalars(select(OutboundMail.body_text).where(
                OutboundMail.inbound_id == out.inbound_id, OutboundMail.to_addr == to)).all()
        assert len(rows) == 1, (out, rows)
        return rows[0]

    def mails(self, *, kind: str | None = None, to: str | None = None, since: int = 0) -> list[OutboundMail]:
        """Mail the judge queued (outbox rows with id > `since`), oldest first."""
        with transaction(self.sf) as s:
            query = select(OutboundMail).where(OutboundMail.id > since).order_by(OutboundMail.id)
            if kind is not None:
                query = query.where(OutboundMail.kind == kind)
            if to is not None:
                query = query.where(OutboundMail.to_addr == to)
            rows = list(s.scalars(query))
            s.expunge_all()
        return rows

    def last_mail_id(self) -> int:
        with transaction(self.sf) as s:
            return s.scalar(select(OutboundMail.id).order_by(OutboundMail.id.desc()).limit(1)) or 0

    def audit(self, action: str | None = None) -> list[AuditEntry]:
        with transaction(self.sf) as s:
            query = select(AuditEntry).join(Game).where(Game.name == self.game).order_by(AuditEntry.id)
            if action is not None:
                query = query.where(AuditEntry.action == action)
            rows = list(s.scalars(query))
            s.expunge_all()
        return rows

    def row(self, s: Session) -> Game:
        game = find_game(s, self.game)
        assert game is not None
        return game

    def phase_label(self) -> str:
        with transaction(self.sf) as s:
            current = current_phase(s, self.row(s))
            return current.row.label if current is not None else ""

    def end_phase(self) -> phases.Progress:
        """The scheduler at the deadline."""
        with transaction(self.sf) as s:
            game = self.row(s)
            assert game.deadline_at is not None
            return phases.check(s, game, game.deadline_at)


def new_game(sf: sessionmaker[Session], name: str = "g1", variant: str = "standard", powers: list[str] = STANDARD,
             *, start: bool = True, masters: tuple[str, ...] = (MASTER,)) -> Desk:
    """A game whose `powers` are taken, with `masters` as its GMs, started now unless `start` is false."""
    with transaction(sf) as s:
        game = create_game(s, name, variant)
        for master in masters:
            add_master(s, game, master, password_hash("gm-pw"))
        s.add_all(Player(game_id=game.id, power=p, email=address(p), password_hash=password_hash("pw"))
                  for p in powers)
        s.flush()
        if start:
            phases.start(s, game, utcnow())
    return Desk(sf, name)
