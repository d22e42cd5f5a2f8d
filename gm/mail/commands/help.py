"""HELP [command | ALL]: how to play in a few lines and the commands' names; one command's use; or
every command with its use. Each line fits a phone's mail client (78 characters)."""
from __future__ import annotations

import textwrap
from types import ModuleType

from gm.i18n import Written, _, translated
from gm.mail.commands import Context, Lines, master_registry, registry

NAME = "HELP"
USAGE = "HELP [command | ALL]"
HELP = _("how to play, and the commands; HELP <command> for one, HELP ALL for every one with its use")
WIDTH = 78

# TRANSLATORS: keep the commands and orders as they are, and the second column aligned
_HOW = _("""\
To play:         JOIN <game> <power> <password>
To send orders:  SIGNON <power> <game> <password>, then one order a line:
                 A Par - Bur, F Lon S A Wal - Bel, Build A Par
Secret points:   DP <n> <order>, for a minor power's unit (some variants)""")


def run(ctx: Context, args: list[str], line: str) -> None:
    players = registry()
    masters = master_registry() if ctx.master is not None else {}
    asked = " ".join(args).upper()
    if not asked:
        text: list[object] = [_HOW, "", wrapped(_("Commands: {commands}", commands=", ".join(_names(players))))]
        if masters:
            text.append(wrapped(_("GM commands: {commands}", commands=", ".join(_names(masters)))))
        text.append(wrapped(_("HELP <command> shows one command's use (HELP SIGNON); HELP ALL shows every one.")))
        ctx.add_section(_("Commands"), Lines(text))
    elif asked == "ALL":
        ctx.add_section(_("Commands"), Lines(_described(m) for m in _unique(players)))
        if masters:
            ctx.add_section(_("GM commands"), Lines(_described(m) for m in _unique(masters)))
    else:
        found = [m for table in (players, masters) for m in _unique(table)
                 if asked in (m.NAME, *getattr(m, "ALIASES", ())) or m.NAME.startswith(asked + " ")]
        if not found:
            ctx.reject(line, _("no command {command}: HELP lists the commands", command=repr(asked)))
            return
        ctx.add_section(f"HELP {asked}", Lines(_described(m) for m in dict.fromkeys(found)))
    ctx.accept(line, _("see below"))


def _names(table: dict[str, ModuleType]) -> list[str]:
    return sorted({m.NAME for m in table.values()})


def _unique(table: dict[str, ModuleType]) -> list[ModuleType]:
    return list(dict.fromkeys(table.values()))


def _described(command: ModuleType) -> Lines:
    """The command's use (whole: it is what to type), and what it does indented under it, wrapped."""
    return Lines([command.USAGE, wrapped(command.HELP, indent="    ")])


def wrapped(text: object, indent: str = "") -> Written:
    """`text` wrapped to WIDTH once it is written in the reader's language (a translation is
    longer or shorter than the English), its lines after the first indented."""
    return Written(_wrapped_in, text, indent)


def _wrapped_in(language: str, text: object, indent: str) -> str:
    return _wrapped(translated(text, language), indent)


def _wrapped(text: str, indent: str = "") -> str:
    return "\n".join(textwrap.wrap(text, WIDTH, initial_indent=indent, subsequent_indent=indent or "  ",
                                   break_long_words=False, break_on_hyphens=False) or [""])
