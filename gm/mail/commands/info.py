"""INFO <game> (or GET INFO): what a player needs to know of a game before joining it: the
variant, its powers and the centres that win, the deadlines and the other house rules, press,
anonymity, and the GM's addresses."""
from __future__ import annotations

from gm.games import active_players, masters, variant_of
from gm.i18n import _, _n
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.ending import outcome_text
from gm.mail.commands import Context, Lines
from gm.mail.commands.join import SEVERAL_POWERS
from gm.mail.commands.whogame import anonymous, game_asked
from gm.view.press import describe as describe_press
from gm.view.press import press_kind
from gm.store.models import Game, GameStatus
from gm.view.results import moment_text

NAME = "INFO"
ALIASES = ("GET INFO",)
USAGE = "INFO <game>   (or GET INFO <game>; after SIGNON the game may be left out)"
HELP = _("a game's variant, powers, centres to win, deadlines, house rules, press and GM, before you join")


def run(ctx: Context, args: list[str], line: str) -> None:
    game = game_asked(ctx, args, line, NAME, USAGE)
    if game is None:
        return
    ctx.add_section(_("Game {game}", game=game.name), Lines(describe(ctx, game)))
    ctx.accept(line, _("see below"))


def describe(ctx: Context, game: Game) -> list[str]:
    """The lines of INFO, each a sentence (a Text) or a line of the house rules."""
    variant = variant_of(game)
    rules = rules_of(game.options)
    taken = {p.power for p in active_players(ctx.session, game)}
    great = variant.great_powers
    lines = [_("Variant: {variant}", variant=variant.title), _("Status: {status}", status=_status(ctx, game))]
    # TRANSLATORS: each power with whether it is taken, e.g. 'Austria (taken), England (open)'
    powers = [_("{power} (taken)", power=p) if p in taken else _("{power} (open)", power=p) for p in great]
    lines.append(_("Powers ({count}): {powers}", count=len(great), powers=powers))
    minors = [p.name for p in variant.powers.values() if p.minor]
    if minors:
        lines.append(_("Minor powers (played by nobody): {powers}", powers=", ".join(minors)))
    lines.append(_n("To win: {count} supply centre", "To win: {count} supply centres", variant.victory_centres))
    lines += rules.describe(bidding=variant.has_bidding)
    lines.append(_("Press: {press}; PRESS TO GM always reaches the GM", press=describe_press(press_kind(game))))
    lines.append(_("Players: anonymous (WHOGAME shows which powers are taken, not who plays them)")
                 if anonymous(game) else _("Players: WHOGAME shows who plays which power"))
    if (game.options or {}).get(SEVERAL_POWERS):
        lines.append(_("One address may play several powers"))
    if game.require_dkim:
        lines.append(_("Sign-ons are read only in mail signed with DKIM by the sender's own domain"))
    gms = masters(ctx.session, game)
    lines.append(_("GM: {addresses}", addresses=", ".join(gms)) if gms else _("GM: none"))
    if game.status == GameStatus.FORMING:
        lines.append(_("To play: JOIN {game} <power> <password>", game=game.name))
    return lines


def _status(ctx: Context, game: Game) -> str:
    if game.status == GameStatus.FORMING:
        return _("forming: taking players")
    if game.status == GameStatus.FINISHED:
        return _("over ({outcome})", outcome=outcome_text(game.outcome)) if game.outcome else _("over")
    phase = ctx.lookups.phase(game)
    if phase is None:
        return _("under way")
    deadline = phase.row.deadline_at or game.deadline_at
    if game.paused_at is not None:
        return _("under way, {phase}, paused by the GM", phase=phase_name(phase.row.label))
    if deadline is not None:
        return _("under way, {phase}, deadline {deadline}", phase=phase_name(phase.row.label),
                 deadline=moment_text(deadline, rules_of(game.options).timezone))
    return _("under way, {phase}", phase=phase_name(phase.row.label))
