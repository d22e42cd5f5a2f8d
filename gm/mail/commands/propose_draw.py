"""PROPOSE DRAW [<power> <power> ...]: propose a draw, where the house rule `draw` lets players do
so (dias: between every surviving power, naming none; named: between the powers named, every
surviving power voting). Proposing counts as accepting; the proposal lapses at the end of the phase."""
from __future__ import annotations

from gm.games import GameError
from gm.i18n import _, _n
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.draws import propose
from gm.mail.commands import Context
from gm.mail.commands.draws import ask, between, drawn, public
from gm.store.models import utcnow

NAME = "PROPOSE DRAW"
USAGE = "PROPOSE DRAW [<power> <power> ...]"
HELP = _("propose a draw (where the house rules let players): between every surviving power, or, where draws "
         "are named, the powers you name; it counts as your ACCEPT DRAW and lapses at the end of the phase")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    proposal(ctx, line, " ".join(args))


def proposal(ctx: Context, line: str, text: str) -> None:
    """The signed-on power proposes the draw `text` names (PROPOSE DRAW, SET DRAW)."""
    power, current = ctx.player.power, ctx.phase()
    try:
        outcome, draw, voters = propose(ctx.session, ctx.game, power, text, utcnow())
    except GameError as e:
        ctx.reject(line, str(e))
        return
    ctx.audit("propose draw", {"power": power, "powers": draw.powers, "voters": draw.voters, "outcome": outcome})
    if outcome == "drawn":
        drawn(ctx, draw, current)
        ctx.accept(line, _("no other power votes: {game} is {outcome}", game=ctx.game.name, outcome=draw.outcome))
        return
    asked = ask(ctx, draw, voters, current)
    # TRANSLATORS: in brackets after a draw proposed
    secrecy = _("they are told who proposed it") if public(ctx) else _("nobody but the GM is told who proposed it")
    if current is None:
        said = _n("you propose a draw between {powers} and accept it; {count} other power is asked to ACCEPT DRAW "
                  "or REJECT DRAW ({secrecy})",
                  "you propose a draw between {powers} and accept it; {count} other powers are asked to ACCEPT DRAW "
                  "or REJECT DRAW ({secrecy})", asked, powers=between(draw), secrecy=secrecy)
    else:
        said = _n("you propose a draw between {powers} and accept it; {count} other power is asked to ACCEPT DRAW "
                  "or REJECT DRAW ({secrecy}); it lapses at the end of {phase}",
                  "you propose a draw between {powers} and accept it; {count} other powers are asked to ACCEPT DRAW "
                  "or REJECT DRAW ({secrecy}); it lapses at the end of {phase}", asked, powers=between(draw),
                  secrecy=secrecy, phase=phase_name(current.row.label))
    ctx.accept(line, said)
