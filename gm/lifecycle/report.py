"""What a phase's results say, as plain JSON (kept in phases.results_json): every order with its
result, what the rules did without an order, dislodgements, centres, adjustments owed, lateness,
what comes next. Mail templates, HISTORY and RESULTS read it. Secret point allocations are kept
apart, under "secret", by the power that made them: only that power and the GM ever see them.
Pure."""
from __future__ import annotations

from collections import Counter
from collections.abc import Collection
from typing import Any

from gm.engine.adjudicator import Adjudication
from gm.engine.adjust import adjustment_counts
from gm.engine.model import GameState, PhaseKind
from gm.engine.orders import SECRET_ORDERS, Order, SecondPhase, Step
from gm.engine.results import Result
from gm.engine.rules import SIDE_ORDERS
from gm.engine.variant import Variant
from gm.i18n import Text, to_json

REPORT_FORMAT = 1


def is_secret_order(order: Order) -> bool:
    """Is this order seen only by its power and the GM? Point allocations and bids are."""
    return type(order) in SECRET_ORDERS


def build_report(
    variant: Variant,
    state: GameState,
    adjudication: Adjudication,
    *,
    game: str,
    label: str,
    late: list[str],
    skipped: bool = False,
) -> dict[str, Any]:
    """The results of the phase `state` was in, resolved as `adjudication` says."""
    public: list[dict[str, Any]] = []
    secret: list[dict[str, Any]] = []
    ordered: set[str] = set()
    for r in adjudication.results:
        entry = {"power": r.order.power, "order": str(r.order), "result": r.result.value, "reason": r.reason}
        if type(r.order) is Step:  # a unit's steps in a turn of impulses stay together, in order
            entry["sort"] = r.order.sort_key
        if is_secret_order(r.order):
            secret.append(entry)
        else:
            if type(r.order) not in SIDE_ORDERS and type(r.order) is not SecondPhase:
                ordered.add(r.order.province)
            public.append(entry)
    if state.phase.kind is PhaseKind.MOVEMENT:
        dislodged_now = adjudication.dislodged
        for prov, unit in sorted(state.units.items()):
            if prov not in ordered:  # no order: the unit held
                result = Result.FAILS if prov in dislodged_now else Result.SUCCEEDS
                public.append({"power": unit.power, "order": f"{unit} H", "result": result.value,
                               "reason": "dislodged" if prov in dislodged_now else "", "default": True})
    public.sort(key=lambda e: (e["power"], e.get("sort", e["order"])))
    for e in public:
        e.pop("sort", None)
    after = adjudication.state
    settled = variant.rules.impulses > 1 and state.phase.kind is PhaseKind.MOVEMENT
    before_centres, after_centres = state.supply_centres, after.supply_centres
    changes = [
        {"centre": c, "name": variant.map.name(c), "from": before_centres.get(c), "to": after_centres.get(c)}
        for c in sorted(set(before_centres) | set(after_centres))
        if before_centres.get(c) != after_centres.get(c)
    ]
    for power, notes in variant.rules.private_notes(variant, state, after).items():
        secret += [{"power": power, "order": note, "result": "note", "reason": ""} for note in notes]
    counts = Counter(after_centres.values())
    nxt = after.phase
    before_control = variant.rules.controllers(variant, state)
    control = [{"minor": m, "controller": c, "was": before_control.get(m)}
               for m, c in variant.rules.controllers(variant, after).items()]
    return {
        "format": REPORT_FORMAT,
        "game": game,
        "variant": variant.title,
        "phase": label,
        "skipped": skipped,
        "orders": public,
        "secret": secret,
        "dislodged": [
            # settled: retreats were made in the same adjudication (a turn of impulses): its orders say how
            {"power": d.unit.power, "unit": str(d.unit), "retreats": list(d.retreats), "settled": settled}
            for _, d in sorted(adjudication.dislodged.items())
        ],
        "disbanded": [{"power": u.power, "unit": str(u)} for u in adjudication.disbanded],
        "centres": {p: counts[p] for p in sorted(counts)},
        "centre_changes": changes,
        "control": control,  # who controls each minor power from now on (public); [] in most variants
        "notes": variant.rules.public_notes(variant, state, after),
        "adjustments": adjustment_counts(variant, after) if nxt.kind is PhaseKind.ADJUSTMENT else {},
        "late": sorted(late),
        "civil_disorder": [],  # powers put in civil disorder after this phase
        "returned": [],  # powers whose player came back from civil disorder by ordering
        "next": None,  # filled in by the caller once the next deadline is known
        "winner": adjudication.winner,
        "ended": None,
    }


def annotated(report: dict[str, Any], *, entered_by_gm: Collection[tuple[str, str]] = (),
              correction: bool = False) -> dict[str, Any]:
    """The report with each order (and allocation) the GM entered marked `entered_by_gm`, given as
    (power, order); and, with `correction`, marked as replacing results mailed before (the GM
    rolled the phase back). A new dict: the JSON column is not watched in place."""
    out = dict(report)
    entered = set(entered_by_gm)
    for key in ("orders", "secret"):
        out[key] = [{**e, "entered_by_gm": True} if (e["power"], e["order"]) in entered else e
                    for e in report.get(key, [])]
    if correction:
        out["correction"] = True
    return out


def stored(report: dict[str, Any]) -> dict[str, Any]:
    """`report` as the database keeps it: each reason the engine gave as a sentence also kept
    whole ('said', gm.i18n.to_json), so that results read again later (the pages, RESULTS,
    HISTORY) are written in their reader's language too, not only in the English of 'reason'."""
    out = dict(report)
    for key in ("orders", "secret"):
        if key in out:
            out[key] = [{**e, "said": to_json(e["reason"])} if type(e.get("reason")) is Text else e for e in out[key]]
    return out
