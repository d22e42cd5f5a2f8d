"""gm's own position text: what a GM writes by hand to move a game in from any judge, and what gm
shows back of a position read from another judge's text. Its lines (README, "Moving a game in"):

    Variant: standard
    Phase: Fall 1902, Movement
    Deadline: 2026-12-01 20:00 Europe/Paris
    Master: gm@example.org
    Rule movement: 72h
    Press: grey
    France: A PAR, A BUR, F MAO
    Centres France: PAR, MAR, BRE, SPA, POR
    Home France: PAR, MAR, BRE
    Dislodged Italy: A PIE -> TYR, VEN
    Player France: alice@example.org
    Player Italy: none
    Bank France: 6
    Loan France to Prussia: 3
    Control Bavaria: France 2

The keyed lines (Player, Centres, Home, Dislodged, Bank, Loan, Control, Deadline, Master, Rule,
Press, Phase) may also follow another judge's text: they add what it lacks (the players'
addresses after a results mail) or correct it."""
from __future__ import annotations

import re
from collections.abc import Sequence

from gm.engine.model import GameState, Unit
from gm.engine.variant import Variant
from gm.games import GameError
from gm.i18n import _
from gm.lifecycle.house_rules import HouseRuleError, rules_of, with_changes
from gm.lifecycle.moving_in import names
from gm.lifecycle.moving_in.found import Found, said
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.timing import read_when

# TRANSLATORS: where a game moved in comes from: gm's own lines, written by the GM
SOURCE = _("gm position text")
NONE_WORDS = ("none", "nobody", "-")
_KEYED = re.compile(r"(?P<key>player|centres|centers|home|homes|dislodged|bank|loan|control)\s+(?P<who>[^:]+?)\s*:"
                    r"\s*(?P<rest>.*)", re.IGNORECASE)
_PLAIN = re.compile(r"(?P<key>variant|game|phase|deadline|master|press|rule\s+[a-z_]+)\s*:\s*(?P<rest>.*)",
                    re.IGNORECASE)
_UNITS = re.compile(r"(?P<who>[^:]+?)\s*:\s*(?P<rest>.*)")
_SPLIT = re.compile(r"\s*[,;]\s*|\s{2,}")
PRESS_WORDS = {"white": "white", "grey": "grey", "gray": "grey", "none": "none", "no": "none"}


def numbered(text: str) -> list[tuple[int, str]]:
    """The lines of `text` with their numbers from 1, stripped; blank lines and # comments left out."""
    return [(i, line.strip()) for i, line in enumerate(text.splitlines(), 1)
            if line.strip() and not line.strip().startswith("#")]


def variant_named(text: str) -> tuple[int, str] | None:
    """The line and the variant a 'Variant:' line names, if the text has one."""
    for i, line in numbered(text):
        m = _PLAIN.fullmatch(line)
        if m and m["key"].lower() == "variant":
            return i, m["rest"].strip()
    return None


def is_own_text(text: str) -> bool:
    """Whether `text` is gm's own position text: a 'Phase:' line and no other judge's marks."""
    return any((m := _PLAIN.fullmatch(line)) and m["key"].lower() == "phase" for _i, line in numbered(text))


def read(variant: Variant, text: str) -> Found:
    """The whole text in gm's own lines: each line is one of them, or a problem."""
    found = Found(SOURCE, phase_missing=_("no 'Phase:' line: the text does not say which phase the game is in"))
    for i, line in numbered(text):
        if not keyed_line(variant, found, i, line) and not _units_line(variant, found, i, line):
            found.problem(i, _("not a line of gm's position text: {line}", line=repr(line)))
    return found


def settle_deadline(found: Found) -> None:
    """The 'Deadline:' line read, in the zone the text's house rules give (else UTC), whatever
    line came first."""
    if found.deadline_written is None:
        return
    i, text = found.deadline_written
    try:
        found.deadline = read_when(text, rules_of({"house_rules": {"timezone": found.rules.get("timezone", "UTC")}}))
    except (GameError, HouseRuleError) as e:
        found.problem(i, said(e))


def keyed_line(variant: Variant, found: Found, i: int, line: str) -> bool:
    """Read one keyed line into `found`; False when the line is none (it may be another judge's)."""
    if m := _KEYED.fullmatch(line):
        _keyed(variant, found, i, m["key"].lower(), m["who"].strip(), m["rest"].strip())
        return True
    if m := _PLAIN.fullmatch(line):
        _plain(variant, found, i, m["key"].lower(), m["rest"].strip())
        return True
    return False


def _plain(variant: Variant, found: Found, i: int, key: str, rest: str) -> None:
    if key == "variant":
        return  # checked before reading (gm.lifecycle.moving_in.reading)
    if key == "game":
        found.game = rest
    elif key == "phase":
        phase = names.own_phase(variant, rest) or names.phase_code(variant, rest)
        found.phase, found.phase_line = phase, i
        if phase is None:
            found.phase_missing = _("{text} is no phase of {variant} (write it like {phase})", text=repr(rest),
                                    variant=variant.title, phase=phase_name(variant.phase_label(variant.first_phase)))
    elif key == "deadline":
        found.deadline_written = (i, rest)
    elif key == "master":
        found.master = rest.lower() if "@" in rest else None
        if found.master is None:
            found.problem(i, _("{text} is no mail address", text=repr(rest)))
    elif key == "press":
        if rest.lower() not in PRESS_WORDS:
            found.problem(i, _("press is white, grey or none, not {text}", text=repr(rest)))
        else:
            found.press = PRESS_WORDS[rest.lower()]
    else:  # 'rule movement'
        name = key.split()[1]
        try:
            with_changes(rules_of(None), {name: rest})
        except HouseRuleError as e:
            found.problem(i, said(e))
            return
        found.rules[name] = rest


def _keyed(variant: Variant, found: Found, i: int, key: str, who: str, rest: str) -> None:
    if key == "loan":  # 'Loan France to Prussia: 3'
        lender, _to, borrower = who.partition(" to ")
        powers = [names.power(variant, lender), names.power(variant, borrower)]
        if None in powers or not borrower:
            found.problem(i, _("write a loan as 'Loan <lender> to <borrower>: <points>', not {text}", text=repr(who)))
        elif not rest.isdigit():
            found.problem(i, _("{text} is no number of points", text=repr(rest)))
        else:
            found.loans.append((i, powers[0] or "", powers[1] or "", int(rest)))
        return
    power = names.power(variant, who)
    if power is None:
        found.problem(i, _("{variant} has no power {name}", variant=variant.title, name=repr(who)))
        return
    if key == "player":
        address = rest.strip().strip("<>").lower()
        if address in NONE_WORDS:
            found.players[power] = (i, None)
        elif re.fullmatch(r"[^@\s]+@[^@\s]+\.[^@\s]+", address):
            found.players[power] = (i, address)
        else:
            found.problem(i, _("{text} is no mail address (write 'none' for a power nobody plays)", text=repr(rest)))
    elif key in ("centres", "centers"):
        if found.centres is None:
            found.centres = {}
        for province in _places(variant, found, i, rest):
            found.set_centre(i, province, power)
    elif key in ("home", "homes"):
        found.homes[power] = (i, frozenset(_places(variant, found, i, rest)))
    elif key == "dislodged":
        _dislodged(variant, found, i, power, rest)
    elif key == "bank":
        if not re.fullmatch(r"-?\d+", rest):
            found.problem(i, _("{text} is no number of points", text=repr(rest)))
        else:
            found.banks[power] = (i, int(rest))
    elif key == "control":
        words = rest.split()
        controller = None if not words or words[0].lower() in NONE_WORDS else names.power(variant, words[0])
        if words and words[0].lower() not in NONE_WORDS and controller is None:
            found.problem(i, _("{variant} has no power {name}", variant=variant.title, name=repr(words[0])))
        elif len(words) > 1 and not words[1].isdigit():
            found.problem(i, _("{text} is no number of years", text=repr(words[1])))
        else:
            found.control[power] = (i, controller, int(words[1]) if len(words) > 1 else 1)


def _units_line(variant: Variant, found: Found, i: int, line: str) -> bool:
    m = _UNITS.fullmatch(line)
    power = names.power(variant, m["who"]) if m else None
    if m is None or power is None:
        if m is not None and len(m["who"].split()) <= 3:
            found.problem(i, _("{variant} has no power {name}", variant=variant.title, name=repr(m["who"].strip())))
            return True
        return False
    for text in filter(None, _SPLIT.split(m["rest"].strip())):
        if text.lower() in NONE_WORDS:
            continue
        try:
            found.add_unit(i, names.unit(variant, power, text))
        except names.UnknownName as e:
            found.problem(i, said(e))
    return True


def _dislodged(variant: Variant, found: Found, i: int, power: str, rest: str) -> None:
    written, arrow, options = rest.partition("->")
    try:
        unit = names.unit(variant, power, written)
    except names.UnknownName as e:
        found.problem(i, said(e))
        return
    retreats = []
    for text in filter(None, _SPLIT.split(options.strip())) if arrow else []:
        try:
            retreats.append(names.location(variant, text, unit.type))
        except names.UnknownName as e:
            found.problem(i, said(e))
    if not retreats:
        found.problem(i, _("a dislodged unit is written with where it may retreat ({unit} -> ...): one with nowhere "
                           "to go is destroyed, and is left out", unit=str(unit)))
        return
    found.add_dislodged(i, unit, tuple(retreats))


def _places(variant: Variant, found: Found, i: int, text: str) -> list[str]:
    out = []
    for word in filter(None, _SPLIT.split(text.strip().rstrip("."))):
        if word.lower() in NONE_WORDS:
            continue
        place = names.province(variant, word)
        if place is None:
            found.problem(i, _("{name} is no place on the {variant} board", name=repr(word), variant=variant.title))
        else:
            out.append(place)
    return out


# --- writing -----------------------------------------------------------------------------------


def write(variant: Variant, state: GameState, players: dict[str, str | None], *, master: str | None = None,
          banks: dict[str, int] | None = None, heading: bool = True) -> str:
    """The position in gm's own lines: what `read` reads back to the same position (without its
    `heading`, the variant and phase, only each power's lines: what a player is shown)."""
    lines = [f"Variant: {variant.name}", f"Phase: {variant.phase_label(state.phase)}"] if heading else []
    if master:
        lines.append(f"Master: {master}")
    majors = variant.rules.major_powers(variant, state)
    powers = [*majors, *(p for p in variant.powers if p not in majors)]
    for power in powers:
        units = _units(state.units_of(power))
        centres = state.centres_of(power)
        if not units and not centres and power not in majors:
            continue
        lines.append(f"{power}: {units or 'none'}")
        if centres:
            lines.append(f"Centres {power}: {', '.join(centres)}")
        homes = state.home_centres.get(power, frozenset())
        if variant.powers[power].home_centres != homes:
            lines.append(f"Home {power}: {', '.join(sorted(homes)) or 'none'}")
        for d in sorted(state.dislodged.values(), key=lambda d: d.unit.province):
            if d.unit.power == power:
                lines.append(f"Dislodged {power}: {_unit(d.unit)} -> {', '.join(d.retreats)}")
    for power in majors:
        if power in players:
            lines.append(f"Player {power}: {players[power] or 'none'}")
    for power, points in sorted((banks or {}).items()):
        lines.append(f"Bank {power}: {points}")
    return "\n".join(lines)


def _units(units: Sequence[Unit]) -> str:
    return ", ".join(_unit(u) for u in sorted(units, key=lambda u: u.location))


def _unit(u: Unit) -> str:
    return f"{u.designation} {u.location}"
