"""SET PRESS WHITE|GREY|NONE: press between players: signed by the sender's power, anonymous, or
none (the GM may always send press)."""
from __future__ import annotations

from gm.mail.outgoing import press
from gm.mail.commands import Context
from gm.mail.outgoing.game_mail import queue_announcement
from gm.store.models import GameStatus, utcnow

NAME = "SET PRESS"
USAGE = "SET PRESS WHITE|GREY|NONE"
HELP = "press between players: signed by the sender's power, anonymous, or none (the GM may always send press)"

_WORDS = {"WHITE": "white", "GREY": "grey", "GRAY": "grey", "NONE": "none", "NO": "none", "OFF": "none"}


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if len(args) != 1 or args[0].upper() not in _WORDS:
        ctx.reject(line, f"usage: {USAGE}")
        return
    game, kind = ctx.game, _WORDS[args[0].upper()]
    if game.status == GameStatus.FINISHED:
        ctx.reject(line, f"{game.name} is over: its press is closed")
        return
    before = press.press_kind(game)
    if kind == before:
        ctx.accept(line, f"press in {game.name} is {kind} already: nothing changed")
        return
    press.set_press_kind(game, kind)
    ctx.audit("set press", {"from": before, "to": kind})
    queue_announcement(ctx.session, game, f"Press is now {kind}",
                       f"The GM has changed the press of {game.name} to {press.describe(kind)}.",
                       gm_address=ctx.gm_address, now=utcnow())
    ctx.accept(line, f"press in {game.name} is {kind} now; every player is told")
