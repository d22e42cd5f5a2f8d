"""CIVIL DISORDER <power>: put a power into civil disorder, by the variant's rules."""
from __future__ import annotations

from gm.games import GameError, variant_of
from gm.lifecycle.players import declare_civil_disorder, great_power
from gm.mail.commands import Context
from gm.mail.outgoing.game_mail import queue_announcement
from gm.store.models import utcnow

NAME = "CIVIL DISORDER"
USAGE = "CIVIL DISORDER <power>"
HELP = "put a power into civil disorder, by the variant's rules"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if not args:
        ctx.reject(line, f"usage: {USAGE}")
        return
    game = ctx.game
    try:
        power = great_power(ctx.session, game, " ".join(args))
        changed, permanent = declare_civil_disorder(ctx.session, game, power)
    except GameError as e:
        ctx.reject(line, str(e))
        return
    ctx.lookups.forget()  # the position, and the orders on file, changed
    title = variant_of(game).title
    what = [f"The GM has put {power} in civil disorder, by the rules of {title}."]
    if changed:
        what.append("Those rules change the position at once: MAP shows it as it is now.")
    else:
        what.append("Its units take the rules' defaults at each deadline, and nobody waits for its orders.")
    what.append(f"{power} is never played again." if permanent else "Its player is back as soon as they order again.")
    queue_announcement(ctx.session, game, f"{power} in civil disorder", " ".join(what), gm_address=ctx.gm_address,
                       now=utcnow())
    ctx.audit("civil disorder", {"power": power, "permanent": permanent})
    ctx.accept(line, f"{power} is in civil disorder{' for good' if permanent else ''}; its orders on file are "
                     "withdrawn; every player is told")
