"""JOIN <game> <power> <password>: take a power in a game that is forming."""
from __future__ import annotations

from gm.engine.parse import resolve_power
from gm.games import active_players, masters, variant_of
from gm.lifecycle.phases import start
from gm.mail.game_mail import queue_start
from gm.mail.commands import NO_SUCH_GAME, Context, masked
from gm.store.models import AuditEntry, GameStatus, Player, utcnow

NAME = "JOIN"
USAGE = "JOIN <game> <power> <password>"
HELP = "take a power in a game that is forming; the password protects your orders"
TAKES_PASSWORD = True
NEW_PASSWORD = True  # its password is hashed before the mail's transaction (see gm.mail.ingest)
# The game option that lets one address play several powers of a game (off unless the GM sets it).
SEVERAL_POWERS = "several_powers_per_address"


def run(ctx: Context, args: list[str], line: str) -> None:
    shown = masked(line)
    if len(args) < 3:
        ctx.refuse_sign_on(shown, f"usage: {USAGE}")
        return
    game = ctx.lookups.game(args[0])
    if game is None:
        ctx.refuse_sign_on(shown, NO_SUCH_GAME)
        return
    if game.status != GameStatus.FORMING:
        ctx.refuse_sign_on(shown, f"{game.name} is not taking new players")
        return
    variant = variant_of(game)
    power = resolve_power(variant, " ".join(args[1:-1]))
    if power is None or power not in variant.great_powers:
        ctx.refuse_sign_on(shown, f"{game.name} ({variant.title}) has no such power; "
                                     f"its powers are {', '.join(variant.great_powers)}")
        return
    players = active_players(ctx.session, game)
    if any(p.power == power for p in players):
        ctx.refuse_sign_on(shown, f"{power} is taken in {game.name}")
        return
    mine = [p.power for p in players if p.email == ctx.message.sender]
    if mine and not (game.options or {}).get(SEVERAL_POWERS):
        ctx.refuse_sign_on(shown, f"this address plays {mine[0]} in {game.name} already: one address plays one power")
        return
    password_hash = ctx.new_password_hash(shown, args[-1])
    if password_hash is None:
        return
    player = Player(game_id=game.id, power=power, email=ctx.message.sender, password_hash=password_hash)
    ctx.session.add(player)
    ctx.session.flush()
    ctx.session.add(AuditEntry(game_id=game.id, actor=ctx.message.sender, action="join", detail={"power": power}))
    ctx.sign_on(player, game)
    ctx.changed = True
    ctx.lookups.forget()  # a new player, and perhaps (below) a game under way
    taken = len(players) + 1
    if taken == len(variant.great_powers):
        now = utcnow()
        phase = start(ctx.session, game, now)
        # Every player is told, not only this one: power, position, house rules, first deadline.
        queue_start(ctx.session, game, gm_address=ctx.gm_address, gm_addresses=masters(ctx.session, game), now=now)
        ctx.accept(shown, f"you play {power} in {game.name}; every power is taken: the game starts with {phase.row.label}")
    else:
        ctx.accept(shown, f"you play {power} in {game.name} ({taken} of {len(variant.great_powers)} powers taken)")
