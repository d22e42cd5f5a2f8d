"""The GM's commands: one module each, read only after SIGNON MASTER <game> <password> (see
gm.mail.commands). Each is recorded in the game's audit log with the mail it came in."""
from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlalchemy.orm import Session

from gm.games import CurrentPhase, current_phase
from gm.i18n import ENGLISH, _, translated
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.overview import columns, failing_mail, orders_on_file, powers_at_a_glance, status_word
from gm.mail.commands import Context, Lookups, command_for, orders
from gm.mail.outgoing.game_mail import one_notice_each, thread_id
from gm.mail.outgoing.mail_maps import map_attachment, reader_palette
from gm.mail.outgoing.reply import render_notice
from gm.maps.art import has_art
from gm.mail.intake.message import InboundMessage
from gm.view.languages import languages_of
from gm.store.models import Game, Master, OutboundMail, Player, new_message_id
from gm.store.passwords import PasswordVerifier
from gm.view.results import moment_text


OPERATOR = "operator (command line)"  # who acts, in the audit log, for `gm game master` on the server


def gm_language(ctx: Context, address: str | None = None) -> str:
    """The language the GM signed on (or `address`) reads this mail's answer in; on the command
    line (`gm game master`), which prints in English, English."""
    return ENGLISH if ctx.message.sender == OPERATOR else ctx.language(address)


def mail_welcome(ctx: Context, game: Game, player: Player, current: CurrentPhase | None,
                 write: Callable[[str], str]) -> None:
    """A player's welcome to `game` (REPLACE, IMPORT), threaded with the game's other mail: the
    text `write` makes in the player's language, with the map of the phase under way where the
    game's mail carries maps (the outbox sender draws it)."""
    attachments = None
    if current is not None and has_art(game.variant):
        attachments = [map_attachment(current.row, "position", reader_palette(game, player),
                                      f"{game.name}-position.png")]
    lang = ctx.language(player.email)
    thread = thread_id(game, ctx.gm_address)
    ctx.session.add(OutboundMail(
        to_addr=player.email, subject=translated(_("{game}: you play {power}", game=game.name, power=player.power), lang),
        body_text=render_notice("announcement", lang, game=game.name, text=write(lang)), attachments=attachments,
        in_reply_to=thread, references=thread, game_id=game.id, kind="notice",
        message_id=new_message_id(ctx.gm_address.rpartition("@")[2])))


def heading(title: str, language: str) -> list[str]:
    """A heading in a mail's text, in `language`, underlined as long as it is written there."""
    written = translated(title, language)
    return [written, "-" * len(written)]


def overview(ctx: Context) -> tuple[str, str] | None:
    """What a GM's acknowledgement ends with: the game's phase and deadline, each power's player
    and whether its orders are in, then every order and secret allocation on file (the GM's eyes
    only: this section goes to the GM's address alone, written in the GM's language)."""
    game = ctx.game
    if ctx.master is None or game is None:
        return None
    ctx.session.flush()
    lang = gm_language(ctx, ctx.master.email)
    current = current_phase(ctx.session, game)
    deadline = moment_text(game.deadline_at, rules_of(game.options).timezone)
    head = _("{game} ({variant}), {status}", game=game.name, variant=game.variant, status=status_word(game.status))
    if current is not None:
        head = _("{game} ({variant}), {status}, {phase}; deadline {deadline}", game=game.name, variant=game.variant,
                 status=status_word(game.status), phase=phase_name(current.row.label), deadline=deadline)
        if game.paused_at:
            head = _("{text} (paused)", text=head)
        if current.row.held_to_deadline:
            head = _("{text} (held: the phase ends then even if every order is in)", text=head)
    on_file = [translated(line, lang) for line in orders_on_file(ctx.session, game, current,
                                                                  on_file=ctx.lookups.on_file)]
    failing = [translated(line, lang) for line in failing_mail(ctx.session, game)]
    glance = columns(powers_at_a_glance(ctx.session, game, language=lang))
    return translated(_("{game} now", game=game.name), lang), "\n".join(
        [translated(head, lang), *glance, *([""] if failing else []), *failing, *([""] if on_file else []), *on_file])


def run_as_operator(session: Session, game: Game, lines: Sequence[str], *, gm_address: str) -> Context:
    """Carry out GM command lines on the server itself (`gm game master`, `gm game process`, ...):
    the same commands as by mail, as a GM who needs no password, in the caller's transaction.
    The mail they queue (results, announcements, notices) goes out with the outbox; what the
    acknowledgement would say is in the context returned."""
    message = InboundMessage(message_id="<operator@localhost>", sender=OPERATOR, reply_to=OPERATOR, subject="",
                             text="\n".join(lines), automatic=None, soft_automatic=False, size=0, in_reply_to=None,
                             references=())
    # The game's row locked, and read again under the lock: the scheduler of a running gm serve
    # skips a locked game, so that a phase is never adjudicated by both.
    session.refresh(game, with_for_update=True)
    lookups = Lookups(session)
    ctx = Context(session=session, message=message, record_mail=lambda: None, verifier=PasswordVerifier(),
                  lookups=lookups, gm_address=gm_address)
    ctx.sign_on_master(Master(game_id=game.id, email=OPERATOR), game)
    with one_notice_each(session):  # what the lines change, told in one notice a reader, as by mail
        for line in lines:
            if ctx.in_block(line):
                continue
            command, args = command_for(line, master=True)
            if command is None:
                ctx.reject(line, _("not a GM command (gm game master NAME HELP lists them)"))
                continue
            orders.write_orders(session, lookups)
            command.run(ctx, args, line)
        ctx.close_block()
    orders.write_orders(session, lookups)
    glance = overview(ctx)
    if glance is not None:
        ctx.sections.append(glance)
    queue_operator_mail(session, ctx, game)
    return ctx


def queue_operator_mail(session: Session, ctx: Context, game: Game) -> None:
    """What commands run on the server queued, to the outbox (by mail, ingest queues it with the
    acknowledgement): the notices, and the confirmation codes (PROMOTE's, an import's players'),
    each subject in its reader's language as the text is."""
    domain = ctx.gm_address.rpartition("@")[2]
    lang = languages_of(session, [to for to, *_rest in [*ctx.notices, *ctx.codes]], game)
    for to, subject, text, kind in ctx.notices:
        session.add(OutboundMail(to_addr=to, subject=translated(subject, lang[to]), body_text=text, kind=kind,
                                 game_id=game.id, message_id=new_message_id(domain)))
    for to, subject, text, game_id, unproven in ctx.codes:
        session.add(OutboundMail(to_addr=to, subject=translated(subject, lang[to]), body_text=text, kind="confirm",
                                 game_id=game_id, unproven=unproven, message_id=new_message_id(domain)))
