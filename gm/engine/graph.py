"""The board: provinces, coasts and who can move where."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from enum import Enum

from gm.engine.model import province_of
from gm.i18n import _, _p

# The coasts as a reader reads them.
COAST_NAMES = {"NC": _p("coast", "north coast"), "SC": _p("coast", "south coast"), "EC": _p("coast", "east coast"),
               "WC": _p("coast", "west coast")}


class Terrain(str, Enum):
    LAND = "land"
    COAST = "coast"
    SEA = "sea"
    IMPASSABLE = "impassable"


@dataclass(frozen=True, slots=True)
class Province:
    abbr: str  # canonical: the variant rulebook's abbreviation, upper case
    name: str
    terrain: Terrain
    supply_centre: bool = False
    coasts: tuple[str, ...] = ()  # ('NC', 'SC') for a province with split coasts
    aliases: tuple[str, ...] = ()


@dataclass
class GameMap:
    provinces: dict[str, Province]
    army: dict[str, frozenset[str]]  # province -> provinces an army can move to
    fleet: dict[str, frozenset[str]]  # location -> locations a fleet there can move to
    # Derived: location -> provinces a fleet there can reach (coasts dropped), for supports.
    fleet_provinces: dict[str, frozenset[str]] = field(init=False)
    # Derived: province -> provinces a fleet on any of its coasts can reach (convoy routes).
    sea_neighbours: dict[str, frozenset[str]] = field(init=False)

    def __post_init__(self) -> None:
        self.fleet_provinces = {
            loc: frozenset(province_of(d) for d in dests) for loc, dests in self.fleet.items()
        }
        by_province: dict[str, set[str]] = {}
        for loc, provs in self.fleet_provinces.items():
            by_province.setdefault(province_of(loc), set()).update(provs)
        self.sea_neighbours = {p: frozenset(s) for p, s in by_province.items()}

    @cached_property
    def all_neighbours(self) -> dict[str, frozenset[str]]:
        """Province -> provinces next to it by land or by sea, whatever the unit."""
        return {
            p: frozenset(self.army.get(p, ())) | self.sea_neighbours.get(p, frozenset()) for p in self.provinces
        }

    @cached_property
    def seas(self) -> frozenset[str]:
        return frozenset(p for p, prov in self.provinces.items() if prov.terrain is Terrain.SEA)

    def name(self, location: str) -> str:
        """What players read: 'Munich', 'St Petersburg (south coast)'; unknown text as given."""
        prov, _slash, coast = location.partition("/")
        p = self.provinces.get(prov)
        if p is None:
            return location
        # TRANSLATORS: a place on a coast of a province: 'St Petersburg (south coast)'
        return _("{province} ({coast})", province=p.name, coast=COAST_NAMES.get(coast, coast)) if coast else p.name

    def is_sea(self, province: str) -> bool:
        return self.provinces[province].terrain is Terrain.SEA

    def fleet_locations(self, province: str) -> tuple[str, ...]:
        """Where a fleet can stand in `province`: its coasts, or the province itself."""
        p = self.provinces[province]
        if p.coasts:
            return tuple(f"{province}/{c}" for c in p.coasts)
        return (province,) if p.terrain in (Terrain.COAST, Terrain.SEA) else ()

    def fleet_coasts_to(self, location: str, province: str) -> list[str]:
        """The locations of `province` a fleet at `location` can move to."""
        dests = self.fleet.get(location, frozenset())
        return [loc for loc in self.fleet_locations(province) if loc in dests]

    def sea_path_exists(self, start: str, end: str, fleets: set[str]) -> bool:
        """Is there a chain of provinces in `fleets` leading an army from start to end?"""
        return bool(self.convoy_route_fleets(start, end, fleets))

    def convoy_route_fleets(self, start: str, end: str, fleets: set[str] | frozenset[str]) -> set[str]:
        """The provinces of `fleets` that lie on some chain carrying an army from start to end."""
        neighbours = self.sea_neighbours
        seen = neighbours.get(start, frozenset()) & fleets
        if not seen:
            return set()
        stack = list(seen)
        reaches_end = False
        while stack:
            reach = neighbours[stack.pop()]
            if end in reach:
                reaches_end = True
            new = (reach & fleets) - seen
            if new:
                seen |= new
                stack.extend(new)
        if not reaches_end:
            return set()
        # Keep the fleets that can also be reached from the far end.
        back = neighbours[end] & seen
        stack = list(back)
        while stack:
            new = (neighbours[stack.pop()] & seen) - back
            if new:
                back |= new
                stack.extend(new)
        return set(back)
