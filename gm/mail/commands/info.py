"""INFO <game> (or GET INFO): what a player needs to know of a game before joining it: the
variant, its powers and the centres that win, the deadlines and the other house rules, press,
anonymity, and the GM's addresses."""
from __future__ import annotations

from gm.games import active_players, masters, variant_of
from gm.lifecycle.house_rules import rules_of
from gm.mail.commands import Context
from gm.mail.commands.join import SEVERAL_POWERS
from gm.mail.commands.whogame import anonymous, game_asked
from gm.mail.outgoing.game_mail import deadline_text
from gm.view.press import describe as describe_press
from gm.view.press import press_kind
from gm.store.models import Game, GameStatus

NAME = "INFO"
ALIASES = ("GET INFO",)
USAGE = "INFO <game>   (or GET INFO <game>; after SIGNON the game may be left out)"
HELP = "a game's variant, powers, centres to win, deadlines, house rules, press and GM, before you join"


def run(ctx: Context, args: list[str], line: str) -> None:
    game = game_asked(ctx, args, line, NAME, USAGE)
    if game is None:
        return
    ctx.add_section(f"Game {game.name}", "\n".join(describe(ctx, game)))
    ctx.accept(line, "see below")


def describe(ctx: Context, game: Game) -> list[str]:
    variant = variant_of(game)
    rules = rules_of(game.options)
    taken = {p.power for p in active_players(ctx.session, game)}
    great = variant.great_powers
    lines = [f"Variant: {variant.title}", f"Status: {_status(ctx, game)}"]
    lines.append(f"Powers ({len(great)}): " + ", ".join(
        f"{p} ({'taken' if p in taken else 'open'})" for p in great))
    minors = [p.name for p in variant.powers.values() if p.minor]
    if minors:
        lines.append(f"Minor powers (played by nobody): {', '.join(minors)}")
    lines.append(f"To win: {variant.victory_centres} supply centres")
    lines += rules.describe(bidding=variant.has_bidding)
    lines.append(f"Press: {describe_press(press_kind(game))}; PRESS TO GM always reaches the GM")
    lines.append("Players: " + ("anonymous (WHOGAME shows which powers are taken, not who plays them)"
                                if anonymous(game) else "WHOGAME shows who plays which power"))
    if (game.options or {}).get(SEVERAL_POWERS):
        lines.append("One address may play several powers")
    if game.require_dkim:
        lines.append("Sign-ons are read only in mail signed with DKIM by the sender's own domain")
    gms = masters(ctx.session, game)
    lines.append(f"GM: {', '.join(gms) if gms else 'none'}")
    if game.status == GameStatus.FORMING:
        lines.append(f"To play: JOIN {game.name} <power> <password>")
    return lines


def _status(ctx: Context, game: Game) -> str:
    if game.status == GameStatus.FORMING:
        return "forming: taking players"
    if game.status == GameStatus.FINISHED:
        return "over" + (f" ({game.outcome})" if game.outcome else "")
    phase = ctx.lookups.phase(game)
    if phase is None:
        return "under way"
    deadline = phase.row.deadline_at or game.deadline_at
    said = f"under way, {phase.row.label}"
    if game.paused_at is not None:
        return said + ", paused by the GM"
    if deadline is not None:
        said += f", deadline {deadline_text(deadline, rules_of(game.options).timezone)}"
    return said
