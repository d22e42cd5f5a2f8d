"""A unit's orders for a turn of impulses, where the variant's rules make a turn a year of
impulses: steps joined by THEN or written as the rulebook does ('A(Sca)-Hold-Got', '2F(Sca)-COS-C
CXII(Got)-Den', 'A Sca - Got - Nwy'), '(x2)' spending more points on the last step, the year's
retreats, builds and removals under their headings ('Builds: A(Fin), A(Dal).'), leaders ordered
by name ('CXII(Got)'), and PERMIT / REVOKE."""
from __future__ import annotations

import re
from functools import lru_cache

from gm.engine.model import GameState, PhaseKind, designation, province_of
from gm.engine.notation.names import resolve_power
from gm.engine.notation.reader import ParsedOrder, Raw, Reader, is_fleet
from gm.engine.notation.words import THEN
from gm.engine.orders import Move, Order, Permit, Steps
from gm.engine.variant import Variant
from gm.i18n import _

# 'Retreats: A(Liv)-Kur', 'Builds: A(Fin)', 'Removes: A(Got)': the rule's headings.
_HEADING = re.compile(r"\s*(retreats?|builds?|removes?|removals?|disbands?)\s*:\s*", re.IGNORECASE)
# '(x2)', 'x2', '*2', 'double', 'at double strength': the last step spends that many points.
_STRENGTH = re.compile(r"\s*(?:\(\s*[x\u00d7*]\s*([23])\s*\)|(?<![\w])[x\u00d7*]\s*([23])|(?:at\s+)?\b(double|triple)\b(?:\s+strength)?)\s*$",
                       re.IGNORECASE)
# 'A(Sca)-Hold-Got', 'CXII(Got)-hold-Den': a hold between steps.
_HOLD_STEP = re.compile(r"\s*-\s*(?:holds?|stands?|h)\s*(?=-|$)", re.IGNORECASE)
# '2F(Sca)-COS-C CXII(Got)-Den': a support or convoy after a move.
_VERB_STEP = re.compile(r"\s*-\s*(?=(?:c|s|convoys?|supports?)\s)", re.IGNORECASE)


@lru_cache(maxsize=16)
def named_units(names: tuple[str, ...]) -> re.Pattern[str]:
    spelt = sorted(names, key=len, reverse=True)
    return re.compile(r"(?<![\w/])(?:" + "|".join(r"\s+".join(map(re.escape, n.split())) for n in spelt) + r")(?![\w/])",
                      re.IGNORECASE)


def order_texts(variant: Variant, line: str) -> list[str]:
    """The orders one line holds: in a turn of impulses, 'Builds: A(Fin), A(Dal).' is two."""
    heading = _HEADING.match(line) if variant.rules.impulses > 1 else None
    if heading is None:
        return [line]
    items = re.split(r"\s*[,;]\s*(?:and\s+)?|\s+and\s+", line[heading.end():].strip().rstrip(".;,"))
    return [f"{heading[1]}: {item}" for item in items if item.strip()] or [line]


_PERMIT = re.compile(r"\s*(PERMIT|ALLOW|REVOKE)\b\s*:?\s*(.*?)\s*$", re.IGNORECASE | re.DOTALL)


def parse_turn(variant: Variant, text: str, words: str, power: str, state: GameState | None,
               read: Reader) -> ParsedOrder:
    """A unit's orders for a turn of impulses, or a retreat, build or removal ordered with them.
    Steps are joined by THEN, or written as the rule does: 'A(Sca)-Hold-Got', 'F(Sca)-COS-C
    A(Got)-Den', 'A Sca - Got - Nwy'; '(x2)' at the end spends two points on the last step."""
    words = re.sub(r"[\s;.,]+$", "", words)
    permit = _PERMIT.match(words) if variant.rules.separate_fleets else None
    if permit:  # 'PERMIT French': rules 8 and 9's permission, until REVOKE French
        other = resolve_power(variant, permit[2]) if permit[2] else None
        if other is None or other == power:
            return ParsedOrder(text, None, _("name another power: {order} <power>", order=permit[1].upper()))
        return ParsedOrder(text, Permit(power, None, other, revoke=permit[1].upper() == "REVOKE"), None)
    titled = re.fullmatch(r"(.+?)\s+(\d{3,4})", words.strip())
    if titled and resolve_power(variant, titled[1]) is not None:  # 'Sweden 1700', rule 6's heading
        return ParsedOrder(text, None, _("the heading of a power's orders for a year, not an order: the orders follow it"))
    heading = _HEADING.match(words)
    if heading:
        rest, word = words[heading.end():], heading[1].lower()
        if word.startswith("retreat"):
            parsed = read(variant, text, rest, power, PhaseKind.RETREAT, state)
        else:
            verb = "Build" if word.startswith("build") else "Remove"
            parsed = read(variant, text, f"{verb} {rest}", power, PhaseKind.ADJUSTMENT, state)
        return parsed
    if re.match(r"\s*(?:build|waive|remove|disband)\b", words, re.IGNORECASE) or \
            re.search(r"\s(?:D|disbands?|removes?)$", words, re.IGNORECASE):  # 'A GOT D': a removal (or a retreat's)
        return read(variant, text, words, power, PhaseKind.ADJUSTMENT, state)
    if re.search(r"\s(?:R|retreats?)\s", words, re.IGNORECASE):
        return read(variant, text, words, power, PhaseKind.RETREAT, state)
    points = 1
    strength = _STRENGTH.search(words)
    if strength:
        points = {"double": 2, "triple": 3}.get((strength[3] or "").lower()) or int(strength[1] or strength[2])
        words = words[:strength.start()]
    marked = _VERB_STEP.sub("\u00a7", _HOLD_STEP.sub("\u00a7H\u00a7", words))
    texts = [t.strip() for piece in marked.split("\u00a7") for t in THEN.split(piece) if t.strip()]
    if not texts:
        return ParsedOrder(text, None, _("no order: name the unit and what it does, e.g. A(Fin)-Kar (x2)"))
    steps: list[Order] = []
    head: tuple[str, str] | None = None  # the unit as written, and where it stands after the last step
    k = 0
    while k < len(texts):
        piece = texts[k]
        k += 1
        hold = piece.upper() in _HOLD_WORDS
        parsed = None
        if head is None and k < len(texts) and texts[k].upper() in _HOLD_WORDS:
            parsed = read(variant, text, piece, power, PhaseKind.MOVEMENT, state)
            if parsed.order is None:  # 'A(Sca)-Hold-Got': the first step is the hold
                piece, k, parsed = f"{piece} H", k + 1, None
        elif head is not None and not _NAMES_UNIT.match(piece):
            piece = f"{head[0]} {head[1]} " + ("H" if hold else piece if _CONTINUES.match(piece) else f"- {piece}")
        parsed = parsed or read(variant, text, piece, power, PhaseKind.MOVEMENT, state if not steps else None)
        if parsed.order is None:
            why = parsed.error or ""
            # TRANSLATORS: why the step numbered {number} of a unit's orders for a turn cannot be read
            return ParsedOrder(text, None, why if len(texts) == 1 else _("step {number}: {reason}", number=len(steps) + 1,
                                                                         reason=why))
        order = parsed.order
        found = list(order.steps) if type(order) is Steps else [order]  # type: ignore[attr-defined]
        steps.extend(found)
        last = found[-1]
        unit = designation(*last.part) if last.part else last.unit_type.value if last.unit_type else ""
        if not unit and state is not None and order.province in state.units:
            unit = state.units[order.province].designation
        head = (unit or "A", province_of(last.dest) if type(last) is Move else last.location)  # type: ignore[attr-defined]
    if len(steps) == 1 and points == 1:
        return ParsedOrder(text, steps[0], None)
    first = steps[0]
    counts = (1,) * (len(steps) - 1) + (points,)
    return ParsedOrder(text, Steps(power, first.unit_type, first.location, tuple(steps), counts, part=first.part), None)


_HOLD_WORDS = frozenset({"H", "HOLD", "HOLDS", "STAND", "STANDS"})
_NAMES_UNIT = re.compile(r"(?:\d{0,2}[AF](?:/\d{0,2}[AF])?|army|fleet)\s", re.IGNORECASE)
_CONTINUES = re.compile(r"(?:[-\u2192>]|to\b|(?:c|s|convoys?|supports?)\b)", re.IGNORECASE)


def route_steps(variant: Variant, state: GameState | None, raw: Raw, order: Move) -> Order:
    """'A Sca - Got - Nwy': in a turn of impulses, a move through spaces it may stand in is a
    step for each (an army's route through seas stays a convoy route)."""
    fleet = is_fleet(variant, state, raw)
    seas = variant.map.seas
    if not fleet and any(p in seas for p in map(province_of, raw.route)):
        return order
    stops = [order.location, *raw.route, order.dest]
    moves = tuple(Move(order.power, order.unit_type, here, there, part=order.part)
                  for here, there in zip(stops, stops[1:]))
    return Steps(order.power, order.unit_type, order.location, moves, (1,) * len(moves), part=order.part)
