"""A variant's names as players write them: provinces, coasts and powers, exact or loosely."""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import cache

from gm.engine.notation.languages import ENGLISH, vocabulary
from gm.engine.notation.words import DIRECTION_NAMES, FUZZY_CUTOFF, FUZZY_TIE, norm
from gm.engine.variant import Variant

@dataclass(frozen=True)
class Tables:
    abbrs: dict[str, frozenset[str]]  # folded abbreviation -> provinces
    names: dict[str, frozenset[str]]  # folded name or alias -> provinces
    compact: dict[str, frozenset[str]]  # any of those without spaces: 'stpetersburg'
    loose: tuple[tuple[str, str], ...]  # (key, province) for prefix and misspelling matches
    max_words: int  # the most words a name has
    coast_codes: dict[str, str]  # 'nc' -> 'NC'
    display: dict[str, str]  # province -> name
    powers: dict[str, frozenset[str]]  # folded name, adjective or alias -> powers
    power_loose: tuple[tuple[str, str], ...]


class _VariantKey:
    """Hashes as the variant's name; equal only to a key for the same Variant object."""

    __slots__ = ("variant",)

    def __init__(self, variant: Variant) -> None:
        self.variant = variant

    def __hash__(self) -> int:
        return hash(self.variant.name)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _VariantKey) and other.variant is self.variant


def tables(variant: Variant, language: str = "en") -> Tables:
    """The variant's names as a reader of `language` writes them: theirs, then English's."""
    if language != "en" and (language in variant.languages or vocabulary(language) is not ENGLISH):
        return _language_tables(_VariantKey(variant), language)
    return _build_tables(_VariantKey(variant))


def _freeze(table: dict[str, set[str]]) -> dict[str, frozenset[str]]:
    return {k: frozenset(v) for k, v in table.items()}


def _add(table: dict[str, set[str]], key: str, value: str) -> None:
    table.setdefault(key, set()).add(value)


@cache
def _build_tables(key: _VariantKey) -> Tables:
    variant = key.variant
    abbrs: dict[str, set[str]] = {}
    names: dict[str, set[str]] = {}
    compact: dict[str, set[str]] = {}
    powers: dict[str, set[str]] = {}
    codes = {f"{d.casefold()}c": f"{d}C" for d in DIRECTION_NAMES}
    for p in variant.map.provinces.values():
        _add(abbrs, norm(p.abbr), p.abbr)
        for text in (p.name, *p.aliases):
            _add(names, norm(text), p.abbr)
        for text in (p.abbr, p.name, *p.aliases):
            _add(compact, norm(text).replace(" ", ""), p.abbr)
        codes.update({c.casefold(): c for c in p.coasts})
    for pw in variant.powers.values():
        for text in filter(None, (pw.name, pw.adjective, *pw.aliases)):
            _add(powers, norm(text), pw.name)
            _add(powers, norm(text).replace(" ", ""), pw.name)
    return _tables(variant, abbrs, names, compact, powers, codes)


def _tables(variant: Variant, abbrs: dict[str, set[str]], names: dict[str, set[str]], compact: dict[str, set[str]],
            powers: dict[str, set[str]], codes: dict[str, str]) -> Tables:
    return Tables(
        _freeze(abbrs), _freeze(names), _freeze(compact),
        loose=tuple(sorted((k, p) for k, ps in names.items() if len(k) >= 4 for p in ps)),
        max_words=max((k.count(" ") + 1 for k in [*abbrs, *names]), default=1),
        coast_codes=codes,
        display={p.abbr: p.name for p in variant.map.provinces.values()},
        powers=_freeze(powers),
        power_loose=tuple(sorted((k, p) for k, ps in powers.items() if len(k) >= 3 for p in ps)),
    )


@cache
def _language_tables(key: _VariantKey, language: str) -> Tables:
    """English's tables with the language's names laid over them: a word the language gives a
    meaning has only that meaning ('TYR' is the Tyrrhenian Sea to a German, Tyrolia to others)."""
    variant, english = key.variant, _build_tables(key)
    local = variant.languages.get(language)
    abbrs: dict[str, set[str]] = {}
    names: dict[str, set[str]] = {}
    powers: dict[str, set[str]] = {}
    for abbr, spelt in (local.provinces.items() if local else ()):
        if spelt.abbr:
            _add(abbrs, norm(spelt.abbr), abbr)
        for text in (spelt.name, *spelt.aliases):
            _add(names, norm(text), abbr)
    for name, spelt in (local.powers.items() if local else ()):
        for text in filter(None, (spelt.name, spelt.adjective, *spelt.aliases)):
            _add(powers, norm(text), name)
            _add(powers, norm(text).replace(" ", ""), name)
    compact: dict[str, set[str]] = {}
    for table in (abbrs, names):
        for k, ps in table.items():
            compact.setdefault(k.replace(" ", ""), set()).update(ps)
    mine = {*abbrs, *names}

    def over(own: dict[str, set[str]], theirs: dict[str, frozenset[str]], shadowed: set[str]) -> dict[str, set[str]]:
        return {**{k: set(v) for k, v in theirs.items() if k not in shadowed}, **own}

    codes = {**english.coast_codes, **vocabulary(language).coast_codes}
    return _tables(variant, over(abbrs, english.abbrs, mine), over(names, english.names, mine),
                   over(compact, english.compact, set(compact)),
                   over(powers, english.powers, set(powers)), codes)


def loose_match(key: str, pairs: tuple[tuple[str, str], ...], prefix: bool = True) -> set[str]:
    """What `key` may abbreviate or misspell: a unique prefix first, else close spellings."""
    if prefix and len(key) >= 2:
        starts = {v for k, v in pairs if k.startswith(key)}
        if starts and (len(key) >= 3 or len(starts) > 1):
            return starts
    if len(key) < 4:
        return set()
    matcher, floor, scores = difflib.SequenceMatcher(), FUZZY_CUTOFF - FUZZY_TIE, []
    matcher.set_seq2(key)
    for k, v in pairs:
        matcher.set_seq1(k)
        if matcher.real_quick_ratio() >= floor and matcher.quick_ratio() >= floor:
            scores.append((matcher.ratio(), v))
    best = max((s for s, _ in scores), default=0.0)
    if best < FUZZY_CUTOFF:
        return set()
    return {v for s, v in scores if s >= best - FUZZY_TIE}


def resolve_power(variant: Variant, text: str, language: str = "en") -> str | None:
    """'england', 'ENGLAND', 'English', an alias or a clear misspelling -> 'England'; in
    `language` too ('Frankreich' -> 'France' in German)."""
    t = tables(variant, language)
    key = norm(text)
    found = t.powers.get(key) or t.powers.get(key.replace(" ", "")) or (
        loose_match(key, t.power_loose) if key else set())
    return next(iter(found)) if len(found) == 1 else None


def split_power_prefix(variant: Variant, line: str, language: str = "en") -> tuple[str | None, str]:
    """'England: F North Sea - Picardy' -> ('England', 'F North Sea - Picardy').

    Returns (None, line) when the line has no 'Power:' prefix naming a known power.
    """
    head, colon, rest = line.partition(":")
    power = resolve_power(variant, head, language) if colon and head.strip() else None
    return (power, rest.strip()) if power else (None, line.strip())
