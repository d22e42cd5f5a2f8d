"""ROLLFORWARD [phase]: after a ROLLBACK, play the phases it undid again as they were, each with
the orders then on file, up to where the game was (or to the start of the phase named); the
results go to every player and GM as after PROCESS."""
from __future__ import annotations

from gm.games import GameError, masters, variant_of
from gm.i18n import _, _n
from gm.lifecycle import phases
from gm.lifecycle.phase_names import phase_name, read_phase
from gm.lifecycle.rollforward import roll_forward
from gm.lifecycle.timing import end_rollback_pause
from gm.mail.commands import Context, Lines, reason
from gm.mail.commands.master.process import where_now
from gm.mail.commands.orders import unit_key
from gm.mail.outgoing.game_mail import queue_progress
from gm.store.models import utcnow

NAME = "ROLLFORWARD"
USAGE = "ROLLFORWARD [phase]   (after ROLLBACK: ROLLFORWARD, or ROLLFORWARD F1902M to stop at its start)"
HELP = _("after a ROLLBACK, play the phases it undid again with the orders then on file, up to where the game was "
         "(or the phase named); results to every player")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    game, session = ctx.game, ctx.session
    phase = read_phase(variant_of(game), " ".join(args)) if args else None
    if args and phase is None:
        ctx.reject(line, _("{phase} is no phase: usage: {usage}", phase=repr(" ".join(args)), usage=USAGE))
        return
    now = utcnow()
    trial = session.begin_nested()  # a refusal after part of the replay changes nothing
    try:
        done = roll_forward(session, game, phase, now, unit_key)
    except GameError as e:
        trial.rollback()
        ctx.lookups.forget()
        ctx.reject(line, reason(e))
        return
    trial.commit()
    players = phases.players_by_power(session, game)
    queue_progress(session, game, phases.Progress(ended=done.ended, players=players), gm_address=ctx.gm_address,
                   gm_addresses=masters(session, game), now=now, public_url=ctx.public_url)
    ctx.lookups.forget()
    end_rollback_pause(game)
    labels = [end.row.label for end in done.ended]
    ctx.audit("rollforward", {"phases": labels, "restored": done.restored, "unread": done.unread,
                              "stopped": done.stopped})
    said = _n("{phases} adjudicated again with the orders then on file; the results went to every player and GM; "
              "{count} orders put back on file",
              "{phases} adjudicated again with the orders then on file; the results went to every player and GM; "
              "{count} orders put back on file", done.restored,
              phases=Lines([phase_name(label) for label in labels], ", ") if labels else _("nothing"))
    if done.unread:
        said = _("{text}; left out, no longer orders there: {orders}", text=said, orders="; ".join(done.unread))
    if done.stopped:
        said = _("{text}; stopped: {why}", text=said, why=done.stopped)
    # TRANSLATORS: what the replay did, then where the game is now ('now Fall 1901, Movement, deadline ...')
    ctx.accept(line, _("{text}; {now}", text=said, now=where_now(ctx)))
