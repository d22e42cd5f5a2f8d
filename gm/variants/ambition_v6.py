"""Ambition & Empire version 6 (Ronke, Kase & Powell) as game options on the 2006 map.

What v6 changes, on top of the 2006 rules in gm/variants/ambition.py:

* minor units may also be ordered to move or convoy; a move is a **sortie**: the unit never leaves
  its space, an unopposed sortie still bounces (so the unit cannot be supported to hold and the
  space is no retreat destination), yet it cuts supports and stands off other units;
* the **limitation on DPs**: a power that attacks a minor power's unit, or supports an attack on it,
  may not allocate DPs to that minor power in the same turn;
* the winning DP order is **published as written**; if it is invalid the unit holds;
* the **religious rule** of v6 (Orthodox = Protestant = non-Catholic Christian; the Papal States'
  own restrictions), checked on the winning order;
* at most **three builds** per winter;
* **additional home centres**, predetermined and elective, at most four homes in all, instead of
  the 2006 third home centre;
* a fleet of another great power in the Irish Sea **blocks the Edinburgh–Ireland crossing**.

The questions the v6 texts leave open, and the answers chosen, are in maps/ambition-v6/README.md.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Mapping, Sequence

from gm.engine.model import GameState, PhaseKind, Unit, UnitType, province_of
from gm.engine.orders import Allocation, Build, Convoy, Hold, Move, Order, SupportHold, SupportMove
from gm.engine.results import OrderResult, Result
from gm.engine.variant import SpecialOrder
from gm.i18n import _
from gm.variants import ambition
from gm.variants.ambition import ISLAMIC, PAPAL_STATES

if TYPE_CHECKING:
    from gm.engine.variant import Variant

CATHOLIC = "Catholic"

# What a player is told of the orders the v6 rules add (the start mail, what a phase asks).
SPECIAL_ORDERS = (
    SpecialOrder(
        syntax="DP <n> <order>",
        what=_("Diplomacy Points, secret: n points behind an order for a minor power's unit: hold, "
               "support, convoy or a sortie (a move that always bounces). One DP per centre you "
               "control, at most 3, each Spring and Fall; unused DPs are lost. The order with "
               "strictly the most points is published as written; none may go to a minor power you "
               "attack that turn; allocating more than you have forfeits them all."),
        example="DP 2 A Sav - Mil",
        phases=(PhaseKind.MOVEMENT,),
        points="DP",
    ),
    SpecialOrder(
        syntax="Build A <centre>",
        what=_("in a centre you conquered, while you have elective home centres left, a build "
               "makes it a home centre (at most four homes in all)"),
        example="Build A POR",
        phases=(PhaseKind.ADJUSTMENT,),
        fact="elective_homes",
    ),
)


class VariantRules(ambition.VariantRules):
    minor_order_kinds = (Hold, Move, SupportHold, SupportMove, Convoy)
    check_when_allocated = False
    special_orders = SPECIAL_ORDERS

    # --- sorties --------------------------------------------------------------------------------
    def stationary_powers(self, variant: Variant, state: GameState) -> frozenset[str]:
        return frozenset(self.minor_powers(variant, state))

    # --- DPs ------------------------------------------------------------------------------------
    def _allocation_barred(
        self, variant: Variant, state: GameState, a: Allocation, minor_order: Order, unit_orders: list[Order]
    ) -> str:
        """The limitation on DPs. The Religious Rule waits for the winning order (_publish)."""
        minor = minor_order.power
        for o in unit_orders:
            if o.power != a.power or not isinstance(o, (Move, SupportMove)):
                continue
            target = state.units.get(province_of(o.dest))
            if target is not None and target.power == minor:
                if type(o) is Move:
                    return _("{power} attacks {minor} this turn, so it may not allocate DPs to {minor}",
                             power=a.power, minor=minor)
                return _("{power} supports an attack on {minor} this turn, so it may not allocate DPs to {minor}",
                         power=a.power, minor=minor)
        return ""

    def _publish(self, variant: Variant, state: GameState, order: Order) -> tuple[Order, str]:
        """Published as written; an order the Religious Rule forbids leaves the unit holding (other
        invalid orders, a wrong unit type among them, are voided when the phase is resolved)."""
        return order, self.religious_rule(variant, state, order)

    def _christian(self, variant: Variant, state: GameState, power: str) -> bool:
        return self.religion(variant, state, power) != ISLAMIC

    def _catholic(self, variant: Variant, state: GameState, power: str) -> bool:
        return self.religion(variant, state, power) == CATHOLIC

    def religious_rule(self, variant: Variant, state: GameState, order: Order) -> str:
        """The v6 Religious Rule; positions are those at the start of the turn."""
        name = variant.map.name
        minor = order.power
        if minor == PAPAL_STATES:
            if isinstance(order, Move):
                there = state.units.get(province_of(order.dest))
                if there is not None and self._catholic(variant, state, there.power):
                    return _("the Papal States may not sortie against a Catholic unit in {province}",
                             province=name(there.province))
            elif isinstance(order, (SupportHold, SupportMove)):
                supported = state.units.get(order.target)
                if supported is None or not self._catholic(variant, state, supported.power):
                    return _("the Papal States may only support a Catholic unit")
            elif not isinstance(order, Hold):
                return _("the Papal States may only hold, sortie or support")
        if type(order) is not SupportMove:
            return ""
        supported = state.units.get(order.target)
        defender = state.units.get(province_of(order.dest))
        if supported is None or defender is None:
            return ""
        minor_christian = self._christian(variant, state, minor)
        attacker_christian = self._christian(variant, state, supported.power)
        defender_christian = self._christian(variant, state, defender.power)
        if not minor_christian and attacker_christian and not defender_christian:
            return _("{power} may not support a Christian attack on an Islamic unit in {province}", power=minor,
                     province=name(defender.province))
        if minor_christian and not attacker_christian and defender_christian:
            return _("{power} may not support an Islamic attack on a Christian unit in {province}", power=minor,
                     province=name(defender.province))
        return ""

    # --- the Irish Sea --------------------------------------------------------------------------
    def blocked_moves(self, variant: Variant, state: GameState) -> Mapping[tuple[str, str], str]:
        closed: dict[tuple[str, str], str] = {}
        for a, b, sea in variant.facts.get("blocked_crossings", ()):  # type: ignore[union-attr]
            fleet = state.units.get(sea)
            if fleet is not None and fleet.type is UnitType.FLEET and not self.is_minor(variant, state, fleet.power):
                closed[(a, b)] = closed[(b, a)] = fleet.power
        return closed

    # --- home centres and builds ----------------------------------------------------------------
    def max_builds(self, variant: Variant, state: GameState, power: str) -> int | None:
        if power in self.in_civil_disorder(state):
            return 0
        return int(variant.facts.get("build_limit", 3))  # type: ignore[arg-type]

    def _third_homes(
        self, variant: Variant, before: GameState, after: GameState, extra: dict[str, object]
    ) -> dict[str, frozenset[str]]:
        return dict(after.home_centres)  # v6 has additional home centres instead (build_sites)

    def settle_position(self, variant: Variant, state: GameState) -> GameState:
        return state  # v6 homes come from builds: only the history tells them

    def build_sites(self, variant: Variant, state: GameState, power: str, built: Sequence[str] = ()) -> set[str]:
        """Owned home centres, and while the power has fewer than four homes: its predetermined
        centres when it controls them, and any conquered centre while it has elective homes left.
        Building in one makes it a home centre (after_winter)."""
        homes = state.home_centres.get(power, frozenset())
        owned = {c for c, o in state.supply_centres.items() if o == power}
        sites = homes & owned
        predetermined = set(variant.facts.get("predetermined_homes", {}).get(power, ()))  # type: ignore[union-attr]
        originals = variant.powers[power].home_centres if power in variant.powers else frozenset()
        new_now = [b for b in built if b not in homes]
        room = int(variant.facts.get("max_home_centres", 4)) - len(homes) - len(new_now)  # type: ignore[arg-type]
        if room <= 0:
            return sites
        sites |= (predetermined & owned) - homes
        electives_used = len((homes - originals) - predetermined) + len([b for b in new_now if b not in predetermined])
        electives = int(variant.facts.get("elective_homes", {}).get(power, 0))  # type: ignore[union-attr]
        if electives_used < electives:
            sites |= owned - homes - originals
        return sites

    def after_winter(self, variant: Variant, state: GameState, results: list[OrderResult]) -> GameState:
        homes = dict(state.home_centres)
        changed = False
        for r in results:
            o = r.order
            if type(o) is Build and r.result is Result.SUCCEEDS and o.province not in homes.get(o.power, ()):
                homes[o.power] = homes.get(o.power, frozenset()) | {o.province}
                changed = True
        return state.with_(home_centres=homes) if changed else state

    # --- civil disorder -------------------------------------------------------------------------
    def independent_unit(self, variant: Variant, power: str, centre: str) -> Unit:
        """v6: the unit that stood in that centre when the game began, else an army."""
        for u in variant.starting_units:
            if u.province == centre:
                return Unit(power, u.type, u.location)
        return Unit(power, UnitType.ARMY, centre)
