"""Names as other judges write them, read exactly in a variant: powers, places, units and phases.
Nothing is guessed: a name is an abbreviation, a name or an alias of the variant's data, or it is
not read (the players' order parser forgives misspellings; an import must not)."""
from __future__ import annotations

import re

from gm.engine.graph import Terrain
from gm.engine.model import Phase, PhaseKind, Season, Unit, UnitType, parse_designation
from gm.engine.notation.names import tables
from gm.engine.notation.words import norm
from gm.engine.variant import Variant
from gm.i18n import _
from gm.lifecycle.phase_names import read_phase


class UnknownName(ValueError):
    """A name the variant does not know; the message (a Text) says which, and what the variant has."""


_COAST_WORDS = {"north": "N", "south": "S", "east": "E", "west": "W"}
# 'Spain (north coast)', 'STP/SC', 'stp(sc)', 'Bulgaria east coast', 'SPA NC'
_COAST = re.compile(r"^(?P<place>.*?)\s*(?:[/(]\s*|\s+)"
                    r"(?P<coast>(?:north|south|east|west)(?:\s*coast)?|[nsew]c)\s*\)?$", re.IGNORECASE)
_UNIT_WORDS = {"a": UnitType.ARMY, "army": UnitType.ARMY, "f": UnitType.FLEET, "fleet": UnitType.FLEET}


def power(variant: Variant, text: str) -> str | None:
    """The power `text` names exactly (its name, adjective or an alias, any case); None if none."""
    t = tables(variant)
    key = norm(text.strip().strip(":").strip())
    found = t.powers.get(key) or t.powers.get(key.replace(" ", "")) or frozenset()
    return next(iter(found)) if len(found) == 1 else None


def province(variant: Variant, text: str) -> str | None:
    """The province `text` names exactly: its abbreviation, its name or an alias; None if none."""
    t = tables(variant)
    key = norm(text)
    if key.startswith("the "):
        key = key[4:]
    for table, k in ((t.abbrs, key), (t.names, key), (t.compact, key.replace(" ", ""))):
        found = table.get(k)
        if found:
            return next(iter(found)) if len(found) == 1 else None
    return None


def location(variant: Variant, text: str, unit_type: UnitType | None = None) -> str:
    """'St Petersburg (south coast)', 'STP/SC', 'the North Sea', 'Spain' -> 'STP/SC', 'NTH', 'SPA';
    an army's coast is dropped. Raises UnknownName naming what is wrong."""
    text = text.strip().rstrip(".").strip()
    coast = None
    place = None
    if m := _COAST.match(text):  # the coast first: 'stp/sc' may also be an alias of the province alone
        place = province(variant, m["place"])
        word = m["coast"].lower().split()[0]
        coast = _COAST_WORDS.get(word, word[:1].upper()) + "C" if place is not None else None
    if place is None:
        place = province(variant, text)
    if place is None:
        raise UnknownName(_("{name} is no place on the {variant} board", name=repr(text), variant=variant.title))
    coasts = variant.map.provinces[place].coasts
    if coast is not None and unit_type is not UnitType.ARMY:
        if coast not in coasts:
            raise UnknownName(_("{place} has no {coast} coast", place=variant.map.name(place), coast=coast.lower()))
        return f"{place}/{coast}"
    return place


def unit(variant: Variant, owner: str, text: str) -> Unit:
    """'A PAR', 'F STP/SC', 'Army Budapest', 'Fleet St Petersburg (south coast)', 'fleet in the North
    Sea', '2A BUR' (multiple units), a leader by name; raises UnknownName."""
    words = text.strip().rstrip(".").split(None, 1)
    if len(words) < 2:
        raise UnknownName(_("{text} is no unit: write it like A PAR or Fleet St Petersburg (south coast)",
                            text=repr(text.strip())))
    kind, rest = words
    rest = re.sub(r"^(?:in|over)\s+", "", rest, flags=re.IGNORECASE)
    leaders = variant.rules.unit_names(variant)
    if kind.upper() in leaders:
        return Unit(owner, UnitType.ARMY, location(variant, rest, UnitType.ARMY), leader=leaders[kind.upper()])
    unit_type = _UNIT_WORDS.get(kind.lower())
    parts = parse_designation(kind) if unit_type is None and variant.rules.multiple_units else None
    if unit_type is None and parts is None:
        raise UnknownName(_("{text} is no kind of unit: A (army) or F (fleet)", text=repr(kind)))
    if parts is not None:
        armies, fleets = parts
        where = location(variant, rest, UnitType.FLEET if fleets else UnitType.ARMY)
        return Unit.of(owner, where, armies, fleets)
    assert unit_type is not None
    return Unit(owner, unit_type, location(variant, rest, unit_type))


def misplaced(variant: Variant, u: Unit) -> str | None:
    """Why `u` cannot stand where it is (a fleet inland, an army at sea, a fleet on a two-coast
    province without its coast); None when it can."""
    prov = variant.map.provinces[u.province]
    name = variant.map.name(u.location)
    if prov.terrain is Terrain.IMPASSABLE:
        return _("{place} is impassable: no unit stands there", place=name)
    if u.type is UnitType.FLEET:
        if prov.terrain is Terrain.LAND:
            return _("a fleet cannot stand in {place}: it is inland", place=name)
        if prov.coasts and "/" not in u.location:
            return _("a fleet in {place} must be on one of its coasts ({coasts})", place=name,
                     coasts=", ".join(prov.coasts))
    elif prov.terrain is Terrain.SEA and not variant.rules.multiple_units:
        return _("an army cannot stand in {place}: it is at sea", place=name)
    return None


# --- phases ------------------------------------------------------------------------------------

_SEASON_WORDS = {"spring": Season.SPRING, "summer": Season.SPRING, "fall": Season.FALL, "autumn": Season.FALL,
                 "winter": Season.WINTER}
_KIND_WORDS = {"movement": PhaseKind.MOVEMENT, "move": PhaseKind.MOVEMENT, "moves": PhaseKind.MOVEMENT,
               "retreat": PhaseKind.RETREAT, "retreats": PhaseKind.RETREAT,
               "adjustment": PhaseKind.ADJUSTMENT, "adjustments": PhaseKind.ADJUSTMENT,
               "adjust": PhaseKind.ADJUSTMENT, "build": PhaseKind.ADJUSTMENT, "builds": PhaseKind.ADJUSTMENT}
_CODE = re.compile(r"([SFWBA])(\d{1,4})([MRAB])", re.IGNORECASE)


def judge_phase(variant: Variant, season: str, year: str, kind: str | None) -> Phase | None:
    """A phase as DPjudge and njudge write it ('SPRING 1901 MOVEMENT', 'Retreats for Fall of 1901',
    DPjudge's Classical 'B.C. 273 MOVEMENT'), in the variant's calendar; None when it is none
    of the variant's phases (an INCOME phase, say)."""
    season_key = season.strip().lower().rstrip(".")
    kind_key = (kind or "").strip().lower().rstrip(".")
    phase_kind = _KIND_WORDS.get(kind_key) if kind else None
    if kind and phase_kind is None:
        return None
    if norm(season) == "b c":  # DPjudge's Classical: one season a year, counting down
        return _counted_down(variant, year, phase_kind)
    season_value = _SEASON_WORDS.get(season_key)
    number = _judge_year(variant, year)
    if season_value is None or number is None:
        return None
    if phase_kind is None:
        phase_kind = PhaseKind.ADJUSTMENT if season_value is Season.WINTER else PhaseKind.MOVEMENT
    if season_value is Season.FALL and phase_kind is PhaseKind.ADJUSTMENT:  # njudge's 'F1901B'
        season_value = Season.WINTER
    return Phase(number, season_value, phase_kind)


def phase_code(variant: Variant, code: str) -> Phase | None:
    """'S1901M', 'F1901R', 'W1901A', DPjudge's mapper form 'F1901B' (its winter adjustments), and
    DPjudge's Classical 'B273M'; None when it is none."""
    m = _CODE.fullmatch(code.strip())
    if m is None:
        return None
    season = {"S": "spring", "F": "fall", "W": "winter", "B": "B.C.", "A": "autumn"}[m[1].upper()]
    kind = {"M": "movement", "R": "retreats", "A": "adjustments", "B": "adjustments"}[m[3].upper()]
    return judge_phase(variant, season, m[2], kind)


def own_phase(variant: Variant, text: str) -> Phase | None:
    """A phase as gm names it ('Fall 1902, Movement', 'F1902M', 'Spring 273 BC')."""
    return read_phase(variant, text)


def _judge_year(variant: Variant, text: str) -> int | None:
    """A judge's year in the variant's calendar. njudge numbers the Classical years from
    Alexander's death, plus 1000 ('1050' is 273 BC): gm stores year N as N - 323."""
    text = text.strip().rstrip(".")
    if variant.rules.year_label(variant.first_phase.year).endswith("BC") and re.fullmatch(r"1\d{3}", text):
        return int(text) - 1000 - 323
    return variant.rules.parse_year(text)


def _counted_down(variant: Variant, year: str, kind: PhaseKind | None) -> Phase | None:
    """DPjudge plays Classical one movement a year, 273 BC, 272 BC, ..., with adjustments after
    each even year: two of its years are one of gm's (Spring and Fall)."""
    first = -variant.first_phase.year  # 273
    try:
        written = int(year.strip().rstrip("."))
    except ValueError:
        return None
    if first <= 0 or written > first:
        return None
    steps = first - written
    number = -(first - steps // 2)
    if kind is PhaseKind.ADJUSTMENT:
        return Phase(number, Season.WINTER, kind) if steps % 2 else None
    return Phase(number, Season.SPRING if steps % 2 == 0 else Season.FALL, kind or PhaseKind.MOVEMENT)
