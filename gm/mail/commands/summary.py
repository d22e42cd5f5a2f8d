"""SUMMARY: the position of your game now: units and centres of every power; once the game is
over, the position it ended in. The game's GM signed on sees every order and secret allocation on
file for the phase under way with it."""
from __future__ import annotations

from gm.engine.model import GameState
from gm.games import variant_of
from gm.i18n import _, _n
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.overview import orders_on_file
from gm.lifecycle.phases import position_at_end
from gm.lifecycle.ending import outcome_text
from gm.mail.commands import Context, Lines

NAME = "SUMMARY"
USAGE = "SUMMARY"
HELP = _("the current position (once the game is over, the final one): every power's units and supply centres")


def run(ctx: Context, args: list[str], line: str) -> None:
    gm = ctx.master is not None and ctx.game is not None  # signed on as the game's GM
    if not gm and not ctx.signed_on(line):
        return
    game = ctx.game
    phase = ctx.phase()
    final = position_at_end(ctx.session, game)
    if final is not None:
        outcome = outcome_text(game.outcome) or _("the game is over")
        label = phase_name(final.row.label)
        lines: list[object] = [
            _("The final position ({outcome}), after {phase}", outcome=outcome, phase=label) if final.after_results
            else _("The final position ({outcome}), {phase}", outcome=outcome, phase=label),
            *position_lines(final.state)]
    elif phase is not None:
        lines = [phase_name(phase.row.label), *position_lines(phase.state)]
        if gm:
            lines += ["", *orders_on_file(ctx.session, game, phase, on_file=ctx.lookups.on_file)]
    else:
        ctx.reject(line, _("{game} has not started", game=game.name))
        return
    ctx.add_section(_("Summary of {game} ({variant})", game=game.name, variant=variant_of(game).title), Lines(lines))
    ctx.accept(line, _("see below"))


def position_lines(state: GameState) -> list[object]:
    """Each power's units and supply centres, a line each."""
    owners = sorted({u.power for u in state.units.values()} | set(state.supply_centres.values()))
    lines: list[object] = []
    for power in owners:
        units = ", ".join(sorted(str(u) for u in state.units_of(power))) or "-"
        centres = state.centres_of(power)
        # TRANSLATORS: a power's units, then its supply centres: 'France: A PAR, F BRE; 2 centres (BRE, PAR)'
        lines.append(Lines(["  ", _n("{power}: {units}; {count} centre ({centres})",
                                     "{power}: {units}; {count} centres ({centres})", len(centres),
                                     power=power, units=units, centres=", ".join(centres))], ""))
    return lines
