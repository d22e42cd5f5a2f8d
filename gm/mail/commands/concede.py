"""CONCEDE <power>: concede the game to a power; once every other surviving power concedes to it in
the same phase, it wins. CONCEDE NONE withdraws your concession. Told to nobody but the GM, unless
the house rule draw_votes is public: then to every player."""
from __future__ import annotations

from gm.games import GameError, active_players, masters, variant_of
from gm.i18n import _
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.draws import concede
from gm.lifecycle.ending import final_position
from gm.mail.commands import Context, Lines
from gm.mail.commands.draws import public
from gm.mail.outgoing.game_mail import queue_announcement
from gm.store.models import utcnow

NAME = "CONCEDE"
USAGE = "CONCEDE <power>|NONE"
HELP = _("concede the game to a power: it wins once every other surviving power concedes to it in the same "
         "phase (told to nobody but the GM; CONCEDE NONE withdraws)")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    if not args:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
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
    # TRANSLATORS: who hears of a concession, in brackets after it
    secrecy = _("every player is told") if told else _("nobody but the GM is told")
    if concession.to is None:
        if readers:
            queue_announcement(ctx.session, game, _("Concession: {power} withdraws", power=power),
                               _("{power} withdraws its concession.", power=power), gm_address=ctx.gm_address,
                               now=now, to=readers)
        ctx.accept(line, _("you withdraw your concession ({secrecy})", secrecy=secrecy))
        return
    to = concession.to
    if ended:
        ctx.lookups.forget()
        said = _("Every other surviving power has conceded the game to {power}: the game is over, {outcome}.",
                 power=to, outcome=concession.outcome)
        text = said if current is None else Lines([said, final_position(variant_of(game), current)], "\n\n")
        queue_announcement(ctx.session, game, _("The game is conceded to {power}", power=to), text,
                           gm_address=ctx.gm_address, now=now)
        ctx.accept(line, _("you concede to {power}; every other surviving power has: {game} is {outcome}",
                           power=to, game=game.name, outcome=concession.outcome))
        return
    if readers:
        queue_announcement(ctx.session, game, _("Concession: {power} concedes to {to}", power=power, to=to),
                           _("{power} concedes the game to {to} ({count} of {needed} needed have: {powers}). "
                             "Concessions lapse at the end of the phase.", power=power, to=to,
                             count=len(concession.conceded), needed=len(concession.needed),
                             powers=", ".join(concession.conceded)),
                           gm_address=ctx.gm_address, now=now, to=readers)
    if current is not None:
        ctx.accept(line, _("you concede the game to {power} ({secrecy}); {power} wins once every other surviving "
                           "power concedes to it before the end of this phase ({phase}), when concessions lapse",
                           power=to, secrecy=secrecy, phase=phase_name(current.row.label)))
    else:
        ctx.accept(line, _("you concede the game to {power} ({secrecy}); {power} wins once every other surviving "
                           "power concedes to it before the end of this phase, when concessions lapse",
                           power=to, secrecy=secrecy))
