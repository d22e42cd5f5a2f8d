"""PROPOSE DRAW [<power> <power> ...]: propose a draw, where the house rule `draw` lets players do
so (dias: between every surviving power, naming none; named: between the powers named, every
surviving power voting). Proposing counts as accepting; the proposal lapses at the end of the phase."""
from __future__ import annotations

from gm.games import GameError
from gm.lifecycle.draws import propose
from gm.mail.commands import Context
from gm.mail.commands.draws import ask, between, drawn, public
from gm.store.models import utcnow

NAME = "PROPOSE DRAW"
USAGE = "PROPOSE DRAW [<power> <power> ...]"
HELP = ("propose a draw (where the house rules let players): between every surviving power, or, where draws "
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
        ctx.accept(line, f"no other power votes: {ctx.game.name} is {draw.outcome}")
        return
    asked = ask(ctx, draw, voters, current)
    lapse = f"; it lapses at the end of {current.row.label}" if current is not None else ""
    ctx.accept(line, f"you propose a draw between {between(draw)} and accept it; {asked} other "
                     f"{'power is' if asked == 1 else 'powers are'} asked to ACCEPT DRAW or REJECT DRAW "
                     f"({'they are told' if public(ctx) else 'nobody but the GM is told'} who proposed it){lapse}")
