"""CREATE <game> <variant> <password>: make a game and become its GM, with that GM password
(addresses the judge trusts only). Anyone may write a trusted address on the From line: the game
is made at once when the mail is authenticated (gm.mail.intake.provenance), else once the address
confirms it with the code mailed to it (see gm.mail.commands.confirmations)."""
from __future__ import annotations

from gm.games import GAME_NAME_RULE, GameError, add_master, create_game, find_game, game_name
from gm.i18n import _, _n
from gm.lifecycle.house_rules import OPTION_KEY, rules_of
from gm.mail.intake import addresses
from gm.mail.commands import confirmations
from gm.mail.commands import Context, masked
from gm.store.models import Confirmation
from gm.variants import REGISTRY, VariantError, canonical_name, load_variant

NAME = "CREATE"
USAGE = "CREATE <game> <variant> <password>"
CONFIRMS = confirmations.CREATE  # the confirmations it carries out (gm.mail.commands.confirm)
HELP = _("make a game and become its GM, with that GM password (addresses the judge trusts only; at once in "
         "DKIM-signed mail, else once you answer the code mailed to you)")
TAKES_PASSWORD = True
NEW_PASSWORD = True  # in authenticated mail its password is hashed before the transaction (gm.mail.ingest)
PROVES_ADDRESS = True  # authenticated mail carries it out at once (see gm.mail.intake.provenance)
UNTRUSTED = _("this address may not create games: the judge's operator lists the addresses that may "
              "(trusted_masters)")


def run(ctx: Context, args: list[str], line: str) -> None:
    shown = masked(line)
    sender = ctx.message.sender.lower()
    # Refused as a failed sign-on: a sender who signed on to nothing is told why in the fixed notice.
    if sender not in ctx.trusted_masters:
        ctx.refuse_sign_on(shown, UNTRUSTED)
        return
    if len(args) != 3:
        ctx.refuse_sign_on(shown, _("usage: {usage}", usage=USAGE))
        return
    if confirmations.disowned(ctx, shown):
        return
    name, variant, password = args
    # What forged CREATEs in its name spent never refuses an authenticated one.
    why = (addresses.refusal(sender, ctx.gm_address) or _refusal(ctx, name, variant)
           or (None if ctx.authenticated else confirmations.create_refusal(ctx.session, sender)))
    if why is not None:
        ctx.refuse_sign_on(shown, why)
        return
    name, variant = game_name(name), canonical_name(variant)
    if ctx.authenticated:  # the mail proved the address: the game is made now
        password_hash = ctx.new_password_hash(shown, password, sign_on=True)
        if password_hash is None:  # too many new passwords: the line is rejected saying so
            return
        make(ctx, sender, name, variant, password_hash, shown)
        return
    if not confirmations.request(ctx, confirmations.CREATE, sender,
                                 subject=_("gm: confirm CREATE {game} {variant}", game=name, variant=variant),
                                 template="confirm_create",
                                 values={"game": name, "variant": load_variant(variant).title},
                                 password=password, detail={"name": name, "variant": variant}):
        ctx.refuse_sign_on(shown, confirmations.NOT_NOW)
        return
    ctx.accept(shown, _n("a code to confirm it was mailed to {address}: game {game} ({variant}) is made, with you as "
                         "its GM, once the code comes back (CONFIRM <code>, within {count} hour; the lines after it "
                         "in that mail are GM commands)",
                         "a code to confirm it was mailed to {address}: game {game} ({variant}) is made, with you as "
                         "its GM, once the code comes back (CONFIRM <code>, within {count} hours; the lines after it "
                         "in that mail are GM commands)",
                         confirmations.LIFETIME_HOURS, address=sender, game=name, variant=variant))


def _refusal(ctx: Context, name: str, variant: str) -> str | None:
    """Why create_game would refuse the game, or None: its own checks (the name, a game of that
    name, the variant), made in a savepoint that is undone, so that nothing is made before the
    code comes back. In the judge's own words only, never the name or variant as written: a
    refusal is told to the From address, which anyone may forge."""
    try:
        game_name(name)
        canonical_name(variant)
    except GameError:
        return GAME_NAME_RULE
    except VariantError:
        return _("there is no such variant; the variants are {variants}", variants=", ".join(sorted(REGISTRY)))
    try:
        with ctx.session.begin_nested() as trial:
            create_game(ctx.session, name, variant)
            trial.rollback()
    except (GameError, VariantError) as e:
        return _("there is already a game of that name") if find_game(ctx.session, name) is not None else str(e)
    return None


def confirmed(ctx: Context, confirmation: Confirmation, shown: str, password: str | None = None) -> bool:
    """CONFIRM of a CREATE: the game is made, forming, with the address as its GM; the lines after
    this one are GM commands. The password sealed with the request is hashed now."""
    address, detail = confirmation.address, confirmation.detail or {}
    if address not in ctx.trusted_masters:  # the operator may have taken it off the list meanwhile
        ctx.refuse_sign_on(shown, UNTRUSTED)
        return False
    password_hash = confirmations.password_hash(ctx, confirmation, shown, password)
    if password_hash is None:  # too many new passwords: the line is rejected saying so
        return False
    return make(ctx, address, detail["name"], detail["variant"], password_hash, shown)


def make(ctx: Context, address: str, name: str, variant: str, password_hash: str, shown: str) -> bool:
    """Make game `name`, forming, with `address` (proved) as its GM, signed on as it for the lines
    after this one; False (the line refused) when it cannot be made now."""
    try:
        game = create_game(ctx.session, name, variant, actor=address)
    except (GameError, VariantError) as e:  # a game of that name was made meanwhile
        ctx.refuse_sign_on(shown, str(e))
        return False
    game.options = {OPTION_KEY: rules_of(None).to_options(), "map_palette": "rulebook"}
    master = add_master(ctx.session, game, address, password_hash, actor=address)
    ctx.lookups.forget()
    ctx.sign_on_master(master, game)
    ctx.audit("create", {"variant": game.variant})
    ctx.accept(shown, _("game {game} ({variant}) is forming, with you as its GM: players send "
                        "'JOIN {game} <power> <password>' to {address}; the lines after this one are GM commands",
                        game=game.name, variant=game.variant, address=ctx.gm_address))
    return True
