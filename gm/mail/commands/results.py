"""RESULTS [phase]: the results of a past phase again, as they were mailed (your own secret
allocations with them, nobody else's)."""
from __future__ import annotations

from sqlalchemy import select

from gm.games import variant_of
from gm.i18n import _
from gm.lifecycle.phase_names import find_phase, phase_name, read_phase
from gm.lifecycle.phases import position
from gm.mail.commands import Context
from gm.mail.outgoing.game_mail import results_text
from gm.mail.outgoing.reply import without_heading
from gm.store.models import GamePhase

NAME = "RESULTS"
USAGE = "RESULTS [phase]   (e.g. RESULTS Spring 1901, RESULTS F1901M, RESULTS Fall 1901 retreats)"
HELP = _("the results of a past phase again; without a phase, of the last one adjudicated")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    game, power = ctx.game, ctx.player.power
    variant = variant_of(game)
    if args:
        phase = read_phase(variant, " ".join(args))
        if phase is None:
            ctx.reject(line, _("{phase} is no phase: usage: {usage}", phase=repr(" ".join(args)), usage=USAGE))
            return
        label = variant.phase_label(phase)
        row = find_phase(ctx.session, game, phase, variant)
        if row is None:
            ctx.reject(line, _("{game} has had no phase {phase}", game=game.name, phase=phase_name(label)))
            return
        if row.adjudicated_at is None or not row.results_json:
            ctx.reject(line, _("{phase} has not been adjudicated yet: it is the phase under way",
                               phase=phase_name(label)))
            return
    else:
        row = ctx.session.scalar(
            select(GamePhase).where(GamePhase.game_id == game.id, GamePhase.adjudicated_at.is_not(None))
            .order_by(GamePhase.seq.desc()).limit(1))
        if row is None or not row.results_json:
            ctx.reject(line, _("no phase of {game} has been adjudicated yet", game=game.name))
            return
    text = results_text(game, variant, row.results_json, viewer=power, gm=False, before=position(row),
                        language=ctx.language())
    text = without_heading(text)  # the acknowledgement it goes in has its own
    ctx.add_section(_("Results of {phase} in {game}", phase=phase_name(row.label), game=game.name), text)
    ctx.accept(line, _("{phase}: see below", phase=phase_name(row.label)))
