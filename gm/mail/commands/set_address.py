"""SET ADDRESS <address>: where the judge sends your power's mail from now on, once the new address
confirms it with the code mailed to it (see gm.mail.commands.confirmations): a player cannot send the judge's
mail, with their text in it, to an address that never asked for it."""
from __future__ import annotations

from gm.i18n import _, _n, translated
from gm.mail.commands import confirmations
from gm.mail.intake.addresses import AddressError, player_address
from gm.mail.commands import Context, reason
from gm.mail.outgoing.reply import render_notice
from gm.store.models import Confirmation, Game, Player

NAME = "SET ADDRESS"
USAGE = "SET ADDRESS <mail address>"
CONFIRMS = confirmations.ADDRESS  # the confirmations it carries out (gm.mail.commands.confirm)
HELP = _("change the address results are sent to (after SIGNON; a code comes to the new address to confirm it)")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    try:
        address = player_address(" ".join(args), ctx.gm_address)
    except AddressError as e:
        ctx.reject(line, _("{reason}; usage: {usage}", reason=reason(e), usage=USAGE))
        return
    player, game = ctx.player, ctx.game
    if address == player.email:
        ctx.accept(line, _("mail for {power} goes to {address} already", power=player.power, address=address))
        return
    why = confirmations.address_refusal(ctx.session, player)
    if why is not None:
        ctx.reject(line, why)
        return
    confirmations.request(ctx, confirmations.ADDRESS, address,
                          subject=_("gm: confirm the address of {power} in {game}", power=player.power, game=game.name),
                          template="confirm_address", values={"game": game.name, "power": player.power}, player=player,
                          vouched=True)  # the player, signed on with their password, answers for it
    ctx.accept(line, _n("a code to confirm it was mailed to {address}: mail for {power} moves there once the code "
                        "comes back (CONFIRM <code>, within {count} hour); until then it goes to {old}",
                        "a code to confirm it was mailed to {address}: mail for {power} moves there once the code "
                        "comes back (CONFIRM <code>, within {count} hours); until then it goes to {old}",
                        confirmations.LIFETIME_HOURS, address=address, power=player.power, old=player.email))


def confirmed(ctx: Context, confirmation: Confirmation, shown: str, password: str | None = None) -> bool:
    """CONFIRM of a new address: the player's mail goes there from now on, if they still play."""
    player = ctx.session.get(Player, confirmation.player_id)
    if player is None or player.left_at is not None:
        ctx.refuse_sign_on(shown, _("the player who asked for this address plays no more"))
        return False
    game = ctx.session.get(Game, player.game_id)
    assert game is not None
    old, address = player.email, confirmation.address
    ctx.sign_on(player, game)
    if address == old:
        ctx.accept(shown, _("mail for {power} goes to {address} already", power=player.power, address=address))
        return True
    player.email = address
    ctx.audit("set address", {"power": player.power, "from": old, "to": address})
    ctx.accept(shown, _("mail for {power} in {game} now goes to {address} (it went to {old})", power=player.power,
                        game=game.name, address=address, old=old))
    # The old address hears of it: if the change was not its player's doing, they know at once.
    lang = ctx.language(old, game)
    ctx.notify(old, translated(_("{game}: mail for {power} now goes elsewhere", game=game.name, power=player.power),
                               lang),
               render_notice("address_changed", lang, power=player.power, game=game.name, new=address))
    return True
