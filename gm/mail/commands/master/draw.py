"""DRAW <power>,<power>,...: propose a draw among these powers; it ends the game once each has
accepted (ACCEPT DRAW). The GM may propose one whatever the house rule `draw`."""
from __future__ import annotations

from gm.games import GameError, active_players
from gm.lifecycle.draws import propose_draw
from gm.mail.commands import Context
from gm.mail.commands.draws import ask, between
from gm.mail.outgoing.game_mail import queue_announcement
from gm.store.models import utcnow

NAME = "DRAW"
USAGE = "DRAW <power>,<power>,..."
HELP = "propose a draw among these powers; it ends the game once each has accepted (ACCEPT DRAW)"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if not args:
        ctx.reject(line, f"usage: {USAGE}")
        return
    game, now = ctx.game, utcnow()
    try:
        draw, replaced, voters = propose_draw(ctx.session, game, " ".join(args))
    except GameError as e:
        ctx.reject(line, str(e))
        return
    if replaced is not None:
        dropped = [p.email for p in active_players(ctx.session, game)
                   if p.power in replaced.voters and p.power not in draw.voters]
        if dropped:
            queue_announcement(ctx.session, game, "Draw proposal withdrawn",
                               "The GM has withdrawn the draw proposal you were asked to vote on.",
                               gm_address=ctx.gm_address, now=now, to=dropped)
    ask(ctx, draw, voters, ctx.phase(), again=replaced is not None)
    ctx.audit("draw", {"powers": draw.powers, "replaced": replaced.powers if replaced is not None else None})
    ctx.accept(line, f"a draw between {between(draw)} is proposed; {len(voters)} players asked to ACCEPT DRAW or "
                     f"REJECT DRAW{' (the proposal before is withdrawn)' if replaced is not None else ''}")
