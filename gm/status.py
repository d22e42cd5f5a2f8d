"""`gm status`: whether the judge is healthy, read from its database. Which `gm serve` run (by their
heartbeats, gm.heartbeat) and which holds the mailbox, when mail was last read, the outbox's depth
and its oldest unsent mail, the next deadline, the games paused (since when, by whom), and how far
the deadline scheduler is behind (a game whose deadline, end of grace or reminder is past and not
yet dealt with).

Healthy means: a live `gm serve`, one of them holding the mailbox, no unsent mail older than
`outbox_age`, no game overdue by more than `lag`. With `this_host`, only the servers on this
host are judged (a container's own judge, for its healthcheck): at least one runs and beats; the
rest is the whole judge's business and is reported, not judged."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gm.heartbeat import STALE_SECONDS, process_runs, this_host
from gm.store import failing
from gm.store.models import AuditEntry, Bounce, Game, GameStatus, InboundMail, OutboundMail, ServerBeat

OUTBOX_AGE = timedelta(minutes=15)  # unsent mail older than this: the outbox is stuck
LAG = timedelta(minutes=5)  # a game's check overdue by more than this: the scheduler is behind
PAUSED_SHOWN = 5  # paused games named one a line; the others counted
# The audit actions that stop a game's clock: a GM's PAUSE, and a ROLLBACK (gm.lifecycle.timing).
_PAUSING = {"pause": "PAUSE", "rollback": "ROLLBACK"}


@dataclass(frozen=True)
class Server:
    host: str
    pid: int
    started_at: datetime
    seen_at: datetime
    holds_mailbox: bool
    live: bool


@dataclass(frozen=True)
class Paused:
    """A running game whose clock is stopped: no deadline of it falls until RESUME (or PROCESS after a rollback)."""

    game: str
    since: datetime
    by: str | None  # who stopped it, from the audit log (a GM's address, the operator); None: not recorded
    how: str | None  # 'PAUSE' or 'ROLLBACK'


@dataclass(frozen=True)
class Status:
    now: datetime
    host: str  # this host
    servers: list[Server]
    last_mail_at: datetime | None  # when the last mail was taken in
    outbox_depth: int  # mail waiting to be sent (not refused for good)
    oldest_unsent_at: datetime | None
    next_deadline: tuple[str, datetime] | None  # the soonest deadline of a running game: (game, when)
    overdue: tuple[str, datetime] | None  # the most overdue check of a running game: (game, when)
    overdue_games: int  # running games whose check is overdue by more than the lag allowed
    failing_addresses: int = 0  # addresses the judge's mail no longer reaches (gm.store.failing)
    bounces: int = 0  # mail that came back in the last day
    unmatched_bounces: int = 0  # of those, reports matched to no mail the judge sent
    paused: list[Paused] = field(default_factory=list)  # the paused games longest paused first, PAUSED_SHOWN at most
    paused_games: int = 0  # running games paused, in all

    def live_servers(self, this_host_only: bool = False) -> list[Server]:
        return [s for s in self.servers if s.live and (s.host == self.host or not this_host_only)]


def read_status(session: Session, now: datetime, lag: timedelta = LAG) -> Status:
    host = this_host()
    servers = []
    for row in session.scalars(select(ServerBeat).order_by(ServerBeat.started_at, ServerBeat.id)):
        live = (now - row.seen_at).total_seconds() < STALE_SECONDS
        if row.host == host:  # the same host: a process that has gone is dead at once
            live = live and process_runs(row.pid)
        servers.append(Server(row.host, row.pid, row.started_at, row.seen_at, row.holds_mailbox, live))
    unsent = (OutboundMail.sent_at.is_(None), OutboundMail.gave_up_at.is_(None))
    depth, oldest = session.execute(
        select(func.count(), func.min(OutboundMail.created_at)).where(*unsent)).one()
    running = (Game.status == GameStatus.ACTIVE, Game.paused_at.is_(None))
    deadline = session.execute(
        select(Game.name, Game.deadline_at).where(*running, Game.deadline_at > now)
        .order_by(Game.deadline_at).limit(1)).first()
    late = session.execute(
        select(Game.name, Game.next_check_at).where(*running, Game.next_check_at <= now - lag)
        .order_by(Game.next_check_at).limit(1)).first()
    day_ago = now - timedelta(days=1)
    bounces, unmatched = session.execute(select(func.count(), func.count().filter(Bounce.outbox_id.is_(None)))
                                         .where(Bounce.at >= day_ago)).one()
    late_count = session.scalar(select(func.count()).select_from(Game).where(*running, Game.next_check_at <= now - lag))
    stopped = (Game.status == GameStatus.ACTIVE, Game.paused_at.is_not(None))
    paused = [Paused(name, since, *paused_by(session, game_id)) for game_id, name, since in session.execute(
        select(Game.id, Game.name, Game.paused_at).where(*stopped).order_by(Game.paused_at).limit(PAUSED_SHOWN))]
    return Status(
        now=now,
        host=host,
        servers=servers,
        last_mail_at=_utc(session.scalar(select(func.max(InboundMail.received_at)))),
        outbox_depth=int(depth or 0),
        oldest_unsent_at=_utc(oldest),
        next_deadline=(deadline[0], deadline[1]) if deadline else None,
        overdue=(late[0], late[1]) if late else None,
        overdue_games=int(late_count or 0),
        failing_addresses=failing.count(session),
        bounces=int(bounces or 0),
        unmatched_bounces=int(unmatched or 0),
        paused=paused,
        paused_games=int(session.scalar(select(func.count()).select_from(Game).where(*stopped)) or 0),
    )


def paused_by(session: Session, game_id: int) -> tuple[str | None, str | None]:
    """Who stopped a paused game's clock, and how ('PAUSE', 'ROLLBACK'), read from its audit log:
    the newest entry that stops it. (None, None) when none is recorded."""
    found = session.execute(select(AuditEntry.actor, AuditEntry.action).where(
        AuditEntry.game_id == game_id, AuditEntry.action.in_(_PAUSING)).order_by(AuditEntry.id.desc()).limit(1)).first()
    return (found[0], _PAUSING[found[1]]) if found else (None, None)


def _utc(value: datetime | str | None) -> datetime | None:
    # An aggregate's result skips the column's type: SQLite gives it back naive, as text.
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def problems(status: Status, *, this_host_only: bool = False, outbox_age: timedelta = OUTBOX_AGE,
             lag: timedelta = LAG) -> list[str]:
    """What is wrong, one line each; none: healthy."""
    found = []
    live = status.live_servers(this_host_only)
    if not live:
        found.append(f"no gm serve runs on this host ({status.host})" if this_host_only else "no gm serve runs")
    if this_host_only:
        return found
    if live and not any(s.holds_mailbox for s in live):
        found.append("no gm serve holds the mailbox: nobody reads the GM's mail")
    if status.oldest_unsent_at is not None and status.now - status.oldest_unsent_at > outbox_age:
        found.append(f"the outbox is stuck: {status.outbox_depth} mail unsent, the oldest queued "
                     f"{ago(status.now, status.oldest_unsent_at)} (more than {_span(outbox_age)})")
    if status.overdue is not None and status.now - status.overdue[1] > lag:
        game, when = status.overdue
        others = f" and {status.overdue_games - 1} other game(s)" if status.overdue_games > 1 else ""
        found.append(f"the deadlines are behind: game {game}{others} due {ago(status.now, when)}, not yet dealt with "
                     f"(more than {_span(lag)})")
    return found


def report(status: Status) -> list[str]:
    """The status as lines for a person: servers, mail in, outbox, deadlines."""
    lines = ["servers:" if status.servers else "servers: none (a gm serve that stops cleanly leaves no trace)"]
    for s in status.servers:
        role = "holds the mailbox" if s.holds_mailbox else "standby"
        state = f"{role}, seen {ago(status.now, s.seen_at)}" if s.live else f"DEAD, last seen {ago(status.now, s.seen_at)}"
        here = " (this host)" if s.host == status.host else ""
        lines.append(f"  {s.host}{here} pid {s.pid}: {state}; started {_when(s.started_at)}")
    lines.append("last mail read: " + (f"{_when(status.last_mail_at)} ({ago(status.now, status.last_mail_at)})"
                                       if status.last_mail_at else "none yet"))
    if status.outbox_depth and status.oldest_unsent_at is not None:
        lines.append(f"outbox: {status.outbox_depth} unsent, the oldest queued {ago(status.now, status.oldest_unsent_at)}")
    else:
        lines.append("outbox: empty")
    if status.failing_addresses or status.bounces:
        unmatched = f", {status.unmatched_bounces} matched to no mail of the judge's" if status.unmatched_bounces else ""
        lines.append(f"mail not arriving: {status.failing_addresses} address(es) failing (gm game show names them); "
                     f"{status.bounces} bounce(s) in the last day{unmatched}")
    else:
        lines.append("mail not arriving: none")
    if status.next_deadline:
        game, when = status.next_deadline
        lines.append(f"next deadline: game {game}, {_when(when)} (in {_span(when - status.now)})")
    elif status.paused_games:
        lines.append("next deadline: none (every game under way is paused)")
    else:
        lines.append("next deadline: none (no game running)")
    for p in status.paused:
        by = f"by {p.by} ({p.how})" if p.by else "by whom the audit log does not say"
        lines.append(f"paused: game {p.game} since {_when(p.since)} ({ago(status.now, p.since)}), {by}")
    if status.paused_games > len(status.paused):
        lines.append(f"paused: {status.paused_games - len(status.paused)} other game(s)")
    if status.overdue:
        game, when = status.overdue
        lines.append(f"behind: {status.overdue_games} game(s) overdue, game {game} the most, due {ago(status.now, when)}")
    else:
        lines.append("behind: no")
    return lines


def ago(now: datetime, then: datetime) -> str:
    return f"{_span(now - then)} ago"


def _span(delta: timedelta) -> str:
    seconds = max(0, int(delta.total_seconds()))
    if seconds < 120:
        return f"{seconds} s"
    if seconds < 2 * 3600:
        return f"{seconds // 60} min"
    if seconds < 2 * 86400:
        return f"{seconds // 3600} h"
    return f"{seconds // 86400} days"


def _when(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")
