"""The mail a draw proposal and its votes cause, for the commands that propose one (the GM's DRAW,
PROPOSE DRAW, SET DRAW) and those that vote (ACCEPT DRAW, REJECT DRAW, SET NODRAW). The powers
that vote hear of a proposal and of its failure, the others of neither (every player hears of the
game's end); who voted how, and who proposed, is told to the GM only, unless the house rule
`draw_votes` is public: then to the powers voting too. See gm.lifecycle.draws."""
from __future__ import annotations

from gm.games import CurrentPhase, GameError, active_players, masters, variant_of
from gm.i18n import _
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.draws import Draw, Vote, open_draw, vote
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.ending import final_position
from gm.mail.commands import Context, Lines
from gm.mail.outgoing.game_mail import queue_announcement
from gm.store.models import utcnow


def public(ctx: Context) -> bool:
    """Whether the players are told who proposed and who voted how (house rule draw_votes)."""
    return rules_of(ctx.game.options).draw_votes == "public"


def addresses(ctx: Context, powers: list[str], but: str | None = None) -> list[str]:
    """The addresses of those who play `powers` (but the power `but`)."""
    return [p.email for p in active_players(ctx.session, ctx.game) if p.power in powers and p.power != but]


def between(draw: Draw) -> str:
    return ", ".join(draw.powers)


def _lapse(draw: Draw, current: CurrentPhase | None) -> str | None:
    if draw.phase_id is None or current is None:
        return None
    return _("It lapses at the end of this phase ({phase}) unless every one has accepted by then.",
             phase=phase_name(current.row.label))


def _has_accepted(draw: Draw) -> str:
    """Who has accepted once the draw is made, as the mail says it."""
    return _("every power named has accepted") if draw.by is None else _("every surviving power has accepted")


def ask(ctx: Context, draw: Draw, voters: dict[str, str], current: CurrentPhase | None, *, again: bool = False) -> int:
    """Mail each power that votes on `draw` (but its proposer) how to vote, and the GM who
    proposed it. Returns the powers asked."""
    game, now, told = ctx.game, utcnow(), public(ctx)
    powers = between(draw)
    if draw.by is None:
        proposes = _("The GM proposes to end the game in a draw between {powers}.", powers=powers)
    elif told:
        proposes = _("{power} proposes to end the game in a draw between {powers}.", power=draw.by, powers=powers)
    else:
        proposes = _("It is proposed to end the game in a draw between {powers}.", powers=powers)
    if again:
        proposes = Lines([proposes, _("It replaces the proposal made before: vote again.")], " ")
    if draw.by is not None and set(draw.voters) - set(draw.powers):
        needs = [_("It needs the acceptance of every surviving power, those it leaves out too: {powers}.",
                   powers=", ".join(draw.voters))]
    elif draw.by is not None:
        needs = [_("It includes every surviving power, and needs the acceptance of each.")]
    else:
        needs = []
    if told:
        votes = _("Every vote is told to the powers voting as it comes; the game goes on meanwhile.")
    elif draw.by is None:
        votes = _("Your vote is told to nobody but the GM; the game goes on meanwhile.")
    else:
        votes = _("Your vote is told to nobody but the GM, as is who proposed the draw; the game goes on meanwhile.")
    ends = (_("The game ends in this draw once every power named has accepted; one rejection ends the proposal.")
            if draw.by is None else
            _("The game ends in this draw once every surviving power has accepted; one rejection ends the proposal."))
    rule = Lines(filter(None, [ends, votes, _lapse(draw, current)]), " ")
    asked = 0
    for power, address in voters.items():
        if power == draw.by:
            continue
        text = Lines([proposes, *needs, "",
                      _("As {power}, answer with a mail reading", power=power),
                      _("  SIGNON {power} {game} <password>", power=power, game=game.name), "  ACCEPT DRAW",
                      _("or REJECT DRAW in its place."), "", rule])
        queue_announcement(ctx.session, game, _("Draw proposed"), text, gm_address=ctx.gm_address, now=now,
                           to=[address])
        asked += 1
    gms = masters(ctx.session, game)
    if draw.by is not None and gms:
        # TRANSLATORS: in brackets after a draw proposed, to the GM
        secrecy = _("they are told who proposed it") if told else _("the players are not told who proposed it")
        said = _("{power} proposes a draw between {powers}; {voters} vote on it ({secrecy}).", power=draw.by,
                 powers=powers, voters=", ".join(draw.voters), secrecy=secrecy)
        lapse = _lapse(draw, current)
        queue_announcement(ctx.session, game, _("Draw proposed by {power}", power=draw.by),
                           said if lapse is None else Lines([said, lapse], " "),
                           gm_address=ctx.gm_address, now=now, to=gms)
    return asked


def drawn(ctx: Context, draw: Draw, current: CurrentPhase | None) -> None:
    """Every player and GM told the game ended in `draw`, with the position it ended in."""
    ctx.lookups.forget()
    said = (_("Every power named has accepted the draw the GM proposed: the game is over, {outcome}.",
              outcome=draw.outcome) if draw.by is None else
            _("Every surviving power has accepted the draw a player proposed: the game is over, {outcome}.",
              outcome=draw.outcome))
    text = said if current is None else Lines([said, final_position(variant_of(ctx.game), current)], "\n\n")
    queue_announcement(ctx.session, ctx.game, _("The game is drawn"), text, gm_address=ctx.gm_address, now=utcnow())


def cast(ctx: Context, line: str, power: str, accept: bool, current: CurrentPhase | None) -> tuple[Vote, Draw] | None:
    """`power`'s vote on the open draw, the mail it causes sent; the line rejected (None) when
    there is none for it to vote on."""
    game, now = ctx.game, utcnow()
    try:
        outcome, draw = vote(ctx.session, game, current, power, accept, now)
    except GameError as e:
        ctx.reject(line, str(e))
        return None
    gms, told = masters(ctx.session, game), public(ctx)
    if outcome == "drawn":
        drawn(ctx, draw, current)
    elif outcome == "accepted":
        readers = gms + (addresses(ctx, draw.voters, but=power) if told else [])
        if readers:
            queue_announcement(ctx.session, game, _("Draw vote: {power} accepts", power=power),
                               _("{power} accepts the draw between {powers} ({count} of {voters} have accepted: "
                                 "{accepted}).", power=power, powers=between(draw), count=len(draw.accepted),
                                 voters=len(draw.voters), accepted=", ".join(draw.accepted)),
                               gm_address=ctx.gm_address, now=now, to=readers)
    else:
        if draw.by is None:
            rejected = (_("The draw the GM proposed between {powers} was rejected by {power}: the game goes on.",
                          powers=between(draw), power=power) if told else
                        _("The draw the GM proposed between {powers} was rejected: the game goes on.",
                          powers=between(draw)))
        else:
            rejected = (_("The draw a player proposed between {powers} was rejected by {power}: the game goes on.",
                          powers=between(draw), power=power) if told else
                        _("The draw a player proposed between {powers} was rejected: the game goes on.",
                          powers=between(draw)))
        queue_announcement(ctx.session, game, _("Draw rejected"), rejected, gm_address=ctx.gm_address, now=now,
                           to=addresses(ctx, draw.voters))
        if gms:
            queue_announcement(ctx.session, game, _("Draw vote: {power} rejects", power=power),
                               _("{power} rejected the draw between {powers}: the proposal is over, and the powers "
                                 "that voted on it are told it failed (and by whom).", power=power,
                                 powers=between(draw)) if told else
                               _("{power} rejected the draw between {powers}: the proposal is over, and the powers "
                                 "that voted on it are told it failed (not by whom).", power=power,
                                 powers=between(draw)),
                               gm_address=ctx.gm_address, now=now, to=gms)
    ctx.audit("accept draw" if accept else "reject draw", {"power": power, "outcome": outcome})
    return outcome, draw


def vote_line(ctx: Context, line: str, accept: bool) -> None:
    """ACCEPT DRAW and REJECT DRAW (SET NODRAW): the signed-on power's vote, acknowledged."""
    current = ctx.phase()  # the position the game ends in, should this vote end it
    cast_ = cast(ctx, line, ctx.player.power, accept, current)
    if cast_ is None:
        return
    outcome, draw = cast_
    if outcome == "drawn":
        said = _("you accept; {accepted}: {game} is {outcome}", accepted=_has_accepted(draw), game=ctx.game.name,
                 outcome=draw.outcome)
    elif outcome == "accepted":
        said = (_("you accept the draw between {powers}; it ends the game once every power named has accepted",
                  powers=between(draw)) if draw.by is None else
                _("you accept the draw between {powers}; it ends the game once every surviving power has accepted",
                  powers=between(draw)))
    elif public(ctx):
        said = _("you reject the draw between {powers}: the proposal is over (the powers voting are told it was you)",
                 powers=between(draw))
    else:
        said = _("you reject the draw between {powers}: the proposal is over (nobody but the GM is told who)",
                 powers=between(draw))
    ctx.accept(line, said)


def current_draw(ctx: Context) -> Draw | None:
    return open_draw(ctx.game, ctx.phase())
