"""An order written back in a reader's language: 'A PAR - BUR' is 'A PAR - BOU' to a French
player, 'F BRE S A PAR - PIC' is 'F BRE U A PAR - PIC' to a German. The canonical form (str of
an Order) is the shape; its places and order words are put in the language. A word the language
has no word for stays as English writes it, which every reader reads too."""
from __future__ import annotations

import dataclasses
import re

from gm.engine.model import PhaseKind, province_of
from gm.engine.notation.languages import SPELLING, spell_coast, spell_word
from gm.engine.notation.parser import parse_order
from gm.engine.orders import Order
from gm.engine.variant import Variant

# The phases a stored canonical text is tried in: a move first, so 'A PAR - BUR' is no retreat.
_PHASES = (PhaseKind.MOVEMENT, PhaseKind.RETREAT, PhaseKind.ADJUSTMENT, PhaseKind.BIDDING)
_SKIP = frozenset({"power", "beneficiary"})  # fields naming powers, never places
_PLACE = re.compile(r"@(\d+)@")


def spell_order(variant: Variant, order: Order | str, language: str) -> str:
    """`order` (an Order, or its canonical text) as a player of `language` writes it, with the
    language's abbreviations, coasts and order words. English, or a text that reads as no order,
    comes back as it is."""
    if isinstance(order, str):
        if language not in SPELLING:
            return order  # as the player wrote it: a leader by name, a turn of steps
        found = _read_canonical(variant, order)
        if found is None:
            return order
        order = found
    if language not in SPELLING:
        return str(order)
    places: list[str] = []
    text = str(_hide_places(variant, order, places))
    keys = sorted(SPELLING[language], key=len, reverse=True)
    words = re.compile(r"(?<![\w@/])(?:" + "|".join(map(re.escape, keys)) + r")(?![\w@/])")
    text = words.sub(lambda m: spell_word(language, m[0]), text)
    return _PLACE.sub(lambda m: spell_location(variant, places[int(m[1])], language), text)


def spell_location(variant: Variant, location: str, language: str) -> str:
    """'STP/NC' -> 'STP/CN' in French, 'BUR' -> 'BOU'."""
    province, _, coast = location.partition("/")
    local = variant.languages.get(language)
    spelt = local.provinces.get(province) if local else None
    abbr = spelt.abbr.upper() if spelt and spelt.abbr else province
    return f"{abbr}/{spell_coast(language, coast)}" if coast else abbr


def _read_canonical(variant: Variant, text: str) -> Order | None:
    power = next(iter(variant.powers))
    text = re.sub(r"(?<!\S)\?\s+", "", text)  # '? PAR - BUR': the unit type left out
    for kind in _PHASES:
        parsed = parse_order(variant, text, power, kind)
        if parsed.order is not None:
            return parsed.order
    return None


def _hide_places(variant: Variant, order: Order, places: list[str]) -> Order:
    """The order with each place it names (its own orders' too) put as '@n@', n its index in
    `places`: the canonical text then has no word a place could be mistaken for."""
    changes: dict[str, object] = {}
    for f in dataclasses.fields(order):
        if not f.init or f.name in _SKIP:
            continue
        value = getattr(order, f.name)
        if isinstance(value, Order):
            changes[f.name] = _hide_places(variant, value, places)
        elif isinstance(value, str) and _is_place(variant, value):
            changes[f.name] = _hide(value, places)
        elif isinstance(value, tuple) and value and all(isinstance(v, Order) for v in value):
            changes[f.name] = tuple(_hide_places(variant, v, places) for v in value)
        elif isinstance(value, tuple) and value and all(isinstance(v, str) and _is_place(variant, v) for v in value):
            changes[f.name] = tuple(_hide(v, places) for v in value)
    return dataclasses.replace(order, **changes) if changes else order


def _is_place(variant: Variant, value: str) -> bool:
    return bool(value) and province_of(value) in variant.map.provinces


def _hide(location: str, places: list[str]) -> str:
    places.append(location)
    return f"@{len(places) - 1}@"
