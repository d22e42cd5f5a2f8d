"""SET DRAW [<power> <power> ...] (njudge's spelling): your power would accept this draw. With a
draw open, it is your ACCEPT DRAW of it, if it names the same powers (or none); with none open, it
proposes one, as PROPOSE DRAW does. SET NODRAW is REJECT DRAW."""
from __future__ import annotations

from gm.games import GameError, variant_of
from gm.i18n import _
from gm.lifecycle.draws import read_powers
from gm.mail.commands import Context
from gm.mail.commands.propose_draw import proposal
from gm.mail.commands.draws import between, current_draw, vote_line

NAME = "SET DRAW"
USAGE = "SET DRAW [<power> <power> ...]"
HELP = _("njudge's spelling: accept the open draw if it names the same powers, else propose one (as PROPOSE DRAW)")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    text = " ".join(args)
    draw = current_draw(ctx)
    if draw is None:
        proposal(ctx, line, text)
        return
    if text.strip():
        try:
            wanted = read_powers(variant_of(ctx.game), text)
        except GameError as e:
            ctx.reject(line, str(e))
            return
        if wanted != draw.powers:
            ctx.reject(line, _("the draw open is between {powers}, not {wanted}: ACCEPT DRAW or REJECT DRAW it first "
                               "(one rejection ends it; then SET DRAW proposes yours)", powers=between(draw),
                               wanted=", ".join(wanted)))
            return
    vote_line(ctx, line, accept=True)
