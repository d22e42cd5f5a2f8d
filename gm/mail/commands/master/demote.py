"""DEMOTE <address>: an address is a GM of the game no more (never the last GM)."""
from __future__ import annotations

from gm.games import active_masters
from gm.i18n import _
from gm.mail.commands import Context
from gm.mail.outgoing.game_mail import queue_announcement
from gm.store.models import utcnow

NAME = "DEMOTE"
USAGE = "DEMOTE <address>"
HELP = _("an address is a GM of the game no more (never the last GM)")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if len(args) != 1:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    game, address = ctx.game, args[0].strip("<>").lower()
    gms = active_masters(ctx.session, game)
    master = next((m for m in gms if m.email == address), None)
    if master is None:
        ctx.reject(line, _("{address} is no GM of {game}; its GMs are {masters}", address=address, game=game.name,
                           masters=", ".join(m.email for m in gms)))
        return
    if len(gms) == 1:
        ctx.reject(line, _("{address} is the only GM of {game}: PROMOTE another first", address=address,
                           game=game.name))
        return
    now = utcnow()
    master.left_at = now
    queue_announcement(ctx.session, game, _("{address} is no longer a GM", address=address),
                       _("{address} is no longer a GM of {game}: no more copies of its mail go there, and its "
                         "GM password no longer signs on.", address=address, game=game.name),
                       gm_address=ctx.gm_address, now=now, to=[m.email for m in gms], kind="notice")
    ctx.audit("demote", {"master": address})
    ctx.accept(line, _("{address} is no longer a GM of {game}; the GMs are told", address=address, game=game.name))
