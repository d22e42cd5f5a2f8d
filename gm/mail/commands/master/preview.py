"""PREVIEW: adjudicate the current phase without keeping anything; the would-be results go to the
GMs only."""
from __future__ import annotations

from gm.games import GameError, masters
from gm.lifecycle import phases
from gm.lifecycle.timing import under_way
from gm.mail.commands import Context
from gm.mail.commands.master import OPERATOR
from gm.mail.outgoing.game_mail import preview_mail, queue_preview
from gm.store.models import utcnow

NAME = "PREVIEW"
USAGE = "PREVIEW"
HELP = "adjudicate the current phase without keeping anything: the would-be results go to the GM only"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if args:
        ctx.reject(line, f"usage: {USAGE}")
        return
    game, session = ctx.game, ctx.session
    try:
        label = under_way(session, game).row.label
    except GameError as e:
        ctx.reject(line, str(e))
        return
    now = utcnow()
    # What PROCESS would do, in a savepoint that is then rolled back: the results are read, and
    # the game, its orders and the outbox are as they were.
    trial = session.begin_nested()
    try:
        ended = phases.end_phase(session, game, now, players=phases.players_by_power(session, game))
        subject, text = preview_mail(session, game, label, ended)
    finally:
        trial.rollback()
        ctx.lookups.forget()
    to = masters(session, game)
    queue_preview(session, game, subject, text, gm_address=ctx.gm_address, now=now)
    ctx.audit("preview", {"phase": label})
    if ctx.message.sender == OPERATOR:  # on the command line: shown there too
        ctx.add_section(f"Preview of {label} in {game.name} (nothing kept)", text)
    where = f"mailed to {', '.join(to)} only" if to else "mailed to nobody (the game has no GM address)"
    ctx.accept(line, f"the would-be results of {label} are {where}; nothing was kept: the game is still in {label}")
