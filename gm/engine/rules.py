"""The hooks a variant may override (Rules) live with the Variant they are the rules of, in
gm/engine/variant.py; the names here are those the variants' modules import."""
from __future__ import annotations

from gm.engine.variant import NO_CROSSINGS_CLOSED, NO_GARRISONS, NO_NAMED_UNITS, NO_PASSAGES, SIDE_ORDERS, Rules

__all__ = ["NO_CROSSINGS_CLOSED", "NO_GARRISONS", "NO_NAMED_UNITS", "NO_PASSAGES", "SIDE_ORDERS", "Rules"]
