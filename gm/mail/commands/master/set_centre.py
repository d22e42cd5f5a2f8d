"""SET CENTRE <province> [<power>|NONE]: make a province a supply centre in this game."""
from __future__ import annotations

from gm.i18n import _
from gm.lifecycle.edits import set_centre
from gm.mail.commands import Context
from gm.mail.commands.master.set_unit import run_edit

NAME = "SET CENTRE"
USAGE = "SET CENTRE <province> [<power>|NONE]"
HELP = _("make a province a supply centre in this game, owned by a power or nobody (a board missing its rules' "
         "centres)")


def run(ctx: Context, args: list[str], line: str) -> None:
    run_edit(ctx, args, line, "set centre", set_centre)
