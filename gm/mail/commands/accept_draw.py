"""ACCEPT DRAW: accept the draw proposed to your power (your vote is told to nobody but the GM)."""
from __future__ import annotations

from gm.i18n import _
from gm.mail.commands import Context
from gm.mail.commands.draws import vote_line

NAME = "ACCEPT DRAW"
USAGE = "ACCEPT DRAW"
HELP = _("accept the draw proposed to your power (your vote is told to nobody but the GM)")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    if args:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    vote_line(ctx, line, accept=True)
