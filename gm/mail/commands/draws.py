"""The mail a draw proposal and its votes cause, for the commands that propose one (the GM's DRAW,
PROPOSE DRAW, SET DRAW) and those that vote (ACCEPT DRAW, REJECT DRAW, SET NODRAW). The powers
that vote hear of a proposal and of its failure, the others of neither (every player hears of the
game's end); who voted how, and who proposed, is told to the GM only, unless the house rule
`draw_votes` is public: then to the powers voting too. See gm.lifecycle.draws."""
from __future__ import annotations

from gm.games import CurrentPhase, GameError, active_players, masters, variant_of
from gm.lifecycle.draws import Draw, Vote, open_draw, vote
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.ending import final_position
from gm.mail.commands import Context
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


def _whose(draw: Draw) -> str:
    """Who must accept, as the mail says it."""
    return "every power named" if draw.by is None else "every surviving power"


def _proposed(draw: Draw) -> str:
    return "the GM proposed" if draw.by is None else "a player proposed"


def _lapse(draw: Draw, current: CurrentPhase | None) -> str:
    if draw.phase_id is None or current is None:
        return ""
    return f"It lapses at the end of this phase ({current.row.label}) unless every one has accepted by then."


def ask(ctx: Context, draw: Draw, voters: dict[str, str], current: CurrentPhase | None, *, again: bool = False) -> int:
    """Mail each power that votes on `draw` (but its proposer) how to vote, and the GM who
    proposed it. Returns the powers asked."""
    game, now, told = ctx.game, utcnow(), public(ctx)
    who = "The GM proposes" if draw.by is None else f"{draw.by} proposes" if told else "It is proposed"
    extra = " It replaces the proposal made before: vote again." if again else ""
    if draw.by is not None and set(draw.voters) - set(draw.powers):
        needs = (f"It needs the acceptance of every surviving power, those it leaves out too: "
                 f"{', '.join(draw.voters)}.")
    elif draw.by is not None:
        needs = "It includes every surviving power, and needs the acceptance of each."
    else:
        needs = ""
    rule = " ".join(filter(None, [
        f"The game ends in this draw once {_whose(draw)} has accepted; one rejection ends the proposal.",
        ("Every vote is told to the powers voting as it comes" if told else "Your vote is told to nobody but the GM"
         + ("" if draw.by is None else ", as is who proposed the draw")) + "; the game goes on meanwhile.",
        _lapse(draw, current)]))
    asked = 0
    for power, address in voters.items():
        if power == draw.by:
            continue
        text = "\n".join([f"{who} to end the game in a draw between {between(draw)}.{extra}",
                          *([needs] if needs else []), "",
                          f"As {power}, answer with a mail reading", f"  SIGNON {power} {game.name} <password>",
                          "  ACCEPT DRAW", "or REJECT DRAW in its place.", "", rule])
        queue_announcement(ctx.session, game, "Draw proposed", text, gm_address=ctx.gm_address, now=now, to=[address])
        asked += 1
    gms = masters(ctx.session, game)
    if draw.by is not None and gms:
        queue_announcement(ctx.session, game, f"Draw proposed by {draw.by}",
                           f"{draw.by} proposes a draw between {between(draw)}; {', '.join(draw.voters)} vote on it "
                           f"({'they are told' if told else 'the players are not told'} who proposed it). "
                           f"{_lapse(draw, current)}".rstrip(),
                           gm_address=ctx.gm_address, now=now, to=gms)
    return asked


def drawn(ctx: Context, draw: Draw, current: CurrentPhase | None) -> None:
    """Every player and GM told the game ended in `draw`, with the position it ended in."""
    ctx.lookups.forget()
    ending = "" if current is None else "\n\n" + final_position(variant_of(ctx.game), current)
    queue_announcement(ctx.session, ctx.game, "The game is drawn",
                       f"{_whose(draw)[0].upper()}{_whose(draw)[1:]} has accepted the draw {_proposed(draw)}: "
                       f"the game is over, {draw.outcome}." + ending, gm_address=ctx.gm_address, now=utcnow())


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
            queue_announcement(ctx.session, game, f"Draw vote: {power} accepts",
                               f"{power} accepts the draw between {between(draw)} ({len(draw.accepted)} of "
                               f"{len(draw.voters)} have accepted: {', '.join(draw.accepted)}).",
                               gm_address=ctx.gm_address, now=now, to=readers)
    else:
        queue_announcement(ctx.session, game, "Draw rejected",
                           f"The draw {_proposed(draw)} between {between(draw)} was rejected"
                           f"{f' by {power}' if told else ''}: the game goes on.",
                           gm_address=ctx.gm_address, now=now, to=addresses(ctx, draw.voters))
        if gms:
            queue_announcement(ctx.session, game, f"Draw vote: {power} rejects",
                               f"{power} rejected the draw between {between(draw)}: the proposal is over, and the "
                               f"powers that voted on it are told it failed ({'and' if told else 'not'} by whom).",
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
        said = f"you accept; {_whose(draw)} has accepted: {ctx.game.name} is {draw.outcome}"
    elif outcome == "accepted":
        said = f"you accept the draw between {between(draw)}; it ends the game once {_whose(draw)} has accepted"
    else:
        said = (f"you reject the draw between {between(draw)}: the proposal is over "
                f"({'the powers voting are told it was you' if public(ctx) else 'nobody but the GM is told who'})")
    ctx.accept(line, said)


def current_draw(ctx: Context) -> Draw | None:
    return open_draw(ctx.game, ctx.phase())
