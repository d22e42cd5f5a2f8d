"""JOIN <game> <power> <password>: take a power in a game that is forming."""
from __future__ import annotations

from gm.engine.parse import resolve_power
from gm.games import active_players, start_game, variant_of
from gm.mail.commands import Context, masked
from gm.store.models import AuditEntry, GameStatus, Player

NAME = "JOIN"
USAGE = "JOIN <game> <power> <password>"
HELP = "take a power in a game that is forming; the password protects your orders"
TAKES_PASSWORD = True
# The game option that lets one address play several powers of a game (off unless the GM sets it).
SEVERAL_POWERS = "several_powers_per_address"


def run(ctx: Context, args: list[str], line: str) -> None:
    shown = masked(line)
    if len(args) < 3:
        ctx.reject(shown, f"usage: {USAGE}")
        return
    game = ctx.lookups.game(args[0])
    if game is None:
        ctx.reject(shown, f"there is no game called {args[0]!r}")
        return
    if game.status != GameStatus.FORMING:
        ctx.reject(shown, f"{game.name} is not taking new players")
        return
    variant = variant_of(game)
    power = resolve_power(variant, " ".join(args[1:-1]))
    if power is None or power not in variant.great_powers:
        ctx.reject(shown, f"{game.name} ({variant.title}) has no power {' '.join(args[1:-1])!r}")
        return
    players = active_players(ctx.session, game)
    if any(p.power == power for p in players):
        ctx.reject(shown, f"{power} is taken in {game.name}")
        return
    mine = [p.power for p in players if p.email == ctx.message.sender]
    if mine and not (game.options or {}).get(SEVERAL_POWERS):
        ctx.reject(shown, f"this address plays {mine[0]} in {game.name} already: one address plays one power")
        return
    password_hash = ctx.new_password_hash(shown, args[-1])
    if password_hash is None:
        return
    player = Player(game_id=game.id, power=power, email=ctx.message.sender, password_hash=password_hash)
    ctx.session.add(player)
    ctx.session.flush()
    ctx.session.add(AuditEntry(game_id=game.id, actor=ctx.message.sender, action="join", detail={"power": power}))
    ctx.player, ctx.game, ctx.changed = player, game, True
    ctx.lookups.forget()  # a new player, and perhaps (below) a game under way
    taken = len(players) + 1
    if taken == len(variant.great_powers):
        phase = start_game(ctx.session, game)
        ctx.accept(shown, f"you play {power} in {game.name}; every power is taken: the game starts with {phase.row.label}")
    else:
        ctx.accept(shown, f"you play {power} in {game.name} ({taken} of {len(variant.great_powers)} powers taken)")
