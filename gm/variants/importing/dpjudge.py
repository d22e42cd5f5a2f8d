"""DPjudge's map files: a `.map` and the files it `USE`s (`.geography`, `.politics`, `.military`,
`.locations`, other maps), read directive by directive into a Draft (the format is DPjudge's
pages/Map: places and aliases, terrain lines with their ABUTS lists, powers and their centres,
units, BEGIN, VICTORY, FLOW, RULE, ...).

What standard Diplomacy on another board needs is read; display-only directives (FLAG, FLAGS,
NOTIFY, TEXTONLY, stanzas for other rules variants such as PAYOLA DIRECTIVES) are left aside and
said so; a directive whose rules gm lacks (RULE, LEAGUE, DUMMY, PORT, the ~ and * adjacency marks,
a FLOW other than the standard year, ...) is refused at its line, named."""
from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from gm.engine.graph import Terrain
from gm.variants.importing import Imported, Problem, Where
from gm.variants.importing.draft import Draft, PowerDraft, Space, StartingUnit, finish

TERRAINS = ("COAST", "LAND", "WATER", "PORT", "SHUT", "AMEND")
# Directives whose rules gm lacks, with what they do: refused where they stand.
UNSUPPORTED = {
    "DUMMY": "powers no player plays", "DUMMIES": "powers no player plays",
    "CONTROL": "powers played by another power's player", "ROTATE": "powers played by another power's player",
    "TEAM": "teams of powers under one player", "TEAMS": "teams of powers under one player",
    "LEAGUE": "leagues that restrict supports and convoys",
    "NEWHOMES": "home centres given anew in a later year",
    "RESERVES": "units beyond the supply centres", "MILITIA": "units beyond the supply centres",
    "IN": "a board that changes during the game", "FROM": "a board that changes during the game",
}
# Directives about how DPjudge shows a game, not how it is played: read past, and said so.
DISPLAY = {
    "FLAG": "FLAG and FLAGS: the flags DPjudge shows beside its powers",
    "FLAGS": "FLAG and FLAGS: the flags DPjudge shows beside its powers",
    "NOTIFY": "NOTIFY: an address DPjudge mails about games of the map (not kept)",
    "TEXTONLY": "TEXTONLY: DPjudge draws no map for it",
}
# A centre written with one of these marks is no plain home centre (pages/Map, Political Directives).
CENTRE_MARKS = {"&": "a home centre claimed later", "+": "a factory site (builds where no centre is)",
                "*": "a partisan site (builds while some home centres are lost)",
                "@": "an alternative home centre", "~": "builds hidden until the next movement",
                "!": "builds in home centres not owned", "?": "builds in home centres not owned"}
ADJACENCY_MARKS = {"~": "the '~' mark: moves across without strength, supports not across (weak straits)",
                   "*": "the '*' mark: half-strength moves across (the Cape of Good Hope rule)"}
STANDARD_FLOW = [["MOVEMENT", "RETREATS"], ["MOVEMENT", "RETREATS"], ["ADJUSTMENTS"]]
ENGLISH_SEASONS = ("Spring", "Fall", "Winter")
_POWER = re.compile(r"^(?P<name>[A-Za-z_+][\w+.'&-]*)\s*(?:\((?P<paren>[^)]*)\))?\s*(?P<rest>.*)$")
_ABBR = re.compile(r"^[^\W_]+(?:/[^\W_]+)?$")  # letters (any script) and digits, a coast after '/'


@dataclass
class _Entry:
    target: str  # upper case: 'SPA/SC'
    army: bool  # an army may cross (not written 'Xxx')
    fleet: bool  # a fleet may cross (not written 'xxx')
    where: Where


@dataclass
class _Location:
    terrain: str  # COAST, LAND, WATER, PORT or SHUT
    capitals: bool  # written in capitals: a fleet may stand there
    where: Where
    entries: dict[str, _Entry] = field(default_factory=dict)


@dataclass
class _Place:
    name: str
    aliases: list[str]
    where: Where


@dataclass
class _Power:
    name: str
    where: Where
    adjective: str = ""
    homes: dict[str, Where] = field(default_factory=dict)
    inhabits: dict[str, Where] | None = None  # INHABITS and HOMES: home centres set apart from the power's line
    owns: list[str] | None = None


def read_dpjudge(map_file: str, files: Mapping[str, str], *, victory: int | None = None, title: str = "") -> Imported:
    """Read `map_file` and the files it uses, all found in `files` (file name -> text, the names as
    the map files write them); `victory` instead of the files' count. ImportRefused with every
    problem."""
    reader = _Reader(files)
    reader.read(map_file, Where(map_file))
    draft = reader.draft(map_file, title or _title(map_file))
    if victory is not None:
        draft.victory = victory
    notes = list(dict.fromkeys(reader.notes))
    data = finish(draft, _stem(map_file), notes)
    return Imported(data, "DPjudge", reader.order, reader.header, notes)


def _stem(file: str) -> str:
    return file.rsplit(".", 1)[0] if file.endswith(".map") else file


def _title(file: str) -> str:
    return " ".join(w.capitalize() for w in re.split(r"[-_ ]+", _stem(file)) if w)


def _display_name(raw: str) -> str:
    """DPjudge's power name as shown: leading underscores dropped, a '+' capitalising the next
    letter ('HOLY+ROMAN+EMPIRE' is HolyRomanEmpire), a letter after '.' or '-' capital too."""
    out, upper = [], True
    for ch in raw.lstrip("_").lower():
        if ch == "+":
            upper = True
            continue
        out.append(ch.upper() if upper else ch)
        upper = ch in ".-"
    return "".join(out)


def _adjective(raw: str) -> str:
    return " ".join(w.capitalize() for w in raw.replace("+", " ").split())


def _key(power: str) -> str:
    return power.lstrip("_").replace("+", "").upper()


class _Reader:
    def __init__(self, files: Mapping[str, str]) -> None:
        self.files = files
        self.order: list[str] = []  # files read, in order
        self.reading: list[str] = []  # the USE chain, against a file using itself
        self.header: list[str] = []
        self.notes: list[str] = []
        self.problems: list[Problem] = []
        self.places: dict[str, _Place] = {}
        self.locations: dict[str, _Location] = {}
        self.powers: dict[str, _Power] = {}
        self.current: str | None = None  # the power later lines are about
        self.unowned: dict[str, Where] = {}
        self.units: dict[str, tuple[str, StartingUnit]] = {}  # province -> (power key, unit)
        self.rules: dict[str, Where] = {}
        self.begin: tuple[list[str], Where] | None = None
        self.victory: tuple[list[str], Where] | None = None
        self.flow: list[tuple[str, Where]] = []
        self.skipping: str = ""  # the rules variant whose DIRECTIVES stanza is being read past

    def problem(self, where: Where, text: str, rule: str = "") -> None:
        self.problems.append(Problem(where, text, rule))

    # --- files --------------------------------------------------------------------------------
    def read(self, name: str, used_at: Where) -> None:
        found = name if name in self.files else f"{name}.map" if f"{name}.map" in self.files else None
        if found is None:
            self.problem(used_at, f"{name}: no such file beside the map")
            return
        if found in self.reading:
            self.problem(used_at, f"{found} uses itself (through {' -> '.join(self.reading)})")
            return
        first = not self.order
        if found not in self.order:
            self.order.append(found)
        self.reading.append(found)
        opening = first
        for number, raw in enumerate(self.files[found].splitlines(), 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                if opening and line.startswith("#"):
                    words = line.lstrip("#").strip()
                    if words.strip("-=_*# "):
                        self.header.append(words)
                continue
            opening = False
            self.line(line, Where(found, number))
        self.reading.pop()

    # --- one line -----------------------------------------------------------------------------
    def line(self, line: str, where: Where) -> None:
        words = line.split()
        word = words[0].upper()
        if self.skipping:
            if word == "END":
                self.skipping = ""
            return
        if word == "END":
            return  # the end of a stanza for every game
        if len(words) > 1 and words[1].upper() in ("DIRECTIVE", "DIRECTIVES"):
            if word != "STANDARD":
                self.skipping = word
                self.notes.append(f"{word} DIRECTIVES: lines for DPjudge's {word.capitalize()} games only")
            return
        if word in ("DIRECTIVE", "DIRECTIVES"):
            return  # a stanza for every game: its lines are read as any other
        if "=" in line:
            self.place(line, where)
        elif word in ("USE", "USES", "MAP"):
            for name in words[1:]:
                self.read(name, where)
        elif word in TERRAINS and len(words) >= 2:
            self.terrain(words, where)
        elif word == "DROP":
            for abbr in words[1:]:
                self.drop(abbr.upper())
        elif word in ("UNOWNED", "NEUTRAL") or (word == "CENTERS" and self.current is None):
            self.current = None
            self.neutral(words[1:], where)
        elif word in ("OWNS", "CENTERS"):
            self.owns(words, where)
        elif word in ("INHABITS", "HOME", "HOMES"):
            self.inhabits(words, where)
        elif word == "UNITS" and len(words) == 1:
            if self.current is not None:
                self.units = {p: u for p, u in self.units.items() if u[0] != self.current}
        elif word in ("A", "F") and len(words) == 2:
            self.unit(word, words[1], where)
        elif word == "BEGIN":
            self.begin = (words[1:], where)
        elif word == "VICTORY":
            self.victory = (words[1:], where)
        elif word == "FLOW":
            self.flow = [] if len(words) == 1 else self.flow + [(w, where) for w in words[1:]]
        elif word in ("RULE", "RULES"):
            for rule in words[1:]:
                if rule.startswith("!"):
                    self.rules.pop(rule[1:].upper(), None)
                else:
                    self.rules[rule.upper()] = where
        elif word == "UNPLAYED":
            self.unplayed(words[1:], where)
        elif word in UNSUPPORTED:
            self.problem(where, f"{word}: {UNSUPPORTED[word]}, which gm's rules lack", word)
        elif word in DISPLAY:
            self.notes.append(DISPLAY[word])
        elif "->" in line:
            self.rename_power(line, where)
        else:
            self.power(line, where)

    # --- geography ----------------------------------------------------------------------------
    def place(self, line: str, where: Where) -> None:
        left, _, right = line.partition("=")
        old, arrow, name = left.partition("->")
        name = (name if arrow else old).strip()
        words = right.split()
        if not words or not _ABBR.match(words[0]):
            self.problem(where, f"no abbreviation after '=': {line!r}")
            return
        abbr = words[0].upper()
        aliases = []
        for alias in words[1:]:
            text = alias.replace("+", " ").lower()
            # ambiguous ones ('tyr?') and coast spellings ('bul(ec)') are left to the order reader
            if not (text.endswith("?") or "/" in text or "(" in text or text in aliases
                    or text == abbr.lower() or text == name.lower()):
                aliases.append(text)
        if arrow:
            self.rename(old.strip().upper(), abbr, where)
        self.places[abbr] = _Place(name, aliases, where)

    def terrain(self, words: list[str], where: Where) -> None:
        kind, written = words[0].upper(), words[1]
        abbr = written.upper()
        if not _ABBR.match(written):
            self.problem(where, f"{written!r} is no abbreviation")
            return
        if len(words) > 2 and words[2].upper() != "ABUTS":
            self.problem(where, f"'{words[2]}' where ABUTS should be")
            return
        capitals = not written.islower()
        if kind == "PORT":
            self.problem(where, f"PORT {abbr}: fleets that convoy from a coastal space, which gm's rules lack", "PORT")
        if kind == "AMEND":
            found = self.locations.get(abbr)
            if found is None:
                self.problem(where, f"AMEND {abbr}: no such space yet")
                return
            found.capitals = capitals
        else:
            found = self.locations[abbr] = _Location(kind, capitals, where)
        for token in words[3:]:
            entry = self.entry(token, where)
            if entry is None:
                continue
            if token.startswith("-"):
                if kind == "AMEND":
                    found.entries.pop(entry.target, None)
            else:
                found.entries[entry.target] = entry

    def entry(self, token: str, where: Where) -> _Entry | None:
        core = token[1:] if token.startswith("-") else token
        if ":" in core:
            self.problem(where, f"'{token}': an adjacency for some powers only, or one way, which gm's rules lack",
                         "adjacency for some powers (':')")
            return None
        if "(" in core:
            self.problem(where, f"'{token}': an adjacency open only to the owner of some centres, which gm's rules lack",
                         "adjacency by centres owned ('(...)')")
            return None
        marks = [m for m in ADJACENCY_MARKS if m in core]
        if marks:
            self.problem(where, f"'{token}': {ADJACENCY_MARKS[marks[0]]}, which gm's rules lack",
                         f"adjacency mark '{marks[0]}'")
            return None
        if not _ABBR.match(core):
            self.problem(where, f"'{token}' is no space")
            return None
        letters = "".join(c for c in core if c.isalpha())
        if letters.isupper() or not letters:
            army, fleet = True, True
        elif letters.islower():
            army, fleet = True, False  # 'ven': armies only
        elif letters[0].isupper() and letters[1:].islower():
            army, fleet = False, True  # 'Tys': fleets only
        else:
            self.problem(where, f"'{token}': mixed case says neither armies only nor fleets only")
            return None
        return _Entry(core.upper(), army, fleet, where)

    def drop(self, abbr: str) -> None:
        def gone(key: str) -> bool:
            return key == abbr or ("/" not in abbr and key.partition("/")[0] == abbr)

        self.locations = {k: v for k, v in self.locations.items() if not gone(k)}
        for loc in self.locations.values():
            loc.entries = {k: e for k, e in loc.entries.items() if not gone(k)}
        self.places = {k: v for k, v in self.places.items() if not gone(k)}
        self.unowned.pop(abbr, None)
        for p in self.powers.values():
            p.homes.pop(abbr, None)
            if p.inhabits is not None:
                p.inhabits.pop(abbr, None)
            if p.owns is not None:
                p.owns = [c for c in p.owns if c != abbr]
        self.units.pop(abbr, None)

    def rename(self, old: str, new: str, where: Where) -> None:
        if old not in self.locations and old not in self.places:
            self.problem(where, f"{old} -> {new}: there is no {old} to rename")
            return

        def moved(key: str) -> str:
            return new if key == old else key

        self.locations = {moved(k): v for k, v in self.locations.items()}
        for loc in self.locations.values():
            loc.entries = {moved(k): _Entry(moved(k), e.army, e.fleet, e.where) for k, e in loc.entries.items()}
        self.places.pop(old, None)
        self.unowned = {moved(k): v for k, v in self.unowned.items()}
        for p in self.powers.values():
            p.homes = {moved(k): v for k, v in p.homes.items()}
            if p.inhabits is not None:
                p.inhabits = {moved(k): v for k, v in p.inhabits.items()}
            if p.owns is not None:
                p.owns = [moved(c) for c in p.owns]
        for province, (power, u) in list(self.units.items()):
            if u.location == old or (province == old and "/" not in old):
                del self.units[province]
                location = new if u.location == old else new + u.location[len(old):]
                self.units[location.partition("/")[0]] = (power, StartingUnit(u.kind, location, u.where))

    # --- powers -------------------------------------------------------------------------------
    def centre(self, token: str, where: Where, removable: bool = True) -> tuple[str, bool] | None:
        """A centre as a power's line or OWNS writes it: (abbreviation, removed); None if refused."""
        remove = removable and token.startswith("-")
        core = token[1:] if remove else token
        marks = [m for m in CENTRE_MARKS if m in core]
        if marks:
            self.problem(where, f"'{token}': {CENTRE_MARKS[marks[0]]}, which gm's rules lack",
                         f"centre mark '{marks[0]}'")
            return None
        if not _ABBR.match(core) or "/" in core:
            self.problem(where, f"'{token}' is no supply centre")
            return None
        return core.upper(), remove

    def power(self, line: str, where: Where) -> None:
        m = _POWER.match(line)
        if m is None:
            self.problem(where, f"cannot read {line!r}: no directive, place, unit or power")
            return
        self.declare(m["name"], m["paren"], m["rest"].split(), where)

    def declare(self, raw: str, paren: str | None, centres: list[str], where: Where) -> None:
        key = _key(raw)
        p = self.powers.get(key)
        if p is None:
            p = self.powers[key] = _Power(_display_name(raw), where)
        if paren is not None:
            own = paren.partition(":")[0]
            p.adjective = _adjective(own) if own else p.name
        self.current = key
        for token in centres:
            found = self.centre(token, where)
            if found is None:
                continue
            abbr, removed = found
            if removed:
                p.homes.pop(abbr, None)
                self.unowned[abbr] = where
            else:
                p.homes[abbr] = where

    def rename_power(self, line: str, where: Where) -> None:
        old, _, rest = line.partition("->")
        m = _POWER.match(rest.strip())
        old_key = _key(old.strip())
        if m is None or old_key not in self.powers:
            self.problem(where, f"cannot rename a power: {line!r}")
            return
        p = self.powers.pop(old_key)
        p.name = _display_name(m["name"])
        new_key = _key(m["name"])
        self.powers[new_key] = p
        self.units = {prov: (new_key if k == old_key else k, u) for prov, (k, u) in self.units.items()}
        self.declare(m["name"], m["paren"], m["rest"].split(), where)

    def neutral(self, tokens: list[str], where: Where) -> None:
        for token in tokens:
            found = self.centre(token, where)
            if found is not None:
                abbr, removed = found
                if removed:
                    self.unowned.pop(abbr, None)
                else:
                    self.unowned[abbr] = where

    def owns(self, words: list[str], where: Where) -> None:
        p = self.powers.get(self.current or "")
        if p is None:
            self.problem(where, f"{words[0]} names no power: it must follow the power's line")
            return
        if words[0].upper() == "CENTERS" or p.owns is None:
            p.owns = []
        for token in words[1:]:
            found = self.centre(token, where, removable=False)
            if found is not None:
                p.owns.append(found[0])

    def inhabits(self, words: list[str], where: Where) -> None:
        p = self.powers.get(self.current or "")
        if p is None:
            self.problem(where, f"{words[0]} names no power: it must follow the power's line")
            return
        if words[0].upper() != "INHABITS" or p.inhabits is None:
            p.inhabits = {}
        for token in words[1:]:
            found = self.centre(token, where, removable=False)
            if found is not None:
                p.inhabits[found[0]] = where

    def unit(self, kind: str, location: str, where: Where) -> None:
        if self.current is None:
            self.problem(where, f"{kind} {location}: a unit of no power (a power's line must come first)")
            return
        loc = location.upper()
        province = loc.partition("/")[0]
        earlier = self.units.get(province)
        if earlier is not None and earlier[1].where.file == where.file:
            other = self.powers[earlier[0]].name if earlier[0] in self.powers else earlier[0]
            self.problem(where, f"two units in {province}: {kind} {loc} and {other}'s "
                                f"{earlier[1].kind} {earlier[1].location} of line {earlier[1].where.line}")
            return
        # a unit listed in a file the map uses is replaced by the map's own (pages/Map, units)
        self.units[province] = (self.current, StartingUnit(kind, loc, where))

    def unplayed(self, words: list[str], where: Where) -> None:
        upper = [w.upper() for w in words]
        if not upper:
            chosen = {self.current} if self.current else set()
        elif upper[0] == "ALL" and upper[1:2] == ["EXCEPT"]:
            chosen = set(self.powers) - {_key(w) for w in words[2:]}
        elif upper == ["ALL"]:
            chosen = set(self.powers)
        else:
            chosen = {_key(w) for w in words}
        for key in chosen:
            if key not in self.powers:
                self.problem(where, f"UNPLAYED {key}: no such power")
                continue
            del self.powers[key]
            self.units = {p: u for p, u in self.units.items() if u[0] != key}
        if self.current in chosen:
            self.current = None

    # --- the board ----------------------------------------------------------------------------
    def draft(self, origin: str, title: str) -> Draft:
        draft = Draft(origin, title)
        draft.problems = self.problems
        for rule, where in self.rules.items():
            draft.problem(where, f"RULE {rule}: a DPjudge rule gm does not play", f"RULE {rule}")
        self._spaces(draft)
        self._powers(draft)
        self._phases(draft)
        return draft

    def _spaces(self, draft: Draft) -> None:
        locs = self.locations
        split = {k.partition("/")[0] for k in locs if "/" in k}

        def fleet_at(key: str) -> bool:
            loc = locs.get(key)
            if loc is None or loc.terrain not in ("WATER", "COAST", "PORT"):
                return False
            return "/" in key or (loc.capitals and key not in split)

        def army_at(key: str) -> bool:
            loc = locs.get(key)
            return loc is not None and "/" not in key and loc.terrain in ("LAND", "COAST")

        for key, loc in locs.items():
            if "/" in key:
                if key.partition("/")[0] not in locs:
                    draft.problem(loc.where, f"{key}: a coast of no space")
                continue
            place = self.places.get(key)
            if place is None:
                draft.problem(loc.where, f"{key} has no name (a 'Name = {key.lower()}' line)")
                place = _Place(key, [], loc.where)
            # a PORT is refused: read as water, so that it adds no problems of its own
            terrain = {"WATER": Terrain.SEA, "PORT": Terrain.SEA, "SHUT": Terrain.IMPASSABLE, "LAND": Terrain.LAND}.get(
                loc.terrain, Terrain.COAST if fleet_at(key) or key in split else Terrain.LAND)
            draft.spaces[key] = Space(key, place.name, terrain, loc.where, place.aliases)
        for key, loc in locs.items():
            province, _, coast = key.partition("/")
            space = draft.spaces.get(province)
            if space is None:
                continue
            if coast:
                space.coasts.setdefault(coast, {})
            for e in loc.entries.values():
                there = e.target.partition("/")[0]
                if there not in locs or (e.target != there and e.target not in locs):
                    draft.problem(e.where, f"{key} borders {e.target}: no such space")
                    continue
                if e.army and army_at(key) and army_at(there):
                    space.army[there] = e.where
                if e.fleet and fleet_at(key) and fleet_at(e.target):
                    (space.coasts[coast] if coast else space.fleet)[e.target] = e.where

    def _powers(self, draft: Draft) -> None:
        for key, p in self.powers.items():
            homes = p.inhabits if p.inhabits is not None else p.homes
            units = [u for k, u in self.units.values() if k == key]
            draft.powers[p.name] = PowerDraft(p.name, p.where, p.adjective, list(homes), units, p.owns)
            for c, where in homes.items():
                draft.centres.setdefault(c, where)
        for c, where in self.unowned.items():
            draft.centres.setdefault(c, where)

    def _phases(self, draft: Draft) -> None:
        seasons = self._flow(draft)
        if self.victory is not None:
            counts, where = self.victory
            if not counts or not all(c.isdigit() for c in counts):
                draft.problem(where, f"VICTORY {' '.join(counts)}: no count of centres")
            elif len(set(counts)) > 1:
                draft.problem(where, f"VICTORY {' '.join(counts)}: a count that changes by year, which gm's "
                                     "rules lack", "VICTORY by year")
            else:
                draft.victory = int(counts[0])
        if self.begin is None:
            draft.start = ("Spring", 1901, "Movement")  # DPjudge's default
            return
        words, where = self.begin
        if len(words) < 3 or not words[-2].lstrip("-").isdigit():
            draft.problem(where, f"BEGIN {' '.join(words)}: not 'season year phase'")
            return
        season, year, kind = " ".join(words[:-2]).upper(), int(words[-2]), words[-1].upper()
        if seasons is None:
            return  # the flow is refused: so is its start
        english = seasons.get(season)
        if english is None:
            draft.problem(where, f"BEGIN {season}: no season of the flow ({', '.join(seasons)})")
        elif kind == "MOVEMENT" and english != "Winter":
            draft.start = (english, year, "Movement")
        elif kind in ("ADJUSTMENTS", "ADJUSTMENT") and english == "Winter":
            draft.start = (english, year, "Adjustment")
        else:
            draft.problem(where, f"BEGIN {' '.join(words)}: the game must begin with movement, or the winter's "
                                 "adjustments", f"BEGIN {kind}")

    def _flow(self, draft: Draft) -> dict[str, str] | None:
        """The flow's seasons (as the map names them) -> gm's; None if the flow is refused. The
        standard year may have seasons of other names (PRINTEMPS, AUTOMNE, HIVER)."""
        if not self.flow:
            return {"SPRING": "Spring", "FALL": "Fall", "WINTER": "Winter"}
        refused = False
        shape: list[tuple[str, list[str]]] = []
        for item, where in self.flow:
            season, _, phases = item.upper().partition(":")
            if season in ("NEWYEAR", "IFYEARDIV"):
                draft.problem(where, f"FLOW {item}: years that do not follow one another, which gm's rules lack",
                              f"FLOW {season}")
                refused = True
                continue
            odd = [p for p in phases.split(",") if p not in ("MOVEMENT", "RETREATS", "ADJUSTMENTS")]
            if odd:
                draft.problem(where, f"FLOW {item}: {', '.join(odd)} phases, which gm's rules lack",
                              f"FLOW {', '.join(odd)}")
                refused = True
            shape.append((season, phases.split(",")))
        if refused:
            return None
        if [p for _, p in shape] != STANDARD_FLOW or len({s for s, _ in shape}) != 3:
            where = self.flow[0][1]
            draft.problem(where, f"FLOW {' '.join(i for i, _ in self.flow)}: gm plays a year of two movement "
                                 "seasons, each with its retreats, then the winter's adjustments", "FLOW")
            return None
        names = {s: english for (s, _), english in zip(shape, ENGLISH_SEASONS)}
        if list(names) != ["SPRING", "FALL", "WINTER"]:
            self.notes.append("Its seasons, " + ", ".join(s.capitalize() for s in names)
                              + ", are gm's Spring, Fall and Winter: the year is the standard one.")
        return names

