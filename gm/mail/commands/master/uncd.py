"""UNCD <power>: take a power out of civil disorder (where the variant's rules allow it). A player
whose power is in civil disorder and who orders again takes it out the same way (ordered_again)."""
from __future__ import annotations

from gm.games import GameError
from gm.lifecycle.players import great_power, undo_civil_disorder
from gm.mail.commands import Context
from gm.mail.game_mail import queue_announcement
from gm.store.models import Player, utcnow

NAME = "UNCD"
USAGE = "UNCD <power>"
HELP = "take a power out of civil disorder (where the variant's rules allow it)"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if not args:
        ctx.reject(line, f"usage: {USAGE}")
        return
    game = ctx.game
    try:
        power = great_power(ctx.session, game, " ".join(args))
        undo_civil_disorder(ctx.session, game, power)
    except GameError as e:
        ctx.reject(line, str(e))
        return
    queue_announcement(ctx.session, game, f"{power} out of civil disorder",
                       f"The GM has taken {power} out of civil disorder: its player orders again, and the game "
                       "waits for its orders as for everyone's.", gm_address=ctx.gm_address, now=utcnow())
    ctx.audit("uncd", {"power": power})
    ctx.accept(line, f"{power} is out of civil disorder; every player is told")


def ordered_again(ctx: Context, player: Player) -> None:
    """`player`'s power was in civil disorder and they just gave a valid order: it is out of it, as
    after UNCD (unless the variant's civil disorder is for good), every player and the GM are told,
    and the player's answer says so."""
    game, power = ctx.game, player.power
    assert game is not None and power is not None
    from gm.mail.commands.master.become import AsPower

    if isinstance(ctx.block, AsPower):  # the GM acting as the power (BECOME) is not its player back
        return
    try:
        undo_civil_disorder(ctx.session, game, power)
    except GameError:  # for good, by the variant's rules: its orders take no effect anyway
        return
    queue_announcement(ctx.session, game, f"{power} out of civil disorder",
                       f"{power}'s player has ordered again: {power} is out of civil disorder, and the game waits "
                       "for its orders as for everyone's.", gm_address=ctx.gm_address, now=utcnow())
    ctx.audit("back from civil disorder", {"power": power})
    ctx.add_section("Civil disorder", f"{power} was in civil disorder: with your orders it is out of it, and the "
                                      "game waits for your orders again, as for everyone's.")
