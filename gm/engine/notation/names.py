"""A variant's names as players write them: provinces, coasts and powers, exact or loosely."""
from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import cache

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


def tables(variant: Variant) -> Tables:
    return _build_tables(_VariantKey(variant))


def _freeze(table: dict[str, set[str]]) -> dict[str, frozenset[str]]:
    return {k: frozenset(v) for k, v in table.items()}


@cache
def _build_tables(key: _VariantKey) -> Tables:
    variant = key.variant
    abbrs: dict[str, set[str]] = {}
    names: dict[str, set[str]] = {}
    compact: dict[str, set[str]] = {}
    powers: dict[str, set[str]] = {}
    codes = {f"{d.casefold()}c": f"{d}C" for d in DIRECTION_NAMES}
    for p in variant.map.provinces.values():
        abbrs.setdefault(norm(p.abbr), set()).add(p.abbr)
        for text in (p.name, *p.aliases):
            names.setdefault(norm(text), set()).add(p.abbr)
        for text in (p.abbr, p.name, *p.aliases):
            compact.setdefault(norm(text).replace(" ", ""), set()).add(p.abbr)
        codes.update({c.casefold(): c for c in p.coasts})
    for pw in variant.powers.values():
        for text in filter(None, (pw.name, pw.adjective, *pw.aliases)):
            powers.setdefault(norm(text), set()).add(pw.name)
            powers.setdefault(norm(text).replace(" ", ""), set()).add(pw.name)
    return Tables(
        _freeze(abbrs), _freeze(names), _freeze(compact),
        loose=tuple(sorted((k, p) for k, ps in names.items() if len(k) >= 4 for p in ps)),
        max_words=max((k.count(" ") + 1 for k in [*abbrs, *names]), default=1),
        coast_codes=codes,
        display={p.abbr: p.name for p in variant.map.provinces.values()},
        powers=_freeze(powers),
        power_loose=tuple(sorted((k, p) for k, ps in powers.items() if len(k) >= 3 for p in ps)),
    )


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


def resolve_power(variant: Variant, text: str) -> str | None:
    """'england', 'ENGLAND', 'English', an alias or a clear misspelling -> 'England'."""
    t = tables(variant)
    key = norm(text)
    found = t.powers.get(key) or t.powers.get(key.replace(" ", "")) or (
        loose_match(key, t.power_loose) if key else set())
    return next(iter(found)) if len(found) == 1 else None


def split_power_prefix(variant: Variant, line: str) -> tuple[str | None, str]:
    """'England: F North Sea - Picardy' -> ('England', 'F North Sea - Picardy').

    Returns (None, line) when the line has no 'Power:' prefix naming a known power.
    """
    head, colon, rest = line.partition(":")
    power = resolve_power(variant, head) if colon and head.strip() else None
    return (power, rest.strip()) if power else (None, line.strip())
