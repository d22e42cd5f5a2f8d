"""SET ADDRESS <address>: where the judge sends your power's mail from now on."""
from __future__ import annotations

from email.utils import parseaddr

from gm.mail.commands import Context
from gm.store.models import AuditEntry

NAME = "SET ADDRESS"
USAGE = "SET ADDRESS <mail address>"
HELP = "change the address results are sent to (after SIGNON)"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    address = parseaddr(" ".join(args))[1].strip().lower()
    if "@" not in address or " " in address or address.startswith("@") or address.endswith("@"):
        ctx.reject(line, f"usage: {USAGE}")
        return
    old = ctx.player.email
    ctx.player.email = address
    ctx.session.add(AuditEntry(game_id=ctx.player.game_id, actor=ctx.message.sender, action="set address",
                               detail={"power": ctx.player.power, "from": old, "to": address}))
    ctx.changed = True
    ctx.accept(line, f"mail for {ctx.player.power} now goes to {address}")
