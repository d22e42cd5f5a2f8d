"""Proof of an address: a change asked for in the name of an address (JOIN, SET ADDRESS to a new
address, CREATE, OBSERVE) waits as a pending confirmation until the code mailed to that address comes back
in a mail with `CONFIRM <code>`.

A mail's From line is anyone's to write. Without the code a forged mail takes no power, moves no
player's mail and makes no game, and the address it names gets one fixed text of the judge's own
(names from the database, the code, how to answer), nothing of what the forger wrote. Only the
hash of a code is stored; a code lasts LIFETIME and serves once.
"""
from __future__ import annotations

import hashlib
import re
import secrets
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import ColumnElement, func, select

from gm.mail.budget import WINDOW
from gm.mail.reply import render_notice
from gm.store.models import Confirmation, Game, GameStatus, Player, utcnow

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from gm.mail.commands import Context

JOIN, ADDRESS, CREATE, OBSERVE = "join", "address", "create", "observe"  # the kinds of change that wait for a code

LIFETIME_HOURS = 24
LIFETIME = timedelta(hours=LIFETIME_HOURS)
# 32 letters and digits, none of them easily taken for another (no 0, O, 1, I): 5 bits each.
ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
CODE_LENGTH = 10  # 50 bits: nobody guesses one in its lifetime, one guess a mail
PENDING_PER_ADDRESS = 3  # JOINs (and CREATEs) asked for in an hour in one address's name
PENDING_PER_GAME = 20  # JOINs of one game asked for in an hour: each costs a slow hash
ADDRESS_CHANGES_PER_HOUR = 3  # new addresses one player may ask for in an hour

NO_SUCH_CODE = f"no such confirmation code, or it expired: codes last {LIFETIME_HOURS} hours"
ONE_A_MAIL = "one CONFIRM a mail: send this line in a mail of its own"

_IN_SUBJECT = re.compile(r"\bCONFIRM\s+([A-Z0-9]{5}-?[A-Z0-9]{5})\b", re.IGNORECASE)


def new_code() -> str:
    """A fresh random code, as stored (see read_code)."""
    return "".join(secrets.choice(ALPHABET) for _ in range(CODE_LENGTH))


def read_code(text: str) -> str | None:
    """The code as stored (upper case, no dash) of what a player typed, in any case, with or without
    the dash; None when it cannot be a code."""
    code = re.sub(r"[\s-]", "", text).upper()
    if len(code) != CODE_LENGTH or any(c not in ALPHABET for c in code):
        return None
    return code


def shown_code(code: str) -> str:
    """'ABCDEFGHJK' -> 'ABCDE-FGHJK': as a code is mailed."""
    half = CODE_LENGTH // 2
    return f"{code[:half]}-{code[half:]}"


def code_hash(code: str) -> str:
    return hashlib.sha256(code.encode("ascii")).hexdigest()


def code_in_subject(subject: str) -> str | None:
    """The code a confirmation mail's subject carries ('Re: gm: confirm JOIN g1 France (CONFIRM
    ABCDE-FGHIJ)', 'AW: ...', 'Fwd: ...'), upper case with its dash ('ABCDE-FGHIJ'); None when it
    carries none. So a plain reply confirms: CONFIRM tells whether the code is one."""
    found = _IN_SUBJECT.search(subject or "")
    return shown_code(found.group(1).replace("-", "").upper()) if found else None


# --- how many may wait -----------------------------------------------------------------------------


def join_refusal(session: Session, address: str, game: Game) -> str | None:
    """Why no more JOINs may wait for a code, for `address` or in `game`; None when one may. An
    address gets a bounded number of codes an hour, however many mails are forged in its name;
    counted by the hour, not the codes' lifetime, so that forged JOINs hold nobody up for long."""
    if _asked(session, JOIN, Confirmation.address == address) >= PENDING_PER_ADDRESS:
        return _too_many("JOIN")
    if _asked(session, JOIN, Confirmation.game_id == game.id) >= PENDING_PER_GAME:
        return f"{PENDING_PER_GAME} JOINs of {game.name} in the last hour wait for their codes: try again in an hour"
    return None


def open_to_join(session: Session, names: set[str]) -> set[str]:
    """Which of the games called `names` take a JOIN now: forming, without DKIM (a signed JOIN
    takes its power at once: no hash needed ahead), and under PENDING_PER_GAME."""
    forming = dict(session.execute(select(Game.name, Game.id).where(
        Game.name.in_(names), Game.status == GameStatus.FORMING, Game.require_dkim.is_(False))).all())
    if not forming:
        return set()
    waiting = dict(session.execute(select(Confirmation.game_id, func.count()).where(
        *_asking(JOIN), Confirmation.game_id.in_(forming.values())).group_by(Confirmation.game_id)).all())
    return {name for name, game_id in forming.items() if waiting.get(game_id, 0) < PENDING_PER_GAME}


def create_refusal(session: Session, address: str) -> str | None:
    """Why no more CREATEs may wait for `address`'s code; None when one may."""
    if _asked(session, CREATE, Confirmation.address == address) >= PENDING_PER_ADDRESS:
        return _too_many("CREATE")
    return None


def observe_refusal(session: Session, address: str) -> str | None:
    """Why no more OBSERVEs may wait for `address`'s code; None when one may."""
    if _asked(session, OBSERVE, Confirmation.address == address) >= PENDING_PER_ADDRESS:
        return _too_many("OBSERVE")
    return None


def _asking(kind: str) -> list[ColumnElement[bool]]:
    """Confirmations of `kind` asked for in the last hour and still waiting for their codes."""
    return [Confirmation.kind == kind, Confirmation.confirmed_at.is_(None), Confirmation.created_at >= utcnow() - WINDOW]


def _asked(session: Session, kind: str, *where: ColumnElement[bool]) -> int:
    return session.scalar(select(func.count()).select_from(Confirmation).where(*_asking(kind), *where)) or 0


def _too_many(command: str) -> str:
    return (f"{PENDING_PER_ADDRESS} {command}s for this address in the last hour wait for their codes: confirm one, "
            "or try again in an hour")


def address_refusal(session: Session, player: Player) -> str | None:
    """Why `player` may ask for no more new addresses now; None when they may."""
    asked = session.scalar(select(func.count()).select_from(Confirmation).where(
        Confirmation.kind == ADDRESS, Confirmation.player_id == player.id,
        Confirmation.created_at >= utcnow() - WINDOW))
    if (asked or 0) >= ADDRESS_CHANGES_PER_HOUR:
        return f"at most {ADDRESS_CHANGES_PER_HOUR} new addresses an hour: try again later"
    return None


# --- asking, and confirming ------------------------------------------------------------------------


def request(
    ctx: Context,
    kind: str,
    address: str,
    *,
    subject: str,
    template: str,
    values: dict[str, object],
    game: Game | None = None,
    player: Player | None = None,
    power: str | None = None,
    password_hash: str | None = None,
    detail: dict[str, Any] | None = None,
) -> None:
    """Make a pending confirmation of `kind` for `address` and mail the address its code: the fixed
    text templates/<lang>/<template>.txt.j2 with `values` (the judge's words and names from the
    database only), the code in its subject too, so that a plain reply confirms."""
    code = new_code()
    now = utcnow()
    ctx.session.add(Confirmation(
        kind=kind, address=address, code_hash=code_hash(code),
        game_id=game.id if game is not None else None, player_id=player.id if player is not None else None,
        power=power, password_hash=password_hash, detail=detail, requested_by=ctx.message.sender,
        created_at=now, expires_at=now + LIFETIME))
    shown = shown_code(code)
    text = render_notice(template, gm_address=ctx.gm_address, code=shown, hours=LIFETIME_HOURS, **values)
    ctx.notify(address, f"{subject} (CONFIRM {shown})", text, kind="confirm")


def pending(session: Session, code: str) -> Confirmation | None:
    """The confirmation waiting for `code` (as read_code gives it): not used, not expired."""
    return session.scalar(select(Confirmation).where(
        Confirmation.code_hash == code_hash(code), Confirmation.confirmed_at.is_(None),
        Confirmation.expires_at > utcnow()))


def confirm(ctx: Context, written: str, shown: str) -> None:
    """CONFIRM `written` (a code as a player typed it), the line shown as `shown`: carry out what
    waits for the code, and mark it used. One a mail, so that one mail is one guess. Refused as a
    failed sign-on: a sender who signed on to nothing is told why."""
    if ctx.confirmations:
        ctx.refuse_sign_on(shown, ONE_A_MAIL)
        return
    ctx.confirmations += 1
    code = read_code(written)
    found = pending(ctx.session, code) if code is not None else None
    if found is None:
        ctx.refuse_sign_on(shown, NO_SUCH_CODE)
        return
    if (found.detail or {}).get("as") == "GM":  # PROMOTE: a JOIN of the game as one of its GMs
        from gm.mail.commands.master import promote

        if promote.confirmed(ctx, found, shown):
            found.confirmed_at = utcnow()
        return
    # Each kind is carried out by its own command, which asks for it.
    from gm.mail.commands import create, join, observe, set_address

    carry_out = {JOIN: join.confirmed, ADDRESS: set_address.confirmed, CREATE: create.confirmed,
                 OBSERVE: observe.confirmed}[found.kind]
    if carry_out(ctx, found, shown):
        found.confirmed_at = utcnow()
