"""OBSERVE <game>: the sender's address follows a game, at once when the mail is authenticated
(gm.mail.intake.provenance), else once it confirms it with the code mailed to it (see gm.mail.commands.confirmations):
the game's results mails and broadcast press, as a reader of no power, never a secret. UNOBSERVE
stops it."""
from __future__ import annotations

from sqlalchemy import select

from gm.games import active_players, variant_of
from gm.mail.commands import confirmations
from gm.mail.commands import NO_SUCH_GAME, Context
from gm.mail.outgoing.reply import render_notice
from gm.store.models import AuditEntry, Confirmation, Game, GameStatus, Observer

NAME = "OBSERVE"
USAGE = "OBSERVE <game>"
CONFIRMS = confirmations.OBSERVE  # the confirmations it carries out (gm.mail.commands.confirm)
HELP = ("get a game's results and broadcast press without playing (at once in DKIM-signed mail, else once you "
        "answer the code mailed to you); UNOBSERVE stops it")
KIND = "observer"  # the outbox kind of the mails that answer OBSERVE's CONFIRM and UNOBSERVE
PROVES_ADDRESS = True  # authenticated mail carries it out at once (see gm.mail.intake.provenance)


def run(ctx: Context, args: list[str], line: str) -> None:
    if len(args) != 1:
        ctx.refuse_sign_on(line, f"usage: {USAGE}")
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
    if not confirmations.request(ctx, confirmations.OBSERVE, sender, subject=f"gm: confirm OBSERVE {game.name}",
                           template="confirm_observe", values={"game": game.name}, game=game):
        ctx.refuse_sign_on(line, confirmations.NOT_NOW)
        return
    ctx.accept(line, f"a code to confirm it was mailed to {sender}: this address observes {game.name} once the "
                     f"code comes back (CONFIRM <code>, within {confirmations.LIFETIME_HOURS} hours)")


def observing(ctx: Context, game: Game, address: str) -> Observer | None:
    return ctx.session.scalar(select(Observer).where(
        Observer.game_id == game.id, Observer.email == address, Observer.left_at.is_(None)))


def refusal(ctx: Context, game: Game, address: str) -> str | None:
    """Why `address` may not observe `game` now; None when it may. Asked at OBSERVE and again at
    its CONFIRM."""
    if game.status == GameStatus.FINISHED:
        return f"{game.name} is over: there is nothing more to observe"
    if observing(ctx, game, address) is not None:
        return f"this address observes {game.name} already (UNOBSERVE {game.name} stops it)"
    plays = [p.power for p in active_players(ctx.session, game) if p.email == address]
    if plays:
        return f"this address plays {plays[0]} in {game.name}: it gets the game's mail already"
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
    ctx.accept(shown, f"this address observes {game.name}")
    ctx.notify(address, f"gm: you observe {game.name}",
               render_notice("observer", gm_address=ctx.gm_address, game=game.name, variant=variant_of(game).title,
                             observing=True), kind=KIND)


def audit(ctx: Context, game: Game, action: str, address: str) -> None:
    """The game's audit log: `address` began (or stopped) observing it; whatever game the mail signed on to."""
    ctx.session.add(AuditEntry(game_id=game.id, actor=ctx.message.sender, action=action, detail={"address": address},
                               inbound_id=ctx.record_mail()))
    ctx.changed = True
