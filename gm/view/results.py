"""The public view of a game, below every channel: what every reader is shown of a phase's results
(no power's secret allocations: each reader's own go in the slot the channel fills), a deadline
and a phase as readers read them. The results mail and the game's pages render the same view:
neither channel computes it, and neither imports the other.

It knows nothing of mail or HTML: it imports the engine, the variants, the store and the game's
life only (whether a variant's board is drawn it asks the variants).
"""
from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from babel import Locale
from babel.dates import format_datetime

from gm.engine.model import RETREATS, GameState, PhaseKind
from gm.engine.variant import SpecialOrder, Variant
from gm.i18n import ENGLISH, Text, Written, _, _n, _p, from_json, translated
from gm.lifecycle import phase_names
from gm.lifecycle.ending import outcome_text
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.phases import missing
from gm.store.models import Game
from gm.variants import board_drawn
from gm.view.reader import PUBLIC

# English as the judge has always written it: 'Friday 27 November 2026, 20:00'.
_ENGLISH_PATTERN = "EEEE d MMMM y, HH:mm"
# TRANSLATORS: no deadline (the game is paused, over, or waits for the GM)
_NO_DEADLINE = _p("deadline", "none")


def _written(language: str, moment: datetime, zone: str) -> str:
    """`moment` in `zone`, named, as a reader of `language` writes a date and time."""
    tz = ZoneInfo(zone)
    if language == ENGLISH:
        pattern = _ENGLISH_PATTERN
    else:  # the language's own full date, and the time on the 24-hour clock
        locale = Locale.parse(language)
        pattern = str(locale.datetime_formats["full"]).replace("{1}", locale.date_formats["full"].pattern) \
            .replace("{0}", "HH:mm")
    return f"{format_datetime(moment.astimezone(tz), pattern, tzinfo=tz, locale=language)} ({zone})"


def moment_text(moment: datetime | str | None, zone: str) -> str:
    """A deadline as every reader reads it (a Text: 'Friday 27 November 2026, 20:00 (Europe/London)'
    in English, 'vendredi 27 novembre 2026, 20:00 (Europe/London)' in French): in the game's time
    zone, named; 'none' for no deadline. For a text rendered for several readers."""
    if moment is None:
        return _NO_DEADLINE
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    return Written(_written, moment, zone)  # written out in whichever language it is read in


def deadline_text(moment: datetime | str | None, zone: str, language: str = ENGLISH) -> str:
    """'Friday 27 November 2026, 20:00 (Europe/London)': in the game's time zone, named, in
    `language` whatever the server's locale (a plain str; moment_text gives a Text)."""
    return translated(moment_text(moment, zone), language)


def season_year(label: str) -> str:
    """'Spring 1901, Movement' -> 'Spring 1901' (a Text, in the reader's words)."""
    return phase_names.season_year(label)


_PHASE_WORDS = {
    # TRANSLATORS: what a results mail's subject calls a phase's results: 'Spring 1901 results'
    "": lambda when: _("{when} results", when=when),
    # TRANSLATORS: 'Fall 1901 retreats', the results of a retreat phase (a mail's subject)
    "Retreat": lambda when: _("{when} retreats", when=when),
    # TRANSLATORS: 'Winter 1901 adjustments', the results of a winter (a mail's subject)
    "Adjustment": lambda when: _("{when} adjustments", when=when),
}


def phase_words(label: str) -> str:
    """What the subject calls a phase's results: 'Spring 1901 results', 'Fall 1901 retreats',
    'Winter 1901 adjustments' (a Text)."""
    kind = label.partition(", ")[2]
    return _PHASE_WORDS.get(kind, _PHASE_WORDS[""])(season_year(label))


# The result of an order, as stored (gm.engine.results.Result, and 'note'), as a reader reads it.
_RESULTS: dict[str, Text] = {
    # TRANSLATORS: the result of an order
    "succeeds": _p("result", "succeeds"),
    # TRANSLATORS: the result of an order
    "fails": _p("result", "fails"),
    # TRANSLATORS: the result of an order: it was illegal, or had no meaning in the position
    "void": _p("result", "void"),
    # TRANSLATORS: the result of a support order (or a blockade) that was cut
    "cut": _p("result", "cut"),
}


def result_word(result: str) -> str:
    """An order's result as stored ('succeeds', 'fails', 'void', 'cut'), as a reader reads it (a
    Text equal to the stored word: templates compare it)."""
    return _RESULTS.get(result, result)


_NAMES = r"(?P<names>.+)"
_PLACE = r"(?P<place>.+?)"
# Why an order failed, as results stored before their reasons were kept whole ('said', see
# gm.lifecycle.report.stored) hold it, in English: the common reasons, with the provinces they
# name, read back as sentences; any other stays as the engine wrote it.
_REASONS: list[tuple[re.Pattern[str], Any]] = [(re.compile(pattern), words) for pattern, words in (
    (r"dislodged", lambda m: _p("result", "dislodged")),
    (rf"bounced in {_PLACE}: the unit is disbanded",  # before 'bounced in {province}', which would take it all
     lambda m: _("bounced in {province}: the unit is disbanded", province=m["place"])),
    (rf"bounced in {_PLACE}", lambda m: _("bounced in {province}", province=m["place"])),
    (rf"cut by the attack from {_NAMES}", lambda m: _("cut by the attack from {provinces}", provinces=m["names"])),
    (rf"the blockade was cut by the attack from {_NAMES}",
     lambda m: _("the blockade was cut by the attack from {provinces}", provinces=m["names"])),
    (r"the unit was dislodged", lambda m: _("the unit was dislodged")),
    (r"the supporting unit was dislodged", lambda m: _("the supporting unit was dislodged")),
    (r"the convoying fleet was dislodged", lambda m: _("the convoying fleet was dislodged")),
    (r"the convoy was disrupted", lambda m: _("the convoy was disrupted")),
    (r"the convoy was caught in a paradox \(Szykman rule\): the army holds",
     lambda m: _("the convoy was caught in a paradox (Szykman rule): the army holds")),
    (rf"lost the head-to-head battle with the unit in {_PLACE}",
     lambda m: _("lost the head-to-head battle with the unit in {province}", province=m["place"])),
    (rf"the direct passage was denied by the fleet in {_NAMES}",
     lambda m: _("the direct passage was denied by the fleet in {provinces}", provinces=m["names"])),
    (r"the fleet was dislodged: the passage stayed open", lambda m: _("the fleet was dislodged: the passage stayed open")),
    (r"a sortie: the unit never leaves its space", lambda m: _("a sortie: the unit never leaves its space")),
    (r"replaced by a later order for the same unit", lambda m: _("replaced by a later order for the same unit")),
    (r"not needed: the unit was not dislodged", lambda m: _("not needed: the unit was not dislodged")),
    (r"only retreat and disband orders are given in a retreat phase",
     lambda m: _("only retreat and disband orders are given in a retreat phase")),
    (r"only build, remove and waive orders are given in winter",
     lambda m: _("only build, remove and waive orders are given in winter")),
    (rf"there is no dislodged unit in {_PLACE}",
     lambda m: _("there is no dislodged unit in {province}", province=m["place"])),
    (rf"the unit dislodged from {_PLACE} cannot retreat to (?P<to>.+)",
     lambda m: _("the unit dislodged from {province} cannot retreat to {destination}", province=m["place"],
                 destination=m["to"])),
    (r"(?P<power>.+?) has no builds this winter", lambda m: _("{power} has no builds this winter", power=m["power"])),
    (r"(?P<power>.+?) has no units to remove this winter",
     lambda m: _("{power} has no units to remove this winter", power=m["power"])),
    (rf"(?P<power>.+?) has no unit in {_PLACE} to remove",
     lambda m: _("{power} has no unit in {province} to remove", power=m["power"], province=m["place"])),
    (r"made by the rules: toward the nearest centre", lambda m: _("made by the rules: toward the nearest centre")),
)]


def reason_text(reason: str) -> str:
    """Why an order failed (or what became of it), as stored, as a reader reads it: a Text for the
    engine's common reasons, equal to the stored words; any other as it is."""
    for pattern, words in _REASONS:
        if m := pattern.fullmatch(reason):
            return words(m)  # type: ignore[no-any-return]
    return reason


def _owed(n: int) -> str:
    """What a power owes in winter: '2 builds', '1 removal'."""
    return _n("{count} build", "{count} builds", n) if n > 0 else _n("{count} removal", "{count} removals", -n)


def _is_minor(variant: Variant, power: str) -> bool:
    known = variant.powers.get(power)
    return known is not None and known.minor


def order_entry(e: dict[str, Any]) -> dict[str, Any]:
    """An order (or allocation) of a phase's results, as the templates show it: its result and
    reason in the reader's words (Texts equal to the stored words)."""
    return {"power": e["power"], "order": e["order"], "result": result_word(e["result"]),
            "reason": from_json(e["said"]) if e.get("said") else reason_text(e.get("reason") or ""),
            "default": bool(e.get("default")),
            "by_gm": bool(e.get("entered_by_gm"))}


def _owners(variant: Variant, before: GameState, report: dict[str, Any]) -> dict[str, list[str]]:
    """Power -> the names of the centres it owns after the phase: the position the phase was
    played from, with the report's changes made."""
    owner = dict(before.supply_centres)
    for change in report.get("centre_changes", []):
        if change["to"] is None:
            owner.pop(change["centre"], None)
        else:
            owner[change["centre"]] = change["to"]
    out: dict[str, list[str]] = {}
    for centre, power in owner.items():
        out.setdefault(power, []).append(variant.map.name(centre))
    return {p: sorted(names) for p, names in out.items()}


def public_results(game: Game, variant: Variant, report: dict[str, Any], before: GameState | None
                   ) -> dict[str, Any]:
    """What every reader of the results mail is shown of one phase (a reader of no power: no
    secret allocation); the game's web pages (gm.web) show the same."""
    return section(game, variant, PUBLIC.report(report), before, None)


def section(game: Game, variant: Variant, report: dict[str, Any], before: GameState | None,
             map_cid: str | None) -> dict[str, Any]:
    """What the templates show of one report to every reader: the public results. Each reader's
    own secret allocations go in its `secret_block` slot (see _Results)."""
    zone = rules_of(game.options).timezone
    by_power: dict[str, list[dict[str, Any]]] = {}
    for e in report.get("orders", []):
        by_power.setdefault(e["power"], []).append(order_entry(e))
    # the powers as they stood when the phase was played (a promotion makes a minor power major)
    majors = variant.rules.major_powers(variant, before) if before is not None else variant.great_powers
    great = [p for p in majors if p in by_power] + sorted(
        p for p in by_power if p not in majors and p not in variant.powers)  # powers the game made
    minor = sorted(p for p in by_power if p not in great)
    # The units that held without an order and stood, one line for them all; the orders given after.
    held = {p: [e for e in by_power[p] if e["default"] and e["result"] == "succeeds"] for p in great + minor}
    given = {p: [e for e in by_power[p] if e not in held[p]] for p in great + minor}
    owners = _owners(variant, before, report) if before is not None else {}
    centres = report.get("centres", {})
    nxt = report.get("next")
    adjustments = report.get("adjustments") or {}
    return {
        "phase": phase_name(report["phase"]),
        "skipped": bool(report.get("skipped")),
        "correction": bool(report.get("correction")),
        "orders": [(p, by_power[p]) for p in great],
        "minor_orders": [(p, by_power[p]) for p in minor],
        "given": [(p, given[p]) for p in great if given[p]],
        "minor_given": [(p, given[p]) for p in minor if given[p]],
        "held": [(p, [e["order"].removesuffix(" H") for e in held[p]]) for p in great + minor if held[p]],
        "dislodged": [
            {"power": d["power"], "unit": d["unit"],
             "retreats": [f"{variant.map.name(r)} ({r})" for r in d["retreats"]]}
            for d in report.get("dislodged", [])
        ],
        "disbanded": report.get("disbanded", []),
        "changes": [
            {"name": c.get("name") or variant.map.name(c["centre"]), "from": c["from"], "to": c["to"]}
            for c in report.get("centre_changes", [])
        ],
        "centres": [
            {"power": p, "count": centres[p], "owned": owners.get(p, [])}
            for p in sorted(centres, key=lambda p: (-centres[p], p))
        ],
        "control": [
            {"minor": c["minor"], "controller": c["controller"],
             "changed": c["controller"] != c["was"], "was": c["was"]}
            for c in report.get("control", [])
        ],
        "notes": report.get("notes", []),
        "adjust_phase": phase_name(nxt["phase"]) if nxt else "",
        "adjustments": [
            {"power": p, "owed": _owed(n)}
            for p, n in sorted(adjustments.items()) if n
        ],
        "late": report.get("late", []),
        "civil_disorder": report.get("civil_disorder", []),
        "returned": report.get("returned", []),
        "next": {"phase": phase_name(nxt["phase"]), "deadline": moment_text(nxt["deadline"], zone)} if nxt else None,
        "ended": outcome_text(report.get("ended")),
        "winner": report.get("winner"),
        "map_cid": map_cid,
        "drawn": board_drawn(variant.name),  # False: no map of the variant yet, and the mail says so
    }


# --- what a reader must act on ------------------------------------------------------------------------


def special_orders(variant: Variant, power: str | None, kind: PhaseKind | None = None) -> list[SpecialOrder]:
    """The orders the variant adds that `power`'s player may give (in a phase of `kind`; None:
    any): those for every power, and those a [facts] entry gives this power."""
    out = []
    for order in variant.rules.special_orders:
        if order.fact and (power is None or power not in (variant.facts.get(order.fact) or ())):  # type: ignore[operator]
            continue
        if kind is not None and order.phases and kind not in order.phases:
            continue
        out.append(order)
    return out


def due(variant: Variant, state: GameState, power: str) -> dict[str, Any]:
    """What `power`'s player must send in the phase `state` is in, as mail says it: the units
    owing orders (or retreats) and what else is owed ('1 build'), the secret points to spend
    ('3 DPs'), the variant's other orders of this phase, and what only the power may know of its
    own position (Supply Points banked). The power's own: a reader of another power is never
    shown it."""
    rules = variant.rules
    kind = state.phase.kind
    owed = missing(variant, state, power, [])
    for_units = kind is PhaseKind.MOVEMENT or kind in RETREATS
    here = special_orders(variant, power, kind)
    spending = next((o for o in here if o.points), None)
    points = rules.points_available(variant, state, power) if spending is not None else None
    return {
        # TRANSLATORS: what a player owes for its units: 'Due from France: orders for A Par, F Bre'
        "what": _("orders") if kind is PhaseKind.MOVEMENT else _("retreats"),
        "units": owed if for_units else [],
        "owed": [] if for_units else owed,
        # TRANSLATORS: secret points to spend: '3 DPs' ({points} is DP or IP)
        "points": _n("{count} {points}", "{count} {points}s", points, points=spending.points)
        if spending and points else "",
        "others": [o.syntax for o in here if o is not spending],
        "private": rules.private_status(variant, state, power),
    }
