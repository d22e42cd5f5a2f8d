"""Order text -> typed Order values. The only place where players' words become orders.

The parser understands the order language players really type (see tests/engine/test_parse.py
and tests/engine/test_spellings.py) and never raises: text it cannot understand comes back as a
ParsedOrder with a precise error. It does not judge legality (adjacency, whether a unit is
there, ...): check_order does that. Only where words can be read as two different orders
('A Mar S A Par-Bur' on a map with a province named 'Par-Bur') does the position decide between
them; when it cannot, the error names both readings.
"""
from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Callable, Collection
from dataclasses import dataclass, replace
from functools import cache, lru_cache
from typing import TypeVar

from gm.engine.adjudicator import check_order
from gm.engine.graph import Terrain
from gm.engine.model import RETREATS, GameState, PhaseKind, Unit, UnitType, designation, province_of
from gm.engine.orders import (Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold,
                              SupportMove, waive)
from gm.engine.orders import Allocation, Bid, Blockade, DeclareHome, Deny, Loan, Permit, Promote, Steps, TwoPhase, convert
from gm.engine.variant import Variant


@dataclass(frozen=True)
class ParsedOrder:
    text: str  # the line as given
    order: Order | None  # None when rejected
    error: str | None  # precise human reason when rejected

    @property
    def ok(self) -> bool:
        return self.order is not None


# --- words ---------------------------------------------------------------------------------------

TYPES = {"a": UnitType.ARMY, "army": UnitType.ARMY, "f": UnitType.FLEET, "fleet": UnitType.FLEET}
HOLD = frozenset({"h", "hold", "holds", "stand", "stands"})
MOVE = frozenset({"-", "to", "m", "mv", "move", "moves", "moving"})
SUPPORT = frozenset({"s", "sup", "supp", "support", "supports", "supporting"})
CONVOY = frozenset({"c", "convoy", "convoys", "convoying"})
VIA = frozenset({"via", "by"})
VIA_CONVOY = frozenset({"c", "convoy", "conv"})
RETREAT = frozenset({"r", "retreat", "retreats"})
DISBAND = frozenset({"d", "disband", "disbands"})
REMOVE = frozenset({"remove", "removes"})
BUILD = frozenset({"b", "build", "builds"})
WAIVE = frozenset({"w", "waive", "waives"})
# Multiple units (Multiplicity, the A/F rules): merging, boarding a fleet, landing from one.
MERGE = frozenset({"merge", "merges", "merging"})
EMBARK = frozenset({"e", "embark", "embarks", "embarking", "board", "boards"})
LAND_FROM_SEA = frozenset({"disembark", "disembarks", "land", "lands"})
INTO = frozenset({"to", "into", "in", "with", "onto", "on"})
# '2A', 'A/F', 'A/2F', '3f': a unit of several armies and fleets.
_KIND = re.compile(r"(\d{0,2})([af])")
TO, OPEN, CLOSE = frozenset({"to"}), frozenset({"("}), frozenset({")"})
KEYWORDS = HOLD | MOVE | SUPPORT | CONVOY | VIA | RETREAT | DISBAND | REMOVE | BUILD | WAIVE
# Long keywords a misspelt word may be suggested as.
SUGGEST = sorted(k for k in KEYWORDS | set(TYPES) if len(k) >= 4)
DIRECTION_NAMES = {"N": "north", "S": "south", "E": "east", "W": "west"}
DIRECTIONS = {w: d for d, name in DIRECTION_NAMES.items() for w in (name, name[0])}  # 'n' -> 'N'
FUZZY_CUTOFF = 0.8  # difflib ratio a misspelling must reach
FUZZY_TIE = 0.04  # candidates this close to the best are all taken as meant

# Phase in which each kind of order is accepted, for the wrong-phase message.
WHEN = {"hold": "a movement phase", "support": "a movement phase", "convoy": "a movement phase",
        "move": "a movement or retreat phase", "retreat": "a retreat phase",
        "disband": "a retreat or adjustment phase", "remove": "a retreat or adjustment phase",
        "build": "an adjustment phase", "waive": "an adjustment phase"}
ACCEPTS = {PhaseKind.MOVEMENT: {"hold", "move", "support", "convoy"},
           PhaseKind.RETREAT: {"move", "retreat", "disband", "remove"},
           PhaseKind.SECOND_RETREAT: {"move", "retreat", "disband", "remove"},
           PhaseKind.ADJUSTMENT: {"build", "waive", "disband", "remove"},
           PhaseKind.BIDDING: set()}


@dataclass(frozen=True, slots=True)
class _Tok:
    text: str  # as written
    key: str  # folded: lower case; any run of dashes and arrows is '-'

    @property
    def is_word(self) -> bool:
        return self.key[0].isalnum()


_ARROWS = str.maketrans({c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2192\u21d2>="})
_TOKEN = re.compile(r"[^\W_]+|-+|[/()]")


def _tokens(text: str) -> list[_Tok]:
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    text = re.sub(r"['\u2019`]", "", text.translate(_ARROWS))
    return [_Tok(m[0], "-" if m[0][0] == "-" else m[0].casefold()) for m in _TOKEN.finditer(text)]


def _norm(text: str) -> str:
    """A name as a lookup key: 'Mid-Atlantic Ocean' -> 'mid atlantic ocean'."""
    return " ".join(t.key for t in _tokens(text) if t.is_word)


def _render(toks: list[_Tok]) -> str:
    text = " ".join(t.text for t in toks)
    return re.sub(r"\s*/\s*", "/", re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", text)))


def _one_of(names: list[str]) -> str:
    names = sorted(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


# --- name tables ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Tables:
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


def _tables(variant: Variant) -> _Tables:
    return _build_tables(_VariantKey(variant))


def _freeze(table: dict[str, set[str]]) -> dict[str, frozenset[str]]:
    return {k: frozenset(v) for k, v in table.items()}


@cache
def _build_tables(key: _VariantKey) -> _Tables:
    variant = key.variant
    abbrs: dict[str, set[str]] = {}
    names: dict[str, set[str]] = {}
    compact: dict[str, set[str]] = {}
    powers: dict[str, set[str]] = {}
    codes = {f"{d.casefold()}c": f"{d}C" for d in DIRECTION_NAMES}
    for p in variant.map.provinces.values():
        abbrs.setdefault(_norm(p.abbr), set()).add(p.abbr)
        for text in (p.name, *p.aliases):
            names.setdefault(_norm(text), set()).add(p.abbr)
        for text in (p.abbr, p.name, *p.aliases):
            compact.setdefault(_norm(text).replace(" ", ""), set()).add(p.abbr)
        codes.update({c.casefold(): c for c in p.coasts})
    for pw in variant.powers.values():
        for text in filter(None, (pw.name, pw.adjective, *pw.aliases)):
            powers.setdefault(_norm(text), set()).add(pw.name)
            powers.setdefault(_norm(text).replace(" ", ""), set()).add(pw.name)
    return _Tables(
        _freeze(abbrs), _freeze(names), _freeze(compact),
        loose=tuple(sorted((k, p) for k, ps in names.items() if len(k) >= 4 for p in ps)),
        max_words=max((k.count(" ") + 1 for k in [*abbrs, *names]), default=1),
        coast_codes=codes,
        display={p.abbr: p.name for p in variant.map.provinces.values()},
        powers=_freeze(powers),
        power_loose=tuple(sorted((k, p) for k, ps in powers.items() if len(k) >= 3 for p in ps)),
    )


def _loose_match(key: str, pairs: tuple[tuple[str, str], ...], prefix: bool = True) -> set[str]:
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
    t = _tables(variant)
    key = _norm(text)
    found = t.powers.get(key) or t.powers.get(key.replace(" ", "")) or (
        _loose_match(key, t.power_loose) if key else set())
    return next(iter(found)) if len(found) == 1 else None


def resolve_location(variant: Variant, text: str) -> str | None:
    """'St Petersburg south coast', 'stp(sc)', 'stp/sc' -> 'STP/SC'; 'Spain' -> 'SPA'."""
    return lookup_location(variant, text)[0]


def lookup_location(variant: Variant, text: str) -> tuple[str | None, str | None]:
    """(location, None) or (None, why not): resolve_location with the reason for a failure."""
    found, why = _readings(variant, _tokens(text), _read_location)
    locations = list(dict.fromkeys(found))
    if len(locations) > 1:
        names = [variant.map.name(loc) for loc in locations]
        return None, f"{text.strip()!r} could be {_one_of(names)}"
    return (locations[0], None) if locations else (None, why)


def split_power_prefix(variant: Variant, line: str) -> tuple[str | None, str]:
    """'England: F North Sea - Picardy' -> ('England', 'F North Sea - Picardy').

    Returns (None, line) when the line has no 'Power:' prefix naming a known power.
    """
    head, colon, rest = line.partition(":")
    power = resolve_power(variant, head) if colon and head.strip() else None
    return (power, rest.strip()) if power else (None, line.strip())


# --- the parser ----------------------------------------------------------------------------------

class _Fail(Exception):
    pass


@dataclass
class _Raw:
    """An order as read, before the phase decides what it is."""

    kind: str  # a key of WHEN
    unit_type: UnitType | None = None
    location: str = ""
    target_type: UnitType | None = None
    target: str = ""
    dest: str = ""
    via_convoy: bool = False
    route: tuple[str, ...] = ()  # 'A Lon - Nth - Bel': the places between the unit and its destination
    part: tuple[int, int] | None = None  # '2A', 'A/F': armies and fleets, where written so
    merge: bool = False  # MERGE, or E(mbark)


class _Parser:
    """One reading of a line. Where words may name places in more than one way ('Swe-Den': Sweden,
    or Swe then Den), the parser makes a choice; `_readings` runs it once per choice made."""

    def __init__(self, variant: Variant, toks: list[_Tok], script: tuple[int, ...] = (),
                 loose: bool = False) -> None:
        self.provinces = variant.map.provinces
        self.t = _tables(variant)
        self.toks = toks
        self.pos = 0
        self.script = script  # the alternative to take at each choice point, in order
        self.made: list[int] = []  # how many alternatives each choice point met offered
        self.loose = loose  # may names be misspelt or cut short?
        self.multiple = variant.rules.multiple_units  # are MERGE, E and D (landing) order words?
        self.title = variant.title

    def choose(self, alternatives: int) -> int:
        k = len(self.made)
        self.made.append(alternatives)
        return self.script[k] if k < len(self.script) else 0

    # token access
    def peek(self, ahead: int = 0) -> str | None:
        i = self.pos + ahead
        return self.toks[i].key if i < len(self.toks) else None

    def take(self, words: frozenset[str]) -> bool:
        if self.peek() in words:
            self.pos += 1
            return True
        return False

    def context(self) -> str:
        return _render(self.toks[: self.pos])

    def missing(self, what: str) -> _Fail:
        if self.pos >= len(self.toks):
            ctx = self.context()
            return _Fail(f"missing {what} after {ctx!r}" if ctx else f"missing {what}")
        return _Fail(f"missing {what} before {self.toks[self.pos].text!r}")

    def unexpected(self) -> _Fail:
        tok = self.toks[self.pos]
        if not tok.is_word or tok.key in KEYWORDS or tok.key in TYPES or self.known(self.pos):
            rest = _render(self.toks[self.pos:])
            return _Fail(f"unexpected {rest!r} after {self.context()!r}")
        msg = f"unknown word {tok.text!r} after {self.context()!r}"
        close = difflib.get_close_matches(tok.key, SUGGEST, n=1, cutoff=0.75)
        return _Fail(msg + (f" (did you mean {close[0]!r}?)" if close else ""))

    def finish(self) -> None:
        if self.pos < len(self.toks):
            raise self.unexpected()

    # names
    def runs(self, loose: bool, start: int | None = None) -> list[tuple[list[_Tok], int]]:
        """Runs of words from here, shortest first, as (words, end). A dash may join words."""
        out: list[tuple[list[_Tok], int]] = []
        words: list[_Tok] = []
        i, toks = self.pos if start is None else start, self.toks
        while i < len(toks) and len(words) < self.t.max_words:
            tok = toks[i]
            if tok.key == "-" and words and i + 1 < len(toks) and toks[i + 1].is_word:
                i += 1
                continue
            if not tok.is_word:
                break
            if loose and (tok.key in KEYWORDS or tok.key in TYPES
                          or (words and (tok.key == "coast" or tok.key in self.t.coast_codes))):
                break
            words.append(tok)
            i += 1
            out.append((list(words), i))
        return out

    def known(self, i: int) -> bool:
        """Do the words at i name a province exactly?"""
        return any(self.exact(words) for words, _ in self.runs(False, i))

    def exact(self, words: list[_Tok], joinable: bool = True) -> frozenset[str]:
        """The provinces the words name as written, or run together ('St Peters burg') when
        `joinable`."""
        key = " ".join(w.key for w in words)
        t = self.t
        hit = t.abbrs.get(key) or t.names.get(key)
        if not hit and joinable and all(w.key not in KEYWORDS and w.key not in TYPES for w in words[1:]):
            hit = t.compact.get(key.replace(" ", ""))  # never 'Mar S' -> 'mars'
        if hit and len(hit) > 1 and len(words) == 1:  # abbreviations differing only in case
            hit = frozenset(h for h in hit if h == words[0].text) or hit
        return hit or frozenset()

    def joinable(self, end: int) -> bool:
        """May the words from here to `end` be run together into one name? Not when dashes split
        them into pieces that each name a place: 'Swe-Den' is Sweden to Denmark, not 'Sweden'
        ('Mid-Atlantic' may still be 'midatlantic')."""
        pieces: list[list[_Tok]] = [[]]
        for tok in self.toks[self.pos:end]:
            if tok.is_word:
                pieces[-1].append(tok)
            else:
                pieces.append([])
        return len(pieces) == 1 or not all(self.exact(piece) for piece in pieces)

    def ambiguous(self, words: list[_Tok], hits: Collection[str]) -> _Fail:
        return _Fail(f"{_render(words)!r} could be {_one_of([self.t.display[h] for h in hits])}")

    def province(self, what: str) -> str:
        """The province the words from here name. Each way of reading them is an alternative:
        exact names longest first, then (for a loose reading) misspellings and unique starts."""
        if self.pos >= len(self.toks) or not self.toks[self.pos].is_word:
            raise self.missing(what)
        alternatives: list[tuple[list[_Tok], frozenset[str], int]] = []
        for words, end in reversed(self.runs(loose=False)):
            hit = self.exact(words, joinable=self.joinable(end))
            if hit:
                alternatives.append((words, hit, end))
        loose = self.runs(loose=True)
        if self.loose:
            # Past an exact name only a misspelling counts ('Mid Atlantc Ocean' is not 'Mid' and
            # junk); with no exact name, a unique start of one too ('Bohem').
            exact_end = alternatives[0][2] if alternatives else self.pos
            for words, end in reversed(loose):
                if end > exact_end:
                    found = _loose_match(" ".join(w.key for w in words), self.t.loose,
                                         prefix=not alternatives)
                    if found:
                        alternatives.append((words, frozenset(found), end))
        if not alternatives:
            if not loose:
                raise self.missing(what)
            words = [w for w, e in loose if e - self.pos == len(w)][-1]  # up to a dash
            raise _Fail(f"unknown province {_render(words)!r}")
        # One place read from more or fewer words is one reading, the longest: 'Hesse-Westphalia'
        # is never Hesse to Westphalia when both name the same province.
        by_place: dict[frozenset[str], tuple[list[_Tok], frozenset[str], int]] = {}
        for alternative in sorted(alternatives, key=lambda a: -a[2]):
            by_place.setdefault(alternative[1], alternative)
        alternatives = list(by_place.values())
        words, hit, end = alternatives[self.choose(len(alternatives))]
        if len(hit) > 1:
            raise self.ambiguous(words, hit)
        self.pos = end
        return next(iter(hit))

    def coast_words(self, i: int, bare: bool) -> tuple[str | None, int]:
        """A coast named by the words at i: 'nc', 'north coast', ('n', 'north' if not bare)."""
        toks, codes = self.toks, self.t.coast_codes
        key = toks[i].key if i < len(toks) else ""
        nxt = toks[i + 1].key if i + 1 < len(toks) else ""
        if key in codes:
            return codes[key], i + 2 if nxt == "coast" else i + 1
        if key in DIRECTIONS:
            code = DIRECTIONS[key] + "C"
            if nxt == "coast" or (not bare and nxt == "c"):
                return code, i + 2
            if not bare:
                return code, i + 1
        return None, i

    def coast(self, province: str) -> str | None:
        i = self.pos
        key = self.peek()
        if key == "/":
            code, j = self.coast_words(i + 1, bare=False)
            if code is None:
                self.pos += 1
                if self.peek() is None:
                    raise self.missing("coast")
                raise _Fail(f"unknown coast {self.toks[i + 1].text!r}")
        elif key == "(":
            code, j = self.coast_words(i + 1, bare=False)
            if code is None:
                word = self.toks[i + 1] if i + 1 < len(self.toks) else None
                if word and word.key not in VIA and self.peek(2) == ")":
                    raise _Fail(f"unknown coast {word.text!r}")
                return None  # perhaps '(via convoy)'
            if j < len(self.toks) and self.toks[j].key == ")":
                j += 1
        else:
            code, j = self.coast_words(i, bare=True)
            if code is None:
                return None
        p = self.provinces[province]
        if code not in p.coasts:
            if not p.coasts:
                raise _Fail(f"{p.name} has no coasts")
            raise _Fail(f"{p.name} has no {DIRECTION_NAMES.get(code[0], code)} coast"
                        if len(code) == 2 and code[1] == "C" else f"{p.name} has no coast {code}")
        self.pos = j
        return code

    def location(self, what: str) -> str:
        province = self.province(what)
        coast = self.coast(province)
        return f"{province}/{coast}" if coast else province

    def unit_type(self) -> UnitType | None:
        return self.designation()[0]

    def designation(self) -> tuple[UnitType | None, tuple[int, int] | None]:
        """'A', 'fleet', and (multiple units) '2A', 'A/F', 'A/2F': the kind of unit, and how many
        armies and fleets when a number or a slash says so."""
        key = self.peek() or ""
        unit_type = TYPES.get(key)
        kind = _KIND.fullmatch(key)
        if kind is None or (not kind[1] and self.peek(1) != "/"):
            self.pos += unit_type is not None
            return unit_type, None
        counts = {"a": 0, "f": 0}
        counts[kind[2]] = int(kind[1] or 1)
        self.pos += 1
        if self.peek() == "/" and (other := _KIND.fullmatch(self.peek(1) or "")) and other[2] != kind[2]:
            counts[other[2]] = int(other[1] or 1)
            self.pos += 2
        armies, fleets = counts["a"], counts["f"]
        if not armies and not fleets:
            raise _Fail(f"a unit of no armies and no fleets: {key!r}")
        return (UnitType.FLEET if fleets else UnitType.ARMY), (armies, fleets)

    def target(self, what: str) -> tuple[UnitType | None, str]:
        # 'S Russian A Pru - Sil': a nationality before the unit type is ignored (DATC 4.C.5, 4.C.6).
        if self.peek() in self.t.powers and self.peek(1) in TYPES:
            self.pos += 1
        unit_type = self.unit_type()
        return unit_type, province_of(self.location(what))

    def via(self) -> bool:
        start = self.pos
        paren = self.take(OPEN)
        if self.take(VIA) and self.take(VIA_CONVOY):
            if paren:
                self.take(CLOSE)
            return True
        self.pos = start
        return False

    # orders
    def order(self) -> _Raw:
        key = self.peek()
        if key is None:
            raise _Fail("empty order")
        if key in WAIVE:
            self.pos += 1
            self.take(BUILD)
            return _Raw("waive")
        if key in BUILD:
            self.pos += 1
            if self.take(WAIVE):
                return _Raw("waive")
            unit_type, part = self.designation()
            return _Raw("build", unit_type, self.location("province"), part=part)
        if key in DISBAND or key in REMOVE or key == "r":
            self.pos += 1
            unit_type, part = self.designation()
            return _Raw("disband" if key in DISBAND else "remove", unit_type,
                        self.location("province"), part=part)
        if key in KEYWORDS:
            raise _Fail(f"unexpected {self.toks[0].text!r} at the start of the order")
        unit_type, part = self.designation()
        raw = _Raw("hold", unit_type, self.location("province"), part=part)
        key = self.peek()
        if key is None:
            raise _Fail(f"missing order after {self.context()!r}")
        self.pos += 1
        if key in HOLD:
            return raw
        if key in MERGE and not self.multiple:
            raise _Fail(f"{self.title} has no multiple units: no unit merges")
        if self.multiple and (key in MERGE or key in EMBARK or ((key in LAND_FROM_SEA or key == "d") and self.peek() is not None)):
            # 'A Mar merge Bur', 'A Wal E ENG' (also 'E F BOT - ION', the fleet's move written
            # beside it), 'A ION D Bal': moves that merge, board a fleet or land from one.
            raw.kind, raw.merge = "move", key not in LAND_FROM_SEA and key != "d"
            self.take(INTO)
            if key in EMBARK:
                self.designation()
            raw.dest = self.location("destination")
            if key in EMBARK and self.take(MOVE):
                self.location("the fleet's destination")
            return raw
        if key in MOVE or key in RETREAT:
            if key == "r" and self.peek() is None:
                raw.kind = "remove"
                return raw
            raw.kind = "move" if key in MOVE else "retreat"
            self.take(TO)
            raw.dest = self.location("destination")
            while self.peek() in MOVE:  # 'A Lon - Nth - Bel': the route of a convoy
                self.pos += 1
                raw.route += (raw.dest,)
                raw.dest, raw.via_convoy = self.location("destination"), True
            raw.via_convoy = self.via() or raw.via_convoy
            raw.merge = self.take(MERGE)
            if raw.merge and not self.multiple:
                raise _Fail(f"{self.title} has no multiple units: no unit merges")
            return raw
        if key in SUPPORT:
            raw.kind = "support"
            raw.target_type, raw.target = self.target("supported unit")
            if self.take(MOVE):
                self.take(TO)
                # The coast stays: a support naming the wrong coast does not match (DATC 6.B.9).
                raw.dest = self.location("destination")
                self.via()  # 'S A Lon - Bel via convoy': the supporter need not know how
            else:
                self.take(HOLD)
            return raw
        if key in CONVOY:
            raw.kind = "convoy"
            raw.target_type, raw.target = self.target("convoyed army")
            if not self.take(MOVE):
                raise self.missing("destination of the convoyed army")
            self.take(TO)
            raw.dest = province_of(self.location("destination"))
            if raw.target_type is UnitType.FLEET:
                raise _Fail("only armies can be convoyed")
            return raw
        if key in DISBAND or key in REMOVE or key in BUILD:
            raw.kind = "disband" if key in DISBAND else "remove" if key in REMOVE else "build"
            return raw
        self.pos -= 1
        raise self.unexpected()


MAX_READINGS = 64  # ways of reading one line tried at most (a line of names alone offers many)

R = TypeVar("R")


def _readings(variant: Variant, toks: list[_Tok], read: Callable[[_Parser], R]) -> tuple[list[R], str]:
    """Every complete reading of the words by `read`, preferred first (longer names before
    shorter), and why there is none: the reason of the reading that got furthest. Misspelt and
    shortened names are tried only when nothing reads as written."""
    why = ""
    for loose in (False, True):
        found: list[R] = []
        furthest, scripts, tried = -1, [()], 0
        while scripts and tried < MAX_READINGS:
            script = scripts.pop()
            tried += 1
            parser = _Parser(variant, toks, script, loose)
            try:
                found.append(read(parser))
            except _Fail as fail:
                if parser.pos > furthest:
                    why, furthest = str(fail), parser.pos
            # The other alternatives of each choice this run made first, pushed so that the
            # smallest script (the preferred reading) is popped first.
            taken = script + (0,) * (len(parser.made) - len(script))
            for k in range(len(script), len(parser.made)):
                scripts.extend(taken[:k] + (alt,) for alt in range(parser.made[k] - 1, 0, -1))
        if found:
            return found, ""
    return [], why


def _read_order(parser: _Parser) -> _Raw:
    raw = parser.order()
    parser.finish()
    return raw


def _read_location(parser: _Parser) -> str:
    location = parser.location("province")
    parser.finish()
    return location


def _legal(variant: Variant, state: GameState, order: Order) -> bool:
    """Could the unit standing where `order` says carry it out? Whoever owns it: a point
    allocation orders another power's unit, so the unit is lent to the ordering power."""
    unit = state.units.get(order.province)
    if unit is not None and unit.power != order.power and state.phase.kind is PhaseKind.MOVEMENT:
        lent = Unit(order.power, unit.type, unit.location)
        state = state.with_(units={**state.units, order.province: lent})
    return check_order(variant, state, order) is None


def _unit_location(state: GameState | None, phase_kind: PhaseKind, raw: _Raw) -> str:
    """Where the unit ordered stands: 'STP' becomes 'STP/SC' when a fleet is on that coast."""
    if state is None or "/" in raw.location or raw.unit_type is UnitType.ARMY:
        return raw.location
    unit = state.units.get(raw.location)
    if phase_kind in RETREATS and raw.location in state.dislodged:
        unit = state.dislodged[raw.location].unit
    if unit is not None and unit.type is UnitType.FLEET and unit.province == raw.location:
        return unit.location
    return raw.location


def _make(raw: _Raw, power: str, phase_kind: PhaseKind, state: GameState | None) -> Order:
    if raw.kind not in ACCEPTS[phase_kind]:
        raise _Fail(f"{raw.kind} orders are only accepted in {WHEN[raw.kind]}")
    if raw.kind == "waive":
        return waive(power)
    if raw.kind == "build":
        if raw.unit_type is None:
            raise _Fail("a build must name the kind of unit: A (army) or F (fleet)")
        return Build(power, raw.unit_type, raw.location, part=raw.part)
    head = (power, raw.unit_type, _unit_location(state, phase_kind, raw))
    part = raw.part
    if raw.kind in ("disband", "remove"):
        return Disband(*head, part=part)
    if raw.kind == "hold":
        return Hold(*head, part=part)
    if raw.kind == "support":
        if raw.dest:
            return SupportMove(*head, raw.target, raw.dest, raw.target_type, part=part)
        return SupportHold(*head, raw.target, raw.target_type, part=part)
    if raw.kind == "convoy":
        return Convoy(*head, raw.target, raw.dest, part=part)
    if phase_kind in RETREATS:
        if raw.via_convoy or raw.merge:
            raise _Fail("a retreat cannot go by convoy" if raw.via_convoy else "a retreat cannot merge")
        return Retreat(*head, raw.dest, part=part)
    return Move(*head, raw.dest, raw.via_convoy, raw.merge, part=part)


_ALLOCATION = re.compile(r"\s*(DP|IP)\b\s*:?\s*(\d+)?\s*(?:points?\b|dps?\b)?\s*:?\s*(.*)$", re.IGNORECASE | re.DOTALL)
_BID = re.compile(r"\s*(?:IPs?|BIDS?)\b\s*:?\s*(.*)$", re.IGNORECASE | re.DOTALL)
# 'LOAN 3 France', 'LOAN 3 SPs to France', 'CONVERT 2', 'CONVERT 2 SP to IP': Supply Points.
_MONEY = re.compile(r"\s*(LOAN|LEND|CONVERT)\b\s*:?\s*(.*)$", re.IGNORECASE | re.DOTALL)
_BID_POINTS = re.compile(r"(?<![\w-])(\d+)\s*(?:IPs?\b|points?\b)?", re.IGNORECASE)
_BID_ON = re.compile(r"^(?:on|for|to|in)\s+", re.IGNORECASE)
_BID_BEHIND = re.compile(r"\s+(?:for|supporting|backing|behind|in\s+support\s+of)\s+", re.IGNORECASE)
_QUOTE_MARK = re.compile(r"\s*[>|]")
_LIST_MARK = re.compile(r"^\s*(?:\d{1,3}[.)]|[-*\u2022\u00b7\u2013])\s+")
# 'F SKA X Den-Swe', 'F Skagerrak deny Denmark - Sweden': a fleet denies a direct passage.
_DENY = re.compile(r"\s*(?:(\d{0,2}[AF](?:/\d{0,2}[AF])?|army|fleet)\s+)?(.+?)\s+(?:X|deny|denies|denying)\s+(?:(?:the\s+)?passage\s+)?"
                   r"(.+?)\s*(?:-+|\u2013|\u2192|>|\s(?:to|and)\s)\s*(.+?)\s*$", re.IGNORECASE | re.DOTALL)
# 'F MAO B Bre', 'F Mid-Atlantic blockades Brest': a fleet blockades a coastal home centre.
_BLOCKADE = re.compile(r"\s*(?:(\d{0,2}[AF](?:/\d{0,2}[AF])?|army|fleet)\s+)?(.+?)\s+(?:B|blockades?|blockading)\s+(.+?)\s*$",
                       re.IGNORECASE | re.DOTALL)
_UNIT_PARENS = re.compile(r"(?<![\w/])(\d{0,2}[AF](?:/\d{0,2}[AF])?|army|fleet)\s*\(\s*([^()]*?)\s*\)", re.IGNORECASE)
# 'PROMOTE Spain', 'promote Spain to major power': rule 12 of Napoleonic Wars.
_PROMOTE = re.compile(r"\s*PROMOTE\b\s*:?\s*(.*?)(?:\s+(?:to|as)\s+(?:a\s+)?major(?:\s+power)?)?\s*$", re.IGNORECASE | re.DOTALL)
_HOME = re.compile(r"\s*HOME\b\s*:?\s*(.*)$", re.IGNORECASE | re.DOTALL)


def _read_bid(variant: Variant, rest: str, power: str) -> tuple[Bid | None, str]:
    """'3 Denmark', '3 IPs on Denmark', 'Denmark 3', '2 Denmark FOR France' -> the bid, or why not."""
    found = _BID_POINTS.search(rest)
    if found is None:
        return None, "a bid names its IPs and the minor power: IP 3 Denmark (or IP 2 Denmark FOR France)"
    words = re.sub(r"[(),;:]", " ", rest[:found.start()] + " " + rest[found.end():]).strip()
    minor_text, _, backed_text = _BID_BEHIND.sub("\0", " " + _BID_ON.sub("", words) + " ", count=1).strip().partition("\0")
    minor = resolve_power(variant, minor_text.strip()) if minor_text.strip() else None
    if minor is None:  # whether it is a minor power now is the rules' to judge (rule 12 promotions)
        minors = [p.name for p in variant.powers.values() if p.minor]
        what = f"{minor_text.strip()!r} is no minor power" if minor_text.strip() else "the bid names no minor power"
        return None, f"{what}; the minor powers are {', '.join(minors)}" if minors else what
    backed = power
    if backed_text.strip():
        found_power = resolve_power(variant, backed_text.strip())
        if found_power is None:
            return None, f"{backed_text.strip()!r} is no power to back"
        backed = found_power
    return Bid(power, None, minor, int(found.group(1)), "" if backed == power else backed), ""


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
            return why or f"unknown place {name!r}"
        places.append(province_of(location))
    part = None
    if kind and kind.lower() not in TYPES:
        parser = _Parser(variant, _tokens(kind))
        try:
            unit_type, part = parser.designation()
        except _Fail as fail:
            return str(fail)
        if not variant.rules.multiple_units:
            return f"{variant.title} has no multiple units: each unit is one army or one fleet"
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
        return ParsedOrder(text, None, "a direct passage is denied (X) in a movement phase")
    read = _fleet_order(variant, match, state, "only a fleet denies a direct passage")
    if isinstance(read, str):
        return ParsedOrder(text, None, read)
    unit_type, location, (a, b), part = read
    return ParsedOrder(text, Deny(power, unit_type, location, a, b, part=part), None)


def _parse_money(variant: Variant, text: str, match: re.Match[str], power: str, phase_kind: PhaseKind) -> ParsedOrder:
    """LOAN <n> <power> and CONVERT <n>: Supply Points lent for a year, or turned into IPs."""
    if phase_kind is not PhaseKind.BIDDING:
        return ParsedOrder(text, None, "Supply Points are lent and converted in the winter bidding phase")
    kind, rest = match.group(1).upper(), match.group(2)
    found = re.search(r"(?<![\w-])(\d+)\s*(?:SPs?\b|supply\s+points?\b)?", rest, re.IGNORECASE)
    if found is None:
        return ParsedOrder(text, None, "name the Supply Points: LOAN 3 France, CONVERT 2")
    n = int(found.group(1))
    words = (rest[:found.start()] + " " + rest[found.end():]).strip()
    if kind == "CONVERT":
        if words and not re.fullmatch(r"(?:(?:to|into)\s+)?(?:IPs?|influence\s+points?)?", words, re.IGNORECASE):
            return ParsedOrder(text, None, f"CONVERT takes only a number of SPs, not {words!r}")
        return ParsedOrder(text, convert(power, n), None)
    words = re.sub(r"^(?:to|for)\s+", "", words, flags=re.IGNORECASE)
    borrower = resolve_power(variant, words) if words else None
    if borrower is None:
        return ParsedOrder(text, None, f"name the power the SPs are lent to: LOAN {n} <power>")
    return ParsedOrder(text, Loan(power, None, borrower, n), None)


def _parse_blockade(variant: Variant, text: str, match: re.Match[str], power: str, phase_kind: PhaseKind,
                    state: GameState | None) -> ParsedOrder:
    """'F MAO B Bre': the fleet blockades the centre for the season (movement phases only)."""
    if phase_kind is not PhaseKind.MOVEMENT:
        return ParsedOrder(text, None, "a blockade (B) is ordered in a movement phase")
    read = _fleet_order(variant, match, state, "only a fleet blockades")
    if isinstance(read, str):
        return ParsedOrder(text, None, read)
    unit_type, location, (target,), part = read
    return ParsedOrder(text, Blockade(power, unit_type, location, target, part=part), None)


def _parse_special(
    variant: Variant, text: str, match: re.Match[str], power: str, phase_kind: PhaseKind, state: GameState | None
) -> ParsedOrder:
    """`DP <n> <order>` (points behind an order for a minor power's unit) and `HOME <province>`."""
    if match.re is _BID:
        bid, why = _read_bid(variant, match.group(1), power)
        if bid is not None and phase_kind is not PhaseKind.BIDDING:
            return ParsedOrder(text, None, "IP bids for minor powers are made in the winter bidding phase")
        if bid is None and phase_kind is PhaseKind.BIDDING:
            return ParsedOrder(text, None, why)
        if bid is not None:
            return ParsedOrder(text, bid, None)
        match = _ALLOCATION.match(match.string) or match  # not a bid: a DP/IP allocation behind an order
        if match.re is _BID:
            return ParsedOrder(text, None, why)
    if match.re is _MONEY:
        return _parse_money(variant, text, match, power, phase_kind)
    if match.re is _BLOCKADE:
        return _parse_blockade(variant, text, match, power, phase_kind, state)
    if match.re is _DENY:
        return _parse_deny(variant, text, match, power, phase_kind, state)
    if match.re is _PROMOTE:
        named = match.group(1).strip()
        minor = resolve_power(variant, named) if named else None
        if minor is None:
            what = f"{named!r} is no power of {variant.title}" if named else "name the minor power to make your major power"
            return ParsedOrder(text, None, f"{what}: PROMOTE <minor power>")
        return ParsedOrder(text, Promote(power, None, minor), None)
    if match.re is _HOME:
        if phase_kind is not PhaseKind.ADJUSTMENT:
            return ParsedOrder(text, None, "a HOME declaration is only accepted in an adjustment phase")
        location, why = lookup_location(variant, match.group(1))
        if location is None:
            return ParsedOrder(text, None, why)
        return ParsedOrder(text, DeclareHome(power, None, province_of(location)), None)
    kind, count, rest = match.group(1).upper(), match.group(2), match.group(3)
    if phase_kind is not PhaseKind.MOVEMENT:
        return ParsedOrder(text, None, f"{kind} allocations are only accepted in a movement phase")
    points = int(count) if count else 1
    if points < 1:
        return ParsedOrder(text, None, f"an allocation needs at least 1 {kind}")
    if not rest.strip():
        return ParsedOrder(text, None, f"missing the order after {kind} {points}")
    inner = parse_order(variant, rest, power, PhaseKind.MOVEMENT, state)
    if inner.order is None:
        return ParsedOrder(text, None, f"in the {kind} allocation: {inner.error}")
    o = inner.order
    return ParsedOrder(text, Allocation(power, o.unit_type, o.location, points, o), None)


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


_THEN = re.compile(r"\s+THEN\s+", re.IGNORECASE)


def _is_fleet(variant: Variant, state: GameState | None, raw: _Raw) -> bool:
    if raw.unit_type is not None:
        return raw.unit_type is UnitType.FLEET
    unit = state.units.get(province_of(raw.location)) if state is not None else None
    if unit is not None:
        return unit.type is UnitType.FLEET
    return variant.map.provinces[province_of(raw.location)].terrain is Terrain.SEA


def _parse_then(variant: Variant, text: str, words: str, power: str, state: GameState | None) -> ParsedOrder:
    """'<first order> THEN <second order>': a fleet's orders for both of its moves. The second
    is for the fleet where the first leaves it, and may leave the fleet out: 'F IRI H THEN S F
    ENG - MAO', 'F NTH - ENG THEN - MAO', 'F NTH - ENG THEN F ENG - MAO'."""
    first_text, second_text = _THEN.split(words, maxsplit=1)
    first = parse_order(variant, first_text, power, PhaseKind.MOVEMENT, state)
    if first.order is None:
        return ParsedOrder(text, None, f"the first move: {first.error}")
    if type(first.order) is TwoPhase:
        return ParsedOrder(text, None, "a fleet moves twice a turn, not three times")
    if first.order.unit_type is UnitType.ARMY:
        return ParsedOrder(text, None, "only a fleet moves a second time")
    where = province_of(first.order.dest) if type(first.order) is Move else first.order.province  # type: ignore[attr-defined]
    second_text = second_text.strip()
    if not re.match(r"(?:\d{0,2}(?:A/\d{0,2})?F|fleet)\b", second_text, re.IGNORECASE):  # the fleet left out
        verb = re.match(r"(?:-|to\b|\u2192|>|S\b|supports?\b)", second_text, re.IGNORECASE)
        second_text = f"F {where} {second_text}" if verb else f"F {where} - {second_text}"
    second = parse_order(variant, second_text, power, PhaseKind.MOVEMENT, None)
    if second.order is None:
        return ParsedOrder(text, None, f"the second move: {second.error}")
    if type(second.order) is TwoPhase:
        return ParsedOrder(text, None, "a fleet moves twice a turn, not three times")
    fleet = UnitType.FLEET
    first_order = first.order if first.order.unit_type else replace(first.order, unit_type=fleet)  # type: ignore[type-var]
    # The part of a multiple unit that moves first moves again, unless the second says otherwise.
    part = second.order.part if second.order.part is not None else first_order.part
    return ParsedOrder(text, TwoPhase(power, fleet, first_order.location, first_order,
                                      replace(second.order, unit_type=fleet, part=part), part=first_order.part), None)  # type: ignore[type-var]


def parse_order(
    variant: Variant, text: str, power: str, phase_kind: PhaseKind, state: GameState | None = None
) -> ParsedOrder:
    """Read one order of `power`. Never raises: what cannot be understood comes back with a reason.

    `power` may be written loosely ('english'); the order carries the variant's name for it.
    With `state`, an order for a fleet on a split coast gets the coast ('F StP S ...' -> 'STP/SC').
    """
    if power not in variant.powers:
        power = resolve_power(variant, power) or power
    if _QUOTE_MARK.match(text):
        return ParsedOrder(text, None, "a line that starts with a quote mark ('>' or '|') is quoted "
                                       "text, not an order")
    words = _LIST_MARK.sub("", text, count=1)  # '1. A Par-Bur', '- A Par-Bur', '* A Par-Bur'
    names = variant.rules.unit_names(variant)
    if names:  # 'CXII(Got)', 'Charles XII Got': a leader is ordered as the army he is
        words = _named_units(tuple(names)).sub("A", words)
    words = _UNIT_PARENS.sub(r"\1 \2", words)  # 'A(Tun)', 'F(SKA)': the place in brackets after the unit
    if variant.rules.impulses > 1 and phase_kind is PhaseKind.MOVEMENT:
        return _parse_turn(variant, text, words, power, state)
    return _parse_words(variant, text, words, power, phase_kind, state)


def _parse_words(
    variant: Variant, text: str, words: str, power: str, phase_kind: PhaseKind, state: GameState | None
) -> ParsedOrder:
    if variant.rules.fleets_move_twice and phase_kind is PhaseKind.MOVEMENT and _THEN.search(words):
        return _parse_then(variant, text, words, power, state)
    special = (_BID.match(words) or _ALLOCATION.match(words) or _HOME.match(words) or _MONEY.match(words)
               or _PROMOTE.match(words)
               or _deny_match(variant, words) or _blockade_match(words, phase_kind))
    if special:
        return _parse_special(variant, text, special, power, phase_kind, state)
    raws, why = _readings(variant, _tokens(words), _read_order)
    orders: list[Order] = []
    for raw in raws:
        try:
            stacks = variant.rules.multiple_units or variant.rules.separate_fleets  # '2F', 'A/2F'
            if (raw.merge and not variant.rules.multiple_units) or (raw.part is not None and not stacks):
                raise _Fail(f"{variant.title} has no multiple units: "
                            + ("no unit merges" if raw.merge else "each unit is one army or one fleet"))
            order = _make(raw, power, phase_kind, state)
        except _Fail as fail:
            why = why or str(fail)
            continue
        if len(raw.route) == 1 and type(order) is Move and variant.rules.fleets_move_twice and \
                _is_fleet(variant, state, raw):
            # 'F NTH - ENG - MAO': a fleet's first move, then its second (Napoleonic Wars)
            part = order.part
            order = TwoPhase(power, UnitType.FLEET, order.location,
                             Move(power, UnitType.FLEET, order.location, raw.route[0], part=part),
                             Move(power, UnitType.FLEET, raw.route[0], raw.dest, merge=raw.merge, part=part), part=part)
        if raw.route and type(order) is Move and variant.rules.impulses > 1 and phase_kind is PhaseKind.MOVEMENT:
            order = _route_steps(variant, state, raw, order)
        if order not in orders:
            orders.append(order)
    if len(orders) > 1 and state is not None:
        orders = [o for o in orders if _legal(variant, state, o)] or orders
    if len(orders) > 1:
        readings = " or as ".join(str(o) for o in orders)
        return ParsedOrder(text, None, f"this can be read as {readings}: write it so that only one "
                                       "is meant (full names, or 'to' for the move)")
    if not orders:
        return ParsedOrder(text, None, why)
    return ParsedOrder(text, orders[0], None)


# --- turns of impulses (1700AD II, rule 6) ----------------------------------------------------------
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
def _named_units(names: tuple[str, ...]) -> re.Pattern[str]:
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


def _parse_turn(variant: Variant, text: str, words: str, power: str, state: GameState | None) -> ParsedOrder:
    """A unit's orders for a turn of impulses, or a retreat, build or removal ordered with them.
    Steps are joined by THEN, or written as the rule does: 'A(Sca)-Hold-Got', 'F(Sca)-COS-C
    A(Got)-Den', 'A Sca - Got - Nwy'; '(x2)' at the end spends two points on the last step."""
    words = re.sub(r"[\s;.,]+$", "", words)
    permit = _PERMIT.match(words) if variant.rules.separate_fleets else None
    if permit:  # 'PERMIT French': rules 8 and 9's permission, until REVOKE French
        other = resolve_power(variant, permit[2]) if permit[2] else None
        if other is None or other == power:
            return ParsedOrder(text, None, f"name another power: {permit[1].upper()} <power>")
        return ParsedOrder(text, Permit(power, None, other, revoke=permit[1].upper() == "REVOKE"), None)
    titled = re.fullmatch(r"(.+?)\s+(\d{3,4})", words.strip())
    if titled and resolve_power(variant, titled[1]) is not None:  # 'Sweden 1700', rule 6's heading
        return ParsedOrder(text, None, "the heading of a power's orders for a year, not an order: the orders follow it")
    heading = _HEADING.match(words)
    if heading:
        rest, word = words[heading.end():], heading[1].lower()
        if word.startswith("retreat"):
            parsed = _parse_words(variant, text, rest, power, PhaseKind.RETREAT, state)
        else:
            verb = "Build" if word.startswith("build") else "Remove"
            parsed = _parse_words(variant, text, f"{verb} {rest}", power, PhaseKind.ADJUSTMENT, state)
        return parsed
    if re.match(r"\s*(?:build|waive|remove|disband)\b", words, re.IGNORECASE) or \
            re.search(r"\s(?:D|disbands?|removes?)$", words, re.IGNORECASE):  # 'A GOT D': a removal (or a retreat's)
        return _parse_words(variant, text, words, power, PhaseKind.ADJUSTMENT, state)
    if re.search(r"\s(?:R|retreats?)\s", words, re.IGNORECASE):
        return _parse_words(variant, text, words, power, PhaseKind.RETREAT, state)
    points = 1
    strength = _STRENGTH.search(words)
    if strength:
        points = {"double": 2, "triple": 3}.get((strength[3] or "").lower()) or int(strength[1] or strength[2])
        words = words[:strength.start()]
    marked = _VERB_STEP.sub("\u00a7", _HOLD_STEP.sub("\u00a7H\u00a7", words))
    texts = [t.strip() for piece in marked.split("\u00a7") for t in _THEN.split(piece) if t.strip()]
    if not texts:
        return ParsedOrder(text, None, "no order: name the unit and what it does, e.g. A(Fin)-Kar (x2)")
    steps: list[Order] = []
    head: tuple[str, str] | None = None  # the unit as written, and where it stands after the last step
    k = 0
    while k < len(texts):
        piece = texts[k]
        k += 1
        hold = piece.upper() in _HOLD_WORDS
        parsed = None
        if head is None and k < len(texts) and texts[k].upper() in _HOLD_WORDS:
            parsed = _parse_words(variant, text, piece, power, PhaseKind.MOVEMENT, state)
            if parsed.order is None:  # 'A(Sca)-Hold-Got': the first step is the hold
                piece, k, parsed = f"{piece} H", k + 1, None
        elif head is not None and not _NAMES_UNIT.match(piece):
            piece = f"{head[0]} {head[1]} " + ("H" if hold else piece if _CONTINUES.match(piece) else f"- {piece}")
        parsed = parsed or _parse_words(variant, text, piece, power, PhaseKind.MOVEMENT, state if not steps else None)
        if parsed.order is None:
            where = "" if len(texts) == 1 else f"step {len(steps) + 1}: "
            return ParsedOrder(text, None, where + (parsed.error or ""))
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


def _route_steps(variant: Variant, state: GameState | None, raw: _Raw, order: Move) -> Order:
    """'A Sca - Got - Nwy': in a turn of impulses, a move through spaces it may stand in is a
    step for each (an army's route through seas stays a convoy route)."""
    fleet = _is_fleet(variant, state, raw)
    seas = variant.map.seas
    if not fleet and any(p in seas for p in map(province_of, raw.route)):
        return order
    stops = [order.location, *raw.route, order.dest]
    moves = tuple(Move(order.power, order.unit_type, here, there, part=order.part)
                  for here, there in zip(stops, stops[1:]))
    return Steps(order.power, order.unit_type, order.location, moves, (1,) * len(moves), part=order.part)
