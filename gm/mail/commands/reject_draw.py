"""REJECT DRAW: reject the draw the GM proposed."""
from __future__ import annotations

from gm.mail.commands import Context
from gm.mail.commands.accept_draw import cast

NAME = "REJECT DRAW"
USAGE = "REJECT DRAW"
HELP = "reject the draw the GM proposed"


def run(ctx: Context, args: list[str], line: str) -> None:
    cast(ctx, args, line, accept=False)
