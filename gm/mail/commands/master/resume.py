"""RESUME: start the clock again; the deadline moves on by the time the game was paused."""
from __future__ import annotations

from datetime import timedelta

from gm.games import GameError
from gm.i18n import _
from gm.lifecycle.house_rules import rules_of, show
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.timing import resume
from gm.mail.commands import Context, reason
from gm.mail.commands.master.set_deadline import announce_deadline
from gm.store.models import utcnow
from gm.view.results import moment_text

NAME = "RESUME"
USAGE = "RESUME"
HELP = _("start the clock again; the deadline moves on by the time the game was paused")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if args:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    game, now = ctx.game, utcnow()
    try:
        current, stopped = resume(ctx.session, game, now)
    except GameError as e:
        ctx.reject(line, reason(e))
        return
    # A pause and RESUME in one mail (or within the minute) moved nothing worth a number.
    if stopped >= timedelta(minutes=1):
        why = _("The GM resumed the game after a pause: the deadline moved on by the time paused ({duration}).",
                duration=show(stopped))
    else:
        why = _("The GM resumed the game after a pause: the deadline stands.")
    announce_deadline(ctx, why, now, headline=_("The game runs again"))
    ctx.audit("resume", {"phase": current.row.label, "paused": stopped.total_seconds(),
                         "deadline": game.deadline_at.isoformat()})
    ctx.accept(line, _("{game} runs again; the deadline of {phase} is {deadline}; every player is told",
                       game=game.name, phase=phase_name(current.row.label),
                       deadline=moment_text(game.deadline_at, rules_of(game.options).timezone)))
