"""What a reader found in another judge's text, line by line, before it is checked against the
variant: the units, centres, players and the rest, each with the line it came from, the problems
met on the way and what was read and deliberately not used."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from gm.engine.model import Phase, Unit
from gm.i18n import Text, _


def said(error: Exception) -> str:
    """What an error says, as the judge's sentence (a Text) when it is one: str() of it is its English."""
    return error.args[0] if len(error.args) == 1 and isinstance(error.args[0], Text) else str(error)


def owned(unit: Unit) -> str:
    """'France A PAR': a unit with its power, as problems name it."""
    return f"{unit.power} {unit}"


@dataclass(frozen=True)
class Problem:
    """Something a text says that cannot be taken as it is; `line` counts from 1 (None: the text
    as a whole, such as a phase it never names)."""

    line: int | None
    text: str  # a Text

    def __str__(self) -> str:
        """The problem with its line, as the GM reads it (a Text)."""
        # TRANSLATORS: a problem found in a line of a game's text moved in from another judge
        return self.text if self.line is None else _("line {line}: {problem}", line=self.line, problem=self.text)


class Refused(ValueError):
    """The text cannot be moved in: every problem found, nothing made."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems, key=lambda p: (p.line is not None, p.line or 0))
        super().__init__("; ".join(str(p) for p in self.problems))


@dataclass
class Found:
    """What one text says, unchecked. A reader fills it in as it goes; checks.position then turns
    it into a position of the variant or every problem it has."""

    source: str  # what the text is: 'DPjudge status file', 'njudge results mail', ...
    game: str | None = None  # the old game's name, where the text gives it
    phase: Phase | None = None
    phase_line: int | None = None
    # What to tell the GM when the text names no phase: the reader knows where it should have been.
    phase_missing: str = _("the text does not say which phase the game is in")
    units: dict[str, tuple[int, Unit]] = field(default_factory=dict)  # province -> (line, unit)
    # province -> (line, unit, where it may retreat): units dislodged, awaiting their retreats
    dislodged: dict[str, tuple[int, Unit, tuple[str, ...]]] = field(default_factory=dict)
    centres: dict[str, tuple[int, str]] | None = None  # centre -> (line, owner); None: not in the text
    homes: dict[str, tuple[int, frozenset[str]]] = field(default_factory=dict)  # power -> (line, home centres)
    players: dict[str, tuple[int, str | None]] = field(default_factory=dict)  # power -> (line, address; None: nobody)
    master: str | None = None
    deadline: datetime | None = None
    deadline_written: tuple[int, str] | None = None  # gm's own 'Deadline:' line, read once the zone is known
    rules: dict[str, str] = field(default_factory=dict)  # house rules as a GM writes them ('movement': '72h')
    press: str | None = None  # 'white', 'grey', 'none'
    banks: dict[str, tuple[int, int]] = field(default_factory=dict)  # power -> (line, points banked)
    loans: list[tuple[int, str, str, int]] = field(default_factory=list)  # (line, lender, borrower, points)
    control: dict[str, tuple[int, str | None, int]] = field(default_factory=dict)  # minor -> (line, power, years)
    notes: list[str] = field(default_factory=list)  # read and not used, each naming its line (Texts)
    problems: list[Problem] = field(default_factory=list)

    def problem(self, line: int | None, text: str) -> None:
        self.problems.append(Problem(line, text))

    def note(self, line: int | None, text: str) -> None:
        # TRANSLATORS: what was read in a line of a game's text moved in, and not used
        self.notes.append(text if line is None else _("line {line}: {note}", line=line, note=text))

    def add_unit(self, line: int, unit: Unit) -> None:
        """A unit on the board; a second unit in the same space is a problem naming both lines."""
        there = self.units.get(unit.province)
        if there is not None and there[1] != unit:
            self.problem(line, _("two units in one space: {unit} and {other} (line {line})", unit=owned(unit),
                                 other=owned(there[1]), line=there[0]))
            return
        self.units[unit.province] = (line, unit)

    def add_dislodged(self, line: int, unit: Unit, retreats: tuple[str, ...]) -> None:
        there = self.dislodged.get(unit.province)
        if there is not None and there[1] != unit:
            self.problem(line, _("two dislodged units in one space: {unit} and {other} (line {line})",
                                 unit=owned(unit), other=owned(there[1]), line=there[0]))
            return
        self.dislodged[unit.province] = (line, unit, retreats)

    def set_centre(self, line: int, province: str, owner: str) -> None:
        if self.centres is None:
            self.centres = {}
        there = self.centres.get(province)
        if there is not None and there[1] != owner:
            self.problem(line, _("{place} is owned twice: by {power} and by {other} (line {line})", place=province,
                                 power=owner, other=there[1], line=there[0]))
            return
        self.centres[province] = (line, owner)
