"""The headers that say what list a mail of the judge's belongs to, and how to leave it: a
`List-Id` for each game (RFC 2919), so that players can filter a game's mail; and where the reader
may leave, a `List-Unsubscribe` (RFC 2369) that works in one click (RFC 8058, with
`List-Unsubscribe-Post`, when gm serve takes the web's POSTs: gm.lifecycle.leaving), or by mail:

* an observer of a game: stops observing it (as UNOBSERVE does), by the link or by mailing
  UNOBSERVE;
* an address that got a notice only because mail was sent in its name: no more such notices.

A player's or a GM's mail has no List-Unsubscribe: they leave a game by RESIGN, not by a click.
The DKIM signature covers these headers (gm.mail.outgoing.signing), as RFC 8058 wants.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import quote

from sqlalchemy import select, tuple_
from sqlalchemy.orm import Session

from gm.lifecycle.leaving import observer_token, quiet_token
from gm.store.models import Game, Observer, OutboundMail

Headers = tuple[tuple[str, str], ...]
_NOTICES = ("notice",)  # what a stranger gets in answer to mail sent in its name (a code it asked for is not one)


@dataclass(frozen=True)
class MailLinks:
    """What the outbox needs to make each mail's own links: the key (gm.lifecycle.leaving.links_key),
    whether each mail goes from a return path of its own (gm.mail.outgoing.undelivered), and where
    gm serve takes one-click POSTs (None: it takes none, and only the mail way is offered)."""

    key: bytes
    tagged_return_path: bool = False
    unsubscribe_url: str | None = None


def list_headers(session: Session, rows: Sequence[OutboundMail], gm_address: str,
                 links: MailLinks | None) -> dict[int, Headers]:
    """The list headers of each row that has any, by id: two queries for all of them."""
    domain = gm_address.rpartition("@")[2].lower() or "localhost"
    games = {row.game_id for row in rows if row.game_id is not None}
    names: dict[int, str] = {}
    observers: dict[tuple[int, str], int] = {}
    if games:
        names = {game_id: name for game_id, name in session.execute(select(Game.id, Game.name).where(Game.id.in_(games)))}
        pairs = sorted({(row.game_id, row.to_addr.lower()) for row in rows if row.game_id is not None})
        for observer_id, game_id, email in session.execute(
                select(Observer.id, Observer.game_id, Observer.email)
                .where(tuple_(Observer.game_id, Observer.email).in_(pairs), Observer.left_at.is_(None))):
            observers[(game_id, email)] = observer_id
    found: dict[int, Headers] = {}
    for row in rows:
        headers: list[tuple[str, str]] = []
        if row.game_id is not None and row.game_id in names:
            name = names[row.game_id]
            headers.append(("List-Id", f'"gm game {_quoted(name)}" <{_label(name)}.games.{domain}>'))
            observer = observers.get((row.game_id, row.to_addr.lower()))
            if observer is not None:
                mailto = f"<mailto:{gm_address}?subject={quote('UNOBSERVE ' + name)}&body={quote('UNOBSERVE ' + name)}>"
                token = observer_token(links.key, observer) if links is not None else None
                headers += _unsubscribe(links, token, mailto)
        elif row.unproven and row.kind in _NOTICES and links is not None:
            headers += _unsubscribe(links, quiet_token(links.key, row.to_addr), None)
        if headers:
            found[row.id] = tuple(headers)
    return found


def _unsubscribe(links: MailLinks | None, token: str | None, mailto: str | None) -> list[tuple[str, str]]:
    web = f"<{links.unsubscribe_url}?t={token}>" if links is not None and links.unsubscribe_url and token else None
    ways = [way for way in (web, mailto) if way]
    if not ways:
        return []
    headers = [("List-Unsubscribe", ", ".join(ways))]
    if web:
        headers.append(("List-Unsubscribe-Post", "List-Unsubscribe=One-Click"))
    return headers


def _label(name: str) -> str:
    """A game's name as a DNS label of the List-Id (RFC 2919 wants a dot-atom)."""
    label = re.sub(r"[^a-z0-9-]+", "-", name.lower()).strip("-")[:63]
    return label or "game"


def _quoted(text: str) -> str:
    return re.sub(r'["\\\r\n]', "", text).encode("ascii", "ignore").decode("ascii")[:60]
