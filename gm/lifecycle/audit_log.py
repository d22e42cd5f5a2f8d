"""A game's audit log as its GM reads it (AUDIT by mail, `gm game audit` on the command line): one
line an entry, oldest first, the times in the game's time zone. Nothing that could be a password
or its hash is ever shown; what a rollback kept of the phases it undid is counted, not listed."""
from __future__ import annotations

from datetime import datetime
from typing import Any

from babel.numbers import get_decimal_symbol
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gm.i18n import ENGLISH, _, _n, _p, translated
from gm.lifecycle.house_rules import rules_of
from gm.store.models import AuditEntry, Game

DEFAULT_COUNT = 100  # entries shown when no count is asked for: the newest
_HIDDEN = ("password", "hash", "secret_key", "token")  # detail keys never shown
# Detail keys whose numbers are seconds (RESUME's time paused): shown with their unit, old entries too.
_SECONDS = ("paused",)


def audit_text(session: Session, game: Game, count: int | None = None, *, language: str = ENGLISH) -> str:
    """The newest `count` entries of `game`'s audit log (default DEFAULT_COUNT), newest last,
    under a line saying how many there are in all, written in `language` (the entries' actions and
    keys are the log's own words)."""
    count = DEFAULT_COUNT if count is None else count
    total = session.scalar(select(func.count()).select_from(AuditEntry).where(AuditEntry.game_id == game.id)) or 0
    rows = list(session.scalars(select(AuditEntry).where(AuditEntry.game_id == game.id)
                                .order_by(AuditEntry.id.desc()).limit(count)))
    rows.reverse()
    rules = rules_of(game.options)
    if len(rows) == total:
        head = _n("Audit log of {game}: all {count} entries, newest last (times in {zone})",
                  "Audit log of {game}: all {count} entries, newest last (times in {zone})", total,
                  game=game.name, zone=rules.timezone)
    else:
        head = _n("Audit log of {game}: the newest {shown} of {count} entries, newest last (times in {zone})",
                  "Audit log of {game}: the newest {shown} of {count} entries, newest last (times in {zone})", total,
                  game=game.name, shown=len(rows), zone=rules.timezone)
    lines = [translated(head, language), *(_line(entry, rules.zone, language) for entry in rows)]
    return "\n".join(lines)


def _line(entry: AuditEntry, zone: Any, language: str) -> str:
    when = entry.at.astimezone(zone).strftime("%Y-%m-%d %H:%M")
    detail = _detail(entry.detail or {}, zone, language)
    return f"{when}  {entry.actor}  {entry.action}" + (f": {detail}" if detail else "")


def _detail(detail: dict[str, Any], zone: Any, language: str) -> str:
    parts = []
    for key, value in detail.items():
        if any(word in key.lower() for word in _HIDDEN):
            continue
        if key in _SECONDS and isinstance(value, (int, float)) and not isinstance(value, bool):
            parts.append(f"{key} {duration_text(value, language)}")
        else:
            parts.append(f"{key} {_value(value, zone, language)}")
    return "; ".join(parts)


def duration_text(seconds: float, language: str = ENGLISH) -> str:
    """A length of time as a person reads it: '13 ms', '0.8 s', '42 s', '3 min 20 s', '2 h 5 min',
    '3 d 4 h' (the units and the decimal sign those of `language`)."""
    seconds = max(0.0, float(seconds))

    def unit(count: int | str, word: str) -> str:
        return translated(_unit(count, word), language)

    def amounts(*parts: tuple[int, str]) -> str:
        return " ".join(unit(count, word) for count, word in parts)

    if seconds < 0.05:
        return unit(f"{seconds * 1000:.0f}", "ms")
    if seconds < 9.95:
        return unit(f"{seconds:.1f}".replace(".", get_decimal_symbol(language)), "s")
    whole = round(seconds)
    if whole < 60:
        return unit(whole, "s")
    days, rest = divmod(whole, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return amounts((days, "d"), *([(hours, "h")] if hours else []))
    if hours:
        return amounts((hours, "h"), *([(minutes, "min")] if minutes else []))
    return amounts((minutes, "min"), *([(secs, "s")] if secs and minutes < 10 else []))


def _unit(count: int | str, word: str) -> str:
    """'3 min': an amount of a unit of time, as the language abbreviates it."""
    return {"ms": _p("duration", "{count} ms", count=count), "s": _p("duration", "{count} s", count=count),
            "min": _p("duration", "{count} min", count=count), "h": _p("duration", "{count} h", count=count),
            "d": _p("duration", "{count} d", count=count)}[word]


def _value(value: Any, zone: Any, language: str) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return translated(_("yes") if value else _("no"), language)
    if isinstance(value, str):
        return _moment(value, zone) or value
    if isinstance(value, (list, tuple)):
        if all(not isinstance(v, (dict, list, tuple)) for v in value):
            return ", ".join(_value(v, zone, language) for v in value) or translated(_("none"), language)
        # a rollback's record of the phases undone: kept, not shown
        return translated(_n("{count} recorded", "{count} recorded", len(value)), language)
    if isinstance(value, dict):
        return translated(_n("{count} recorded", "{count} recorded", len(value)), language)
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
