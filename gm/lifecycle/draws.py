"""How a game ends by the players' consent: a draw (proposed by the GM, or by a player where the
house rule `draw` allows it) and a concession. Pure of mail: the callers tell the players.

The house rule `draw` (gm.lifecycle.house_rules) says who proposes a draw and who must accept it:

* ``gm`` (the default): only the GM proposes one (DRAW); every power it names must accept.
* ``dias``: any surviving power proposes one (PROPOSE DRAW); it includes every surviving power
  (Draws Include All Survivors) and every one of them must accept.
* ``named``: any surviving power proposes one naming the powers to share it (PROPOSE DRAW <powers>);
  as on njudge, it passes only when every surviving power accepts it, those it leaves out too.

A power votes by ACCEPT DRAW or REJECT DRAW (njudge's SET DRAW [powers] and SET NODRAW do the
same); proposing is accepting. One rejection ends a proposal. A player's proposal lapses at the
end of the phase it was made in; the GM's stands until voted down or replaced. The powers that
vote are told of a proposal and of its failure, the others of neither (only of the game's end).
Votes are told to nobody but the GM. Only powers played by somebody vote: a surviving power
nobody plays shares a draw of all survivors but does not vote on it.

CONCEDE <power>: once every other surviving power (played by somebody) concedes to the same power
in the same phase, the game ends in that power's victory. Concessions are told to nobody but the GM.

Every function works in the caller's transaction and raises GameError (the reason, for the GM or
the player) changing nothing when it cannot be done."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from sqlalchemy.orm import Session

from gm.engine.parse import resolve_power
from gm.engine.variant import Variant
from gm.games import CurrentPhase, GameError, active_players, variant_of
from gm.i18n import _, _n
from gm.lifecycle import phases
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.players import still_in
from gm.lifecycle.timing import set_options, under_way
from gm.store.models import Game, GameStatus

DRAW_KEY = "draw"  # games.options: the open draw proposal
CONCEDE_KEY = "concessions"  # games.options: this phase's concessions, power -> the power conceded to



@dataclass
class Draw:
    """A draw proposed: the powers sharing it, in the variant's order, those whose acceptance it
    needs, and those that accepted. `by`: the power that proposed it (None: the GM); `phase_id`:
    the phase at whose end it lapses (None: it stands until answered)."""

    powers: list[str]
    voters: list[str] = field(default_factory=list)
    accepted: list[str] = field(default_factory=list)
    by: str | None = None
    phase_id: int | None = None

    def __post_init__(self) -> None:
        if not self.voters:
            self.voters = list(self.powers)

    @property
    def outcome(self) -> str:
        return drawn_between(", ".join(self.powers))

    def stored(self) -> dict[str, Any]:
        """As kept in games.options[DRAW_KEY]: the GM's proposal as {powers, accepted}."""
        out: dict[str, Any] = {"powers": self.powers, "accepted": self.accepted}
        if self.by is not None:
            out.update(voters=self.voters, by=self.by, phase_id=self.phase_id)
        return out


def drawn_between(powers: str) -> str:
    # TRANSLATORS: how a game ended: 'drawn between France, Germany'
    return _("drawn between {powers}", powers=powers)


def won_by_concession(power: str) -> str:
    # TRANSLATORS: how a game ended
    return _("won by {power} by concession", power=power)


def open_draw(game: Game, current: CurrentPhase | None) -> Draw | None:
    """The proposal open in the phase `current`: none once the game is over or the phase a
    player's proposal was made in has ended."""
    stored = (game.options or {}).get(DRAW_KEY)
    if not stored or game.status != GameStatus.ACTIVE:
        return None
    draw = Draw(list(stored["powers"]), list(stored.get("voters") or []), list(stored.get("accepted", [])),
                stored.get("by"), stored.get("phase_id"))
    if draw.phase_id is not None and (current is None or current.row.id != draw.phase_id):
        return None
    return draw


def _keep(game: Game, draw: Draw | None) -> None:
    set_options(game, {DRAW_KEY: None if draw is None else draw.stored()})


def clear(game: Game) -> None:
    """The game ends otherwise: no proposal or concession is left open."""
    set_options(game, {DRAW_KEY: None, CONCEDE_KEY: None})


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
                raise GameError(_("{name} is no power of {variant}", name=repr(words[i]), variant=variant.title))
    order = list(variant.powers)
    return sorted(set(found), key=order.index)


def _players(session: Session, game: Game) -> dict[str, str]:
    """Power -> the address of who plays it."""
    return {p.power: p.email for p in active_players(session, game) if p.power}


def survivors(current: CurrentPhase, variant: Variant) -> list[str]:
    """The powers with units or centres, in the variant's order."""
    return [p for p in variant.powers if still_in(current, p)]


def _all_in(current: CurrentPhase, powers: list[str], what: str) -> None:
    """GameError when any of `powers` is out of the game; `what`: 'share' or 'win'."""
    out = [p for p in powers if not still_in(current, p)]
    if not out:
        return
    if what == "share":
        raise GameError(_n("{powers} has neither units nor centres: only powers still in the game share a draw",
                           "{powers} have neither units nor centres: only powers still in the game share a draw",
                           len(out), powers=", ".join(out)))
    raise GameError(_n("{powers} has neither units nor centres: only powers still in the game win by concession",
                       "{powers} have neither units nor centres: only powers still in the game win by concession",
                       len(out), powers=", ".join(out)))


def propose_draw(session: Session, game: Game, text: str) -> tuple[Draw, Draw | None, dict[str, str]]:
    """The GM proposes a draw between the powers `text` names, each still in the game (units or
    centres) and played by someone (who votes); it replaces an open proposal. Returns the new
    proposal, the one it replaced, and the address of each power named."""
    current = under_way(session, game)
    powers = read_powers(variant_of(game), text)
    if len(powers) < 2:
        raise GameError(_("a draw is between two powers or more: DRAW <power>,<power>,..."))
    _all_in(current, powers, "share")
    players = _players(session, game)
    unplayed = [p for p in powers if p not in players]
    if unplayed:
        raise GameError(_("nobody plays {powers}: a draw is voted by the players of the powers named",
                          powers=", ".join(unplayed)))
    replaced = open_draw(game, current)
    draw = Draw(powers)
    _keep(game, draw)
    return draw, replaced, {p: players[p] for p in powers}


Vote = Literal["accepted", "drawn", "rejected"]


def _voter(current: CurrentPhase, power: str, what: str) -> None:
    """GameError when `power` is out of the game; `what`: 'propose', 'concede' or 'vote'."""
    if still_in(current, power):
        return
    if what == "propose":
        raise GameError(_("{power} has neither units nor centres: only the surviving powers propose a draw",
                          power=power))
    if what == "concede":
        raise GameError(_("{power} has neither units nor centres: only the surviving powers concede", power=power))
    raise GameError(_("{power} has neither units nor centres: only the surviving powers vote on a draw", power=power))


def propose(session: Session, game: Game, power: str, text: str, now: datetime
            ) -> tuple[Vote, Draw, dict[str, str]]:
    """`power` proposes a draw under the house rule `draw` (dias: `text` names no power; named:
    the powers to share it, none meaning every survivor), accepting it by proposing. Returns
    'drawn' when that vote ends the game (every other voter nobody plays), else 'accepted'; the
    proposal; and the address of each power that votes on it."""
    rule = rules_of(game.options).draw
    if rule == "gm":
        raise GameError(_("in {game} only the GM proposes a draw (house rule draw = gm): ask the GM, or wait for "
                          "the GM's proposal to ACCEPT DRAW", game=game.name))
    current = under_way(session, game)
    _voter(current, power, "propose")
    variant = variant_of(game)
    alive = survivors(current, variant)
    if rule == "dias":
        if text.strip():
            raise GameError(_("in {game} a draw includes every surviving power (house rule draw = dias): "
                              "PROPOSE DRAW names no power", game=game.name))
        powers = alive
    else:
        powers = read_powers(variant, text) if text.strip() else alive
        if len(powers) < 2:
            raise GameError(_("a draw is between two powers or more (CONCEDE <power> gives one power the game)"))
        _all_in(current, powers, "share")
    already = open_draw(game, current)
    if already is not None and power in already.voters:
        raise GameError(_("a draw between {powers} is open already: ACCEPT DRAW or REJECT DRAW it first",
                          powers=", ".join(already.powers)))
    if already is not None:
        raise GameError(_("a draw between {powers} is open, voted on by {voters}: propose yours once it is answered",
                          powers=", ".join(already.powers), voters=", ".join(already.voters)))
    players = _players(session, game)
    voters = [p for p in alive if p in players]
    draw = Draw(powers, voters, [power], power, current.row.id)
    if set(draw.accepted) >= set(draw.voters):
        _end(session, game, draw, now)
        return "drawn", draw, {p: players[p] for p in voters}
    _keep(game, draw)
    return "accepted", draw, {p: players[p] for p in voters}


def _end(session: Session, game: Game, draw: Draw, now: datetime) -> None:
    clear(game)
    game.paused_at = None
    phases.finish(session, game, now, draw.outcome)


def vote(session: Session, game: Game, current: CurrentPhase | None, power: str, accept: bool, now: datetime
         ) -> tuple[Vote, Draw]:
    """`power` accepts or rejects the open draw: once every power that votes accepted, the game
    ends in it; one rejection ends the proposal. GameError when `power` has no draw to vote on."""
    draw = open_draw(game, current)
    if draw is None or power not in draw.voters:
        if current is not None:
            _voter(current, power, "vote")
        raise GameError(_("there is no draw proposal for {power} to vote on in {game}", power=power, game=game.name))
    if not accept:
        _keep(game, None)
        return "rejected", draw
    if power in draw.accepted:
        raise GameError(_("{power} has accepted this draw already", power=power))
    draw.accepted.append(power)
    if set(draw.accepted) >= set(draw.voters):
        _end(session, game, draw, now)
        return "drawn", draw
    _keep(game, draw)
    return "accepted", draw


# --- concession -------------------------------------------------------------------------------


@dataclass
class Concession:
    """This phase's concessions: power -> the power it concedes to."""

    to: str | None  # the power the last concession went to (None: withdrawn)
    conceded: list[str]  # the powers that concede to `to`
    needed: list[str]  # the surviving powers, played by somebody, that must concede to `to`

    @property
    def outcome(self) -> str:
        return won_by_concession(self.to or "")


def concede(session: Session, game: Game, power: str, text: str, now: datetime) -> tuple[bool, Concession]:
    """`power` concedes the game to the power `text` names ('NONE' withdraws its concession):
    once every other surviving power played by somebody concedes to it in this phase, the game
    ends in its victory. Returns whether it ended, and where the concessions stand."""
    current = under_way(session, game)
    _voter(current, power, "concede")
    variant = variant_of(game)
    stored = (game.options or {}).get(CONCEDE_KEY) or {}
    given: dict[str, str] = dict(stored.get("to", {})) if stored.get("phase_id") == current.row.id else {}
    if text.strip().upper() == "NONE":
        if power not in given:
            raise GameError(_("{power} has conceded to nobody in this phase", power=power))
        del given[power]
        set_options(game, {CONCEDE_KEY: {"phase_id": current.row.id, "to": given} if given else None})
        return False, Concession(None, [], [])
    to = resolve_power(variant, text.strip())
    if to is None:
        raise GameError(_("{name} is no power of {variant}: CONCEDE <power>", name=repr(text.strip()),
                          variant=variant.title))
    if to == power:
        raise GameError(_("{power} cannot concede to itself: name the power you concede the game to", power=power))
    _all_in(current, [to], "win")
    given[power] = to
    players = _players(session, game)
    needed = [p for p in survivors(current, variant) if p != to and p in players]
    concession = Concession(to, [p for p in needed if given.get(p) == to], needed)
    if set(concession.conceded) >= set(needed):
        clear(game)
        game.paused_at = None
        phases.finish(session, game, now, concession.outcome)
        return True, concession
    set_options(game, {CONCEDE_KEY: {"phase_id": current.row.id, "to": given}})
    return False, concession
