"""The text of njudge's and DPjudge's mail, as a GM has it: results (movement, retreats,
adjustments), a LIST (the status of the phase, with its units and the players' addresses), a
game's start. Both judges lay them out alike: "Movement results for Spring of 1901.", each order as
"France: Army Paris -> Burgundy.  (*bounce*)", "The following units were dislodged:", "Ownership of
supply centers:", "The next phase of 'game' will be Movement for Fall of 1901." Quoted ('>') and
forwarded text, mail headers and prose between the blocks are read through.

A results mail alone gives the position after its phase only for movement: every unit has a line.
Retreat and adjustment results name only the units they move, so the text must give the position
before them too (the movement results they follow, pasted above them, or the LIST); several mails
pasted in order are read in order. The ownership of centres is in the results of each Fall and in a
LIST; a Spring's results lack it, and the GM then adds gm's own 'Centres <power>:' lines."""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from gm.engine.model import Phase, Unit, UnitType
from gm.engine.variant import Variant
from gm.i18n import _
from gm.lifecycle.moving_in import names
from gm.lifecycle.moving_in.found import Found, owned, said

_QUOTE = re.compile(r"^\s*(?:>\s?)+")
_WHEN = r"(?P<when>.+?)\.?\s*(?:\([^()]*\))?\s*$"  # 'Spring of 1901.  (game.001)', DPjudge's 'B.C. 271.'
_HEADERS = {
    "status": re.compile(r"status of the (?P<kind>\w+) phase for " + _WHEN, re.I),
    "start": re.compile(r"starting position for " + _WHEN, re.I),
    "movement": re.compile(r"movement results for " + _WHEN, re.I),
    "retreat": re.compile(r"retreat (?:results|orders) for " + _WHEN, re.I),
    "adjustment": re.compile(r"adjustment (?:results|orders) for " + _WHEN, re.I),
    "pending": re.compile(r"movement orders for " + _WHEN, re.I),
    "dislodged": re.compile(r"the following units? (?:was|were) dislodged:?", re.I),
    "ownership": re.compile(r"ownership of supply cent(?:er|re)s:?", re.I),
    "roster": re.compile(r"the following players are signed up for game", re.I),
    "parameters": re.compile(r"the parameters for '.*' (?:are|were) as follows:?", re.I),
}
_NEXT = re.compile(r"the next phase of '?(?P<game>[^']+?)'? will be (?P<kind>\w+) for " + _WHEN, re.I)
_DEADLINE = re.compile(r"(?:the deadline for orders (?:will be|is)|has a deadline of) (?P<when>.+?)\.?$", re.I)
_JUDGE = re.compile(r"::\s*judge:.*?game:\s*(?P<game>\S+).*?variant:\s*(?P<variant>[\w.-]+)", re.I)
_HEADER_DEADLINE = re.compile(r"::\s*deadline:\s*(?P<code>\S+)\s*(?P<when>.*)$", re.I)
_SUBJECT = re.compile(r"subject:\s*(?:re:\s*)?diplomacy results (?P<game>\S+) (?P<code>\S+)", re.I)
_VARIANT_LINE = re.compile(r"variant:\s*(?P<variant>[\w.-]+)", re.I)
_TAG = re.compile(r"\((?P<game>[^.()\s]+)\.(?P<tag>[^)\s]+)\)")
_POWER_LINE = re.compile(r"(?P<who>[A-Za-z_][\w.\-' ]{0,40}?)\s*:\s*(?P<rest>.*)$")
_NOTES = re.compile(r"\(\*\s*(?P<notes>[^*]*?)\s*\*\)")
_ORDER = re.compile(r"(?P<type>army|fleet|a|f)\s+(?P<where>.+?)(?:\s+(?P<verb>->|-|holds?|h|supports?|s|convoys?|c|"
                    r"disbands?|d)(?=\s|$)\s*(?P<tail>.*))?$", re.I)
_NO_ORDER = re.compile(r",?\s*no orders? processed$", re.I)
_DISLODGED = re.compile(r"the (?P<whose>.+?) (?P<type>army|fleet) (?:in|over) (?P<where>.+?)\s+(?:can retreat to "
                        r"(?P<to>.+?)|with no valid retreats was destroyed|was destroyed)\.?$", re.I)
_ADJUST = re.compile(r"(?:retreat\s+)?(?P<verb>builds?|removes?|removing|disbands?)\b.*?\b(?P<type>army|fleet|a|f)"
                     r"\s+(?:in\s+|at\s+)?(?P<where>.+?)\.?$", re.I)
_COUNTS = re.compile(r"\d+\s+supply cent", re.I)
_ADDRESS = re.compile(r"[^@\s<>]+@[^@\s<>]+")
_NJUDGE_TIME = re.compile(r"\w{3} (\w{3} \d{1,2} \d{4} \d{1,2}:\d{2}(?::\d{2})?) ([+-]\d{4})")
_DPJUDGE_TIME = re.compile(r"\w+ (\d{1,2} \w+ \d{4} \d{1,2}:\d{2}) (GMT|UTC)$", re.I)
_PARAMS = re.compile(r"(?P<kind>move|retreat|adjust)\s+clock\s+(?P<clock>-?\d+).*?next\s+(?P<next>[\d.]+).*?"
                     r"days\s+(?P<days>\S{7})", re.I)


def is_judge_mail(text: str) -> bool:
    """Whether `text` holds a block of njudge's or DPjudge's mail."""
    heads = [rx for key, rx in _HEADERS.items() if key not in ("pending", "parameters")]
    return any(rx.match(line) for line in (_QUOTE.sub("", raw).strip() for raw in text.splitlines()) for rx in heads)


def variant_named(text: str) -> tuple[int, str] | None:
    """The variant a judge's mail names (its ':: Judge: ... Variant: X' header, or a LIST's
    'Variant: X'), with its line."""
    for i, line in enumerate(text.splitlines(), 1):
        line = _QUOTE.sub("", line).strip()
        m = _JUDGE.search(line) or (_VARIANT_LINE.match(line) if line.lower().startswith("variant:") else None)
        if m:
            return i, m["variant"].rstrip(",.")
    return None


def judge_of(text: str) -> str:
    """'DPjudge' or 'njudge': DPjudge tags a phase (game.S1901M) and gives its URL; njudge
    numbers the phase (game.001)."""
    tags = [m["tag"] for m in _TAG.finditer(text)]
    if re.search(r"^\s*(?:>\s?)*::\s*url:", text, re.I | re.M) or re.search(r"diplomacy results", text, re.I) or \
            any(not t.isdigit() for t in tags):
        return "DPjudge"
    return "njudge"


@dataclass
class _Line:
    number: int
    text: str


class _Reader:
    """The blocks of the text read in order; the position kept as it goes."""

    def __init__(self, variant: Variant, found: Found, lines: list[_Line]) -> None:
        self.variant, self.found, self.lines = variant, found, lines
        self.units: dict[str, tuple[int, Unit]] | None = None  # None: no full position read yet
        self.dislodged: dict[str, tuple[int, Unit, tuple[str, ...]]] = {}
        self.listed: Phase | None = None  # the phase a LIST's status block describes
        self.listed_at = 0  # its line
        self.next: tuple[int, Phase] | None = None
        self.code: tuple[int, Phase] | None = None  # the ':: Deadline: S1901M' header's phase
        self.results = 0
        self.pushed: dict[str, Unit] = {}  # units the last movement results mark dislodged, by province

    def read(self) -> None:
        i = 0
        while i < len(self.lines):
            i = self.block(i)

    def block(self, i: int) -> int:
        """Read the line at `i` and the block it opens; the index of the next line to read."""
        line = self.lines[i]
        text = line.text
        for key, rx in _HEADERS.items():
            m = rx.match(text)
            if m:
                return getattr(self, f"_{key}")(i + 1, line, m)
        if m := _NEXT.match(text):
            phase = self._when(line, m["when"], m["kind"])
            if phase is not None:
                self.next = (line.number, phase)
                self.found.game = self.found.game or m["game"]
        elif m := _DEADLINE.search(text):
            self._deadline(line, m["when"])
        elif m := _JUDGE.search(text):
            self.found.game = m["game"]
        elif m := _HEADER_DEADLINE.match(text):
            phase = names.phase_code(self.variant, m["code"])
            if phase is not None:
                self.code = (line.number, phase)
            if m["when"].strip():
                self._deadline(line, m["when"])
        elif m := _SUBJECT.match(text):
            self.found.game = self.found.game or m["game"]
        return i + 1

    # --- logical lines: what a judge wrapped over several lines, joined ----------------------------
    def _entries(self, i: int, starts: re.Pattern[str] | None = None) -> tuple[list[_Line], int]:
        """The entries of a block from line `i`: 'Power: ...' lines (or lines `starts` matches),
        each with the lines that continue it, up to the first line that is none (a blank line ends
        nothing: judges space their blocks). An entry still open at the end of the text is a
        problem: the text was cut short."""
        entries: list[_Line] = []
        while i < len(self.lines):
            line = self.lines[i]
            if self._header(line.text):
                break
            begins = starts.match(line.text) if starts is not None else self._power_line(line.text)
            if begins:
                entries.append(_Line(line.number, line.text))
            elif entries and not self._complete(entries[-1].text):
                entries[-1].text += " " + line.text
            elif line.text:
                break
            i += 1
        if entries and not self._complete(entries[-1].text) and i >= len(self.lines):
            self.found.problem(entries[-1].number, _("the text ends in the middle of {text}: is it cut short?",
                                                     text=repr(entries[-1].text)))
            entries.pop()
        return entries, i

    @staticmethod
    def _complete(text: str) -> bool:
        return text.rstrip().endswith((".", "*)"))

    @staticmethod
    def _header(text: str) -> bool:
        """A line that opens a block, or one of the lines that close a judge's mail."""
        return any(rx.match(text) for rx in _HEADERS.values()) or bool(_NEXT.match(text) or _DEADLINE.search(text)
                                                                        or _JUDGE.search(text))

    def _power_line(self, text: str) -> bool:
        m = _POWER_LINE.match(text)
        return bool(m) and not self._header(text) and (
            names.power(self.variant, m["who"]) is not None or m["who"].startswith("_") or self._minors_group(m["who"]))

    def _minors_group(self, who: str) -> bool:
        """A name DPjudge gives a group of minor powers (Ambition & Empire's 'Catholic'), in a
        variant with minor powers: its units go to the minor power whose home they stand in."""
        return any(p.minor for p in self.variant.powers.values()) and who.strip().isalpha() and \
            not _COUNTS.search(who)

    def _owner(self, number: int, who: str, province: str) -> str | None:
        power = names.power(self.variant, who)
        if power is not None:
            return power
        homes = [p.name for p in self.variant.powers.values() if p.minor and province in p.home_centres]
        if len(homes) == 1 and (who.startswith("_") or self._minors_group(who)):
            return homes[0]
        self.found.problem(number, _("{variant} has no power {name}", variant=self.variant.title,
                                     name=repr(who.strip())))
        return None

    # --- blocks -----------------------------------------------------------------------------------
    def _status(self, i: int, line: _Line, m: re.Match[str]) -> int:
        self.listed_at = line.number
        return self._position(i, self._when(line, m["when"], m["kind"]))

    def _start(self, i: int, line: _Line, m: re.Match[str]) -> int:
        self.listed_at = line.number
        return self._position(i, self._when(line, m["when"], None))

    def _position(self, i: int, phase: Phase | None) -> int:
        """A full position: every unit, and those retreating with where they may go."""
        self.listed = phase
        self.units, self.dislodged = {}, {}
        entries, i = self._entries(i)
        for entry in entries:
            who, rest = _POWER_LINE.match(entry.text).group("who", "rest")  # type: ignore[union-attr]
            can = re.search(r"\s+can retreat to\s+", rest, re.I)
            written, options = (rest[:can.start()], rest[can.end():]) if can else (rest, "")
            unit = self._unit(entry, who, written)
            if unit is None:
                continue
            if options:
                self.dislodged[unit.province] = (entry.number, unit, self._places(entry, options, unit.type))
            else:
                self._add(entry.number, unit)
        return i

    def _movement(self, i: int, line: _Line, m: re.Match[str]) -> int:
        """Every unit's order and its result: the units that moved stand where they went, those
        dislodged are off the board (the dislodged block says where they may go)."""
        self._when(line, m["when"], "movement")
        self.results += 1
        self.units, self.dislodged, self.pushed = {}, {}, {}
        entries, i = self._entries(i)
        for entry in entries:
            who, rest = _POWER_LINE.match(entry.text).group("who", "rest")  # type: ignore[union-attr]
            notes = " ".join(n["notes"].lower() for n in _NOTES.finditer(rest))
            order = _NO_ORDER.sub("", _NOTES.sub("", rest).strip().rstrip(".").strip())
            found = _ORDER.match(order)
            if found is None:
                self.found.problem(entry.number, _("not an order as the judge writes one: {text}", text=repr(rest)))
                continue
            unit = self._unit(entry, who, f"{found['type']} {found['where']}")
            if unit is None:
                continue
            if "dislodged" in notes:  # off the board: the dislodged block says where it may go
                self.pushed[unit.province] = unit
                continue
            verb = (found["verb"] or "").lower()
            if verb in ("->", "-") and not notes:
                target = re.split(r"\s*->\s*|\s+-\s+", found["tail"])[-1]
                try:
                    unit = unit.at(names.location(self.variant, target, unit.type))
                except names.UnknownName as e:
                    self.found.problem(entry.number, said(e))
                    continue
            self._add(entry.number, unit)
        return i

    def _retreat(self, i: int, line: _Line, m: re.Match[str]) -> int:
        """The dislodged units' retreats: each goes where it was ordered, or is gone."""
        phase = self._when(line, m["when"], "retreats")
        entries, i = self._entries(i)
        if phase is not None and phase == self.listed:
            return i  # a LIST's orders on file for the phase under way: not results
        self.results += 1
        if self.units is None:
            self.found.problem(line.number, _("retreat results name only the units that retreat: give the position "
                                              "before them too (the movement results above them, or a LIST)"))
            return i
        for entry in entries:
            who, rest = _POWER_LINE.match(entry.text).group("who", "rest")  # type: ignore[union-attr]
            notes = " ".join(n["notes"].lower() for n in _NOTES.finditer(rest))
            order = re.sub(r"^retreats?\s+", "", _NOTES.sub("", rest).strip().rstrip(".").strip(), flags=re.I)
            found = _ORDER.match(order)
            if found is None:
                self.found.problem(entry.number, _("not a retreat as the judge writes one: {text}", text=repr(rest)))
                continue
            unit = self._unit(entry, who, f"{found['type']} {found['where']}")
            if unit is None:
                continue
            if unit.province not in self.dislodged:
                self.found.problem(entry.number, _("{unit} retreats, but no unit of {power} was dislodged there",
                                                   unit=str(unit), power=unit.power))
                continue
            del self.dislodged[unit.province]
            if (found["verb"] or "").lower() in ("->", "-") and not notes:
                try:
                    self._add(entry.number, unit.at(names.location(self.variant, found["tail"], unit.type)))
                except names.UnknownName as e:
                    self.found.problem(entry.number, said(e))
        for number, unit, _retreats in self.dislodged.values():
            self.found.note(number, _("{unit} had no retreat order in the results: disbanded", unit=owned(unit)))
        self.dislodged = {}
        return i

    def _adjustment(self, i: int, line: _Line, m: re.Match[str]) -> int:
        """Builds and removals: each unit built stands on the board, each removed is gone."""
        phase = self._when(line, m["when"], "adjustments")
        entries, i = self._entries(i)
        if phase is not None and phase == self.listed:
            return i
        self.results += 1
        if self.units is None:
            self.found.problem(line.number, _("adjustment results name only the units built and removed: give the "
                                              "position before them too (the results above them, or a LIST)"))
            return i
        for entry in entries:
            who, rest = _POWER_LINE.match(entry.text).group("who", "rest")  # type: ignore[union-attr]
            if re.search(r"waived|pending", rest, re.I):
                continue
            found = _ADJUST.match(_NOTES.sub("", rest).strip())
            if found is None:
                self.found.problem(entry.number, _("not a build or removal as the judge writes one: {text}",
                                                   text=repr(rest)))
                continue
            unit = self._unit(entry, who, f"{found['type']} {found['where']}")
            if unit is None:
                continue
            if found["verb"].lower().startswith("build"):
                self._add(entry.number, unit)
            elif self.units.get(unit.province, (0, None))[1] == unit:
                del self.units[unit.province]
            else:
                self.found.problem(entry.number, _("{power} removes {unit}, which is not on the board", power=unit.power,
                                                   unit=str(unit)))
        return i

    def _pending(self, i: int, line: _Line, m: re.Match[str]) -> int:
        """A LIST's movement orders on file: not results, and not moved (orders are given again)."""
        _entries, i = self._entries(i)
        return i

    def _dislodged(self, i: int, line: _Line, m: re.Match[str]) -> int:
        starts = re.compile(r"the\s", re.I)
        entries, i = self._entries(i, starts)
        for entry in entries:
            found = _DISLODGED.match(entry.text)
            if found is None:
                self.found.problem(entry.number, _("not a dislodged unit as the judge writes one: {text}",
                                                   text=repr(entry.text)))
                continue
            kind = UnitType.ARMY if found["type"].lower() == "army" else UnitType.FLEET
            try:
                where = names.location(self.variant, found["where"], kind)
            except names.UnknownName as e:
                self.found.problem(entry.number, said(e))
                continue
            province = where.split("/")[0]
            pushed = self.pushed.get(province)
            # The order lines name the unit's power as the judge spells it: its adjective here may be
            # one gm does not know (DPjudge's 'British-Hanoverian').
            owner = names.power(self.variant, found["whose"]) or (pushed.power if pushed is not None else None) or \
                self._owner(entry.number, found["whose"], province)
            if owner is None or not found["to"]:
                continue  # destroyed: it leaves the board
            unit = Unit(owner, kind, where)
            self.dislodged[unit.province] = (entry.number, unit, self._places(entry, found["to"], kind))
        return i

    def _ownership(self, i: int, line: _Line, m: re.Match[str]) -> int:
        """Who owns each centre; the last such block read is the position's."""
        self.found.centres = {}
        entries, i = self._entries(i, re.compile(r"[A-Za-z_][\w.\-' ]{0,40}?\s*:"))
        for entry in entries:
            who, rest = entry.text.split(":", 1)
            if who.strip().lower() == "unowned" or _COUNTS.search(rest):
                continue
            for name in filter(None, (n.strip() for n in rest.strip().rstrip(".").split(","))):
                if name.lower().startswith("undetermined"):
                    self.found.note(entry.number, _("{power}: {name}: a centre not yet chosen is not kept",
                                                    power=who.strip(), name=name))
                    continue
                province = names.province(self.variant, name)
                if province is None:
                    self.found.problem(entry.number, _("{name} is no place on the {variant} board", name=repr(name),
                                                       variant=self.variant.title))
                    continue
                owner = self._owner(entry.number, who, province)
                if owner is not None:
                    self.found.set_centre(entry.number, province, owner)
        return i

    def _roster(self, i: int, line: _Line, m: re.Match[str]) -> int:
        """Who plays each power (a LIST): the address at the end of each line."""
        while i < len(self.lines) and self.lines[i].text:
            entry = self.lines[i]
            who = re.split(r"\s{2,}|:", entry.text.strip(), maxsplit=1)[0].strip()
            address = _ADDRESS.search(entry.text)
            power = names.power(self.variant, who)
            if who.lower() == "master" and address:
                self.found.master = address[0].lower()
            elif power is not None and address and address[0].lower() != "someone@somewhere":
                self.found.players[power] = (entry.number, address[0].lower())
            elif power is not None:
                self.found.note(entry.number, _("{power}: the judge does not show its player's address", power=power))
            i += 1
        return i

    def _parameters(self, i: int, line: _Line, m: re.Match[str]) -> int:
        """njudge's deadlines: each kind of phase's length, and movement's hour and days."""
        while i < len(self.lines) and self.lines[i].text:
            p = _PARAMS.search(self.lines[i].text)
            if p:
                rule = {"move": "movement", "retreat": "retreat", "adjust": "adjustment"}[p["kind"].lower()]
                hours = float(p["next"])
                if hours > 0:
                    self.found.rules[rule] = f"{round(hours)}h"
                if rule == "movement":
                    clock = int(p["clock"])
                    if clock >= 0:
                        self.found.rules["hour"] = str(clock // 60)
                        if clock % 60:
                            hour, minute = (str(n).zfill(2) for n in divmod(clock, 60))
                            self.found.note(self.lines[i].number, _(
                                "deadlines fall on the hour here ({hour}, not {time})", hour=hour + ":00",
                                time=hour + ":" + minute))
                    days = [d for d, c in zip(("sun", "mon", "tue", "wed", "thu", "fri", "sat"), p["days"], strict=True)
                            if c.isalpha()]
                    if days:
                        self.found.rules["days"] = ",".join(days)
            i += 1
        return i

    # --- pieces -------------------------------------------------------------------------------------
    def _when(self, line: _Line, when: str, kind: str | None) -> Phase | None:
        """'Spring of 1901' (or DPjudge's Classical 'B.C. 273') with a kind of phase."""
        when = _TAG.sub("", when).strip().rstrip(".")
        parts = re.match(r"(?P<season>.+?)\s+of\s+(?P<year>\S+)$", when) or \
            re.match(r"(?P<season>.+)\s+(?P<year>\S+)$", when)
        phase = names.judge_phase(self.variant, parts["season"], parts["year"], kind) if parts else None
        if phase is None:
            if kind:
                self.found.problem(line.number, _("{kind} for {when} is no phase of {variant} as gm plays it", kind=kind,
                                                  when=repr(when), variant=self.variant.title))
            else:
                self.found.problem(line.number, _("{when} is no phase of {variant} as gm plays it", when=repr(when),
                                                  variant=self.variant.title))
        return phase

    def _unit(self, entry: _Line, who: str, written: str) -> Unit | None:
        try:
            unit = names.unit(self.variant, "?", written)
        except names.UnknownName as e:
            self.found.problem(entry.number, said(e))
            return None
        owner = self._owner(entry.number, who, unit.province)
        return None if owner is None else Unit(owner, unit.type, unit.location)

    def _places(self, entry: _Line, text: str, kind: UnitType) -> tuple[str, ...]:
        out = []
        for name in re.split(r"\s+or\s+|\s*,\s*", text.strip().rstrip(".")):
            try:
                out.append(names.location(self.variant, name, kind))
            except names.UnknownName as e:
                self.found.problem(entry.number, said(e))
        return tuple(out)

    def _add(self, number: int, unit: Unit) -> None:
        assert self.units is not None
        there = self.units.get(unit.province)
        if there is not None:
            self.found.problem(number, _("two units in one space: {unit} and {other} (line {line})", unit=owned(unit),
                                         other=owned(there[1]), line=there[0]))
            return
        self.units[unit.province] = (number, unit)

    def _deadline(self, line: _Line, when: str) -> None:
        when = when.strip().rstrip(".")
        if m := _NJUDGE_TIME.search(when):
            written, forms = f"{m[1]} {m[2]}", ("%b %d %Y %H:%M:%S %z", "%b %d %Y %H:%M %z")
        elif m := _DPJUDGE_TIME.search(when):
            written, forms = f"{m[1]} +0000", ("%d %B %Y %H:%M %z", "%d %b %Y %H:%M %z")
        else:
            self.found.note(line.number, _("deadline {when}: not a time gm reads (its zone, say); a new deadline is set "
                                           "by the house rules", when=repr(when)))
            return
        for form in forms:
            try:
                self.found.deadline = datetime.strptime(written, form)
                return
            except ValueError:
                continue
        self.found.note(line.number, _("deadline {when}: not a date; a new deadline is set by the house rules",
                                       when=repr(when)))

    def finish(self) -> None:
        """The phase the game is in: what the last of the text's mails says comes next (or a LIST's
        own phase, when the LIST is the last); and the position the blocks left."""
        found = self.found
        said = [s for s in (self.next, self.code) if s is not None]
        if self.listed is not None:
            said.append((self.listed_at, self.listed))
        if said:
            found.phase_line, found.phase = max(said, key=lambda s: s[0])
        else:
            found.phase_missing = _("the text does not say which phase comes next (no 'The next phase of ... will be "
                                    "...' line): is it cut short?")
        if self.units is None:
            found.problem(None, _("the text gives no position: neither a game's status (a LIST) nor movement results"))
            return
        found.units = self.units
        found.dislodged = self.dislodged


def read(variant: Variant, text: str) -> Found:
    """The mail text read in `variant`'s names: the position it leaves the game in."""
    lines = [_Line(i, _QUOTE.sub("", raw).strip()) for i, raw in enumerate(text.splitlines(), 1)]
    # TRANSLATORS: where a game moved in comes from: 'njudge mail text'
    found = Found(_("{judge} mail text", judge=judge_of(text)))
    reader = _Reader(variant, found, lines)
    reader.read()
    reader.finish()
    return found

