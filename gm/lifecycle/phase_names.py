"""Phases as people write them: 'Spring 1901', 'S1901', 'F1901M', 'Fall 1901 retreats', 'Spring
273 BC' (RESULTS, MAP, gm map render), and the stored phase a name stands for; and a phase's label
as a reader reads it, in the reader's language ('Spring 1901, Movement': 'Printemps 1901, ...')."""
from __future__ import annotations

import re

from sqlalchemy import select
from sqlalchemy.orm import Session

from gm.engine.model import Phase, PhaseKind, Season
from gm.engine.variant import Variant
from gm.i18n import Text, _, _p
from gm.store.models import Game, GamePhase

_SEASONS = {"s": Season.SPRING, "spring": Season.SPRING, "f": Season.FALL, "fall": Season.FALL,
            "autumn": Season.FALL, "a": Season.FALL, "w": Season.WINTER, "winter": Season.WINTER}
_KINDS = {
    **dict.fromkeys(("m", "move", "moves", "movement", "movements"), PhaseKind.MOVEMENT),
    **dict.fromkeys(("r", "retreat", "retreats", "retreating"), PhaseKind.RETREAT),
    **dict.fromkeys(("second retreat", "second retreats"), PhaseKind.SECOND_RETREAT),
    **dict.fromkeys(("a", "b", "adjust", "adjustment", "adjustments", "build", "builds"), PhaseKind.ADJUSTMENT),
    **dict.fromkeys(("bid", "bids", "bidding"), PhaseKind.BIDDING),
}
# njudge's short form: 'S1901', 'F1901M', 'W1901B', 'F1901R'.
_SHORT = re.compile(r"([sfw])(\d+)([mrab])?", re.IGNORECASE)


def read_phase(variant: Variant, text: str) -> Phase | None:
    """'Spring 1901', 'S1901', 'F1901M', 'W1901', 'Fall 1901 retreats', 'Spring 273 BC' (in the
    variant's years) -> the phase; without a kind, the season's movement (winter: adjustments).
    None when it is no phase."""
    words = text.replace(",", " ").lower().split()
    if not words:
        return None
    if variant.rules.impulses > 1:  # a turn is a year: 'Year 1700', '1700', '1700 turn'
        year_words = [w for w in words if w not in ("year", "turn")]
        year = variant.rules.parse_year(" ".join(year_words)) if year_words else None
        if year is not None:
            return Phase(year, variant.first_phase.season, PhaseKind.MOVEMENT)
    kind: PhaseKind | None = None
    short = _SHORT.fullmatch(words[0])
    if short and len(words) == 1:
        season = _SEASONS[short.group(1).lower()]
        year_text = short.group(2)
        if short.group(3):
            kind = _KINDS[short.group(3).lower()]
    else:
        season_word, *rest = words
        if season_word not in _SEASONS or len(season_word) == 1 and not rest:
            return None
        season = _SEASONS[season_word]
        if len(rest) > 2 and f"{rest[-2]} {rest[-1]}" in _KINDS:  # 'Spring 1801 second retreat'
            kind = _KINDS[f"{rest[-2]} {rest[-1]}"]
            del rest[-2:]
        elif len(rest) > 1 and rest[-1] in _KINDS:
            kind = _KINDS[rest.pop()]
        year_text = " ".join(rest)
    year = variant.rules.parse_year(year_text)
    if year is None:
        return None
    if kind is None:
        kind = PhaseKind.ADJUSTMENT if season is Season.WINTER else PhaseKind.MOVEMENT
    return Phase(year, season, kind)


def find_phase(session: Session, game: Game, phase: Phase, variant: Variant) -> GamePhase | None:
    """The stored phase of `game` that `phase` names; None when the game has had no such phase."""
    label = variant.phase_label(phase)
    return session.scalar(select(GamePhase).where(GamePhase.game_id == game.id, GamePhase.label == label))


# --- a phase as a reader reads it -----------------------------------------------------------------

_SEASON_WORDS: dict[str, Text] = {
    Season.SPRING.value: _p("season", "Spring"),
    Season.FALL.value: _p("season", "Fall"),
    Season.WINTER.value: _p("season", "Winter"),
}
_KIND_WORDS: dict[str, Text] = {
    PhaseKind.MOVEMENT.value: _p("phase", "Movement"),
    PhaseKind.RETREAT.value: _p("phase", "Retreat"),
    PhaseKind.ADJUSTMENT.value: _p("phase", "Adjustment"),
    PhaseKind.BIDDING.value: _p("phase", "Bidding"),
    PhaseKind.SECOND_RETREAT.value: _p("phase", "Second retreat"),
}
# A label as Variant.phase_label writes it: 'Spring 1901, Movement', 'Spring 273 BC, Movement', 'Year 1700'.
_LABEL = re.compile(rf"({'|'.join(_SEASON_WORDS)}) (.+?)(?:, ({'|'.join(_KIND_WORDS)}))?")
_TURN = re.compile(r"Year (.+)")
_BC = re.compile(r"(\d+) BC")
_AD = re.compile(r"AD (\d+)")


def year_name(year: str) -> str:
    """A year as a label writes it ('1901', '273 BC', 'AD 5'), as a reader reads it."""
    if m := _BC.fullmatch(year):
        # TRANSLATORS: a year before Christ (the Classical variant)
        return _("{year} BC", year=m.group(1))
    if m := _AD.fullmatch(year):
        # TRANSLATORS: a year after Christ (the Classical variant)
        return _("AD {year}", year=m.group(1))
    return year


def season_name(season: str) -> str:
    """'Spring', 'Fall', 'Winter' (Season's values) as a reader reads them."""
    return _SEASON_WORDS.get(season, season)


def season_year(label: str) -> str:
    """'Spring 1901, Movement' -> 'Spring 1901' (a Text: the reader's words for it); 'Year 1700'
    stays itself. A label of no known form is given back as it is."""
    if m := _TURN.fullmatch(label):
        # TRANSLATORS: a turn of the 1700AD II variant, which is a whole year
        return _("Year {year}", year=year_name(m.group(1)))
    if m := _LABEL.fullmatch(label):
        # TRANSLATORS: a season and a year: 'Spring 1901'
        return _("{season} {year}", season=_SEASON_WORDS[m.group(1)], year=year_name(m.group(2)))
    return label.partition(",")[0]


def phase_name(label: str) -> str:
    """A phase's label ('Spring 1901, Movement', Variant.phase_label) as a reader reads it: a Text
    that reads as the label itself in English. A label of no known form is given back as it is."""
    m = _LABEL.fullmatch(label)
    if m is None or m.group(3) is None:
        return season_year(label) if m is not None or _TURN.fullmatch(label) else label
    # TRANSLATORS: a phase: season, year and kind of phase: 'Spring 1901, Movement'
    return _("{season} {year}, {kind}", season=_SEASON_WORDS[m.group(1)], year=year_name(m.group(2)),
             kind=_KIND_WORDS[m.group(3)])
