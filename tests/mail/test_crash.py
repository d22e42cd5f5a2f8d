"""Exactly once across crashes: `gm serve` is killed (SIGKILL) at random moments while a burst of
order mails arrives, and restarted. In the end every mail is recorded once, its orders are on file
once, and it has one acknowledgement (a resend after a crash carries the same Message-ID)."""
from __future__ import annotations

import asyncio
import email
import os
import random
import signal
import time
from email.message import EmailMessage
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from sqlalchemy import func, select

from gm.games import create_game
from gm.lifecycle.phases import start as start_game
from gm.store.db import make_engine, make_session_factory, transaction
from gm.store.models import InboundMail, OrderRecord, OutboundMail, Player, utcnow
from gm.store.passwords import hash_password
from loopback import stop

if TYPE_CHECKING:  # fixtures' types only (see conftest.py)
    from conftest import Dovecot, ReadMailbox, SmtpFront, StartGmServe

DOMAIN = "example.org"  # the test Dovecot's domain and password (tests/mail/conftest.py)
GM = f"gm@{DOMAIN}"
PASSWORD = "secret"
MAILS = 30
PLAYERS = {"alice": "France", "bob": "Germany", "carol": "England"}
ORDERS = {
    "France": ["A Par - Bur", "A Par - Pic", "A Par - Gas", "A Par H"],
    "Germany": ["A Mun - Ruh", "A Mun - Bur", "A Mun - Sil", "A Mun H"],
    "England": ["F Lon - Nth", "F Lon - Eng", "F Lon H", "F Lon - Wal"],
}


def _setup_game(url: str) -> None:
    factory = make_session_factory(make_engine(url))
    with transaction(factory) as s:
        game = create_game(s, "crash", "standard")
        powers = dict(PLAYERS.items())
        others = ["Austria", "Italy", "Russia", "Turkey"]
        for power in others:
            powers[f"{power.lower()}-nobody"] = power
        for user, power in powers.items():
            s.add(Player(game_id=game.id, power=power, email=f"{user}@{DOMAIN}", password_hash=hash_password(PASSWORD)))
        s.flush()
        start_game(s, game, utcnow())


def _mail(n: int) -> tuple[EmailMessage, str]:
    user = list(PLAYERS)[n % len(PLAYERS)]
    power = PLAYERS[user]
    msg = EmailMessage()
    msg["From"] = f"{user}@{DOMAIN}"
    msg["To"] = GM
    msg["Subject"] = f"orders {n}"
    msg["Message-ID"] = f"<crash-{os.getpid()}-{n}@{DOMAIN}>"
    msg.set_content(f"SIGNON {power} crash {PASSWORD}\n{ORDERS[power][n % 4]}\n")
    return msg, user


@pytest.mark.long
async def test_killed_at_random_every_mail_counts_once(
    migrated_url: str,
    dovecot: Dovecot,
    smtp_front: SmtpFront,
    read_mailbox: ReadMailbox,
    gm_serve: StartGmServe,
    tmp_path: Path,
) -> None:
    await asyncio.to_thread(_setup_game, migrated_url)
    rng = random.Random(20261122)
    server = gm_serve(migrated_url, dovecot, smtp_front, tmp_path)
    sent: dict[str, str] = {}  # Message-ID -> player
    try:
        for n in range(MAILS):
            msg, user = _mail(n)
            await asyncio.to_thread(smtp_front.send, msg)
            sent[msg["Message-ID"]] = user
            await asyncio.sleep(rng.uniform(0, 0.15))
            if n % 8 == 4:  # a crash now and then, at a random moment of the burst
                await asyncio.sleep(rng.uniform(0, 1.5))
                server.send_signal(signal.SIGKILL)
                server.wait()
                server = gm_serve(migrated_url, dovecot, smtp_front, tmp_path)
        factory = make_session_factory(make_engine(migrated_url))

        def settled() -> bool:
            with transaction(factory) as s:
                inbound = s.scalar(select(func.count()).select_from(InboundMail))
                unsent = s.scalar(select(func.count()).select_from(OutboundMail).where(OutboundMail.sent_at.is_(None)))
            return inbound == MAILS and unsent == 0

        deadline = time.monotonic() + 90
        while not await asyncio.to_thread(settled):
            assert time.monotonic() < deadline, "the judge did not process the burst in time"
            await asyncio.sleep(0.3)
    finally:
        stop(server, timeout=15)

    with transaction(factory) as s:
        inbound = {m.message_id: m.id for m in s.scalars(select(InboundMail))}
        assert set(inbound) == set(sent)  # every mail recorded, once
        per_mail = dict(
            s.execute(select(OrderRecord.inbound_id, func.count()).group_by(OrderRecord.inbound_id)).all()
        )
        assert all(per_mail.get(i) == 1 for i in inbound.values()), per_mail  # its one order, once
        replies = s.scalars(select(OutboundMail)).all()
        assert sorted(r.inbound_id for r in replies) == sorted(inbound.values())  # one reply each
        reply_ids = {r.message_id for r in replies}

    # What reached the players' mailboxes: one acknowledgement per mail. A copy sent again after
    # a crash between SMTP acceptance and the commit has the same Message-ID, so counts once.
    acks: dict[str, set[str]] = {}
    for user in PLAYERS:
        for stored in await read_mailbox(dovecot.account(user)):
            msg = email.message_from_bytes(stored.raw)
            acks.setdefault(msg["In-Reply-To"], set()).add(msg["Message-ID"])
    assert set(acks) == set(sent)
    assert all(len(ids) == 1 for ids in acks.values()), acks
    assert set().union(*acks.values()) == reply_ids


# On PostgreSQL a second server stands by instead: see test_several_servers.py.
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
async def test_a_second_service_on_the_same_database_stops_and_the_first_goes_on(
    migrated_url: str, dovecot: Dovecot, smtp_front: SmtpFront, gm_serve: StartGmServe, tmp_path: Path
) -> None:
    await asyncio.to_thread(_setup_game, migrated_url)
    (tmp_path / "first").mkdir()
    (tmp_path / "second").mkdir()
    first = gm_serve(migrated_url, dovecot, smtp_front, tmp_path / "first")
    try:
        await asyncio.sleep(1.5)  # the first has the database
        second = gm_serve(migrated_url, dovecot, smtp_front, tmp_path / "second")
        assert await asyncio.to_thread(second.wait, 30) == 1
        assert "another gm serve is running" in (tmp_path / "second" / "serve.log").read_text()
        msg, _ = _mail(0)
        await asyncio.to_thread(smtp_front.send, msg)
        factory = make_session_factory(make_engine(migrated_url))

        def answered() -> bool:
            with transaction(factory) as s:
                return bool(s.scalar(select(func.count()).select_from(OutboundMail).where(OutboundMail.sent_at.is_not(None))))

        deadline = time.monotonic() + 20
        while not await asyncio.to_thread(answered):
            assert time.monotonic() < deadline, "the first service stopped working"
            await asyncio.sleep(0.2)
        assert first.poll() is None
    finally:
        first.send_signal(signal.SIGTERM)
        first.wait(timeout=15)
