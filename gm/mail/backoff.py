"""How long the judge waits before trying a mail server again after a failure: the IMAP
watcher, the outbox and the outbox's process each keep their own Backoff."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Backoff:
    """Delays of `base`, 2*base, 4*base, ... seconds, never more than `cap`."""

    base: float
    cap: float

    def delay(self, failures: int) -> float:
        return float(min(self.cap, self.base * 2 ** max(0, failures - 1)))
