"""SUMMARY: the position of your game now: units and centres of every power; once the game is
over, the position it ended in. The game's GM signed on sees every order and secret allocation on
file for the phase under way with it."""
from __future__ import annotations

from gm.engine.model import GameState
from gm.games import variant_of
from gm.lifecycle.overview import orders_on_file
from gm.lifecycle.phases import position_at_end
from gm.mail.commands import Context

NAME = "SUMMARY"
USAGE = "SUMMARY"
HELP = "the current position (once the game is over, the final one): every power's units and supply centres"


def run(ctx: Context, args: list[str], line: str) -> None:
    gm = ctx.master is not None and ctx.game is not None  # signed on as the game's GM
    if not gm and not ctx.signed_on(line):
        return
    game = ctx.game
    phase = ctx.phase()
    final = position_at_end(ctx.session, game)
    if final is not None:
        label = f"after {final.row.label}" if final.after_results else final.row.label
        lines = [f"The final position ({game.outcome or 'the game is over'}), {label}", *position_lines(final.state)]
    elif phase is not None:
        lines = [phase.row.label, *position_lines(phase.state)]
        if gm:
            lines += ["", *orders_on_file(ctx.session, game, phase, on_file=ctx.lookups.on_file)]
    else:
        ctx.reject(line, f"{game.name} has not started")
        return
    ctx.add_section(f"Summary of {game.name} ({variant_of(game).title})", "\n".join(lines))
    ctx.accept(line, "see below")


def position_lines(state: GameState) -> list[str]:
    """Each power's units and supply centres, a line each."""
    owners = sorted({u.power for u in state.units.values()} | set(state.supply_centres.values()))
    lines = []
    for power in owners:
        units = ", ".join(sorted(str(u) for u in state.units_of(power))) or "-"
        centres = state.centres_of(power)
        lines.append(f"  {power}: {units}; {len(centres)} centres ({', '.join(centres)})")
    return lines
