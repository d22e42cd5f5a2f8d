"""One inbound mail, processed exactly once: record it, carry out its commands, queue the reply.

Everything a mail does happens in one transaction: the inbound_mail row (unique by Message-ID
and by IMAP UIDVALIDITY/UID), the orders and other changes its commands make, and the reply in the
outbox. The IMAP watcher marks the mail \\Seen only after that commit, so a crash at any point
either loses nothing (the mail is fetched again) or finds the mail already recorded.
"""
from __future__ import annotations

import logging
from dataclasses import dataclass

from sqlalchemy import or_, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from gm.games import allocations_on_file, orders_on_file, units_without_orders, variant_of
from gm.mail.commands import Context, command_for, orders
from gm.mail.message import InboundMessage, command_lines, read_message
from gm.mail.reply import PowerStatus, render_ack
from gm.store.db import transaction
from gm.store.models import InboundMail, OutboundMail, new_message_id, utcnow
from gm.store.passwords import PasswordVerifier

log = logging.getLogger(__name__)

MAX_LINES = 500  # more lines than any order mail needs: the rest is not read


@dataclass(frozen=True)
class IngestOutcome:
    inbound_id: int | None  # the inbound_mail row; None when the mail was already processed
    outcome: str  # 'processed', 'duplicate', 'automatic: ...', 'too large', ...
    replies: int  # outbox rows queued (0 for mail that is never answered)


def ingest(
    session_factory: sessionmaker[Session],
    raw: bytes,
    *,
    gm_address: str,
    uidvalidity: int | None = None,
    uid: int | None = None,
    max_size: int = 1_000_000,
    verifier: PasswordVerifier | None = None,
) -> IngestOutcome:
    """Process one mail in ONE transaction. A mail seen before (same Message-ID, or same
    UIDVALIDITY and UID) changes nothing and returns 'duplicate'. Safe to call from a worker
    thread; never raises for anything the mail contains (a database error does raise: the mail is
    then left for a later attempt)."""
    # A mail over the size limit is not read: its headers are enough to refuse it.
    message = read_message(raw if len(raw) <= max_size else _headers_of(raw))
    verifier = verifier or PasswordVerifier()
    try:
        with transaction(session_factory) as session:
            if _seen_before(session, message, uidvalidity, uid):
                return IngestOutcome(None, "duplicate", 0)
            inbound = InboundMail(
                message_id=message.message_id,
                imap_uidvalidity=uidvalidity,
                imap_uid=uid,
                sender=message.sender[:320],
                raw=raw,
                size=len(raw),
            )
            session.add(inbound)
            session.flush()
            outcome, reply = _process(session, message, inbound, raw, max_size, verifier)
            inbound.outcome = outcome[:255]
            inbound.processed_at = utcnow()
            replies = 0
            if reply is not None and message.reply_to and message.reply_to != gm_address.lower():
                session.add(
                    OutboundMail(
                        message_id=new_message_id(gm_address.rpartition("@")[2] or None),
                        to_addr=message.reply_to,
                        subject=_reply_subject(message.subject),
                        body_text=reply,
                        in_reply_to=message.message_id,
                        inbound_id=inbound.id,
                        kind="ack",
                    )
                )
                replies = 1
            return IngestOutcome(inbound.id, outcome, replies)
    except IntegrityError:
        # Another process recorded the same mail between our check and our commit.
        return IngestOutcome(None, "duplicate", 0)


def _headers_of(raw: bytes) -> bytes:
    for sep in (b"\r\n\r\n", b"\n\n"):
        head, found, _ = raw.partition(sep)
        if found:
            return head + sep
    return raw[:64_000]


def _seen_before(session: Session, message: InboundMessage, uidvalidity: int | None, uid: int | None) -> bool:
    same = InboundMail.message_id == message.message_id
    if uid is not None:
        same = or_(same, (InboundMail.imap_uidvalidity == uidvalidity) & (InboundMail.imap_uid == uid))
    return session.scalar(select(InboundMail.id).where(same).limit(1)) is not None


def _process(
    session: Session,
    message: InboundMessage,
    inbound: InboundMail,
    raw: bytes,
    max_size: int,
    verifier: PasswordVerifier,
) -> tuple[str, str | None]:
    """What became of the mail, and the acknowledgement text (None: no reply at all)."""
    if message.automatic:
        return f"automatic: {message.automatic}", None
    if not message.sender:
        return "no sender", None
    if len(raw) > max_size:
        refused = (
            f"Your mail is {len(raw):,} bytes long; this judge reads mail up to {max_size:,} bytes.\n"
            "Nothing in it was read. Send your orders as plain text, without attachments."
        )
        return "too large", render_ack(message.subject, [], None, [], refused=refused)
    ctx = Context(session=session, message=message, inbound=inbound, verifier=verifier)
    for line in command_lines(message.text)[:MAX_LINES]:
        command, args = command_for(line)
        try:
            if command is None:
                orders.run(ctx, line)
            else:
                orders.write_orders(ctx)  # a command may read or withdraw them (CLEAR)
                with session.begin_nested():  # a command that fails undoes only itself
                    command.run(ctx, args, line)
        except Exception:  # a bug must not lose the rest of the mail, nor crash the judge
            log.exception("command failed: %r", line)
            ctx.reject(line, "the judge could not carry this out (the GM has been told)")
        if ctx.signed_off:
            break
    orders.write_orders(ctx)
    return "processed", render_ack(message.subject, ctx.results, _status(ctx), ctx.sections)


def _status(ctx: Context) -> PowerStatus | None:
    if ctx.player is None or ctx.game is None or ctx.player.power is None:
        return None
    phase = ctx.phase()
    if phase is None:
        return None
    variant = variant_of(ctx.game)
    power = ctx.player.power
    orders = orders_on_file(ctx.session, phase.row, power)
    allocations = allocations_on_file(ctx.session, phase.row, power)
    points = variant.rules.points_available(variant, phase.state, power)
    return PowerStatus(
        power=power,
        game=ctx.game.name,
        phase=phase.row.label,
        orders=[o.canonical for o in orders],
        missing=units_without_orders(phase.state, power, orders),
        allocations=[a.canonical for a in allocations],
        points=points,
        used=sum(a.points for a in allocations),
    )


def _reply_subject(subject: str) -> str:
    if not subject:
        return "gm: your orders"
    return subject if subject.lower().startswith("re:") else f"Re: {subject}"
