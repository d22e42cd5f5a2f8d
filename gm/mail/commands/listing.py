"""LIST [game]: the games on this judge, or one game in more detail; to the game's GM signed on,
with every order and secret allocation on file."""
from __future__ import annotations

from sqlalchemy import select

from gm.games import active_players, variant_of
from gm.lifecycle.overview import failing_mail, orders_on_file
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
        if ctx.master is not None and ctx.game is not None and ctx.game.id == game.id:  # the GM's eyes only
            lines += [f"  {line}" for line in failing_mail(ctx.session, game)]
            lines += orders_on_file(ctx.session, game, phase, on_file=ctx.lookups.on_file)
        ctx.add_section(f"Game {game.name}", "\n".join(lines))
    else:
        games = ctx.session.scalars(select(Game).order_by(Game.name)).all()
        text = "\n".join(f"{g.name}: {variant_of(g).title}, {g.status}" for g in games) or "no games yet"
        ctx.add_section("Games", text)
    ctx.accept(line, "see below")
