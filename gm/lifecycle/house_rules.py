"""A game's house rules: how long each kind of phase runs, when a deadline may fall, grace, what
happens to powers that miss a deadline, reminders, absences and who proposes a draw. Kept in
games.options["house_rules"] as the strings a GM writes ('48h', 'mon-fri'), so that `gm game show`
prints them back as given."""
from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace
from datetime import timedelta
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from gm.engine.model import PhaseKind
from gm.i18n import ENGLISH, LANGUAGES, known_language

NmrPolicy = Literal["defaults", "wait"]
NMR_POLICIES: tuple[NmrPolicy, ...] = ("defaults", "wait")
# Who proposes a draw and who must accept it (gm.lifecycle.draws): the GM (DRAW; the powers named
# accept), any survivor for all survivors (DIAS), or any survivor naming the powers to share it
# (every survivor accepts, as on njudge).
DrawRule = Literal["gm", "dias", "named"]
DRAW_RULES: tuple[DrawRule, ...] = ("gm", "dias", "named")
# Whether the players are told who proposed a draw and who voted how (and who conceded), or only
# the GM, as on njudge.
VotePolicy = Literal["secret", "public"]
VOTE_POLICIES: tuple[VotePolicy, ...] = ("secret", "public")
# The game's web pages (gm.web): in the index of games, left out of it (the pages are there for
# whoever has the link), or none at all.
PagesRule = Literal["listed", "unlisted", "private"]
PAGES_RULES: tuple[PagesRule, ...] = ("listed", "unlisted", "private")
# Broadcast press on the game's pages: none (the default: press stays in the players' mail) or shown.
PressOnPages = Literal["none", "broadcast"]
PRESS_ON_PAGES: tuple[PressOnPages, ...] = ("none", "broadcast")
DAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
OPTION_KEY = "house_rules"


class HouseRuleError(ValueError):
    """A house rule that cannot be read; the message says which and how to write it."""


@dataclass(frozen=True)
class HouseRules:
    movement: timedelta = timedelta(hours=48)
    retreat: timedelta = timedelta(hours=24)
    adjustment: timedelta = timedelta(hours=24)
    bidding: timedelta = timedelta(hours=24)  # a winter of bids for minor powers (Napoleonic Wars)
    # Weekdays (0 = Monday) a deadline may fall on; empty: any day.
    days: frozenset[int] = frozenset()
    hour: int | None = None  # the hour of day (game's time zone) every deadline falls on; None: any
    timezone: str = "UTC"
    grace: timedelta = timedelta(0)  # after the deadline, late orders are still taken (and marked late)
    # 'defaults': at the end of grace the phase is adjudicated, missing orders taking the rules'
    # defaults (hold, no build, the rules' removals); 'wait': it waits for every power's orders.
    nmr: NmrPolicy = "defaults"
    late_limit: int = 3  # deadlines missed in a row that put a power in civil disorder; 0: never
    remind_before: timedelta = timedelta(hours=24)  # reminders this long before a deadline; 0: none
    absence_days: int = 14  # the longest SET ABSENCE, in days
    # The game ends once this year is played, the rules naming the winner (Rules.winner_at_end);
    # None: it goes on until a power wins (1700AD II, rule 11: the GM may end it in 1713 or 1721).
    last_year: int | None = None
    draw: DrawRule = "gm"
    draw_votes: VotePolicy = "secret"
    pages: PagesRule = "listed"
    pages_press: PressOnPages = "none"
    # The game's language (gm.i18n): its pages', and its mail's for a reader who chose none.
    language: str = ENGLISH

    def duration(self, kind: PhaseKind) -> timedelta:
        return {PhaseKind.MOVEMENT: self.movement, PhaseKind.RETREAT: self.retreat, PhaseKind.SECOND_RETREAT: self.retreat,
                PhaseKind.ADJUSTMENT: self.adjustment, PhaseKind.BIDDING: self.bidding}[kind]

    @property
    def zone(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    def to_options(self) -> dict[str, Any]:
        """As stored in games.options[OPTION_KEY]: every rule written out."""
        return {f.name: show(getattr(self, f.name)) if f.name != "days" else show_days(self.days) for f in fields(self)}

    def summary(self, bidding: bool = False) -> str:
        """The house rules in one line, for the foot of every results mail (with the bidding
        phases' deadline where the variant has them)."""
        parts = [f"movement {show(self.movement)}, retreats {show(self.retreat)}, adjustments {show(self.adjustment)}"
                 + (f", bids {show(self.bidding)}" if bidding else "")]
        if self.days or self.hour is not None:
            parts.append("deadlines " + " ".join(
                ([f"on {show_days(self.days)}"] if self.days else []) + ([f"at {self.hour:02d}:00"] if self.hour is not None else [])))
        parts.append(f"grace {show(self.grace)}" if self.grace else "no grace")
        parts.append("missing orders: defaults" if self.nmr == "defaults" else "missing orders: the game waits")
        if self.late_limit:
            parts.append(f"civil disorder after {self.late_limit} late in a row")
        if self.draw != "gm":
            parts.append(f"draws: {'DIAS' if self.draw == 'dias' else 'named'}, proposed by the players")
        return f"{'; '.join(parts)} ({self.timezone})"

    def describe(self, bidding: bool = False) -> list[str]:
        """The house rules as players read them, a line each (with the bidding phases' deadline
        where the variant has them)."""
        lines = [
            f"Deadlines: movement {show(self.movement)}, retreats {show(self.retreat)}, "
            f"adjustments {show(self.adjustment)}{f', bids {show(self.bidding)}' if bidding else ''} after the phase opens"
        ]
        when = []
        if self.days:
            when.append("on " + show_days(self.days))
        if self.hour is not None:
            when.append(f"at {self.hour:02d}:00")
        lines.append(f"A deadline falls {' '.join(when) if when else 'at any time'} ({self.timezone})")
        if self.grace:
            lines.append(f"Grace: orders are taken {show(self.grace)} past the deadline, and marked late")
        lines.append("Missing orders: " + ("the rules' defaults (hold, no build, removals by the rules)"
                                          if self.nmr == "defaults" else "the game waits for them"))
        if self.late_limit:
            missed = "the first deadline missed" if self.late_limit == 1 else f"{self.late_limit} deadlines missed in a row"
            lines.append(f"Civil disorder: after {missed}")
        if self.remind_before:
            lines.append(f"Reminders: {show(self.remind_before)} before each deadline (none in a phase no longer than that)")
        lines.append(f"Absences (SET ABSENCE): up to {self.absence_days} days")
        if self.last_year is not None:
            lines.append(f"The game ends once {self.last_year} is played")
        lines.append({
            "gm": "Draws: the GM proposes them (the powers named vote)",
            "dias": "Draws: any surviving power may PROPOSE DRAW; a draw includes every surviving power (DIAS) "
                    "and needs each one's ACCEPT DRAW",
            "named": "Draws: any surviving power may PROPOSE DRAW <powers>; it needs the ACCEPT DRAW of every "
                     "surviving power, those it leaves out too",
        }[self.draw])
        lines.append("Concession: CONCEDE <power>; the game ends in that power's victory once every other "
                     "surviving power concedes to it in the same phase")
        lines.append("Who proposed a draw, who voted how and who conceded: " + (
            "told to the GM only" if self.draw_votes == "secret"
            else "told to the players (a draw's votes to the powers voting on it) as to the GM"))
        lines.append({
            "listed": "Game pages (where the judge publishes them): listed in the index of games",
            "unlisted": "Game pages (where the judge publishes them): for whoever has the link, not in the index",
            "private": "Game pages: none (private)",
        }[self.pages] + ("" if self.pages == "private" or self.pages_press == "none"
                         else "; broadcast press is shown on them"))
        return lines


def rules_of(options: dict[str, Any] | None) -> HouseRules:
    """The house rules a game's options hold (defaults for what they leave out)."""
    stored = (options or {}).get(OPTION_KEY) or {}
    return with_changes(HouseRules(), stored)


def with_changes(rules: HouseRules, changes: dict[str, Any]) -> HouseRules:
    """`rules` with the given rules (as a GM writes them) changed; raises HouseRuleError."""
    values: dict[str, Any] = {}
    for name, value in changes.items():
        if value is None:
            continue
        if name in ("movement", "retreat", "adjustment", "bidding", "grace", "remind_before"):
            values[name] = parse_duration(str(value), name, allow_zero=name in ("grace", "remind_before"))
        elif name == "days":
            values[name] = parse_days(str(value))
        elif name == "hour":
            values[name] = _hour(value)
        elif name == "timezone":
            try:
                ZoneInfo(str(value))
            except (ZoneInfoNotFoundError, ValueError):
                raise HouseRuleError(f"unknown time zone {value!r}: give a name such as UTC or Europe/London") from None
            values[name] = str(value)
        elif name == "language":
            language = known_language(str(value))
            if language is None:
                raise HouseRuleError(f"unknown language {value!r}: one of {', '.join(LANGUAGES)}")
            values[name] = language
        elif name == "nmr":
            if value not in NMR_POLICIES:
                raise HouseRuleError(f"nmr must be one of {', '.join(NMR_POLICIES)}, not {value!r}")
            values[name] = value
        elif name == "draw":
            if str(value).lower() not in DRAW_RULES:
                raise HouseRuleError(f"draw must be one of {', '.join(DRAW_RULES)}, not {value!r}")
            values[name] = str(value).lower()
        elif name == "draw_votes":
            if str(value).lower() not in VOTE_POLICIES:
                raise HouseRuleError(f"draw_votes must be one of {', '.join(VOTE_POLICIES)}, not {value!r}")
            values[name] = str(value).lower()
        elif name in ("pages", "pages_press"):
            allowed = PAGES_RULES if name == "pages" else PRESS_ON_PAGES
            if str(value).lower() not in allowed:
                raise HouseRuleError(f"{name} must be one of {', '.join(allowed)}, not {value!r}")
            values[name] = str(value).lower()
        elif name == "last_year":
            values[name] = None if str(value).strip().lower() in ("", "none", "no") else _count(value, name)
        elif name in ("late_limit", "absence_days"):
            number = _count(value, name)
            values[name] = number
        else:
            raise HouseRuleError(f"no house rule called {name!r}")
    return replace(rules, **values)


_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(d|h|m|s)", re.IGNORECASE)
_UNITS = {"d": 86400, "h": 3600, "m": 60, "s": 1}


def parse_duration(text: str, what: str = "duration", *, allow_zero: bool = False) -> timedelta:
    """'48h', '2d', '1d12h', '90m', '10s' (or a bare number of hours); raises HouseRuleError."""
    text = text.strip().lower().replace(" ", "")
    if re.fullmatch(r"\d+(\.\d+)?", text):
        seconds = float(text) * 3600
    elif text and _DURATION.sub("", text) == "":
        seconds = sum(float(n) * _UNITS[u.lower()] for n, u in _DURATION.findall(text))
    else:
        raise HouseRuleError(f"{what}: {text!r} is no duration: write it like 48h, 2d, 1d12h, 90m or 10s")
    if seconds < 0 or (seconds == 0 and not allow_zero):
        raise HouseRuleError(f"{what}: must be longer than nothing")
    if seconds > 366 * 86400:
        raise HouseRuleError(f"{what}: {text!r} is over a year")
    return timedelta(seconds=seconds)


def show(value: Any) -> str:
    """A rule's value as a GM writes it."""
    if isinstance(value, timedelta):
        seconds = int(value.total_seconds())
        if seconds == 0:
            return "0"
        parts = []
        for unit, size in _UNITS.items():
            if seconds >= size:
                parts.append(f"{seconds // size}{unit}")
                seconds %= size
        return "".join(parts)
    return "" if value is None else str(value)


def parse_days(text: str) -> frozenset[int]:
    """'mon-fri', 'sat,sun', 'any' (or '') -> weekday numbers; raises HouseRuleError."""
    text = text.strip().lower()
    if text in ("", "any", "all"):
        return frozenset()
    days: set[int] = set()
    for part in re.split(r"[,\s]+", text):
        first, dash, last = part.partition("-")
        try:
            a = DAYS.index(first[:3])
            b = DAYS.index(last[:3]) if dash else a
        except ValueError:
            raise HouseRuleError(f"days: {part!r} is no day: write them like mon-fri or sat,sun") from None
        i = a
        while True:
            days.add(i)
            if i == b:
                break
            i = (i + 1) % 7
    return frozenset(days)


def show_days(days: frozenset[int]) -> str:
    return ",".join(DAYS[d] for d in sorted(days)) if days else "any"


def _hour(value: Any) -> int | None:
    if value in ("", "any"):
        return None
    number = _count(value, "hour")
    if number > 23:
        raise HouseRuleError(f"hour: {value!r} is not an hour from 0 to 23")
    return number


def _count(value: Any, what: str) -> int:
    try:
        number = int(str(value).strip())
    except ValueError:
        raise HouseRuleError(f"{what}: {value!r} is not a whole number") from None
    if number < 0:
        raise HouseRuleError(f"{what}: {value!r} is negative")
    return number
