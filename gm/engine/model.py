"""Game nouns: units, phases and the position of a game between two phases."""
from __future__ import annotations

import re
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
    BIDDING = "Bidding"  # a winter of secret bids for minor powers (Napoleonic Wars), after adjustments
    # Retreats from the fleets' second moves, where a retreat phase came before them (Napoleonic Wars).
    SECOND_RETREAT = "Second retreat"


RETREATS = frozenset({PhaseKind.RETREAT, PhaseKind.SECOND_RETREAT})


# GameState.extra key: provinces a GM made supply centres in a running game (SET CENTRE), for a
# board that lacks some of its rules' centres.
ADDED_CENTRES = "added_centres"


def province_of(location: str) -> str:
    """'STP/NC' -> 'STP'; a location is a province with an optional coast."""
    slash = location.find("/")
    return location if slash < 0 else location[:slash]


class Unit:
    """A unit on the board. A value: never changed once made (a plain slotted class rather than a
    frozen dataclass because the resolver makes many and frozen construction is several times slower).

    Where the variant plays multiple units (Multiplicity), one unit may be several of one kind
    ('2A', `count` 2) or fleets with armies aboard or beside them ('A/F': a fleet unit with
    `armies` 1). Everywhere else `count` is 1 and `armies` 0.

    Where the variant has leaders (1700AD II, rule 7), a leader is an army unit whose `leader`
    names him ('CXII'); he needs no supply centre."""

    __slots__ = ("power", "type", "location", "province", "count", "armies", "at_sea", "leader")

    def __init__(self, power: str, type: UnitType, location: str, count: int = 1, armies: int = 0, at_sea: int = 0,
                 leader: str = ""):
        self.power = power
        self.type = type
        self.location = location  # canonical upper case, 'STP/NC' for a fleet on a coast
        slash = location.find("/")
        self.province = location if slash < 0 else location[:slash]  # 'STP'
        self.count = count  # armies of an army unit, fleets of a fleet unit
        self.armies = armies  # armies with a fleet unit's fleets (always 0 for an army unit)
        # Turns in a row its armies have ended at sea aboard its fleets (the A/F rules' rations).
        self.at_sea = at_sea
        self.leader = leader

    @staticmethod
    def of(power: str, location: str, armies: int, fleets: int, at_sea: int = 0, leader: str = "") -> Unit:
        """The unit of `armies` armies and `fleets` fleets (at least one of either); `leader`
        names its army where it is a leader."""
        if fleets:
            return Unit(power, UnitType.FLEET, location, fleets, armies, at_sea if armies else 0, leader if armies else "")
        return Unit(power, UnitType.ARMY, location, armies, 0, 0, leader)

    @property
    def n_armies(self) -> int:
        return self.count if self.type is UnitType.ARMY else self.armies

    @property
    def n_fleets(self) -> int:
        return 0 if self.type is UnitType.ARMY else self.count

    @property
    def size(self) -> int:
        """Supply centres the unit needs: one for each army and fleet in it, none for a leader."""
        return 0 if self.leader else self.count + self.armies

    @property
    def single(self) -> bool:
        return self.count == 1 and not self.armies

    @property
    def single_kind(self) -> bool:
        """Armies only or fleets only: no A/F."""
        return not self.armies

    def at(self, location: str) -> Unit:
        """The same unit standing at `location`."""
        return Unit(self.power, self.type, location, self.count, self.armies, self.at_sea, self.leader)

    def _key(self) -> tuple[str, UnitType, str, int, int, int, str]:
        return (self.power, self.type, self.location, self.count, self.armies, self.at_sea, self.leader)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Unit) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        if self.leader:
            counts = f", {self.count}, {self.armies}, {self.at_sea}" if self.n_fleets else ""
            return f"Unit({self.power!r}, {self.type.value!r}, {self.location!r}{counts}, leader={self.leader!r})"
        if self.single:
            return f"Unit({self.power!r}, {self.type.value!r}, {self.location!r})"
        return f"Unit({self.power!r}, {self.type.value!r}, {self.location!r}, {self.count}, {self.armies}, {self.at_sea})"

    def __str__(self) -> str:
        return f"{self.designation} {self.location}"

    @property
    def designation(self) -> str:
        """'A', 'F', '2A', 'A/F', '2A/3F'; a leader's name ('CXII', 'CXII/2F')."""
        if self.leader:  # beside fleets of his power: 'CXII/2F'
            return f"{self.leader}/{designation(0, self.n_fleets)}" if self.n_fleets else self.leader
        if self.single:
            return self.type.value
        return designation(self.n_armies, self.n_fleets)


_DESIGNATION = re.compile(r"(\d{0,2})([AF])(?:/(\d{0,2})([AF]))?")


def parse_designation(word: str) -> tuple[int, int] | None:
    """'A', 'F', 'Army', 'fleet', and for multiple units '2A', 'A/F', '2A/3F' -> (armies, fleets);
    None for anything else. The inverse of `designation`."""
    word = {"ARMY": "A", "FLEET": "F"}.get(word.upper(), word.upper())
    match = _DESIGNATION.fullmatch(word)
    if match is None or (match[4] and match[4] == match[2]):
        return None
    counts = {"A": 0, "F": 0}
    for number, letter in ((match[1], match[2]), (match[3], match[4])):
        if letter:
            counts[letter] = int(number or 1)
    return (counts["A"], counts["F"]) if counts["A"] or counts["F"] else None


def designation(armies: int, fleets: int) -> str:
    """How a unit of so many armies and fleets is written: 'A', '2F', 'A/F', 'A/2F', '2A/F'."""
    def kind(n: int, letter: str) -> str:
        return f"{n if n > 1 else ''}{letter}" if n else ""

    return "/".join(k for k in (kind(armies, "A"), kind(fleets, "F")) if k)


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

    def is_centre(self, provinces: dict, province: str) -> bool:
        """Is `province` a supply centre: on the variant's map (`provinces`), or made one by the GM?"""
        return provinces[province].supply_centre or province in self.extra.get(ADDED_CENTRES, ())  # type: ignore[operator]

    def centres_of(self, power: str) -> list[str]:
        return sorted(p for p, owner in self.supply_centres.items() if owner == power)
