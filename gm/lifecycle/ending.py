"""A game started and ended at the GM's word: START (a forming game now, with the powers taken),
TERMINATE, and the final position and the centres year by year that the mail ending a game shows
(draws and concessions are in gm.lifecycle.draws). Pure of mail: the callers tell the players.

Every function works in the caller's transaction and raises GameError (the reason, for the GM or
the player) changing nothing when it cannot be done."""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session, object_session

from gm.engine.variant import Variant
from gm.games import CurrentPhase, GameError, active_players
from gm.i18n import Text, Written, _, _p, translated
from gm.lifecycle import draws, phases
from gm.lifecycle.overview import status_word
from gm.lifecycle.phase_names import season_year, year_name
from gm.store.models import Game, GameStatus

# TRANSLATORS: how a game ended (after 'the game is over:')
TERMINATED = _("terminated by the GM")
TABLE_WIDTH = 78  # where a reader's mail program wraps plain text
FINAL_POSITION = "The final position"  # how the end's summary starts in English (final_position)


# How a game ended, as games.outcome keeps it (English) and as a reader reads it.
_OUTCOMES: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [(re.compile(p), words) for p, words in (
    (r"terminated by the GM", lambda m: TERMINATED),
    (r"drawn between (?P<powers>.+)", lambda m: draws.drawn_between(m["powers"])),
    (r"won by (?P<power>.+) by concession", lambda m: draws.won_by_concession(m["power"])),
    (r"won by (?P<power>.+), ahead when the game ended in (?P<year>.+)",
     lambda m: phases.won_ahead(m["power"], m["year"])),
    (r"won by (?P<power>.+)", lambda m: phases.won_by(m["power"])),
    (r"ended in (?P<year>.+) with no power ahead", lambda m: phases.ended_level(m["year"])),
)]


def outcome_text(outcome: str | None) -> Any:
    """How a game ended (games.outcome, a report's 'ended': the English the judge kept), as a
    reader reads it: a Text equal to the stored words; None and words of no known form as they are."""
    if not outcome:
        return outcome
    for pattern, words in _OUTCOMES:
        if m := pattern.fullmatch(outcome):
            return words(m)
    return outcome


def start_now(session: Session, game: Game, now: datetime) -> CurrentPhase:
    """A forming game starts now with the powers taken so far (those nobody plays hold)."""
    if game.status != GameStatus.FORMING:
        raise GameError(_("{game} is {status}, not forming", game=game.name, status=status_word(game.status)))
    if not any(p.power for p in active_players(session, game)):
        raise GameError(_("nobody has joined {game} yet: there is nothing to start", game=game.name))
    return phases.start(session, game, now)


def terminate(session: Session, game: Game, now: datetime) -> None:
    """The game ends now, as it stands: it takes no more orders."""
    if game.status == GameStatus.FINISHED:
        raise GameError(_("{game} is over already ({outcome})", game=game.name,
                          outcome=outcome_text(game.outcome) or status_word(GameStatus.FINISHED)))
    draws.clear(game)
    game.paused_at = None
    phases.finish(session, game, now, TERMINATED)


def final_position(variant: Variant, current: CurrentPhase) -> str:
    """The position a game ended in, for the mail that ends it (a Text, laid out in the reader's
    language): each major power's centres and units, most centres first, and the minor powers'
    centres where the variant has them; then every power's centres year by year, once a year has
    been played (see centre_table)."""
    state = current.state
    centres: dict[str, int] = {}
    for owner in state.supply_centres.values():
        centres[owner] = centres.get(owner, 0) + 1
    majors = variant.rules.major_powers(variant, state)
    rows = [(power, centres.get(power, 0), len(state.units_of(power)))
            for power in sorted(majors, key=lambda p: (-centres.get(p, 0), p))]
    minor = None
    if any(p.minor for p in variant.powers.values()):
        minor = sum(n for owner, n in centres.items() if owner not in majors)
    session = object_session(current.row)  # the caller's: the phases played, for the centres year by year
    game = session.get(Game, current.row.game_id) if session is not None else None
    table = centre_table(session, game, variant) if session is not None and game is not None else ""
    return Written(_final_position, current.row.label, rows, minor, table)


def _final_position(language: str, label: str, rows: list[tuple[str, int, int]], minor: int | None,
                    table: str) -> str:
    def said(text: Text) -> str:
        return translated(text, language)

    # TRANSLATORS: the heading of the position a game ended in: 'The final position (Fall 1905):'
    lines = [said(_("The final position ({when}):", when=season_year(label)))]
    for power, centres, units in rows:
        name, owned, standing = power.ljust(20), str(centres).rjust(2), str(units).rjust(2)  # padded to line up
        # TRANSLATORS: a line of a table: the numbers are padded to line up
        lines.append("  " + said(_("{power} {centres} centres, {units} units", power=name, centres=owned,
                                   units=standing)))
    if minor is not None:
        minors, owned = said(_("minor powers")).ljust(20), str(minor).rjust(2)
        # TRANSLATORS: a line of a table: the number is padded to line up
        lines.append("  " + said(_("{power} {centres} centres", power=minors, centres=owned)))
    if table:
        lines += ["", said(_("Supply centres, year by year:")), said(table)]  # type: ignore[arg-type]
    return "\n".join(lines)


def centre_table(session: Session, game: Game, variant: Variant) -> str:
    """The supply centres of every major power year by year, for the mail that ends a game: at
    the start, then as each year's last phase adjudicated left them (the last row: the end),
    with the minor powers' together where the variant has them (a Text, laid out in the reader's
    language). '' before any phase is played."""
    rows = phases.history(session, game)
    if not rows:
        return ""
    powers = list(variant.great_powers)
    minors = any(p.minor for p in variant.powers.values())

    def counts(centres: dict[str, int]) -> list[int]:
        return [centres.get(p, 0) for p in powers] + ([sum(n for p, n in centres.items() if p not in powers)]
                                                        if minors else [])

    lines: list[tuple[str, list[int]]] = [("", counts(Counter(phases.position(rows[0]).supply_centres.values())))]
    by_year: dict[int, dict[str, int]] = {}
    for row in rows:
        centres = (row.results_json or {}).get("centres")
        if centres is not None:
            by_year[phases.position(row).phase.year] = centres
    lines += [(variant.rules.year_label(year), counts(centres)) for year, centres in by_year.items()]
    return Written(_centre_table, powers, minors, lines)


def _centre_table(language: str, powers: list[str], minors: bool, rows: list[tuple[str, list[int]]]) -> str:
    # TRANSLATORS: the first row of the table of centres year by year: before the first year
    start = translated(_p("centre table", "start"), language)
    lines = [(translated(year_name(year), language) if year else start, values) for year, values in rows]
    headers = powers + ([translated(_("minor powers"), language)] if minors else [])
    first = max(len(label) for label, _values in lines)
    widths = [max(len(h), 2) for h in headers]
    # The powers' columns in blocks, one under the other, each within a mail's line (TABLE_WIDTH).
    blocks: list[list[int]] = [[]]
    for i, w in enumerate(widths):
        if blocks[-1] and first + sum(2 + widths[j] for j in blocks[-1]) + 2 + w > TABLE_WIDTH:
            blocks.append([])
        blocks[-1].append(i)
    out: list[str] = []
    for block in blocks:
        if out:
            out.append("")
        out.append(" " * first + "".join(f"  {headers[i]:>{widths[i]}}" for i in block))
        out += [f"{label:<{first}}" + "".join(f"  {values[i]:>{widths[i]}}" for i in block) for label, values in lines]
    return "\n".join(line.rstrip() for line in out)
