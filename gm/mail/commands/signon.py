"""SIGNON <power> <game> <password>: act for a power in a game for the rest of this mail."""
from __future__ import annotations

from gm.engine.parse import resolve_power
from gm.games import variant_of
from gm.mail.auth import CHECKS_PER_MAIL, check_password, report_failures
from gm.mail.commands import NO_SUCH_GAME, Context, masked

NAME = "SIGNON"
USAGE = "SIGNON <power> <game> <password>   (also njudge's SIGNON <letter><game> <password>)"
HELP = "sign on to a game as a power; the lines after it act for that power"
TAKES_PASSWORD = True


def run(ctx: Context, args: list[str], line: str) -> None:
    # Whatever this line signs on to, the lines after it must not act for an earlier sign-on.
    ctx.player = ctx.game = None
    shown = masked(line)
    if len(args) < 2:
        ctx.refuse_sign_on(shown, f"usage: {USAGE}")
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
        ctx.refuse_sign_on(shown, NO_SUCH_GAME)
        return
    if power is None:
        ctx.refuse_sign_on(shown, f"{game.name} has no such power")
        return
    if ctx.password_checks >= CHECKS_PER_MAIL:
        ctx.refuse_sign_on(shown, f"at most {CHECKS_PER_MAIL} sign-ons are read in one mail")
        return
    ctx.password_checks += 1
    player = ctx.lookups.player(game, power)
    why = check_password(ctx.lookups.auth_failures, ctx.verifier, ctx.message.sender, game, power, player, password)
    if why is not None or player is None:
        ctx.refuse_sign_on(shown, why or f"wrong password for {power} in {game.name}")
        return
    ctx.sign_on(player, game)
    ctx.accept(shown, f"signed on as {power} in {game.name}")
    warning = report_failures(ctx.session, ctx.lookups.auth_failures, player)
    if warning:
        ctx.sections.append(("Warning", warning))


def _power_by_letter(game, code: str) -> str | None:  # type: ignore[no-untyped-def]
    names = [p for p in variant_of(game).great_powers if p[:1].upper() == code.upper()]
    return names[0] if len(names) == 1 else None
