"""Variants from other judges' map files: DPjudge's `.map` (dpjudge.py) and njudge's `map.<v>` with
`seed.<v>` (njudge.py) read into the project's own variant data (draft.py), and that data written
out as a maps/<name>/ folder (write.py).

Pure: a reader is handed the files' texts (a mapping of file name to text, the names as the map
files refer to one another) and returns data, or refuses with every problem named by file and
line. Reading the files from disk, and writing the folder, is the caller's part (gm/cli/variant.py).
Only what the engine already plays can be imported: standard Diplomacy's rules on another board. A
map whose directives need other rules is refused, the directives named.
"""
from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, order=True)
class Where:
    """A line of a file: where a problem is, or a fact came from."""

    file: str
    line: int = 0  # 0: the file as a whole

    def __str__(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file


@dataclass(frozen=True)
class Problem:
    where: Where
    text: str
    # The directive (or feature) that needs rules gm lacks: 'RULE BUILD_ANY', 'PORT', 'LEAGUE';
    # '' for a file that cannot be read as it stands (a typo, an unknown space, a broken line).
    rule: str = ""

    def __str__(self) -> str:
        return f"{self.where}: {self.text}"


class ImportRefused(ValueError):
    """The map cannot be imported: every problem found, in file and line order."""

    def __init__(self, problems: list[Problem]) -> None:
        self.problems = sorted(problems, key=lambda p: (p.where.file, p.where.line, p.text))
        super().__init__("\n".join(str(p) for p in self.problems))

    @property
    def rules(self) -> list[str]:
        """The directives that need rules gm lacks, each once, in the order first met."""
        return list(dict.fromkeys(p.rule for p in self.problems if p.rule))


@dataclass
class Imported:
    """A variant read from another judge's files: the data of maps/<name>/variant.toml, and the
    facts its README gives (where it came from, what of the files was left aside)."""

    data: dict
    source: str  # 'DPjudge', 'njudge'
    files: list[str]  # the files read, the map first
    header: list[str] = field(default_factory=list)  # the map's own opening comments: its title, author
    notes: list[str] = field(default_factory=list)  # what was read as something else, or left aside, and why
