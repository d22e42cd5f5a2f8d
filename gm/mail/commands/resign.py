"""RESIGN: the signed-on player leaves the game. Its power keeps its units; nobody plays it until
the GM gives it a new player (REPLACE), and meanwhile its units take the rules' defaults at each
deadline. The GM is told at once. Before the game starts, RESIGN leaves the forming game: the
power is open to JOIN again. The address that resigned no longer signs on as the power."""
from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from gm.games import GameError, masters, variant_of
from gm.i18n import _
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.players import eject
from gm.mail.commands import Context, Lines
from gm.mail.outgoing.game_mail import queue_announcement
from gm.store.models import AuditEntry, Game, GameStatus, Player, utcnow
from gm.view.results import moment_text

NAME = "RESIGN"
USAGE = "RESIGN"
HELP = _("leave the game you signed on to: the GM is told, and finds a new player for your power; "
         "before the game starts, the power is open to JOIN again")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    if args:
        ctx.reject(line, _("usage: {usage} (after SIGNON: it takes no arguments)", usage=USAGE))
        return
    game, player = ctx.game, ctx.player
    assert game is not None and player is not None and player.power is not None
    power, now = player.power, utcnow()
    phase = ctx.phase() if game.status == GameStatus.ACTIVE else None
    try:
        eject(ctx.session, game, power, now)
    except GameError as e:  # the game is over
        ctx.reject(line, _("{reason}: there is nothing to resign from", reason=str(e)))
        return
    ctx.lookups.forget()
    zone = rules_of(game.options).timezone
    values = {"address": player.email, "power": power, "game": game.name}
    if game.status == GameStatus.FORMING:
        text = _("{address}, who played {power} in {game}, resigned before the game started. {power} is open to "
                 "JOIN again.", **values)
        done = _("you no longer play {power} in {game}: the power is open to JOIN again; the GM is told", **values)
    else:
        when = moment_text(now, zone)
        left = (_("{address}, who played {power} in {game}, resigned during {phase}, on {when}.",
                  phase=phase_name(phase.row.label), when=when, **values) if phase is not None else
                _("{address}, who played {power} in {game}, resigned, on {when}.", when=when, **values))
        text = Lines([
            left,
            _("Nobody plays {power} now. Its units stay on the board; until it has a new player they take the "
              "rules' defaults at each deadline (hold; no builds; removals by the rules), and nobody waits for "
              "its orders. Its orders on file were withdrawn.", power=power),
            _("To give it a new player: REPLACE {power} <address>. To put it in civil disorder by the rules of "
              "{variant}: CIVIL DISORDER {power}.", power=power, variant=variant_of(game).title)], "\n\n")
        done = _("you no longer play {power} in {game}; the GM is told, and will find a new player for it", **values)
    gms = masters(ctx.session, game)
    if gms:
        queue_announcement(ctx.session, game, _("{power} resigned", power=power), text, gm_address=ctx.gm_address,
                           now=now, to=gms, kind="notice")
    ctx.audit("resign", {"power": power, "player": player.email})
    ctx.accept(line, done)
    # The lines after this one act for nobody: sign on again for another power.
    ctx.player = ctx.game = None


def resigned(session: Session, game: Game, power: str, address: str, now_playing: Player | None) -> str | None:
    """Why `address` may not sign on as `power` in `game` because it resigned the power (RESIGN);
    None when it did not, or plays it again. (A player the GM replaced is answered as any other
    address: where the power's answers go.)"""
    if now_playing is not None and now_playing.email == address:
        return None
    entries = session.execute(select(AuditEntry.at, AuditEntry.detail).where(
        AuditEntry.game_id == game.id, AuditEntry.action == "resign").order_by(AuditEntry.id.desc())).all()
    when = next((at for at, detail in entries
                 if (detail or {}).get("power") == power and (detail or {}).get("player") == address), None)
    if when is None:
        return None
    return _("this address resigned {power} in {game} ({when}): it no longer plays it", power=power, game=game.name,
             when=moment_text(when, rules_of(game.options).timezone))
