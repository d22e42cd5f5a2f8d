"""BROADCAST [GREY]  ...text...  ENDPRESS: send press to every power (see gm.mail.outgoing.press)."""
from __future__ import annotations

from gm.i18n import _
from gm.mail.outgoing import press
from gm.mail.commands import Context

NAME = "BROADCAST"
USAGE = "BROADCAST [GREY]  ...text...  ENDPRESS"
HELP = _("send press to every power")


def run(ctx: Context, args: list[str], line: str) -> None:
    ctx.block = press.start(ctx, args, line, broadcast=True)
