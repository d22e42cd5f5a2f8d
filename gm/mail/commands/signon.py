"""SIGNON <power> <game> <password>: act for a power in a game for the rest of this mail."""
from __future__ import annotations

from gm.engine.parse import resolve_power
from gm.games import variant_of
from gm.mail.commands import Context

NAME = "SIGNON"
USAGE = "SIGNON <power> <game> <password>   (also njudge's SIGNON <letter><game> <password>)"
HELP = "sign on to a game as a power; the lines after it act for that power"

# Bad passwords from one sender allowed in commands.AUTH_FAILURE_WINDOW before the judge stops checking.
MAX_FAILURES = 5


def masked(args: list[str]) -> str:
    return " ".join([NAME, *args[:-1], "********"]) if args else NAME


def run(ctx: Context, args: list[str], line: str) -> None:
    shown = masked(args)
    if len(args) < 2:
        ctx.reject(shown, f"usage: {USAGE}")
        return
    password = args[-1]
    if len(args) == 2:  # njudge: 'SIGNON Fgame password'
        code, game_name = args[0][:1], args[0][1:]
        game = ctx.lookups.game(game_name) if game_name else None
        power = _power_by_letter(game, code) if game else None
    else:
        game_name = args[-2]
        game = ctx.lookups.game(game_name)
        power = resolve_power(variant_of(game), " ".join(args[:-2])) if game else None
    if game is None:
        ctx.reject(shown, f"there is no game called {game_name!r}")
        return
    if power is None:
        ctx.reject(shown, f"{game.name} has no such power")
        return
    sender = ctx.message.sender
    if ctx.lookups.auth_failures(sender) >= MAX_FAILURES:
        ctx.reject(shown, "too many wrong passwords from this address: try again in 15 minutes")
        return
    player = ctx.lookups.player(game, power)
    if player is None or not ctx.verifier.check(player.password_hash, password):
        ctx.lookups.add_auth_failure(sender)
        ctx.reject(shown, f"wrong password for {power} in {game.name}")
        return
    ctx.player, ctx.game = player, game
    ctx.accept(shown, f"signed on as {power} in {game.name}")


def _power_by_letter(game, code: str) -> str | None:  # type: ignore[no-untyped-def]
    names = [p for p in variant_of(game).great_powers if p[:1].upper() == code.upper()]
    return names[0] if len(names) == 1 else None
