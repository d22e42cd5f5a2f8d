"""A game started and ended at the GM's word: START (a forming game now, with the powers taken),
TERMINATE, and a draw the GM proposes and the powers named must all accept. Pure of mail: the
callers tell the players.

Every function works in the caller's transaction and raises GameError (the reason, for the GM or
the player) changing nothing when it cannot be done."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from sqlalchemy.orm import Session

from gm.engine.parse import resolve_power
from gm.engine.variant import Variant
from gm.games import CurrentPhase, GameError, active_players, variant_of
from gm.lifecycle import phases
from gm.lifecycle.players import still_in
from gm.lifecycle.timing import set_options, under_way
from gm.store.models import Game, GameStatus

DRAW_KEY = "draw"  # games.options: the open draw proposal
TERMINATED = "terminated by the GM"


def start_now(session: Session, game: Game, now: datetime) -> CurrentPhase:
    """A forming game starts now with the powers taken so far (those nobody plays hold)."""
    if game.status != GameStatus.FORMING:
        raise GameError(f"{game.name} is {game.status}, not forming")
    if not any(p.power for p in active_players(session, game)):
        raise GameError(f"nobody has joined {game.name} yet: there is nothing to start")
    return phases.start(session, game, now)


def terminate(session: Session, game: Game, now: datetime) -> None:
    """The game ends now, as it stands: it takes no more orders."""
    if game.status == GameStatus.FINISHED:
        raise GameError(f"{game.name} is over already ({game.outcome or 'finished'})")
    set_options(game, {DRAW_KEY: None})
    game.paused_at = None
    phases.finish(session, game, now, TERMINATED)


def final_position(variant: Variant, current: CurrentPhase) -> str:
    """The position a game ended in, for the mail that ends it: each major power's centres and
    units, most centres first, and the minor powers' centres where the variant has them."""
    state = current.state
    centres: dict[str, int] = {}
    for owner in state.supply_centres.values():
        centres[owner] = centres.get(owner, 0) + 1
    majors = variant.rules.major_powers(variant, state)
    lines = [f"The final position ({current.row.label.partition(',')[0]}):"]
    for power in sorted(majors, key=lambda p: (-centres.get(p, 0), p)):
        lines.append(f"  {power:20} {centres.get(power, 0):2d} centres, {len(state.units_of(power)):2d} units")
    if any(p.minor for p in variant.powers.values()):
        minor = sum(n for owner, n in centres.items() if owner not in majors)
        lines.append(f"  {'minor powers':20} {minor:2d} centres")
    return "\n".join(lines)


# --- draws ------------------------------------------------------------------------------------


@dataclass
class Draw:
    """A draw the GM proposed: the powers it names, in the variant's order, and those that accepted."""

    powers: list[str]
    accepted: list[str] = field(default_factory=list)

    @property
    def outcome(self) -> str:
        return f"drawn between {', '.join(self.powers)}"


def open_draw(game: Game) -> Draw | None:
    stored = (game.options or {}).get(DRAW_KEY)
    if not stored or game.status != GameStatus.ACTIVE:
        return None
    return Draw(list(stored["powers"]), list(stored.get("accepted", [])))


def _keep(game: Game, draw: Draw | None) -> None:
    set_options(game, {DRAW_KEY: None if draw is None else {"powers": draw.powers, "accepted": draw.accepted}})


def read_powers(variant: Variant, text: str) -> list[str]:
    """Power names as players write them, between commas and/or spaces ('France, Germany Italy',
    'Great Britain,Prussia'), in the variant's order; GameError names the first that is none."""
    found: list[str] = []
    for part in (p.strip() for p in re.split(r"[,;]", text)):
        if not part:
            continue
        whole = resolve_power(variant, part)
        if whole is not None:
            found.append(whole)
            continue
        words = part.split()
        i = 0
        while i < len(words):  # the longest run of words that names a power
            for j in range(len(words), i, -1):
                power = resolve_power(variant, " ".join(words[i:j]))
                if power is not None:
                    found.append(power)
                    i = j
                    break
            else:
                raise GameError(f"{words[i]!r} is no power of {variant.title}")
    order = list(variant.powers)
    return sorted(set(found), key=order.index)


def propose_draw(session: Session, game: Game, text: str) -> tuple[Draw, Draw | None, dict[str, str]]:
    """The GM proposes a draw between the powers `text` names, each still in the game (units or
    centres) and played by someone (who votes); it replaces an open proposal. Returns the new
    proposal, the one it replaced, and the address of each power named."""
    current = under_way(session, game)
    variant = variant_of(game)
    powers = read_powers(variant, text)
    if len(powers) < 2:
        raise GameError("a draw is between two powers or more: DRAW <power>,<power>,...")
    out = [p for p in powers if not still_in(current, p)]
    if out:
        raise GameError(f"{', '.join(out)} {'has' if len(out) == 1 else 'have'} neither units nor centres: "
                        "only powers still in the game share a draw")
    players = {p.power: p.email for p in active_players(session, game) if p.power}
    unplayed = [p for p in powers if p not in players]
    if unplayed:
        raise GameError(f"nobody plays {', '.join(unplayed)}: a draw is voted by the players of the powers named")
    replaced = open_draw(game)
    draw = Draw(powers)
    _keep(game, draw)
    return draw, replaced, {p: players[p] for p in powers}


Vote = Literal["accepted", "drawn", "rejected"]


def vote(session: Session, game: Game, power: str, accept: bool, now: datetime) -> tuple[Vote, Draw]:
    """`power` accepts or rejects the open draw: once every power named accepted, the game ends in
    it; one rejection ends the proposal. GameError when `power` has no draw to vote on."""
    draw = open_draw(game)
    if draw is None or power not in draw.powers:
        raise GameError(f"there is no draw proposal for {power} to vote on in {game.name}")
    if not accept:
        _keep(game, None)
        return "rejected", draw
    if power in draw.accepted:
        raise GameError(f"{power} has accepted this draw already")
    draw.accepted.append(power)
    if set(draw.accepted) == set(draw.powers):
        _keep(game, None)
        game.paused_at = None
        phases.finish(session, game, now, draw.outcome)
        return "drawn", draw
    _keep(game, draw)
    return "accepted", draw
