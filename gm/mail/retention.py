"""Stored mail cut to its headers once it is old: the body of a mail may carry a password, or words
meant for one player, and nothing needs it once the mail has long been processed. Confirmations
(gm.mail.commands.confirmations) long expired go too: one may hold the hash of a password nobody confirmed.

A mail cut to its headers is stored as ingest stores a mail too large to take: the header block
and the blank line after it. Such a row ends at its first blank line, which is how a purge knows
it has nothing left to cut (no column of its own marks it).
"""
from __future__ import annotations

import asyncio
import logging
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Integer, LargeBinary, and_, case, delete, func, literal, or_, select, update
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.sql.functions import FunctionElement

from gm.store.models import Confirmation, InboundMail, utcnow

log = logging.getLogger(__name__)

BATCH = 500  # rows a statement (and a transaction) at most: a big backlog holds no long lock
HEADERS_MAX = 64_000  # a mail with no blank line is cut here, as ingest cuts one
PURGE_SECONDS = 3600.0


class _position(FunctionElement[int]):
    """position(needle, haystack): where the bytes `needle` first start in `haystack`, from 1; 0
    when they do not."""

    type = Integer()
    inherit_cache = True


@compiles(_position)
def _instr(element: _position, compiler: Any, **kw: Any) -> str:  # SQLite
    haystack, needle = (compiler.process(c, **kw) for c in element.clauses)
    return f"instr({haystack}, {needle})"


@compiles(_position, "postgresql")
def _position_in(element: _position, compiler: Any, **kw: Any) -> str:
    haystack, needle = (compiler.process(c, **kw) for c in element.clauses)
    return f"position({needle} in {haystack})"


def _purge_statement(older_than: datetime) -> Any:
    table = InboundMail.__table__
    raw = table.c.raw
    crlf = _position(raw, literal(b"\r\n\r\n", LargeBinary))
    lf = _position(raw, literal(b"\n\n", LargeBinary))
    # Where the header block ends, its blank line included: the first blank line of either kind.
    end = case(
        (and_(crlf > 0, or_(lf == 0, crlf < lf)), crlf + 3),
        (lf > 0, lf + 1),
        else_=HEADERS_MAX,
    )
    batch = (
        select(table.c.id)
        .where(table.c.received_at < older_than, func.length(raw) > end)
        .order_by(table.c.id)
        .limit(BATCH)
        .scalar_subquery()
    )
    return update(table).where(table.c.id.in_(batch)).values(raw=func.substr(raw, 1, end))


def purge_raw_mail(session: Session, older_than: datetime) -> int:
    """Cut every mail received before `older_than` to its headers, committing after each batch;
    how many were cut. A mail already cut is left as it is."""
    statement = _purge_statement(older_than)
    total = 0
    while True:
        count = session.execute(statement).rowcount  # type: ignore[attr-defined]
        session.commit()
        total += count
        if count < BATCH:
            return total


def purge_confirmations(session: Session, older_than: datetime) -> int:
    """Delete the confirmations that expired before `older_than` (used or not); how many."""
    statement = delete(Confirmation).where(Confirmation.expires_at < older_than)
    count: int = session.execute(statement).rowcount  # type: ignore[attr-defined]
    session.commit()
    return count


def _purge_now(session_factory: sessionmaker[Session], days: int) -> int:
    with session_factory() as session:
        older_than = utcnow() - timedelta(days=days)
        purge_confirmations(session, older_than)
        return purge_raw_mail(session, older_than)


async def purge_raw_mail_forever(
    session_factory: sessionmaker[Session], days: int, every: float = PURGE_SECONDS
) -> None:
    """For `gm serve`: cut mail older than `days` to its headers now and every `every` seconds. A
    failure (the database away, say) is logged and tried again next time: it never stops the
    service."""
    while True:
        try:
            purged = await asyncio.to_thread(_purge_now, session_factory, days)
        except Exception:
            log.exception("cutting stored mail older than %d days to its headers failed: tried again in %.0f s",
                          days, every)
        else:
            if purged:
                log.info("%d stored mail older than %d days cut to their headers", purged, days)
        await asyncio.sleep(every)
