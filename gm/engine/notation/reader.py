"""The reader of the orders every variant shares: one line of words -> each way to read it.

Where words may name places in more than one way ('Swe-Den': Sweden, or Swe then Den) the
reader tries each; the caller keeps the readings that make an order. Multiple units' words
(2A, A/F, MERGE, E and D) are read here too, where the variant's rules play multiple units.
"""
from __future__ import annotations

import difflib
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Protocol, TypeVar

from gm.engine.graph import COAST_NAMES, Terrain
from gm.engine.model import GameState, PhaseKind, UnitType, province_of
from gm.engine.notation.languages import ENGLISH, vocabulary
from gm.engine.notation.names import loose_match, tables
from gm.engine.notation.words import (CLOSE, EMBARK, INTO, KIND, LAND_FROM_SEA, MERGE, OPEN, Tok,
                                      one_of, render, tokens)
from gm.engine.orders import Order
from gm.engine.variant import Variant
from gm.i18n import _, _p

# What an order may lack, for 'missing {what}'.
ORDER = _p("missing", "order")
PROVINCE = _p("missing", "province")
COAST = _p("missing", "coast")
DESTINATION = _p("missing", "destination")


@dataclass(frozen=True)
class ParsedOrder:
    text: str  # the line as given
    order: Order | None  # None when rejected
    error: str | None  # precise human reason when rejected (a Text)

    @property
    def ok(self) -> bool:
        return self.order is not None


class Reader(Protocol):
    """Reads one order's words (the whole order language of the variant): the notations that
    hold an order inside them (a DP allocation, a fleet's two moves, a turn's steps) are given
    the reader of the whole language."""

    def __call__(self, variant: Variant, text: str, words: str, power: str, phase_kind: PhaseKind,
                 state: GameState | None) -> ParsedOrder: ...


class Fail(Exception):
    """An order that cannot be read, and why."""

    @property
    def reason(self) -> str:
        """Why, as given (a Text: str() of the exception would give its English only)."""
        return self.args[0]


@dataclass
class Raw:
    """An order as read, before the phase decides what it is."""

    kind: str  # a key of WRONG_PHASE
    unit_type: UnitType | None = None
    location: str = ""
    target_type: UnitType | None = None
    target: str = ""
    dest: str = ""
    via_convoy: bool = False  # by convoy: 'via convoy' written, or a route through other spaces
    via_convoy_written: bool = False  # 'VIA CONVOY' (or 'by convoy') written
    route: tuple[str, ...] = ()  # 'A Lon - Nth - Bel': the places between the unit and its destination
    part: tuple[int, int] | None = None  # '2A', 'A/F': armies and fleets, where written so
    merge: bool = False  # MERGE, or E(mbark)
    carrier: tuple[str, ...] = ()  # 'A Tun E F(BOT)-ION-AEG': the moves of the fleet boarded


class Parser:
    """One reading of a line. Where words may name places in more than one way ('Swe-Den': Sweden,
    or Swe then Den), the parser makes a choice; `readings` runs it once per choice made."""

    def __init__(self, variant: Variant, toks: list[Tok], script: tuple[int, ...] = (),
                 loose: bool = False, language: str = "en") -> None:
        self.provinces = variant.map.provinces
        self.neighbours = variant.map.all_neighbours
        self.t = tables(variant, language)  # the reader's names first, then English's
        self.w = vocabulary(language)  # ... and their order words
        self.read: list[str] = []  # the provinces read so far: the unit's first
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
        return render(self.toks[: self.pos])

    def missing(self, what: str) -> Fail:
        """`what`: ORDER, PROVINCE, ... (what the order lacks, as a reader reads it)."""
        if self.pos >= len(self.toks):
            ctx = self.context()
            # TRANSLATORS: {what} is what the order lacks ('destination'); {context}, quoted, the words before
            return Fail(_("missing {what} after {context}", what=what, context=repr(ctx)) if ctx else
                        _("missing {what}", what=what))
        # TRANSLATORS: {word}, quoted, is the player's word that came instead
        return Fail(_("missing {what} before {word}", what=what, word=repr(self.toks[self.pos].text)))

    def unexpected(self) -> Fail:
        tok = self.toks[self.pos]
        if not tok.is_word or tok.key in self.w.keywords or tok.key in self.w.types or self.known(self.pos):
            rest = render(self.toks[self.pos:])
            # TRANSLATORS: {words} and {context} are the player's words, quoted
            return Fail(_("unexpected {words} after {context}", words=repr(rest), context=repr(self.context())))
        word, ctx = repr(tok.text), repr(self.context())
        close = difflib.get_close_matches(tok.key, self.w.suggest, n=1, cutoff=0.75)
        if close:
            # TRANSLATORS: {word} and {context} are the player's words, quoted; {suggestion} an order word, quoted
            return Fail(_("unknown word {word} after {context} (did you mean {suggestion}?)", word=word, context=ctx,
                          suggestion=repr(close[0])))
        # TRANSLATORS: {word} and {context} are the player's words, quoted
        return Fail(_("unknown word {word} after {context}", word=word, context=ctx))

    def finish(self) -> None:
        if self.pos < len(self.toks):
            raise self.unexpected()

    # names
    def runs(self, loose: bool, start: int | None = None) -> list[tuple[list[Tok], int]]:
        """Runs of words from here, shortest first, as (words, end). A dash may join words."""
        out: list[tuple[list[Tok], int]] = []
        words: list[Tok] = []
        i, toks = self.pos if start is None else start, self.toks
        while i < len(toks) and len(words) < self.t.max_words:
            tok = toks[i]
            if tok.key == "-" and words and i + 1 < len(toks) and toks[i + 1].is_word:
                i += 1
                continue
            if not tok.is_word:
                break
            if loose and (tok.key in self.w.keywords or tok.key in self.w.types
                          or (words and (tok.key in self.w.coasts or tok.key in self.t.coast_codes))):
                break
            words.append(tok)
            i += 1
            out.append((list(words), i))
        return out

    def known(self, i: int) -> bool:
        """Do the words at i name a province exactly?"""
        return any(self.exact(words) for words, _end in self.runs(False, i))

    def exact(self, words: list[Tok], joinable: bool = True) -> frozenset[str]:
        """The provinces the words name as written, or run together ('St Peters burg') when
        `joinable`."""
        key = " ".join(w.key for w in words)
        t = self.t
        hit = t.abbrs.get(key) or t.names.get(key)
        if not hit and joinable and all(w.key not in self.w.keywords and w.key not in self.w.types for w in words[1:]):
            hit = t.compact.get(key.replace(" ", ""))  # never 'Mar S' -> 'mars'
        if hit and len(hit) > 1 and len(words) == 1:  # abbreviations differing only in case
            hit = frozenset(h for h in hit if h == words[0].text) or hit
        return hit or frozenset()

    def joinable(self, end: int) -> bool:
        """May the words from here to `end` be run together into one name? Not when dashes split
        them into pieces that each name a place: 'Swe-Den' is Sweden to Denmark, not 'Sweden'
        ('Mid-Atlantic' may still be 'midatlantic')."""
        pieces: list[list[Tok]] = [[]]
        for tok in self.toks[self.pos:end]:
            if tok.is_word:
                pieces[-1].append(tok)
            else:
                pieces.append([])
        return len(pieces) == 1 or not all(self.exact(piece) for piece in pieces)

    def ambiguous(self, words: list[Tok], hits: Collection[str]) -> Fail:
        # TRANSLATORS: {words} are the player's words, quoted; {places} 'Paris or Picardy'
        return Fail(_("{words} could be {places}", words=repr(render(words)),
                      places=one_of([self.t.display[h] for h in hits])))

    def province(self, what: str) -> str:
        """The province the words from here name. Each way of reading them is an alternative:
        exact names longest first, then (for a loose reading) misspellings and unique starts."""
        if self.pos >= len(self.toks) or not self.toks[self.pos].is_word:
            raise self.missing(what)
        alternatives: list[tuple[list[Tok], frozenset[str], int]] = []
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
                    found = loose_match(" ".join(w.key for w in words), self.t.loose,
                                         prefix=not alternatives)
                    if found:
                        alternatives.append((words, frozenset(found), end))
        if not alternatives:
            if not loose:
                raise self.missing(what)
            words = [w for w, e in loose if e - self.pos == len(w)][-1]  # up to a dash
            raise self.unknown(words)
        # One place read from more or fewer words is one reading, the longest: 'Hesse-Westphalia'
        # is never Hesse to Westphalia when both name the same province.
        by_place: dict[frozenset[str], tuple[list[Tok], frozenset[str], int]] = {}
        for alternative in sorted(alternatives, key=lambda a: -a[2]):
            by_place.setdefault(alternative[1], alternative)
        alternatives = list(by_place.values())
        words, hit, end = alternatives[self.choose(len(alternatives))]
        if len(hit) > 1:
            raise self.ambiguous(words, hit)
        self.pos = end
        self.read.append(next(iter(hit)))
        return self.read[-1]

    def unknown(self, words: list[Tok]) -> Fail:
        """An unknown name, and what it may have meant: the nearest names of this map, and the spaces
        next to the unit the order is for, so that the player can write it again."""
        key = " ".join(w.key for w in words)
        keys = {**{k: v for k, v in self.t.names.items()}, **{k: v for k, v in self.t.abbrs.items()}}
        near = sorted({p for k in difflib.get_close_matches(key, list(keys), n=3, cutoff=0.7) for p in keys[k]})
        names = ", ".join(f"{self.t.display[p]} ({p})" for p in near)
        here = province_of(self.read[0]) if self.read else ""
        around = ", ".join(f"{self.t.display[p]} ({p})" for p in sorted(self.neighbours.get(here, ())))
        name, province = repr(render(words)), self.t.display.get(here, "")
        if names and around:
            # TRANSLATORS: {name} is the player's word, quoted; {names} and {neighbours} are lists of
            # 'Name (ABBR)'; {province} is where the unit ordered stands
            return Fail(_("unknown province {name}; the nearest names: {names}; {province} borders {neighbours}",
                          name=name, names=names, province=province, neighbours=around))
        if names:
            return Fail(_("unknown province {name}; the nearest names: {names}", name=name, names=names))
        if around:
            return Fail(_("unknown province {name}; {province} borders {neighbours}", name=name, province=province,
                          neighbours=around))
        return Fail(_("unknown province {name}", name=name))

    def coast_words(self, i: int, bare: bool) -> tuple[str | None, int]:
        """A coast named by the words at i: 'nc', 'north coast', ('n', 'north' if not bare); in
        other languages 'cn', 'côte nord', 'Nordküste'."""
        toks, codes, w = self.toks, self.t.coast_codes, self.w
        key = toks[i].key if i < len(toks) else ""
        nxt = toks[i + 1].key if i + 1 < len(toks) else ""
        if key in codes:
            return codes[key], i + 2 if nxt in w.coasts else i + 1
        if key in w.coast_first and nxt in w.directions:
            return w.directions[nxt] + "C", i + 2
        if key in w.directions:
            code = w.directions[key] + "C"
            if nxt in w.coasts or (not bare and nxt == "c"):
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
                    raise self.missing(COAST)
                raise Fail(_("unknown coast {word}", word=repr(self.toks[i + 1].text)))
        elif key == "(":
            code, j = self.coast_words(i + 1, bare=False)
            if code is None:
                word = self.toks[i + 1] if i + 1 < len(self.toks) else None
                if word and word.key not in self.w.via and self.peek(2) == ")":
                    raise Fail(_("unknown coast {word}", word=repr(word.text)))
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
                raise Fail(_("{province} has no coasts", province=p.name))
            if code in COAST_NAMES:
                # TRANSLATORS: {coast} is 'north coast', ...
                raise Fail(_("{province} has no {coast}", province=p.name, coast=COAST_NAMES[code]))
            raise Fail(_("{province} has no {code} coast", province=p.name, code=code)
                       if len(code) == 2 and code[1] == "C" else _("{province} has no coast {code}", province=p.name,
                                                                   code=code))
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
        unit_type = self.w.types.get(key)
        kind = KIND.fullmatch(key)
        if kind is None or (not kind[1] and self.peek(1) != "/"):
            self.pos += unit_type is not None
            return unit_type, None
        counts = {"a": 0, "f": 0}
        counts[kind[2]] = int(kind[1] or 1)
        self.pos += 1
        if self.peek() == "/" and (other := KIND.fullmatch(self.peek(1) or "")) and other[2] != kind[2]:
            counts[other[2]] = int(other[1] or 1)
            self.pos += 2
        armies, fleets = counts["a"], counts["f"]
        if not armies and not fleets:
            raise Fail(_("a unit of no armies and no fleets: {word}", word=repr(key)))
        return (UnitType.FLEET if fleets else UnitType.ARMY), (armies, fleets)

    def target(self, what: str) -> tuple[UnitType | None, str]:
        # 'S Russian A Pru - Sil': a nationality before the unit type is ignored (DATC 4.C.5, 4.C.6).
        if self.peek() in self.t.powers and self.peek(1) in self.w.types:
            self.pos += 1
        unit_type = self.unit_type()
        return unit_type, province_of(self.location(what))

    def via(self) -> bool:
        start = self.pos
        paren = self.take(OPEN)
        if self.take(self.w.via) and self.take(self.w.via_convoy):
            if paren:
                self.take(CLOSE)
            return True
        self.pos = start
        return False

    # orders
    def order(self) -> Raw:
        key, w = self.peek(), self.w
        if key is None:
            raise Fail(_("empty order"))
        if key in w.waive:
            self.pos += 1
            self.take(w.build)
            return Raw("waive")
        if key in w.build:
            self.pos += 1
            if self.take(w.waive):
                return Raw("waive")
            unit_type, part = self.designation()
            return Raw("build", unit_type, self.location(PROVINCE), part=part)
        if key in w.disband or key in w.remove or key == "r":
            self.pos += 1
            unit_type, part = self.designation()
            return Raw("disband" if key in w.disband else "remove", unit_type,
                        self.location(PROVINCE), part=part)
        # A word only another language makes an order word may be a place here: French 'par' is Paris.
        if key in w.keywords and not (key not in ENGLISH.keywords and self.known(self.pos)):
            raise Fail(_("unexpected {word} at the start of the order", word=repr(self.toks[0].text)))
        unit_type, part = self.designation()
        raw = Raw("hold", unit_type, self.location(PROVINCE), part=part)
        key = self.peek()
        if key is None:
            raise Fail(_("missing {what} after {context}", what=ORDER, context=repr(self.context())))
        self.pos += 1
        if key in w.hold:
            return raw
        if key in MERGE and not self.multiple:
            raise Fail(_("{variant} has no multiple units: no unit merges", variant=self.title))
        if self.multiple and (key in MERGE or key in EMBARK or ((key in LAND_FROM_SEA or key == "d") and self.peek() is not None)):
            # 'A Mar merge Bur', 'A Wal E ENG' (also 'E F(BOT)-ION-AEG', the fleet's moves
            # written beside it), 'A ION D Bal': moves that merge, board a fleet or land from one.
            raw.kind, raw.merge = "move", key not in LAND_FROM_SEA and key != "d"
            self.take(INTO)
            if key in EMBARK or key in MERGE:  # 'E F(BOT)', 'MERGE 2A(Bur)': the unit boarded or made
                self.designation()
            raw.dest = self.location(DESTINATION)
            while key in EMBARK and self.take(w.move):
                raw.carrier += (province_of(self.location(_p("missing", "the fleet's destination"))),)
            return raw
        if key in w.move or key in w.retreat:
            if key == "r" and self.peek() is None:
                raw.kind = "remove"
                return raw
            raw.kind = "move" if key in w.move else "retreat"
            self.take(w.to)
            raw.dest = self.location(DESTINATION)
            while self.peek() in w.move:  # 'A Lon - Nth - Bel': the route of a convoy
                self.pos += 1
                raw.route += (raw.dest,)
                raw.dest, raw.via_convoy = self.location(DESTINATION), True
            raw.via_convoy_written = self.via()
            raw.via_convoy = raw.via_convoy_written or raw.via_convoy
            raw.merge = self.take(MERGE)
            if raw.merge and not self.multiple:
                raise Fail(_("{variant} has no multiple units: no unit merges", variant=self.title))
            return raw
        if key in w.support:
            raw.kind = "support"
            if self.multiple and self.take(MERGE):  # 'A(Par) S MERGE (Bur)': every unit merging there
                self.take(INTO)
                paren = self.take(OPEN)
                raw.dest = province_of(self.location(_p("missing", "the space merged into")))
                if paren and not self.take(CLOSE):
                    raise self.missing("')'")
                return raw
            raw.target_type, raw.target = self.target(_p("missing", "supported unit"))
            if self.take(w.move):
                self.take(w.to)
                # The coast stays: a support naming the wrong coast does not match (DATC 6.B.9).
                raw.dest = self.location(DESTINATION)
                self.via()  # 'S A Lon - Bel via convoy': the supporter need not know how
            else:
                self.take(w.hold)
            return raw
        if key in w.convoy:
            raw.kind = "convoy"
            raw.target_type, raw.target = self.target(_p("missing", "convoyed army"))
            if not self.take(w.move):
                raise self.missing(_p("missing", "destination of the convoyed army"))
            self.take(w.to)
            raw.dest = province_of(self.location(DESTINATION))
            if raw.target_type is UnitType.FLEET:
                raise Fail(_("only armies can be convoyed"))
            return raw
        if key in w.disband or key in w.remove or key in w.build:
            raw.kind = "disband" if key in w.disband else "remove" if key in w.remove else "build"
            return raw
        self.pos -= 1
        raise self.unexpected()


MAX_READINGS = 64  # ways of reading one line tried at most (a line of names alone offers many)

R = TypeVar("R")


def readings(variant: Variant, toks: list[Tok], read: Callable[[Parser], R],
             language: str = "en") -> tuple[list[R], str]:
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
            parser = Parser(variant, toks, script, loose, language)
            try:
                found.append(read(parser))
            except Fail as fail:
                if parser.pos > furthest:
                    why, furthest = fail.reason, parser.pos
            # The other alternatives of each choice this run made first, pushed so that the
            # smallest script (the preferred reading) is popped first.
            taken = script + (0,) * (len(parser.made) - len(script))
            for k in range(len(script), len(parser.made)):
                scripts.extend(taken[:k] + (alt,) for alt in range(parser.made[k] - 1, 0, -1))
        if found:
            return found, ""
    return [], why


def read_order(parser: Parser) -> Raw:
    raw = parser.order()
    parser.finish()
    return raw


def read_location(parser: Parser) -> str:
    location = parser.location(PROVINCE)
    parser.finish()
    return location


def lookup_location(variant: Variant, text: str, language: str = "en") -> tuple[str | None, str | None]:
    """(location, None) or (None, why not): resolve_location with the reason for a failure."""
    found, why = readings(variant, tokens(text), read_location, language)
    locations = list(dict.fromkeys(found))
    if len(locations) > 1:
        names = [variant.map.name(loc) for loc in locations]
        return None, _("{words} could be {places}", words=repr(text.strip()), places=one_of(names))
    return (locations[0], None) if locations else (None, why)


def resolve_location(variant: Variant, text: str, language: str = "en") -> str | None:
    """'St Petersburg south coast', 'stp(sc)', 'stp/sc' -> 'STP/SC'; 'Spain' -> 'SPA'; in French
    'Espagne côte nord' -> 'SPA/NC' too."""
    return lookup_location(variant, text, language)[0]


def is_fleet(variant: Variant, state: GameState | None, raw: Raw) -> bool:
    """Is the unit the order was read for a fleet: as written, as it stands, or at sea?"""
    if raw.unit_type is not None:
        return raw.unit_type is UnitType.FLEET
    unit = state.units.get(province_of(raw.location)) if state is not None else None
    if unit is not None:
        return unit.type is UnitType.FLEET
    return variant.map.provinces[province_of(raw.location)].terrain is Terrain.SEA
