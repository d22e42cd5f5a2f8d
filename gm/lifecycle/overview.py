"""A game at a glance, for its GM: who plays each power and whether its orders are in. What
`gm game show` prints and what a GM's acknowledgement ends with."""
from __future__ import annotations

from sqlalchemy.orm import Session

from gm.games import active_players, current_phase, major_powers, orders_due, variant_of
from gm.store.models import Game


def powers_at_a_glance(session: Session, game: Game) -> list[list[str]]:
    """[power, player's address or '(open)', how its orders stand] for each great power."""
    variant = variant_of(game)
    phase = current_phase(session, game)
    players = {p.power: p for p in active_players(session, game)}
    rows = []
    for power in major_powers(session, game):
        player = players.get(power)
        orders = ""
        if phase is not None and player is not None:
            done, due = orders_due(session, variant, phase, power)
            orders = "nothing to order" if due == 0 else "orders in" if done >= due else f"{done} of {due} orders in"
        if player is not None and player.civil_disorder:
            orders = "civil disorder" + (f"; {orders}" if orders else "")
        elif player is not None and player.late_streak:
            orders += f" (late {player.late_streak} in a row)"
        rows.append([power, player.email if player else "(open)", orders])
    return rows


def columns(rows: list[list[str]]) -> list[str]:
    """The rows as lines, each column as wide as its widest cell."""
    widths = [max(len(cell) for cell in column) for column in zip(*rows)] if rows else []
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]
