"""Inbound mail, each processed exactly once: record it, carry out its commands, queue the reply.

Everything a mail does happens in the transaction that records it: the inbound_mail row (unique
by its dedup key, Message-ID, sender and text, and by IMAP UIDVALIDITY/UID), the orders and other
changes its commands make, and the replies in the outbox. The IMAP watcher marks mail \\Seen only
after that commit, so a crash at any point either loses nothing (the mail is fetched again) or
finds the mail already recorded.

A burst of mail is taken in batches: one transaction for the batch (one commit, each game, phase
and player read once, the orders of all its mails written together). Should anything in a batch
raise, the batch is done again with a savepoint per mail, so that a mail that fails is undone
alone and left for a later attempt while the others are kept; a mail that fails alone again and
again is recorded as failed and its sender told.

Who is answered, and with what (gm.mail.budget): a mail that signs on is acknowledged at the
registered address of each power it signed on as, whatever address it came from, each address
shown only the lines that acted for its own power; any other sender gets a short fixed notice,
never the text it contained, the same whether a password it gave was right or wrong; and each
kind of mail to an address has its own hourly budget.
"""
from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from sqlalchemy import insert, or_, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from gm.engine.model import PhaseKind
from gm.games import units_without_orders, variant_of
from gm.i18n import _, translated
from gm.mail import budget, prepared
from gm.mail.intake import auth
from gm.mail.commands import confirmations
from gm.mail.outgoing import press, undelivered
from gm.mail.intake import dkim as dkim_check
from gm.mail.commands import Context, Lookups, command_for, is_master_command, orders, passwords_in
from gm.mail.commands import confirm as confirm_command
from gm.mail.commands.master import overview as master_overview
from gm.mail.outgoing.game_mail import gathered, one_notice_each
from gm.mail.intake.bounce import read_bounce
from gm.mail.intake.message import InboundMessage, command_lines, read_message
from gm.mail.intake.provenance import Proof, Provenance
from gm.mail.intake.redact import redact
from gm.mail.outgoing.reply import PowerStatus, render_ack, render_notice, reply_subject
from gm.lifecycle import leaving
from gm.lifecycle.ending import outcome_text
from gm.lifecycle.overview import status_word
from gm.lifecycle.phase_names import phase_name
from gm.store import failing
from gm.store.db import transaction
from gm.view.languages import language_of
from gm.store.models import (
    Confirmation,
    GameStatus,
    InboundMail,
    Master,
    OrderRecord,
    OutboundMail,
    Player,
    SecretAllocation,
    dedup_key,
    new_message_id,
    utcnow,
)
from gm.store.passwords import PasswordVerifier

log = logging.getLogger(__name__)

MAX_LINES = budget.MAX_LINES
REPLIES_PER_HOUR = budget.REPLIES_PER_HOUR
GIVE_UP_AFTER = 5  # attempts at a mail that fails alone before it is recorded as failed


@dataclass(frozen=True)
class IngestOutcome:
    inbound_id: int | None  # the inbound_mail row; None when the mail was not recorded (now)
    outcome: str  # 'processed', 'duplicate', 'automatic: ...', 'too large', 'failed: ...'
    replies: int  # outbox rows queued (0 for mail that is never answered)
    error: Exception | None = None  # why the mail failed: it is left for a later attempt

    @property
    def failed(self) -> bool:
        return self.error is not None


@dataclass(frozen=True)
class Fetched:
    """One mail as the IMAP watcher fetched it: its UID (None when it came another way), its bytes
    and its size (the server's figure: of a mail over the size limit only the header is fetched),
    and how often ingest failed on it before."""

    uid: int | None
    raw: bytes
    size: int | None = None  # None: len(raw)
    attempts: int = 0

    @property
    def full_size(self) -> int:
        return len(self.raw) if self.size is None else max(self.size, len(self.raw))


@dataclass(frozen=True)
class Outgoing:
    """A mail to queue in answer to one taken in."""

    to: str
    subject: str
    text: str
    kind: str  # 'ack', 'notice', 'answer', 'press', 'confirm', ... (see gm.mail.budget)
    attachments: list[dict[str, str]] | None = None  # see gm.mail.outgoing.outbox.build_message
    game_id: int | None = None  # the game a code is for (gm.mail.budget counts them by game)
    unproven: bool | None = None  # a code: whether its address proved nothing (settled when it was made)


def ingest(
    session_factory: sessionmaker[Session],
    raw: bytes,
    *,
    gm_address: str,
    uidvalidity: int | None = None,
    uid: int | None = None,
    max_size: int = 1_000_000,
    verifier: PasswordVerifier | None = None,
    replies_per_hour: int = REPLIES_PER_HOUR,
    trusted_masters: frozenset[str] | tuple[str, ...] = (),
    dns_lookup: dkim_check.DnsLookup | None = None,
    public_url: str | None = None,
    authserv_id: str | None = None,
) -> IngestOutcome:
    """Process one mail in one transaction (see ingest_batch); raises what made it fail."""
    (outcome,) = ingest_batch(
        session_factory,
        [Fetched(uid, raw)],
        gm_address=gm_address,
        uidvalidity=uidvalidity,
        max_size=max_size,
        verifier=verifier,
        replies_per_hour=replies_per_hour,
        trusted_masters=trusted_masters,
        dns_lookup=dns_lookup,
        public_url=public_url,
        authserv_id=authserv_id,
    )
    if outcome.error is not None:
        raise outcome.error
    return outcome


def ingest_batch(
    session_factory: sessionmaker[Session],
    mails: Sequence[Fetched],
    *,
    gm_address: str,
    uidvalidity: int | None = None,
    max_size: int = 1_000_000,
    verifier: PasswordVerifier | None = None,
    replies_per_hour: int = REPLIES_PER_HOUR,
    trusted_masters: frozenset[str] | tuple[str, ...] = (),
    dns_lookup: dkim_check.DnsLookup | None = None,
    public_url: str | None = None,
    authserv_id: str | None = None,
) -> list[IngestOutcome]:
    """Process mails in ONE transaction, one outcome each, in order. A mail seen before (same
    dedup key, or same UIDVALIDITY and UID, in an earlier transaction or earlier in this batch)
    changes nothing and is a 'duplicate'. Nothing a mail contains makes this raise: a mail whose
    processing raises anyway is undone alone and comes back failed (with the error), as does
    every mail of a batch whose commit fails. Safe to call from a worker thread.

    The batch is first tried without savepoints (four statements a mail, out of about a dozen,
    that a batch almost never needs); if anything in it raises, it is rolled back and done again
    with a savepoint per mail and per command, so that only what fails is left out.

    `dns_lookup` finds the DKIM keys (name -> TXT record; None: DNS), before the transaction;
    `authserv_id` names the receiving server whose Authentication-Results are trusted (see
    gm.mail.intake.provenance; None: none is); `public_url`, where the games' web pages are published,
    for the links of results a GM's PROCESS mails."""
    if not mails:
        return []
    verifier = verifier or PasswordVerifier()
    # A mail over the size limit is not read: its headers are enough to refuse it.
    messages = [read_message(m.raw if m.full_size <= max_size else _headers_of(m.raw)) for m in mails]
    lines = [command_lines(m.text) for m in messages]
    proofs = prepared.provenances(session_factory, mails, messages, lines, max_size, dns_lookup, authserv_id)
    batch = _Batch(mails, messages, lines, uidvalidity, gm_address, max_size, verifier, replies_per_hour,
                   prepared.prehash(session_factory, mails, messages, lines, max_size, frozenset(trusted_masters), proofs),
                   frozenset(trusted_masters), proofs, public_url)
    try:
        return batch.logged(batch.run(session_factory, careful=False))
    except Exception as e:
        log.info("batch of %d mails: %s: %s; again, mail by mail", len(mails), type(e).__name__, e)
    try:
        return batch.logged(batch.run(session_factory, careful=True))
    except Exception as e:  # the commit (or the database) failed: nothing of the batch was kept
        log.exception("batch of %d mails failed; left for a later attempt", len(mails))
        return batch.logged([IngestOutcome(None, f"failed: {type(e).__name__}", 0, e) for _mail in mails])


def registered_addresses(session_factory: sessionmaker[Session]) -> set[str]:
    """The addresses of every player and GM now: the inbox watcher reads their mail first."""
    with transaction(session_factory) as session:
        return set(session.scalars(select(Player.email).where(Player.left_at.is_(None)).union(
            select(Master.email).where(Master.left_at.is_(None)))))


def awaiting_addresses(session_factory: sessionmaker[Session]) -> set[str]:
    """The addresses a confirmation code was mailed to and not yet used: the inbox watcher reads
    their mail before other strangers' (few: codes are budgeted, gm.mail.budget)."""
    with transaction(session_factory) as session:
        return set(session.scalars(select(Confirmation.address).where(
            Confirmation.confirmed_at.is_(None), Confirmation.expires_at > utcnow()).distinct()))


@dataclass(frozen=True)
class _Batch:
    mails: Sequence[Fetched]
    messages: list[InboundMessage]
    lines: list[list[str]]  # the command lines of each mail
    uidvalidity: int | None
    gm_address: str
    max_size: int
    verifier: PasswordVerifier
    replies_per_hour: int
    prehashed: list[dict[str, str]]
    trusted_masters: frozenset[str]  # addresses that may CREATE a game by mail
    proofs: list[Provenance]  # what proves each mail's From address (see prepared.provenances)
    public_url: str | None = None  # where the games' web pages are published (gm.web)

    @functools.cached_property
    def keys(self) -> list[str]:
        return [dedup_key(m.message_id, m.sender, m.text) for m in self.messages]

    @functools.cached_property
    def quiet_senders(self) -> set[str]:
        """The senders of the batch that asked for no more notices (gm.lifecycle.leaving), read in run()."""
        return set()

    @functools.cached_property
    def failing_senders(self) -> set[str]:
        """The senders of the batch whose addresses are marked failing (gm.store.failing), read in run()."""
        return set()

    @functools.cached_property
    def senders(self) -> dict[int, str]:
        """Who each mail recorded came from, by index: its game, phase and role (see _Answer.who)."""
        return {}

    def logged(self, outcomes: list[IngestOutcome]) -> list[IngestOutcome]:
        """`outcomes`, once committed, each logged in one line: never an address, a password, a
        code or a word of the mail."""
        for i, outcome in enumerate(outcomes):
            number = f"#{outcome.inbound_id}" if outcome.inbound_id is not None else "(not recorded)"
            replies = f", {outcome.replies} repl{'y' if outcome.replies == 1 else 'ies'}" if outcome.replies else ""
            who = self.senders.get(i, "") if outcome.outcome != "duplicate" else ""
            log.info("mail in %s: %s%s%s", number, who and who + ": ", outcome.outcome, replies)
        return outcomes

    def run(self, session_factory: sessionmaker[Session], *, careful: bool) -> list[IngestOutcome]:
        """One transaction for the batch. Not careful: whatever raises undoes the whole batch, and
        the rows of the mail in, of the orders and of the replies are written for the whole batch
        at once (a statement each, not one a mail: on PostgreSQL each statement is a round trip).
        Careful: each mail (and each command in it) in a savepoint of its own, its rows with it."""
        with transaction(session_factory) as session:
            new = self._new(session)
            outcomes = [IngestOutcome(None, "duplicate", 0) for _mail in self.mails]
            senders = {self.messages[i].sender for i in new}
            self.failing_senders.update(failing.marks(session, senders))
            self.quiet_senders.update(leaving.quiet(session, senders))
            lookups = Lookups(session)
            if not careful:
                values = [self._inbound_values(i) for i in new]
                ids = session.connection().execute(_INSERT_INBOUNDS, values).scalars().all() if values else []
                answers = []
                for i, mail_values, inbound_id in zip(new, values, ids, strict=True):
                    row = _InboundRow(session, mail_values, inbound_id)
                    answers.append((i, *self._record(session, lookups, i, row, careful=False)))
                orders.write_orders(session, lookups)
                # The replies last: the hourly count of every address they go to, read at once.
                lookups.count_replies({out.to for *_done, outgoing in answers for out in outgoing})
                replies: list[dict[str, object]] = []
                for i, outcome, outgoing in answers:
                    outcomes[i] = self._queue(lookups, i, outcome, outgoing, replies)
                if replies:
                    session.connection().execute(_INSERT_OUTBOX, replies)
                return outcomes
            for i in new:
                try:
                    with session.begin_nested():  # a mail that fails is undone alone
                        replies = []
                        row = _InboundRow(session, self._inbound_values(i))
                        outcome = self._queue(lookups, i, *self._record(session, lookups, i, row, careful=True), replies)
                        if replies:
                            session.connection().execute(_INSERT_OUTBOX, replies)
                    outcomes[i] = outcome
                except Exception as e:
                    lookups.forget_pending()  # it may hold what was just undone
                    if isinstance(e, IntegrityError):  # recorded by another process meanwhile
                        continue  # a duplicate
                    outcomes[i] = self._failed(session, lookups, i, e)
            return outcomes

    def _new(self, session: Session) -> list[int]:
        """The indexes of the mails not recorded before, nor earlier in the batch."""
        seen_keys, seen_uids = _seen_before(session, self.keys, [m.uid for m in self.mails], self.uidvalidity)
        new = []
        for i, (mail, key) in enumerate(zip(self.mails, self.keys, strict=True)):
            if key in seen_keys or (mail.uid is not None and mail.uid in seen_uids):
                continue
            new.append(i)
            seen_keys.add(key)
            if mail.uid is not None:
                seen_uids.add(mail.uid)
        return new

    def _inbound_values(self, i: int, outcome: str | None = None) -> dict[str, object]:
        mail, message = self.mails[i], self.messages[i]
        size, max_size = mail.full_size, self.max_size
        now = utcnow()
        return {
            "message_id": message.message_id,
            "dedup_key": self.keys[i],
            "imap_uidvalidity": self.uidvalidity if mail.uid is not None else None,
            "imap_uid": mail.uid,
            "sender": message.sender,
            # Kept without the passwords it carries; too large, or failed: the header only.
            "raw": redact(mail.raw if size <= max_size and outcome is None else _headers_of(mail.raw),
                          passwords_in(message.body)),
            "size": size,
            "received_at": now,
            "processed_at": now,
            "outcome": (outcome or _outcome(message, size, max_size))[:255],
        }

    def _record(
        self,
        session: Session,
        lookups: Lookups,
        i: int,
        row: _InboundRow,
        *,
        careful: bool,
    ) -> tuple[IngestOutcome, list[Outgoing]]:
        """Carry out the commands of mail `i` in the current transaction; what became of it (no
        reply queued yet) and the replies to queue."""
        outcome = row.outcome
        answer = _Answer(self, i, row.id)
        outgoing = answer.run(session, lookups, outcome, careful)
        self.senders[i] = answer.who
        if outcome.startswith("automatic") and not outgoing:
            self._bounce(session, i, row)
        sender = self.messages[i].sender
        if sender in self.failing_senders and (answer.own_address or self.proofs[i].authenticated):
            # Mail from an address marked failing arrived, proven its own: it works again.
            failing.clear(session, sender)
            self.failing_senders.discard(sender)
        if sender in self.quiet_senders and self.proofs[i].authenticated:
            leaving.heard_again(session, sender)  # its own mail: it hears from the judge again
            self.quiet_senders.discard(sender)
        if outgoing and outcome.startswith("automatic"):
            outcome = "processed"  # list or bulk mail that signed on: a player's after all
            row.set_outcome(outcome)
        if session.new or session.dirty or session.deleted:
            session.flush()  # what the commands left to the ORM (players, audit entries)
        return IngestOutcome(row.id(), outcome, 0), outgoing

    def _bounce(self, session: Session, i: int, row: _InboundRow) -> None:
        """A delivery report among the machines' mail: recorded against the mail it returns (never answered)."""
        report = read_bounce(self.mails[i].raw)
        if report is None:
            return
        taken = undelivered.take_report(session, self.gm_address, report, row.id())
        self.senders[i] = (f"a bounce ({report.form}) of mail out #{taken.outbox_id}" if taken.outbox_id is not None
                           else f"a bounce ({report.form}) of no mail the judge sent")
        row.set_outcome(f"bounce: {'mail out #' + str(taken.outbox_id) if taken.outbox_id is not None else 'unmatched'}"
                        f"{', address marked failing' if taken.marked else ''}")

    def _queue(self, lookups: Lookups, i: int, outcome: IngestOutcome, outgoing: list[Outgoing],
               replies: list[dict[str, object]]) -> IngestOutcome:
        """Add the replies of mail `i` to `replies`, but none to the GM's own address and none past
        its budget (gm.mail.budget); the outcome with the count of those added. An acknowledgement
        past its budget becomes, once an hour, a notice that answers are paused."""
        in_reply_to = self.messages[i].message_id
        sender, authenticated = self.messages[i].sender, self.proofs[i].authenticated
        queued = 0
        for out in outgoing:
            if not out.to or out.to == self.gm_address.lower():
                continue
            if out.kind == "notice" and out.to == sender and authenticated:
                # An answer to the authenticated sender's own mail: a budget of its own, which what
                # forgers sent in that address's name never spends.
                out = replace(out, kind="answer")
            if out.kind == "confirm":  # its budgets were settled when the code was made (confirmations.request)
                unproven = bool(out.unproven)
            else:
                unproven = not (lookups.proven(out.to) or (out.to == sender and authenticated))
                if not self._within_budget(lookups, out.to, out.kind):
                    if out.kind == "ack" and self._within_budget(lookups, out.to, "paused"):
                        language = language_of(lookups.session, out.to)
                        out = Outgoing(out.to, translated(_("gm: answers paused"), language), render_notice(
                            "paused", language, per_hour=self.replies_per_hour, resume=_resume_time()), "paused")
                    else:
                        continue
                if unproven and out.kind == "notice" and out.to in self.quiet_senders:
                    continue  # the address asked for no more notices about mail sent in its name
                if unproven and budget.unproven_refusal(lookups.unproven_sent(), out.to, out.game_id,
                                                        code=False) is not None:
                    continue  # past the budgets of mail to addresses that proved nothing: none at all
                lookups.reply_queued(out.to, out.kind, unproven=unproven, game_id=out.game_id)
            replies.append(self._row(out, outcome, in_reply_to, unproven))
            queued += 1
        if queued < len(outgoing):
            log.info("mail %s: %d of %d replies withheld (hourly budget)", in_reply_to, len(outgoing) - queued,
                     len(outgoing))
        return IngestOutcome(outcome.inbound_id, outcome.outcome, queued)

    def _within_budget(self, lookups: Lookups, to: str, kind: str) -> bool:
        """Within what one address may get of `kind` an hour (gm.mail.budget.per_hour)."""
        registered = lookups.registered(to)
        return lookups.replies_sent(to, kind) < budget.per_hour(kind, registered, self.replies_per_hour)

    def _row(self, out: Outgoing, outcome: IngestOutcome, in_reply_to: str | None,
             unproven: bool) -> dict[str, object]:
        now = utcnow()
        return {
            "message_id": new_message_id(self.gm_address.rpartition("@")[2] or None),
            "to_addr": out.to,
            "subject": out.subject,
            "body_text": out.text,
            "attachments": out.attachments,
            # Only an acknowledgement (to a registered address) refers to the mail it answers: a
            # Message-ID is the sender's own text, and press is relayed as the judge's own mail.
            "in_reply_to": in_reply_to if out.kind == "ack" else None,
            "inbound_id": outcome.inbound_id,
            "game_id": out.game_id,
            "unproven": unproven,
            "kind": out.kind,
            "created_at": now,
            "next_attempt_at": now,
        }

    def _failed(self, session: Session, lookups: Lookups, i: int, error: Exception) -> IngestOutcome:
        """Mail `i` failed alone (its savepoint was undone). Left for a later attempt, unless it has
        failed so often that it is recorded as failed, with a fixed notice to its sender."""
        mail, message = self.mails[i], self.messages[i]
        log.error("mail %s failed (attempt %d): %s: %s", message.message_id, mail.attempts + 1,
                  type(error).__name__, error, exc_info=error)
        if mail.attempts + 1 < GIVE_UP_AFTER:
            return IngestOutcome(None, f"failed: {type(error).__name__}", 0, error)
        outcome = f"failed: {type(error).__name__} (gave up after {mail.attempts + 1} attempts)"
        try:
            with session.begin_nested():
                row = _InboundRow(session, self._inbound_values(i, outcome))
                replies: list[dict[str, object]] = []
                language = language_of(session, message.sender)
                text = render_notice("failed", language)
                notice = Outgoing(message.sender, translated(_("gm: your mail could not be read"), language), text,
                                  "notice")
                done = self._queue(lookups, i, IngestOutcome(row.id(), outcome, 0), [notice], replies)
                if replies:
                    session.connection().execute(_INSERT_OUTBOX, replies)
            log.error("mail %s recorded as failed and its sender told", message.message_id)
            return done
        except Exception as e:  # not even that: left for a later attempt
            lookups.forget_pending()
            return IngestOutcome(None, f"failed: {type(e).__name__}", 0, e)


class _Answer:
    """Carries out the commands of one mail and says what to mail in answer, and to whom."""

    def __init__(self, batch: _Batch, i: int, record_mail: Callable[[], int]) -> None:
        self.batch = batch
        self.mail = batch.mails[i]
        self.message = batch.messages[i]
        self.prehashed = batch.prehashed[i]
        self.index = i
        self.proof = batch.proofs[i]
        self.lines = batch.lines[i]
        self.record_mail = record_mail
        self.who = "from a sender not signed on"  # for the log, once run: game, phase, role
        self.own_address = False  # once run: whether it signed on, with the password, from its own address

    def _describe(self, ctx: Context) -> None:
        roles = [player.power for player in ctx.signed] + ["the GM" for _master in ctx.masters_signed[:1]]
        if ctx.game is None or not roles:
            return
        phase = ctx.phase()
        self.who = f"game {ctx.game.name}, {phase.row.label if phase else 'forming'}, from {', '.join(roles)}"

    def run(self, session: Session, lookups: Lookups, outcome: str, careful: bool) -> list[Outgoing]:
        """The mails to send in answer (none for mail that must never be answered). Mail with only
        list or bulk headers (which a relay may add to a player's mail) is processed too, and
        answered only if it signs on (SIGNON or JOIN with the right password): a list's or a
        robot's mail never does."""
        message, batch = self.message, self.batch
        size, max_size = self.mail.full_size, batch.max_size
        if outcome == "too large":
            refused = _("Your mail is {size} bytes long; this judge reads mail up to {max_size} bytes.\n"
                        "Nothing in it was read. Send your orders as plain text, without attachments.",
                        size=format(size, ","), max_size=format(max_size, ","))
            language = language_of(session, message.sender)
            text = render_ack("", [], None, [], refused=refused, lang=language)
            return [Outgoing(message.sender, translated(_("gm: your mail was too large"), language), text, "notice")]
        list_mail = message.soft_automatic and size <= max_size
        if outcome != "processed" and not list_mail:
            return []
        ctx = Context(session=session, message=message, record_mail=self.record_mail, verifier=batch.verifier,
                      lookups=lookups, gm_address=batch.gm_address, prehashed=self.prehashed,
                      trusted_masters=batch.trusted_masters, provenance=self.proof,
                      public_url=batch.public_url)
        lines = self.lines
        code = confirmations.code_in_subject(message.subject)
        with one_notice_each(session):  # what the mail changes, told in one notice a reader
            if code is not None and not any(command_for(line)[0] is confirm_command for line in lines[:MAX_LINES]):
                # A plain reply to a confirmation mail: its subject carries the code.
                self._line(ctx, f"CONFIRM {code}", careful)
            for line in lines[:MAX_LINES]:
                if ctx.in_block(line):
                    continue
                self._line(ctx, line, careful)
                if ctx.signed_off:
                    break
            ctx.close_block()
        self._describe(ctx)
        self.own_address = any(p.email == message.sender for p in ctx.signed) or any(
            m.email == message.sender for m in ctx.masters_signed)
        # A CONFIRM from the address its code was mailed to proves the sender too (its answers go
        # to a proven address): what proves a mail may grow while it is carried out.
        self.batch.proofs[self.index] = self.proof = ctx.provenance or self.proof
        if careful:  # in the mail's savepoint; otherwise once for the whole batch (see _Batch.run)
            orders.write_orders(session, lookups)
        # subjects in their readers' languages (a Text subject is translated here)
        notices = [Outgoing(to, subject, text, kind)
                   for to, subject, text, kind in press.batched(ctx.notices, ctx.language)]
        notices += [Outgoing(to, translated(subject, ctx.language(to)), text, "confirm", game_id=game_id,
                             unproven=unproven)
                    for to, subject, text, game_id, unproven in ctx.codes]
        addresses = list(dict.fromkeys([*(player.email for player in ctx.signed),
                                        *(master.email for master in ctx.masters_signed)]))
        sender = message.sender
        if outcome != "processed" and not addresses:
            return []  # list or bulk mail that did not sign on: never answered
        # A sender whose request was dropped past the budgets, or whose own domain disowns the
        # mail, gets nothing at all (gm.mail.budget).
        silent = ctx.silent or self.proof.proof is Proof.FORGED
        if outcome == "processed" and sender not in addresses and not silent and not any(
                n.to == sender and n.kind in ("confirm", "observer") for n in notices):
            notices.insert(0, self._notice_to_sender(ctx))
        if not addresses:
            return notices
        glance = master_overview(ctx)  # a GM's acknowledgement: the game at a glance
        if glance is not None and ctx.master is not None:
            ctx.private_sections.append((ctx.master.email, *glance))
        unread = max(0, len(lines) - MAX_LINES) if not ctx.signed_off else 0
        acks = [Outgoing(to, reply_subject(message.subject, ctx.language(to)),
                         render_ack(message.subject, ctx.results, _status(ctx, to),
                                    [*ctx.sections, *((title, text) for reader, title, text in ctx.private_sections
                                                      if reader == to)],
                                    unread=unread, reader=to, lang=ctx.language(to)),
                         "ack", ctx.attachments_for(to) or None)
                for to in addresses]
        return acks + notices

    def _notice_to_sender(self, ctx: Context) -> Outgoing:
        """The fixed notice to a sender the mail was not answered at: why signing on failed, and
        where the answers of sign-ons went, the same whether their passwords were right or not;
        nothing of what the mail said."""
        language = ctx.language(self.message.sender)
        text = render_notice("stranger", language, gm_address=self.batch.gm_address,
                             sections=[] if ctx.elsewhere else ctx.sections,
                             problems=ctx.sign_on_problems[: auth.CHECKS_PER_MAIL],
                             elsewhere=list(dict.fromkeys(ctx.elsewhere))[: auth.CHECKS_PER_MAIL],
                             failing=list(dict.fromkeys(ctx.elsewhere_failing))[: auth.CHECKS_PER_MAIL])
        answered = [translated(title, language) for title, _text in ctx.sections] if not ctx.elsewhere else []
        subject = "gm: " + "; ".join(answered)[:200] if answered else translated(_("gm: how to send orders"), language)
        return Outgoing(self.message.sender, subject, text, "notice")

    def _line(self, ctx: Context, line: str, careful: bool) -> None:
        session, lookups = ctx.session, ctx.lookups
        command, args = command_for(line, master=ctx.master is not None)
        if command is None:
            run = functools.partial(orders.run, ctx, line)
        else:
            # Written outside the command's savepoint, which may be undone; and before any GM
            # command, which may read the orders on file (PROCESS, PREVIEW) or change the phase.
            if careful or is_master_command(command):
                orders.write_orders(session, lookups)
            run = functools.partial(command.run, ctx, args, line)
        if not careful:  # see ingest_batch: what raises here undoes the batch, which is done again
            run()
            return
        notices = gathered(session)
        before = len(notices)
        try:
            with session.begin_nested():  # a command that fails undoes only itself
                run()
        except Exception:  # a bug must not lose the rest of the mail, nor crash the judge
            log.exception("command failed: %r", line)
            lookups.forget()  # its savepoint was rolled back
            del notices[before:]  # and with it the notices it queued
            ctx.reject(line, _("the judge could not carry this out (the GM has been told)"))


class _InboundRow:
    """The inbound_mail row of one mail: written already (a batch writes its rows at once), or
    written by the first to ask for its id (the mail's orders refer to it)."""

    def __init__(self, session: Session, values: dict[str, object], row_id: int | None = None) -> None:
        self.session = session
        self.values = values
        self.row_id = row_id

    @property
    def outcome(self) -> str:
        """What becomes of the mail (see _outcome), as the row records it."""
        return str(self.values["outcome"])

    def set_outcome(self, outcome: str) -> None:
        self.values["outcome"] = outcome
        if self.row_id is not None:
            table = InboundMail.__table__
            self.session.connection().execute(
                update(table).where(table.c.id == self.row_id).values(outcome=outcome)
            )

    def id(self) -> int:
        if self.row_id is None:
            result = self.session.connection().execute(_INSERT_INBOUND, self.values)
            self.row_id = int(result.inserted_primary_key[0])
        return self.row_id


# Built once: a statement built afresh for every mail costs more than running it.
_INSERT_INBOUND = insert(InboundMail.__table__)
_INSERT_INBOUNDS = insert(InboundMail.__table__).returning(  # many rows; their ids in the same order
    InboundMail.__table__.c.id, sort_by_parameter_order=True
)
_INSERT_OUTBOX = insert(OutboundMail.__table__)


def _headers_of(raw: bytes) -> bytes:
    for sep in (b"\r\n\r\n", b"\n\n"):
        head, found, _rest = raw.partition(sep)
        if found:
            return head + sep
    return raw[:64_000]


def _seen_before(
    session: Session, keys: list[str], uids: list[int | None], uidvalidity: int | None
) -> tuple[set[str], set[int]]:
    """Which of these dedup keys, and which of these UIDs (of `uidvalidity`), are recorded already."""
    wanted = set(keys)
    known_uids = [uid for uid in uids if uid is not None]
    same = InboundMail.dedup_key.in_(wanted)
    if known_uids and uidvalidity is not None:
        same = or_(same, (InboundMail.imap_uidvalidity == uidvalidity) & InboundMail.imap_uid.in_(known_uids))
    rows = session.execute(select(InboundMail.dedup_key, InboundMail.imap_uidvalidity, InboundMail.imap_uid).where(same))
    seen_keys: set[str] = set()
    seen_uids: set[int] = set()
    for key, validity, uid in rows:
        if key in wanted:
            seen_keys.add(key)
        if uid is not None and validity == uidvalidity:
            seen_uids.add(uid)
    return seen_keys, seen_uids


def _outcome(message: InboundMessage, size: int, max_size: int) -> str:
    """What becomes of the mail: 'processed' unless it is never read or never answered. (List or
    bulk mail is 'automatic' here, and 'processed' once it signs on: see _Answer.run.)"""
    if message.automatic:
        return f"automatic: {message.automatic}"
    if not message.sender:
        return "no sender"
    if size > max_size:
        return "too large"
    return "processed"


def _resume_time() -> str:
    return (utcnow() + budget.WINDOW).strftime("%Y-%m-%d %H:%M UTC")


def _status(ctx: Context, reader: str) -> PowerStatus | None:
    """What is on file for the last power the mail signed on as whose address is `reader`."""
    player = next((p for p in reversed(ctx.signed) if p.email == reader), None)
    if player is None or player.power is None:
        return None
    game = ctx.lookups.game_by_id(player.game_id)
    if game is not None and game.status == GameStatus.FINISHED:  # no phase, nothing owed: the game is over
        return PowerStatus(power=player.power, game=game.name, phase="", orders=[], missing=[], allocations=[],
                           points=None, used=0, ended=outcome_text(game.outcome) or status_word(GameStatus.FINISHED))
    phase = None if game is None else ctx.lookups.phase(game)
    if phase is None:
        return None
    variant = variant_of(game)
    power = player.power
    orders_on_file = ctx.lookups.on_file(OrderRecord, phase.row, power)
    rules = variant.rules
    allocations = ctx.lookups.on_file(SecretAllocation, phase.row, power)
    points, used = rules.points_balance(variant, phase.state, power, [(a.canonical, a.points) for a in allocations])
    if points is None:
        allocations = []
    return PowerStatus(
        power=power,
        game=game.name,
        phase=phase_name(phase.row.label),
        orders=[_by_gm(o.canonical) if o.entered_by else o.canonical for o in orders_on_file],
        missing=units_without_orders(variant, phase.state, power, orders_on_file),
        allocations=[_by_gm(a.canonical) if a.entered_by else a.canonical for a in allocations],
        points=points,
        used=used,
        private=rules.private_status(variant, phase.state, power),
        **({"points_name": "IP", "points_use": _("bids")} if phase.state.phase.kind is PhaseKind.BIDDING else {}),
    )


def _by_gm(order: str) -> str:
    return _("{order} (entered by the GM)", order=order)
