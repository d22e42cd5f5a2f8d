"""UNCD <power>: take a power out of civil disorder (where the variant's rules allow it). A player
whose power is in civil disorder and who orders again takes it out the same way
(gm.mail.commands.orders.ordered_again)."""
from __future__ import annotations

from gm.games import GameError
from gm.lifecycle.players import great_power, undo_civil_disorder
from gm.mail.commands import Context
from gm.mail.outgoing.game_mail import queue_announcement
from gm.store.models import utcnow

NAME = "UNCD"
USAGE = "UNCD <power>"
HELP = "take a power out of civil disorder (where the variant's rules allow it)"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if not args:
        ctx.reject(line, f"usage: {USAGE}")
        return
    game = ctx.game
    try:
        power = great_power(ctx.session, game, " ".join(args))
        undo_civil_disorder(ctx.session, game, power)
    except GameError as e:
        ctx.reject(line, str(e))
        return
    queue_announcement(ctx.session, game, f"{power} out of civil disorder",
                       f"The GM has taken {power} out of civil disorder: its player orders again, and the game "
                       "waits for its orders as for everyone's.", gm_address=ctx.gm_address, now=utcnow())
    ctx.audit("uncd", {"power": power})
    ctx.accept(line, f"{power} is out of civil disorder; every player is told")
