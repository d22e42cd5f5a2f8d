"""SUMMARY: the position of your game now: units and centres of every power."""
from __future__ import annotations

from gm.games import variant_of
from gm.mail.commands import Context

NAME = "SUMMARY"
USAGE = "SUMMARY"
HELP = "the current position: every power's units and supply centres"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    phase = ctx.phase()
    if phase is None:
        ctx.reject(line, f"{ctx.game.name} has not started")
        return
    variant, state = variant_of(ctx.game), phase.state
    owners = sorted({u.power for u in state.units.values()} | set(state.supply_centres.values()))
    lines = [phase.row.label]
    for power in owners:
        units = ", ".join(sorted(str(u) for u in state.units_of(power))) or "-"
        centres = state.centres_of(power)
        lines.append(f"  {power}: {units}; {len(centres)} centres ({', '.join(centres)})")
    ctx.add_section(f"Summary of {ctx.game.name} ({variant.title})", "\n".join(lines))
    ctx.accept(line, "see below")
