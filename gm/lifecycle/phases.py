"""The end of each phase, and the opening of the next: what the scheduler does to a game.

Every function here works in the caller's transaction, on a game whose row the caller has locked
(gm.scheduler claims it with SELECT ... FOR UPDATE; ingest reads a game's phase under a share lock
of the same row, so no order lands on a phase that is being or has been adjudicated)."""
from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from gm.engine.adjudicator import adjudicate
from gm.engine.adjust import adjustment_counts
from gm.engine.model import RETREATS, GameState, PhaseKind
from gm.engine.orders import Order
from gm.engine.parse import parse_order
from gm.engine.variant import Variant
from gm.games import (CurrentPhase, OnFile, active_players, add_on_file, adjustments_in, current_phase, on_file_by_power,
                      units_without_orders, variant_of)
from gm.lifecycle.deadlines import Absence, deadline_for, fit
from gm.i18n import _, _n
from gm.lifecycle.house_rules import HouseRules, rules_of
from gm.lifecycle.phase_names import year_name
from gm.lifecycle.report import annotated, build_report, stored
from gm.store.db import state_from_json, state_to_json
from gm.store.models import AuditEntry, Game, GamePhase, GameStatus, OrderRecord, Player, SecretAllocation

log = logging.getLogger(__name__)

MAX_PHASES_AT_ONCE = 8  # phases resolved in one go (a retreat and a winter with nothing to decide)
DECLARATION = "HOME "  # how a stored declaration (str of gm.engine.orders.DeclareHome) begins
BIDS_OWED = _("its IP bids (IP 0 <minor power> to bid nothing)")


@dataclass
class PhaseEnd:
    """A phase adjudicated: its row (results in results_json) and the position it led to."""

    row: GamePhase
    report: dict[str, Any]


@dataclass
class Progress:
    """What the scheduler did to one game this time."""

    ended: list[PhaseEnd] = field(default_factory=list)  # phases adjudicated, in order
    reminders: dict[str, list[str]] = field(default_factory=dict)  # power -> what it still owes
    players: dict[str, Player] = field(default_factory=dict)  # power -> who plays it: who is told


# --- who owes what ----------------------------------------------------------------------------


def owed(variant: Variant, state: GameState) -> dict[str, int]:
    """The orders each power has to give in this phase: one per unit it commands in movement
    (its own, and in Napoleonic Wars those of the minor powers it controls), one per dislodged
    unit that may retreat, one per build or removal owed in winter, and its bids in a bidding
    phase. Powers that command no units (minor powers ordered through points) owe none."""
    rules = variant.rules
    out: dict[str, int] = {}
    kind = state.phase.kind
    if kind is PhaseKind.MOVEMENT:
        for unit in state.units.values():
            by = rules.commander(variant, state, unit.power)
            if by is not None:
                out[by] = out.get(by, 0) + 1
    elif kind in RETREATS:
        for d in state.dislodged.values():
            by = rules.commander(variant, state, d.unit.power)
            if d.retreats and by is not None:
                out[by] = out.get(by, 0) + 1
    elif kind is PhaseKind.BIDDING:
        out = {p: 1 for p in rules.major_powers(variant, state) if rules.points_available(variant, state, p)}
    else:
        for p, n in adjustment_counts(variant, state).items():
            by = rules.commander(variant, state, p)
            if by is not None:
                out[by] = out.get(by, 0) + abs(n)
        for power in rules.winter_choices(variant, state):  # a HOME declaration, say
            out[power] = out.get(power, 0) + 1
    return out


def missing(variant: Variant, state: GameState, power: str, on_file: Sequence[OnFile]) -> list[str]:
    """What `power` still owes, given its orders on file: the units it commands without orders
    ('A PAR'), or '2 builds' / '1 removal' and a declaration the rules ask for in winter, or its
    bids (in a bidding phase `on_file` holds its bids)."""
    rules = variant.rules
    kind = state.phase.kind
    if kind is PhaseKind.BIDDING:
        return [] if on_file or not rules.points_available(variant, state, power) else [BIDS_OWED]
    if kind is PhaseKind.ADJUSTMENT:
        # its own builds or removals, and those of the minor powers it controls (Napoleonic Wars)
        dues = [n for p, n in adjustment_counts(variant, state).items() if rules.commander(variant, state, p) == power]
        declared = sum(1 for o in on_file if o.canonical.startswith(DECLARATION))
        left = sum(abs(n) for n in dues) - (sum(adjustments_in(o.canonical) for o in on_file) - declared)
        out = [_owed(left, dues)] if left > 0 else []
        choice = rules.winter_choices(variant, state).get(power)
        if choice and not declared:
            out.append(choice)
        return out
    return units_without_orders(variant, state, power, list(on_file))


def _owed(left: int, dues: list[int]) -> str:
    """'2 builds', '1 removal', '3 adjustments' (builds and removals both, a commander's minor powers')."""
    if all(n > 0 for n in dues):
        return _n("{count} build", "{count} builds", left)
    if all(n < 0 for n in dues):
        return _n("{count} removal", "{count} removals", left)
    return _n("{count} adjustment", "{count} adjustments", left)


def _on_file_at(session: Session, phase: GamePhase, moment: datetime) -> dict[str, list[OnFile]]:
    """Each power's orders for the phase as they stood at `moment`: an order replaced or
    withdrawn since still counts."""
    t = OrderRecord.__table__
    query = select(t.c.power, t.c.unit, t.c.canonical).where(t.c.phase_id == phase.id, t.c.received_at <= moment)
    out: dict[str, list[OnFile]] = {}
    for power, unit, canonical in session.execute(query.order_by(t.c.id)):
        add_on_file(out.setdefault(power, []), OnFile(unit, canonical, 0))
    return out


def awaited(session: Session, game: Game, variant: Variant, current: CurrentPhase,
            players: dict[str, Player]) -> dict[str, list[str]]:
    """Powers whose player has to order this phase and has not yet given all: power -> what it
    owes. Powers in civil disorder, and those no one plays, are not awaited."""
    state = current.state
    on_file = on_file_by_power(session, owed_table(state), current.row)
    out = {}
    for power in owed(variant, state):
        player = players.get(power)
        if player is None or player.civil_disorder:
            continue
        left = missing(variant, state, power, on_file.get(power, []))
        if left:
            out[power] = left
    return out


def owed_table(state: GameState) -> type[OrderRecord] | type[SecretAllocation]:
    """Where what a power owes is kept: its orders, or in a bidding phase its secret bids."""
    return SecretAllocation if state.phase.kind is PhaseKind.BIDDING else OrderRecord


def players_by_power(session: Session, game: Game) -> dict[str, Player]:
    return {p.power: p for p in active_players(session, game) if p.power is not None}


# --- opening a phase --------------------------------------------------------------------------


def start(session: Session, game: Game, now: datetime) -> CurrentPhase:
    """Every power is taken (or the GM says so): the first phase opens, with its deadline."""
    variant = variant_of(game)
    state = variant.initial_state()
    game.status = GameStatus.ACTIVE
    row = _open(session, game, variant, state, 1, now)
    session.add(AuditEntry(game_id=game.id, actor="system", action="start game",
                           detail={"phase": row.label, "deadline": _iso(game.deadline_at)}))
    return CurrentPhase(row, state)


def _open(session: Session, game: Game, variant: Variant, state: GameState, seq: int, now: datetime,
          players: dict[str, Player] | None = None) -> GamePhase:
    rules = rules_of(game.options)
    players = players_by_power(session, game) if players is None else players
    deadline = deadline_for(now, state.phase.kind, rules, absences(players.values(), now))
    row = GamePhase(game_id=game.id, seq=seq, label=variant.phase_label(state.phase), state_json=state_to_json(state),
                    opened_at=now, deadline_at=deadline)
    session.add(row)
    session.flush()
    game.deadline_at = deadline
    game.next_check_at = next_check(rules, deadline, reminded=False, now=now)
    game.orders_changed = False
    for player in players.values():
        player.waiting = False
    return row


def absences(players: Any, now: datetime) -> list[Absence]:
    return [(p.absent_from, p.absent_until) for p in players
            if p.absent_from is not None and p.absent_until is not None and p.absent_until > now]


def next_check(rules: HouseRules, deadline: datetime, *, reminded: bool, now: datetime) -> datetime:
    """When the scheduler must look at the game next: the reminder time, else the deadline."""
    if rules.remind_before and not reminded:
        remind_at = deadline - rules.remind_before
        if remind_at > now:
            return remind_at
    return deadline


def move_deadline(session: Session, game: Game, now: datetime) -> datetime | None:
    """Work the current deadline out again (after an absence was announced): never earlier than
    it was. Returns the new deadline, or None when it did not move."""
    current = current_phase(session, game)
    if current is None or game.deadline_at is None:
        return None
    rules = rules_of(game.options)
    players = players_by_power(session, game)
    moved = fit(game.deadline_at, rules, absences(players.values(), now))
    if moved <= game.deadline_at:
        return None
    game.deadline_at = current.row.deadline_at = moved
    game.next_check_at = next_check(rules, moved, reminded=current.row.reminded_at is not None, now=now)
    return moved


# --- the scheduler's look at a game -----------------------------------------------------------


def check(session: Session, game: Game, now: datetime) -> Progress:
    """Whatever is due in `game` now: reminders, the end of the phase (at the deadline, at the end
    of grace, or early once every awaited power has all its orders in and none asked to wait);
    nothing while the game is paused; never early in a phase the GM held to its deadline. The
    caller has the game row locked."""
    progress = Progress()
    if game.status != GameStatus.ACTIVE:
        game.next_check_at = None
        game.orders_changed = False
        return progress
    if game.paused_at is not None:  # the GM stopped the clock (PAUSE): orders are taken, nothing ends
        game.orders_changed = False
        return progress
    current = current_phase(session, game)
    if current is None:
        return progress
    variant = variant_of(game)
    rules = rules_of(game.options)
    players = progress.players = players_by_power(session, game)
    waiting = awaited(session, game, variant, current, players)
    deadline = current.row.deadline_at or game.deadline_at or now
    anyone_waits = any(p.waiting for p in players.values())
    # Every order in ends the phase early, unless the GM put its deadline off (timing._hold).
    early = (not current.row.held_to_deadline and not waiting and not anyone_waits
             and bool(_awaitable(variant, current.state, players)))
    due = now >= deadline and (not waiting or now >= deadline + rules.grace and rules.nmr == "defaults")
    if early or due:
        progress.ended = end_phase(session, game, now, current, players)
        return progress
    game.orders_changed = False
    # No reminder in a phase no longer than the reminder time: it would come as the phase opens,
    # just after the mail that opened it.
    remind_at = deadline - rules.remind_before
    if rules.remind_before and current.row.reminded_at is None and current.row.opened_at < remind_at <= now:
        current.row.reminded_at = now
        progress.reminders = waiting
    if now < deadline:
        game.next_check_at = next_check(rules, deadline, reminded=current.row.reminded_at is not None, now=now)
    elif now < deadline + rules.grace:
        game.next_check_at = deadline + rules.grace
    else:  # NMR policy 'wait': look again a grace (or an hour) later, and remind the late once more
        game.next_check_at = now + max(rules.grace, timedelta(hours=1))
        progress.reminders = waiting
    return progress


def _awaitable(variant: Variant, state: GameState, players: dict[str, Player]) -> list[str]:
    """Powers with a player (not in civil disorder) who owe orders this phase."""
    return [p for p in owed(variant, state) if p in players and not players[p].civil_disorder]


def end_phase(session: Session, game: Game, now: datetime, current: CurrentPhase | None = None,
              players: dict[str, Player] | None = None) -> list[PhaseEnd]:
    """Adjudicate the current phase with the orders on file, open the next one, and go on through
    phases with nothing to decide. Returns the phases adjudicated."""
    variant = variant_of(game)
    rules = rules_of(game.options)
    current = current_phase(session, game) if current is None else current
    players = players_by_power(session, game) if players is None else players
    ended: list[PhaseEnd] = []
    skipped = False
    for _round in range(MAX_PHASES_AT_ONCE):
        if current is None:
            break
        end, current = _adjudicate(session, game, variant, rules, current, players, now, skipped)
        ended.append(end)
        if current is None:  # the game is over
            break
        # A retreat or winter phase in which no player has anything to decide is resolved at once.
        if current.state.phase.kind is PhaseKind.MOVEMENT or _awaitable(variant, current.state, players):
            break
        skipped = True
    return ended


def _adjudicate(session: Session, game: Game, variant: Variant, rules: HouseRules, current: CurrentPhase,
                players: dict[str, Player], now: datetime, skipped: bool) -> tuple[PhaseEnd, CurrentPhase | None]:
    """Adjudicate one phase; its end, and the phase it opened (None when the game ended)."""
    state, row = current.state, current.row
    kind = state.phase.kind
    orders: list[Order] = []
    by_gm: set[tuple[str, str]] = set()  # (power, order) of the orders a GM entered (ORDER, DP)
    for table in (OrderRecord, SecretAllocation):
        for power, entries in on_file_by_power(session, table, row).items():
            for entry in entries:
                parsed = parse_order(variant, entry.canonical, power, kind, state)
                if parsed.order is None:  # cannot happen for what ingest stored; never stop a game for it
                    log.error("game %s, %s: stored order %r of %s no longer reads: %s", game.name, row.label,
                              entry.canonical, power, parsed.error)
                    continue
                orders.append(parsed.order)
                if entry.entered_by:
                    by_gm.add((power, entry.canonical))
    deadline = row.deadline_at or game.deadline_at
    late: list[str] = []
    bidding = kind is PhaseKind.BIDDING  # bids are never owed: a power that bids nothing is not late
    if deadline is not None and now >= deadline and not skipped and not bidding:
        by_deadline = _on_file_at(session, row, deadline)
        late = [p for p in _awaitable(variant, state, players)
                if missing(variant, state, p, by_deadline.get(p, []))]
    adjudication = adjudicate(variant, state, orders)
    report = build_report(variant, state, adjudication, game=game.name, label=row.label, late=late, skipped=skipped)
    # A player whose power the rules changed plays the new one from now on (a promotion).
    for old, new in sorted(variant.rules.power_changes(variant, state, adjudication.state).items()):
        player = players.pop(old, None)
        if player is not None:
            player.power = new
            players[new] = player
            session.add(AuditEntry(game_id=game.id, actor="system", action="power changed",
                                   detail={"from": old, "to": new, "player": player.email}))
    if by_gm:
        report = annotated(report, entered_by_gm=by_gm)
    after = adjudication.state
    # A player in civil disorder who orders again is back, where the variant's rules allow it.
    ordering = {o.power for o in orders}
    for power, player in sorted(players.items()):
        if player.civil_disorder and power in ordering and \
                not variant.rules.permanent_civil_disorder(variant, state, power):
            player.civil_disorder = False
            player.late_streak = 0
            report["returned"].append(power)
            session.add(AuditEntry(game_id=game.id, actor="system", action="back from civil disorder",
                                   detail={"power": power}))
    for power in [] if bidding else _awaitable(variant, state, players):
        player = players[power]
        player.late_streak = player.late_streak + 1 if power in late else 0
        if rules.late_limit and player.late_streak >= rules.late_limit:
            player.civil_disorder = True
            after = variant.rules.declare_civil_disorder(variant, after, power)
            report["civil_disorder"].append(power)
            session.add(AuditEntry(game_id=game.id, actor="system", action="civil disorder",
                                   detail={"power": power, "late": player.late_streak}))
    row.adjudicated_at = now
    row.deadline_at = deadline
    winner = variant.rules.winner(variant, after) if after is not adjudication.state else adjudication.winner
    opened = None
    last = rules.last_year
    if winner:
        report["winner"] = winner
        finish(session, game, now, won_by(winner))
        report["ended"] = game.outcome
    elif last is not None and after.phase.year > last:  # the year the GM fixed is played
        winner = variant.rules.winner_at_end(variant, after)
        report["winner"] = winner
        year = variant.rules.year_label(last)
        finish(session, game, now, won_ahead(winner, year) if winner else ended_level(year))
        report["ended"] = game.outcome
    else:
        nxt = _open(session, game, variant, after, row.seq + 1, now, players)
        report["next"] = {"phase": nxt.label, "deadline": _iso(nxt.deadline_at)}
        opened = CurrentPhase(nxt, after)
    if opened is None:  # the position the game ended in: no phase holds it (see position_at_end)
        report[FINAL_KEY] = state_to_json(after)
    session.add(AuditEntry(game_id=game.id, actor="system", action="adjudicate",
                           detail={"phase": row.label, "orders": len(orders), "late": late}))
    # A phase's results are written once: the JSON column is not watched for changes in place.
    row.results_json = stored(report)
    return PhaseEnd(row, report), opened


# How a game ended, as games.outcome keeps it (the English; gm.lifecycle.ending.outcome_text reads it back).
def won_by(power: str) -> str:
    # TRANSLATORS: how a game ended
    return _("won by {power}", power=power)


def won_ahead(power: str, year: str) -> str:
    # TRANSLATORS: how a game ended, in the year the GM set (house rule last_year)
    return _("won by {power}, ahead when the game ended in {year}", power=power, year=year_name(year))


def ended_level(year: str) -> str:
    # TRANSLATORS: how a game ended, in the year the GM set (house rule last_year)
    return _("ended in {year} with no power ahead", year=year_name(year))


def finish(session: Session, game: Game, now: datetime, outcome: str) -> None:
    game.status = GameStatus.FINISHED
    game.finished_at = now
    game.outcome = outcome
    game.deadline_at = None
    game.next_check_at = None
    game.orders_changed = False
    session.add(AuditEntry(game_id=game.id, actor="system", action="game over", detail={"outcome": outcome}))


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat()


def mark_orders_changed(session: Session, game_ids: set[int]) -> None:
    """Mail changed orders (or WAIT) in these games: the scheduler looks whether a phase may end early."""
    if game_ids:
        session.execute(update(Game).where(Game.id.in_(game_ids)).values(orders_changed=True))


def history(session: Session, game: Game) -> list[GamePhase]:
    """Every adjudicated phase of the game, oldest first."""
    return list(session.scalars(
        select(GamePhase).where(GamePhase.game_id == game.id, GamePhase.adjudicated_at.is_not(None))
        .order_by(GamePhase.seq)))


def position(row: GamePhase) -> GameState:
    return state_from_json(row.state_json)


FINAL_KEY = "final"  # in the results of the phase that ended a game: the position it ended in


@dataclass
class EndPosition:
    row: GamePhase  # the phase the game ended in, or (after_results) whose results ended it
    state: GameState
    after_results: bool  # the position after `row`'s results, not the one it started from


def position_at_end(session: Session, game: Game) -> EndPosition | None:
    """The position a finished game ended in: that of the phase under way when the GM or a draw
    ended it; the one after the results of the last phase when they ended it (a win, the last
    year played). None when the game is not finished."""
    if game.status != GameStatus.FINISHED:
        return None
    current = current_phase(session, game)
    if current is not None:
        return EndPosition(current.row, current.state, after_results=False)
    rows = history(session, game)
    if not rows:
        return None
    last = rows[-1]
    final = (last.results_json or {}).get(FINAL_KEY)
    if final is None:  # ended before the position was kept with the results: the last phase's own
        return EndPosition(last, position(last), after_results=False)
    return EndPosition(last, state_from_json(final), after_results=True)
