"""Who plays a power, at the GM's word: a new player (REPLACE), none (EJECT), civil disorder
declared (CIVIL DISORDER) and taken back (UNCD), each by the variant's own rules. Pure of mail:
the callers tell the players.

Every function works in the caller's transaction and raises GameError (the reason, for the GM)
changing nothing when it cannot be done."""
from __future__ import annotations

from datetime import datetime

from sqlalchemy import update
from sqlalchemy.orm import Session

from gm.engine.parse import resolve_power
from gm.engine.variant import Variant
from gm.games import CurrentPhase, GameError, active_players, current_phase, major_powers, variant_of
from gm.i18n import _
from gm.lifecycle.timing import under_way
from gm.store.db import state_to_json
from gm.store.models import (
    Game,
    GamePhase,
    GameStatus,
    OrderRecord,
    Player,
    SecretAllocation,
)


def great_power(session: Session, game: Game, text: str) -> str:
    """The great power `text` names in the game as it stands (as players write it); GameError if none."""
    variant = variant_of(game)
    power = resolve_power(variant, text) if text.strip() else None
    majors = major_powers(session, game)
    if power is None or power not in majors:
        raise GameError(_("{variant} has no great power {name}; its great powers are {powers}",
                          variant=variant.title, name=repr(text.strip()), powers=", ".join(majors)))
    return power


def player_of(session: Session, game: Game, power: str) -> Player | None:
    return next((p for p in active_players(session, game) if p.power == power), None)


def _open(game: Game) -> None:
    if game.status not in (GameStatus.FORMING, GameStatus.ACTIVE):
        raise GameError(_("{game} is over: its players no longer change", game=game.name))


def replace(session: Session, game: Game, power: str, email: str, password_hash: str, now: datetime
            ) -> tuple[Player, Player | None]:
    """A new player for `power` at `email` (a lower-case address) in place of the one who plays it
    now, if anyone does (whether that address may play another power too is the caller's to say).
    The new one starts with no late streak, and out of civil disorder unless the variant's civil
    disorder is permanent. The orders on file stay (the new player sees them and may CLEAR them).
    Returns the new player and the one replaced."""
    _open(game)
    players = active_players(session, game)
    old = next((p for p in players if p.power == power), None)
    if old is not None and old.email == email:
        raise GameError(_("{address} plays {power} in {game} already", address=email, power=power, game=game.name))
    current = current_phase(session, game) if game.status == GameStatus.ACTIVE else None
    variant = variant_of(game)
    permanent = current is not None and variant.rules.permanent_civil_disorder(variant, current.state, power)
    if old is not None:
        old.left_at = now
    new = Player(game_id=game.id, power=power, email=email, password_hash=password_hash, created_at=now,
                 late_streak=0, civil_disorder=permanent, waiting=False)
    session.add(new)
    session.flush()
    return new, old


def eject(session: Session, game: Game, power: str, now: datetime) -> Player:
    """`power`'s player leaves; nobody plays it: its units take the rules' defaults at the
    deadline and nobody waits for it (its orders on file are withdrawn). Returns who left."""
    _open(game)
    player = player_of(session, game, power)
    if player is None:
        raise GameError(_("nobody plays {power} in {game}", power=power, game=game.name))
    player.left_at = now
    current = current_phase(session, game) if game.status == GameStatus.ACTIVE else None
    if current is not None:
        _withdraw(session, current.row, power)
        game.orders_changed = True  # nobody waits for it now: the phase may end early
    return player


def declare_civil_disorder(session: Session, game: Game, power: str) -> tuple[bool, bool]:
    """`power` in civil disorder, by the variant's rules applied to the current position (as at a
    deadline: in Ambition & Empire its units are disbanded and it is out for good); its orders on
    file are withdrawn, so that its units take the defaults. Returns whether the position changed,
    and whether the civil disorder is permanent."""
    current = under_way(session, game)
    variant = variant_of(game)
    player = player_of(session, game, power)
    if player is None:
        raise GameError(_("nobody plays {power} in {game}: its units take the defaults already (REPLACE gives it a "
                          "player)", power=power, game=game.name))
    if player.civil_disorder or variant.rules.permanent_civil_disorder(variant, current.state, power):
        raise GameError(_("{power} is in civil disorder already", power=power))
    if not still_in(current, power):
        raise GameError(_("{power} has neither units nor centres: it is out of the game", power=power))
    after = variant.rules.declare_civil_disorder(variant, current.state, power)
    changed = after is not current.state
    if changed:
        current.row.state_json = state_to_json(after)
    player.civil_disorder = True
    _withdraw(session, current.row, power)
    game.orders_changed = True  # nobody waits for it now: the phase may end early
    return changed, variant.rules.permanent_civil_disorder(variant, after, power)


def undo_civil_disorder(session: Session, game: Game, power: str) -> Player:
    """`power`'s player is out of civil disorder, with no late streak; refused where the variant's
    civil disorder is permanent."""
    current = under_way(session, game)
    variant = variant_of(game)
    player = player_of(session, game, power)
    if player is None:
        raise GameError(_("nobody plays {power} in {game}", power=power, game=game.name))
    if variant.rules.permanent_civil_disorder(variant, current.state, power):
        raise GameError(permanent_rule(variant, power))
    if not player.civil_disorder:
        raise GameError(_("{power} is not in civil disorder", power=power))
    player.civil_disorder = False
    player.late_streak = 0
    return player


def permanent_rule(variant: Variant, power: str) -> str:
    return _("by the rules of {variant}, civil disorder is permanent: {power}'s units were disbanded and it is "
             "never played again", variant=variant.title, power=power)


def still_in(current: CurrentPhase, power: str) -> bool:
    """Whether `power` has units or centres in the current position."""
    state = current.state
    return bool(state.units_of(power) or state.centres_of(power))


def _withdraw(session: Session, phase: GamePhase, power: str) -> None:
    for table in (OrderRecord, SecretAllocation):
        t = table.__table__
        session.execute(update(t).where(t.c.phase_id == phase.id, t.c.power == power, t.c.current.is_(True))
                        .values(current=False))
