"""HISTORY: the results of the phases played so far in your game."""
from __future__ import annotations

from sqlalchemy import select

from gm.mail.commands import Context
from gm.store.models import GamePhase

NAME = "HISTORY"
USAGE = "HISTORY"
HELP = "the results of every phase played so far"


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
        # Public results only: never the secret allocations.
        shown = [f"  {o['power']}: {o['order']} -> {o['result']}" for o in orders if not o.get("secret")]
        blocks.append("\n".join([p.label, *shown]))
    ctx.sections.append((f"History of {ctx.game.name}", "\n\n".join(blocks) or "no phase has been played yet"))
    ctx.accept(line, "see below")
