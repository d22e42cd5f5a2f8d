"""Proof of an address: a change asked for in the name of an address (JOIN, SET ADDRESS to a new
address, CREATE, OBSERVE) waits as a pending confirmation until the code mailed to that address comes back
in a mail with `CONFIRM <code>`.

A mail's From line is anyone's to write. Without the code a forged mail takes no power, moves no
player's mail and makes no game, and the address it names gets one fixed text of the judge's own
(names from the database, the code, how to answer), nothing of what the forger wrote. Only the
hash of a code is stored; a code lasts LIFETIME and serves once.

A request in authenticated mail (gm.mail.intake.provenance) needs no code: the mail proved its address,
and the command carries it out at once. A request that waits costs the judge nothing slow: its
new password is not hashed but sealed (encrypted under a key made from the code and the judge's
secret key, gm.store.judge_key), and hashed once the code comes back, which only the address's
owner can do. So a flood of forged requests makes no hash, and a game's waiting JOINs need no cap
a forger could fill; what bounds them is the mail their codes need (gm.mail.budget), which is
never sent past its budgets.
"""
from __future__ import annotations

import base64
import hashlib
import logging
import re
import secrets
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from nacl.exceptions import CryptoError
from nacl.secret import SecretBox
from sqlalchemy import ColumnElement, func, select

from gm.games import masters
from gm.i18n import _, _n, _p, translated
from gm.mail import budget
from gm.mail.budget import WINDOW
from gm.mail.intake.provenance import Proof
from gm.mail.outgoing.reply import render_notice
from gm.store import judge_key
from gm.store.models import Confirmation, Game, GameStatus, utcnow

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from gm.mail.commands.context import Context
    from gm.store.models import Player

log = logging.getLogger(__name__)
JOIN, ADDRESS, CREATE, OBSERVE = "join", "address", "create", "observe"  # the kinds of change that wait for a code
MASTER = "master"  # a PROMOTE's, stored as a JOIN (see kind_of)
MOVED = "moved"  # a player of a game moved in from another judge (IMPORT), stored as a JOIN (see kind_of)

LIFETIME_HOURS = 24
LIFETIME = timedelta(hours=LIFETIME_HOURS)
# 32 letters and digits, none of them easily taken for another (no 0, O, 1, I): 5 bits each.
ALPHABET = "23456789ABCDEFGHJKLMNPQRSTUVWXYZ"
CODE_LENGTH = 10  # 50 bits: nobody guesses one in its lifetime, one guess a mail
PENDING_PER_ADDRESS = 3  # JOINs (and CREATEs, OBSERVEs) asked for in an hour in one address's name
ADDRESS_CHANGES_PER_HOUR = 3  # new addresses one player may ask for in an hour

NO_SUCH_CODE = _n("no such confirmation code, or it expired: codes last {count} hour",
                  "no such confirmation code, or it expired: codes last {count} hours", LIFETIME_HOURS)
ONE_A_MAIL = _("one CONFIRM a mail: send this line in a mail of its own")
# Why a request was not taken past the budgets of mail to addresses that proved nothing: told to
# nobody (the mail goes silent), but on the line for the record.
NOT_NOW = _("not taken now: too many requests from addresses that proved nothing; send it signed (DKIM), or later")
DISOWNED = _("the domain of your address says this mail is not from it (DMARC): nothing was done")
SEALED_UNDER_ANOTHER_KEY = _("this request was made before the judge's secret key changed: send it again")

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


def join_refusal(session: Session, address: str) -> str | None:
    """Why no more JOINs may wait for a code for `address`; None when one may. An address gets a
    bounded number of codes an hour, however many mails are forged in its name; counted by the
    hour, not the codes' lifetime, so that forged JOINs hold nobody up for long."""
    if _asked(session, JOIN, Confirmation.address == address) >= PENDING_PER_ADDRESS:
        return _too_many("JOIN")
    return None


def forming(session: Session, names: set[str]) -> dict[str, bool]:
    """Which of the games called `names` are forming (a JOIN of them may take a power), each with
    whether it requires DKIM."""
    return dict(session.execute(select(Game.name, Game.require_dkim).where(
        Game.name.in_(names), Game.status == GameStatus.FORMING)).all())


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
    # TRANSLATORS: {command} is a command word (JOIN, CREATE, OBSERVE), as the player writes it
    return _n("{count} {command} for this address in the last hour waits for its code: confirm it, "
              "or try again in an hour",
              "{count} {command}s for this address in the last hour wait for their codes: confirm one, "
              "or try again in an hour", PENDING_PER_ADDRESS, command=command)


def address_refusal(session: Session, player: Player) -> str | None:
    """Why `player` may ask for no more new addresses now; None when they may."""
    asked = session.scalar(select(func.count()).select_from(Confirmation).where(
        Confirmation.kind == ADDRESS, Confirmation.player_id == player.id,
        Confirmation.created_at >= utcnow() - WINDOW))
    if (asked or 0) >= ADDRESS_CHANGES_PER_HOUR:
        return _n("at most {count} new address an hour: try again later",
                  "at most {count} new addresses an hour: try again later", ADDRESS_CHANGES_PER_HOUR)
    return None


# --- asking, and confirming ------------------------------------------------------------------------


def request(
    ctx: Context,
    kind: str,
    address: str,
    *,
    subject: str,  # a Text: written in the address's language, as the code's mail is
    template: str,
    values: dict[str, object],
    game: Game | None = None,
    player: Player | None = None,
    power: str | None = None,
    password: str | None = None,
    detail: dict[str, Any] | None = None,
    vouched: bool = False,
) -> bool:
    """Make a pending confirmation of `kind` for `address` and mail the address its code: the fixed
    text templates/mail/<template>.txt.j2 with `values` (the judge's words and names from the
    database only), in the address's language, the code in its subject too, so that a plain reply
    confirms. `password`, the request's new password, is kept sealed until the code comes back.

    A code to an address that proved nothing comes out of the budgets of gm.mail.budget, unless
    the request is `vouched` for by a player or GM signed on with their password (a new address
    of theirs, a co-GM), who is bounded per head instead. Past a budget nothing is made and
    nothing is sent, to the address or to the sender (the mail goes silent): False."""
    game_id = game.id if game is not None else None
    unproven = not (ctx.lookups.proven(address) or (address == ctx.message.sender and ctx.authenticated))
    if unproven and not vouched:
        why = budget.unproven_refusal(ctx.lookups.unproven_sent(), address, game_id, code=True)
        if why is None and ctx.lookups.replies_sent(address, "confirm") >= budget.CONFIRMATIONS_PER_HOUR:
            why = f"{budget.CONFIRMATIONS_PER_HOUR} codes an hour to one address"
        if why is not None:
            log.info("a %s code to an address that proved nothing was not sent: past %s", kind.upper(), why)
            ctx.silent = True
            if game is not None and kind in (JOIN, OBSERVE):  # the GM hears of it, once an hour
                for gm in masters(ctx.session, game):
                    lang = ctx.language(gm, game)
                    if kind == JOIN:
                        about, what = _("[{game}] Requests to join it went unanswered", game=game.name), \
                            _p("requests to ... a game", "join")
                    else:
                        about, what = _("[{game}] Requests to observe it went unanswered", game=game.name), \
                            _p("requests to ... a game", "observe")
                    ctx.notify(gm, translated(about, lang), render_notice("flooded", lang, game=game.name, what=what),
                               kind="flooded")
            return False
    code = new_code()
    now = utcnow()
    ctx.session.add(Confirmation(
        kind=kind, address=address, code_hash=code_hash(code), game_id=game_id,
        player_id=player.id if player is not None else None, power=power,
        sealed_password=seal(password, code) if password is not None else None, detail=detail,
        requested_by=ctx.message.sender, created_at=now, expires_at=now + LIFETIME))
    shown = shown_code(code)
    lang = ctx.language(address, game)
    text = render_notice(template, lang, gm_address=ctx.gm_address, code=shown, hours=LIFETIME_HOURS, **values)
    ctx.lookups.reply_queued(address, "confirm", unproven=unproven, game_id=game_id)
    # The code after the subject, in the command's own words: a plain reply confirms (code_in_subject).
    ctx.codes.append((address, f"{translated(subject, lang)} (CONFIRM {shown})", text, game_id, unproven))
    return True


def disowned(ctx: Context, shown: str) -> bool:
    """True, the line refused and the mail silent, when the mail's own domain disowns it (see
    gm.mail.intake.provenance): a request in it is never carried out, nor its sender mailed."""
    if ctx.provenance is None or ctx.provenance.proof is not Proof.FORGED:
        return False
    ctx.refuse_sign_on(shown, DISOWNED)
    ctx.silent = True
    return True


def password_hash(ctx: Context, confirmation: Confirmation, shown: str, password: str | None) -> str | None:
    """The hash of the new password a confirmed request set: the one stored with it (a request of
    an older release), else its sealed `password`, opened by the code, hashed now; None (the line
    refused as a failed sign-on) when the mail or the sender has set too many."""
    if confirmation.password_hash is not None:
        return confirmation.password_hash
    assert password is not None
    return ctx.new_password_hash(shown, password, sign_on=True)


def seal(password: str, code: str) -> str:
    """`password` encrypted under a key made from `code` and the judge's secret: neither the
    database alone nor the code alone opens it."""
    box = SecretBox(judge_key.derive("sealed password", code.encode("ascii")))
    return base64.b64encode(box.encrypt(password.encode("utf-8", "surrogatepass"))).decode("ascii")


def unseal(confirmation: Confirmation, code: str) -> str | None:
    """The password `confirmation` keeps sealed, opened with its `code`; None when it keeps none,
    or it was sealed under another secret key (the key file replaced meanwhile)."""
    if confirmation.sealed_password is None:
        return None
    box = SecretBox(judge_key.derive("sealed password", code.encode("ascii")))
    try:
        return box.decrypt(base64.b64decode(confirmation.sealed_password)).decode("utf-8", "surrogatepass")
    except (CryptoError, ValueError):
        return None


def pending(session: Session, code: str) -> Confirmation | None:
    """The confirmation waiting for `code` (as read_code gives it): not used, not expired."""
    return session.scalar(select(Confirmation).where(
        Confirmation.code_hash == code_hash(code), Confirmation.confirmed_at.is_(None),
        Confirmation.expires_at > utcnow()))


def kind_of(confirmation: Confirmation) -> str:
    """What `confirmation` waits to carry out: its kind, or MASTER for a PROMOTE (stored as a JOIN
    of the game as one of its GMs), MOVED for a player of a game moved in (a JOIN of the power the
    old judge's text gave the address). The command that carries it out says so (CONFIRMS)."""
    taken_as = (confirmation.detail or {}).get("as")
    return MASTER if taken_as == "GM" else MOVED if taken_as == MOVED else confirmation.kind
