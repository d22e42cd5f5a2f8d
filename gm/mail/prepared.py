"""What a batch of mails needs before its transaction, so that nothing slow holds the database:
what proves each mail's From address (DKIM keys looked up), and the hashes of the new passwords
it may set (a memory-hard hash). gm.mail.ingest then carries the batch out."""
from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Protocol

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import GameError, game_name
from gm.mail import budget
from gm.mail.commands import command_for, confirmations
from gm.mail.commands import confirm as confirm_command
from gm.mail.intake import dkim as dkim_check
from gm.mail.intake import provenance
from gm.mail.intake.message import InboundMessage
from gm.mail.intake.provenance import Provenance
from gm.store.db import transaction
from gm.store.models import Game
from gm.store.passwords import hash_password



class Fetched(Protocol):
    """A mail as fetched (gm.mail.ingest.Fetched): what is read of it here."""

    raw: bytes

    @property
    def full_size(self) -> int: ...

MAX_LINES = budget.MAX_LINES
PREHASH_PER_BATCH = 8  # new passwords hashed before a batch's transaction; more are hashed in it
VERIFY_SECONDS = 10.0  # DKIM key look-ups of one batch: what a forger's slow DNS can cost it at most


def readable(mail: Fetched, message: InboundMessage, max_size: int) -> bool:
    """Whether the lines of a mail may be carried out: it is not too large, and no robot's (list or
    bulk mail may still be a player's: see gm.mail.ingest)."""
    return mail.full_size <= max_size and not (message.automatic and not message.soft_automatic)


def prehash(
    session_factory: sessionmaker[Session], mails: Sequence[Fetched], messages: list[InboundMessage],
    lines: list[list[str]], max_size: int, trusted_masters: frozenset[str], proofs: list[Provenance],
) -> list[dict[str, str]]:
    """The hash of the new password of each mail that sets one at once, made before the
    transaction: a memory-hard hash inside it would hold the database meanwhile. That is a JOIN
    of a forming game or a CREATE from a trusted address in authenticated mail (or a JOIN signed
    for a game that requires DKIM), and a CONFIRM whose code opens a waiting request's sealed
    password. A request whose address proved nothing is never hashed (its password waits sealed:
    see gm.mail.commands.confirmations), nor is a guessed code. One a mail (the most it may set),
    PREHASH_PER_BATCH a batch; a password set otherwise (SET PASSWORD, after its sign-on) is
    hashed in the transaction once the mail has shown it may."""
    out: list[dict[str, str]] = [{} for _mail in mails]
    wanted: list[tuple[int, str, list[str]]] = []
    for i, (mail, message) in enumerate(zip(mails, messages, strict=True)):
        if not readable(mail, message, max_size):
            continue
        code = confirmations.code_in_subject(message.subject)
        for line in lines[i][:MAX_LINES]:
            command, args = command_for(line)
            if command is confirm_command and args:
                wanted.append((i, "CONFIRM", args))
                break
            if getattr(command, "NEW_PASSWORD", False) and args:
                wanted.append((i, command.NAME, args))  # type: ignore[union-attr]
                break
        else:
            if code is not None:  # a plain reply to a confirmation mail
                wanted.append((i, "CONFIRM", [code]))
    if not wanted:
        return out
    joined = {_game_name(args[0]) for _line, name, args in wanted if name == "JOIN" and len(args) >= 3} - {None}
    codes = {code for _line, name, args in wanted if name == "CONFIRM" and (code := confirmations.read_code(args[0]))}
    forming: dict[str, bool] = {}  # a forming game's name -> whether it requires DKIM
    opened: dict[str, str | None] = {}  # a code -> the password its request keeps sealed
    if joined or codes:
        with transaction(session_factory) as session:
            forming = confirmations.forming(session, joined) if joined else {}
            sealed = {code: found for code in codes if (found := confirmations.pending(session, code)) is not None}
            opened = {code: confirmations.unseal(found, code) for code, found in sealed.items()}
    budget_left = PREHASH_PER_BATCH
    for i, name, args in wanted:
        if budget_left == 0:
            break
        proof = proofs[i]
        password: str | None = None
        if name == "JOIN" and len(args) >= 3 and (game := _game_name(args[0])) in forming:
            signed = proof.dkim is dkim_check.Verdict.SIGNED
            password = args[-1] if (signed if forming[game] else proof.authenticated) else None
        elif name == "CREATE" and proof.authenticated and messages[i].sender.lower() in trusted_masters:
            password = args[-1]
        elif name == "CONFIRM":
            password = opened.get(confirmations.read_code(args[0]) or "")
        if password is not None:
            out[i][password] = hash_password(password)
            budget_left -= 1
    return out


def _game_name(written: str) -> str | None:
    try:
        return game_name(written)
    except GameError:
        return None


def provenances(
    session_factory: sessionmaker[Session], mails: Sequence[Fetched], messages: list[InboundMessage],
    lines: list[list[str]], max_size: int, dns_lookup: dkim_check.DnsLookup | None, authserv_id: str | None,
) -> list[Provenance]:
    """What proves each mail's From address (gm.mail.intake.provenance), found before the transaction: a
    key look-up must not hold the database. The trusted receiving server's verdict is read for
    every mail (no look-up). The judge verifies a DKIM signature itself only where it matters: for
    a mail that asks for something an authenticated mail is granted at once (JOIN, OBSERVE,
    CREATE), and for a mail that signs on while some game requires DKIM. A mail without a
    DKIM-Signature costs no look-up; keys are looked up once a batch."""
    keys = dkim_check.KeyCache(dns_lookup)
    required: bool | None = None
    out: list[Provenance] = []
    deadline = time.monotonic() + VERIFY_SECONDS
    for mail, message, mail_lines in zip(mails, messages, lines, strict=True):
        read = readable(mail, message, max_size) and bool(message.sender)
        commands = [command_for(line)[0] for line in mail_lines[:MAX_LINES]] if read else []
        asks = any(getattr(command, "PROVES_ADDRESS", False) for command in commands)
        signs_on = any(getattr(command, "NEEDS_DKIM", False) for command in commands)
        signed = dkim_check.has_signature(mail.raw)
        if signs_on and required is None and signed:
            with transaction(session_factory) as session:
                required = session.scalar(select(Game.id).where(Game.require_dkim.is_(True)).limit(1)) is not None
        # Past the batch's time for look-ups (a forger's domains whose DNS answers slowly), no more:
        # the trusted verdict alone, the rest unproven (a code instead; players' mail is batched apart).
        in_time = time.monotonic() < deadline
        need_dkim = signs_on and bool(required)
        found = provenance.judge(mail.raw, message.sender, authserv_id, keys, need_proof=asks and in_time,
                                 need_dkim=need_dkim and in_time)
        if signs_on and found.dkim is None and not signed:
            found = replace(found, dkim=dkim_check.Verdict.UNSIGNED)  # no look-up needed to say so
        elif need_dkim and found.dkim is None:  # out of time: the sender is asked to send it again
            found = replace(found, dkim=dkim_check.Verdict.UNCHECKED)
        out.append(found)
    return out
