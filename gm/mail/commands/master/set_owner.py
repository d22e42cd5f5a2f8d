"""SET OWNER <centre> <power>|NONE: give a supply centre to a power (NONE: to nobody)."""
from __future__ import annotations

from gm.i18n import _
from gm.lifecycle.edits import set_owner
from gm.mail.commands import Context
from gm.mail.commands.master.set_unit import run_edit

NAME = "SET OWNER"
USAGE = "SET OWNER <centre> <power>|NONE"
HELP = _("give a supply centre to a power (NONE: to nobody)")


def run(ctx: Context, args: list[str], line: str) -> None:
    run_edit(ctx, args, line, "set owner", set_owner)
