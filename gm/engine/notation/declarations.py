"""Declarations that order no unit: 'HOME Portugal' (a power names a centre its new home centre)
and 'PROMOTE Spain' (a minor power a power controls becomes its major power)."""
from __future__ import annotations

import re

from gm.engine.model import PhaseKind, province_of
from gm.engine.notation.names import resolve_power
from gm.engine.notation.reader import ParsedOrder, lookup_location
from gm.engine.orders import DeclareHome, Promote
from gm.engine.variant import Variant
from gm.i18n import _

# 'PROMOTE Spain', 'promote Spain to major power'.
_PROMOTE = re.compile(r"\s*PROMOTE\b\s*:?\s*(.*?)(?:\s+(?:to|as)\s+(?:a\s+)?major(?:\s+power)?)?\s*$", re.IGNORECASE | re.DOTALL)
_HOME = re.compile(r"\s*HOME\b\s*:?\s*(.*)$", re.IGNORECASE | re.DOTALL)


def match(words: str) -> re.Match[str] | None:
    return _HOME.match(words) or _PROMOTE.match(words)


def parse(variant: Variant, text: str, found: re.Match[str], power: str, phase_kind: PhaseKind) -> ParsedOrder:
    if found.re is _PROMOTE:
        named = found.group(1).strip()
        minor = resolve_power(variant, named) if named else None
        if minor is None:
            return ParsedOrder(text, None, _("{name} is no power of {variant}: PROMOTE <minor power>", name=repr(named),
                                             variant=variant.title) if named else
                               _("name the minor power to make your major power: PROMOTE <minor power>"))
        return ParsedOrder(text, Promote(power, None, minor), None)
    if phase_kind is not PhaseKind.ADJUSTMENT:
        return ParsedOrder(text, None, _("a HOME declaration is only accepted in an adjustment phase"))
    location, why = lookup_location(variant, found.group(1))
    if location is None:
        return ParsedOrder(text, None, why)
    return ParsedOrder(text, DeclareHome(power, None, province_of(location)), None)
