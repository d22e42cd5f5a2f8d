"""REPLACE <power> <address>: a new player for a power; their password goes to the new address only."""
from __future__ import annotations

import secrets
from email.utils import parseaddr

from email_validator import EmailNotValidError, validate_email

from gm.games import GameError, active_players, current_phase, masters, variant_of
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.players import great_power, replace
from gm.mail.commands import Context
from gm.mail.commands.join import SEVERAL_POWERS
from gm.mail.game_mail import deadline_text, queue_announcement
from gm.mail.reply import render_notice
from gm.store.models import GameStatus, utcnow
from gm.store.passwords import hash_password

NAME = "REPLACE"
USAGE = "REPLACE <power> <address>"
HELP = "a new player for a power; their password goes to the new address only"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if len(args) < 2:
        ctx.reject(line, f"usage: {USAGE}")
        return
    game = ctx.game
    written = parseaddr(args[-1])[1].strip()
    try:
        power = great_power(ctx.session, game, " ".join(args[:-1]))
        address = validate_email(written, check_deliverability=False).normalized.lower()
    except GameError as e:
        ctx.reject(line, str(e))
        return
    except EmailNotValidError as e:
        ctx.reject(line, f"{args[-1]!r} is not a mail address ({e}); usage: {USAGE}")
        return
    if address == ctx.gm_address.lower():
        ctx.reject(line, f"{address} is the judge's own address: a player needs an address of their own")
        return
    others = [p.power for p in active_players(ctx.session, game) if p.email == address and p.power != power]
    if others and not (game.options or {}).get(SEVERAL_POWERS):
        ctx.reject(line, f"{address} plays {others[0]} in {game.name}: one address plays one power "
                         f"(SET OPTION {SEVERAL_POWERS} yes allows more)")
        return
    password = secrets.token_urlsafe(9)
    now = utcnow()
    try:
        new, old = replace(ctx.session, game, power, address, hash_password(password), now)
    except GameError as e:
        ctx.reject(line, str(e))
        return
    ctx.lookups.forget()
    ctx.notify(address, f"{game.name}: you play {power}", render_notice("announcement", game=game.name,
                                                                        text=_welcome(ctx, power, password)))
    # Who played it before is told as the others are (the new address gets its password only).
    told = [*([old.email] if old else []), *(p.email for p in active_players(ctx.session, game) if p.id != new.id),
            *masters(ctx.session, game)]
    queue_announcement(ctx.session, game, f"{power} has a new player",
                       f"{power} has a new player, chosen by the GM.", gm_address=ctx.gm_address, now=now,
                       to=[a for a in told if a != address])
    ctx.audit("replace", {"power": power, "from": old.email if old else None, "to": address})
    was = f"in place of {old.email}" if old else "(nobody played it)"
    cd = "; in civil disorder for good, by the variant's rules" if new.civil_disorder else ""
    ctx.accept(line, f"{address} plays {power} {was}{cd}; the password went to {address} only, and every other "
                     "player is told")


def _welcome(ctx: Context, power: str, password: str) -> str:
    """What the new player is told: the game, the power, the password and how to sign on."""
    game = ctx.game
    variant = variant_of(game)
    lines = [f"The GM of {game.name} ({variant.title}) has made you the player of {power}.", "",
             f"Your password: {password}", "",
             f"Send your orders by mail to {ctx.gm_address}, after this line:",
             f"  SIGNON {power} {game.name} {password}",
             "SET PASSWORD <new password> changes the password; HELP lists every command."]
    current = current_phase(ctx.session, game) if game.status == GameStatus.ACTIVE else None
    if current is not None:
        deadline = deadline_text(current.row.deadline_at or game.deadline_at, rules_of(game.options).timezone)
        lines += ["", f"The game is in {current.row.label}; its deadline is {deadline}.",
                  "RESULTS and MAP (after SIGNON) show where it stands."]
    elif game.status == GameStatus.FORMING:
        lines += ["", "The game has not started yet: you get a mail when it does."]
    return "\n".join(lines)
