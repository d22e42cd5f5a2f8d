"""The hooks a variant may override. The base class plays standard Diplomacy."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Mapping, Sequence

from gm.engine.model import GameState, Unit
from gm.engine.orders import Allocation, DeclareHome, Order
from gm.engine.results import OrderResult, Result

if TYPE_CHECKING:
    from gm.engine.variant import Variant

NO_CROSSINGS_CLOSED: Mapping[tuple[str, str], str] = {}
SIDE_ORDERS = frozenset({Allocation, DeclareHome})  # orders for no unit: allocations, declarations


class Rules:
    """Standard Diplomacy. A variant's rules module subclasses this and overrides only what differs."""

    # --- calendar -------------------------------------------------------------------------------
    def year_label(self, year: int) -> str:
        return str(year)

    def parse_year(self, text: str) -> int | None:
        """The inverse of year_label; None when `text` is no year."""
        return int(text) if re.fullmatch(r"\d{1,5}", text.strip()) else None

    # --- powers ---------------------------------------------------------------------------------
    def is_minor(self, variant: Variant, state: GameState, power: str) -> bool:
        """A minor power owns units and centres but gives no orders of its own and never adjusts."""
        p = variant.powers.get(power)
        return p is not None and p.minor

    def points_available(self, variant: Variant, state: GameState, power: str) -> int | None:
        """Secret points (DPs, IPs) `power` may allocate this turn; None where the variant has none."""
        return None

    def stationary_powers(self, variant: Variant, state: GameState) -> frozenset[str]:
        """Powers whose units never leave their space: a move of theirs is a sortie that always
        bounces, though it still cuts supports and stands off other units."""
        return frozenset()

    # --- every phase ----------------------------------------------------------------------------
    def prepare(
        self, variant: Variant, state: GameState, orders: Sequence[Order]
    ) -> tuple[GameState, list[Order], list[OrderResult]]:
        """Turn what the powers sent into orders for units, before the phase is resolved.

        Returns the position to resolve, the orders for units, and the results of everything
        that is no unit's order (secret point allocations, declarations). Variants with minor
        powers turn allocations into the minor powers' orders here. Standard Diplomacy has
        nothing to turn, and no allocations or declarations to accept.
        """
        if not SIDE_ORDERS.intersection(map(type, orders)):  # the usual case, checked at C speed
            return state, list(orders), []
        unit_orders = [o for o in orders if type(o) not in SIDE_ORDERS]
        refused = [
            OrderResult(o, Result.VOID, f"{variant.title} has no {'point allocations' if type(o) is Allocation else 'home declarations'}")
            for o in orders
            if type(o) is Allocation or type(o) is DeclareHome
        ]
        return state, unit_orders, refused

    # --- movement -------------------------------------------------------------------------------
    def blocked_moves(self, variant: Variant, state: GameState) -> Mapping[tuple[str, str], str]:
        """Crossings (from, to) closed in this position to every power but the one named."""
        return NO_CROSSINGS_CLOSED

    def may_retreat(self, variant: Variant, state: GameState, unit: Unit) -> bool:
        """False for units that are destroyed rather than retreat when dislodged."""
        return True

    # --- end of a year --------------------------------------------------------------------------
    def after_fall(self, variant: Variant, before: GameState, after: GameState) -> GameState:
        """Called once supply-centre ownership has changed at the end of a Fall turn; `before` is
        the position at the start of the Fall movement."""
        return after

    def winter_units(self, variant: Variant, state: GameState) -> list[Unit]:
        """Units the rules place in the winter without anyone's order (minor powers' units coming
        back). A winter phase is held when there are any."""
        return []

    def winter_pending(self, variant: Variant, state: GameState) -> bool:
        """True when a power has something to declare in the winter (a winter phase is held)."""
        return bool(self.winter_choices(variant, state))

    def winter_choices(self, variant: Variant, state: GameState) -> dict[str, str]:
        """Power -> what it has to declare this winter, besides builds and removals, in words for
        a reminder ('a HOME declaration: Courland or Livonia'). Without one the rules choose."""
        return {}

    # --- adjustments ----------------------------------------------------------------------------
    def build_sites(self, variant: Variant, state: GameState, power: str, built: Sequence[str] = ()) -> set[str]:
        """Provinces where `power` may build this winter, before the vacancy check, given the
        provinces it has already built in this winter."""
        homes = state.home_centres.get(power, frozenset())
        return {p for p in homes if state.supply_centres.get(p) == power}

    def max_builds(self, variant: Variant, state: GameState, power: str) -> int | None:
        return None

    def after_winter(self, variant: Variant, state: GameState, results: list[OrderResult]) -> GameState:
        """Called with the position after the adjustments and their results."""
        return state

    def winner(self, variant: Variant, state: GameState) -> str | None:
        """The power that has won once centre ownership is settled, or None."""
        counts: dict[str, int] = {}
        for owner in state.supply_centres.values():
            counts[owner] = counts.get(owner, 0) + 1
        leaders = [p for p, n in counts.items() if n >= variant.victory_centres]
        return leaders[0] if len(leaders) == 1 else None

    def settle_position(self, variant: Variant, state: GameState) -> GameState:
        """Fill in what the rules derive from a position given without its history (a test case,
        a game taken over mid-way): home centres gained in play, for instance."""
        return state

    # --- game master ----------------------------------------------------------------------------
    def permanent_civil_disorder(self, variant: Variant, state: GameState, power: str) -> bool:
        """True when the rules have put `power` out of the game for good (its player can never
        come back). Standard Diplomacy has no such rule."""
        return False

    def declare_civil_disorder(self, variant: Variant, state: GameState, power: str) -> GameState:
        """The GM declares `power` in permanent civil disorder. Standard Diplomacy has no such
        rule: the power's units simply receive no orders."""
        return state
