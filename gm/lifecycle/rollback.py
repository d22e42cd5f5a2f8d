"""ROLLBACK: a game back at the start of an adjudicated phase, with the orders that were on file
then. Pure of mail: the caller tells the players.

What is undone is not lost: rolled_back() returns a record of every phase undone (its results and
its orders) for the audit log, which is the only place it stays; and the labels of the phases
whose results were mailed and are now void, so that their new results are marked as corrections.

Works in the caller's transaction and raises GameError (the reason, for the GM) changing nothing
when it cannot be done."""
from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from gm.engine.model import Phase
from gm.games import GameError, variant_of
from gm.i18n import _
from gm.lifecycle.ending import outcome_text
from gm.lifecycle.deadlines import deadline_for
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.overview import status_word
from gm.lifecycle.phase_names import find_phase, phase_name
from gm.lifecycle.phases import absences, next_check, players_by_power, position
from gm.lifecycle.timing import pause_for_rollback
from gm.store.models import AuditEntry, Game, GamePhase, GameStatus, OrderRecord, Player, SecretAllocation

ACTION = "rollback"  # the audit action; its detail's "undone" lists the labels whose results are void


@dataclass
class RolledBack:
    row: GamePhase  # the phase open again
    undone: list[str]  # labels of the phases whose results are void, oldest first
    record: list[dict[str, Any]]  # each phase undone: label, results, orders (see _record)
    deadline: datetime
    paused_here: bool  # the pause is the rollback's own: PROCESS ends it (False: the GM had paused the game)
    reopened: str | None = None  # how the game had ended, when the rollback undid its end


def last_adjudicated(session: Session, game: Game) -> GamePhase | None:
    return session.scalar(select(GamePhase).where(GamePhase.game_id == game.id, GamePhase.adjudicated_at.is_not(None))
                          .order_by(GamePhase.seq.desc()).limit(1))


def target(session: Session, game: Game, phase: Phase | None) -> GamePhase:
    """The phase a rollback returns to: `phase`, or the last adjudicated. GameError when the
    game has no such phase, or it was never adjudicated (it is the phase under way)."""
    if game.status == GameStatus.FORMING:
        raise GameError(_("{game} has not started: there is nothing to roll back", game=game.name))
    if phase is None:
        row = last_adjudicated(session, game)
        if row is None:
            raise GameError(_("no phase of {game} has been adjudicated yet", game=game.name))
        return row
    variant = variant_of(game)
    label = variant.phase_label(phase)
    row = find_phase(session, game, phase, variant)
    if row is None:
        raise GameError(_("{game} has had no phase {phase}", game=game.name, phase=phase_name(label)))
    # A game the GM or a draw ended stopped in a phase never adjudicated: it may be opened again.
    if row.adjudicated_at is None and game.status != GameStatus.FINISHED:
        raise GameError(_("{phase} has not been adjudicated: it is the phase under way", phase=phase_name(label)))
    return row


def roll_back(session: Session, game: Game, row: GamePhase, now: datetime, *, reopen: bool = False) -> RolledBack:
    """Open `row` again (no results, a new deadline from now by the house rules), remove every
    later phase with its orders and allocations, and pause the game (see pause_for_rollback). A
    finished game is made active again only when `reopen` says so: undoing the end of a game is
    never done by the way."""
    if game.status == GameStatus.FINISHED and not reopen:
        command = "ROLLBACK " + row.label.replace(",", "") + " REOPEN"
        raise GameError(_("{game} is over ({outcome}): rolling it back undoes its end, so say so: {command}",
                          game=game.name, outcome=outcome_text(game.outcome) or status_word(GameStatus.FINISHED),
                          command=command))
    if reopen and game.status != GameStatus.FINISHED:
        raise GameError(_("{game} is not over: REOPEN is only for undoing the end of a game", game=game.name))
    later = list(session.scalars(select(GamePhase).where(GamePhase.game_id == game.id, GamePhase.seq > row.seq)
                                 .order_by(GamePhase.seq)))
    undone_rows = [r for r in [row, *later] if r.adjudicated_at is not None]
    record = [_record(session, r, orders=r is not row) for r in [row, *later]]
    players = players_by_power(session, game)
    for done in reversed(undone_rows):
        _undo_player_changes(done.results_json or {}, players)
    ids = [r.id for r in later]
    if ids:
        for table in (OrderRecord, SecretAllocation):
            session.execute(delete(table.__table__).where(table.__table__.c.phase_id.in_(ids)))
        for r in later:
            session.delete(r)
        session.flush()
    rules = rules_of(game.options)
    deadline = deadline_for(now, position(row).phase.kind, rules, absences(players.values(), now))
    row.adjudicated_at = None
    row.results_json = None
    row.reminded_at = None
    row.held_to_deadline = False  # a hold the GM made ended with the phase
    row.opened_at = now  # mail written before now was meant for the phases undone (see orders.too_late)
    row.deadline_at = game.deadline_at = deadline
    game.next_check_at = next_check(rules, deadline, reminded=False, now=now)
    game.orders_changed = False
    reopened = None
    if game.status == GameStatus.FINISHED:
        reopened = game.outcome or "finished"
        game.status, game.finished_at, game.outcome = GameStatus.ACTIVE, None, None
    # Paused: with every order on file the phase would otherwise end at once, before the GM has
    # put right what made them roll back. PROCESS or RESUME go on when they have.
    paused_here = pause_for_rollback(game, now)
    for player in players.values():
        player.waiting = False
    return RolledBack(row, [r.label for r in undone_rows], record, deadline, paused_here, reopened)


def _record(session: Session, row: GamePhase, *, orders: bool) -> dict[str, Any]:
    """What the audit log keeps of a phase undone: its results and, for a phase removed, every
    order and allocation it had (those of the phase opened again stay on file)."""
    out: dict[str, Any] = {"label": row.label, "results": row.results_json}
    if orders:
        for key, table in (("orders", OrderRecord), ("allocations", SecretAllocation)):
            t = table.__table__
            rows = session.execute(select(t.c.power, t.c.canonical, t.c.entered_by, t.c.current)
                                   .where(t.c.phase_id == row.id).order_by(t.c.id))
            out[key] = [{"power": p, "canonical": c, "entered_by": e, "current": cur} for p, c, e, cur in rows]
    return out


def _undo_player_changes(report: dict[str, Any], players: dict[str, Player]) -> None:
    """Take back what an adjudication did to the players, as far as its results tell: civil
    disorder declared, a return from it, a deadline missed."""
    for power in report.get("civil_disorder", []):
        if power in players:
            players[power].civil_disorder = False
    for power in report.get("returned", []):
        if power in players:
            players[power].civil_disorder = True
    for power in report.get("late", []):
        if power in players:
            players[power].late_streak = max(0, players[power].late_streak - 1)


def rolled_back_labels(session: Session, game: Game) -> set[str]:
    """The phases of `game` whose results some rollback made void: results mailed for them now
    replace earlier ones."""
    details = session.scalars(select(AuditEntry.detail).where(AuditEntry.game_id == game.id,
                                                              AuditEntry.action == ACTION))
    return {label for detail in details for label in (detail or {}).get("undone", [])}
