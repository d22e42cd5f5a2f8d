"""START: start a forming game now, with the powers taken so far."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from gm.games import CurrentPhase, GameError, masters
from gm.i18n import _
from gm.lifecycle.ending import start_now
from gm.lifecycle.phase_names import phase_name
from gm.mail.commands import Context, reason
from gm.mail.outgoing.game_mail import queue_start
from gm.store.models import Game, utcnow

NAME = "START"
USAGE = "START"
HELP = _("start a forming game now, with the powers taken so far")


def start_game(session: Session, game: Game, *, gm_address: str, now: datetime) -> tuple[CurrentPhase, int]:
    """A forming game starts now, and every player and GM gets the start mail (also `gm game
    start`); raises GameError. Returns the first phase and the mails queued."""
    phase = start_now(session, game, now)
    return phase, queue_start(session, game, gm_address=gm_address, gm_addresses=masters(session, game), now=now)


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if args:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    try:
        phase, _mails = start_game(ctx.session, ctx.game, gm_address=ctx.gm_address, now=utcnow())
    except GameError as e:
        ctx.reject(line, reason(e))
        return
    ctx.lookups.forget()
    ctx.audit("start", {"phase": phase.row.label})
    ctx.accept(line, _("{game} starts with {phase}; every player gets the start mail", game=ctx.game.name,
                       phase=phase_name(phase.row.label)))
