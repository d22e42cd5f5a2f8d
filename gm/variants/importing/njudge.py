"""njudge's variant files: `map.<v>` (the provinces with their types and aliases, then each
province's army (`-mv`) and fleet (`-xc`, or a coast's `-nc`, `-sc`, ...) neighbours) and `seed.<v>`
(the first phase, each power's units by its letter, and the centres owned at the start), read
into a Draft (formats: njudge's docs/VariantsHOWTO).

njudge keeps a variant's power names and its victory count in its C code (variant.c, variant.h),
not in these files: the caller gives them (`powers`: letter -> name and adjective; `victory`), and
a power letter with no name is a problem named, never guessed."""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from gm.engine.graph import Terrain
from gm.variants.importing import Imported, Where
from gm.variants.importing.draft import Draft, PowerDraft, Space, StartingUnit, finish

COASTS = {"nc": "NC", "sc": "SC", "ec": "EC", "wc": "WC"}
_ADJACENCY = re.compile(r"^([^\W_]+)-([a-z]{2}):\s*(.*)$", re.IGNORECASE)
_LOCATION = re.compile(r"^[^\W_]+(?:/[^\W_]+)?$")
_PHASE = re.compile(r"^([SFUW])(-?\d+)([MRBA])$")
_UNIT = re.compile(r"^([A-Za-z0-9]):\s*([A-Za-z])\s+(.+?)\s*$")


@dataclass
class _Province:
    abbr: str
    name: str
    type: str  # 'l', 'w', 'x' or a power's letter
    aliases: list[str]
    where: Where
    army: dict[str, Where] = field(default_factory=dict)
    fleet: dict[str, Where] = field(default_factory=dict)
    coasts: dict[str, dict[str, Where]] = field(default_factory=dict)


def read_njudge(map_file: str, seed_file: str, files: Mapping[str, str], *,
                powers: Mapping[str, tuple[str, str]] | None = None, victory: int | None = None,
                title: str = "") -> Imported:
    """Read the pair `map_file`, `seed_file` from `files` (file name -> text). `powers` names each
    power letter (letter -> (name, adjective)); ImportRefused with every problem."""
    name = map_file.split(".", 1)[1] if map_file.startswith("map.") else map_file
    draft = Draft(map_file, title or name.replace("-", " ").replace("_", " ").title())
    notes: list[str] = []
    provinces = _read_map(map_file, files[map_file], draft, notes)
    letters: dict[str, Where] = {}
    for p in provinces.values():
        if p.type not in ("l", "w", "x"):
            letters.setdefault(p.type, p.where)
    _spaces(provinces, draft)
    units: dict[str, list[StartingUnit]] = {}
    owned: dict[str, list[str]] | None = None
    if seed_file not in files:
        draft.problem(Where(map_file), f"no {seed_file} beside it: the starting units and phase are there")
    else:
        units, owned = _read_seed(seed_file, files[seed_file], provinces, letters, draft)
    named = dict(powers or {})
    for letter, where in letters.items():
        if letter not in named:
            draft.problem(where, f"power {letter} has no name: njudge keeps its powers' names in its C code, "
                                 f"not in the map files; name it ({letter}=Name)")
    by_letter = {letter: named[letter] for letter in letters if letter in named}
    for letter in letters:  # a letter with no name stands for itself: the import is refused anyway
        power, adjective = by_letter.get(letter, (letter, ""))
        homes = [p.abbr for p in provinces.values() if p.type == letter]
        draft.powers.setdefault(letter, PowerDraft(power, letters[letter], adjective, homes))
    for letter, listed in units.items():
        if letter in draft.powers:
            draft.powers[letter].units = listed
    if owned is not None:
        for letter, centres in owned.items():
            if letter in draft.powers:
                draft.powers[letter].centres = centres
    draft.powers = {p.name: p for p in draft.powers.values()}
    if victory is not None:
        draft.victory = victory
    data = finish(draft, name, notes)
    if victory is None:
        notes.append("njudge keeps the victory count in its C code, not in the map files.")
    return Imported(data, "njudge", [map_file, seed_file], _header(files[map_file]), notes)


def _header(text: str) -> list[str]:
    out = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        words = line.lstrip("#").strip()
        if words and not words.startswith("$"):  # version-control keywords say nothing of the map
            out.append(words)
    return out


def _read_map(file: str, text: str, draft: Draft, notes: list[str]) -> dict[str, _Province]:
    provinces: dict[str, _Province] = {}
    section = 0  # 0: provinces, 1: adjacency, 2: what follows
    in_order = had_order = False  # in the summary's order of centres
    for number, raw in enumerate(text.splitlines(), 1):
        line, where = raw.strip(), Where(file, number)
        if line.startswith("-1"):
            section += 1
            continue
        if not line or (line.startswith("#") and not in_order):
            continue
        if section == 0:
            _province_line(line, where, provinces, draft)
        elif section == 1:
            _adjacency_line(line, where, provinces, draft)
        elif line.lower().startswith("center order for summary report"):
            in_order = had_order = True
        elif in_order:
            in_order = not line.lower().startswith("#end of center ordering")
        else:
            draft.problem(where, f"map data gm does not read: {line[:40]!r}", "data after the adjacency")
    if section < 2:
        draft.problem(Where(file), "the file ends before the '-1' that closes "
                                   + ("the provinces" if section == 0 else "the adjacency"))
    if had_order:
        notes.append("The order of centres in njudge's summary report is not kept.")
    return provinces


def _province_line(line: str, where: Where, provinces: dict[str, _Province], draft: Draft) -> None:
    name, comma, rest = line.partition(",")
    words = rest.split()
    if not comma or len(words) < 2:
        draft.problem(where, f"not 'Name, type abbreviation aliases': {line!r}")
        return
    kind, abbr = words[0], words[1]
    if not _LOCATION.match(abbr) or "/" in abbr:
        draft.problem(where, f"{abbr!r} is no abbreviation")
        return
    letter = kind[0]
    if not (letter in "lwx" or letter.isupper() or letter.isdigit()):
        draft.problem(where, f"type {kind!r}: gm knows l (land), w (water), x (a centre) and a power's letter")
        return
    if kind[1:] == "w" and letter != "w":
        draft.problem(where, f"type {kind!r}: {name.strip()} is land that fleets also cross and convoy through, "
                             "which gm's rules lack", "type '?w' (land fleets convoy through)")
    elif kind[1:]:
        draft.problem(where, f"type {kind!r}: gm knows l (land), w (water), x (a centre) and a power's letter")
    key = abbr.upper()
    if key in provinces:
        draft.problem(where, f"{key} twice (line {provinces[key].where.line} too)")
        return
    aliases = [a.lower() for a in words[2:] if a.lower() not in (abbr.lower(), name.strip().lower())]
    provinces[key] = _Province(key, name.strip(), letter, list(dict.fromkeys(aliases)), where)


def _adjacency_line(line: str, where: Where, provinces: dict[str, _Province], draft: Draft) -> None:
    m = _ADJACENCY.match(line)
    if m is None:
        draft.problem(where, f"not 'abr-mv: ...' or 'abr-xc: ...': {line!r}")
        return
    key, how, dests = m[1].upper(), m[2].lower(), m[3].split()
    p = provinces.get(key)
    if p is None:
        draft.problem(where, f"{key}: no such province (not in the list above the first -1)")
        return
    if how == "mv":
        table = p.army
    elif how == "xc":
        table = p.fleet
    elif how in COASTS:
        table = p.coasts.setdefault(COASTS[how], {})
    else:
        draft.problem(where, f"'-{how}': gm reads -mv (armies), -xc (fleets) and a coast's -nc, -sc, -ec, -wc",
                      f"'-{how}' lines")
        return
    for token in dests:
        if not _LOCATION.match(token):
            draft.problem(where, f"{token!r} is no space")
            continue
        there = token.upper()
        if there.partition("/")[0] not in provinces:
            draft.problem(where, f"{key} borders {there}: no such space")
            continue
        table[there if how != "mv" else there.partition("/")[0]] = where


def _spaces(provinces: dict[str, _Province], draft: Draft) -> None:
    for key, p in provinces.items():
        fleet_lines = bool(p.fleet or p.coasts)
        if p.type == "w":
            terrain = Terrain.SEA
        elif set(p.army) == {key} and not fleet_lines:
            terrain = Terrain.IMPASSABLE  # 'swi-mv: swi': moves nowhere but into itself
        else:
            terrain = Terrain.COAST if fleet_lines else Terrain.LAND
        if key in p.army and terrain is not Terrain.IMPASSABLE:
            draft.problem(p.army[key], f"{key} borders itself")
        space = Space(key, p.name, terrain, p.where, p.aliases)
        if terrain is not Terrain.IMPASSABLE:
            space.army = {k: w for k, w in p.army.items() if k != key}
            space.fleet, space.coasts = dict(p.fleet), {c: dict(d) for c, d in p.coasts.items()}
        if space.coasts and space.fleet:
            draft.problem(next(iter(p.fleet.values())), f"{key} has coasts: its fleet lines name the coast (-nc, -sc, ...)")
        draft.spaces[key] = space
        if p.type != "l" and p.type != "w":
            draft.centres[key] = p.where


def _read_seed(file: str, text: str, provinces: dict[str, _Province], letters: dict[str, Where],
               draft: Draft) -> tuple[dict[str, list[StartingUnit]], dict[str, list[str]] | None]:
    """The first phase (into the draft), each power letter's units, and the centres each owns at
    the start where the seed says (None: its home centres)."""
    units: dict[str, list[StartingUnit]] = {}
    owned: dict[str, list[str]] | None = None
    lines = [(n, raw.strip()) for n, raw in enumerate(text.splitlines(), 1) if raw.strip() and not raw.startswith("#")]
    if not lines:
        draft.problem(Where(file), "empty: the first phase and the units are missing")
        return units, owned
    number, phase = lines[0]
    m = _PHASE.match(phase)
    where = Where(file, number)
    if m is None:
        draft.problem(where, f"{phase!r} is no phase (S1901M)")
    else:
        season, year, kind = m[1], int(m[2]), m[3]
        if (season, kind) in (("S", "M"), ("F", "M")):
            draft.start = ("Spring" if season == "S" else "Fall", year, "Movement")
        elif kind in ("B", "A") and season in ("F", "W"):
            draft.start = ("Winter", year, "Adjustment")  # njudge builds in a phase of Fall ('F1900B')
        else:
            draft.problem(where, f"{phase}: the game must begin with movement, or the winter's adjustments",
                          f"first phase {phase}")
    by_name = {}
    for p in provinces.values():
        for text_ in (p.name, p.abbr, *p.aliases):
            by_name.setdefault(text_.lower(), p.abbr)
    rest = lines[1:]
    for i, (number, line) in enumerate(rest):
        where = Where(file, number)
        if line.startswith("-1"):
            owned = _ownership(file, rest[i + 1:], provinces, letters, draft)
            break
        m = _UNIT.match(line)
        if m is None:
            draft.problem(where, f"not 'L: A Place': {line!r}")
            continue
        letter, kind, place = m[1], m[2].upper(), m[3]
        if kind not in ("A", "F"):
            draft.problem(where, f"{kind} {place}: a unit of kind {kind} (wings?), which gm's rules lack", f"unit kind {kind}")
            continue
        body, slash, coast = place.rpartition("/") if "/" in place else (place, "", "")
        abbr = by_name.get(body.strip().lower())
        if abbr is None:
            draft.problem(where, f"{place}: no such province in the map")
            continue
        letters.setdefault(letter, where)
        units.setdefault(letter, []).append(StartingUnit(kind, f"{abbr}/{coast.upper()}" if slash else abbr, where))
    else:
        draft.problem(Where(file), "the file ends before the '-1' that closes the units")
    return units, owned


def _ownership(file: str, rest: list[tuple[int, str]], provinces: dict[str, _Province],
               letters: dict[str, Where], draft: Draft) -> dict[str, list[str]] | None:
    """The line after the units: '-1' (each power owns its home centres: None), or one character
    a province, in the map's order, '.' for no owner, until a '-1'."""
    if not rest or rest[0][1].startswith("-1"):
        return None
    chars, first = "", Where(file, rest[0][0])
    for number, line in rest:
        if line.startswith("-1"):
            break
        chars += line
    else:
        draft.problem(first, "the ownership record has no closing '-1'")
        return None
    order = list(provinces)
    if len(chars) != len(order):
        draft.problem(first, f"the ownership record has {len(chars)} characters for {len(order)} provinces")
        return None
    owned: dict[str, list[str]] = {}
    for key, ch in zip(order, chars):
        if ch == ".":
            continue
        if key not in draft.centres:
            draft.problem(first, f"the ownership record gives {key} to {ch}, but {key} is no supply centre")
            continue
        letters.setdefault(ch, first)
        owned.setdefault(ch, []).append(key)
    for letter in letters:
        owned.setdefault(letter, [])
    return owned
