"""SET GRACE <duration>: orders still taken this long after a deadline, marked late (0: none)."""
from __future__ import annotations

from gm.i18n import _
from gm.mail.commands import Context
from gm.mail.commands.master.set_option import change_house_rules

NAME = "SET GRACE"
USAGE = "SET GRACE <duration>"
HELP = _("orders still taken this long after a deadline, marked late (0: none)")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if not args:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    change_house_rules(ctx, line, "set grace", {"grace": " ".join(args)})
