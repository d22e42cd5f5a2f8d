"""SET NMR DEFAULTS|WAIT: missing orders at the end of grace: the rules' defaults, or wait for them."""
from __future__ import annotations

from gm.i18n import _
from gm.mail.commands import Context
from gm.mail.commands.master.set_option import change_house_rules

NAME = "SET NMR"
USAGE = "SET NMR DEFAULTS|WAIT"
HELP = _("missing orders at the end of grace: the rules' defaults, or wait for them")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if len(args) != 1:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    change_house_rules(ctx, line, "set nmr", {"nmr": args[0].lower()})
