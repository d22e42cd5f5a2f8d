"""SET HOME <power> <centre>: make a centre one of a power's home centres."""
from __future__ import annotations

from gm.i18n import _
from gm.lifecycle.edits import set_home
from gm.mail.commands import Context
from gm.mail.commands.master.set_unit import run_edit

NAME = "SET HOME"
USAGE = "SET HOME <power> <centre>"
HELP = _("make a centre one of a power's home centres")


def run(ctx: Context, args: list[str], line: str) -> None:
    run_edit(ctx, args, line, "set home", set_home)
