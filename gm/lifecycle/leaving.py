"""Leaving the judge's mail in one click (RFC 8058): the link in a mail's List-Unsubscribe header,
for those who may leave: an observer stops observing the game (as UNOBSERVE does), and an address
that only ever got the judge's notices (answers to mail sent in its name) gets no more of them.

A link carries a token the judge alone can make (keyed with its secret, gm.store.judge_key) and
names what it undoes: it was mailed to that address only. The mail channel puts the links in its
mail (gm.mail.outgoing.list_headers); the web channel carries out a link's POST (gm.web.publish).
A quiet address is heard again as soon as mail from it arrives that is proven its own.
"""
from __future__ import annotations

import base64
import hashlib
import hmac

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from gm.i18n import _
from gm.store import judge_key
from gm.store.models import AuditEntry, Game, Observer, QuietAddress, utcnow

_MAC_BYTES = 10


def links_key() -> bytes:
    """The key the mail's own links are made with: derived from the judge's secret, apart from its other uses."""
    return judge_key.derive("mail links", b"")


def mac(key: bytes, payload: str) -> str:
    """A short check of `payload` under `key` (base32, lower case)."""
    digest = hmac.new(key, payload.encode("utf-8"), hashlib.sha256).digest()[:_MAC_BYTES]
    return base64.b32encode(digest).decode("ascii").rstrip("=").lower()


def observer_token(key: bytes, observer_id: int) -> str:
    payload = f"o.{observer_id}"
    return f"{payload}.{mac(key, payload)}"


def quiet_token(key: bytes, address: str) -> str:
    encoded = base64.b32encode(address.lower().encode("utf-8")).decode("ascii").rstrip("=").lower()
    payload = f"q.{encoded}"
    return f"{payload}.{mac(key, payload)}"


def leave(session: Session, token: str, key: bytes | None = None) -> str | None:
    """Carry out the one-click link `token`, in the session's transaction: what was done, for the
    page that answers (a Text); None for a token the judge did not make. Done twice, it is done once."""
    kind, _dot, rest = token.strip().lower().partition(".")
    payload, _dot, check = rest.rpartition(".")
    if kind not in ("o", "q") or not payload or len(token) > 600:
        return None
    if not hmac.compare_digest(check, mac(key or links_key(), f"{kind}.{payload}")):
        return None
    if kind == "o":
        observer = session.get(Observer, int(payload)) if payload.isdigit() else None
        if observer is None:
            return None
        game = session.get(Game, observer.game_id)
        if observer.left_at is None:
            observer.left_at = utcnow()
            session.add(AuditEntry(game_id=observer.game_id, actor=observer.email, action="unobserve",
                                   detail={"address": observer.email, "by": "one-click link"}))
        if game is None:
            return _("{address} no longer observes the game.", address=observer.email)
        return _("{address} no longer observes {game}.", address=observer.email, game=game.name)
    try:
        address = base64.b32decode(payload.upper() + "=" * (-len(payload) % 8)).decode("utf-8")
    except ValueError:
        return None
    if session.get(QuietAddress, address) is None:
        session.add(QuietAddress(address=address, since=utcnow()))
    return _("The judge sends {address} no more notices about mail sent in its name.", address=address)


def quiet(session: Session, addresses: set[str]) -> set[str]:
    """Those of `addresses` that asked for no more notices."""
    if not addresses:
        return set()
    return set(session.scalars(select(QuietAddress.address).where(QuietAddress.address.in_(sorted(addresses)))))


def heard_again(session: Session, address: str) -> None:
    """Mail proven to come from `address` arrived: it gets the judge's notices again."""
    session.execute(delete(QuietAddress).where(QuietAddress.address == address.lower())
                    .execution_options(synchronize_session=False))

