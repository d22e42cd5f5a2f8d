"""A fleet's two moves in one turn, where the variant's rules move fleets twice: 'F NTH - ENG -
MAO' (two moves), '<first order> THEN <second order>' ('F IRI H THEN S F ENG - MAO', 'F SKA X
Den-Swe THEN - BLT')."""
from __future__ import annotations

import re
from dataclasses import replace

from gm.engine.model import GameState, PhaseKind, UnitType, province_of
from gm.engine.notation.reader import ParsedOrder, Raw, Reader
from gm.engine.notation.words import THEN
from gm.engine.orders import Move, Order, TwoPhase
from gm.engine.variant import Variant
from gm.i18n import _


def route(raw: Raw, order: Move) -> Order:
    """'F NTH - ENG - MAO': the fleet's first move, then its second."""
    part = order.part
    return TwoPhase(order.power, UnitType.FLEET, order.location,
                    Move(order.power, UnitType.FLEET, order.location, raw.route[0], part=part),
                    Move(order.power, UnitType.FLEET, raw.route[0], raw.dest, merge=raw.merge, part=part), part=part)


def parse_then(variant: Variant, text: str, words: str, power: str, state: GameState | None,
               read: Reader) -> ParsedOrder:
    """'<first order> THEN <second order>': a fleet's orders for both of its moves. The second
    is for the fleet where the first leaves it, and may leave the fleet out: 'F IRI H THEN S F
    ENG - MAO', 'F NTH - ENG THEN - MAO', 'F NTH - ENG THEN F ENG - MAO'."""
    first_text, second_text = THEN.split(words, maxsplit=1)
    first = read(variant, first_text, first_text, power, PhaseKind.MOVEMENT, state)
    if first.order is None:
        return ParsedOrder(text, None, _("the first move: {reason}", reason=first.error))
    if type(first.order) is TwoPhase:
        return ParsedOrder(text, None, _("a fleet moves twice a turn, not three times"))
    if first.order.unit_type is UnitType.ARMY:
        return ParsedOrder(text, None, _("only a fleet moves a second time"))
    where = province_of(first.order.dest) if type(first.order) is Move else first.order.province  # type: ignore[attr-defined]
    second_text = second_text.strip()
    if not re.match(r"(?:\d{0,2}(?:A/\d{0,2})?F|fleet)\b", second_text, re.IGNORECASE):  # the fleet left out
        verb = re.match(r"(?:-|to\b|\u2192|>|S\b|supports?\b)", second_text, re.IGNORECASE)
        second_text = f"F {where} {second_text}" if verb else f"F {where} - {second_text}"
    second = read(variant, second_text, second_text, power, PhaseKind.MOVEMENT, None)
    if second.order is None:
        return ParsedOrder(text, None, _("the second move: {reason}", reason=second.error))
    if type(second.order) is TwoPhase:
        return ParsedOrder(text, None, _("a fleet moves twice a turn, not three times"))
    fleet = UnitType.FLEET
    first_order = first.order if first.order.unit_type else replace(first.order, unit_type=fleet)  # type: ignore[type-var]
    # The part of a multiple unit that moves first moves again, unless the second says otherwise.
    part = second.order.part if second.order.part is not None else first_order.part
    return ParsedOrder(text, TwoPhase(power, fleet, first_order.location, first_order,
                                      replace(second.order, unit_type=fleet, part=part), part=first_order.part), None)  # type: ignore[type-var]


