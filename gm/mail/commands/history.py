"""HISTORY: the results of the phases played so far in your game (a player sees the public
orders and their own secret allocations; the game's GM sees every one, and what is on file for
the phase under way)."""
from __future__ import annotations

from typing import Any

from gm.i18n import _
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.overview import orders_on_file
from gm.lifecycle.phases import history
from gm.mail.commands import Context, Lines
from gm.view.reader import GM, Reader, is_secret  # noqa: F401 - is_secret: what HISTORY hides, named here too

NAME = "HISTORY"
USAGE = "HISTORY"
HELP = _("the results of every phase played so far (RESULTS shows one in full)")

def entries_for(report: dict[str, Any], power: str | None, *, gm: bool = False) -> list[dict[str, Any]]:
    """What `power` may see of a phase's orders (gm.view.reader): every public one, and its own
    secret allocations (never another power's); with `gm`, the GM's view: every one."""
    return (GM if gm else Reader.player(power)).entries(report)


def run(ctx: Context, args: list[str], line: str) -> None:
    gm = ctx.master is not None and ctx.game is not None  # signed on as the game's GM
    if not gm and not ctx.signed_on(line):
        return
    power = None if gm else ctx.player.power
    blocks = []
    for p in history(ctx.session, ctx.game):
        entries = entries_for(p.results_json or {}, power, gm=gm)
        shown = [f"  {e['power']}: {e['order']} -> {e['result']}" for e in entries]
        blocks.append(Lines([phase_name(p.label), *shown]))
    if gm:
        on_file = orders_on_file(ctx.session, ctx.game, ctx.phase(), on_file=ctx.lookups.on_file)
        if on_file:
            blocks.append(Lines(on_file))
    ctx.add_section(_("History of {game}", game=ctx.game.name),
                    Lines(blocks, "\n\n") if blocks else _("no phase has been played yet"))
    ctx.accept(line, _("see below"))
