"""REJECT DRAW (njudge: SET NODRAW): reject the draw proposed to your power; one rejection ends it."""
from __future__ import annotations

from gm.i18n import _
from gm.mail.commands import Context
from gm.mail.commands.draws import vote_line

NAME = "REJECT DRAW"
ALIASES = ("SET NODRAW",)
USAGE = "REJECT DRAW   (or SET NODRAW)"
HELP = _("reject the draw proposed to your power: one rejection ends the proposal")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    if args:
        ctx.reject(line, _("usage: {usage}", usage="REJECT DRAW (or SET NODRAW)"))
        return
    vote_line(ctx, line, accept=False)
