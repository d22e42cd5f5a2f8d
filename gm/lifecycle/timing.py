"""The GM's hand on a game's clock: a deadline set or put off, the house rules changed, the clock
stopped (PAUSE) and started again (RESUME). Pure of mail: the callers announce what changed.

Every function works in the caller's transaction, on a game under way, and raises GameError (the
reason, for the GM) changing nothing when it cannot be done."""
from __future__ import annotations

import re
from datetime import datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy.orm import Session

from gm.games import CurrentPhase, GameError, current_phase
from gm.i18n import Text, _
from gm.lifecycle.house_rules import OPTION_KEY, HouseRules, rules_of, with_changes
from gm.lifecycle.overview import status_word
from gm.lifecycle.phases import next_check
from gm.store.models import Game, GameStatus

# TRANSLATORS: how a GM writes a moment (the dates and times stay as they are)
WHEN_FORMS = _("2026-12-01 20:00, 2026-12-01T20:00 or 2026-12-01, in the game's time zone (or add one: 20:00 UTC)")
_WHEN = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{2}))?(?:\s+(\S+))?")


def under_way(session: Session, game: Game) -> CurrentPhase:
    """The phase taking orders in `game`; GameError when the game is not under way."""
    current = current_phase(session, game) if game.status == GameStatus.ACTIVE else None
    if current is None:
        raise GameError(_("{game} is {status}, not under way", game=game.name, status=status_word(game.status)))
    return current


def read_when(text: str, rules: HouseRules) -> datetime:
    """A moment as a GM writes it: a date and time in the game's time zone (a date alone: the
    house rules' hour, else 00:00), or in the zone named after it. Raises GameError."""
    found = _WHEN.fullmatch(text.strip())
    if found is None:
        raise GameError(_("{text} is no date and time: write it like {forms}", text=repr(text.strip()), forms=WHEN_FORMS))
    year, month, day, hour, minute, zone_name = found.groups()
    zone = rules.zone
    if zone_name is not None:
        try:
            zone = ZoneInfo("UTC" if zone_name.upper() in ("UTC", "GMT", "Z") else zone_name)
        except (ZoneInfoNotFoundError, ValueError):
            raise GameError(_("unknown time zone {zone}: give a name such as UTC or Europe/London",
                              zone=repr(zone_name))) from None
    if hour is None:
        hour, minute = rules.hour or 0, 0
    try:
        return datetime(int(year), int(month), int(day), int(hour), int(minute), tzinfo=zone)
    except ValueError as e:
        raise GameError(_("{text} is no date and time ({error})", text=repr(text.strip()), error=str(e))) from None


def set_deadline(session: Session, game: Game, deadline: datetime, now: datetime) -> CurrentPhase:
    """The current phase's deadline is `deadline` (in the future), whatever the house rules say of
    days and hours: the GM's word. A reminder already sent goes out again before the new deadline
    when there is time for it. A deadline moved later holds the phase to it (see _hold)."""
    current = under_way(session, game)
    if game.paused_at is not None:
        raise GameError(_("{game} is paused: RESUME it first (RESUME moves the deadline on by the time paused)",
                          game=game.name))
    if deadline <= now:
        raise GameError(_("that is not in the future"))
    _hold(game, current, deadline)
    _move(game, current, deadline, now)
    return current


def extend(session: Session, game: Game, by: timedelta, now: datetime) -> CurrentPhase:
    """The current deadline put off by `by`; while paused too (RESUME then adds the time paused).
    The phase is held to the new deadline (see _hold)."""
    current = under_way(session, game)
    deadline = (current.row.deadline_at or game.deadline_at or now) + by
    if deadline <= now:
        raise GameError(_("the deadline would still be in the past ({deadline}): SET DEADLINE gives a new one",
                          deadline=_local(game, deadline)))
    _hold(game, current, deadline)
    _move(game, current, deadline, now)
    return current


HELD = _("the phase now ends at the new deadline even if every order is in (PROCESS ends it sooner)")


def _hold(game: Game, current: CurrentPhase, deadline: datetime) -> None:
    """A GM who gives a phase more time means it: once every order is in, the phase no longer
    ends early, but at its deadline (or by PROCESS). The hold ends with the phase; a deadline
    moved earlier keeps a hold already made."""
    was = current.row.deadline_at or game.deadline_at
    if was is None or deadline > was:
        current.row.held_to_deadline = True


def _move(game: Game, current: CurrentPhase, deadline: datetime, now: datetime) -> None:
    rules = rules_of(game.options)
    row = current.row
    if row.reminded_at is not None and rules.remind_before and deadline - rules.remind_before > now:
        row.reminded_at = None
    row.deadline_at = game.deadline_at = deadline
    game.next_check_at = next_check(rules, deadline, reminded=row.reminded_at is not None, now=now)


def change_rules(session: Session, game: Game, changes: dict[str, Any], now: datetime) -> HouseRules:
    """The game's house rules with `changes` (as a GM writes them); raises GameError with
    house_rules' own words. The scheduler looks at a game under way at once: a shorter grace or
    a reminder due sooner takes effect now."""
    if game.status == GameStatus.FINISHED:
        raise GameError(_("{game} is over: its house rules no longer matter", game=game.name))
    try:
        rules = with_changes(rules_of(game.options), changes)
    except ValueError as e:  # house_rules' own words (a Text)
        said = e.args[0] if len(e.args) == 1 and isinstance(e.args[0], Text) else str(e)
        raise GameError(said) from None
    set_options(game, {OPTION_KEY: rules.to_options()})
    if game.status == GameStatus.ACTIVE and game.paused_at is None:
        game.next_check_at = now
    return rules


def set_options(game: Game, changes: dict[str, Any]) -> None:
    """Change game.options by assigning a new dict: the JSON column is not watched in place. A
    value None takes the key out."""
    options = {**(game.options or {}), **changes}
    game.options = {k: v for k, v in options.items() if v is not None}


def pause(session: Session, game: Game, now: datetime) -> CurrentPhase:
    """Stop the clock: the scheduler leaves the game alone (no phase ends, no reminder) until
    RESUME; orders are still taken."""
    current = under_way(session, game)
    if game.paused_at is not None and (game.options or {}).get(ROLLBACK_PAUSE):
        set_options(game, {ROLLBACK_PAUSE: None})  # a rollback's pause becomes the GM's: PROCESS keeps it
        return current
    if game.paused_at is not None:
        raise GameError(_("{game} is paused already (since {moment})", game=game.name,
                          moment=_local(game, game.paused_at)))
    game.paused_at = now
    return current


# games.options: the pause is a rollback's (the GM had not paused the game): PROCESS ends it, the
# next phase opening with a fresh deadline, as the players were told.
ROLLBACK_PAUSE = "paused_by_rollback"


def pause_for_rollback(game: Game, now: datetime) -> bool:
    """Stop the clock after a rollback. True when the pause is the rollback's own (PROCESS or
    RESUME end it); False when the GM had paused the game already (RESUME alone ends it)."""
    if game.paused_at is not None:
        return bool((game.options or {}).get(ROLLBACK_PAUSE))
    game.paused_at = now
    set_options(game, {ROLLBACK_PAUSE: True})
    return True


def end_rollback_pause(game: Game) -> bool:
    """After PROCESS: a rollback's pause ends (the phase just opened has its fresh deadline).
    True when it did."""
    if not (game.options or {}).get(ROLLBACK_PAUSE):
        return False
    set_options(game, {ROLLBACK_PAUSE: None})
    if game.paused_at is None:
        return False
    game.paused_at = None
    return True


def resume(session: Session, game: Game, now: datetime) -> tuple[CurrentPhase, timedelta]:
    """Start the clock again: the deadline moves on by the time the current phase spent paused (a
    phase the GM processed during the pause opened with a fresh deadline: only the time since).
    Returns the phase and how far its deadline moved."""
    current = under_way(session, game)
    if game.paused_at is None:
        raise GameError(_("{game} is not paused", game=game.name))
    stopped = max(timedelta(0), now - max(game.paused_at, current.row.opened_at))
    game.paused_at = None
    set_options(game, {ROLLBACK_PAUSE: None})
    deadline = (current.row.deadline_at or game.deadline_at or now) + stopped
    _move(game, current, deadline, now)
    game.orders_changed = True  # every order may have come in meanwhile: the phase may end at once
    return current, stopped


def _local(game: Game, moment: datetime) -> str:
    """A moment as the game's players read it: '2026-12-01 20:00 (Europe/Paris)'."""
    rules = rules_of(game.options)
    return f"{moment.astimezone(rules.zone):%Y-%m-%d %H:%M} ({rules.timezone})"
