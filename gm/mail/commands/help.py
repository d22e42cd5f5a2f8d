"""HELP [command | ALL]: how to play in a few lines and the commands' names; one command's use; or
every command with its use. Each line fits a phone's mail client (78 characters)."""
from __future__ import annotations

import textwrap
from types import ModuleType

from gm.mail.commands import Context, master_registry, registry

NAME = "HELP"
USAGE = "HELP [command | ALL]"
HELP = "how to play, and the commands; HELP <command> for one, HELP ALL for every one with its use"
WIDTH = 78

_HOW = """\
To play:         JOIN <game> <power> <password>
To send orders:  SIGNON <power> <game> <password>, then one order a line:
                 A Par - Bur, F Lon S A Wal - Bel, Build A Par
Secret points:   DP <n> <order>, for a minor power's unit (some variants)"""


def run(ctx: Context, args: list[str], line: str) -> None:
    players = registry()
    masters = master_registry() if ctx.master is not None else {}
    asked = " ".join(args).upper()
    if not asked:
        text = [_HOW, "", *_wrapped("Commands: " + ", ".join(_names(players)))]
        if masters:
            text += _wrapped("GM commands: " + ", ".join(_names(masters)))
        text += _wrapped("HELP <command> shows one command's use (HELP SIGNON); HELP ALL shows every one.")
        ctx.add_section("Commands", "\n".join(text))
    elif asked == "ALL":
        ctx.add_section("Commands", "\n".join(_described(m) for m in _unique(players)))
        if masters:
            ctx.add_section("GM commands", "\n".join(_described(m) for m in _unique(masters)))
    else:
        found = [m for table in (players, masters) for m in _unique(table)
                 if asked in (m.NAME, *getattr(m, "ALIASES", ())) or m.NAME.startswith(asked + " ")]
        if not found:
            ctx.reject(line, f"no command {asked!r}: HELP lists the commands")
            return
        ctx.add_section(f"HELP {asked}", "\n".join(_described(m) for m in dict.fromkeys(found)))
    ctx.accept(line, "see below")


def _names(table: dict[str, ModuleType]) -> list[str]:
    return sorted({m.NAME for m in table.values()})


def _unique(table: dict[str, ModuleType]) -> list[ModuleType]:
    return list(dict.fromkeys(table.values()))


def _described(command: ModuleType) -> str:
    """The command's use (whole: it is what to type), and what it does indented under it, wrapped."""
    return "\n".join([command.USAGE, *_wrapped(command.HELP, indent="    ")])


def _wrapped(text: str, indent: str = "") -> list[str]:
    return textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent or "  ",
                         break_long_words=False, break_on_hyphens=False) or [""]
