"""1700AD II (Martin Dean): Europe, North Africa and the Near East in 1700, eight major powers.

The designer's map is lost; maps/1700ad/ holds a reconstruction of it (see its README.md). The
rules module reads only the [facts] table of maps/1700ad/variant.toml and names no space:

* Yearly turns of two impulses, double strength, retreats and builds ordered with the moves and
  made in the same adjudication (rules 3 to 5): gm/engine/impulses.py plays them, and
  gm/engine/wholeturn.py rule 4's whole-turn comparison of a double-strength conflict.
* Leaders (rule 7): armies with three impulse points, named in [facts.leaders]; they need no
  centre, are never disbanded for want of a retreat order, and displace a friendly army when
  they retreat (gm/engine/impulses.py).
* Fleets (rule 8): they stand apart from land units (Rules.separate_fleets): two to a coast,
  any number at sea, beside their power's land unit, only in friendly coasts; two to a centre;
  built only in home coastal centres, and by the Russians and the Austrians in the centres of
  rule 10a from their second turn of control on (HELD_SINCE). They take no centres.
* Supply lines (rule 9), with PERMIT and REVOKE for allies (gm/engine/impulses.py).
* Armed neutrals (rule 10b): every neutral centre, and the spaces in `armed_non_centres`, defend
  themselves with their strength until first occupied; any power may support them.
* Switzerland (rule 10c): a rough space (two impulses to cross, double strength to hold).
* Victory (rule 11): sixteen centres more than the power's home centres.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from gm.engine.graph import Terrain
from gm.engine.model import GameState, Unit, UnitType
from gm.engine.orders import Build
from gm.engine.rules import Rules
from gm.engine.variant import SpecialOrder
from gm.i18n import _

if TYPE_CHECKING:
    from gm.engine.variant import Variant

# What a player is told of the orders the rules add (the start mail, what a phase asks).
SPECIAL_ORDERS = (
    SpecialOrder("<unit>-<step>-<step> [(x2)]",
                 _("a year is two impulses: give each unit its two steps (a move, Hold, a support); "
                   "(x2) after the last step spends both at double strength; a leader has three "
                   "points, (x3) (rules 3 to 7)."), "A(Fin)-Kar (x2)"),
    SpecialOrder("<leader>(<space>)-<step>",
                 _("your leader is named in place of A: Marlborough, Prince Eugene, Villars, Peter "
                   "the Great, Berwick, Charles XII, Schulenburg (rule 7; the Turks have none)."),
                 "CXII(Got)-Sca"),
    SpecialOrder("Retreats: / Builds: / Removes:",
                 _("retreats, builds and removals go with the year's orders, made in the same "
                   "adjudication; fleets are built two at a time (rules 5 and 8)."),
                 "Builds: A(Fin)"),
    SpecialOrder("PERMIT <power> / REVOKE <power>",
                 _("let that power's fleets into your coasts and its supply lines through your units, "
                   "until you revoke it (rules 8 and 9)."), "PERMIT Swedish"),
)

HELD_SINCE = "held_since"  # GameState.extra: centre -> the year its owner took it (absent: held from the start)


class VariantRules(Rules):
    special_orders = SPECIAL_ORDERS
    impulses = 2  # rules 3 and 4: a turn is a year of two impulses
    fleets_take_centres = False  # rule 8: fleets may not occupy a supply centre for supply purposes
    separate_fleets = True  # rule 8: fleets exert no influence on land units
    fleets_per_centre = 2  # rule 8: each supply centre supports 2 fleets
    supply_lines = True  # rule 9

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

    def fleet_stack(self, variant: Variant, province: str) -> int | None:
        """Rule 8: up to two fleets in a coastal province, no limit at sea."""
        if variant.map.provinces[province].terrain is Terrain.SEA:
            return None
        return int(variant.facts.get("fleet_stack_limit", 2))  # type: ignore[call-overload]

    def territory(self, variant: Variant) -> Mapping[str, str]:
        held: Mapping[str, Sequence[str]] = variant.facts.get("territory", {})  # type: ignore[assignment]
        return {prov: power for power, provs in held.items() for prov in provs}

    # --- builds (rules 8 and 10a) -------------------------------------------------------------------
    def after_fall(self, variant: Variant, before: GameState, after: GameState) -> GameState:
        """Centres have changed hands at the end of a turn: date the ones that did (rule 10a)."""
        changed = [c for c, owner in after.supply_centres.items() if before.supply_centres.get(c) != owner]
        if not changed:
            return after
        held = dict(after.extra.get(HELD_SINCE, {}))  # type: ignore[call-overload]
        for c in changed:
            held[c] = after.phase.year
        return after.with_(extra={**after.extra, HELD_SINCE: dict(sorted(held.items()))})

    def build_sites(self, variant: Variant, state: GameState, power: str, built: Sequence[str] = ()) -> set[str]:
        # One build a site each turn: a second would stack past rule 8's limits.
        return (super().build_sites(variant, state, power, built) | self._late_sites(variant, state, power)) - set(built)

    def _late_sites(self, variant: Variant, state: GameState, power: str) -> set[str]:
        """Rule 10a: the centres where `power` may build fleets from its second turn of
        uninterrupted control on (taken before this turn)."""
        late: Mapping[str, Sequence[str]] = variant.facts.get("late_fleet_builds", {})  # type: ignore[assignment]
        held: Mapping[str, int] = state.extra.get(HELD_SINCE, {})  # type: ignore[assignment]
        return {c for c in late.get(power, ()) if state.supply_centres.get(c) == power and held.get(c, 0) < state.phase.year}

    def build_refusal(self, variant: Variant, state: GameState, order: Build) -> str:
        name = variant.map.name(order.province)
        there = state.units.get(order.province)
        if order.unit_type is UnitType.FLEET:
            sites: Mapping[str, Sequence[str]] = variant.facts.get("fleet_build_centres", {})  # type: ignore[assignment]
            if order.province not in sites.get(order.power, ()) and order.province not in self._late_sites(variant, state, order.power):
                return _("fleets are built only in home coastal centres (rule 8), and {province} is not one of {power}'s",
                         province=name, power=order.power)
            if there is not None and there.n_fleets:
                return _("{province} already has fleets: two stand in a coastal province at most (rule 8)", province=name)
            return ""
        if order.province in self._late_sites(variant, state, order.power) and \
                order.province not in state.home_centres.get(order.power, ()):
            return _("only fleets are built in {province} (rule 10a)", province=name)
        if there is not None and there.n_armies:
            return _("{province} already has a land unit", province=name)
        return ""

    def end_years(self, variant: Variant) -> tuple[int, ...]:
        """Rule 11: the Treaty of Utrecht (1713) or of Nystad (1721)."""
        return tuple(variant.facts.get("end_years", ()))  # type: ignore[arg-type]

    def end_scores(self, variant: Variant, state: GameState) -> dict[str, int]:
        """Rule 11: "the winner will be the player with the greatest number of additional
        centres": the centres each power owns beyond its home centres."""
        counts = {p: -len(state.home_centres.get(p, ())) for p in variant.great_powers}
        for owner in state.supply_centres.values():
            counts[owner] = counts.get(owner, 0) + 1
        return counts

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
