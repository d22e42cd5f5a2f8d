"""AUDIT [count]: the game's audit log, newest last: who did what and when (the GM's commands, the
players' joins and changes, each adjudication). Passwords never appear in it."""
from __future__ import annotations

from gm.lifecycle.audit_log import DEFAULT_COUNT, audit_text
from gm.mail.commands import Context

NAME = "AUDIT"
USAGE = "AUDIT [count]   (e.g. AUDIT, AUDIT 50)"
HELP = f"the game's audit log, newest last: the newest {DEFAULT_COUNT} entries, or as many as you ask for"
MAX_COUNT = 10000


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    count = None
    if args:
        if len(args) > 1 or not args[0].isdigit() or not 0 < int(args[0]) <= MAX_COUNT:
            ctx.reject(line, f"usage: {USAGE}; the count is a number from 1 to {MAX_COUNT}")
            return
        count = int(args[0])
    ctx.add_section(f"Audit log of {ctx.game.name}", audit_text(ctx.session, ctx.game, count))
    ctx.accept(line, "see below")
