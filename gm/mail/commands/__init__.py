"""The command language: one module per command, each with NAME, USAGE, HELP and run(); the
players' here, the GM's in gm.mail.commands.master.

A mail is read line by line. A line whose first two words (SET DEADLINE, REMOVE UNIT) or first
word names a command runs that command; any other line is an order (or a point allocation) for
the game the sender has signed on to. The GM's commands are read only after SIGNON MASTER: to
anyone else a GM's command word is no command.

Commands import intake, outgoing and what they share (context.py, below outgoing), never ingest:
a confirmation comes back to the command that asked for it through the CONFIRMS each declares
(confirmations.py), not by an import.
"""
from __future__ import annotations

import difflib
import importlib
import pkgutil
from collections.abc import Collection
from functools import cache
from types import ModuleType

from gm.i18n import Lines, Text, reason, translated  # noqa: F401 - where the commands find them

# What the commands share lives below them (gm.mail.commands.context); named here too, where the
# commands have always found it.
from gm.mail.intake.message import lines_and_quotes
from gm.mail.intake.redact import MASK
from gm.mail.commands.context import (
    MASTERS_ONLY,
    NO_SUCH_GAME,
    SIGN_ON_FIRST,
    Block,
    Context,
    LineResult,
    Lookups,
)

__all__ = ["MASTERS_ONLY", "NO_SUCH_GAME", "SIGN_ON_FIRST", "Block", "Context", "LineResult", "Lines", "Lookups"]


# The order HELP lists the commands in; a command module not named here comes after these.
HELP_ORDER = ("SIGNON", "JOIN", "CONFIRM", "CLEAR", "WAIT", "NOWAIT", "LIST", "INFO", "WHOGAME", "HISTORY", "RESULTS",
              "MAP", "SUMMARY",
              "PRESS", "BROADCAST", "PROPOSE DRAW", "ACCEPT DRAW", "REJECT DRAW", "SET DRAW",
              "CONCEDE", "SET PASSWORD", "SET ADDRESS", "SET ABSENCE",
              "SET MAP", "SET LANGUAGE", "RESIGN", "OBSERVE", "UNOBSERVE", "CREATE", "HELP", "SIGNOFF")


def command_modules(package: str, order: Collection[str]) -> dict[str, ModuleType]:
    """Command name -> module for every command module of `package` (one file per command),
    in the order of `order`, then the others by name."""
    found = {}
    for info in pkgutil.iter_modules(importlib.import_module(package).__path__):
        if not info.ispkg:
            module = importlib.import_module(f"{package}.{info.name}")
            if hasattr(module, "USAGE"):  # a command (orders.py reads the lines that are none)
                found[module.NAME] = module
    rank = {name: i for i, name in enumerate(order)}
    return {name: found[name] for name in sorted(found, key=lambda n: (rank.get(n, len(rank)), n))}


@cache
def registry() -> dict[str, ModuleType]:
    """The players' commands, name -> module, in the order HELP lists them. Built once (it is
    asked for every line of every mail)."""
    return command_modules(__name__, HELP_ORDER)


# The order HELP lists the GM's commands in; by topic.
MASTER_HELP_ORDER = (
    "SET DEADLINE", "EXTEND", "SET GRACE", "SET NMR", "PAUSE", "RESUME",  # the clock
    "PROCESS", "PREVIEW", "ROLLBACK", "ROLLFORWARD",  # adjudication
    "ORDER", "DP",  # orders on a power's behalf
    "SET UNIT", "REMOVE UNIT", "SET OWNER", "SET HOME", "SET PHASE", "SET CENTRE", "SET CONTROL",  # the position
    "REISSUE",
    "REPLACE", "EJECT", "CIVIL DISORDER", "UNCD", "BECOME",  # players
    "PROMOTE", "DEMOTE",  # the GMs
    "START", "IMPORT", "TERMINATE", "DRAW", "SET PRESS", "SET OPTION", "SET DKIM",  # the game
    "AUDIT",
)


@cache
def master_registry() -> dict[str, ModuleType]:
    """The GM's commands (gm.mail.commands.master), name -> module, in the order HELP lists them."""
    return command_modules(f"{__name__}.master", MASTER_HELP_ORDER)


# Command words whose last argument is a password; a line starting with a word close to one of
# them ('SINGON', 'Sign-on') is treated as one when it is shown or stored.
_PASSWORD_WORDS = ("SIGNON", "JOIN", "SETPASSWORD", "PASSWORD")


def password_in(line: str) -> str | None:
    """The password a line carries, if it is (or looks like) a command that takes one: its last
    word. Such a line is never shown back or stored with it."""
    words = line.split()
    if len(words) < 2:
        return None
    command, _ = command_for(line)
    if command is not None:
        return words[-1] if getattr(command, "TAKES_PASSWORD", False) else None
    head = "".join(ch for ch in words[0].upper() if ch.isalpha())
    if words[0].upper() == "SET":
        head += "".join(ch for ch in words[1].upper() if ch.isalpha())
    return words[-1] if difflib.get_close_matches(head, _PASSWORD_WORDS, n=1, cutoff=0.7) else None


def passwords_in(text: str) -> set[str]:
    """The passwords carried by the command lines of a mail's text, and by its quoted lines (a
    player quoting an old SIGNON): give the text with its quotes, not only what the sender wrote."""
    return {word for line in lines_and_quotes(text) if (word := password_in(line))}


def masked(line: str) -> str:
    """The line with its password (see password_in) as MASK."""
    password = password_in(line)
    if password is None:
        return line
    return line[: line.rindex(password)] + MASK


@cache
def _by_word(master: bool) -> dict[str, ModuleType]:
    """Each command's name and its ALIASES (other judges' spellings: SET WAIT for WAIT) -> module."""
    table = master_registry() if master else registry()
    return {word: m for m in table.values() for word in (m.NAME, *getattr(m, "ALIASES", ()))}


def command_words(master: bool = False) -> list[str]:
    """Every command name and alias the sender may use: the players', and with `master` the GM's too."""
    return [*_by_word(False), *(_by_word(True) if master else ())]


def command_for(line: str, master: bool = False) -> tuple[ModuleType | None, list[str]]:
    """The command a line names and its arguments; (None, []) for an order line. With `master`
    (the mail signed on as a GM) the GM's commands first, then the players'."""
    words = line.split()
    if not words:
        return None, []
    tables = (_by_word(True), _by_word(False)) if master else (_by_word(False),)
    for table in tables:
        if len(words) > 1:
            command = table.get(f"{words[0].upper()} {words[1].upper()}")
            if command is not None:
                return command, words[2:]
        command = table.get(words[0].upper())
        if command is not None:
            return command, words[1:]
    return None, []


def is_master_command(command: ModuleType) -> bool:
    return command in master_registry().values()
