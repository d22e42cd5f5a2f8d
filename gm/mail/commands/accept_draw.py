"""ACCEPT DRAW: accept the draw the GM proposed (your vote is told to nobody but the GM)."""
from __future__ import annotations

from gm.games import CurrentPhase, GameError, active_players, masters, variant_of
from gm.lifecycle.ending import final_position, vote
from gm.mail.commands import Context
from gm.mail.game_mail import queue_announcement
from gm.store.models import Game, utcnow

NAME = "ACCEPT DRAW"
USAGE = "ACCEPT DRAW"
HELP = "accept the draw the GM proposed (your vote is told to nobody but the GM)"


def run(ctx: Context, args: list[str], line: str) -> None:
    cast(ctx, args, line, accept=True)


def _ending(game: Game, current: CurrentPhase | None) -> str:
    return "" if current is None else "\n\n" + final_position(variant_of(game), current)


def cast(ctx: Context, args: list[str], line: str, *, accept: bool) -> None:
    """ACCEPT DRAW and REJECT DRAW: the signed-on power's vote on the draw the GM proposed."""
    if not ctx.signed_on(line):
        return
    if args:
        ctx.reject(line, f"usage: {'ACCEPT' if accept else 'REJECT'} DRAW")
        return
    game, power, now = ctx.game, ctx.player.power, utcnow()
    current = ctx.phase()  # the position the game ends in, should this vote end it
    try:
        outcome, draw = vote(ctx.session, game, power, accept, now)
    except GameError as e:
        ctx.reject(line, str(e))
        return
    between = ", ".join(draw.powers)
    gms = masters(ctx.session, game)
    if outcome == "drawn":
        ctx.lookups.forget()
        queue_announcement(ctx.session, game, "The game is drawn",
                           f"Every power named has accepted the draw the GM proposed: the game is over, "
                           f"{draw.outcome}." + _ending(game, current), gm_address=ctx.gm_address, now=now)
        said = f"you accept; every power named has accepted: {game.name} is {draw.outcome}"
    elif outcome == "accepted":
        if gms:
            queue_announcement(ctx.session, game, f"Draw vote: {power} accepts",
                               f"{power} accepts the draw between {between} ({len(draw.accepted)} of "
                               f"{len(draw.powers)} have accepted: {', '.join(draw.accepted)}).",
                               gm_address=ctx.gm_address, now=now, to=gms)
        said = f"you accept the draw between {between}; it ends the game once every power named has accepted"
    else:
        queue_announcement(ctx.session, game, "Draw rejected",
                           f"The draw the GM proposed between {between} was rejected: the game goes on.",
                           gm_address=ctx.gm_address, now=now, to=[p.email for p in active_players(ctx.session, game)])
        if gms:
            queue_announcement(ctx.session, game, f"Draw vote: {power} rejects",
                               f"{power} rejected the draw between {between}: the proposal is over, and the "
                               "players are told it failed (not by whom).", gm_address=ctx.gm_address, now=now,
                               to=gms)
        said = f"you reject the draw between {between}: the proposal is over (nobody but the GM is told who)"
    ctx.audit("accept draw" if accept else "reject draw", {"power": power, "outcome": outcome})
    ctx.accept(line, said)
