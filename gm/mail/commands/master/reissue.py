"""REISSUE: mail every player the corrected position, marked as a GM correction, with what changed."""
from __future__ import annotations

from gm.games import GameError
from gm.lifecycle.edits import unissued_edits
from gm.lifecycle.timing import under_way
from gm.mail.commands import Context
from gm.mail.outgoing.game_mail import queue_correction
from gm.store.models import utcnow

NAME = "REISSUE"
USAGE = "REISSUE"
HELP = "mail every player the corrected position, marked as a GM correction, with what changed"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if args:
        ctx.reject(line, f"usage: {USAGE}")
        return
    game, session = ctx.game, ctx.session
    try:
        label = under_way(session, game).row.label
    except GameError as e:
        ctx.reject(line, str(e))
        return
    edits = unissued_edits(session, game)
    if not edits:
        ctx.reject(line, "nothing to reissue: no position edit (SET UNIT, REMOVE UNIT, SET OWNER, SET HOME, "
                         "SET PHASE) since the last results, rollback or REISSUE")
        return
    changes = [str(e.detail["change"]) for e in edits if e.detail]
    withdrawn = [(w["power"], w["order"]) for e in edits if e.detail for w in e.detail.get("withdrawn", [])]
    queue_correction(session, game, changes, withdrawn, gm_address=ctx.gm_address, now=utcnow())
    ctx.audit("reissue", {"phase": label, "changes": changes})
    ctx.accept(line, f"the corrected position of {label} ({len(changes)} change{'s' if len(changes) > 1 else ''}) "
                     "went to every player and GM")
