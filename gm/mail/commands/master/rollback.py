"""ROLLBACK [phase]: return the game to the start of a phase (default: the last adjudicated), with
the orders then on file; every player is told."""
from __future__ import annotations

from gm.games import GameError, variant_of
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.phase_names import read_phase
from gm.lifecycle.rollback import ACTION, roll_back, target
from gm.mail.commands import Context
from gm.mail.game_mail import deadline_text, queue_announcement
from gm.store.models import utcnow

NAME = "ROLLBACK"
USAGE = "ROLLBACK [phase]"
HELP = ("return the game to the start of a phase (default: the last adjudicated), with the orders then on file; "
        "every player is told")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    game, session = ctx.game, ctx.session
    variant = variant_of(game)
    phase = read_phase(variant, " ".join(args)) if args else None
    if args and phase is None:
        ctx.reject(line, f"{' '.join(args)!r} is no phase: usage: {USAGE} (ROLLBACK Fall 1901, ROLLBACK F1901M)")
        return
    now = utcnow()
    try:
        done = roll_back(session, game, target(session, game, phase), now)
    except GameError as e:
        ctx.reject(line, str(e))
        return
    ctx.lookups.forget()
    label = done.row.label
    deadline = deadline_text(done.deadline, rules_of(game.options).timezone)
    void = ", ".join(done.undone)
    queue_announcement(
        session, game, "Game rolled back by the GM",
        f"The GM has rolled the game back to the start of {label}: the results of {void} no longer stand, "
        f"and new results will replace them.\n\nThe orders that were on file for {label} stand; you may change "
        f"yours. The game is paused while the GM puts things right: it goes on when the GM processes the phase "
        f"or resumes the game (you will be told), with the deadline {deadline} moved on by the time paused.",
        gm_address=ctx.gm_address, now=now)
    ctx.audit(ACTION, {"phase": label, "undone": done.undone, "deadline": done.deadline.isoformat(),
                       "phases": done.record})
    ctx.accept(line, f"{game.name} is back at the start of {label} with the orders then on file (void: {void}); "
                     f"deadline {deadline}; paused until PROCESS or RESUME; every player and GM is told")
