"""RESUME: start the clock again; the deadline moves on by the time the game was paused."""
from __future__ import annotations

from datetime import timedelta

from gm.games import GameError
from gm.lifecycle.house_rules import rules_of, show
from gm.lifecycle.timing import resume
from gm.mail.commands import Context
from gm.mail.commands.master.set_deadline import announce_deadline
from gm.mail.outgoing.game_mail import deadline_text
from gm.store.models import utcnow

NAME = "RESUME"
USAGE = "RESUME"
HELP = "start the clock again; the deadline moves on by the time the game was paused"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if args:
        ctx.reject(line, f"usage: {USAGE}")
        return
    game, now = ctx.game, utcnow()
    try:
        current, stopped = resume(ctx.session, game, now)
    except GameError as e:
        ctx.reject(line, str(e))
        return
    # A pause and RESUME in one mail (or within the minute) moved nothing worth a number.
    moved = (f"the deadline moved on by the time paused ({show(stopped)})" if stopped >= timedelta(minutes=1)
             else "the deadline stands")
    announce_deadline(ctx, f"The GM resumed the game after a pause: {moved}.", now, headline="The game runs again")
    ctx.audit("resume", {"phase": current.row.label, "paused": stopped.total_seconds(),
                         "deadline": game.deadline_at.isoformat()})
    ctx.accept(line, f"{game.name} runs again; the deadline of {current.row.label} is "
                     f"{deadline_text(game.deadline_at, rules_of(game.options).timezone)}; every player is told")
