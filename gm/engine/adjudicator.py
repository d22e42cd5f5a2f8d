"""One entry point for every phase: pick the phase's resolver, then work out the next phase."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

from gm.engine.model import Dislodged, GameState, Phase, Unit
from gm.engine.orders import Order
from gm.engine.results import OrderResult
from gm.engine.variant import Variant


@dataclass
class Adjudication:
    phase: Phase  # the phase that was resolved
    results: list[OrderResult]  # one per order given, in the order given
    units: dict[str, Unit]  # province -> unit, once the phase is resolved (dislodged units excluded)
    dislodged: dict[str, Dislodged]  # every unit dislodged this phase, retreat or not
    state: GameState  # the position at the start of the next phase
    winner: str | None = None
    disbanded: list[Unit] = field(default_factory=list)  # units removed without an order of theirs


def adjudicate(variant: Variant, state: GameState, orders: Sequence[Order]) -> Adjudication:
    raise NotImplementedError


def check_order(variant: Variant, state: GameState, order: Order) -> str | None:
    """Why `order` is illegal in this position, or None when it is legal. Used for replies."""
    raise NotImplementedError
