"""The public view of a game, below every channel: what every reader is shown of a phase's results
(no power's secret allocations: each reader's own go in the slot the channel fills), a deadline
and a phase as readers read them. The results mail and the game's pages render the same view:
neither channel computes it, and neither imports the other.

It knows nothing of mail or HTML: it imports the engine, the variants, the store and the game's
life only (whether a variant's board is drawn it asks the variants).
"""
from __future__ import annotations

from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from gm.engine.model import RETREATS, GameState, PhaseKind
from gm.engine.variant import SpecialOrder, Variant
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.phases import missing
from gm.store.models import Game
from gm.variants import board_drawn
from gm.view.reader import PUBLIC

_WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
           "October", "November", "December")


def deadline_text(moment: datetime | str | None, zone: str) -> str:
    """'Friday 27 November 2026, 20:00 (Europe/London)': in the game's time zone, named, in
    English whatever the server's locale."""
    if moment is None:
        return "none"
    if isinstance(moment, str):
        moment = datetime.fromisoformat(moment)
    local = moment.astimezone(ZoneInfo(zone))
    return (f"{_WEEKDAYS[local.weekday()]} {local.day} {_MONTHS[local.month - 1]} {local.year}, "
            f"{local:%H:%M} ({zone})")


def season_year(label: str) -> str:
    """'Spring 1901, Movement' -> 'Spring 1901'."""
    return label.partition(",")[0]


def phase_words(label: str) -> str:
    """What the subject calls a phase's results: 'Spring 1901 results', 'Fall 1901 retreats',
    'Winter 1901 adjustments'."""
    when, _, kind = label.partition(", ")
    return f"{when} " + {"Retreat": "retreats", "Adjustment": "adjustments"}.get(kind, "results")


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def _is_minor(variant: Variant, power: str) -> bool:
    known = variant.powers.get(power)
    return known is not None and known.minor


def order_entry(e: dict[str, Any]) -> dict[str, Any]:
    return {"power": e["power"], "order": e["order"], "result": e["result"],
            "reason": e.get("reason") or "", "default": bool(e.get("default")),
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
        "phase": report["phase"],
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
        "adjust_phase": nxt["phase"] if nxt else "",
        "adjustments": [
            {"power": p, "owed": _count(n, "build") if n > 0 else _count(-n, "removal")}
            for p, n in sorted(adjustments.items()) if n
        ],
        "late": report.get("late", []),
        "civil_disorder": report.get("civil_disorder", []),
        "returned": report.get("returned", []),
        "next": {"phase": nxt["phase"], "deadline": deadline_text(nxt["deadline"], zone)} if nxt else None,
        "ended": report.get("ended"),
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
        "what": "orders" if kind is PhaseKind.MOVEMENT else "retreats",
        "units": owed if for_units else [],
        "owed": [] if for_units else owed,
        "points": f"{points} {spending.points}{'s' if points != 1 else ''}" if spending and points else "",
        "others": [o.syntax for o in here if o is not spending],
        "private": rules.private_status(variant, state, power),
    }
