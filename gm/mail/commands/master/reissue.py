"""REISSUE: mail every player the corrected position, marked as a GM correction, with what changed."""
from __future__ import annotations

from gm.games import GameError
from gm.i18n import _, _n
from gm.lifecycle.edits import unissued_edits
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.timing import under_way
from gm.mail.commands import Context, reason
from gm.mail.outgoing.game_mail import queue_correction
from gm.store.models import utcnow

NAME = "REISSUE"
USAGE = "REISSUE"
HELP = _("mail every player the corrected position, marked as a GM correction, with what changed")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if args:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    game, session = ctx.game, ctx.session
    try:
        label = under_way(session, game).row.label
    except GameError as e:
        ctx.reject(line, reason(e))
        return
    edits = unissued_edits(session, game)
    if not edits:
        ctx.reject(line, _("nothing to reissue: no position edit (SET UNIT, REMOVE UNIT, SET OWNER, SET HOME, "
                           "SET PHASE) since the last results, rollback or REISSUE"))
        return
    changes = [str(e.detail["change"]) for e in edits if e.detail]
    withdrawn = [(w["power"], w["order"]) for e in edits if e.detail for w in e.detail.get("withdrawn", [])]
    queue_correction(session, game, changes, withdrawn, gm_address=ctx.gm_address, now=utcnow())
    ctx.audit("reissue", {"phase": label, "changes": changes})
    ctx.accept(line, _n("the corrected position of {phase} ({count} change) went to every player and GM",
                        "the corrected position of {phase} ({count} changes) went to every player and GM",
                        len(changes), phase=phase_name(label)))
