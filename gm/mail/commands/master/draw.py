"""DRAW <power>,<power>,...: propose a draw among these powers; it ends the game once each has
accepted (ACCEPT DRAW)."""
from __future__ import annotations

from gm.games import GameError, active_players
from gm.lifecycle.ending import propose_draw
from gm.mail.commands import Context
from gm.mail.game_mail import queue_announcement
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
    between = ", ".join(draw.powers)
    if replaced is not None:
        dropped = [p.email for p in active_players(ctx.session, game)
                   if p.power in replaced.powers and p.power not in draw.powers]
        if dropped:
            queue_announcement(ctx.session, game, "Draw proposal withdrawn",
                               "The GM has withdrawn the draw proposal you were asked to vote on.",
                               gm_address=ctx.gm_address, now=now, to=dropped)
    again = " It replaces the proposal made before: vote again." if replaced is not None else ""
    rule = ("The game ends in this draw once every power named has accepted; one rejection ends the proposal. "
            "Your vote is told to nobody but the GM; the game goes on meanwhile.")
    for power, address in voters.items():
        text = "\n".join([f"The GM proposes to end the game in a draw between {between}.{again}", "",
                          f"As {power}, answer with a mail reading", f"  SIGNON {power} {game.name} <password>",
                          "  ACCEPT DRAW", "or REJECT DRAW in its place.", "", rule])
        queue_announcement(ctx.session, game, "Draw proposed", text, gm_address=ctx.gm_address, now=now, to=[address])
    ctx.audit("draw", {"powers": draw.powers, "replaced": replaced.powers if replaced is not None else None})
    ctx.accept(line, f"a draw between {between} is proposed; {len(voters)} players asked to ACCEPT DRAW or "
                     f"REJECT DRAW{' (the proposal before is withdrawn)' if replaced is not None else ''}")

