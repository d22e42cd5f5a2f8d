"""EXTEND <duration>: put the current deadline off by <duration> (24h, 2d, 1d12h). The GM gives the
phase more time: it runs to the new deadline even once every order is in (PROCESS ends it sooner)."""
from __future__ import annotations

from gm.games import GameError
from gm.lifecycle.house_rules import HouseRuleError, parse_duration, rules_of, show
from gm.lifecycle.timing import HELD, extend
from gm.mail.commands import Context
from gm.mail.commands.master.set_deadline import HELD_TOLD, announce_deadline
from gm.mail.outgoing.game_mail import deadline_text
from gm.store.models import utcnow

NAME = "EXTEND"
USAGE = "EXTEND <duration>"
HELP = "put the current deadline off by <duration> (24h, 2d, 1d12h): the phase runs to it even with every order in"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if not args:
        ctx.reject(line, f"usage: {USAGE}")
        return
    game, now = ctx.game, utcnow()
    try:
        by = parse_duration(" ".join(args), "EXTEND")
        current = extend(ctx.session, game, by, now)
    except (GameError, HouseRuleError) as e:
        ctx.reject(line, str(e))
        return
    announce_deadline(ctx, f"The GM put it off by {show(by)}: {HELD_TOLD}", now)
    ctx.audit("extend", {"phase": current.row.label, "by": show(by), "deadline": game.deadline_at.isoformat(),
                         "held": True})
    zone = rules_of(game.options).timezone
    paused = " (the game is paused: RESUME moves it on by the time paused)" if game.paused_at is not None else ""
    ctx.accept(line, f"the deadline of {current.row.label} is {deadline_text(game.deadline_at, zone)}{paused}; "
                     f"{HELD}; every player is told")
