"""SET ADDRESS <address>: where the judge sends your power's mail from now on."""
from __future__ import annotations

from email.utils import parseaddr

from email_validator import EmailNotValidError, validate_email

from gm.mail.commands import Context
from gm.mail.reply import render_notice
from gm.store.models import AuditEntry

NAME = "SET ADDRESS"
USAGE = "SET ADDRESS <mail address>"
HELP = "change the address results are sent to (after SIGNON)"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    written = parseaddr(" ".join(args))[1].strip()
    try:
        address = validate_email(written, check_deliverability=False).normalized.lower()
    except EmailNotValidError as e:
        ctx.reject(line, f"{written or ' '.join(args)!r} is not a mail address ({e}); usage: {USAGE}")
        return
    old = ctx.player.email
    if address == old:
        ctx.accept(line, f"mail for {ctx.player.power} goes to {address} already")
        return
    ctx.player.email = address
    ctx.session.add(AuditEntry(game_id=ctx.player.game_id, actor=ctx.message.sender, action="set address",
                               detail={"power": ctx.player.power, "from": old, "to": address}))
    ctx.changed = True
    ctx.accept(line, f"mail for {ctx.player.power} now goes to {address} (it went to {old})")
    # The old address hears of it: if the change was not its player's doing, they know at once.
    ctx.notify(old, f"{ctx.game.name}: mail for {ctx.player.power} now goes elsewhere",
               render_notice("address_changed", power=ctx.player.power, game=ctx.game.name, new=address))
