"""Every order of every shipped variant, in every common spelling, reads as the order meant.

Generated, not listed: for each variant, each pair of adjacent spaces (each coast on its own),
and each way players join the words (`A Swe-Den`, `a swe-den`, `A SWE - DEN`, `A Swe to Den`,
`A Swe -> Den`, `A Swe m Den`, dashes and arrows of every kind, full names, no unit type), the parser must give the intended
order in a position where the unit stands. Supports, convoys, retreats, builds and disbands are
generated the same way. A failure lists every misread spelling at once.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from gm.engine.graph import COAST_NAMES
from gm.engine.model import Dislodged, GameState, Phase, PhaseKind, Season, Unit, UnitType, province_of
from gm.engine.orders import Allocation, Build, Convoy, Disband, Move, Order, Retreat, SupportHold, SupportMove
from gm.engine.parse import parse_order
from gm.engine.variant import Variant
from gm.variants import REGISTRY, load_variant

A, F = UnitType.ARMY, UnitType.FLEET
MOVEMENT, RETREAT, ADJUSTMENT = PhaseKind.MOVEMENT, PhaseKind.RETREAT, PhaseKind.ADJUSTMENT

# How a coast follows a province: 'Spa/nc', 'Spa(nc)', 'Spa nc', 'Spa north coast'.
COAST_STYLES: tuple[Callable[[str], str], ...] = (
    lambda c: f"/{c.lower()}",
    lambda c: f"({c.lower()})",
    lambda c: f" {c.lower()}",
    lambda c: f" {COAST_NAMES.get(c, c)}",
)


@dataclass(frozen=True)
class Speller:
    """Writes a location as players do: by abbreviation (in a given case) or by name."""

    variant: Variant

    def abbr(self, location: str, case: Callable[[str], str], style: int) -> str:
        province, _, coast = location.partition("/")
        text = case(self.variant.map.provinces[province].abbr)
        return text + (COAST_STYLES[style % len(COAST_STYLES)](coast) if coast else "")

    def name(self, location: str, style: int) -> str:
        province, _, coast = location.partition("/")
        text = self.variant.map.provinces[province].name
        return text + (COAST_STYLES[style % len(COAST_STYLES)](coast) if coast else "")


def title(abbr: str) -> str:
    return abbr[:1].upper() + abbr[1:].lower()


def joinings(sp: Speller, src: str, dst: str, style: int) -> Iterator[tuple[str, str, str]]:
    """(unit-type case, source, joined text) for each common way of writing 'src to dst'."""
    s, d = sp.abbr(src, title, style), sp.abbr(dst, title, style)
    yield "title", s, f"{s}-{d}"
    yield "lower", sp.abbr(src, str.lower, style), f"{sp.abbr(src, str.lower, style)}-{sp.abbr(dst, str.lower, style)}"
    yield "upper", sp.abbr(src, str.upper, style), f"{sp.abbr(src, str.upper, style)} - {sp.abbr(dst, str.upper, style)}"
    yield "title", s, f"{s} to {d}"
    yield "title", s, f"{s} -> {d}"
    yield "title", s, f"{s} m {d}"
    yield "title", s, f"{s}->{d}"
    yield "title", s, f"{s} \u2013 {d}"
    yield "title", s, f"{s}\u2192{d}"
    yield "title", s, f"{s} => {d}"
    yield "lower", sp.abbr(src, str.lower, style), f"{sp.abbr(src, str.lower, style)} moves to {sp.abbr(dst, str.lower, style)}"
    yield "title", sp.name(src, style), f"{sp.name(src, style)}-{sp.name(dst, style)}"
    yield "title", sp.name(src, style), f"{sp.name(src, style)} - {sp.name(dst, style)}"


def unit_word(unit_type: UnitType, case: str) -> str:
    return unit_type.value.lower() if case == "lower" else unit_type.value


def great_power(variant: Variant) -> str:
    return variant.great_powers[0]


def movement_state(variant: Variant, *units: Unit) -> GameState:
    return GameState(phase=Phase(1901, Season.SPRING, MOVEMENT), units={u.province: u for u in units},
                     supply_centres={}, home_centres={})


def army_moves(variant: Variant) -> Iterator[tuple[str, str]]:
    for src, dests in sorted(variant.map.army.items()):
        for dst in sorted(dests):
            yield src, dst


def fleet_moves(variant: Variant) -> Iterator[tuple[str, str]]:
    for src, dests in sorted(variant.map.fleet.items()):
        for dst in sorted(dests):
            yield src, dst


def all_moves(variant: Variant) -> Iterator[tuple[UnitType, str, str]]:
    yield from ((A, s, d) for s, d in army_moves(variant))
    yield from ((F, s, d) for s, d in fleet_moves(variant))


@dataclass
class Check:
    """Runs spellings against expected orders and keeps every failure."""

    variant: Variant
    count: int = 0

    def __post_init__(self) -> None:
        self.failures: list[str] = []

    def __call__(self, text: str, kind: PhaseKind, state: GameState, expected: Order) -> None:
        self.count += 1
        parsed = parse_order(self.variant, text, expected.power, kind, state)
        if parsed.order != expected:
            got = parsed.order if parsed.order is not None else f"error: {parsed.error}"
            self.failures.append(f"{self.variant.name}: {text!r} -> {got} (meant {expected})")

    def assert_clean(self, at_least: int) -> None:
        assert not self.failures, f"{len(self.failures)} of {self.count} misread:\n" + "\n".join(self.failures)
        assert self.count >= at_least, self.count


VARIANTS = sorted(REGISTRY)


@pytest.fixture(params=VARIANTS)
def variant(request) -> Variant:
    return load_variant(request.param)


def test_moves(variant):
    sp, check, power = Speller(variant), Check(variant), great_power(variant)
    for style, (unit_type, src, dst) in enumerate(all_moves(variant)):
        state = movement_state(variant, Unit(power, unit_type, src))
        expected = Move(power, unit_type, src, dst)
        for case, _, joined in joinings(sp, src, dst, style):
            check(f"{unit_word(unit_type, case)} {joined}", MOVEMENT, state, expected)
        # Without the unit type: the unit standing there is meant.
        check(joined_abbr := f"{sp.abbr(src, title, style)}-{sp.abbr(dst, title, style)}", MOVEMENT, state,
              Move(power, None, src, dst))
        check(f"{joined_abbr}.", MOVEMENT, state, Move(power, None, src, dst))
    check.assert_clean(at_least=8 * 400)


def test_supports(variant):
    """`X S Y-Z` for every move Y-Z, by a unit X that can reach Z; `X S Y` for every neighbour."""
    sp, check, power = Speller(variant), Check(variant), great_power(variant)
    reach = {**{(A, p): d for p, d in variant.map.army.items()},
             **{(F, loc): variant.map.fleet_provinces[loc] for loc in variant.map.fleet}}
    for style, (unit_type, src, dst) in enumerate(all_moves(variant)):
        helper = next(((t, loc) for (t, loc), to in sorted(reach.items())
                       if province_of(dst) in to and province_of(loc) != province_of(src)), None)
        if helper is None:
            continue
        h_type, h_loc = helper
        state = movement_state(variant, Unit(power, unit_type, src), Unit(power, h_type, h_loc))
        expected = SupportMove(power, h_type, h_loc, province_of(src), dst, unit_type)
        for case, _, joined in joinings(sp, src, dst, style):
            head = f"{unit_word(h_type, case)} {sp.abbr(h_loc, title, style)}"
            check(f"{head} S {unit_word(unit_type, case)} {joined}", MOVEMENT, state, expected)
        check(f"{h_type.value} {sp.name(h_loc, style)} supports {unit_type.value} {sp.name(src, style)} "
              f"to {sp.name(dst, style)}", MOVEMENT, state, expected)
        # A support of a hold, given by the unit of the pair that moved above.
        held_type, held = _standing_on(variant, dst)
        state = movement_state(variant, Unit(power, unit_type, src), Unit(power, held_type, held))
        expected = SupportHold(power, unit_type, src, province_of(held), held_type)
        s, h = sp.abbr(src, title, style), sp.abbr(held, title, style)
        for text in (f"{unit_type.value} {s} S {held_type.value} {h}",
                     f"{unit_type.value.lower()} {s.lower()} s {held_type.value.lower()} {h.lower()}",
                     f"{unit_type.value} {s} S {held_type.value} {h} H",
                     f"{unit_type.value} {sp.name(src, style)} supports {held_type.value} {sp.name(held, style)}"):
            check(text, MOVEMENT, state, expected)
    check.assert_clean(at_least=9 * 300)


def _standing_on(variant: Variant, location: str) -> tuple[UnitType, str]:
    """A unit that can stand on `location`'s province: an army on land, else a fleet there."""
    province = province_of(location)
    return (A, province) if province in variant.map.army else (F, location)


def test_convoys(variant):
    """`F Sea C A Y-Z` for every sea and every two coasts it touches."""
    sp, check, power = Speller(variant), Check(variant), great_power(variant)
    style = 0
    for sea in sorted(variant.map.seas):
        shores = sorted(p for p in variant.map.fleet_provinces.get(sea, ()) if p not in variant.map.seas)
        for y in shores:
            for z in shores:
                if y == z:
                    continue
                style += 1
                state = movement_state(variant, Unit(power, F, sea), Unit(power, A, y))
                expected = Convoy(power, F, sea, y, z)
                for case, _, joined in joinings(sp, y, z, style):
                    f = unit_word(F, case)
                    fleet = sp.abbr(sea, str.lower if case == "lower" else str.upper if case == "upper" else title, 0)
                    check(f"{f} {fleet} C {unit_word(A, case)} {joined}", MOVEMENT, state, expected)
                check(f"F {sp.name(sea, 0)} convoys A {sp.name(y, 0)} to {sp.name(z, 0)}", MOVEMENT, state, expected)
    check.assert_clean(at_least=8 * 100)


def test_retreats(variant):
    sp, check, power = Speller(variant), Check(variant), great_power(variant)
    for style, (unit_type, src, dst) in enumerate(all_moves(variant)):
        unit = Unit(power, unit_type, src)
        state = movement_state(variant).with_(
            phase=Phase(1901, Season.SPRING, RETREAT),
            dislodged={province_of(src): Dislodged(unit, None, (dst,))})
        expected = Retreat(power, unit_type, src, dst)
        s, d = sp.abbr(src, title, style), sp.abbr(dst, title, style)
        for case, _, joined in joinings(sp, src, dst, style):
            check(f"{unit_word(unit_type, case)} {joined}", RETREAT, state, expected)
        for text in (f"{unit_type.value} {s} R {d}", f"{unit_type.value.lower()} {s.lower()} r {d.lower()}",
                     f"{unit_type.value} {s} retreats to {d}",
                     f"{unit_type.value} {sp.name(src, style)} retreat {sp.name(dst, style)}"):
            check(text, RETREAT, state, expected)
        check(f"{s} R {d}", RETREAT, state, Retreat(power, None, src, dst))
    check.assert_clean(at_least=10 * 400)


def test_builds_and_disbands(variant):
    """Every location a unit can stand on, built and disbanded, by abbreviation and by name."""
    sp, check, power = Speller(variant), Check(variant), great_power(variant)
    adjustment = Phase(1901, Season.WINTER, ADJUSTMENT)
    locations = [(A, p) for p in sorted(variant.map.army)] + [(F, loc) for loc in sorted(variant.map.fleet)]
    for style, (unit_type, loc) in enumerate(locations):
        empty = movement_state(variant).with_(phase=adjustment)
        expected = Build(power, unit_type, loc)
        for s in range(len(COAST_STYLES)) if "/" in loc else (style,):
            a, n = sp.abbr(loc, title, s), sp.name(loc, s)
            for text in (f"Build {unit_type.value} {a}", f"build {unit_type.value.lower()} {a.lower()}",
                         f"B {unit_type.value} {a.upper()}", f"Build {'army' if unit_type is A else 'fleet'} {n}",
                         f"{unit_type.value} {a} build"):
                check(text, ADJUSTMENT, empty, expected)
        held = empty.with_(units={province_of(loc): Unit(power, unit_type, loc)})
        expected_out = Disband(power, unit_type, loc)
        a, n = sp.abbr(loc, title, style), sp.name(loc, style)
        for text in (f"Disband {unit_type.value} {a}", f"{unit_type.value} {a} D", f"remove {unit_type.value.lower()} {a.lower()}",
                     f"Disband {unit_type.value} {n}", f"{unit_type.value} {n} disbands"):
            check(text, ADJUSTMENT, held, expected_out)
        # Without the unit type the unit standing there is meant, with its coast.
        check(f"Remove {sp.abbr(province_of(loc), title, style)}", ADJUSTMENT, held,
              Disband(power, None, loc if unit_type is F else province_of(loc)))
    check.assert_clean(at_least=10 * 70)


@pytest.mark.parametrize("name", [n for n in VARIANTS if any(p.minor for p in load_variant(n).powers.values())])
def test_point_allocations(name):
    """`DP n <order>` for a minor power's unit, every move from where each one starts."""
    variant = load_variant(name)
    minors = [u for u in variant.starting_units if variant.powers[u.power].minor]
    sp, check, power = Speller(variant), Check(variant), great_power(variant)
    state = variant.initial_state()
    for style, unit in enumerate(minors):
        dests = variant.map.army[unit.location] if unit.type is A else variant.map.fleet[unit.location]
        for dst in sorted(dests):
            inner = Move(power, unit.type, unit.location, dst)
            for case, _, joined in joinings(sp, unit.location, dst, style):
                for points, prefix in ((2, "DP 2"), (1, "dp"), (3, "DP: 3")):
                    check(f"{prefix} {unit_word(unit.type, case)} {joined}", MOVEMENT, state,
                          Allocation(power, unit.type, unit.location, points, inner))
    check.assert_clean(at_least=3 * 13 * 50)
