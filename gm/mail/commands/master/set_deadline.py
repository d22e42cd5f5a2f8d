"""SET DEADLINE <when>: move the current phase's deadline to <when> (2026-12-01 20:00, in the game's time zone)."""
from __future__ import annotations

from datetime import datetime

from gm.games import GameError, masters
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.timing import HELD, read_when, set_deadline
from gm.mail.commands import Context
from gm.mail.outgoing.game_mail import deadline_text, queue_deadline_moved
from gm.store.models import utcnow

NAME = "SET DEADLINE"
USAGE = "SET DEADLINE <when>"
HELP = "move the current phase's deadline to <when> (2026-12-01 20:00, in the game's time zone)"
# What every player is told of a deadline the GM moved later (gm.lifecycle.timing holds the phase to it).
HELD_TOLD = "the phase now ends at the new deadline even if every order is in."


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if not args:
        ctx.reject(line, f"usage: {USAGE}")
        return
    game, now = ctx.game, utcnow()
    rules = rules_of(game.options)
    try:
        current = set_deadline(ctx.session, game, read_when(" ".join(args), rules), now)
    except GameError as e:
        ctx.reject(line, str(e))
        return
    held = current.row.held_to_deadline
    announce_deadline(ctx, f"The GM set it: {HELD_TOLD}" if held else "The GM set it.", now)
    ctx.audit("set deadline", {"phase": current.row.label, "deadline": game.deadline_at.isoformat(),
                               **({"held": True} if held else {})})
    ctx.accept(line, f"the deadline of {current.row.label} is {deadline_text(game.deadline_at, rules.timezone)}; "
                     + (f"{HELD}; " if held else "") + "every player is told")


def announce_deadline(ctx: Context, why: str, now: datetime, headline: str = "Deadline moved") -> None:
    """Every player and GM told of the current deadline, and why it moved (EXTEND, RESUME too)."""
    queue_deadline_moved(ctx.session, ctx.game, why=why, gm_address=ctx.gm_address,
                         gm_addresses=masters(ctx.session, ctx.game), now=now, headline=headline)
