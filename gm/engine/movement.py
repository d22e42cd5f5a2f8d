"""A movement phase, resolved as the variant's rules say: one unit a space (resolve.py), or
multiple units and armies at sea (multiple.py, which builds on resolve.py)."""
from __future__ import annotations

from typing import Sequence

from gm.engine import multiple, resolve
from gm.engine.model import Dislodged, GameState, Unit
from gm.engine.orders import Order
from gm.engine.results import OrderResult
from gm.engine.variant import Variant


def reaches(variant: Variant, unit: Unit, province: str) -> bool:
    """Whether `unit` can move to `province` (and so support there), as the variant's resolver judges it."""
    return (multiple if variant.rules.multiple_units else resolve).reaches(variant.map, unit, province)


def resolve_movement(
    variant: Variant, state: GameState, orders: Sequence[Order]
) -> tuple[list[OrderResult], dict[str, Unit], dict[str, Dislodged], frozenset[str]]:
    """Results, units after, dislodged units (without retreats yet) and the provinces a standoff
    left empty."""
    if variant.rules.multiple_units:
        return multiple.resolve_movement(variant, state, orders)
    return resolve.resolve_movement(variant, state, orders)
