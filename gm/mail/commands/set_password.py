"""SET PASSWORD <new password>: change the password of the power you signed on as."""
from __future__ import annotations

from gm.mail.commands import Context
from gm.store.models import AuditEntry
from gm.store.passwords import hash_password

NAME = "SET PASSWORD"
USAGE = "SET PASSWORD <new password>"
HELP = "change your password (after SIGNON)"


def run(ctx: Context, args: list[str], line: str) -> None:
    shown = f"{NAME} ********"
    if not ctx.signed_on(shown):
        return
    if len(args) != 1:
        ctx.reject(shown, f"usage: {USAGE} (one word, no spaces)")
        return
    ctx.player.password_hash = hash_password(args[0])
    ctx.session.add(AuditEntry(game_id=ctx.player.game_id, actor=ctx.message.sender, action="set password",
                               detail={"power": ctx.player.power}))
    ctx.changed = True
    ctx.accept(shown, "password changed")
