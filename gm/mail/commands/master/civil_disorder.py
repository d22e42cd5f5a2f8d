"""CIVIL DISORDER <power>: put a power into civil disorder, by the variant's rules."""
from __future__ import annotations

from gm.games import GameError, variant_of
from gm.i18n import _
from gm.lifecycle.players import declare_civil_disorder, great_power
from gm.mail.commands import Context, reason
from gm.mail.outgoing.game_mail import queue_announcement
from gm.store.models import utcnow

NAME = "CIVIL DISORDER"
USAGE = "CIVIL DISORDER <power>"
HELP = _("put a power into civil disorder, by the variant's rules")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if not args:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    game = ctx.game
    try:
        power = great_power(ctx.session, game, " ".join(args))
        changed, permanent = declare_civil_disorder(ctx.session, game, power)
    except GameError as e:
        ctx.reject(line, reason(e))
        return
    ctx.lookups.forget()  # the position, and the orders on file, changed
    title = variant_of(game).title
    what = _("The GM has put {power} in civil disorder, by the rules of {variant}.", power=power, variant=title)
    if changed:
        what = _("{text} Those rules change the position at once: MAP shows it as it is now.", text=what)
    else:
        what = _("{text} Its units take the rules' defaults at each deadline, and nobody waits for its orders.",
                 text=what)
    what = _("{text} {power} is never played again.", text=what, power=power) if permanent else \
        _("{text} Its player is back as soon as they order again.", text=what)
    queue_announcement(ctx.session, game, _("{power} in civil disorder", power=power), what,
                       gm_address=ctx.gm_address, now=utcnow())
    ctx.audit("civil disorder", {"power": power, "permanent": permanent})
    if permanent:
        ctx.accept(line, _("{power} is in civil disorder for good; its orders on file are withdrawn; every player "
                           "is told", power=power))
    else:
        ctx.accept(line, _("{power} is in civil disorder; its orders on file are withdrawn; every player is told",
                           power=power))
