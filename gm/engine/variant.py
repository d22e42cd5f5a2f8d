"""A variant as the engine sees it: a map, its powers, a starting position and the rule hooks."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Mapping

from gm.engine.graph import GameMap
from gm.engine.model import GameState, Phase, PhaseKind, Season, Unit

if TYPE_CHECKING:
    from gm.engine.rules import Rules


@dataclass(frozen=True, slots=True)
class Power:
    name: str  # as players write it: 'England', 'Denmark-Norway'
    adjective: str = ""
    aliases: tuple[str, ...] = ()
    home_centres: frozenset[str] = frozenset()
    minor: bool = False  # a minor power owns units but is ordered only through point allocations
    colour: str = ""  # '#rrggbb', the rulebook's colour for its units on the map
    traits: Mapping[str, object] = field(default_factory=dict)  # what a variant's rules read: religion, ...


@dataclass
class Variant:
    name: str  # registry key: 'standard', 'classical'
    title: str
    map: GameMap
    powers: dict[str, Power]
    starting_units: tuple[Unit, ...]
    starting_centres: dict[str, str]  # province -> power
    first_phase: Phase
    victory_centres: int
    rules: Rules
    docs: str = ""  # path of the variant's rules notes, for HELP and the README
    facts: dict[str, object] = field(default_factory=dict)  # extra data a rules module reads
    notes: tuple[str, ...] = ()  # what every player is told of the variant when a game starts

    @property
    def great_powers(self) -> list[str]:
        return [p.name for p in self.powers.values() if not p.minor]

    def initial_state(self) -> GameState:
        return GameState(
            phase=self.first_phase,
            units={u.province: u for u in (*self.starting_units, *self.rules.initial_units(self))},
            supply_centres=dict(self.starting_centres),
            home_centres={p.name: p.home_centres for p in self.powers.values()},
        )

    @property
    def has_bidding(self) -> bool:
        """Do its winters end with bids for minor powers (a deadline of their own)?"""
        return self.rules.bidding(self, self.initial_state())

    def phase_label(self, phase: Phase) -> str:
        """'Spring 1901, Movement' or, in Classical, 'Spring 273 BC, Movement'; where a turn is a
        year of impulses (1700AD II), 'Year 1700'."""
        if self.rules.impulses > 1 and phase.kind is PhaseKind.MOVEMENT:
            return f"Year {self.rules.year_label(phase.year)}"
        return f"{phase.season.value} {self.rules.year_label(phase.year)}, {phase.kind.value}"


def movement(season: Season, year: int) -> Phase:
    return Phase(year, season, PhaseKind.MOVEMENT)
