"""REMOVE UNIT <location>: take the unit at <location> off the board."""
from __future__ import annotations

from gm.i18n import _
from gm.lifecycle.edits import remove_unit
from gm.mail.commands import Context
from gm.mail.commands.master.set_unit import run_edit

NAME = "REMOVE UNIT"
USAGE = "REMOVE UNIT <location>"
HELP = _("take the unit at <location> off the board (REMOVE UNIT DISLODGED <location>: the unit dislodged from there)")


def run(ctx: Context, args: list[str], line: str) -> None:
    run_edit(ctx, args, line, "remove unit", remove_unit)
