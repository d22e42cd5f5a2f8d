"""SET DKIM REQUIRED|OPTIONAL: refuse sign-ons in mail without a valid DKIM signature of the sender's domain, or not."""
from __future__ import annotations

from gm.i18n import _
from gm.mail.commands import Context
from gm.mail.intake.dkim import Verdict
from gm.mail.outgoing.game_mail import queue_announcement
from gm.store.models import utcnow

NAME = "SET DKIM"
USAGE = "SET DKIM REQUIRED|OPTIONAL"
HELP = _("refuse sign-ons in mail without a valid DKIM signature of the sender's domain, or not")

_WORDS = {"REQUIRED": True, "REQUIRE": True, "OPTIONAL": False}


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if len(args) != 1 or args[0].upper() not in _WORDS:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    game, required = ctx.game, _WORDS[args[0].upper()]
    if game.require_dkim == required:
        ctx.accept(line, _("{game} requires DKIM-signed mail already: nothing changed", game=game.name) if required
                   else _("{game} takes mail signed with DKIM or not already: nothing changed", game=game.name))
        return
    game.require_dkim = required
    ctx.audit("set dkim", {"required": required})
    queue_announcement(ctx.session, game, _("DKIM required") if required else _("DKIM optional"),
                       _announcement(game.name, required), gm_address=ctx.gm_address, now=utcnow())
    detail = _("{game} requires DKIM-signed mail now; every player is told", game=game.name) if required else \
        _("{game} takes mail signed with DKIM or not now; every player is told", game=game.name)
    if required and ctx.dkim is not None and ctx.dkim is not Verdict.SIGNED:
        # The GM's own next SIGNON MASTER would be refused: say so while they can still undo it.
        detail = _("{text}. Beware: {verdict}, so a SIGNON MASTER in mail like it would be refused", text=detail,
                   verdict=ctx.dkim.value)
    ctx.accept(line, detail)


def _announcement(game: str, required: bool) -> str:
    if required:
        return _("The GM has set {game} to require mail signed with DKIM by your own mail domain: from now on a\n"
                 "SIGNON in a mail your mail provider did not sign is refused. Most providers sign all mail; if\n"
                 "yours does not, tell the GM.", game=game)
    return _("The GM has set {game} to take mail whether it is signed with DKIM or not.", game=game)
