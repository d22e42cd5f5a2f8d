"""Game nouns: units, phases and the position of a game between two phases."""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum


class UnitType(str, Enum):
    ARMY = "A"
    FLEET = "F"


class Season(str, Enum):
    SPRING = "Spring"
    FALL = "Fall"
    WINTER = "Winter"


class PhaseKind(str, Enum):
    MOVEMENT = "Movement"
    RETREAT = "Retreat"
    ADJUSTMENT = "Adjustment"


def province_of(location: str) -> str:
    """'STP/NC' -> 'STP'; a location is a province with an optional coast."""
    slash = location.find("/")
    return location if slash < 0 else location[:slash]


@dataclass(frozen=True, slots=True)
class Unit:
    power: str
    type: UnitType
    location: str  # canonical upper case, 'STP/NC' for a fleet on a coast

    @property
    def province(self) -> str:
        return province_of(self.location)

    def __str__(self) -> str:
        return f"{self.type.value} {self.location}"


@dataclass(frozen=True, slots=True)
class Phase:
    year: int
    season: Season
    kind: PhaseKind

    def __str__(self) -> str:
        return f"{self.season.value} {self.year}, {self.kind.value}"


@dataclass(frozen=True, slots=True)
class Dislodged:
    """A unit pushed out of its province, waiting for a retreat order."""

    unit: Unit
    attacker_from: str | None  # province the successful attack came from; None when by convoy
    retreats: tuple[str, ...]  # legal retreat locations, computed when dislodged


@dataclass(frozen=True)
class GameState:
    """The position of a game at the start of a phase. Treated as a value: never mutated."""

    phase: Phase
    units: dict[str, Unit]  # province -> unit
    supply_centres: dict[str, str]  # province -> owning power
    home_centres: dict[str, frozenset[str]]  # power -> provinces it may build in (rules permitting)
    dislodged: dict[str, Dislodged] = field(default_factory=dict)  # province -> dislodged unit
    # Provinces where a bounce left the space empty: no retreat may go there this turn.
    contested: frozenset[str] = frozenset()
    # Variant-specific facts (A&E declared home centres and the like); keys are the variant's.
    extra: dict[str, object] = field(default_factory=dict)

    def with_(self, **changes: object) -> GameState:
        return replace(self, **changes)  # type: ignore[arg-type]

    def units_of(self, power: str) -> list[Unit]:
        return [u for u in self.units.values() if u.power == power]

    def centres_of(self, power: str) -> list[str]:
        return sorted(p for p, owner in self.supply_centres.items() if owner == power)
