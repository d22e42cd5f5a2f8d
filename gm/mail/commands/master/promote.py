"""PROMOTE <address> (also ADD MASTER <address>): a co-GM for the game. The address is a GM once
it confirms with the code mailed to it (see gm.mail.commands.confirmations): nobody is made a GM, nor mailed the
game's secrets, without asking. Its GM password it sets itself, as the first GM does: SET PASSWORD
after the CONFIRM line, in the same mail. A GM gets a copy of every results mail, secrets and all."""
from __future__ import annotations

from sqlalchemy import select

from gm.games import active_masters, active_players, add_master
from gm.i18n import _
from gm.mail.commands import confirmations
from gm.mail.intake.addresses import AddressError, player_address
from gm.mail.commands import NO_SUCH_GAME, Context, reason
from gm.store.models import Confirmation, Game, GameStatus

NAME = "PROMOTE"
ALIASES = ("ADD MASTER",)
USAGE = "PROMOTE <address>   (also ADD MASTER <address>)"
CONFIRMS = confirmations.MASTER  # the confirmations it carries out (gm.mail.commands.confirm)
HELP = _("make an address a co-GM of the game, once it confirms with the code mailed to it (DEMOTE undoes it)")
# A GM's confirmation is a JOIN of the game as its GM: the detail says so (see gm.mail.commands.confirmations).
AS_GM = {"as": "GM"}


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if len(args) != 1:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    game = ctx.game
    try:
        address = player_address(args[0], ctx.gm_address)
    except AddressError as e:
        ctx.reject(line, _("{error}; usage: {usage}", error=reason(e), usage=USAGE))
        return
    why = refusal(ctx, game, address) or confirmations.join_refusal(ctx.session, address)
    if why is not None:
        ctx.reject(line, why)
        return
    confirmations.request(ctx, confirmations.JOIN, address, subject=_("gm: confirm you are a GM of {game}",
                                                                      game=game.name),
                    template="confirm_master", values={"game": game.name}, game=game, detail=AS_GM,
                    vouched=True)  # the GM, signed on with their password, answers for it
    ctx.audit("promote", {"master": address})
    ctx.accept(line, _("a code to confirm it was mailed to {address}: that address is a GM of {game} once the code "
                       "comes back (CONFIRM <code>, within {hours} hours)", address=address, game=game.name,
                       hours=confirmations.LIFETIME_HOURS))


def refusal(ctx: Context, game: Game, address: str) -> str | None:
    """Why `address` may not be a GM of `game` now, or None. Asked at PROMOTE and again at CONFIRM."""
    if game.status not in (GameStatus.FORMING, GameStatus.ACTIVE):
        return _("{game} is over: its GMs no longer change", game=game.name)
    if any(m.email == address for m in active_masters(ctx.session, game)):
        return _("{address} is a GM of {game} already", address=address, game=game.name)
    plays = [p.power for p in active_players(ctx.session, game) if p.email == address]
    if plays:  # a GM sees every secret allocation
        return _("{address} plays {power} in {game}: a GM plays no power of the game", address=address,
                 power=plays[0], game=game.name)
    return None


def confirmed(ctx: Context, confirmation: Confirmation, shown: str, password: str | None = None) -> bool:
    """CONFIRM of a PROMOTE: the address is a GM of the game, signed on as one for the lines after
    this one (SET PASSWORD sets its GM password)."""
    name = ctx.session.scalar(select(Game.name).where(Game.id == confirmation.game_id))
    game = ctx.lookups.game(name) if name is not None else None
    why = NO_SUCH_GAME if game is None else refusal(ctx, game, confirmation.address)
    if why is not None:
        ctx.refuse_sign_on(shown, why)
        return False
    assert game is not None
    master = add_master(ctx.session, game, confirmation.address, None, actor=confirmation.address)
    ctx.sign_on_master(master, game)
    ctx.line_owner = master.email
    ctx.audit("promoted", {"master": master.email, "by": confirmation.requested_by})
    ctx.accept(shown, _("you are a GM of {game}: you get a copy of every results mail, with every secret "
                        "allocation; the lines after this one are GM commands. SET PASSWORD <password> sets your GM "
                        "password, for SIGNON MASTER {game} <password>", game=game.name))
    return True
