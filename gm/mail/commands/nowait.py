"""NOWAIT: take back WAIT; the phase may end as soon as every power's orders are in."""
from __future__ import annotations

from gm.i18n import _
from gm.mail.commands import Context
from gm.mail.commands.wait import set_waiting

NAME = "NOWAIT"
ALIASES = ("SET NOWAIT",)  # njudge's spelling
USAGE = "NOWAIT"
HELP = _("take back WAIT: the phase may end as soon as all orders are in (njudge's SET NOWAIT too)")


def run(ctx: Context, args: list[str], line: str) -> None:
    set_waiting(ctx, line, False)
