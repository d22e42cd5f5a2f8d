"""A forming game takes a position moved in from another judge: it is under way at once, in the
phase the old judge was in, and paused, so that no deadline passes while the players confirm
their addresses here; the GM's RESUME starts the clock. Pure of mail: the caller mails the players."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from gm.games import CurrentPhase, GameError, active_players, variant_of
from gm.i18n import _
from gm.lifecycle.deadlines import deadline_for
from gm.lifecycle.house_rules import OPTION_KEY, HouseRuleError, rules_of, with_changes
from gm.lifecycle.moving_in.found import said
from gm.lifecycle.moving_in.position import Position
from gm.lifecycle.overview import status_word
from gm.lifecycle.moving_in.reading import same_board
from gm.lifecycle.phases import next_check
from gm.lifecycle.timing import set_options
from gm.store.db import state_to_json
from gm.store.models import AuditEntry, Game, GamePhase, GameStatus

ACTION = "move in"  # the audit log's word for it


def move_in(session: Session, game: Game, position: Position, now: datetime, actor: str,
            inbound_id: int | None = None) -> CurrentPhase:
    """`game` takes `position` and its house rules; raises GameError changing nothing when it
    cannot. Its deadline is the old judge's when that is still ahead, else a fresh one by the
    house rules; RESUME moves it on by the time the game stays paused."""
    if game.status != GameStatus.FORMING:
        raise GameError(_("{game} is {status}: only a forming game takes a game moved in", game=game.name,
                          status=status_word(game.status)))
    if active_players(session, game):
        raise GameError(_("players have joined {game} already: a game moved in takes its players from the old "
                          "judge's text", game=game.name))
    variant = variant_of(game)
    if not same_board(game.variant, position.variant):
        raise GameError(_("{game} is a game of {variant}; the text is one of {other}", game=game.name,
                          variant=variant.title, other=position.variant))
    try:
        rules = with_changes(rules_of(game.options), position.rules)
    except HouseRuleError as e:
        raise GameError(said(e)) from None
    state = position.state
    deadline = position.deadline if position.deadline is not None and position.deadline > now else \
        deadline_for(now, state.phase.kind, rules)
    row = GamePhase(game_id=game.id, seq=1, label=variant.phase_label(state.phase), state_json=state_to_json(state),
                    opened_at=now, deadline_at=deadline)
    session.add(row)
    set_options(game, {OPTION_KEY: rules.to_options()})
    game.status = GameStatus.ACTIVE
    game.deadline_at = deadline
    game.next_check_at = next_check(rules, deadline, reminded=False, now=now)
    game.paused_at = now
    game.orders_changed = False
    session.flush()
    session.add(AuditEntry(game_id=game.id, actor=actor, action=ACTION, detail={
        "from": position.source, "game": position.game, "phase": row.label, "deadline": deadline.isoformat(),
        "players": sorted(p for p, a in position.players.items() if a), "unplayed":
            sorted(p for p, a in position.players.items() if not a), "not kept": len(position.notes)},
        inbound_id=inbound_id))
    return CurrentPhase(row, state)
