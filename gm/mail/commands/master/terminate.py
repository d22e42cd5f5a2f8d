"""TERMINATE: end the game now; every player is told."""
from __future__ import annotations

from gm.games import GameError
from gm.lifecycle.ending import terminate
from gm.mail.commands import Context
from gm.mail.game_mail import queue_announcement
from gm.store.models import utcnow

NAME = "TERMINATE"
USAGE = "TERMINATE"
HELP = "end the game now; every player is told"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if args:
        ctx.reject(line, f"usage: {USAGE}")
        return
    game, now = ctx.game, utcnow()
    try:
        terminate(ctx.session, game, now)
    except GameError as e:
        ctx.reject(line, str(e))
        return
    ctx.lookups.forget()
    queue_announcement(ctx.session, game, "The game is over",
                       "The GM has ended the game as it stands: it takes no more orders.",
                       gm_address=ctx.gm_address, now=now)
    ctx.audit("terminate", {"outcome": game.outcome})
    ctx.accept(line, f"{game.name} is over ({game.outcome}); every player is told")
