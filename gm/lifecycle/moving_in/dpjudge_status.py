"""A DPjudge game's `status` file (the format of DPjudge's pages/Status): its phase, deadline,
time zone and timing, the rules that have a gm house rule, the GM, and for each power its player's
address, units (those retreating with where they may go), centres, home centres and funds.

Passwords are skipped unread: no password of the old judge is used or kept. Pending orders,
votes, messages and the like are named as not moved. A power whose name begins with '_' is one of
DPjudge's groups of minor powers (Ambition & Empire's _CATHOLIC, say): each of its units and
centres goes to the minor power whose home it is."""
from __future__ import annotations

import re
from datetime import datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from gm.engine.model import Unit
from gm.engine.variant import Variant
from gm.i18n import _, _n
from gm.lifecycle.moving_in import names
from gm.lifecycle.moving_in.found import Found, said

# TRANSLATORS: where a game moved in comes from
SOURCE = _("DPjudge status file")
# Lines of the file that say nothing gm keeps, each with why (what the GM is told of them).
_SKIPPED = {
    "PASSWORD": _("a password of the old judge: never used nor kept"),
    "WAIT": _("the WAIT flag: the players set their own here"),
    "VOTE": _("a draw vote of the old judge: draws are proposed again here"),
    "MSG": _("a message to the player on DPjudge's pages"),
    "OMNISCIENT": _("an omniscient observer's flag"),
    "SEES": _("what a power sees in a blind game"),
    "CONTROL": _("control of a power by other players"),
    "DELAY": _("DPjudge's processing delay"),
    "PRIVATE": _("the privacy word of a private game"),
    "START": _("the date the game started"),
    "NEED": _("powers waiting for a new player"),
    "ROTATE": _("rotation of control"),
    "ALLOW": _("roles other than powers"),
    "TESTER": _("a test address"),
    "PROPOSAL": _("a draw proposal of the old judge"),
    "RETREAT": _("a retreat order on file: orders are given again here"),
    "BUILD": _("a build order on file: orders are given again here"),
    "REMOVE": _("a removal order on file: orders are given again here"),
    "ORDERS": _("orders on file: orders are given again here"),
    "SOONER": _("Crystal Ball orders"), "LATER": _("Crystal Ball orders"),
    "ACCEPT": _("a Payola acceptance list"), "SENT": _("a Payola transfer"),
}
_BLOCKS = ("DESC", "DESCRIPTION", "NAME", "MORPH")  # may span lines up to 'END <word>'
# DPjudge's TIMING phase words -> gm's house rules
_TIMING_KINDS = (("MOVEMENT", "movement"), ("RETREATS", "retreat"), ("ADJUSTMENTS", "adjustment"))
_DAY_ORDER = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")  # DAYS -MTWTF- starts on a Sunday
# RULE words with a gm counterpart: house rule or press.
_RULES = {"PROPOSE_DIAS": ("draw", "dias"), "NO_DIAS": ("draw", "named"),
          "NO_PRESS": ("press", "none"), "GREY_PRESS": ("press", "grey"), "WHITE_GREY": ("press", "grey")}
_QUIET_RULES = {"CIVIL_DISORDER"}  # what gm does anyway: missing orders take the rules' defaults
_ADDRESS = re.compile(r"[^@\s|,]+@[^@\s|,]+\.[^@\s|,]+")


def variant_named(text: str) -> tuple[int, str]:
    """The map a status file names (MAP or TRIAL), with its line; DPjudge's default is standard."""
    for i, line in enumerate(text.splitlines(), 1):
        words = line.split()
        if len(words) == 2 and words[0].upper() in ("MAP", "TRIAL"):
            return i, words[1]
    return 0, "standard"


_DIRECTIVES = {"GAME", "PHASE", "DEADLINE", "ZONE", "TIMING", "RULE", "MAP", "TRIAL", "MASTER", "OWNS", "ADDRESS",
               "PLAYER", "POWER"}


def is_status(text: str) -> bool:
    """Whether `text` looks like a DPjudge status file: its directives at the start of lines, in
    capitals and without a colon (gm's own lines have one), a PHASE or OWNS among them."""
    firsts = {line.split()[0] for line in text.splitlines() if line.strip() and not line[0].isspace()}
    found = firsts & _DIRECTIVES
    return len(found) >= 2 and bool(found & {"PHASE", "OWNS"})


class _Reader:
    def __init__(self, variant: Variant, found: Found) -> None:
        self.variant, self.found = variant, found
        self.power: str | None = None  # the power whose lines these are
        self.group: str | None = None  # or the group of minor powers ('_CATHOLIC')
        self.other = False  # an observer's or another role's lines: skipped
        self.zone = "UTC"
        self.deadline: tuple[int, str] | None = None
        self.addressed: set[str] = set()  # powers whose ADDRESS line was read (it wins over PLAYER)
        self.phase_seen = False
        self.orders = False  # within a power's ORDERS (SOONER, LATER): every line is an order on file
        self.skipped: dict[str, list[int]] = {}  # each kind of line not kept -> its lines: one note each

    def read(self, text: str) -> None:
        lines = text.splitlines()
        block: str | None = None
        for i, raw in enumerate(lines, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            words = line.split()
            head = words[0].upper()
            if block is not None:
                if head == "END" and len(words) > 1 and words[1].upper() == block:
                    block = None
                continue
            if head in _BLOCKS:  # alone on its line it opens a block to 'END <word>'; else it is the line
                if len(words) == 1:
                    block = "DESC" if head == "DESCRIPTION" else head
                if head == "MORPH":
                    self.found.problem(i, _("MORPH changes the map: a game on a changed map is not moved in"))
                continue
            self.line(i, line, words, head)
        if block is not None:
            self.found.problem(len(lines), _("the file ends inside its {block} block (no END {block}): is it cut short?",
                                             block=block))
        if not self.phase_seen:
            self.found.phase_missing = _("no PHASE line: the file does not say which phase the game is in")
        if self.deadline is not None:
            self._deadline(*self.deadline)
        for head, numbers in self.skipped.items():
            self.found.notes.append(_n("line {lines}: {word}: {why}", "lines {lines}: {word}: {why}", len(numbers),
                                       lines=", ".join(map(str, numbers)), word=head, why=_SKIPPED[head]))

    def line(self, i: int, line: str, words: list[str], head: str) -> None:
        found = self.found
        rest = line[len(words[0]):].strip()
        if head == "GAME":
            found.game = rest
        elif head in ("PHASE", "AWAIT", "SKIP", "WAIT") and (head == "PHASE" or len(words) == 4):
            self.phase_seen = True
            self._phase(i, rest)
        elif head == "DEADLINE":
            self.deadline = (i, rest)
        elif head == "ZONE":
            self.zone = rest
            found.rules["timezone"] = rest
        elif head == "TIMING":
            self._timing(i, words[1:])
        elif head == "RULE":
            for rule in words[1:]:
                self._rule(i, rule.upper())
        elif head in ("MAP", "TRIAL"):
            pass  # checked before reading
        elif head == "MASTER" and self.power is None and self.group is None:
            address = _ADDRESS.search(rest)
            found.master = address[0].lower() if address else None
        elif head in ("FINISH", "RESULT"):
            found.problem(i, _("the game is over on the old judge: a finished game is not moved in"))
        elif head == "OBSERVER" or (head == "POWER" and len(words) > 1 and words[1].upper().startswith("POWER#")):
            self.power, self.group, self.other = None, None, True
            found.note(i, _("{line}: not a power of the game (observers may OBSERVE the game here)", line=line))
        elif self._start_power(i, line, words):
            self.orders = False
        elif self.orders:
            pass  # an order on file: orders are given again here (the ORDERS line said so)
        elif head in _SKIPPED:
            self.orders = head in ("ORDERS", "SOONER", "LATER")
            self.skipped.setdefault(head, []).append(i)
        elif self.other:
            pass
        elif head == "ADDRESS":
            self._address(i, rest)
        elif head == "PLAYER":
            self._player(i, words[1:])
        elif head == "OWNS":
            self._owns(i, words[1:])
        elif head == "HOME":
            self._home(i, words[1:])
        elif head == "FUNDS":
            self._funds(i, words[1:])
        elif head == "DUMMY":
            if self.power is not None:
                found.players[self.power] = (i, None)
        elif head in ("A", "F") and len(words) >= 2:
            self._unit(i, line)
        else:
            found.problem(i, _("not a line of a DPjudge status file: {line}", line=repr(line)))

    # --- the game -------------------------------------------------------------------------------
    def _phase(self, i: int, text: str) -> None:
        words = text.split()
        if [w.upper() for w in words] in (["FORMING"], ["COMPLETED"]):
            self.found.problem(i, _("the game is {status} on the old judge: only a game under way is moved in",
                                    status=words[0].lower()))
            return
        phase = names.judge_phase(self.variant, words[0], words[1], words[2]) if len(words) == 3 else None
        self.found.phase, self.found.phase_line = phase, i
        if phase is None:
            self.found.phase_missing = _("{when} is no phase of {variant} as gm plays it", when=repr(text),
                                         variant=self.variant.title)

    def _deadline(self, i: int, text: str) -> None:
        try:
            zone = ZoneInfo("UTC" if self.zone.upper() in ("GMT", "UTC") else self.zone)
        except (ZoneInfoNotFoundError, ValueError):
            self.found.problem(i, _("unknown time zone {zone} (the ZONE line)", zone=repr(self.zone)))
            return
        try:
            self.found.deadline = datetime.strptime(text.strip()[:12], "%Y%m%d%H%M").replace(tzinfo=zone)
        except ValueError:
            self.found.problem(i, _("{text} is no deadline (DPjudge writes yyyymmddhhmm)", text=repr(text)))

    def _timing(self, i: int, words: list[str]) -> None:
        pairs = dict(zip(words[::2], words[1::2], strict=False))
        rules = self.found.rules
        delays = {"movement": "3D", "retreat": "1D", "adjustment": "1D"}  # DPjudge's own defaults
        if "NEXT" in pairs:
            delays = dict.fromkeys(delays, pairs["NEXT"])
        for key, value in pairs.items():
            key = key.upper()
            if key in ("NEXT", "DAYS", "AT", "GRACE", "WARN", "NOT", "SKIP"):
                continue
            kinds = [rule for word, rule in _TIMING_KINDS if word.startswith(key)]
            if kinds:
                delays[kinds[0]] = value
            else:
                self.found.note(i, _("TIMING {key} {value}: no kind of phase gm plays", key=key, value=value))
        for rule, delay in delays.items():
            self._delay(i, rule, delay)
        if "GRACE" in pairs:
            self._delay(i, "grace", pairs["GRACE"])
        if "WARN" in pairs:
            self._delay(i, "remind_before", pairs["WARN"].split(",")[0])
        if "DAYS" in pairs:
            days = pairs["DAYS"]
            chosen = [_DAY_ORDER[n] for n, c in enumerate(days[:7]) if c.isalpha()]
            if len(days) != 7 or not chosen:
                self.found.problem(i, _("DAYS {days}: DPjudge writes seven letters or dashes, Sunday first",
                                        days=repr(days)))
            else:
                rules["days"] = ",".join(chosen)
                if any(c.islower() for c in days) and any(c.isupper() for c in days):
                    self.found.note(i, _("DAYS {days}: days closed to movement deadlines only are not kept (gm's "
                                         "deadline days are for every phase)", days=days))
        if "AT" in pairs:
            hour, _colon, minute = pairs["AT"].partition(":")
            if hour.isdigit() and int(hour) < 24:
                rules["hour"] = str(int(hour))
                if minute.strip("0"):
                    on_the_hour = str(int(hour)).zfill(2) + ":00"
                    self.found.note(i, _("AT {time}: deadlines fall on the hour here ({hour})", time=pairs["AT"],
                                         hour=on_the_hour))
            else:
                self.found.problem(i, _("AT {time} is no time of day", time=repr(pairs["AT"])))
        for key in ("NOT", "SKIP"):
            if key in pairs or key in words:
                self.found.note(i, _("TIMING {key}: not kept (absences are each player's SET ABSENCE here)", key=key))

    def _delay(self, i: int, rule: str, delay: str) -> None:
        m = re.fullmatch(r"(\d+)([MHDW])", delay.upper())
        if m is None:
            self.found.problem(i, _("{delay} is no DPjudge delay (a number and M, H, D or W)", delay=repr(delay)))
            return
        n, unit = int(m[1]), m[2]
        self.found.rules[rule] = f"{n * 7}d" if unit == "W" else f"{n}{unit.lower()}"

    def _rule(self, i: int, rule: str) -> None:
        if rule in _RULES:
            name, value = _RULES[rule]
            if name == "press":
                self.found.press = value
            else:
                self.found.rules[name] = value
        elif rule not in _QUIET_RULES:
            self.found.note(i, _("RULE {rule}: no house rule of gm (the variant's own rules apply, as gm plays them)",
                                 rule=rule))

    # --- the powers -----------------------------------------------------------------------------
    def _start_power(self, i: int, line: str, words: list[str]) -> bool:
        """A line naming a power ('POWER FRANCE', 'FRANCE'): the lines after it are that power's."""
        name = " ".join(words[1:]) if words[0].upper() == "POWER" else line
        if name.startswith("_") and " " not in name:
            self.power, self.group, self.other = None, name, False
            return True
        power = names.power(self.variant, name)
        if power is None and words[0].upper() == "POWER":
            self.found.problem(i, _("{variant} has no power {name}", variant=self.variant.title, name=repr(name)))
            self.power, self.group, self.other = None, None, True
            return True
        if power is None or len(words) > 3:
            return False
        self.power, self.group, self.other = power, None, False
        return True

    def _owner_of(self, i: int, province: str) -> str | None:
        """The power a unit or centre of the lines being read belongs to; for a group of minor
        powers, the minor power whose home `province` is."""
        if self.power is not None:
            return self.power
        if self.group is None:
            self.found.problem(i, _("a unit or centre before any power is named"))
            return None
        homes = [p.name for p in self.variant.powers.values() if p.minor and province in p.home_centres]
        if len(homes) != 1:
            self.found.problem(i, _("{group} is a group of minor powers, and {place} is none of its powers' homes",
                                    group=self.group, place=self.variant.map.name(province)))
            return None
        return homes[0]

    def _address(self, i: int, text: str) -> None:
        if self.power is None:
            if self.group is None:
                self.found.problem(i, _("an ADDRESS before any power is named"))
            return
        first = _ADDRESS.search(text)
        if first is None:
            self.found.problem(i, _("{text} is no mail address", text=repr(text)))
            return
        self.found.players[self.power] = (i, first[0].lower())
        self.addressed.add(self.power)
        if "," in text:
            self.found.note(i, _("ADDRESS: only the first address ({address}) is mailed here", address=first[0].lower()))

    def _player(self, i: int, words: list[str]) -> None:
        if self.power is None or self.power in self.addressed or not words:
            return
        first = words[0].upper()
        if first == "DUMMY":
            self.found.players[self.power] = (i, None)
        elif first == "RESIGNED":
            self.found.note(i, _("{power} has no player on the old judge (RESIGNED)", power=self.power))
        elif address := _ADDRESS.search(words[0]):
            self.found.players[self.power] = (i, address[0].lower())

    def _owns(self, i: int, words: list[str]) -> None:
        if self.found.centres is None:
            self.found.centres = {}
        for word in words:
            if word.upper().startswith("SC"):  # 'SC!', 'SC?', 'SC*': builds not yet placed
                self.found.note(i, _("{word}: DPjudge's placeholder for a centre not yet chosen is not kept", word=word))
                continue
            province = names.province(self.variant, word)
            if province is None:
                self.found.problem(i, _("{name} is no place on the {variant} board", name=repr(word),
                                        variant=self.variant.title))
                continue
            owner = self._owner_of(i, province)
            if owner is not None:
                self.found.set_centre(i, province, owner)

    def _home(self, i: int, words: list[str]) -> None:
        provinces = []
        for word in words:
            province = names.province(self.variant, word)
            if province is None and not word.startswith("&"):
                self.found.problem(i, _("{name} is no place on the {variant} board", name=repr(word),
                                        variant=self.variant.title))
            elif province is not None:
                provinces.append(province)
        if self.power is not None:
            self.found.homes[self.power] = (i, frozenset(provinces))

    def _funds(self, i: int, words: list[str]) -> None:
        cash = [w for w in words if w.startswith("$")]
        if self.power is None or not cash or not cash[0][1:].lstrip("-").isdigit():
            self.found.note(i, _("FUNDS {funds}: not read", funds=" ".join(words)))
            return
        self.found.banks[self.power] = (i, int(cash[0][1:]))

    def _unit(self, i: int, line: str) -> None:
        written, arrow, options = line.partition("-->")
        try:
            unit = names.unit(self.variant, "?", written)
        except names.UnknownName as e:
            self.found.problem(i, said(e))
            return
        owner = self._owner_of(i, unit.province)
        if owner is None:
            return
        unit = Unit(owner, unit.type, unit.location, unit.count, unit.armies, unit.at_sea, unit.leader)
        if not arrow:
            self.found.add_unit(i, unit)
            return
        retreats = []
        for word in options.split():
            try:
                retreats.append(names.location(self.variant, word, unit.type))
            except names.UnknownName as e:
                self.found.problem(i, said(e))
        self.found.add_dislodged(i, unit, tuple(retreats))


def read(variant: Variant, text: str) -> Found:
    """The status file read in `variant`'s names: what it says, and every problem with it."""
    found = Found(SOURCE)
    _Reader(variant, found).read(text)
    return found
