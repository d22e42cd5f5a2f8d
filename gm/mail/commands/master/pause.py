"""PAUSE: stop the clock: no phase ends and no reminder goes out until RESUME."""
from __future__ import annotations

from gm.games import GameError
from gm.i18n import _
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.timing import pause
from gm.mail.commands import Context, reason
from gm.mail.outgoing.game_mail import queue_announcement
from gm.store.models import utcnow

NAME = "PAUSE"
USAGE = "PAUSE"
HELP = _("stop the clock: no phase ends and no reminder goes out until RESUME")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if args:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    game, now = ctx.game, utcnow()
    try:
        current = pause(ctx.session, game, now)
    except GameError as e:
        ctx.reject(line, reason(e))
        return
    queue_announcement(ctx.session, game, _("The game is paused"),
                       _("The GM paused the game in {phase}: no phase ends and no reminder goes out until the GM "
                         "resumes it; the deadline then moves on by the time paused. Orders are still taken "
                         "meanwhile.", phase=phase_name(current.row.label)), gm_address=ctx.gm_address, now=now)
    ctx.audit("pause", {"phase": current.row.label})
    ctx.accept(line, _("{game} is paused; every player is told", game=game.name))
