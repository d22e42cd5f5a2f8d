"""SIGNOFF: the end of the commands; the rest of the mail is not read."""
from __future__ import annotations

from gm.mail.commands import Context

NAME = "SIGNOFF"
USAGE = "SIGNOFF"
HELP = "end of commands: the rest of the mail is ignored"


def run(ctx: Context, args: list[str], line: str) -> None:
    ctx.signed_off = True
    ctx.accept(line, "the rest of this mail is ignored")
