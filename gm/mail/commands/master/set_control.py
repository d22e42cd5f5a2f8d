"""SET CONTROL <minor power> <power>|NONE: who controls a minor power (Napoleonic Wars)."""
from __future__ import annotations

from gm.i18n import _
from gm.lifecycle.edits import set_control
from gm.mail.commands import Context
from gm.mail.commands.master.set_unit import run_edit

NAME = "SET CONTROL"
USAGE = "SET CONTROL <minor power> <power>|NONE"
HELP = _("give a minor power to a major power, or to nobody (Napoleonic Wars: the GM's choice the rules leave to the "
         "GM)")


def run(ctx: Context, args: list[str], line: str) -> None:
    run_edit(ctx, args, line, "set control", set_control)
