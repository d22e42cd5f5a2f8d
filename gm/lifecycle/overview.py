"""A game at a glance, for its GM: who plays each power and whether its orders are in, and what
each has on file. What `gm game show` prints and what a GM's acknowledgement ends with."""
from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.orm import Session

from gm.games import (CurrentPhase, OnFile, active_masters, active_players, current_phase, major_powers, on_file_by_power, orders_due,
                      variant_of)
from gm.i18n import ENGLISH, Text, _, _p, translated
from gm.lifecycle.phase_names import phase_name
from gm.store.failing import marks as failing_marks
from gm.store.models import Game, GamePhase, GameStatus, OrderRecord, SecretAllocation

# What a power has on file in a phase, in orders or allocations (the table): by default as stored;
# the mail's own Lookups.on_file, with what the mail stored and has not written yet.
OnFileReader = Callable[[type, GamePhase, str], list[OnFile]]

_STATUS = {GameStatus.FORMING: _p("game status", "forming"), GameStatus.ACTIVE: _p("game status", "active"),
           GameStatus.FINISHED: _p("game status", "finished")}


def status_word(status: str) -> str:
    """A game's status ('forming', 'active', 'finished') as a reader reads it (a Text)."""
    return _STATUS.get(status, status)  # type: ignore[call-overload]


def powers_at_a_glance(session: Session, game: Game, *, language: str = ENGLISH) -> list[list[str]]:
    """[power, player's address or '(open)', how its orders stand] for each great power, written
    in `language` (the cells are padded to columns, so they are written out here)."""
    variant = variant_of(game)
    phase = current_phase(session, game)
    players = {p.power: p for p in active_players(session, game)}
    failing = failing_marks(session, [p.email for p in players.values()])
    rows = []
    for power in major_powers(session, game):
        player = players.get(power)
        orders: str = ""
        if phase is not None and player is not None:
            done, due = orders_due(session, variant, phase, power)
            orders = _("nothing to order") if due == 0 else _("orders in") if done >= due else \
                _("{done} of {due} orders in", done=done, due=due)
        if player is not None and player.civil_disorder:
            orders = _("civil disorder; {orders}", orders=orders) if orders else _("civil disorder")
        elif player is not None and player.late_streak:
            orders = _("{orders} (late {count} in a row)", orders=orders, count=player.late_streak) if orders else \
                _("(late {count} in a row)", count=player.late_streak)
        address: str = _("(open)") if player is None else \
            _("{address} (mail failing)", address=player.email) if player.email in failing else player.email
        rows.append([power, translated(address, language), translated(orders, language)])
    return rows


def failing_mail(session: Session, game: Game) -> list[str]:
    """For the game's GM: each player (or GM) of the game whose address the judge's mail no longer
    reaches, and what the receiving server said (gm.store.failing): a Text a line."""
    holders: list[tuple[str, str]] = [(p.power or _("(no power yet)"), p.email) for p in active_players(session, game)]
    holders += [(_("GM"), m.email) for m in active_masters(session, game)]
    found = failing_marks(session, [address for _who, address in holders])
    return [_("mail to {who} ({address}): {failing}", who=who, address=address, failing=found[address].said())
            for who, address in holders if address in found]


def columns(rows: list[list[str]]) -> list[str]:
    """The rows as lines, each column as wide as its widest cell."""
    widths = [max(len(cell) for cell in column) for column in zip(*rows)] if rows else []
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows]


def orders_on_file(session: Session, game: Game, current: CurrentPhase | None = None, *,
                   on_file: OnFileReader | None = None) -> list[str]:
    """For the GM only: every power's orders on file for the phase under way, and every secret
    allocation (DP, IP), one a line (a Text: written in the reader's language where it is read),
    those a GM entered marked. No lines when no phase is under way."""
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
    lines = [_("Orders on file for {phase}:", phase=phase_name(current.row.label))]
    secret: list[tuple[str, str]] = []
    rows: list[tuple[str, str]] = []
    for power in powers:
        orders = on_file(OrderRecord, current.row, power)
        allocations = on_file(SecretAllocation, current.row, power)
        shown = [_entered(o.canonical, o.entered_by) for o in orders]
        if not shown and power in majors:
            shown = [_("(none)")]
        rows += [(f"{power}:" if i == 0 else "", text) for i, text in enumerate(shown)]
        secret += [(f"{power}:" if i == 0 else "", _entered(a.canonical, a.entered_by))
                   for i, a in enumerate(allocations)]
    lines += _aligned(rows)
    if secret:
        lines.append(_("Secret allocations on file (seen by the GM and their own power only):"))
        lines += _aligned(secret)
    return lines


def _entered(canonical: str, by_gm: object) -> str:
    return _("{order} (entered by the GM)", order=canonical) if by_gm else canonical


def _aligned(rows: list[tuple[str, str]]) -> list[str]:
    """'  France:  A PAR - BUR': each power's name padded to the widest (names are not
    translated), then its order, a Text, in whatever language the line is read."""
    width = max((len(power) for power, _text in rows), default=0)
    return [Text("  {power}  {order}", params={"power": power.ljust(width), "order": text}) for power, text in rows]
