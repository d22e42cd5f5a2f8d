"""HISTORY: the results of the phases played so far in your game."""
from __future__ import annotations

import re
from typing import Any

from gm.lifecycle.phases import history
from gm.mail.commands import Context

NAME = "HISTORY"
USAGE = "HISTORY"
HELP = "the results of every phase played so far (RESULTS shows one in full)"

# A point allocation as results list it: 'DP 2 A Tus - Rom', 'IP 1 ...'.
_ALLOCATION = re.compile(r"\s*(DP|IP)\s+\d", re.IGNORECASE)


def is_secret(entry: dict[str, Any]) -> bool:
    """Is this entry of a phase's results seen only by its owner (and the GM)? Every point
    allocation is, flagged or not; anything flagged secret is. Reports keep their secrets under
    "secret" (gm.lifecycle.report); this guards against one that slipped among the orders."""
    return bool(entry.get("secret")) or entry.get("kind") == "allocation" or bool(
        _ALLOCATION.match(str(entry.get("order", ""))))


def entries_for(report: dict[str, Any], power: str | None) -> list[dict[str, Any]]:
    """What `power` may see of a phase's orders: every public one, and its own secret
    allocations (never another power's)."""
    public = [e for e in report.get("orders", []) if not is_secret(e) or e.get("power") == power]
    own = [e for e in report.get("secret", []) if power is not None and e.get("power") == power]
    return public + own


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    blocks = []
    for p in history(ctx.session, ctx.game):
        entries = entries_for(p.results_json or {}, ctx.player.power)
        shown = [f"  {e['power']}: {e['order']} -> {e['result']}" for e in entries]
        blocks.append("\n".join([p.label, *shown]))
    ctx.add_section(f"History of {ctx.game.name}", "\n\n".join(blocks) or "no phase has been played yet")
    ctx.accept(line, "see below")
