"""WAIT: keep the current phase open until its deadline, even once every power's orders are in."""
from __future__ import annotations

from gm.i18n import _
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.house_rules import rules_of
from gm.mail.commands import Context
from gm.view.results import moment_text

NAME = "WAIT"
ALIASES = ("SET WAIT",)  # njudge's spelling
USAGE = "WAIT"
HELP = _("this phase is not to end before its deadline, even when all orders are in (NOWAIT undoes it; "
         "njudge's SET WAIT too)")


def run(ctx: Context, args: list[str], line: str) -> None:
    set_waiting(ctx, line, True)


def set_waiting(ctx: Context, line: str, waiting: bool) -> None:
    """WAIT (True) or NOWAIT (False) for the signed-on player, this phase."""
    if not ctx.signed_on(line):
        return
    phase = ctx.phase()
    if phase is None:
        ctx.reject(line, _("{game} has no phase under way", game=ctx.game.name))
        return
    ctx.player.waiting = waiting
    # The scheduler looks again: with WAIT it no longer ends the phase early; with NOWAIT and
    # every order in, it may end it at once.
    ctx.lookups.orders_changed.add(ctx.game.id)
    ctx.changed = True
    if not waiting:
        ctx.accept(line, _("{phase} may end as soon as every power's orders are in", phase=phase_name(phase.row.label)))
        return
    deadline = phase.row.deadline_at or ctx.game.deadline_at
    if deadline is None:
        ctx.accept(line, _("{phase} will not end before its deadline", phase=phase_name(phase.row.label)))
    else:
        ctx.accept(line, _("{phase} will not end before its deadline ({deadline})", phase=phase_name(phase.row.label),
                           deadline=moment_text(deadline, rules_of(ctx.game.options).timezone)))
