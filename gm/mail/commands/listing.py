"""LIST [game]: the games on this judge, or one game in more detail."""
from __future__ import annotations

from sqlalchemy import select

from gm.games import active_players, variant_of
from gm.mail.commands import Context
from gm.store.models import Game

NAME = "LIST"
USAGE = "LIST [game]"
HELP = "list the games, or show one game: variant, powers taken, current phase"


def run(ctx: Context, args: list[str], line: str) -> None:
    if args:
        game = ctx.lookups.game(args[0])
        if game is None:
            ctx.reject(line, f"there is no game called {args[0]!r}")
            return
        variant = variant_of(game)
        taken = {p.power for p in active_players(ctx.session, game)}
        phase = ctx.lookups.phase(game)
        lines = [f"{game.name}: {variant.title}, {game.status}"]
        if phase is not None:
            lines.append(f"phase: {phase.row.label}")
        lines += [f"  {p}: {'taken' if p in taken else 'open'}" for p in variant.great_powers]
        ctx.add_section(f"Game {game.name}", "\n".join(lines))
    else:
        games = ctx.session.scalars(select(Game).order_by(Game.name)).all()
        text = "\n".join(f"{g.name}: {variant_of(g).title}, {g.status}" for g in games) or "no games yet"
        ctx.add_section("Games", text)
    ctx.accept(line, "see below")
