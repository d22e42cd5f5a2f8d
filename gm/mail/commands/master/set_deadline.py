"""SET DEADLINE <when>: move the current phase's deadline to <when> (2026-12-01 20:00, in the game's time zone)."""
from __future__ import annotations

from datetime import datetime

from gm.games import GameError, masters
from gm.i18n import _
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.timing import HELD, read_when, set_deadline
from gm.mail.commands import Context, reason
from gm.mail.outgoing.game_mail import queue_deadline_moved
from gm.store.models import utcnow
from gm.view.results import moment_text

NAME = "SET DEADLINE"
USAGE = "SET DEADLINE <when>"
HELP = _("move the current phase's deadline to <when> (2026-12-01 20:00, in the game's time zone)")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if not args:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    game, now = ctx.game, utcnow()
    rules = rules_of(game.options)
    try:
        current = set_deadline(ctx.session, game, read_when(" ".join(args), rules), now)
    except GameError as e:
        ctx.reject(line, reason(e))
        return
    held = current.row.held_to_deadline
    # A deadline the GM moved later holds the phase to it (gm.lifecycle.timing): every player is told so.
    announce_deadline(ctx, _("The GM set it: the phase now ends at the new deadline even if every order is in.")
                      if held else _("The GM set it."), now)
    ctx.audit("set deadline", {"phase": current.row.label, "deadline": game.deadline_at.isoformat(),
                               **({"held": True} if held else {})})
    deadline = moment_text(game.deadline_at, rules.timezone)
    if held:
        ctx.accept(line, _("the deadline of {phase} is {deadline}; {held}; every player is told",
                           phase=phase_name(current.row.label), deadline=deadline, held=HELD))
    else:
        ctx.accept(line, _("the deadline of {phase} is {deadline}; every player is told",
                           phase=phase_name(current.row.label), deadline=deadline))


def announce_deadline(ctx: Context, why: str, now: datetime, headline: str | None = None) -> None:
    """Every player and GM told of the current deadline, and why it moved (EXTEND, RESUME too);
    `headline` begins the subject (default: 'Deadline moved')."""
    queue_deadline_moved(ctx.session, ctx.game, why=why, gm_address=ctx.gm_address,
                         gm_addresses=masters(ctx.session, ctx.game), now=now, headline=headline)
