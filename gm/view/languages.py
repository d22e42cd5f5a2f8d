"""The language each reader reads the judge in: the one its address chose (SET LANGUAGE), else
its game's (the `language` house rule), else English. Every channel asks here."""
from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from gm.i18n import ENGLISH
from gm.lifecycle.house_rules import rules_of
from gm.store.models import Game, ReaderLanguage, utcnow


def game_language(game: Game | None) -> str:
    """The language of `game` (its pages, and its mail to a reader who chose none)."""
    return rules_of(game.options).language if game is not None else ENGLISH


def chosen(session: Session, addresses: Iterable[str]) -> dict[str, str]:
    """The languages those of `addresses` chose, by address (lower case)."""
    wanted = sorted({a.lower() for a in addresses if a})
    if not wanted:
        return {}
    rows = session.execute(select(ReaderLanguage.address, ReaderLanguage.language)
                           .where(ReaderLanguage.address.in_(wanted)))
    return {address: language for address, language in rows}


def languages_of(session: Session, addresses: Iterable[str], game: Game | None = None) -> dict[str, str]:
    """The language each of `addresses` reads mail about `game` in (None: no game), by the
    address as given."""
    addresses = list(addresses)
    own = chosen(session, addresses)
    default = game_language(game)
    return {a: own.get(a.lower(), default) for a in addresses}


def language_of(session: Session, address: str | None, game: Game | None = None) -> str:
    if not address:
        return game_language(game)
    return languages_of(session, [address], game)[address]


def choose(session: Session, address: str, language: str | None) -> None:
    """`address` reads the judge in `language` from now on (None: its games' languages again)."""
    session.execute(delete(ReaderLanguage).where(ReaderLanguage.address == address.lower()))
    if language is not None:
        session.add(ReaderLanguage(address=address.lower(), language=language, since=utcnow()))
