"""PREVIEW: adjudicate the current phase without keeping anything; the would-be results go to the
GMs only."""
from __future__ import annotations

from gm.games import GameError, masters
from gm.i18n import _
from gm.lifecycle import phases
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.timing import under_way
from gm.mail.commands import Context, reason
from gm.mail.commands.master import OPERATOR, gm_language
from gm.mail.outgoing.game_mail import preview_mails, queue_preview
from gm.view.languages import languages_of
from gm.store.models import utcnow

NAME = "PREVIEW"
USAGE = "PREVIEW"
HELP = _("adjudicate the current phase without keeping anything: the would-be results go to the GM only")


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
    now = utcnow()
    to = masters(session, game)
    # Each GM's mail in their language; the command line's section in its own.
    mine = gm_language(ctx)
    languages = [mine, *languages_of(session, to, game).values()]
    # What PROCESS would do, in a savepoint that is then rolled back: the results are read, and
    # the game, its orders and the outbox are as they were.
    trial = session.begin_nested()
    try:
        ended = phases.end_phase(session, game, now, players=phases.players_by_power(session, game))
        translations = preview_mails(session, game, label, ended, languages)
    finally:
        trial.rollback()
        ctx.lookups.forget()
    subject, text = translations[mine]
    queue_preview(session, game, subject, text, gm_address=ctx.gm_address, now=now, translations=translations)
    ctx.audit("preview", {"phase": label})
    if ctx.message.sender == OPERATOR:  # on the command line: shown there too
        ctx.add_section(_("Preview of {phase} in {game} (nothing kept)", phase=phase_name(label), game=game.name), text)
    if to:
        ctx.accept(line, _("the would-be results of {phase} are mailed to {addresses} only; nothing was kept: the game "
                           "is still in {phase}", phase=phase_name(label), addresses=", ".join(to)))
    else:
        ctx.accept(line, _("the would-be results of {phase} are mailed to nobody (the game has no GM address); "
                           "nothing was kept: the game is still in {phase}", phase=phase_name(label)))
