"""PROCESS [phase]: adjudicate the current phase now, with the orders on file. With a phase
(PROCESS S1902M, PROCESS Spring 1902), only if that is the phase under way: a mail written for a
phase that has ended since changes nothing."""
from __future__ import annotations

from datetime import datetime

from gm.games import GameError, masters, variant_of
from gm.lifecycle import phases
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.phase_names import read_phase
from gm.lifecycle.timing import end_rollback_pause, under_way
from gm.mail.commands import Context
from gm.mail.outgoing.game_mail import deadline_text, queue_progress
from gm.store.models import utcnow

NAME = "PROCESS"
USAGE = "PROCESS [phase]   (PROCESS S1902M: only if Spring 1902, Movement is the phase under way)"
HELP = "adjudicate the current phase now, with the orders on file; with a phase, only if it is the one under way"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    variant = variant_of(ctx.game)
    named = read_phase(variant, " ".join(args)) if args else None
    if args and named is None:
        ctx.reject(line, f"{' '.join(args)!r} is no phase: usage: {USAGE}")
        return
    try:
        current = under_way(ctx.session, ctx.game)
    except GameError as e:
        ctx.reject(line, str(e))
        return
    if named is not None and variant.phase_label(named) != current.row.label:
        ctx.reject(line, f"{variant.phase_label(named)} is not the phase under way: {ctx.game.name} is in "
                         f"{current.row.label}; nothing was processed")
        return
    now = utcnow()
    progress = process(ctx, now)
    # After a rollback the game went on as the players were told: the next phase with a fresh deadline.
    resumed = end_rollback_pause(ctx.game)
    labels = [end.row.label for end in progress.ended]
    ctx.audit("process", {"phases": labels, **({"resumed": True} if resumed else {})})
    ctx.accept(line, f"{', '.join(labels)} adjudicated; the results went to every player and GM; "
                     f"{where_now(ctx)}")


def process(ctx: Context, now: datetime) -> phases.Progress:
    """What the scheduler does at a deadline, now: the current phase adjudicated with the orders on
    file (and the phases after it with nothing to decide), the results mailed."""
    game = ctx.game
    players = phases.players_by_power(ctx.session, game)
    progress = phases.Progress(ended=phases.end_phase(ctx.session, game, now, players=players), players=players)
    queue_progress(ctx.session, game, progress, gm_address=ctx.gm_address, gm_addresses=masters(ctx.session, game),
                   now=now, public_url=ctx.public_url)
    ctx.lookups.forget()
    return progress


def where_now(ctx: Context) -> str:
    """'now Fall 1901, Movement, deadline ...', or how the game ended."""
    game = ctx.game
    current = ctx.phase()
    if current is None:
        return f"the game is over: {game.outcome}" if game.outcome else "no phase is open"
    paused = " (the game is paused: RESUME starts the clock)" if game.paused_at else ""
    deadline = deadline_text(game.deadline_at, rules_of(game.options).timezone)
    return f"now {current.row.label}, deadline {deadline}{paused}"
