"""SET PHASE <phase>: make the current phase another one (Fall 1901, F1901M, W1901), keeping the position."""
from __future__ import annotations

from gm.i18n import _
from gm.lifecycle.edits import set_phase
from gm.mail.commands import Context
from gm.mail.commands.master.set_unit import run_edit

NAME = "SET PHASE"
USAGE = "SET PHASE <phase>"
HELP = _("make the current phase another one (Fall 1901, F1901M, W1901), keeping the position")


def run(ctx: Context, args: list[str], line: str) -> None:
    run_edit(ctx, args, line, "set phase", set_phase)
