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
from gm.i18n import ENGLISH, LANGUAGES, _, _n, known_language

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
    """A house rule that cannot be read; the message (a Text) says which and how to write it."""


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
        phases' deadline where the variant has them): a Text."""
        durations = dict(movement=show(self.movement), retreats=show(self.retreat), adjustments=show(self.adjustment))
        parts = [_("movement {movement}, retreats {retreats}, adjustments {adjustments}, bids {bids}",
                   bids=show(self.bidding), **durations) if bidding
                 else _("movement {movement}, retreats {retreats}, adjustments {adjustments}", **durations)]
        hour = f"{self.hour:02d}:00" if self.hour is not None else None
        if self.days and hour:
            parts.append(_("deadlines on {days} at {hour}", days=show_days(self.days), hour=hour))
        elif self.days:
            parts.append(_("deadlines on {days}", days=show_days(self.days)))
        elif hour:
            parts.append(_("deadlines at {hour}", hour=hour))
        parts.append(_("grace {grace}", grace=show(self.grace)) if self.grace else _("no grace"))
        parts.append(_("missing orders: defaults") if self.nmr == "defaults" else _("missing orders: the game waits"))
        if self.late_limit:
            parts.append(_n("civil disorder after {count} late in a row", "civil disorder after {count} late in a row",
                            self.late_limit))
        if self.draw != "gm":
            parts.append(_("draws: DIAS, proposed by the players") if self.draw == "dias"
                         else _("draws: named, proposed by the players"))
        said = parts[0]
        for part in parts[1:]:
            # TRANSLATORS: house rules one after another, in one line
            said = _("{rules}; {rule}", rules=said, rule=part)
        # TRANSLATORS: the house rules in one line, then the game's time zone
        return _("{rules} ({zone})", rules=said, zone=self.timezone)

    def describe(self, bidding: bool = False) -> list[str]:
        """The house rules as players read them, a line each (with the bidding phases' deadline
        where the variant has them): Texts."""
        durations = dict(movement=show(self.movement), retreats=show(self.retreat), adjustments=show(self.adjustment))
        lines = [
            _("Deadlines: movement {movement}, retreats {retreats}, adjustments {adjustments}, bids {bids} after the "
              "phase opens", bids=show(self.bidding), **durations) if bidding
            else _("Deadlines: movement {movement}, retreats {retreats}, adjustments {adjustments} after the phase "
                   "opens", **durations)
        ]
        days, hour, zone = show_days(self.days), f"{self.hour:02d}:00" if self.hour is not None else None, self.timezone
        if self.days and hour:
            lines.append(_("A deadline falls on {days} at {hour} ({zone})", days=days, hour=hour, zone=zone))
        elif self.days:
            lines.append(_("A deadline falls on {days} ({zone})", days=days, zone=zone))
        elif hour:
            lines.append(_("A deadline falls at {hour} ({zone})", hour=hour, zone=zone))
        else:
            lines.append(_("A deadline falls at any time ({zone})", zone=zone))
        if self.grace:
            lines.append(_("Grace: orders are taken {grace} past the deadline, and marked late", grace=show(self.grace)))
        lines.append(_("Missing orders: the rules' defaults (hold, no build, removals by the rules)")
                     if self.nmr == "defaults" else _("Missing orders: the game waits for them"))
        if self.late_limit:
            lines.append(_n("Civil disorder: after the first deadline missed",
                            "Civil disorder: after {count} deadlines missed in a row", self.late_limit))
        if self.remind_before:
            lines.append(_("Reminders: {before} before each deadline (none in a phase no longer than that)",
                           before=show(self.remind_before)))
        lines.append(_n("Absences (SET ABSENCE): up to {count} days", "Absences (SET ABSENCE): up to {count} days",
                        self.absence_days))
        if self.last_year is not None:
            lines.append(_("The game ends once {year} is played", year=self.last_year))
        lines.append({
            "gm": _("Draws: the GM proposes them (the powers named vote)"),
            "dias": _("Draws: any surviving power may PROPOSE DRAW; a draw includes every surviving power (DIAS) "
                      "and needs each one's ACCEPT DRAW"),
            "named": _("Draws: any surviving power may PROPOSE DRAW <powers>; it needs the ACCEPT DRAW of every "
                       "surviving power, those it leaves out too"),
        }[self.draw])
        lines.append(_("Concession: CONCEDE <power>; the game ends in that power's victory once every other "
                       "surviving power concedes to it in the same phase"))
        lines.append(_("Who proposed a draw, who voted how and who conceded: told to the GM only")
                     if self.draw_votes == "secret" else
                     _("Who proposed a draw, who voted how and who conceded: told to the players (a draw's votes to "
                       "the powers voting on it) as to the GM"))
        press = self.pages != "private" and self.pages_press != "none"
        lines.append({
            "listed": _("Game pages (where the judge publishes them): listed in the index of games; broadcast press "
                        "is shown on them") if press else
            _("Game pages (where the judge publishes them): listed in the index of games"),
            "unlisted": _("Game pages (where the judge publishes them): for whoever has the link, not in the index; "
                          "broadcast press is shown on them") if press else
            _("Game pages (where the judge publishes them): for whoever has the link, not in the index"),
            "private": _("Game pages: none (private)"),
        }[self.pages])
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
                raise HouseRuleError(_("unknown time zone {zone}: give a name such as UTC or Europe/London",
                                       zone=repr(value))) from None
            values[name] = str(value)
        elif name == "language":
            language = known_language(str(value))
            if language is None:
                raise HouseRuleError(_("unknown language {language}: one of {languages}", language=repr(value),
                                       languages=", ".join(LANGUAGES)))
            values[name] = language
        elif name == "nmr":
            if value not in NMR_POLICIES:
                raise HouseRuleError(_one_of("nmr", NMR_POLICIES, value))
            values[name] = value
        elif name == "draw":
            if str(value).lower() not in DRAW_RULES:
                raise HouseRuleError(_one_of("draw", DRAW_RULES, value))
            values[name] = str(value).lower()
        elif name == "draw_votes":
            if str(value).lower() not in VOTE_POLICIES:
                raise HouseRuleError(_one_of("draw_votes", VOTE_POLICIES, value))
            values[name] = str(value).lower()
        elif name in ("pages", "pages_press"):
            allowed = PAGES_RULES if name == "pages" else PRESS_ON_PAGES
            if str(value).lower() not in allowed:
                raise HouseRuleError(_one_of(name, allowed, value))
            values[name] = str(value).lower()
        elif name == "last_year":
            values[name] = None if str(value).strip().lower() in ("", "none", "no") else _count(value, name)
        elif name in ("late_limit", "absence_days"):
            number = _count(value, name)
            values[name] = number
        else:
            raise HouseRuleError(_("no house rule called {name}", name=repr(name)))
    return replace(rules, **values)


def _one_of(name: str, allowed: tuple[str, ...], value: Any) -> str:
    return _("{rule} must be one of {allowed}, not {value}", rule=name, allowed=", ".join(allowed), value=repr(value))


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
        raise HouseRuleError(_("{rule}: {text} is no duration: write it like 48h, 2d, 1d12h, 90m or 10s", rule=what,
                               text=repr(text)))
    if seconds < 0 or (seconds == 0 and not allow_zero):
        raise HouseRuleError(_("{rule}: must be longer than nothing", rule=what))
    if seconds > 366 * 86400:
        raise HouseRuleError(_("{rule}: {text} is over a year", rule=what, text=repr(text)))
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
            raise HouseRuleError(_("days: {text} is no day: write them like mon-fri or sat,sun", text=repr(part))) from None
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
        raise HouseRuleError(_("hour: {text} is not an hour from 0 to 23", text=repr(value)))
    return number


def _count(value: Any, what: str) -> int:
    try:
        number = int(str(value).strip())
    except ValueError:
        raise HouseRuleError(_("{rule}: {text} is not a whole number", rule=what, text=repr(value))) from None
    if number < 0:
        raise HouseRuleError(_("{rule}: {text} is negative", rule=what, text=repr(value)))
    return number
