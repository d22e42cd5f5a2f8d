"""SET UNIT <power> <unit>: put a unit on the board, replacing whatever stands there."""
from __future__ import annotations

from collections.abc import Callable

from sqlalchemy.orm import Session

from gm.games import GameError
from gm.i18n import _
from gm.lifecycle.edits import Edit, set_unit
from gm.mail.commands import Context, reason
from gm.store.models import Game

NAME = "SET UNIT"
USAGE = "SET UNIT <power> <unit>"
HELP = _("put a unit on the board (A Par, F Stp/nc), replacing whatever stands there")


def run(ctx: Context, args: list[str], line: str) -> None:
    run_edit(ctx, args, line, "set unit", set_unit)


def run_edit(ctx: Context, args: list[str], line: str, action: str,
             edit: Callable[[Session, Game, list[str]], Edit]) -> None:
    """A position edit (SET UNIT, REMOVE UNIT, SET OWNER, SET HOME, SET PHASE): made, audited with
    before and after, and acknowledged with the orders it withdrew. REISSUE tells the players."""
    if not ctx.is_master(line):
        return
    try:
        done = edit(ctx.session, ctx.game, args)
    except GameError as e:
        ctx.reject(line, reason(e))
        return
    ctx.lookups.forget()
    ctx.audit(action, done.audit_detail())
    detail = done.change
    if done.withdrawn:
        detail = _("{change}; withdrawn, as they no longer fit: {orders}", change=done.change,
                   orders="; ".join(f"{p}: {o}" for p, o in done.withdrawn))
    ctx.accept(line, _("{text} (REISSUE tells the players)", text=detail))
