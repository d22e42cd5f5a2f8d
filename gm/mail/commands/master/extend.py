"""EXTEND <duration>: put the current deadline off by <duration> (24h, 2d, 1d12h). The GM gives the
phase more time: it runs to the new deadline even once every order is in (PROCESS ends it sooner)."""
from __future__ import annotations

from gm.games import GameError
from gm.i18n import _
from gm.lifecycle.house_rules import HouseRuleError, parse_duration, rules_of, show
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.timing import HELD, extend
from gm.mail.commands import Context, reason
from gm.mail.commands.master.set_deadline import announce_deadline
from gm.store.models import utcnow
from gm.view.results import moment_text

NAME = "EXTEND"
USAGE = "EXTEND <duration>"
HELP = _("put the current deadline off by <duration> (24h, 2d, 1d12h): the phase runs to it even with every order "
         "in")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if not args:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    game, now = ctx.game, utcnow()
    try:
        by = parse_duration(" ".join(args), "EXTEND")
        current = extend(ctx.session, game, by, now)
    except (GameError, HouseRuleError) as e:
        ctx.reject(line, reason(e))
        return
    announce_deadline(ctx, _("The GM put it off by {duration}: the phase now ends at the new deadline even if every "
                             "order is in.", duration=show(by)), now)
    ctx.audit("extend", {"phase": current.row.label, "by": show(by), "deadline": game.deadline_at.isoformat(),
                         "held": True})
    zone = rules_of(game.options).timezone
    deadline = moment_text(game.deadline_at, zone)
    if game.paused_at is not None:
        ctx.accept(line, _("the deadline of {phase} is {deadline} (the game is paused: RESUME moves it on by the time "
                           "paused); {held}; every player is told", phase=phase_name(current.row.label),
                           deadline=deadline, held=HELD))
    else:
        ctx.accept(line, _("the deadline of {phase} is {deadline}; {held}; every player is told",
                           phase=phase_name(current.row.label), deadline=deadline, held=HELD))
