"""PRESS TO <power>[,<power>...] [GREY]  ...text...  ENDPRESS: send press to those powers: the lines
up to ENDPRESS, relayed without your address; PRESS TO GM: to the game's GM only, always allowed
(see gm.mail.outgoing.press)."""
from __future__ import annotations

from gm.mail.outgoing import press
from gm.mail.commands import Context

NAME = "PRESS"
USAGE = "PRESS TO <power>[,<power>...] [GREY]  ...text...  ENDPRESS   (or PRESS TO GM)"
HELP = ("send press to those powers: the lines up to ENDPRESS, relayed without your address; PRESS TO GM "
        "(or MASTER) reaches the GM only, with your address, whatever the game's press setting")


def run(ctx: Context, args: list[str], line: str) -> None:
    ctx.block = press.start(ctx, args, line, broadcast=False)
