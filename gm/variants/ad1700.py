"""1700AD II (Martin Dean): Europe, North Africa and the Near East in 1700, eight major powers.

The designer's map is lost; maps/1700ad/ holds a reconstruction of it (see its README.md). The
rules module reads only the [facts] table of maps/1700ad/variant.toml and names no space:

* Yearly turns of two impulses, double strength, retreats and builds ordered with the moves and
  made in the same adjudication (rules 3 to 5): gm/engine/impulses.py plays them.
* Armed neutrals (rule 10b): every neutral centre, and the spaces in `armed_non_centres`, defend
  themselves with their strength until first occupied; any power may support them.
* Switzerland (rule 10c): a rough space (two impulses to cross, double strength to hold).
* Fleets take no centres (rule 8).
* Leaders (rule 7): armies with three impulse points, named in [facts.leaders]; they need no
  centre, are never disbanded for want of a retreat order, and displace a friendly army when
  they retreat (gm/engine/impulses.py).
* Victory (rule 11): sixteen centres more than the power's home centres.

Not played yet, so no game can be started: fleet stacking and the fleet
rules of rule 8, supply lines (rule 9) and land-locked fleet building (rule 10a).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from gm.engine.model import GameState, Unit, UnitType
from gm.engine.rules import Rules

if TYPE_CHECKING:
    from gm.engine.variant import Variant


class VariantRules(Rules):
    unfinished = ("its leaders, fleet stacking and supply lines are not played by the judge yet "
                  "(maps/1700ad/README.md)")
    impulses = 2  # rules 3 and 4: a turn is a year of two impulses
    fleets_take_centres = False  # rule 8: fleets may not occupy a supply centre for supply purposes

    def impulse_points(self, variant: Variant, unit: Unit) -> int:
        return int(variant.facts.get("leader_impulses", 3)) if unit.leader else self.impulses  # type: ignore[call-overload]

    def initial_units(self, variant: Variant) -> list[Unit]:
        """Rule 7: each power's leader, where [facts.leaders] puts him."""
        return [Unit(power, UnitType.ARMY, leader["at"], leader=leader["abbr"])
                for power, leader in _leaders(variant).items()]

    def unit_names(self, variant: Variant) -> Mapping[str, str]:
        names: dict[str, str] = {}
        for leader in _leaders(variant).values():
            names[leader["abbr"].upper()] = names[leader["name"].upper()] = leader["abbr"]
        return names

    def garrisons(self, variant: Variant) -> Mapping[str, int]:
        facts = variant.facts
        return {**facts.get("armed_neutrals", {}), **facts.get("armed_non_centres", {})}  # type: ignore[dict-item]

    def rough_spaces(self, variant: Variant) -> frozenset[str]:
        swiss = variant.facts.get("switzerland")
        return frozenset([swiss]) if swiss else frozenset()  # type: ignore[list-item]

    def winner(self, variant: Variant, state: GameState) -> str | None:
        """Rule 11: the first power with sixteen centres more than its home centres."""
        counts: dict[str, int] = {}
        for owner in state.supply_centres.values():
            counts[owner] = counts.get(owner, 0) + 1
        needed: Mapping[str, int] = variant.facts.get("victory_exceptions", {})  # type: ignore[assignment]
        leaders = [p for p, n in counts.items() if n >= needed.get(p, variant.victory_centres)]
        return leaders[0] if len(leaders) == 1 else None


def _leaders(variant: Variant) -> Mapping[str, Mapping[str, str]]:
    return variant.facts.get("leaders", {})  # type: ignore[return-value]
