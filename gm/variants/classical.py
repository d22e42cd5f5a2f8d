"""Classical Mediterranean (Schwarz & Mous): what differs from standard Diplomacy.

The map, the powers, the 18-centre victory and the land bridges are data (maps/classical/); the
land bridges, the Nile and Rhodes are ordinary adjacencies there. Two rules need code:

* the calendar (rule 3): the game starts in Spring 273 BC and 273 BC is followed by 272 BC. Years
  are stored as integers running forward, -273 for 273 BC, so the engine's "next year = year + 1"
  works unchanged; only the labels and their parsing live here;
* builds (rule 6): a power may build in any supply centre it owns while it still owns at least one
  of its original home centres.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Sequence

from gm.engine.model import GameState
from gm.engine.rules import Rules

if TYPE_CHECKING:
    from gm.engine.variant import Variant

_BC = re.compile(r"(\d{1,4})\s*(?:B\.?\s*C\.?(?:\s*E\.?)?)", re.IGNORECASE)  # 273 BC, 273 B.C., 273 BCE
_AD_BEFORE = re.compile(r"(?:A\.?\s*D\.?)\s*(\d{1,4})", re.IGNORECASE)  # AD 5, A.D. 5
_AD_AFTER = re.compile(r"(\d{1,4})\s*(?:A\.?\s*D\.?|C\.?\s*E\.?)", re.IGNORECASE)  # 5 AD, 5 CE
_SIGNED = re.compile(r"-\d{1,5}")  # the stored number itself: -273
_BARE = re.compile(r"\d{1,4}")  # 273: the game is played in BC years, so a bare number is BC


class VariantRules(Rules):
    # --- calendar (rule 3) ----------------------------------------------------------------------
    def year_label(self, year: int) -> str:
        """-273 -> '273 BC'. There is no year 0: stored 0 is AD 1, stored n >= 0 is AD n+1.

        A game would need 273 game years to get there; the labels stay right if it ever did.
        """
        if year < 0:
            return f"{-year} BC"
        return f"AD {year + 1}"

    def parse_year(self, text: str) -> int | None:
        """The inverse of year_label, forgiving about spelling.

        '273 BC', '273 B.C.', '273BC', '273 BCE' -> -273; 'AD 1', '1 AD', '1 CE' -> 0;
        '-273' (the stored number) -> -273; a bare '273' -> -273 (every year of play is BC).
        """
        t = text.strip()
        if m := _BC.fullmatch(t):
            n = int(m.group(1))
            return -n if n > 0 else None
        if m := (_AD_BEFORE.fullmatch(t) or _AD_AFTER.fullmatch(t)):
            n = int(m.group(1))
            return n - 1 if n > 0 else None
        if _SIGNED.fullmatch(t):
            return int(t)
        if _BARE.fullmatch(t):
            n = int(t)
            return -n if n > 0 else None
        return None

    # --- adjustments (rule 6) -------------------------------------------------------------------
    def build_sites(self, variant: Variant, state: GameState, power: str, built: Sequence[str] = ()) -> set[str]:
        """Every supply centre `power` owns, provided it still owns one of its ORIGINAL home centres
        (the three it started with); otherwise none. The engine checks vacancy and build counts."""
        info = variant.powers.get(power)
        originals = info.home_centres if info else frozenset()
        owned = {p for p, owner in state.supply_centres.items() if owner == power}
        return owned if owned & originals else set()
