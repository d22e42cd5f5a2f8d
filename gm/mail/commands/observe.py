"""OBSERVE <game>: the sender's address follows a game, at once when the mail is authenticated
(gm.mail.intake.provenance), else once it confirms it with the code mailed to it (see gm.mail.commands.confirmations):
the game's results mails and broadcast press, as a reader of no power, never a secret. UNOBSERVE
stops it."""
from __future__ import annotations

from sqlalchemy import select

from gm.games import active_players, variant_of
from gm.i18n import _, _n, translated
from gm.mail.commands import confirmations
from gm.mail.commands import NO_SUCH_GAME, Context
from gm.mail.outgoing.reply import render_notice
from gm.store.models import AuditEntry, Confirmation, Game, GameStatus, Observer

NAME = "OBSERVE"
USAGE = "OBSERVE <game>"
CONFIRMS = confirmations.OBSERVE  # the confirmations it carries out (gm.mail.commands.confirm)
HELP = _("get a game's results and broadcast press without playing (at once in DKIM-signed mail, else once you "
         "answer the code mailed to you); UNOBSERVE stops it")
KIND = "observer"  # the outbox kind of the mails that answer OBSERVE's CONFIRM and UNOBSERVE
PROVES_ADDRESS = True  # authenticated mail carries it out at once (see gm.mail.intake.provenance)


def run(ctx: Context, args: list[str], line: str) -> None:
    if len(args) != 1:
        ctx.refuse_sign_on(line, _("usage: {usage}", usage=USAGE))
        return
    game = ctx.lookups.game(args[0])
    if game is None:
        ctx.refuse_sign_on(line, NO_SUCH_GAME)
        return
    if confirmations.disowned(ctx, line):
        return
    sender = ctx.message.sender
    if ctx.authenticated:  # the mail proved the address
        why = refusal(ctx, game, sender)
        if why is not None:
            ctx.refuse_sign_on(line, why)
        else:
            observe(ctx, game, sender, line)
        return
    why = refusal(ctx, game, sender) or confirmations.observe_refusal(ctx.session, sender)
    if why is not None:
        ctx.refuse_sign_on(line, why)
        return
    if not confirmations.request(ctx, confirmations.OBSERVE, sender,
                                 subject=_("gm: confirm OBSERVE {game}", game=game.name),
                                 template="confirm_observe", values={"game": game.name}, game=game):
        ctx.refuse_sign_on(line, confirmations.NOT_NOW)
        return
    ctx.accept(line, _n("a code to confirm it was mailed to {address}: this address observes {game} once the "
                        "code comes back (CONFIRM <code>, within {count} hour)",
                        "a code to confirm it was mailed to {address}: this address observes {game} once the "
                        "code comes back (CONFIRM <code>, within {count} hours)",
                        confirmations.LIFETIME_HOURS, address=sender, game=game.name))


def observing(ctx: Context, game: Game, address: str) -> Observer | None:
    return ctx.session.scalar(select(Observer).where(
        Observer.game_id == game.id, Observer.email == address, Observer.left_at.is_(None)))


def refusal(ctx: Context, game: Game, address: str) -> str | None:
    """Why `address` may not observe `game` now; None when it may. Asked at OBSERVE and again at
    its CONFIRM."""
    if game.status == GameStatus.FINISHED:
        return _("{game} is over: there is nothing more to observe", game=game.name)
    if observing(ctx, game, address) is not None:
        return _("this address observes {game} already (UNOBSERVE {game} stops it)", game=game.name)
    plays = [p.power for p in active_players(ctx.session, game) if p.email == address]
    if plays:
        return _("this address plays {power} in {game}: it gets the game's mail already", power=plays[0],
                 game=game.name)
    return None


def confirmed(ctx: Context, confirmation: Confirmation, shown: str, password: str | None = None) -> bool:
    """CONFIRM of an OBSERVE: the address observes the game from now on, if it still may."""
    name = ctx.session.scalar(select(Game.name).where(Game.id == confirmation.game_id))
    game = ctx.lookups.game(name) if name is not None else None
    address = confirmation.address
    why = NO_SUCH_GAME if game is None else refusal(ctx, game, address)
    if why is not None:
        ctx.refuse_sign_on(shown, why)
        return False
    assert game is not None
    observe(ctx, game, address, shown)
    return True


def observe(ctx: Context, game: Game, address: str, shown: str) -> None:
    """`address`, proved, observes `game` from now on; answered by a mail of its own (the address
    signed on to no power)."""
    ctx.session.add(Observer(game_id=game.id, email=address))
    audit(ctx, game, "observe", address)
    ctx.accept(shown, _("this address observes {game}", game=game.name))
    lang = ctx.language(address, game)
    ctx.notify(address, translated(_("gm: you observe {game}", game=game.name), lang),
               render_notice("observer", lang, gm_address=ctx.gm_address, game=game.name,
                             variant=variant_of(game).title, observing=True), kind=KIND)


def audit(ctx: Context, game: Game, action: str, address: str) -> None:
    """The game's audit log: `address` began (or stopped) observing it; whatever game the mail signed on to."""
    ctx.session.add(AuditEntry(game_id=game.id, actor=ctx.message.sender, action=action, detail={"address": address},
                               inbound_id=ctx.record_mail()))
    ctx.changed = True
