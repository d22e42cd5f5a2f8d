"""TERMINATE: end the game now; every player is told."""
from __future__ import annotations

from gm.games import GameError, variant_of
from gm.i18n import _
from gm.lifecycle.ending import final_position, outcome_text, terminate
from gm.mail.commands import Context, reason
from gm.mail.outgoing.game_mail import queue_announcement
from gm.store.models import utcnow

NAME = "TERMINATE"
USAGE = "TERMINATE"
HELP = _("end the game now; every player is told")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if args:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    game, now = ctx.game, utcnow()
    current = ctx.phase()  # the position the game ends in
    try:
        terminate(ctx.session, game, now)
    except GameError as e:
        ctx.reject(line, reason(e))
        return
    ctx.lookups.forget()
    ended = _("The GM has ended the game as it stands: it takes no more orders.")
    if current is not None:
        ended = _("The GM has ended the game as it stands: it takes no more orders.\n\n{position}",
                  position=final_position(variant_of(game), current))
    queue_announcement(ctx.session, game, _("The game is over"), ended, gm_address=ctx.gm_address, now=now)
    ctx.audit("terminate", {"outcome": game.outcome})
    ctx.accept(line, _("{game} is over ({outcome}); every player is told", game=game.name,
                       outcome=outcome_text(game.outcome)))
