"""RESULTS [phase]: the results of a past phase again, as they were mailed (your own secret
allocations with them, nobody else's)."""
from __future__ import annotations

import re

from sqlalchemy import select

from gm.engine.model import Phase, PhaseKind, Season
from gm.engine.variant import Variant
from gm.games import variant_of
from gm.lifecycle.phases import position
from gm.mail.commands import Context
from gm.mail.game_mail import results_text
from gm.mail.message import ACK_MARKER
from gm.store.models import GamePhase

NAME = "RESULTS"
USAGE = "RESULTS [phase]   (e.g. RESULTS Spring 1901, RESULTS F1901M, RESULTS Fall 1901 retreats)"
HELP = "the results of a past phase again; without a phase, of the last one adjudicated"

_SEASONS = {"s": Season.SPRING, "spring": Season.SPRING, "f": Season.FALL, "fall": Season.FALL,
            "autumn": Season.FALL, "a": Season.FALL, "w": Season.WINTER, "winter": Season.WINTER}
_KINDS = {
    **dict.fromkeys(("m", "move", "moves", "movement", "movements"), PhaseKind.MOVEMENT),
    **dict.fromkeys(("r", "retreat", "retreats", "retreating"), PhaseKind.RETREAT),
    **dict.fromkeys(("a", "b", "adjust", "adjustment", "adjustments", "build", "builds"), PhaseKind.ADJUSTMENT),
}
# njudge's short form: 'S1901', 'F1901M', 'W1901B', 'F1901R'.
_SHORT = re.compile(r"([sfw])(\d+)([mrab])?", re.IGNORECASE)


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    game, power = ctx.game, ctx.player.power
    variant = variant_of(game)
    if args:
        phase = read_phase(variant, " ".join(args))
        if phase is None:
            ctx.reject(line, f"{' '.join(args)!r} is no phase: usage: {USAGE}")
            return
        label = variant.phase_label(phase)
        row = ctx.session.scalar(select(GamePhase).where(GamePhase.game_id == game.id, GamePhase.label == label))
        if row is None:
            ctx.reject(line, f"{game.name} has had no phase {label}")
            return
        if row.adjudicated_at is None or not row.results_json:
            ctx.reject(line, f"{label} has not been adjudicated yet: it is the phase under way")
            return
    else:
        row = ctx.session.scalar(
            select(GamePhase).where(GamePhase.game_id == game.id, GamePhase.adjudicated_at.is_not(None))
            .order_by(GamePhase.seq.desc()).limit(1))
        if row is None or not row.results_json:
            ctx.reject(line, f"no phase of {game.name} has been adjudicated yet")
            return
    text = results_text(game, variant, row.results_json, viewer=power, gm=False, before=position(row))
    if text.startswith(ACK_MARKER):  # the acknowledgement it goes in has its own
        text = text[len(ACK_MARKER):].lstrip("\n")
    ctx.sections.append((f"Results of {row.label} in {game.name}", text))
    ctx.accept(line, f"{row.label}: see below")


def read_phase(variant: Variant, text: str) -> Phase | None:
    """'Spring 1901', 'S1901', 'F1901M', 'W1901', 'Fall 1901 retreats', 'Spring 273 BC' (in the
    variant's years) -> the phase; without a kind, the season's movement (winter: adjustments).
    None when it is no phase."""
    words = text.replace(",", " ").lower().split()
    if not words:
        return None
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
        if len(rest) > 1 and rest[-1] in _KINDS:
            kind = _KINDS[rest.pop()]
        year_text = " ".join(rest)
    year = variant.rules.parse_year(year_text)
    if year is None:
        return None
    if kind is None:
        kind = PhaseKind.ADJUSTMENT if season is Season.WINTER else PhaseKind.MOVEMENT
    return Phase(year, season, kind)
