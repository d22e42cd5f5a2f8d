"""SET PRESS WHITE|GREY|NONE: press between players: signed by the sender's power, anonymous, or
none (the GM may always send press)."""
from __future__ import annotations

from gm.i18n import _
from gm.mail.outgoing import press
from gm.mail.commands import Context
from gm.mail.outgoing.game_mail import queue_announcement
from gm.store.models import GameStatus, utcnow

NAME = "SET PRESS"
USAGE = "SET PRESS WHITE|GREY|NONE"
HELP = _("press between players: signed by the sender's power, anonymous, or none (the GM may always send press)")

_WORDS = {"WHITE": "white", "GREY": "grey", "GRAY": "grey", "NONE": "none", "NO": "none", "OFF": "none"}


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if len(args) != 1 or args[0].upper() not in _WORDS:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    game, kind = ctx.game, _WORDS[args[0].upper()]
    if game.status == GameStatus.FINISHED:
        ctx.reject(line, _("{game} is over: its press is closed", game=game.name))
        return
    before = press.press_kind(game)
    if kind == before:
        ctx.accept(line, _("press in {game} is {kind} already: nothing changed", game=game.name, kind=kind))
        return
    press.set_press_kind(game, kind)
    ctx.audit("set press", {"from": before, "to": kind})
    queue_announcement(ctx.session, game, _("Press is now {kind}", kind=kind),
                       _("The GM has changed the press of {game} to {press}.", game=game.name,
                         press=press.describe(kind)),
                       gm_address=ctx.gm_address, now=utcnow())
    ctx.accept(line, _("press in {game} is {kind} now; every player is told", game=game.name, kind=kind))
