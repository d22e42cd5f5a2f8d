"""LIST [game]: the games on this judge, or one game in more detail; to the game's GM signed on,
with every order and secret allocation on file."""
from __future__ import annotations

from sqlalchemy import select

from gm.games import active_players, variant_of
from gm.i18n import _
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.overview import failing_mail, orders_on_file, status_word
from gm.mail.commands import Context, Lines
from gm.store.models import Game

NAME = "LIST"
USAGE = "LIST [game]"
HELP = _("list the games, or show one game: variant, powers taken, current phase")


def run(ctx: Context, args: list[str], line: str) -> None:
    if args:
        game = ctx.lookups.game(args[0])
        if game is None:
            ctx.reject(line, _("there is no game called {game}", game=repr(args[0])))
            return
        variant = variant_of(game)
        taken = {p.power for p in active_players(ctx.session, game)}
        phase = ctx.lookups.phase(game)
        lines: list[object] = [_("{game}: {variant}, {status}", game=game.name, variant=variant.title,
                                 status=status_word(game.status))]
        if phase is not None:
            lines.append(_("phase: {phase}", phase=phase_name(phase.row.label)))
        lines += [Lines(["  ", _("{power}: taken", power=p) if p in taken else _("{power}: open", power=p)], "")
                  for p in variant.great_powers]
        if ctx.master is not None and ctx.game is not None and ctx.game.id == game.id:  # the GM's eyes only
            lines += [Lines(["  ", failing], "") for failing in failing_mail(ctx.session, game)]
            lines += orders_on_file(ctx.session, game, phase, on_file=ctx.lookups.on_file)
        ctx.add_section(_("Game {game}", game=game.name), Lines(lines))
    else:
        games = ctx.session.scalars(select(Game).order_by(Game.name)).all()
        text = Lines(_("{game}: {variant}, {status}", game=g.name, variant=variant_of(g).title,
                       status=status_word(g.status)) for g in games) if games else _("no games yet")
        ctx.add_section(_("Games"), text)
    ctx.accept(line, _("see below"))

