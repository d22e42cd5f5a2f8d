"""ROLLFORWARD: after a rollback, the phases it undid played again as they were, each with the
orders that were on file for it then, up to the phase that was under way (or a phase named).
Pure of mail: the caller mails the results.

What a rollback undid is in its audit entry (gm.lifecycle.rollback: every removed phase with its
orders and allocations then current, their powers and who entered them). The phase under way
now is adjudicated with the orders on file now (the GM's corrections stand); each later one gets
the orders recorded for it, read again in the position the replay reached. Where the game goes
elsewhere than before (a correction changed what follows), the replay stops there and says so.

Works in the caller's transaction and raises GameError (the reason, for the GM) changing nothing
when it cannot be done."""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gm.engine.model import Phase, PhaseKind
from gm.engine.orders import Order
from gm.engine.parse import parse_order
from gm.games import CurrentPhase, GameError, current_phase, variant_of
from gm.i18n import _, _p
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.phases import PhaseEnd, end_phase, players_by_power
from gm.lifecycle.rollback import ACTION
from gm.lifecycle.timing import under_way
from gm.store.models import AuditEntry, Game, OrderRecord, Player, SecretAllocation

UnitKey = Callable[[Order, bool], str]  # which order on file a later one replaces (gm.mail.commands.orders.unit_key)


@dataclass
class RolledForward:
    ended: list[PhaseEnd] = field(default_factory=list)
    restored: int = 0  # orders and allocations put back on file
    unread: list[str] = field(default_factory=list)  # 'France: A PAR - BUR (why)': no longer an order there
    stopped: str | None = None  # why the replay stopped short of where it was to go (a Text)


def undone_phases(session: Session, game: Game) -> list[dict[str, Any]]:
    """What the last rollback of `game` undid, oldest first (see gm.lifecycle.rollback._record)."""
    detail = session.scalar(select(AuditEntry.detail).where(AuditEntry.game_id == game.id, AuditEntry.action == ACTION)
                            .order_by(AuditEntry.id.desc()).limit(1))
    return list((detail or {}).get("phases") or [])


def roll_forward(session: Session, game: Game, phase: Phase | None, now: datetime, unit_key: UnitKey
                 ) -> RolledForward:
    """Replay the phases the last rollback undid, from the phase under way, up to the start of
    `phase` (default: the phase that was under way at the rollback, or to the end of the game when
    the rollback undid its end)."""
    record = undone_phases(session, game)
    if not record:
        raise GameError(_("{game} has not been rolled back: there is nothing to roll forward", game=game.name))
    current = under_way(session, game)
    labels = [str(r["label"]) for r in record]
    if current.row.label not in labels:
        raise GameError(_("{phase} is none of the phases the last rollback undid ({phases}): there is nothing to roll "
                          "forward", phase=phase_name(current.row.label), phases=[phase_name(x) for x in labels]))
    start = labels.index(current.row.label)
    variant = variant_of(game)
    if phase is not None:
        label = variant.phase_label(phase)
        if label not in labels[start + 1:]:
            after = [phase_name(x) for x in labels[start + 1:]]
            raise GameError(_("{phase} is not a phase after {current} that the last rollback undid ({phases})",
                              phase=phase_name(label), current=phase_name(current.row.label),
                              phases=after or _p("phases", "none")))
        stop: int | None = labels.index(label)
    else:  # the phase under way then; none when the game had ended (its last phase had results)
        stop = len(record) - 1 if record[-1].get("results") is None else None
    if stop is not None and stop <= start:
        raise GameError(_("{game} is at the start of {phase} already: there is nothing to roll forward", game=game.name,
                          phase=phase_name(current.row.label)))
    done = RolledForward()
    players = players_by_power(session, game)
    for _round in range(len(record) + 1):
        at = labels.index(current.row.label) if current.row.label in labels else None
        if at is None:
            done.stopped = _("the game went to {phase}, which the rollback had not undone",
                             phase=phase_name(current.row.label))
            break
        if at > start:  # a phase the rollback removed: the orders it had then
            _restore(session, game, current, record[at], players, unit_key, done)
        if at == stop:
            break
        done.ended += end_phase(session, game, now, players=players)
        nxt = current_phase(session, game)
        if nxt is None:  # the game ended again
            break
        current = CurrentPhase(nxt.row, nxt.state)
    return done


def _restore(session: Session, game: Game, current: CurrentPhase, phase: dict[str, Any], players: dict[str, Player],
             unit_key: UnitKey, done: RolledForward) -> None:
    """Put the orders and allocations recorded for `phase` on file for the phase under way, each
    read again in its position (one that no longer reads is left out and named)."""
    variant = variant_of(game)
    state = current.state
    turn = variant.rules.impulses > 1 and state.phase.kind is PhaseKind.MOVEMENT
    for key, table in (("orders", OrderRecord), ("allocations", SecretAllocation)):
        for entry in phase.get(key) or []:
            if not entry.get("current"):
                continue
            power, text = str(entry["power"]), str(entry["canonical"])
            parsed = parse_order(variant, text, power, state.phase.kind, state)
            if parsed.order is None:
                done.unread.append(f"{power}: {text} ({parsed.error or 'not understood'})")
                continue
            player = players.get(power)
            row = table(game_id=game.id, phase_id=current.row.id, player_id=player.id if player is not None else None,
                        power=power, text=text, canonical=str(parsed.order),
                        unit=unit_key(parsed.order, turn), current=True, entered_by=entry.get("entered_by"))
            if table is SecretAllocation:
                row.points = parsed.order.points  # type: ignore[attr-defined]
            session.add(row)
            done.restored += 1
    session.flush()
