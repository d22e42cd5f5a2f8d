"""UNCD <power>: take a power out of civil disorder (where the variant's rules allow it). A player
whose power is in civil disorder and who orders again takes it out the same way
(gm.mail.commands.orders.ordered_again)."""
from __future__ import annotations

from gm.games import GameError
from gm.i18n import _
from gm.lifecycle.players import great_power, undo_civil_disorder
from gm.mail.commands import Context, reason
from gm.mail.outgoing.game_mail import queue_announcement
from gm.store.models import utcnow

NAME = "UNCD"
USAGE = "UNCD <power>"
HELP = _("take a power out of civil disorder (where the variant's rules allow it)")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if not args:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    game = ctx.game
    try:
        power = great_power(ctx.session, game, " ".join(args))
        undo_civil_disorder(ctx.session, game, power)
    except GameError as e:
        ctx.reject(line, reason(e))
        return
    queue_announcement(ctx.session, game, _("{power} out of civil disorder", power=power),
                       _("The GM has taken {power} out of civil disorder: its player orders again, and the game "
                         "waits for its orders as for everyone's.", power=power), gm_address=ctx.gm_address,
                       now=utcnow())
    ctx.audit("uncd", {"power": power})
    ctx.accept(line, _("{power} is out of civil disorder; every player is told", power=power))
