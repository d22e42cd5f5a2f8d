"""SET PASSWORD <new password>: change the password of the power you signed on as (or, after
SIGNON MASTER, your own GM password)."""
from __future__ import annotations

from gm.i18n import _
from gm.mail.commands import Context, masked
from gm.store.models import AuditEntry

NAME = "SET PASSWORD"
USAGE = "SET PASSWORD <new password>"
HELP = _("change your password (after SIGNON); one change a mail")
TAKES_PASSWORD = True
NEW_PASSWORD = True  # its password is hashed before the mail's transaction (see gm.mail.ingest)


def run(ctx: Context, args: list[str], line: str) -> None:
    shown = masked(line)
    if ctx.master is None and not ctx.signed_on(shown):
        return
    if len(args) != 1:
        ctx.reject(shown, _("usage: {usage} (one word, no spaces)", usage=USAGE))
        return
    if ctx.master is not None and ctx.master.id is None:
        ctx.reject(shown, _("the command line has no GM password to change"))
        return
    password_hash = ctx.new_password_hash(shown, args[0])
    if password_hash is None:
        return
    if ctx.master is not None:  # the GM's own password: the other GMs of the game keep theirs
        ctx.master.password_hash = password_hash
        ctx.session.add(AuditEntry(game_id=ctx.master.game_id, actor=ctx.master.email, action="set password",
                                   detail={"master": ctx.master.email}))
        ctx.changed = True
        ctx.accept(shown, _("your GM password changed"))
        return
    assert ctx.player is not None
    ctx.player.password_hash = password_hash
    ctx.session.add(AuditEntry(game_id=ctx.player.game_id, actor=ctx.message.sender, action="set password",
                               detail={"power": ctx.player.power}))
    ctx.changed = True
    ctx.accept(shown, _("password changed"))
