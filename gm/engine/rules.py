"""The hooks a variant may override. The base class plays standard Diplomacy."""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from gm.engine.model import GameState, Unit

if TYPE_CHECKING:
    from gm.engine.orders import Order
    from gm.engine.variant import Variant


class Rules:
    """Standard Diplomacy. A variant's rules module subclasses this and overrides only what differs."""

    # --- calendar -------------------------------------------------------------------------------
    def year_label(self, year: int) -> str:
        return str(year)

    def parse_year(self, text: str) -> int | None:
        """The inverse of year_label; None when `text` is no year."""
        return int(text) if re.fullmatch(r"\d{1,5}", text.strip()) else None

    # --- movement -------------------------------------------------------------------------------
    def prepare_orders(self, variant: Variant, state: GameState, orders: list[Order]) -> list[Order]:
        """Turn what powers sent into orders for units (secret point allocations become orders of
        minor powers here). Standard Diplomacy has nothing to turn."""
        return orders

    def blocked_moves(self, variant: Variant, state: GameState) -> frozenset[tuple[str, str]]:
        """Province pairs (from, to) no unit may cross in this position (a crossing a fleet blocks)."""
        return frozenset()

    def may_retreat(self, variant: Variant, state: GameState, unit: Unit) -> bool:
        """False for units that are destroyed rather than retreat when dislodged."""
        return True

    # --- adjustments ----------------------------------------------------------------------------
    def build_sites(self, variant: Variant, state: GameState, power: str) -> set[str]:
        """Provinces where `power` may build this winter, before the vacancy check."""
        homes = state.home_centres.get(power, frozenset())
        return {p for p in homes if state.supply_centres.get(p) == power}

    def max_builds(self, variant: Variant, state: GameState, power: str) -> int | None:
        return None

    def after_fall(self, variant: Variant, state: GameState) -> GameState:
        """Called once supply-centre ownership has changed at the end of a Fall turn."""
        return state

    def winner(self, variant: Variant, state: GameState) -> str | None:
        """The power that has won once centre ownership is settled, or None."""
        counts: dict[str, int] = {}
        for owner in state.supply_centres.values():
            counts[owner] = counts.get(owner, 0) + 1
        leaders = [p for p, n in counts.items() if n >= variant.victory_centres]
        return leaders[0] if len(leaders) == 1 else None
