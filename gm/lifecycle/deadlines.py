"""When a phase's deadline falls: its duration from the moment it opens, then moved to the first
allowed day and hour (in the game's time zone), and past any player's announced absence. Pure."""
from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta

from gm.engine.model import PhaseKind
from gm.lifecycle.house_rules import HouseRules

Absence = tuple[datetime, datetime]  # [from, until)


def deadline_for(opened: datetime, kind: PhaseKind, rules: HouseRules, absences: Sequence[Absence] = ()) -> datetime:
    """The deadline of a phase of `kind` opened at `opened` (aware datetimes; the result in UTC)."""
    return fit(opened + rules.duration(kind), rules, absences)


def fit(moment: datetime, rules: HouseRules, absences: Sequence[Absence] = ()) -> datetime:
    """The first moment at or after `moment` that is an allowed day and hour and in no absence."""
    zone = rules.zone
    for _ in range(64):  # each round moves forward; a few rounds settle any sane rules
        local = moment.astimezone(zone)
        if rules.hour is not None and (local.hour, local.minute, local.second, local.microsecond) != (rules.hour, 0, 0, 0):
            day = local.date() if local.hour < rules.hour else local.date() + timedelta(days=1)
            local = datetime(day.year, day.month, day.day, rules.hour, tzinfo=zone)
        while rules.days and local.weekday() not in rules.days:
            day = local.date() + timedelta(days=1)
            hour = rules.hour if rules.hour is not None else 0
            local = datetime(day.year, day.month, day.day, hour, tzinfo=zone)
        candidate = local.astimezone(moment.tzinfo)
        away = next((until for start, until in absences if start <= candidate < until), None)
        if away is None:
            return candidate
        moment = away
    return moment
