"""DRAW <power>,<power>,...: propose a draw among these powers; it ends the game once each has
accepted (ACCEPT DRAW). The GM may propose one whatever the house rule `draw`."""
from __future__ import annotations

from gm.games import GameError, active_players
from gm.i18n import _, _n
from gm.lifecycle.draws import propose_draw
from gm.mail.commands import Context, reason
from gm.mail.commands.draws import ask, between
from gm.mail.outgoing.game_mail import queue_announcement
from gm.store.models import utcnow

NAME = "DRAW"
USAGE = "DRAW <power>,<power>,..."
HELP = _("propose a draw among these powers; it ends the game once each has accepted (ACCEPT DRAW)")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if not args:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    game, now = ctx.game, utcnow()
    try:
        draw, replaced, voters = propose_draw(ctx.session, game, " ".join(args))
    except GameError as e:
        ctx.reject(line, reason(e))
        return
    if replaced is not None:
        dropped = [p.email for p in active_players(ctx.session, game)
                   if p.power in replaced.voters and p.power not in draw.voters]
        if dropped:
            queue_announcement(ctx.session, game, _("Draw proposal withdrawn"),
                               _("The GM has withdrawn the draw proposal you were asked to vote on."),
                               gm_address=ctx.gm_address, now=now, to=dropped)
    ask(ctx, draw, voters, ctx.phase(), again=replaced is not None)
    ctx.audit("draw", {"powers": draw.powers, "replaced": replaced.powers if replaced is not None else None})
    said = _n("a draw between {powers} is proposed; {count} players asked to ACCEPT DRAW or REJECT DRAW",
              "a draw between {powers} is proposed; {count} players asked to ACCEPT DRAW or REJECT DRAW",
              len(voters), powers=between(draw))
    if replaced is not None:
        said = _("{text} (the proposal before is withdrawn)", text=said)
    ctx.accept(line, said)
