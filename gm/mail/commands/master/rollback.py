"""ROLLBACK [phase] [REOPEN]: return the game to the start of a phase (default: the last
adjudicated), with the orders then on file; every player is told. Undoing the end of a game that
is over (won, drawn, terminated) must be said: REOPEN."""
from __future__ import annotations

from gm.games import GameError, active_players, masters, observers, variant_of
from gm.i18n import _
from gm.lifecycle.ending import outcome_text
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.phase_names import phase_name, read_phase
from gm.lifecycle.rollback import ACTION, RolledBack, roll_back, target
from gm.mail.commands import Context, Lines, reason
from gm.mail.outgoing.game_mail import queue_announcement
from gm.store.models import utcnow
from gm.view.results import moment_text

NAME = "ROLLBACK"
USAGE = "ROLLBACK [phase] [REOPEN]   (ROLLBACK F1901M; a game that is over: ROLLBACK Fall 1901 REOPEN)"
HELP = _("return the game to the start of a phase (default: the last adjudicated), with the orders then on file; "
         "every player is told; REOPEN undoes the end of a game that is over")
REOPEN = "REOPEN"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    game, session = ctx.game, ctx.session
    reopen = bool(args) and args[-1].upper() == REOPEN
    words = args[:-1] if reopen else args
    variant = variant_of(game)
    phase = read_phase(variant, " ".join(words)) if words else None
    if words and phase is None:
        ctx.reject(line, _("{phase} is no phase: usage: {usage}", phase=repr(" ".join(words)), usage=USAGE))
        return
    now = utcnow()
    try:
        done = roll_back(session, game, target(session, game, phase), now, reopen=reopen)
    except GameError as e:
        ctx.reject(line, reason(e))
        return
    ctx.lookups.forget()
    label = phase_name(done.row.label)
    deadline = moment_text(done.deadline, rules_of(game.options).timezone)
    void = Lines([phase_name(undone) for undone in done.undone], ", ")
    # The end of a game undone is news to its observers too, who were told of the end.
    readers = [p.email for p in active_players(session, game)] + masters(session, game) + (
        observers(session, game) if done.reopened else [])
    subject = _("Game reopened by the GM") if done.reopened else _("Game rolled back by the GM")
    queue_announcement(session, game, subject, _notice(done, deadline), gm_address=ctx.gm_address, now=now, to=readers)
    ctx.audit(ACTION, {"phase": done.row.label, "undone": done.undone, "deadline": done.deadline.isoformat(),
                       "reopened": done.reopened, "phases": done.record})
    clock = _("paused until PROCESS or RESUME") if done.paused_here else \
        _("still paused (PAUSE): RESUME starts the clock")
    values = {"game": game.name, "phase": label, "void": void or _("nothing"), "deadline": deadline, "clock": clock}
    if done.reopened:
        ctx.accept(line, _("{game} is back at the start of {phase} with the orders then on file (void: {void}); its "
                           "end is undone ({outcome} no longer stands); deadline {deadline}; {clock}; every player and "
                           "GM is told", outcome=outcome_text(done.reopened), **values))
    else:
        ctx.accept(line, _("{game} is back at the start of {phase} with the orders then on file (void: {void}); "
                           "deadline {deadline}; {clock}; every player and GM is told", **values))


def _notice(done: RolledBack, deadline: str) -> str:
    """What every player is told: what no longer stands, the orders on file, and what the clock does."""
    label, undone = phase_name(done.row.label), Lines([phase_name(u) for u in done.undone], ", ")
    if done.reopened:
        text = _("The GM has undone the end of the game: \"{outcome}\" no longer stands, and the game goes on from "
                 "the start of {phase}.", outcome=outcome_text(done.reopened), phase=label)
        if done.undone:
            text = _("{text} The results of {phases} no longer stand either; new results will replace them.",
                     text=text, phases=undone)
    else:
        text = _("The GM has rolled the game back to the start of {phase}: the results of {phases} no longer stand, "
                 "and new results will replace them.", phase=label, phases=undone)
    text = _("{text}\n\nThe orders that were on file for {phase} stand; you may change yours.", text=text, phase=label)
    if done.paused_here:
        return _("{text} The game is paused while the GM puts things right. It goes on when the GM processes {phase} "
                 "(the next phase then opens with a fresh deadline) or resumes the game (the deadline {deadline} then "
                 "moves on by the time paused); you will be told.", text=text, phase=label, deadline=deadline)
    return _("{text} The game stays paused, as the GM had paused it: it goes on when the GM resumes it (you will be "
             "told), the deadline {deadline} moved on by the time paused.", text=text, deadline=deadline)
