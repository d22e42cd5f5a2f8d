"""A game started and ended at the GM's word: START (a forming game now, with the powers taken),
TERMINATE, and the final position and the centres year by year that the mail ending a game shows
(draws and concessions are in gm.lifecycle.draws). Pure of mail: the callers tell the players.

Every function works in the caller's transaction and raises GameError (the reason, for the GM or
the player) changing nothing when it cannot be done."""
from __future__ import annotations

from collections import Counter
from datetime import datetime

from sqlalchemy.orm import Session, object_session

from gm.engine.variant import Variant
from gm.games import CurrentPhase, GameError, active_players
from gm.lifecycle import draws, phases
from gm.store.models import Game, GameStatus

TERMINATED = "terminated by the GM"
TABLE_WIDTH = 78  # where a reader's mail program wraps plain text
FINAL_POSITION = "The final position"  # how the end's summary starts (final_position)


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
    draws.clear(game)
    game.paused_at = None
    phases.finish(session, game, now, TERMINATED)


def final_position(variant: Variant, current: CurrentPhase) -> str:
    """The position a game ended in, for the mail that ends it: each major power's centres and
    units, most centres first, and the minor powers' centres where the variant has them; then
    every power's centres year by year, once a year has been played (see centre_table)."""
    state = current.state
    centres: dict[str, int] = {}
    for owner in state.supply_centres.values():
        centres[owner] = centres.get(owner, 0) + 1
    majors = variant.rules.major_powers(variant, state)
    lines = [f"{FINAL_POSITION} ({current.row.label.partition(',')[0]}):"]
    for power in sorted(majors, key=lambda p: (-centres.get(p, 0), p)):
        lines.append(f"  {power:20} {centres.get(power, 0):2d} centres, {len(state.units_of(power)):2d} units")
    if any(p.minor for p in variant.powers.values()):
        minor = sum(n for owner, n in centres.items() if owner not in majors)
        lines.append(f"  {'minor powers':20} {minor:2d} centres")
    session = object_session(current.row)  # the caller's: the phases played, for the centres year by year
    game = session.get(Game, current.row.game_id) if session is not None else None
    table = centre_table(session, game, variant) if session is not None and game is not None else ""
    if table:
        lines += ["", "Supply centres, year by year:", table]
    return "\n".join(lines)


def centre_table(session: Session, game: Game, variant: Variant) -> str:
    """The supply centres of every major power year by year, for the mail that ends a game: at
    the start, then as each year's last phase adjudicated left them (the last row: the end),
    with the minor powers' together where the variant has them. '' before any phase is played."""
    rows = phases.history(session, game)
    if not rows:
        return ""
    powers = list(variant.great_powers)
    minors = any(p.minor for p in variant.powers.values())

    def counts(centres: dict[str, int]) -> list[int]:
        return [centres.get(p, 0) for p in powers] + ([sum(n for p, n in centres.items() if p not in powers)]
                                                        if minors else [])

    lines: list[tuple[str, list[int]]] = [("start", counts(Counter(phases.position(rows[0]).supply_centres.values())))]
    by_year: dict[int, dict[str, int]] = {}
    for row in rows:
        centres = (row.results_json or {}).get("centres")
        if centres is not None:
            by_year[phases.position(row).phase.year] = centres
    lines += [(variant.rules.year_label(year), counts(centres)) for year, centres in by_year.items()]
    headers = powers + (["minor powers"] if minors else [])
    first = max(len(label) for label, _ in lines)
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
