"""A game at a glance, for its GM: who plays each power and whether its orders are in, and what
each has on file. What `gm game show` prints and what a GM's acknowledgement ends with."""
from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.orm import Session

from gm.games import (CurrentPhase, OnFile, active_masters, active_players, current_phase, major_powers, on_file_by_power, orders_due,
                      variant_of)
from gm.store.failing import marks as failing_marks
from gm.store.models import Game, GamePhase, GameStatus, OrderRecord, SecretAllocation

# What a power has on file in a phase, in orders or allocations (the table): by default as stored;
# the mail's own Lookups.on_file, with what the mail stored and has not written yet.
OnFileReader = Callable[[type, GamePhase, str], list[OnFile]]


def powers_at_a_glance(session: Session, game: Game) -> list[list[str]]:
    """[power, player's address or '(open)', how its orders stand] for each great power."""
    variant = variant_of(game)
    phase = current_phase(session, game)
    players = {p.power: p for p in active_players(session, game)}
    failing = failing_marks(session, [p.email for p in players.values()])
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
        address = "(open)" if player is None else player.email + (" (mail failing)" if player.email in failing else "")
        rows.append([power, address, orders])
    return rows


def failing_mail(session: Session, game: Game) -> list[str]:
    """For the game's GM: each player (or GM) of the game whose address the judge's mail no longer
    reaches, and what the receiving server said (gm.store.failing)."""
    holders = [(p.power or "(no power yet)", p.email) for p in active_players(session, game)]
    holders += [("GM", m.email) for m in active_masters(session, game)]
    found = failing_marks(session, [address for _, address in holders])
    return [f"mail to {who} ({address}): {found[address].said()}" for who, address in holders if address in found]


def columns(rows: list[list[str]]) -> list[str]:
    """The rows as lines, each column as wide as its widest cell."""
    widths = [max(len(cell) for cell in column) for column in zip(*rows)] if rows else []
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]


def orders_on_file(session: Session, game: Game, current: CurrentPhase | None = None, *,
                   on_file: OnFileReader | None = None) -> list[str]:
    """For the GM only: every power's orders on file for the phase under way, and every secret
    allocation (DP, IP), one a line, those a GM entered marked. No lines when no phase is under way."""
    current = current_phase(session, game) if current is None else current
    if current is None or game.status != GameStatus.ACTIVE:
        return []
    if on_file is None:
        stored = {table: on_file_by_power(session, table, current.row) for table in (OrderRecord, SecretAllocation)}

        def on_file(table: type, row: GamePhase, power: str) -> list[OnFile]:
            return stored[table].get(power, [])
    variant = variant_of(game)
    majors = list(major_powers(session, game))
    powers = majors + [p for p in variant.powers if p not in majors]  # the others: only if they have something
    lines = [f"Orders on file for {current.row.label}:"]
    secret: list[list[str]] = []
    rows: list[list[str]] = []
    for power in powers:
        orders = on_file(OrderRecord, current.row, power)
        allocations = on_file(SecretAllocation, current.row, power)
        shown = [o.canonical + (" (entered by the GM)" if o.entered_by else "") for o in orders]
        if not shown and power in majors:
            shown = ["(none)"]
        rows += [[f"{power}:" if i == 0 else "", text] for i, text in enumerate(shown)]
        secret += [[f"{power}:" if i == 0 else "", a.canonical + (" (entered by the GM)" if a.entered_by else "")]
                   for i, a in enumerate(allocations)]
    lines += [f"  {line}" for line in columns(rows)]
    if secret:
        lines.append("Secret allocations on file (seen by the GM and their own power only):")
        lines += [f"  {line}" for line in columns(secret)]
    return lines
