"""TERMINATE: end the game now; every player is told."""
from __future__ import annotations

from gm.games import GameError, variant_of
from gm.lifecycle.ending import final_position, terminate
from gm.mail.commands import Context
from gm.mail.outgoing.game_mail import queue_announcement
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
    current = ctx.phase()  # the position the game ends in
    try:
        terminate(ctx.session, game, now)
    except GameError as e:
        ctx.reject(line, str(e))
        return
    ctx.lookups.forget()
    queue_announcement(ctx.session, game, "The game is over",
                       "The GM has ended the game as it stands: it takes no more orders."
                       + ("" if current is None else "\n\n" + final_position(variant_of(game), current)),
                       gm_address=ctx.gm_address, now=now)
    ctx.audit("terminate", {"outcome": game.outcome})
    ctx.accept(line, f"{game.name} is over ({game.outcome}); every player is told")
