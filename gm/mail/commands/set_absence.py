"""SET ABSENCE <from> <to>: no deadline of your game falls while you are away; SET ABSENCE NONE
takes it back. The dates are days in the game's time zone, from the start of the first to the
end of the last."""
from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.phases import move_deadline
from gm.mail.commands import Context
from gm.games import masters
from gm.mail.outgoing.game_mail import deadline_text, queue_deadline_moved
from gm.store.models import AuditEntry, GameStatus, utcnow

NAME = "SET ABSENCE"
USAGE = "SET ABSENCE <from> <to>   (dates as 2026-12-24 2027-01-02; or SET ABSENCE NONE)"
HELP = "no deadline falls between these days (both included); NONE clears it; one absence at a time"

_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    game, player = ctx.game, ctx.player
    if game.status not in (GameStatus.ACTIVE, GameStatus.FORMING):
        ctx.reject(line, f"{game.name} is over: it has no deadlines to move")
        return
    rules = rules_of(game.options)
    zone = rules.zone
    if len(args) == 1 and args[0].upper() == "NONE":
        had = player.absent_from is not None
        player.absent_from = player.absent_until = None
        _audit(ctx, None, None)
        # A deadline already moved stays where it is: players were told of it.
        ctx.accept(line, "absence cleared" if had else "you had no absence announced")
        return
    if len(args) != 2:
        ctx.reject(line, f"usage: {USAGE}")
        return
    days = [_day(a) for a in args]
    for text, day in zip(args, days, strict=True):
        if day is None:
            ctx.reject(line, f"{text!r} is no date: write it as YYYY-MM-DD, e.g. 2026-12-24")
            return
    first, last = days[0], days[1]
    assert first is not None and last is not None
    if last < first:
        ctx.reject(line, f"the absence ends ({last}) before it begins ({first})")
        return
    now = utcnow()
    today = now.astimezone(zone).date()
    if first < today:
        ctx.reject(line, f"{first} is in the past (today is {today} in {rules.timezone})")
        return
    length = (last - first).days + 1
    if length > rules.absence_days:
        ctx.reject(line, f"{length} days is longer than this game allows: at most {rules.absence_days} days")
        return
    start = datetime(first.year, first.month, first.day, tzinfo=zone)
    end_day = last + timedelta(days=1)
    end = datetime(end_day.year, end_day.month, end_day.day, tzinfo=zone)
    replaced = player.absent_from is not None and player.absent_until is not None and player.absent_until > now
    player.absent_from, player.absent_until = start, end
    _audit(ctx, start, end)
    said = f"absent from {first} 00:00 to {last} 24:00 ({rules.timezone})"
    if replaced:
        said += ", in place of the absence announced before"
    if game.status == GameStatus.ACTIVE:
        phase = ctx.phase()
        moved = move_deadline(ctx.session, game, now)
        if moved is not None and phase is not None:
            said += f"; the deadline of {phase.row.label} moved to {deadline_text(moved, rules.timezone)}"
            queue_deadline_moved(ctx.session, game, why="A player announced an absence (SET ABSENCE).",
                                 gm_address=ctx.gm_address, gm_addresses=masters(ctx.session, game), now=now)
        elif game.deadline_at is not None:
            said += f"; the deadline stays {deadline_text(game.deadline_at, rules.timezone)}"
    ctx.accept(line, said)


def _day(text: str) -> date | None:
    found = _DATE.fullmatch(text.strip())
    if found is None:
        return None
    try:
        return date(*(int(g) for g in found.groups()))
    except ValueError:
        return None


def _audit(ctx: Context, start: datetime | None, end: datetime | None) -> None:
    ctx.session.add(AuditEntry(game_id=ctx.game.id, actor=ctx.message.sender, action="set absence",
                               detail={"power": ctx.player.power,
                                       "from": start.isoformat() if start else None,
                                       "until": end.isoformat() if end else None}))
    ctx.changed = True
