"""Sending within the provider's limits. A provider lets one mailbox send so many messages an hour
and a day (Google Workspace: 2,000 a day; past it, no sending for up to a day), and one that is
sent to too fast answers 421, 451 or 452, or 4.7.x. So:

* What the mailbox sent (or is sending) is counted in the database: each outbox row keeps when a
  sender last took it (`claimed_at`), whichever process of whichever `gm serve` did. A sender takes
  no more rows than the hour's and the day's limits leave (room()), and on PostgreSQL the claims
  of several senders wait for each other while they count (an advisory lock), so that together
  they keep under the limits too.
* Mail to addresses that proved nothing (notices caused by mail in a stranger's name, which a
  forger can cause at will within gm.mail.budget's limits) may use at most UNPROVEN_SHARE of each
  window: what forged mail can use up never holds back a player's acknowledgement for long.
* The outbox already takes acknowledgements first, then the games' mail (results first), then
  press, then notices (gm.mail.outgoing.outbox._FIRST): under a limit, that is the order they go.
* A server that answers "slow down" (slow_down()) pauses the sender, with back-off, until it
  takes mail again.
* When a game's results cannot all go out within LATE of being queued, its GMs are told once, at
  once, and when the last of them will have gone (tell_late()).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from datetime import datetime, timedelta

import aiosmtplib
from sqlalchemy import ColumnElement, func, select
from sqlalchemy.orm import Session

from gm.games import masters
from gm.store.models import Game, OutboundMail, new_message_id

PACING_LOCK = 0x676D5F7061636500  # 'gm_pace\0': one count-and-claim at a time on PostgreSQL
LATE = timedelta(minutes=10)  # results that will take longer than this to go out: the GM is told
HOUR, DAY = timedelta(hours=1), timedelta(days=1)
LATE_KIND = "late"  # the GM's notice; it goes with the acknowledgements, before what is late
UNPROVEN_SHARE = 4  # mail to unproven addresses may use at most a quarter of each window


@dataclass(frozen=True)
class Limits:
    """Messages the mailbox may send an hour and a day (None: no limit)."""

    per_hour: int | None = None
    per_day: int | None = None

    def windows(self) -> list[tuple[timedelta, int]]:
        return [(w, n) for w, n in ((HOUR, self.per_hour), (DAY, self.per_day)) if n is not None]

    def __bool__(self) -> bool:
        return bool(self.windows())


def room(session: Session, limits: Limits, now: datetime) -> tuple[int | None, datetime | None, int | None]:
    """How many more mails may be taken to send now (None: no limit), and when none may, when the
    next one may; and how many of them may go to unproven addresses (their share: UNPROVEN_SHARE).
    On PostgreSQL holds the pacing lock to the end of the transaction."""
    if not limits:
        return None, None, None
    if session.get_bind().dialect.name == "postgresql":
        session.execute(select(func.pg_advisory_xact_lock(PACING_LOCK)))
    left: int | None = None
    unproven: int | None = None
    free_at: datetime | None = None
    for window, limit in limits.windows():
        used, used_unproven = _used(session, now - window)
        left = limit - used if left is None else min(left, limit - used)
        share = limit // UNPROVEN_SHARE - used_unproven
        unproven = share if unproven is None else min(unproven, share)
        if used >= limit:  # a slot frees when the oldest of the window's last `limit` leaves it
            oldest = session.scalar(select(OutboundMail.claimed_at).where(OutboundMail.claimed_at > now - window)
                                    .order_by(OutboundMail.claimed_at.desc()).offset(limit - 1).limit(1))
            if oldest is not None:
                free_at = max(free_at or now, oldest + window)
    assert left is not None and unproven is not None
    return max(left, 0), (free_at if left <= 0 else None), max(min(unproven, left), 0)


def _used(session: Session, since: datetime) -> tuple[int, int]:
    """Mails taken to send since `since`, and of them those to unproven addresses: one count."""
    used, unproven = session.execute(
        select(func.count(), func.count().filter(OutboundMail.unproven))
        .where(OutboundMail.claimed_at > since)).one()
    return int(used or 0), int(unproven or 0)


def gone_by(session: Session, limits: Limits, now: datetime, mails: int) -> datetime:
    """About when the last of `mails` more will have been sent, at the limits (sending itself
    taken as instant): each window lets `limit` through, less what it has sent already."""
    end = now
    for window, limit in limits.windows():
        left = limit - _used(session, now - window)[0]
        if mails > left:
            end = max(end, now + window * math.ceil((mails - max(left, 0)) / limit))
    return end


def tell_late(session: Session, limits: Limits, now: datetime, order: ColumnElement[int],
              waiting: tuple[ColumnElement[bool], ...], gm_address: str) -> int:
    """For each game whose results wait unsent and would go out more than LATE from now, a notice
    to its GMs (once for those results): when the last of them will have gone, and why. Returns
    the notices queued. `order` and `waiting` are the outbox's: the rows ahead of a game's last
    results mail are those it takes first."""
    queued = 0
    for game_id, created_at, last_id in session.execute(
            select(OutboundMail.game_id, OutboundMail.created_at, func.max(OutboundMail.id))
            .where(*waiting, OutboundMail.kind == "results", OutboundMail.game_id.is_not(None))
            .group_by(OutboundMail.game_id, OutboundMail.created_at)).all():
        told = session.scalar(select(func.count()).select_from(OutboundMail).where(
            OutboundMail.game_id == game_id, OutboundMail.kind == LATE_KIND, OutboundMail.created_at >= created_at))
        if told:
            continue
        last = session.get(OutboundMail, last_id)
        assert last is not None
        ahead = _ahead(session, last, waiting, order)
        when = gone_by(session, limits, now, ahead)
        if when - now <= LATE:
            continue
        game = session.get(Game, game_id)
        assert game is not None
        for to in masters(session, game):
            session.add(OutboundMail(
                to_addr=to, game_id=game_id, kind=LATE_KIND, message_id=new_message_id(gm_address.rpartition("@")[2]), created_at=now, next_attempt_at=now,
                subject=f"[{game.name}] The results will reach the last players around {when:%H:%M} UTC",
                body_text=_late_text(game.name, limits, ahead, when)))
            queued += 1
    return queued


def _ahead(session: Session, last: OutboundMail, waiting: tuple[ColumnElement[bool], ...],
           order: ColumnElement[int]) -> int:
    """The unsent rows the outbox takes before `last`, and `last`."""
    rank = session.scalar(select(order).where(OutboundMail.id == last.id))
    before = (order < rank) | ((order == rank) & ((OutboundMail.next_attempt_at < last.next_attempt_at) | (
        (OutboundMail.next_attempt_at == last.next_attempt_at) & (OutboundMail.id <= last.id))))
    return session.scalar(select(func.count()).select_from(OutboundMail).where(*waiting, before)) or 0


def _late_text(game: str, limits: Limits, mails: int, when: datetime) -> str:
    said = " and ".join(f"{n} an {'hour' if w == HOUR else 'day'}" for w, n in limits.windows())
    return (f"gm: the results of game {game} are queued, but the judge's mailbox may send only {said} "
            f"(the provider's limit: GM_SMTP_PER_HOUR, GM_SMTP_PER_DAY). With {mails} mails to send before the "
            f"last of them, they will all have gone around {when:%Y-%m-%d %H:%M} UTC. Nothing is lost: every "
            "player gets them, acknowledgements of orders first.\n")


# A reply that asks the client to slow down: 421 (closing), 451 (local error, often a rate), 452
# (too many recipients, or storage), and any 4.7.x (policy: rate limits, "try again later").
_SLOW_CODES = {421, 451, 452}
_ENHANCED_47 = re.compile(r"^\s*4\.7\.\d+")


def slow_down(error: BaseException) -> bool:
    """Whether the server's answer asks the judge to send more slowly."""
    code = getattr(error, "code", None)
    message = str(getattr(error, "message", "") or "")
    if isinstance(error, aiosmtplib.SMTPRecipientsRefused):
        return any(slow_down(r) for r in error.recipients)
    if not isinstance(error, aiosmtplib.SMTPResponseException) or not isinstance(code, int):
        return False
    return code in _SLOW_CODES or (400 <= code < 500 and bool(_ENHANCED_47.match(message)))
