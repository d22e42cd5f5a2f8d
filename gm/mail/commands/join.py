"""JOIN <game> <power> <password>: take a power in a game that is forming, once the sender's address
is proven: at once when the mail is authenticated (gm.mail.intake.provenance; a game that requires DKIM
takes no other), else by the code mailed to it (CONFIRM; see gm.mail.commands.confirmations)."""
from __future__ import annotations

from sqlalchemy import select

from gm.engine.parse import resolve_power
from gm.games import active_players, masters, variant_of
from gm.i18n import _, _n
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.phases import start
from gm.mail.intake import addresses
from gm.mail.commands import confirmations
from gm.mail.commands import NO_SUCH_GAME, Context, masked
from gm.mail.intake.dkim import refusal as dkim_refusal
from gm.mail.outgoing.game_mail import queue_start
from gm.store.models import Confirmation, Game, GameStatus, Player, utcnow

NAME = "JOIN"
USAGE = "JOIN <game> <power> <password>"
CONFIRMS = confirmations.JOIN  # the confirmations it carries out (gm.mail.commands.confirm)
HELP = _("take a power in a game that is forming; the password protects your orders (at once in DKIM-signed "
         "mail, else once you answer the code mailed to you)")
TAKES_PASSWORD = True
NEW_PASSWORD = True  # in authenticated mail its password is hashed before the transaction (gm.mail.ingest)
NEEDS_DKIM = True  # a game that requires DKIM takes a JOIN only in signed mail (see gm.mail.intake.dkim)
PROVES_ADDRESS = True  # authenticated mail carries it out at once (see gm.mail.intake.provenance)
# The game option that lets one address play several powers of a game (off unless the GM sets it).
SEVERAL_POWERS = "several_powers_per_address"


def run(ctx: Context, args: list[str], line: str) -> None:
    shown = masked(line)
    sender = ctx.message.sender
    if len(args) < 3:
        ctx.refuse_sign_on(shown, _("usage: {usage}", usage=USAGE))
        return
    game = ctx.lookups.game(args[0])
    if game is None:
        ctx.refuse_sign_on(shown, NO_SUCH_GAME)
        return
    if confirmations.disowned(ctx, shown):
        return
    power = resolve_power(variant_of(game), " ".join(args[1:-1]))
    # Authenticated mail proves the address: the power is taken at once. A game that requires DKIM
    # takes a JOIN only in mail signed by the sender's own domain.
    proven = ctx.authenticated or game.require_dkim
    # Every check that costs nothing comes first; a JOIN that waits for its code costs no hash at all.
    why = (refusal(ctx, game, power, sender) or dkim_refusal(game.name, game.require_dkim, ctx.dkim)
           or (None if proven else confirmations.join_refusal(ctx.session, sender)))
    if why is not None:
        ctx.refuse_sign_on(shown, why)
        return
    assert power is not None
    if proven:
        password_hash = ctx.new_password_hash(shown, args[-1], sign_on=True)
        if password_hash is None:  # too many new passwords: the line is rejected saying so
            return
        take_power(ctx, game, power, sender, password_hash, shown)
        return
    if not confirmations.request(ctx, confirmations.JOIN, sender,
                                 subject=_("gm: confirm JOIN {game} {power}", game=game.name, power=power),
                                 template="confirm_join", values={"game": game.name, "power": power},
                                 game=game, power=power, password=args[-1]):
        ctx.refuse_sign_on(shown, confirmations.NOT_NOW)
        return
    ctx.accept(shown, _n("a code to confirm it was mailed to {address}: you play {power} in {game} once the "
                         "code comes back (CONFIRM <code>, within {count} hour)",
                         "a code to confirm it was mailed to {address}: you play {power} in {game} once the "
                         "code comes back (CONFIRM <code>, within {count} hours)",
                         confirmations.LIFETIME_HOURS, address=sender, power=power, game=game.name))


def refusal(ctx: Context, game: Game, power: str | None, address: str) -> str | None:
    """Why `address` may not take `power` in `game` now, or None: the game forming, the power one
    of its great powers and free, the address playing no other power of it (unless the game
    allows that), and the address one a player may have (see gm.mail.intake.addresses). Asked at the
    JOIN and again at its CONFIRM: much may change in between."""
    why = addresses.refusal(address, ctx.gm_address)
    if why is not None:
        return why
    if game.status != GameStatus.FORMING:
        return _("{game} is not taking new players", game=game.name)
    variant = variant_of(game)
    if power is None or power not in variant.great_powers:
        return _("{game} ({variant}) has no such power; its powers are {powers}", game=game.name,
                 variant=variant.title, powers=", ".join(variant.great_powers))
    players = active_players(ctx.session, game)
    if any(p.power == power for p in players):
        return _("{power} is taken in {game}", power=power, game=game.name)
    mine = [p.power for p in players if p.email == address]
    if mine and not (game.options or {}).get(SEVERAL_POWERS):
        return _("this address plays {power} in {game} already: one address plays one power", power=mine[0],
                 game=game.name)
    return None


def confirmed(ctx: Context, confirmation: Confirmation, shown: str, password: str | None = None) -> bool:
    """CONFIRM of a JOIN: the power is taken, if it still may be (the first confirmed wins). The
    password sealed with the request is hashed now, the address having proved itself."""
    name = ctx.session.scalar(select(Game.name).where(Game.id == confirmation.game_id))
    game = ctx.lookups.game(name) if name is not None else None
    why = NO_SUCH_GAME if game is None else refusal(ctx, game, confirmation.power, confirmation.address)
    if why is not None:
        ctx.refuse_sign_on(shown, why)
        return False
    assert game is not None and confirmation.power is not None
    password_hash = confirmations.password_hash(ctx, confirmation, shown, password)
    if password_hash is None:  # too many new passwords: the line is rejected saying so
        return False
    take_power(ctx, game, confirmation.power, confirmation.address, password_hash, shown)
    return True


def take_power(ctx: Context, game: Game, power: str, address: str, password_hash: str, shown: str) -> None:
    """`address` plays `power` in `game` from now on, the lines after this one act for it, and the
    game starts once every power is taken (every player is told)."""
    player = Player(game_id=game.id, power=power, email=address, password_hash=password_hash)
    ctx.session.add(player)
    ctx.session.flush()
    ctx.sign_on(player, game)
    ctx.audit("join", {"power": power})
    ctx.lookups.forget()  # a new player, and perhaps (below) a game under way
    great_powers = variant_of(game).great_powers
    taken = len(active_players(ctx.session, game))
    if taken == len(great_powers):
        now = utcnow()
        phase = start(ctx.session, game, now)
        # Every player is told, not only this one: power, position, house rules, first deadline.
        queue_start(ctx.session, game, gm_address=ctx.gm_address, gm_addresses=masters(ctx.session, game), now=now)
        ctx.accept(shown, _("you play {power} in {game}; every power is taken: the game starts with {phase}",
                            power=power, game=game.name, phase=phase_name(phase.row.label)))
    else:
        ctx.accept(shown, _("you play {power} in {game} ({count} of {total} powers taken)",
                            power=power, game=game.name, count=taken, total=len(great_powers)))
