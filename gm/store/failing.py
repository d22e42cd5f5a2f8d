"""Addresses the judge's mail no longer reaches, as every view of a game reads them: the GM's
overview and LIST, `gm game show`, `gm status`, a player's sign-on. Marked and cleared by
gm.mail.outgoing.undelivered, from the bounces it records."""
from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, func, select, update
from sqlalchemy.orm import Session

from gm.store.models import Bounce, FailingAddress, utcnow


@dataclass(frozen=True)
class Mark:
    """Why an address is failing: since when, and the receiving server's own words (the GM's eyes only)."""

    address: str
    since: datetime
    permanent: bool
    status: str | None
    words: str

    def said(self) -> str:
        """'since 2026-11-29 08:41 UTC: 550 5.1.1 <x@y>: user unknown', for a GM."""
        kind = "" if self.permanent else "again and again, "
        words = f": {self.status + ' ' if self.status and self.status not in self.words else ''}{self.words}" \
            if self.words or self.status else ""
        return f"failing {kind}since {self.since:%Y-%m-%d %H:%M} UTC{words}"


def marks(session: Session, addresses: Iterable[str]) -> dict[str, Mark]:
    """The marks of those of `addresses` that are failing, by address."""
    wanted = sorted({a.lower() for a in addresses if a})
    if not wanted:
        return {}
    rows = session.execute(
        select(FailingAddress.address, FailingAddress.since, Bounce.permanent, Bounce.status, Bounce.words)
        .join(Bounce, Bounce.id == FailingAddress.bounce_id).where(FailingAddress.address.in_(wanted))).all()
    return {address: Mark(address, since, permanent, status, words)
            for address, since, permanent, status, words in rows}


def count(session: Session) -> int:
    """How many addresses are failing now (gm status)."""
    return session.scalar(select(func.count()).select_from(FailingAddress)) or 0


def clear(session: Session, address: str) -> bool:
    """The address works again (mail from it arrived, or the GM says so): its mark and the bounces
    that counted toward one go. Whether it was marked."""
    address = address.lower()
    now = utcnow()
    session.execute(update(Bounce).where(Bounce.address == address, Bounce.cleared_at.is_(None))
                    .values(cleared_at=now).execution_options(synchronize_session=False))
    return bool(session.execute(delete(FailingAddress).where(FailingAddress.address == address)
                                .execution_options(synchronize_session=False)).rowcount)
