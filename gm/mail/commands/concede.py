"""CONCEDE <power>: concede the game to a power; once every other surviving power concedes to it in
the same phase, it wins. CONCEDE NONE withdraws your concession. Told to nobody but the GM, unless
the house rule draw_votes is public: then to every player."""
from __future__ import annotations

from gm.games import GameError, active_players, masters, variant_of
from gm.lifecycle.draws import concede
from gm.lifecycle.ending import final_position
from gm.mail.commands import Context
from gm.mail.commands.draws import public
from gm.mail.outgoing.game_mail import queue_announcement
from gm.store.models import utcnow

NAME = "CONCEDE"
USAGE = "CONCEDE <power>|NONE"
HELP = ("concede the game to a power: it wins once every other surviving power concedes to it in the same "
        "phase (told to nobody but the GM; CONCEDE NONE withdraws)")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    if not args:
        ctx.reject(line, f"usage: {USAGE}")
        return
    game, power, now, current = ctx.game, ctx.player.power, utcnow(), ctx.phase()
    try:
        ended, concession = concede(ctx.session, game, power, " ".join(args), now)
    except GameError as e:
        ctx.reject(line, str(e))
        return
    ctx.audit("concede", {"power": power, "to": concession.to, "ended": ended})
    told = public(ctx)
    readers = masters(ctx.session, game) + ([p.email for p in active_players(ctx.session, game)
                                             if p.power and p.power != power] if told else [])
    secrecy = "every player is told" if told else "nobody but the GM is told"
    if concession.to is None:
        if readers:
            queue_announcement(ctx.session, game, f"Concession: {power} withdraws",
                               f"{power} withdraws its concession.", gm_address=ctx.gm_address, now=now, to=readers)
        ctx.accept(line, f"you withdraw your concession ({secrecy})")
        return
    to = concession.to
    if ended:
        ctx.lookups.forget()
        ending = "" if current is None else "\n\n" + final_position(variant_of(game), current)
        queue_announcement(ctx.session, game, f"The game is conceded to {to}",
                           f"Every other surviving power has conceded the game to {to}: the game is over, "
                           f"{concession.outcome}." + ending, gm_address=ctx.gm_address, now=now)
        ctx.accept(line, f"you concede to {to}; every other surviving power has: {game.name} is {concession.outcome}")
        return
    if readers:
        queue_announcement(ctx.session, game, f"Concession: {power} concedes to {to}",
                           f"{power} concedes the game to {to} ({len(concession.conceded)} of {len(concession.needed)} "
                           f"needed have: {', '.join(concession.conceded)}). Concessions lapse at the end of the "
                           "phase.",
                           gm_address=ctx.gm_address, now=now, to=readers)
    label = f" ({current.row.label})" if current is not None else ""
    ctx.accept(line, f"you concede the game to {to} ({secrecy}); {to} wins once every other "
                     f"surviving power concedes to it before the end of this phase{label}, when concessions lapse")
