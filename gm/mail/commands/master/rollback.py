"""ROLLBACK [phase] [REOPEN]: return the game to the start of a phase (default: the last
adjudicated), with the orders then on file; every player is told. Undoing the end of a game that
is over (won, drawn, terminated) must be said: REOPEN."""
from __future__ import annotations

from gm.games import GameError, active_players, masters, observers, variant_of
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.phase_names import read_phase
from gm.lifecycle.rollback import ACTION, RolledBack, roll_back, target
from gm.mail.commands import Context
from gm.mail.outgoing.game_mail import deadline_text, queue_announcement
from gm.store.models import utcnow

NAME = "ROLLBACK"
USAGE = "ROLLBACK [phase] [REOPEN]   (ROLLBACK F1901M; a game that is over: ROLLBACK Fall 1901 REOPEN)"
HELP = ("return the game to the start of a phase (default: the last adjudicated), with the orders then on file; "
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
        ctx.reject(line, f"{' '.join(words)!r} is no phase: usage: {USAGE}")
        return
    now = utcnow()
    try:
        done = roll_back(session, game, target(session, game, phase), now, reopen=reopen)
    except GameError as e:
        ctx.reject(line, str(e))
        return
    ctx.lookups.forget()
    label = done.row.label
    deadline = deadline_text(done.deadline, rules_of(game.options).timezone)
    void = ", ".join(done.undone)
    # The end of a game undone is news to its observers too, who were told of the end.
    readers = [p.email for p in active_players(session, game)] + masters(session, game) + (
        observers(session, game) if done.reopened else [])
    queue_announcement(session, game, "Game reopened by the GM" if done.reopened else "Game rolled back by the GM",
                       _notice(done, deadline), gm_address=ctx.gm_address, now=now, to=readers)
    ctx.audit(ACTION, {"phase": label, "undone": done.undone, "deadline": done.deadline.isoformat(),
                       "reopened": done.reopened, "phases": done.record})
    clock = "paused until PROCESS or RESUME" if done.paused_here else "still paused (PAUSE): RESUME starts the clock"
    ended = f"; its end is undone ({done.reopened} no longer stands)" if done.reopened else ""
    ctx.accept(line, f"{game.name} is back at the start of {label} with the orders then on file (void: "
                     f"{void or 'nothing'}){ended}; deadline {deadline}; {clock}; every player and GM is told")


def _notice(done: RolledBack, deadline: str) -> str:
    """What every player is told: what no longer stands, the orders on file, and what the clock does."""
    label = done.row.label
    if done.reopened:
        head = (f"The GM has undone the end of the game: \"{done.reopened}\" no longer stands, and the game goes on "
                f"from the start of {label}.")
        if done.undone:
            head += f" The results of {', '.join(done.undone)} no longer stand either; new results will replace them."
    else:
        head = (f"The GM has rolled the game back to the start of {label}: the results of {', '.join(done.undone)} "
                f"no longer stand, and new results will replace them.")
    orders = f"The orders that were on file for {label} stand; you may change yours."
    if done.paused_here:
        clock = (f"The game is paused while the GM puts things right. It goes on when the GM processes {label} "
                 f"(the next phase then opens with a fresh deadline) or resumes the game (the deadline {deadline} then "
                 f"moves on by the time paused); you will be told.")
    else:
        clock = (f"The game stays paused, as the GM had paused it: it goes on when the GM resumes it (you will be "
                 f"told), the deadline {deadline} moved on by the time paused.")
    return f"{head}\n\n{orders} {clock}"
