"""The player command language: one module per command, each with NAME, USAGE, HELP and run().

A mail is read line by line. A line whose first word (or first two, for SET ...) names a command
runs that command; any other line is an order (or a point allocation) for the game the sender has
signed on to.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from functools import cache
from types import ModuleType
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gm.games import CurrentPhase, current_phase, find_game
from gm.mail.message import InboundMessage
from gm.store.models import AuthFailure, Game, Player, utcnow
from gm.store.passwords import PasswordVerifier


SIGN_ON_FIRST = "sign on first: SIGNON <power> <game> <password>"
AUTH_FAILURE_WINDOW = timedelta(minutes=15)  # bad passwords from one sender are counted this long


class Lookups:
    """What the mails of one transaction looked up (games, their current phase, players, recent
    bad passwords), kept for the mails after them in the same transaction: a burst of order mails
    reads each once. A batch thus sees each as it was when first read in the batch (whatever the
    batch itself changes goes through here or calls forget(), as does whatever undoes part of the
    transaction). Whatever closes a phase while mail comes in must therefore not interleave with
    a batch: on SQLite nothing can (a writing transaction holds the database)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._games: dict[str, Game | None] = {}
        self._phases: dict[int, CurrentPhase | None] = {}
        self._players: dict[tuple[int, str], Player | None] = {}
        self._auth_failures: dict[str, int] = {}

    def game(self, name: str) -> Game | None:
        key = name.strip().lower()
        if key not in self._games:
            self._games[key] = find_game(self.session, key)
        return self._games[key]

    def phase(self, game: Game) -> CurrentPhase | None:
        """The phase of `game` taking orders (see gm.games.current_phase)."""
        if game.id not in self._phases:
            self._phases[game.id] = current_phase(self.session, game)
        return self._phases[game.id]

    def player(self, game: Game, power: str) -> Player | None:
        """Who plays `power` in `game` now."""
        key = (game.id, power)
        if key not in self._players:
            self._players[key] = self.session.scalar(
                select(Player).where(Player.game_id == game.id, Player.power == power, Player.left_at.is_(None))
            )
        return self._players[key]

    def auth_failures(self, sender: str) -> int:
        """Bad passwords from `sender` in the last AUTH_FAILURE_WINDOW."""
        if sender not in self._auth_failures:
            since = utcnow() - AUTH_FAILURE_WINDOW
            self._auth_failures[sender] = self.session.scalar(
                select(func.count()).select_from(AuthFailure).where(AuthFailure.sender == sender, AuthFailure.at >= since)
            ) or 0
        return self._auth_failures[sender]

    def add_auth_failure(self, sender: str) -> None:
        self._auth_failures[sender] = self.auth_failures(sender) + 1
        self.session.add(AuthFailure(sender=sender))

    def forget(self) -> None:
        """After a change to games, phases or players that this cache did not make itself (a game
        starting, a player joining) or after a rollback."""
        self._games.clear()
        self._phases.clear()
        self._players.clear()
        self._auth_failures.clear()


@dataclass
class LineResult:
    """What became of one line of the mail, for the acknowledgement."""

    text: str  # the line as shown back (passwords masked)
    accepted: bool
    detail: str  # the canonical form when accepted, the precise reason when not


@dataclass
class Context:
    """One mail being processed: the session it is processed in and what the commands found."""

    session: Session
    message: InboundMessage
    record_mail: Callable[[], int]  # the mail's inbound_mail row id, the row written first if need be
    verifier: PasswordVerifier
    lookups: Lookups
    results: list[LineResult] = field(default_factory=list)
    sections: list[tuple[str, str]] = field(default_factory=list)  # (title, text) for LIST, HELP...
    player: Player | None = None  # signed on
    game: Game | None = None
    signed_off: bool = False  # SIGNOFF: the rest of the mail is ignored
    changed: bool = False  # whether the mail changed anything (orders, players, passwords)
    pending_orders: list[tuple[type, dict[str, Any]]] = field(default_factory=list)  # see orders.write_orders

    def phase(self) -> CurrentPhase | None:
        """The current phase of the signed-on game."""
        return None if self.game is None else self.lookups.phase(self.game)

    def signed_on(self, shown: str) -> bool:
        """True when the mail has signed on to a game; else the line is rejected saying so."""
        if self.player is None or self.game is None:
            self.reject(shown, SIGN_ON_FIRST)
            return False
        return True

    def accept(self, text: str, detail: str) -> None:
        self.results.append(LineResult(text, True, detail))

    def reject(self, text: str, reason: str) -> None:
        self.results.append(LineResult(text, False, reason))


@cache
def registry() -> dict[str, ModuleType]:
    """Command name -> module, in the order HELP lists them. Built once (it is asked for every
    line of every mail); the modules are imported here because each imports this one."""
    from gm.mail.commands import (
        clear,
        help,
        history,
        join,
        listing,
        set_address,
        set_password,
        signoff,
        signon,
        summary,
    )

    modules = [signon, join, clear, listing, history, summary, set_password, set_address, help, signoff]
    return {m.NAME: m for m in modules}


def command_for(line: str) -> tuple[ModuleType | None, list[str]]:
    """The command a line names and its arguments; (None, []) for an order line."""
    words = line.split()
    key = words[0].upper()
    args = words[1:]
    if key == "SET" and args:
        key, args = f"SET {args[0].upper()}", args[1:]
    command = registry().get(key)
    return (command, args) if command is not None else (None, [])
