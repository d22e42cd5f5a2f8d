"""The deadline scheduler inside `gm serve`: every game whose next check has come (a reminder, a
deadline, the end of grace) or whose orders changed (it may end early) is looked at by
gm.lifecycle.phases.check, and what that did is mailed by gm.mail.outgoing.game_mail, both in ONE
transaction per game: a phase is adjudicated, its results written, the next phase opened and its
mails queued together, or not at all.

Several servers may share one PostgreSQL database: each claims a game with SELECT ... FOR UPDATE
SKIP LOCKED, so a game being looked at by one is skipped by the others, and the claim is checked
again under the lock (a game another server has just dealt with is no longer due). On SQLite the
database's single writer does the same."""
from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import masters
from gm.lifecycle import phases
from gm.mail.outgoing import game_mail
from gm.store.db import transaction
from gm.store.models import Game, GameStatus

log = logging.getLogger(__name__)

TICK_SECONDS = 1.0  # the longest the scheduler sleeps: orders that complete a phase are seen this fast
GAMES_PER_ROUND = 200  # games looked at per round, so that one round never holds a server long


def _due(now: datetime):  # type: ignore[no-untyped-def]
    # A paused game (PAUSE) is left alone until RESUME, which works its deadline out again.
    return (Game.status == GameStatus.ACTIVE, Game.paused_at.is_(None),
            or_(Game.next_check_at <= now, Game.orders_changed.is_(True)))


def due_games(session_factory: sessionmaker[Session], now: datetime, limit: int = GAMES_PER_ROUND) -> list[int]:
    """Ids of the games due a look at `now`, soonest first (read without locks: see check_game)."""
    with transaction(session_factory) as session:
        return list(session.scalars(select(Game.id).where(*_due(now)).order_by(Game.next_check_at).limit(limit)))


def check_game(session_factory: sessionmaker[Session], game_id: int, now: datetime, *, gm_address: str,
               public_url: str | None = None) -> int | None:
    """Look at one game in one transaction; the mails queued, or None when the game was not due
    after all (another server has it locked, or has just dealt with it)."""
    with transaction(session_factory) as session:
        game = session.scalar(
            select(Game).where(Game.id == game_id, *_due(now)).with_for_update(skip_locked=True)
        )
        if game is None:
            return None
        progress = phases.check(session, game, now)
        # The GMs get the results only: most looks at a game end no phase, and need not ask who they are.
        gm_addresses = masters(session, game) if progress.ended else []
        queued = game_mail.queue_progress(session, game, progress, gm_address=gm_address,
                                          gm_addresses=gm_addresses, now=now, public_url=public_url)
        for ended in progress.ended:
            log.info("game %s: %s adjudicated, %d mails queued", game.name, ended.row.label, queued)
        return queued


def run_due(session_factory: sessionmaker[Session], *, gm_address: str, now: datetime | None = None,
            public_url: str | None = None) -> tuple[int, int]:
    """One round: every game due now looked at. Returns (games looked at, mails queued). With
    `public_url`, the results mails link to the phases' web pages (gm.web)."""
    now = now or datetime.now(UTC)
    looked = queued = 0
    for game_id in due_games(session_factory, now):
        try:
            mails = check_game(session_factory, game_id, now, gm_address=gm_address, public_url=public_url)
        except Exception:  # one broken game must not stop the others' deadlines
            log.exception("game %d: the scheduler failed; it tries again next round", game_id)
            continue
        if mails is not None:
            looked += 1
            queued += mails
    return looked, queued


def next_due(session_factory: sessionmaker[Session]) -> datetime | None:
    with transaction(session_factory) as session:
        when = session.scalar(select(func.min(Game.next_check_at))
                              .where(Game.status == GameStatus.ACTIVE, Game.paused_at.is_(None)))
    if when is not None and when.tzinfo is None:  # an aggregate's result skips the column type
        when = when.replace(tzinfo=UTC)
    return when


async def run_scheduler(
    session_factory: sessionmaker[Session],
    *,
    gm_address: str,
    on_mail: Callable[[], None] = lambda: None,
    tick: float = TICK_SECONDS,
    public_url: str | None = None,
) -> None:
    """Look at due games until cancelled: at least every `tick` seconds, and at once when the
    next check falls due sooner. `on_mail` is called when mail was queued (to wake the outbox)."""
    while True:
        started = datetime.now(UTC)
        try:
            looked, queued = await asyncio.to_thread(run_due, session_factory, gm_address=gm_address, now=started,
                                                     public_url=public_url)
            if queued:
                on_mail()
            if looked == GAMES_PER_ROUND:
                continue  # more may be due: no sleep
            when = await asyncio.to_thread(next_due, session_factory)
        except asyncio.CancelledError:
            raise
        except Exception:  # e.g. the database is away: log, and try again later
            log.exception("scheduler: could not look at the games")
            when = None
        wait = tick
        # A check that was due before this round and still is belongs to a game another server is
        # adjudicating, or one that failed: looked at again a tick later, not in a busy loop.
        if when is not None and when > started:
            wait = min(tick, max(0.0, (when - datetime.now(UTC)).total_seconds()))
        await asyncio.sleep(max(wait, 0.01))
