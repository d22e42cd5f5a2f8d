"""Who reads a game, and what each reader may know of it: the secrecy boundary.

A reader is the player of a power, the game's GM, or someone of no power (an observer; the public
who read the game's pages). A phase's report keeps its secret allocations (DP, IP, bids, loans)
apart, under "secret", by the power that made them (gm.lifecycle.report). A channel never reads
them itself: it asks its reader for the report as that reader may see it, or for the secrets the
reader is owed, and renders that.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

# A point allocation as results list it: 'DP 2 A Tus - Rom', 'IP 1 ...'.
_ALLOCATION = re.compile(r"\s*(DP|IP)\s+\d", re.IGNORECASE)


def is_secret(entry: dict[str, Any]) -> bool:
    """Is this entry of a phase's results seen only by its owner (and the GM)? Every point
    allocation is, flagged or not; anything flagged secret is. Reports keep their secrets under
    "secret"; this guards against one that slipped among the orders."""
    return bool(entry.get("secret")) or entry.get("kind") == "allocation" or bool(
        _ALLOCATION.match(str(entry.get("order", ""))))


@dataclass(frozen=True)
class Reader:
    """One reader of a game: `power`'s player, the GM (`gm`), or, with neither, a reader of no power."""

    power: str | None = None
    gm: bool = False

    @classmethod
    def player(cls, power: str | None) -> Reader:
        return cls(power=power)

    def owns(self, entry: dict[str, Any]) -> bool:
        """May this reader see this secret entry: its own power's, or any for the GM."""
        return self.gm or (self.power is not None and entry.get("power") == self.power)

    def secrets(self, report: dict[str, Any]) -> list[dict[str, Any]]:
        """The secret allocations of a phase this reader is owed: its own; every one for the GM."""
        return [e for e in report.get("secret", []) if self.owns(e)]

    def orders(self, report: dict[str, Any]) -> list[dict[str, Any]]:
        """The orders of a phase this reader may see: every public one (a secret that slipped
        among them only to its owner and the GM)."""
        return [e for e in report.get("orders", []) if not is_secret(e) or self.owns(e)]

    def report(self, report: dict[str, Any]) -> dict[str, Any]:
        """The report as this reader may see it: the public orders and the secrets it is owed.
        A new dict: the stored report is never changed."""
        return {**report, "orders": self.orders(report), "secret": self.secrets(report)}

    def entries(self, report: dict[str, Any]) -> list[dict[str, Any]]:
        """Every order and allocation of a phase this reader may see, the public ones first."""
        return self.orders(report) + self.secrets(report)


PUBLIC = Reader()  # an observer, the game's pages: no power, no secret
GM = Reader(gm=True)
