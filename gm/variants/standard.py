"""Standard Diplomacy: the base rules, unchanged."""
from gm.engine.rules import Rules as VariantRules

__all__ = ["VariantRules"]
