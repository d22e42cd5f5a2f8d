"""AUDIT [count]: the game's audit log, newest last: who did what and when (the GM's commands, the
players' joins and changes, each adjudication). Passwords never appear in it."""
from __future__ import annotations

from gm.i18n import _
from gm.lifecycle.audit_log import DEFAULT_COUNT, audit_text
from gm.mail.commands import Context
from gm.mail.commands.master import gm_language

NAME = "AUDIT"
USAGE = "AUDIT [count]   (e.g. AUDIT, AUDIT 50)"
HELP = _("the game's audit log, newest last: the newest {count} entries, or as many as you ask for",
         count=DEFAULT_COUNT)
MAX_COUNT = 10000


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    count = None
    if args:
        if len(args) > 1 or not args[0].isdigit() or not 0 < int(args[0]) <= MAX_COUNT:
            ctx.reject(line, _("usage: {usage}; the count is a number from 1 to {most}", usage=USAGE, most=MAX_COUNT))
            return
        count = int(args[0])
    ctx.add_section(_("Audit log of {game}", game=ctx.game.name),
                    audit_text(ctx.session, ctx.game, count, language=gm_language(ctx)))
    ctx.accept(line, _("see below"))
