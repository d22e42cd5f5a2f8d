"""SIGNOFF: the end of the commands; the rest of the mail is not read."""
from __future__ import annotations

from gm.i18n import _
from gm.mail.commands import Context

NAME = "SIGNOFF"
USAGE = "SIGNOFF"
HELP = _("end of commands: the rest of the mail is ignored")


def run(ctx: Context, args: list[str], line: str) -> None:
    ctx.signed_off = True
    ctx.accept(line, _("the rest of this mail is ignored"))
