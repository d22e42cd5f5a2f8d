"""HELP: the commands this judge understands."""
from __future__ import annotations

from gm.mail.commands import Context, master_registry, registry

NAME = "HELP"
USAGE = "HELP"
HELP = "this list"


def run(ctx: Context, args: list[str], line: str) -> None:
    lines = [f"{m.USAGE}\n    {m.HELP}" for m in registry().values()]
    lines.append(
        "<order>\n    any other line is an order for the game you signed on to, e.g. A Par - Bur,"
        " F Lon S A Wal - Bel, Build A Par\n"
        "DP <n> <order>\n    put n secret points behind an order for a minor power's unit (variants"
        " with minor powers)"
    )
    ctx.add_section("Commands", "\n".join(lines))
    if ctx.master is not None:
        ctx.add_section("GM commands", "\n".join(f"{m.USAGE}\n    {m.HELP}" for m in master_registry().values()))
    ctx.accept(line, "see below")
