"""CREATE <game> <variant> <password>: make a game and become its GM, with that GM password
(addresses the judge trusts only)."""
from __future__ import annotations

from gm.games import GameError, add_master, create_game
from gm.lifecycle.house_rules import OPTION_KEY, rules_of
from gm.mail.commands import Context, masked
from gm.variants import VariantError

NAME = "CREATE"
USAGE = "CREATE <game> <variant> <password>"
HELP = "make a game and become its GM, with that GM password (addresses the judge trusts only)"
TAKES_PASSWORD = True
NEW_PASSWORD = True  # its password is hashed before the mail's transaction (see gm.mail.ingest)


def run(ctx: Context, args: list[str], line: str) -> None:
    shown = masked(line)
    sender = ctx.message.sender.lower()
    # Refused as a failed sign-on: a sender who signed on to nothing is told why in the fixed notice.
    if sender not in ctx.trusted_masters:
        ctx.refuse_sign_on(shown, "this address may not create games: the judge's operator lists the addresses "
                                  "that may (trusted_masters)")
        return
    if len(args) != 3:
        ctx.refuse_sign_on(shown, f"usage: {USAGE}")
        return
    name, variant, password = args
    password_hash = ctx.new_password_hash(shown, password)
    if password_hash is None:  # too many new passwords: the line is rejected saying so
        ctx.sign_on_problems.append(ctx.results[-1].detail)
        return
    try:
        game = create_game(ctx.session, name, variant, actor=sender)  # refuses before it adds anything
    except (GameError, VariantError) as e:
        ctx.refuse_sign_on(shown, str(e))
        return
    game.options = {OPTION_KEY: rules_of(None).to_options(), "map_palette": "rulebook"}
    master = add_master(ctx.session, game, sender, password_hash, actor=sender)
    ctx.lookups.forget()
    ctx.sign_on_master(master, game)
    ctx.audit("create", {"variant": game.variant})
    ctx.accept(shown, f"game {game.name} ({game.variant}) is forming, with you as its GM: players send "
                      f"'JOIN {game.name} <power> <password>' to {ctx.gm_address}; the lines after this one are "
                      "GM commands")
