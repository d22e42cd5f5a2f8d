"""UNOBSERVE <game>: the sender's address no longer observes the game (see OBSERVE)."""
from __future__ import annotations

from gm.i18n import _, translated
from gm.mail.commands import NO_SUCH_GAME, Context
from gm.mail.commands.observe import KIND, audit, observing
from gm.mail.outgoing.reply import render_notice
from gm.store.models import utcnow

NAME = "UNOBSERVE"
USAGE = "UNOBSERVE <game>"
HELP = _("stop observing a game: its mail no longer comes to this address")


def run(ctx: Context, args: list[str], line: str) -> None:
    if len(args) != 1:
        ctx.refuse_sign_on(line, _("usage: {usage}", usage=USAGE))
        return
    game = ctx.lookups.game(args[0])
    if game is None:
        ctx.refuse_sign_on(line, NO_SUCH_GAME)
        return
    sender = ctx.message.sender
    observer = observing(ctx, game, sender)
    if observer is None:
        ctx.refuse_sign_on(line, _("this address does not observe {game}", game=game.name))
        return
    observer.left_at = utcnow()
    audit(ctx, game, "unobserve", sender)
    ctx.accept(line, _("this address no longer observes {game}", game=game.name))
    lang = ctx.language(sender, game)
    ctx.notify(sender, translated(_("gm: you no longer observe {game}", game=game.name), lang),
               render_notice("observer", lang, gm_address=ctx.gm_address, game=game.name, observing=False), kind=KIND)
