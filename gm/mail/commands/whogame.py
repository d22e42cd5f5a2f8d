"""WHOGAME [game] (or WHOIS): who plays which power in a game, with their addresses; in an
anonymous game (SET OPTION anonymous yes) only which powers are taken. The game's GM always sees
the addresses."""
from __future__ import annotations

from gm.games import active_players, masters, variant_of
from gm.i18n import _, _p
from gm.lifecycle.overview import status_word
from gm.mail.commands import NO_SUCH_GAME, Context, Lines
from gm.store.models import Game

NAME = "WHOGAME"
ALIASES = ("WHOIS",)
USAGE = "WHOGAME <game>   (or WHOIS <game>; after SIGNON the game may be left out)"
HELP = _("who plays which power in a game (only which powers are taken, in an anonymous game)")
ANONYMOUS = "anonymous"  # the game option: WHOGAME shows no player's address


def anonymous(game: Game) -> bool:
    return bool((game.options or {}).get(ANONYMOUS))


def game_asked(ctx: Context, args: list[str], line: str, name: str, usage: str) -> Game | None:
    """The game a `name [game]` line asks about (WHOGAME, INFO): the one named, else the one the
    mail signed on to; None, the line refused, if there is none."""
    if len(args) > 1:
        ctx.reject(line, _("usage: {usage}", usage=usage))
        return None
    if not args:
        if ctx.game is None:
            ctx.reject(line, _("which game? usage: {usage}", usage=usage))
        return ctx.game
    game = ctx.lookups.game(args[0])
    if game is None:
        ctx.reject(line, NO_SUCH_GAME)
        if ctx.player is None and ctx.master is None:  # a sender signed on to nothing sees no line's fate
            ctx.add_section(name, NO_SUCH_GAME)
    return game


def run(ctx: Context, args: list[str], line: str) -> None:
    game = game_asked(ctx, args, line, NAME, USAGE)
    if game is None:
        return
    as_gm = ctx.master is not None and ctx.game is not None and ctx.game.id == game.id
    hidden = anonymous(game) and not as_gm
    variant = variant_of(game)
    players: dict[str, list[str]] = {}
    disorder: set[str] = set()
    for p in active_players(ctx.session, game):
        if p.power is not None:
            players.setdefault(p.power, []).append(p.email)
            if p.civil_disorder:
                disorder.add(p.power)
    width = max(len(p) for p in variant.great_powers)
    status = status_word(game.status)
    lines: list[object] = [
        _("{game}: {variant}, {status} (an anonymous game)", game=game.name, variant=variant.title, status=status)
        if anonymous(game) else _("{game}: {variant}, {status}", game=game.name, variant=variant.title, status=status)]
    for power in variant.great_powers:
        if power not in players:
            who = _p("a power", "open") if game.status == "forming" else _("nobody plays it")
        elif hidden:
            who = _p("a power", "taken")
        else:
            who = ", ".join(players[power])
        if power in disorder:
            # TRANSLATORS: {who} is who plays a power (addresses, or 'taken'), e.g. 'taken (civil disorder)'
            who = _("{who} (civil disorder)", who=who)
        lines.append(Lines([f"  {power + ':':<{width + 1}} ", who], ""))
    gms = masters(ctx.session, game)
    lines.append(_("GM: {addresses}", addresses=", ".join(gms)) if gms else _("GM: none"))
    if hidden:
        lines.append(_("Players' addresses are not shown in an anonymous game."))
    ctx.add_section(_("Who plays {game}", game=game.name), Lines(lines))
    ctx.accept(line, _("see below"))
