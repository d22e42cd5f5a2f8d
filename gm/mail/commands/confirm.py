"""CONFIRM <code>: carry out the JOIN, SET ADDRESS or CREATE that waits for the code the judge mailed
to its address (see gm.mail.confirm)."""
from __future__ import annotations

from gm.mail import confirm
from gm.mail.commands import Context, masked

NAME = "CONFIRM"
USAGE = "CONFIRM <code>"
HELP = "confirm with the code the judge mailed you that the address is yours (JOIN, SET ADDRESS, CREATE)"
TAKES_PASSWORD = True  # the code is as secret as a password until it is used: never shown back or stored


def run(ctx: Context, args: list[str], line: str) -> None:
    shown = masked(line)
    if not args:
        ctx.refuse_sign_on(shown, f"usage: {USAGE}")
        return
    confirm.confirm(ctx, "".join(args), shown)
