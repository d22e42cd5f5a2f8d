"""SET ABSENCE <from> <to>: no deadline of your game falls while you are away; SET ABSENCE NONE
takes it back. The dates are days in the game's time zone, from the start of the first to the
end of the last."""
from __future__ import annotations

import re
from datetime import date, datetime, timedelta

from gm.i18n import _, _n
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.phases import move_deadline
from gm.mail.commands import Context, Lines
from gm.games import masters
from gm.mail.outgoing.game_mail import queue_deadline_moved
from gm.store.models import AuditEntry, GameStatus, utcnow
from gm.view.results import moment_text

NAME = "SET ABSENCE"
USAGE = "SET ABSENCE <from> <to>   (dates as 2026-12-24 2027-01-02; or SET ABSENCE NONE)"
HELP = _("no deadline falls between these days (both included); NONE clears it; one absence at a time")

_DATE = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    game, player = ctx.game, ctx.player
    if game.status not in (GameStatus.ACTIVE, GameStatus.FORMING):
        ctx.reject(line, _("{game} is over: it has no deadlines to move", game=game.name))
        return
    rules = rules_of(game.options)
    zone = rules.zone
    if len(args) == 1 and args[0].upper() == "NONE":
        had = player.absent_from is not None
        player.absent_from = player.absent_until = None
        _audit(ctx, None, None)
        # A deadline already moved stays where it is: players were told of it.
        ctx.accept(line, _("absence cleared") if had else _("you had no absence announced"))
        return
    if len(args) != 2:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    days = [_day(a) for a in args]
    for text, day in zip(args, days, strict=True):
        if day is None:
            ctx.reject(line, _("{text} is no date: write it as YYYY-MM-DD, e.g. 2026-12-24", text=repr(text)))
            return
    first, last = days[0], days[1]
    assert first is not None and last is not None
    if last < first:
        ctx.reject(line, _("the absence ends ({last}) before it begins ({first})", last=last, first=first))
        return
    now = utcnow()
    today = now.astimezone(zone).date()
    if first < today:
        ctx.reject(line, _("{first} is in the past (today is {today} in {zone})", first=first, today=today,
                           zone=rules.timezone))
        return
    length = (last - first).days + 1
    if length > rules.absence_days:
        ctx.reject(line, _n("{count} day is longer than this game allows: at most {most} days",
                            "{count} days is longer than this game allows: at most {most} days", length,
                            most=rules.absence_days))
        return
    start = datetime(first.year, first.month, first.day, tzinfo=zone)
    end_day = last + timedelta(days=1)
    end = datetime(end_day.year, end_day.month, end_day.day, tzinfo=zone)
    replaced = player.absent_from is not None and player.absent_until is not None and player.absent_until > now
    player.absent_from, player.absent_until = start, end
    _audit(ctx, start, end)
    said = (_("absent from {first} 00:00 to {last} 24:00 ({zone}), in place of the absence announced before",
              first=first, last=last, zone=rules.timezone) if replaced else
            _("absent from {first} 00:00 to {last} 24:00 ({zone})", first=first, last=last, zone=rules.timezone))
    deadline = None
    if game.status == GameStatus.ACTIVE:
        phase = ctx.phase()
        moved = move_deadline(ctx.session, game, now)
        if moved is not None and phase is not None:
            deadline = _("the deadline of {phase} moved to {deadline}", phase=phase_name(phase.row.label),
                         deadline=moment_text(moved, rules.timezone))
            queue_deadline_moved(ctx.session, game, why=_("A player announced an absence (SET ABSENCE)."),
                                 gm_address=ctx.gm_address, gm_addresses=masters(ctx.session, game), now=now)
        elif game.deadline_at is not None:
            deadline = _("the deadline stays {deadline}", deadline=moment_text(game.deadline_at, rules.timezone))
    ctx.accept(line, said if deadline is None else Lines([said, deadline], "; "))


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
