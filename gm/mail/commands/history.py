"""HISTORY: the results of the phases played so far in your game."""
from __future__ import annotations

import re
from typing import Any

from sqlalchemy import select

from gm.mail.commands import Context
from gm.store.models import GamePhase

NAME = "HISTORY"
USAGE = "HISTORY"
HELP = "the results of every phase played so far"

# A point allocation as results list it: 'DP 2 A Tus - Rom', 'IP 1 ...'.
_ALLOCATION = re.compile(r"\s*(DP|IP)\s+\d", re.IGNORECASE)


def is_secret(entry: dict[str, Any]) -> bool:
    """Is this entry of a phase's results seen only by its owner (and the GM)? Every point
    allocation is, flagged or not; anything flagged secret is."""
    return bool(entry.get("secret")) or entry.get("kind") == "allocation" or bool(
        _ALLOCATION.match(str(entry.get("order", ""))))


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    phases = ctx.session.scalars(
        select(GamePhase)
        .where(GamePhase.game_id == ctx.game.id, GamePhase.adjudicated_at.is_not(None))
        .order_by(GamePhase.seq)
    ).all()
    blocks = []
    for p in phases:
        orders = (p.results_json or {}).get("orders", [])
        shown = [f"  {o['power']}: {o['order']} -> {o['result']}" for o in orders
                 if not is_secret(o) or o.get("power") == ctx.player.power]
        blocks.append("\n".join([p.label, *shown]))
    ctx.sections.append((f"History of {ctx.game.name}", "\n\n".join(blocks) or "no phase has been played yet"))
    ctx.accept(line, "see below")
