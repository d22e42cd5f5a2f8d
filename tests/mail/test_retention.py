"""Stored mail cut to its headers once older than the retention setting, on SQLite and PostgreSQL."""
from __future__ import annotations

import asyncio
import itertools
import logging
from datetime import timedelta

import pytest
from sqlalchemy import create_engine, insert, select
from sqlalchemy.orm import Session, sessionmaker

from gm.mail.retention import BATCH, HEADERS_MAX, purge_raw_mail, purge_raw_mail_forever
from gm.store.db import make_session_factory
from gm.store.models import InboundMail, utcnow

HEAD_CRLF = b"From: alice@example.org\r\nSubject: orders\r\n\r\n"
HEAD_LF = b"From: alice@example.org\nSubject: orders\n\n"
BODY = b"SIGNON France g1 secret\r\nA Par-Bur\r\n\r\nbye\r\n"

_ids = itertools.count(1)


def add(session_factory: sessionmaker[Session], raw: bytes, days_old: float) -> int:
    with session_factory.begin() as session:
        n = next(_ids)
        mail = InboundMail(message_id=f"<r{n}@example.org>", dedup_key=f"r{n}", sender="alice@example.org",
                           raw=raw, size=len(raw), received_at=utcnow() - timedelta(days=days_old))
        session.add(mail)
        session.flush()
        return mail.id


def raw_of(session_factory: sessionmaker[Session], mail_id: int) -> bytes:
    with session_factory() as session:
        return session.scalar(select(InboundMail.raw).where(InboundMail.id == mail_id))


def purge(session_factory: sessionmaker[Session], days: int = 30) -> int:
    with session_factory() as session:
        return purge_raw_mail(session, utcnow() - timedelta(days=days))


def test_old_mail_keeps_only_its_headers_and_a_second_run_changes_nothing(session_factory):
    no_blank_line = b"From: alice@example.org\r\nX-Long: " + b"x" * (HEADERS_MAX + 100)
    # LF headers, and a CRLF blank line further on: the first blank line ends the headers
    mixed = HEAD_LF + b"A Par-Bur\r\n\r\nmore\r\n"
    rows = {
        "crlf": (HEAD_CRLF + BODY, 31, HEAD_CRLF),
        "lf": (HEAD_LF + b"A Par-Bur\nbye\n", 400, HEAD_LF),
        "mixed": (mixed, 31, HEAD_LF),
        "headers only already": (HEAD_CRLF, 31, HEAD_CRLF),
        "no blank line, short": (b"From: alice@example.org\r\nSubject: x", 31, b"From: alice@example.org\r\nSubject: x"),
        "no blank line, long": (no_blank_line, 31, no_blank_line[:HEADERS_MAX]),
        "new": (HEAD_CRLF + BODY, 29, HEAD_CRLF + BODY),
        "new, LF": (HEAD_LF + b"A Par-Bur\n", 0, HEAD_LF + b"A Par-Bur\n"),
    }
    ids = {name: add(session_factory, raw, days) for name, (raw, days, _) in rows.items()}

    assert purge(session_factory) == 4
    kept = {name: raw_of(session_factory, mail_id) for name, mail_id in ids.items()}
    assert kept == {name: expected for name, (_, _, expected) in rows.items()}

    assert purge(session_factory) == 0
    assert {name: raw_of(session_factory, mail_id) for name, mail_id in ids.items()} == kept
    # other columns are left alone
    with session_factory() as session:
        mail = session.get(InboundMail, ids["crlf"])
        assert (mail.sender, mail.size) == ("alice@example.org", len(HEAD_CRLF + BODY))


def test_a_backlog_is_purged_in_batches(session_factory):
    old = utcnow() - timedelta(days=90)
    count = 2 * BATCH + 7
    with session_factory.begin() as session:
        session.execute(insert(InboundMail), [
            {"message_id": f"<b{i}@example.org>", "dedup_key": f"b{i}", "sender": "alice@example.org",
             "raw": HEAD_CRLF + BODY,
             "size": 100, "received_at": old}
            for i in range(count)
        ])
    assert purge(session_factory) == count
    with session_factory() as session:
        assert set(session.scalars(select(InboundMail.raw))) == {HEAD_CRLF}
    assert purge(session_factory) == 0


async def test_the_service_task_purges_at_start_and_again_later(session_factory, wait_until, caplog):
    caplog.set_level(logging.INFO, logger="gm.mail.retention")

    def logged() -> list[str]:
        return [r.getMessage() for r in caplog.records if r.levelno == logging.INFO]

    first = add(session_factory, HEAD_CRLF + BODY, 31)
    recent = add(session_factory, HEAD_CRLF + BODY, 1)
    task = asyncio.create_task(purge_raw_mail_forever(session_factory, days=30, every=0.05))
    try:
        await wait_until(lambda: len(logged()) == 1)
        assert raw_of(session_factory, first) == HEAD_CRLF
        await asyncio.sleep(0.2)  # runs that cut nothing
        later = add(session_factory, HEAD_LF + b"A Par-Bur\n", 45)
        await wait_until(lambda: len(logged()) == 2)
        assert raw_of(session_factory, later) == HEAD_LF
        assert raw_of(session_factory, recent) == HEAD_CRLF + BODY
        assert not task.done()
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
    # logged only for the runs that cut something
    assert logged() == ["1 stored mail older than 30 days cut to their headers"] * 2


async def test_the_service_task_outlives_database_errors(tmp_path, wait_until, caplog):
    engine = create_engine(f"sqlite:///{tmp_path / 'missing' / 'gm.sqlite3'}")  # no such folder
    task = asyncio.create_task(purge_raw_mail_forever(make_session_factory(engine), days=30, every=0.02))
    try:
        await wait_until(lambda: sum(r.levelno == logging.ERROR for r in caplog.records) >= 2)
        assert not task.done()
    finally:
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        engine.dispose()
    assert "failed: tried again in 0 s" in caplog.records[0].getMessage()


def test_confirmations_long_expired_are_deleted_and_the_others_kept(session_factory):
    from gm.mail.retention import purge_confirmations
    from gm.store.models import Confirmation

    now = utcnow()
    with session_factory() as session:
        session.add_all(Confirmation(kind="join", address=f"a{i}@x.example", code_hash=f"{i:064x}",
                                     requested_by="a@x.example", password_hash="$argon2id$...",
                                     created_at=now - timedelta(days=days + 1), expires_at=now - timedelta(days=days))
                        for i, days in enumerate([40, 31, 29, -1]))
        session.commit()
        assert purge_confirmations(session, now - timedelta(days=30)) == 2
        kept = session.scalars(select(Confirmation.address).order_by(Confirmation.address)).all()
    assert kept == ["a2@x.example", "a3@x.example"]
