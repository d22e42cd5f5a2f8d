"""The spelling tests again in French, German and Italian, on the standard map.

Generated as tests/engine/test_spellings.py is (its generators are reused): every move, support,
convoy, retreat, build and disband, each place by the language's abbreviation and by its name,
each order in the language's words, read by a reader of that language as the order meant, which is
what its English twin reads as. Then: every word and name each language has; that the reader's
language decides where a word means two things; that English still reads for every reader; that an
order written back in a language (spell_order) reads as itself; and mail as native players type it.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from gm.engine.model import Dislodged, Phase, PhaseKind, Season, Unit, UnitType, province_of
from gm.engine.notation.languages import OWN_WORDS, LANGUAGES, fold
from gm.engine.orders import (Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold, SupportMove,
                              waive)
from gm.engine.parse import lookup_location, parse_order, resolve_power, spell_order, split_power_prefix
from gm.engine.variant import Variant
from gm.variants import load_variant
from tests.engine.test_spellings import (ADJUSTMENT, MOVEMENT, RETREAT, Check, Speller, _standing_on, all_moves,
                                         great_power, joinings, movement_state, title)

A, F = UnitType.ARMY, UnitType.FLEET
OTHERS = [code for code in LANGUAGES if code != "en"]

# How each language writes a coast in full, after the place: 'Espagne côte nord', 'Spanien Nordküste'.
COAST_WORDS = {
    "fr": {"NC": "côte nord", "SC": "côte sud", "EC": "côte est", "WC": "côte ouest"},
    "de": {"NC": "Nordküste", "SC": "Südküste", "EC": "Ostküste", "WC": "Westküste"},
    "it": {"NC": "costa nord", "SC": "costa sud", "EC": "costa est", "WC": "costa ovest"},
}
CODES = {"fr": {"NC": "cn", "SC": "cs", "EC": "ce", "WC": "co"},
         "de": {"NC": "nk", "SC": "sk", "EC": "ok", "WC": "wk"},
         "it": {"NC": "cn", "SC": "cs", "EC": "ce", "WC": "co"}}


@dataclass(frozen=True)
class Words:
    """The words a native player orders with: the hobby's letters and the full words."""

    army: str
    fleet: str
    move: tuple[str, ...]  # written between two places: 'vers', 'zieht nach'
    hold: tuple[str, ...]
    support: tuple[str, ...]
    convoy: tuple[str, ...]
    retreat: tuple[str, ...]
    build: tuple[str, ...]
    disband: tuple[str, ...]
    remove: tuple[str, ...]
    waive: tuple[str, ...]
    via: tuple[str, ...]


WORDS = {
    "fr": Words("Armée", "Flotte", ("vers", "va à", "attaque"), ("T", "tient"), ("S", "soutient"),
                ("C", "convoie"), ("R", "retraite"), ("Construit", "construction"), ("D", "dissout"),
                ("supprime",), ("Renonce", "renonce"), ("par convoi", "via convoi")),
    "de": Words("Armee", "Flotte", ("nach", "zieht nach"), ("H", "hält", "halten"),
                ("U", "unterstützt", "unterstuetzt"),
                ("K", "konvoiert"), ("R", "Rückzug"), ("Baue", "bau"), ("auflösen", "aufloesen"),
                ("entfernen",), ("Verzicht", "verzichtet"), ("per Konvoi", "über Konvoi")),
    "it": Words("Armata", "Flotta", ("verso", "va a", "muove in"), ("ferma", "resta"), ("S", "sostiene"),
                ("C", "convoglia"), ("R", "ritirata"), ("Costruisci", "costruzione"), ("sciogli", "scioglie"),
                ("rimuovi",), ("Rinuncia", "rinuncio"), ("via convoglio", "tramite convoglio")),
}


@pytest.fixture(scope="module")
def std() -> Variant:
    return load_variant("standard")


@dataclass(frozen=True)
class LocalSpeller(Speller):
    """Writes a place as a player of `language` does: the language's abbreviation or name."""

    language: str = "fr"

    def coast(self, coast: str, style: int) -> str:
        code = CODES[self.language][coast]
        return (f"/{code}", f"({code})", f" {code}", f" {COAST_WORDS[self.language][coast]}")[style % 4]

    def abbr(self, location: str, case: Callable[[str], str], style: int) -> str:
        province, _, coast = location.partition("/")
        text = case(self.variant.languages[self.language].provinces[province].abbr)
        return text + (self.coast(coast, style) if coast else "")

    def name(self, location: str, style: int) -> str:
        province, _, coast = location.partition("/")
        text = self.variant.languages[self.language].provinces[province].name
        return text + (self.coast(coast, style) if coast else "")


@dataclass
class LocalCheck(Check):
    """Check, read by a reader of `language`."""

    language: str = "en"

    def __call__(self, text: str, kind: PhaseKind, state, expected: Order) -> None:
        self.count += 1
        parsed = parse_order(self.variant, text, expected.power, kind, state, language=self.language)
        if parsed.order != expected:
            got = parsed.order if parsed.order is not None else f"error: {parsed.error}"
            self.failures.append(f"{self.language}: {text!r} -> {got} (meant {expected})")


def local_joinings(sp: LocalSpeller, src: str, dst: str, style: int) -> Iterator[tuple[str, str]]:
    """(unit-type case, joined text) for each way a native player writes 'src to dst'."""
    w = WORDS[sp.language]
    s, d = sp.abbr(src, title, style), sp.abbr(dst, title, style)
    low, up = sp.abbr(src, str.lower, style), sp.abbr(src, str.upper, style)
    yield "title", f"{s}-{d}"
    yield "lower", f"{low}-{sp.abbr(dst, str.lower, style)}"
    yield "upper", f"{up} - {sp.abbr(dst, str.upper, style)}"
    yield "title", f"{s} -> {d}"
    yield "title", f"{s} \u2013 {d}"
    for word in w.move:
        yield "title", f"{s} {word} {d}"
    yield "title", f"{sp.name(src, style)} - {sp.name(dst, style)}"
    yield "full", f"{sp.name(src, style)} {w.move[-1]} {sp.name(dst, style)}"


def unit(language: str, unit_type: UnitType, case: str) -> str:
    if case == "full":
        return WORDS[language].army if unit_type is A else WORDS[language].fleet
    return unit_type.value.lower() if case == "lower" else unit_type.value


def setup(std: Variant, language: str) -> tuple[LocalSpeller, LocalCheck, str]:
    return LocalSpeller(std, language), LocalCheck(std, language=language), great_power(std)


@pytest.mark.parametrize("language", OTHERS)
def test_moves(std, language):
    sp, check, power = setup(std, language)
    for style, (unit_type, src, dst) in enumerate(all_moves(std)):
        state = movement_state(std, Unit(power, unit_type, src))
        for case, joined in local_joinings(sp, src, dst, style):
            check(f"{unit(language, unit_type, case)} {joined}", MOVEMENT, state, Move(power, unit_type, src, dst))
        check(f"{sp.abbr(src, title, style)}-{sp.abbr(dst, title, style)}", MOVEMENT, state,
              Move(power, None, src, dst))
    check.assert_clean(at_least=9 * 400)


@pytest.mark.parametrize("language", OTHERS)
def test_supports(std, language):
    sp, check, power = setup(std, language)
    w = WORDS[language]
    reach = {**{(A, p): d for p, d in std.map.army.items()},
             **{(F, loc): std.map.fleet_provinces[loc] for loc in std.map.fleet}}
    for style, (unit_type, src, dst) in enumerate(all_moves(std)):
        helper = next(((t, loc) for (t, loc), to in sorted(reach.items())
                       if province_of(dst) in to and province_of(loc) != province_of(src)), None)
        if helper is None:
            continue
        h_type, h_loc = helper
        state = movement_state(std, Unit(power, unit_type, src), Unit(power, h_type, h_loc))
        expected = SupportMove(power, h_type, h_loc, province_of(src), dst, unit_type)
        for word in w.support:
            for case, joined in local_joinings(sp, src, dst, style):
                head = f"{unit(language, h_type, case)} {sp.abbr(h_loc, title, style)}"
                check(f"{head} {word} {unit(language, unit_type, case)} {joined}", MOVEMENT, state, expected)
        held_type, held = _standing_on(std, dst)
        state = movement_state(std, Unit(power, unit_type, src), Unit(power, held_type, held))
        expected = SupportHold(power, unit_type, src, province_of(held), held_type)
        s, h = sp.abbr(src, title, style), sp.abbr(held, title, style)
        for word in w.support:
            check(f"{unit_type.value} {s} {word} {held_type.value} {h}", MOVEMENT, state, expected)
            check(f"{unit_type.value} {s} {word} {held_type.value} {h} {w.hold[0]}", MOVEMENT, state, expected)
            check(f"{unit(language, unit_type, 'full')} {sp.name(src, style)} {word} "
                  f"{unit(language, held_type, 'full')} {sp.name(held, style)}", MOVEMENT, state, expected)
    check.assert_clean(at_least=2 * 9 * 300)


@pytest.mark.parametrize("language", OTHERS)
def test_convoys(std, language):
    sp, check, power = setup(std, language)
    style = 0
    for sea in sorted(std.map.seas):
        shores = sorted(p for p in std.map.fleet_provinces.get(sea, ()) if p not in std.map.seas)
        for y in shores:
            for z in (z for z in shores if z != y):
                style += 1
                state = movement_state(std, Unit(power, F, sea), Unit(power, A, y))
                expected = Convoy(power, F, sea, y, z)
                for word in WORDS[language].convoy:
                    for case, joined in local_joinings(sp, y, z, style):
                        fleet = sp.abbr(sea, {"lower": str.lower, "upper": str.upper}.get(case, title), 0)
                        check(f"{unit(language, F, case)} {fleet} {word} {unit(language, A, case)} {joined}",
                              MOVEMENT, state, expected)
                # The army's move written back as its own order says it goes by convoy.
                state = movement_state(std, Unit(power, A, y))
                for via in WORDS[language].via:
                    check(f"A {sp.abbr(y, title, style)} - {sp.abbr(z, title, style)} {via}", MOVEMENT, state,
                          Move(power, A, y, z, via_convoy=True))
    check.assert_clean(at_least=2 * 9 * 100)


@pytest.mark.parametrize("language", OTHERS)
def test_retreats(std, language):
    sp, check, power = setup(std, language)
    for style, (unit_type, src, dst) in enumerate(all_moves(std)):
        state = movement_state(std).with_(
            phase=Phase(1901, Season.SPRING, RETREAT),
            dislodged={province_of(src): Dislodged(Unit(power, unit_type, src), None, (dst,))})
        expected = Retreat(power, unit_type, src, dst)
        s, d = sp.abbr(src, title, style), sp.abbr(dst, title, style)
        for case, joined in local_joinings(sp, src, dst, style):
            check(f"{unit(language, unit_type, case)} {joined}", RETREAT, state, expected)
        for word in WORDS[language].retreat:
            check(f"{unit_type.value} {s} {word} {d}", RETREAT, state, expected)
            check(f"{unit(language, unit_type, 'full')} {sp.name(src, style)} {word} {sp.name(dst, style)}",
                  RETREAT, state, expected)
        check(f"{s} {WORDS[language].retreat[0]} {d}", RETREAT, state, Retreat(power, None, src, dst))
    check.assert_clean(at_least=12 * 400)


@pytest.mark.parametrize("language", OTHERS)
def test_builds_and_disbands(std, language):
    sp, check, power = setup(std, language)
    w = WORDS[language]
    adjustment = Phase(1901, Season.WINTER, ADJUSTMENT)
    locations = [(A, p) for p in sorted(std.map.army)] + [(F, loc) for loc in sorted(std.map.fleet)]
    for style, (unit_type, loc) in enumerate(locations):
        empty = movement_state(std).with_(phase=adjustment)
        full = unit(language, unit_type, "full")
        for s in range(4) if "/" in loc else (style,):
            a, n = sp.abbr(loc, title, s), sp.name(loc, s)
            for word in w.build:
                for text in (f"{word} {unit_type.value} {a}", f"{word.lower()} {unit_type.value.lower()} {a.lower()}",
                             f"{word} {full} {n}", f"{unit_type.value} {a} {word}"):
                    check(text, ADJUSTMENT, empty, Build(power, unit_type, loc))
        held = empty.with_(units={province_of(loc): Unit(power, unit_type, loc)})
        a, n = sp.abbr(loc, title, style), sp.name(loc, style)
        for word in (*w.disband, *w.remove):
            for text in (f"{word} {unit_type.value} {a}", f"{unit_type.value} {a} {word}", f"{word} {full} {n}",
                         f"{full} {n} {word}"):
                check(text, ADJUSTMENT, held, Disband(power, unit_type, loc))
        check(f"{w.remove[0]} {sp.abbr(province_of(loc), title, style)}", ADJUSTMENT, held,
              Disband(power, None, loc if unit_type is F else province_of(loc)))
        check(f"{w.disband[0]} {unit_type.value} {a}", RETREAT,
              held.with_(phase=Phase(1901, Season.SPRING, RETREAT), units={},
                         dislodged={province_of(loc): Dislodged(Unit(power, unit_type, loc), None, ())}),
              Disband(power, unit_type, loc))
    for word in w.waive:
        check(word, ADJUSTMENT, movement_state(std).with_(phase=adjustment), waive(power))
    check.assert_clean(at_least=20 * 70)


# --- every word and every name ---------------------------------------------------------------------

_EXAMPLE = {  # (phase, an order written with {w} for the word, the order meant)
    "hold": (MOVEMENT, "A Par {w}", Hold("France", A, "PAR")),
    "move": (MOVEMENT, "A Par {w} Bur", Move("France", A, "PAR", "BUR")),
    "support": (MOVEMENT, "A Mar {w} A Par - Bur", SupportMove("France", A, "MAR", "PAR", "BUR", A)),
    "convoy": (MOVEMENT, "F Eng {w} A Lon - Bre", Convoy("France", F, "ENG", "LON", "BRE")),
    "retreat": (RETREAT, "A Par {w} Bur", Retreat("France", A, "PAR", "BUR")),
    "disband": (ADJUSTMENT, "{w} A Par", Disband("France", A, "PAR")),
    "remove": (ADJUSTMENT, "A Par {w}", Disband("France", A, "PAR")),
    "build": (ADJUSTMENT, "{w} F Bre", Build("France", F, "BRE")),
    "waive": (ADJUSTMENT, "{w}", waive("France")),
    "army": (MOVEMENT, "{w} Par - Bur", Move("France", A, "PAR", "BUR")),
    "fleet": (MOVEMENT, "{w} Bre - Eng", Move("France", F, "BRE", "ENG")),
    "via": (MOVEMENT, "A Bre - Lon {w} convoy", Move("France", A, "BRE", "LON", via_convoy=True)),
    "via_convoy": (MOVEMENT, "A Bre - Lon via {w}", Move("France", A, "BRE", "LON", via_convoy=True)),
    "to": (MOVEMENT, "A Par - {w} Bur", Move("France", A, "PAR", "BUR")),
}


@pytest.mark.parametrize("language", OTHERS)
def test_every_order_word(std, language):
    """Each word the language has, accented and not, upper and lower case, reads as it means."""
    bad = []
    for kind, written in OWN_WORDS[language].items():
        if kind not in _EXAMPLE:
            continue
        phase, pattern, expected = _EXAMPLE[kind]
        for word in {v for w in written for v in (w, fold(w), w.upper())}:
            parsed = parse_order(std, pattern.format(w=word), "France", phase, language=language)
            if parsed.order != expected:
                bad.append(f"{kind} {word!r}: {parsed.order or parsed.error}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("language", OTHERS)
def test_every_name(std, language):
    """Every province by the language's name, abbreviation and each alias, every coast in the
    language's words, every power by its name and adjective."""
    local = std.languages[language]
    assert set(local.provinces) == set(std.map.provinces) and set(local.powers) == set(std.powers)
    bad = []
    for abbr, spelt in local.provinces.items():
        for text in (spelt.name, spelt.abbr, spelt.abbr.lower(), spelt.name.upper(), *spelt.aliases):
            found = lookup_location(std, text, language)
            if found[0] != abbr:
                bad.append(f"{text!r} -> {found}")
        for coast in std.map.provinces[abbr].coasts:
            for written in (f"{spelt.abbr}/{CODES[language][coast]}", f"{spelt.name} {COAST_WORDS[language][coast]}",
                            f"{spelt.name} ({COAST_WORDS[language][coast]})"):
                if lookup_location(std, written, language)[0] != f"{abbr}/{coast}":
                    bad.append(f"{written!r} -> {lookup_location(std, written, language)}")
    for power, spelt in local.powers.items():
        for text in (spelt.name, spelt.adjective, *spelt.aliases):
            if resolve_power(std, text, language) != power:
                bad.append(f"{text!r} -> {resolve_power(std, text, language)}")
    assert not bad, "\n".join(bad)


# --- which meaning a reader gets ---------------------------------------------------------------------

def test_the_readers_language_decides_a_clash(std):
    """TYR is the Tyrrhenian Sea in German, Tyrolia in English: each reader gets theirs."""
    move = "F Tyr - Ion"
    assert parse_order(std, move, "Italy", MOVEMENT, language="de").order == Move("Italy", F, "TYS", "ION")
    for language in ("en", "fr", "it"):
        read = parse_order(std, "A Tyr - Boh", "Italy", MOVEMENT, language=language).order
        assert read == Move("Italy", A, "TYR", "BOH")
    # The German has Tirol by its own name and abbreviation, and by the English name.
    for text in ("A Tir - Boe", "A Tirol - Böhmen", "A Tyrolia - Bohemia"):
        assert parse_order(std, text, "Italy", MOVEMENT, language="de").order == Move("Italy", A, "TYR", "BOH")
    # A word of one language only means nothing to another reader: 'TIR' is no English place.
    assert parse_order(std, "A Tir - Boh", "Italy", MOVEMENT).order is None
    assert parse_order(std, "A Tir - Boh", "Italy", MOVEMENT, language="it").order == Move("Italy", A, "TYR", "BOH")


def test_an_order_word_that_is_also_a_place(std):
    """'par' is the French 'via' and Paris; 'Ost' the German Baltic and east (a coast)."""
    fr = lambda text: parse_order(std, text, "France", MOVEMENT, language="fr").order  # noqa: E731
    assert fr("A Bou - Par") == Move("France", A, "BUR", "PAR")
    assert fr("A Bre - Par par convoi") == Move("France", A, "BRE", "PAR", via_convoy=True)
    assert fr("A Bre - Lon par convoi") == Move("France", A, "BRE", "LON", via_convoy=True)
    de = lambda text: parse_order(std, text, "Germany", MOVEMENT, language="de").order  # noqa: E731
    assert de("F Kie - Ost") == Move("Germany", F, "KIE", "BAL")
    assert de("F Schwarzes Meer - Bul/Ost") == Move("Germany", F, "BLA", "BUL/EC")
    assert de("F Bul/Ost - Swa") == Move("Germany", F, "BUL/EC", "BLA")
    assert de("F Swa - Bul (Ostküste)") == Move("Germany", F, "BLA", "BUL/EC")
    # On another map: 'sta' is the Italian hold and Classical's Sinus Tarentinus.
    classical = load_variant("classical")
    for text, expected in (("Sta sta", Hold("Rome", None, "STA")), ("F Sta ferma", Hold("Rome", F, "STA"))):
        assert parse_order(classical, text, "Rome", MOVEMENT, language="it").order == expected


@pytest.mark.parametrize("language", OTHERS)
def test_english_still_reads_for_every_reader(std, language):
    """The English spellings of every move read the same for a reader of another language, but
    where their language gives a word its own meaning (German TYR)."""
    sp, check, power = Speller(std), LocalCheck(std, language=language), great_power(std)
    shadowed = {abbr for abbr in std.map.provinces
                if lookup_location(std, abbr, language)[0] not in (abbr, None)}
    assert shadowed == ({"TYR"} if language == "de" else set())
    for style, (unit_type, src, dst) in enumerate(all_moves(std)):
        if shadowed & {province_of(src), province_of(dst)}:
            continue  # test_the_readers_language_decides_a_clash
        state = movement_state(std, Unit(power, unit_type, src))
        for case, _, joined in joinings(sp, src, dst, style):
            check(f"{unit_type.value.lower() if case == 'lower' else unit_type.value} {joined}", MOVEMENT, state,
                  Move(power, unit_type, src, dst))
    for text, expected in (("F Bre S A Par - Pic", SupportMove(power, F, "BRE", "PAR", "PIC", A)),
                           ("F English Channel convoys A London to Brest", Convoy(power, F, "ENG", "LON", "BRE")),
                           ("A Par H", Hold(power, A, "PAR")),
                           ("A Bre - Lon via convoy", Move(power, A, "BRE", "LON", True))):
        check(text, MOVEMENT, movement_state(std), expected)
    check("Build A Par", ADJUSTMENT, movement_state(std), Build(power, A, "PAR"))
    check("Waive", ADJUSTMENT, movement_state(std), waive(power))
    check.assert_clean(at_least=10 * 400)


@pytest.mark.parametrize("language, line, power", [
    ("fr", "Allemagne: A Mun - Bou", "Germany"), ("fr", "Angleterre : F Lon - Man", "England"),
    ("de", "Frankreich: A Par - Bur", "France"), ("de", "Österreich: A Wien - Böhmen", "Austria"),
    ("de", "Oesterreich: A Wie - Boe", "Austria"), ("it", "Francia: A Parigi - Borgogna", "France"),
    ("it", "Inghilterra: F Lon - Man", "England"), ("en", "France: A Par - Bur", "France"),
])
def test_power_names_in_each_language(std, language, line, power):
    assert split_power_prefix(std, line, language)[0] == power
    assert parse_order(std, line.partition(":")[2], power, MOVEMENT, language=language).ok


# --- orders written back -------------------------------------------------------------------------------

def _orders(std: Variant) -> Iterator[tuple[PhaseKind, Order]]:
    seen: set[Order] = set()
    for phase, order in _all_orders(std):
        if order not in seen:
            seen.add(order)
            yield phase, order


def _all_orders(std: Variant) -> Iterator[tuple[PhaseKind, Order]]:
    power = "France"
    for unit_type, src, dst in all_moves(std):
        yield MOVEMENT, Move(power, unit_type, src, dst)
        yield MOVEMENT, Hold(power, unit_type, src)
        yield RETREAT, Retreat(power, unit_type, src, dst)
        yield ADJUSTMENT, Build(power, unit_type, src)
        yield ADJUSTMENT, Disband(power, unit_type, src)
        helper = _standing_on(std, dst)
        yield MOVEMENT, SupportHold(power, helper[0], helper[1], province_of(src), unit_type)
        yield MOVEMENT, SupportMove(power, helper[0], helper[1], province_of(src), dst, unit_type)
    for sea in sorted(std.map.seas):
        shores = sorted(p for p in std.map.fleet_provinces.get(sea, ()) if p not in std.map.seas)
        for y, z in zip(shores, shores[1:]):
            yield MOVEMENT, Convoy(power, F, sea, y, z)
            yield MOVEMENT, Move(power, A, y, z, via_convoy=True)
    yield ADJUSTMENT, waive(power)


@pytest.mark.parametrize("language", LANGUAGES)
def test_spell_order_reads_back_as_itself(std, language):
    """Every order, spelt in a language from its Order and from its canonical text, reads back
    in that language as the same order."""
    bad = []
    for phase, order in _orders(std):
        spelt = spell_order(std, order, language)
        if spell_order(std, str(order), language) != spelt:
            bad.append(f"{order}: {spelt!r} from the order, {spell_order(std, str(order), language)!r} from its text")
        back = parse_order(std, spelt, order.power, phase, language=language).order
        if back != order:
            bad.append(f"{order} -> {spelt!r} -> {back}")
    assert not bad, f"{len(bad)} wrong:\n" + "\n".join(bad[:40])


@pytest.mark.parametrize("language, canonical, spelt", [
    ("en", "A PAR - BUR", "A PAR - BUR"),
    ("fr", "A PAR - BUR", "A PAR - BOU"), ("fr", "F BRE S A PAR - PIC", "F BRE S A PAR - PIC"),
    ("fr", "F ENG C A LON - BRE", "F MAN C A LON - BRE"), ("fr", "A PAR H", "A PAR T"),
    ("fr", "F MAO - SPA/NC", "F OAC - ESP/CN"), ("fr", "A BRE - LON VIA CONVOY", "A BRE - LON PAR CONVOI"),
    ("fr", "Build A PAR", "Construit A PAR"), ("fr", "Waive", "Renonce"), ("fr", "A PAR D", "A PAR D"),
    ("de", "F KIE S A MUN - BER", "F KIE U A MUE - BER"), ("de", "F NTH C A LON - BEL", "F NSE K A LON - BEL"),
    ("de", "F TYS - TYR", "F TYR - TIR"), ("de", "F STP/SC - BOT", "F STP/SK - BOT"),
    ("de", "A MUN D", "A MUE Auflösen"), ("de", "Build A MUN", "Baue A MUE"),
    ("it", "A VEN H", "A VEN Ferma"), ("it", "A ROM S A VEN - APU", "A ROM S A VEN - PUG"),
    ("it", "F BUL/EC - BLA", "F BUL/CE - NER"), ("it", "Build F NAP", "Costruisci F NAP"),
    ("fr", "? PAR - BUR", "? PAR - BOU"), ("fr", "not an order", "not an order"),
])
def test_spell_order_examples(std, language, canonical, spelt):
    assert spell_order(std, canonical, language) == spelt


# --- mail as native players type it ---------------------------------------------------------------------

MAILS = {
    "fr": ("France", [
        ("A Par - Bou", Move("France", A, "PAR", "BUR")),
        ("F Bre S A Par - Pic", SupportMove("France", F, "BRE", "PAR", "PIC", A)),
        ("F Man C A Lon - Bre", Convoy("France", F, "ENG", "LON", "BRE")),
        ("A Mar T", Hold("France", A, "MAR")),
        ("a mar tient", Hold("France", A, "MAR")),
        ("Flotte Brest vers Manche", Move("France", F, "BRE", "ENG")),
        ("F OAC - Esp (côte nord)", Move("France", F, "MAO", "SPA/NC")),
        ("F Golfe du Lion soutient A Marseille - Piémont", SupportMove("France", F, "LYO", "MAR", "PIE", A)),
        ("A Bre - Lon par convoi", Move("France", A, "BRE", "LON", via_convoy=True)),
        ("A Bourgogne S A Mun", SupportHold("France", A, "BUR", "MUN", A)),
        ("1. A Par - Gas", Move("France", A, "PAR", "GAS")),
        ("F StP (cs) - GdB", Move("France", F, "STP/SC", "BOT")),
    ]),
    "de": ("Germany", [
        ("A Mün - Bur", Move("Germany", A, "MUN", "BUR")),
        ("A Muenchen - Burgund", Move("Germany", A, "MUN", "BUR")),
        ("F Kie U A Mün - Ber", SupportMove("Germany", F, "KIE", "MUN", "BER", A)),
        ("F Nse K A Lon - Bel", Convoy("Germany", F, "NTH", "LON", "BEL")),
        ("A Ber H", Hold("Germany", A, "BER")),
        ("A Ber hält", Hold("Germany", A, "BER")),
        ("F Kiel nach Helgoländer Bucht", Move("Germany", F, "KIE", "HEL")),
        ("Flotte Ostsee unterstützt Armee Berlin - Preußen", SupportMove("Germany", F, "BAL", "BER", "PRU", A)),
        ("F Mit - Spa (NK)", Move("Germany", F, "MAO", "SPA/NC")),
        ("A Lon - Bel per Konvoi", Move("Germany", A, "LON", "BEL", via_convoy=True)),
        ("A Schlesien - Böhmen", Move("Germany", A, "SIL", "BOH")),
        ("F StP Nordküste - Nrw", Move("Germany", F, "STP/NC", "NWY")),
    ]),
    "it": ("Italy", [
        ("A Ven - Tri", Move("Italy", A, "VEN", "TRI")),
        ("A Rom S A Ven - Pug", SupportMove("Italy", A, "ROM", "VEN", "APU", A)),
        ("F Nap C A Pug - Tun", Convoy("Italy", F, "NAP", "APU", "TUN")),
        ("A Ven ferma", Hold("Italy", A, "VEN")),
        ("Armata Venezia va a Tirolo", Move("Italy", A, "VEN", "TYR")),
        ("Flotta Napoli - Mar Ionio", Move("Italy", F, "NAP", "ION")),
        ("F Tirreno sostiene F Nap - Ion", SupportMove("Italy", F, "TYS", "NAP", "ION", F)),
        ("A Pug - Tun via convoglio", Move("Italy", A, "APU", "TUN", via_convoy=True)),
        ("F Leo - Spa costa sud", Move("Italy", F, "LYO", "SPA/SC")),
        ("A Piemonte - Marsiglia", Move("Italy", A, "PIE", "MAR")),
        ("A Tir S A Ven - Tri", SupportMove("Italy", A, "TYR", "VEN", "TRI", A)),
        ("F Ion - Egeo", Move("Italy", F, "ION", "AEG")),
    ]),
}


@pytest.mark.parametrize("language", OTHERS)
def test_a_native_players_mail(std, language):
    power, lines = MAILS[language]
    for text, expected in lines:
        parsed = parse_order(std, text, power, MOVEMENT, language=language)
        assert parsed.order == expected, f"{text!r}: {parsed.order or parsed.error}"
