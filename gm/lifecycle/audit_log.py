"""A game's audit log as its GM reads it (AUDIT by mail, `gm game audit` on the command line): one
line an entry, oldest first, the times in the game's time zone. Nothing that could be a password
or its hash is ever shown; what a rollback kept of the phases it undid is counted, not listed."""
from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gm.lifecycle.house_rules import rules_of
from gm.store.models import AuditEntry, Game

DEFAULT_COUNT = 100  # entries shown when no count is asked for: the newest
_HIDDEN = ("password", "hash", "secret_key", "token")  # detail keys never shown
# Detail keys whose numbers are seconds (RESUME's time paused): shown with their unit, old entries too.
_SECONDS = ("paused",)


def audit_text(session: Session, game: Game, count: int | None = None) -> str:
    """The newest `count` entries of `game`'s audit log (default DEFAULT_COUNT), newest last,
    under a line saying how many there are in all."""
    count = DEFAULT_COUNT if count is None else count
    total = session.scalar(select(func.count()).select_from(AuditEntry).where(AuditEntry.game_id == game.id)) or 0
    rows = list(session.scalars(select(AuditEntry).where(AuditEntry.game_id == game.id)
                                .order_by(AuditEntry.id.desc()).limit(count)))
    rows.reverse()
    rules = rules_of(game.options)
    shown = f"all {total} entries" if len(rows) == total else f"the newest {len(rows)} of {total} entries"
    head = f"Audit log of {game.name}: {shown}, newest last (times in {rules.timezone})"
    lines = [_line(entry, rules.zone) for entry in rows]
    return "\n".join([head, *lines])


def _line(entry: AuditEntry, zone: Any) -> str:
    when = entry.at.astimezone(zone).strftime("%Y-%m-%d %H:%M")
    detail = _detail(entry.detail or {}, zone)
    return f"{when}  {entry.actor}  {entry.action}" + (f": {detail}" if detail else "")


def _detail(detail: dict[str, Any], zone: Any) -> str:
    parts = []
    for key, value in detail.items():
        if any(word in key.lower() for word in _HIDDEN):
            continue
        if key in _SECONDS and isinstance(value, (int, float)) and not isinstance(value, bool):
            parts.append(f"{key} {duration_text(value)}")
        else:
            parts.append(f"{key} {_value(value, zone)}")
    return "; ".join(parts)


def duration_text(seconds: float) -> str:
    """A length of time as a person reads it: '13 ms', '0.8 s', '42 s', '3 min 20 s', '2 h 5 min',
    '3 d 4 h'."""
    seconds = max(0.0, float(seconds))
    if seconds < 0.05:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 9.95:
        return f"{seconds:.1f} s"
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days} d" + (f" {hours} h" if hours else "")
    if hours:
        return f"{hours} h" + (f" {minutes} min" if minutes else "")
    return f"{minutes} min" + (f" {secs} s" if secs and minutes < 10 else "")


def _value(value: Any, zone: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, str):
        return _moment(value, zone) or value
    if isinstance(value, (list, tuple)):
        if all(not isinstance(v, (dict, list, tuple)) for v in value):
            return ", ".join(_value(v, zone) for v in value) or "none"
        return f"{len(value)} recorded"  # a rollback's record of the phases undone: kept, not shown
    if isinstance(value, dict):
        return f"{len(value)} recorded"
    return str(value)


def _moment(text: str, zone: Any) -> str | None:
    """An ISO moment ('2026-11-29T12:00:00+00:00') in the game's time zone; None for other text."""
    if len(text) < 19 or text[10:11] != "T":
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M") if moment.tzinfo else None
