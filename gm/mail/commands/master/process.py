"""PROCESS [phase]: adjudicate the current phase now, with the orders on file. With a phase
(PROCESS S1902M, PROCESS Spring 1902), only if that is the phase under way: a mail written for a
phase that has ended since changes nothing."""
from __future__ import annotations

from datetime import datetime

from gm.games import GameError, masters, variant_of
from gm.i18n import _
from gm.lifecycle import phases
from gm.lifecycle.ending import outcome_text
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.phase_names import phase_name, read_phase
from gm.lifecycle.timing import end_rollback_pause, under_way
from gm.mail.commands import Context, Lines, reason
from gm.mail.outgoing.game_mail import queue_progress
from gm.store.models import utcnow
from gm.view.results import moment_text

NAME = "PROCESS"
USAGE = "PROCESS [phase]   (PROCESS S1902M: only if Spring 1902, Movement is the phase under way)"
HELP = _("adjudicate the current phase now, with the orders on file; with a phase, only if it is the one under way")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    variant = variant_of(ctx.game)
    named = read_phase(variant, " ".join(args)) if args else None
    if args and named is None:
        ctx.reject(line, _("{phase} is no phase: usage: {usage}", phase=repr(" ".join(args)), usage=USAGE))
        return
    try:
        current = under_way(ctx.session, ctx.game)
    except GameError as e:
        ctx.reject(line, reason(e))
        return
    if named is not None and variant.phase_label(named) != current.row.label:
        ctx.reject(line, _("{phase} is not the phase under way: {game} is in {current}; nothing was processed",
                           phase=phase_name(variant.phase_label(named)), game=ctx.game.name,
                           current=phase_name(current.row.label)))
        return
    now = utcnow()
    progress = process(ctx, now)
    # After a rollback the game went on as the players were told: the next phase with a fresh deadline.
    resumed = end_rollback_pause(ctx.game)
    labels = [end.row.label for end in progress.ended]
    ctx.audit("process", {"phases": labels, **({"resumed": True} if resumed else {})})
    ctx.accept(line, _("{phases} adjudicated; the results went to every player and GM; {now}",
                       phases=Lines([phase_name(label) for label in labels], ", "), now=where_now(ctx)))


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
        return _("the game is over: {outcome}", outcome=outcome_text(game.outcome)) if game.outcome else \
            _("no phase is open")
    deadline = moment_text(game.deadline_at, rules_of(game.options).timezone)
    if game.paused_at:
        return _("now {phase}, deadline {deadline} (the game is paused: RESUME starts the clock)",
                 phase=phase_name(current.row.label), deadline=deadline)
    return _("now {phase}, deadline {deadline}", phase=phase_name(current.row.label), deadline=deadline)
