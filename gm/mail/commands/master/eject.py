"""EJECT <power>: take a power from its player; its units take the rules' defaults until REPLACE."""
from __future__ import annotations

from gm.games import GameError, active_players, masters
from gm.i18n import _
from gm.lifecycle.players import eject, great_power
from gm.mail.commands import Context, reason
from gm.mail.outgoing.game_mail import queue_announcement
from gm.store.models import GameStatus, utcnow

NAME = "EJECT"
USAGE = "EJECT <power>"
HELP = _("take a power from its player; its units take the rules' defaults until REPLACE")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if not args:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    game, now = ctx.game, utcnow()
    try:
        power = great_power(ctx.session, game, " ".join(args))
        player = eject(ctx.session, game, power, now)
    except GameError as e:
        ctx.reject(line, reason(e))
        return
    ctx.lookups.forget()
    if game.status == GameStatus.ACTIVE:
        what = _("The GM has taken {power} from its player. Nobody plays it now: its units take the rules' "
                 "defaults at each deadline, and nobody waits for it.", power=power)
    else:
        what = _("The GM has taken {power} from its player: it is open to JOIN again.", power=power)
    # The player who left is told too: the announcement goes to who plays now, and to them.
    queue_announcement(ctx.session, game, _("{power} has no player", power=power), what, gm_address=ctx.gm_address,
                       now=now,
                       to=[player.email, *(p.email for p in active_players(ctx.session, game)),
                           *masters(ctx.session, game)])
    ctx.audit("eject", {"power": power, "player": player.email})
    ctx.accept(line, _("{address} no longer plays {power}; every player is told", address=player.email, power=power))

