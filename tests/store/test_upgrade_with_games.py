"""Upgrades with games in the database: a database made at the first revision, holding games as
that revision stored them (written through its tables as reflected then, not today's models),
is migrated to the newest revision, whatever that is, and today's code plays on: a player signs
on with the password set before, orders are taken, the deadline is adjudicated and the results
queued and sent, the mail queued before goes out, a forming game starts. On SQLite and PostgreSQL."""
from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from email.message import EmailMessage
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from alembic.script import ScriptDirectory
from argon2 import PasswordHasher
from sqlalchemy import Connection, MetaData, insert, select
from sqlalchemy.pool import NullPool

from gm.games import current_phase, find_game, masters
from gm.mail.commands.master.start import start_game
from gm.mail.ingest import ingest
from gm.scheduler import run_due
from gm.settings import MailServer
from gm.mail.outgoing.outbox import OutboxSender
from gm.store.db import alembic_config, make_engine, make_session_factory, state_to_json, transaction, upgrade
from gm.store.models import InboundMail, OrderRecord, OutboundMail, Player, utcnow
from gm.store.passwords import check_password
from gm.variants import load_variant
from loopback import free_port

GM = "gm@example.org"
FRANCE, GERMANY, ITALY, BOSS = "france@example.org", "germany@example.org", "italy@example.org", "boss@example.org"


def revisions() -> list[str]:
    return [r.revision for r in reversed(list(ScriptDirectory.from_config(alembic_config()).walk_revisions()))]


class OldTables:
    """The tables as the first revision made them, reflected from the database, and a time as
    that revision's code wrote it (SQLite: naive UTC; PostgreSQL: with its zone)."""

    def __init__(self, connection: Connection) -> None:
        self.connection = connection
        self.meta = MetaData()
        self.meta.reflect(connection)
        self.sqlite = connection.dialect.name == "sqlite"

    def when(self, moment: datetime) -> datetime:
        return moment.replace(tzinfo=None) if self.sqlite else moment

    def add(self, table: str, **values: Any) -> int:
        found = self.connection.execute(insert(self.meta.tables[table]).values(**values))
        return int(found.inserted_primary_key[0])


def store_old_games(url: str, now: datetime) -> dict[str, int]:
    """A running standard game (France and Germany played, France's Spring orders on file from a
    mail, its deadline passed, mail sent and mail still to send, a GM named in its options, a
    wrong password) and a forming one with a player waiting; the ids of what the test looks at."""
    hasher = PasswordHasher()  # hashes as then: Argon2id alone, no quick check beside
    engine = make_engine(url, poolclass=NullPool)
    ids: dict[str, int] = {}
    try:
        with engine.begin() as c:
            old = OldTables(c)
            assert "masters" not in old.meta.tables and "dedup_key" not in old.meta.tables["inbound_mail"].c
            variant = load_variant("standard")
            started = now - timedelta(days=3)
            running = old.add("games", name="old", variant="standard", status="active", created_at=old.when(started),
                              deadline_at=old.when(now - timedelta(hours=1)), options={"masters": [BOSS]})
            ids["game"] = running
            france = old.add("players", game_id=running, power="France", email=FRANCE,
                             password_hash=hasher.hash("pw-france"), created_at=old.when(started))
            ids["germany"] = old.add("players", game_id=running, power="Germany", email=GERMANY,
                                     password_hash=hasher.hash("pw-germany"), created_at=old.when(started))
            phase = old.add("phases", game_id=running, seq=1, label="Spring 1901, Movement",
                            state_json=state_to_json(variant.initial_state()), opened_at=old.when(started))
            raw = (f"From: {FRANCE}\r\nTo: {GM}\r\nSubject: orders\r\nMessage-ID: <old-1@example.org>\r\n\r\n"
                   "SIGNON France old\r\nA Par - Bur\r\nF Bre - Mid-Atlantic Ocean\r\n").encode()
            mail = old.add("inbound_mail", message_id="<old-1@example.org>", imap_uidvalidity=7, imap_uid=1,
                           sender=FRANCE, raw=raw, size=len(raw), received_at=old.when(started),
                           processed_at=old.when(started), outcome="processed")
            ids["inbound"] = mail
            for text, canonical, unit in (("A Par - Bur", "A PAR - BUR", "PAR"),
                                          ("F Bre - Mid-Atlantic Ocean", "F BRE - MAO", "BRE")):
                old.add("orders", game_id=running, phase_id=phase, player_id=france, power="France", text=text,
                        canonical=canonical, unit=unit, inbound_id=mail, received_at=old.when(started),
                        current=True)
            old.add("outbox", message_id="<ack-1@example.org>", to_addr=FRANCE, subject="Re: orders",
                    body_text="accepted", in_reply_to="<old-1@example.org>", inbound_id=mail, kind="ack",
                    created_at=old.when(started), next_attempt_at=old.when(started), sent_at=old.when(started),
                    attempts=1)
            ids["unsent"] = old.add("outbox", message_id="<notice-1@example.org>", to_addr=GERMANY,
                                    subject="old news", body_text="queued before the upgrade", kind="notice",
                                    created_at=old.when(started), next_attempt_at=old.when(started))
            old.add("audit_log", at=old.when(started), game_id=running, actor="system", action="start game",
                    detail={"phase": "Spring 1901, Movement"})
            old.add("auth_failures", sender="stranger@example.net", at=old.when(started))
            forming = old.add("games", name="waiting", variant="standard", status="forming",
                              created_at=old.when(started))
            ids["forming"] = forming
            old.add("players", game_id=forming, power="Italy", email=ITALY, password_hash=hasher.hash("pw-italy"),
                    created_at=old.when(started))
    finally:
        engine.dispose()
    return ids


def orders_mail(sender: str, lines: list[str]) -> bytes:
    power = {FRANCE: "France", GERMANY: "Germany"}[sender]
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, GM, "orders"
    msg["Message-ID"] = f"<{power}-after-upgrade@example.org>"
    msg.set_content("\n".join([f"SIGNON {power} old pw-{power.lower()}", *lines]))
    return msg.as_bytes()


def phase_now(factory: Any) -> str:
    with transaction(factory) as s:
        game = find_game(s, "old")
        assert game is not None
        current = current_phase(s, game)
        return current.row.label if current else "-"


class Sink:
    """An SMTP server that keeps what it is sent (aiosmtpd handler)."""

    def __init__(self) -> None:
        self.mail: list[tuple[str, list[str], bytes]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        self.mail.append((envelope.mail_from, list(envelope.rcpt_tos), envelope.original_content or b""))
        return "250 OK"


async def send_outbox(url: str) -> list[tuple[str, list[str], bytes]]:
    """Runs today's outbox sender on the database until nothing is left to send; what it sent."""
    sink, port = Sink(), free_port()
    controller = Controller(sink, hostname="127.0.0.1", port=port)
    controller.start()
    factory = make_session_factory(make_engine(url, poolclass=NullPool))
    sender = OutboxSender(MailServer("127.0.0.1", port, "none", None, None), factory, gm_address=GM,
                          poll_seconds=0.1)
    task = asyncio.create_task(sender.run())
    try:
        async with asyncio.timeout(60):
            while True:
                with transaction(factory) as s:
                    if s.scalar(select(OutboundMail.id).where(OutboundMail.sent_at.is_(None)).limit(1)) is None:
                        break
                await asyncio.sleep(0.1)
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        controller.stop()
    return sink.mail


@pytest.mark.long
def test_games_stored_at_the_first_revision_play_on_after_an_upgrade_to_the_newest(db_url: str) -> None:
    first, *_, newest = revisions()
    upgrade(db_url, first)
    now = datetime.now(UTC)
    ids = store_old_games(db_url, now)

    before, after = upgrade(db_url)
    assert (before, after) == (first, newest)

    factory = make_session_factory(make_engine(db_url, poolclass=NullPool))
    with transaction(factory) as s:
        game = find_game(s, "old")
        assert game is not None and game.status == "active"
        assert masters(s, game) == [BOSS]  # the GM named in the options became a GM
        current = current_phase(s, game)
        assert current is not None and current.row.label == "Spring 1901, Movement"
        assert [o.canonical for o in s.scalars(select(OrderRecord).where(OrderRecord.power == "France"))] == \
            ["A PAR - BUR", "F BRE - MAO"]
        assert s.get(InboundMail, ids["inbound"]).dedup_key  # type: ignore[union-attr]

    # Its deadline, passed before the upgrade with nobody writing since, is adjudicated: France's
    # orders from before, Germany's units left to hold.
    looked, queued = run_due(factory, gm_address=GM, now=utcnow())
    assert looked == 1 and queued > 0
    assert phase_now(factory) == "Fall 1901, Movement"

    # Both sign on with the passwords set before the upgrade; their orders are taken and end the phase.
    for who, lines in ((FRANCE, ["A Bur H", "A Mar H", "F Mid-Atlantic Ocean - Portugal"]),
                       (GERMANY, ["A Mun - Ruh", "A Ber - Kie", "F Kie - Hol"])):
        outcome = ingest(factory, orders_mail(who, lines), gm_address=GM)
        assert outcome.outcome == "processed"
        with transaction(factory) as s:
            acks = s.scalars(select(OutboundMail.body_text).where(OutboundMail.inbound_id == outcome.inbound_id)).all()
            assert any(lines[-1].split()[-1].upper()[:3] in text and "REJECTED" not in text for text in acks), acks
    with transaction(factory) as s:
        germany = s.get(Player, ids["germany"])
        assert germany is not None and check_password(germany.password_hash, "pw-germany")
    looked, queued = run_due(factory, gm_address=GM, now=utcnow())
    assert looked == 1 and queued > 0
    assert phase_now(factory) == "Winter 1901, Adjustment"
    with transaction(factory) as s:
        game = find_game(s, "old")
        assert game is not None
        current = current_phase(s, game)
        assert current is not None
        assert {p: u.power for p, u in current.state.units.items() if p in ("BUR", "POR", "RUH", "HOL", "KIE")} == \
            {"BUR": "France", "POR": "France", "RUH": "Germany", "HOL": "Germany", "KIE": "Germany"}
        results = s.scalars(select(OutboundMail.to_addr).where(OutboundMail.kind == "results")).all()
        assert sorted(results).count(BOSS) == 2 and {FRANCE, GERMANY} <= set(results)

        forming = find_game(s, "waiting")
        assert forming is not None
        start_game(s, forming, gm_address=GM, now=utcnow())  # the player who joined before plays on
        started = current_phase(s, forming)
        assert started is not None and started.row.label == "Spring 1901, Movement"

    sent = asyncio.run(send_outbox(db_url))
    to_germany = [raw for _, to, raw in sent if to == [GERMANY]]
    assert any(b"queued before the upgrade" in raw for raw in to_germany)  # the old unsent mail went out
    assert any(b"Spring 1901" in raw and b"Subject:" in raw for _, to, raw in sent if to == [BOSS])
    assert any(to == [ITALY] for _, to, _raw in sent)  # the start mail of the forming game
