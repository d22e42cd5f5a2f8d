"""HISTORY: the results of the phases played so far in your game (a player sees the public
orders and their own secret allocations; the game's GM sees every one, and what is on file for
the phase under way)."""
from __future__ import annotations

import re
from typing import Any

from gm.lifecycle.overview import orders_on_file
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


def entries_for(report: dict[str, Any], power: str | None, *, gm: bool = False) -> list[dict[str, Any]]:
    """What `power` may see of a phase's orders: every public one, and its own secret
    allocations (never another power's); with `gm`, the GM's view: every one."""
    public = [e for e in report.get("orders", []) if gm or not is_secret(e) or e.get("power") == power]
    own = [e for e in report.get("secret", []) if gm or power is not None and e.get("power") == power]
    return public + own


def run(ctx: Context, args: list[str], line: str) -> None:
    gm = ctx.master is not None and ctx.game is not None  # signed on as the game's GM
    if not gm and not ctx.signed_on(line):
        return
    power = None if gm else ctx.player.power
    blocks = []
    for p in history(ctx.session, ctx.game):
        entries = entries_for(p.results_json or {}, power, gm=gm)
        shown = [f"  {e['power']}: {e['order']} -> {e['result']}" for e in entries]
        blocks.append("\n".join([p.label, *shown]))
    if gm:
        on_file = orders_on_file(ctx.session, ctx.game, ctx.phase(), on_file=ctx.lookups.on_file)
        if on_file:
            blocks.append("\n".join(on_file))
    ctx.add_section(f"History of {ctx.game.name}", "\n\n".join(blocks) or "no phase has been played yet")
    ctx.accept(line, "see below")
