"""The player command language: one module per command, each with NAME, USAGE, HELP and run().

A mail is read line by line. A line whose first word (or first two, for SET ...) names a command
runs that command; any other line is an order (or a point allocation) for the game the sender has
signed on to.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from sqlalchemy.orm import Session

from gm.games import CurrentPhase, current_phase
from gm.mail.message import InboundMessage
from gm.store.models import Game, InboundMail, Player
from gm.store.passwords import PasswordVerifier


SIGN_ON_FIRST = "sign on first: SIGNON <power> <game> <password>"


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
    inbound: InboundMail
    verifier: PasswordVerifier
    results: list[LineResult] = field(default_factory=list)
    sections: list[tuple[str, str]] = field(default_factory=list)  # (title, text) for LIST, HELP...
    player: Player | None = None  # signed on
    game: Game | None = None
    signed_off: bool = False  # SIGNOFF: the rest of the mail is ignored
    changed: bool = False  # whether the mail changed anything (orders, players, passwords)
    _phases: dict[int, CurrentPhase | None] = field(default_factory=dict)
    pending_orders: list[Any] = field(default_factory=list)  # orders to write (orders.write_orders)

    def phase(self) -> CurrentPhase | None:
        """The current phase of the signed-on game, read once per mail."""
        if self.game is None:
            return None
        if self.game.id not in self._phases:
            self._phases[self.game.id] = current_phase(self.session, self.game)
        return self._phases[self.game.id]

    def forget_phase(self) -> None:
        """After a command that opens a phase (the last JOIN starts the game)."""
        self._phases.clear()

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


def registry() -> dict[str, ModuleType]:
    """Command name -> module, in the order HELP lists them."""
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
