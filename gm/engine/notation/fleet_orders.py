"""A fleet's orders of a season at sea: X, denying a direct passage to other powers' armies
('F SKA X Den-Swe'), where the variant's rules have passages; and B, blockading a coastal home
centre ('F MAO B Bre', '2F MAO B Bre'), in a movement phase."""
from __future__ import annotations

import re

from gm.engine.model import GameState, PhaseKind, UnitType, province_of
from gm.engine.notation.reader import Fail, ParsedOrder, Parser, lookup_location, read_order, readings
from gm.engine.notation.words import TYPES, tokens
from gm.engine.orders import Blockade, Deny
from gm.engine.variant import Variant
from gm.i18n import _

# 'F SKA X Den-Swe', 'F Skagerrak deny Denmark - Sweden': a fleet denies a direct passage.
_DENY = re.compile(r"\s*(?:(\d{0,2}[AF](?:/\d{0,2}[AF])?|army|fleet)\s+)?(.+?)\s+(?:X|deny|denies|denying)\s+(?:(?:the\s+)?passage\s+)?"
                   r"(.+?)\s*(?:-+|\u2013|\u2192|>|\s(?:to|and)\s)\s*(.+?)\s*$", re.IGNORECASE | re.DOTALL)
# 'F MAO B Bre', 'F Mid-Atlantic blockades Brest': a fleet blockades a coastal home centre.
_BLOCKADE = re.compile(r"\s*(?:(\d{0,2}[AF](?:/\d{0,2}[AF])?|army|fleet)\s+)?(.+?)\s+(?:B|blockades?|blockading)\s+(.+?)\s*$",
                       re.IGNORECASE | re.DOTALL)


def match(variant: Variant, words: str, phase_kind: PhaseKind) -> re.Match[str] | None:
    found = _deny_match(variant, words) or _blockade_match(words, phase_kind)
    # A place whose name ends in a 'B' of its own (Youngstown's 'Off Board B') is no blockade:
    # when what stands before the B names no place and the line reads as an order, it is that order.
    if (found is not None and found.re is _BLOCKADE and lookup_location(variant, found[2])[0] is None
            and readings(variant, tokens(words), read_order)[0]):
        return None
    return found


def parse(variant: Variant, text: str, found: re.Match[str], power: str, phase_kind: PhaseKind,
          state: GameState | None) -> ParsedOrder:
    if found.re is _BLOCKADE:
        return _parse_blockade(variant, text, found, power, phase_kind, state)
    return _parse_deny(variant, text, found, power, phase_kind, state)


def _fleet_order(variant: Variant, match: re.Match[str], state: GameState | None, only: str
                 ) -> tuple[UnitType | None, str, list[str], tuple[int, int] | None] | str:
    """An X or B order's parts: the fleet's type as written and location, the provinces the
    order names and the fleets it names ('2F'); or why they cannot be read (`only`: what to say
    to an army)."""
    kind, where, *named = match.groups()
    places = []
    for name in (where, *named):
        location, why = lookup_location(variant, name)
        if location is None:
            return why or _("unknown place {name}", name=repr(name))
        places.append(province_of(location))
    part = None
    if kind and kind.lower() not in TYPES:
        parser = Parser(variant, tokens(kind))
        try:
            unit_type, part = parser.designation()
        except Fail as fail:
            return fail.reason
        if not variant.rules.multiple_units:
            return _("{variant} has no multiple units: each unit is one army or one fleet", variant=variant.title)
        if unit_type is UnitType.ARMY:
            return only
    elif kind and kind[0].upper() == "A":
        return only
    fleet = places[0]
    location = state.units[fleet].location if state is not None and fleet in state.units else fleet
    return (UnitType.FLEET if kind else None), location, places[1:], part


def _parse_deny(
    variant: Variant, text: str, match: re.Match[str], power: str, phase_kind: PhaseKind, state: GameState | None
) -> ParsedOrder:
    """'F SKA X Den-Swe': the fleet denies the direct passage between the two spaces this turn."""
    if phase_kind is not PhaseKind.MOVEMENT:
        return ParsedOrder(text, None, _("a direct passage is denied (X) in a movement phase"))
    read = _fleet_order(variant, match, state, _("only a fleet denies a direct passage"))
    if isinstance(read, str):
        return ParsedOrder(text, None, read)
    unit_type, location, (a, b), part = read
    return ParsedOrder(text, Deny(power, unit_type, location, a, b, part=part), None)


def _parse_blockade(variant: Variant, text: str, match: re.Match[str], power: str, phase_kind: PhaseKind,
                    state: GameState | None) -> ParsedOrder:
    """'F MAO B Bre': the fleet blockades the centre for the season (movement phases only)."""
    if phase_kind is not PhaseKind.MOVEMENT:
        return ParsedOrder(text, None, _("a blockade (B) is ordered in a movement phase"))
    read = _fleet_order(variant, match, state, _("only a fleet blockades"))
    if isinstance(read, str):
        return ParsedOrder(text, None, read)
    unit_type, location, (target,), part = read
    return ParsedOrder(text, Blockade(power, unit_type, location, target, part=part), None)


def _blockade_match(words: str, phase_kind: PhaseKind) -> re.Match[str] | None:
    """A B order: 'B' or 'blockade' as a word of its own, in a movement phase."""
    if phase_kind is not PhaseKind.MOVEMENT or not re.search(r"\s(?:B|blockades?|blockading)\s", words, re.IGNORECASE):
        return None
    return _BLOCKADE.match(words)


def _deny_match(variant: Variant, words: str) -> re.Match[str] | None:
    """An X order, only in a variant with direct passages (elsewhere 'X' is no order word)."""
    if not re.search(r"\b(?:X|deny|denies|denying)\b", words, re.IGNORECASE) or not variant.rules.passages(variant):
        return None
    return _DENY.match(words)


