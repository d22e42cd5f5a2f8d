"""What the log says of a mail out, in its one line: its kind, its game and the recipient's role
there ('results, game ae1, to France'), never an address, a password, a code or a word of the
mail. The mail in has its line where ingest decides what became of it (gm.mail.ingest)."""
from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy import select, tuple_
from sqlalchemy.orm import Session

from gm.store.models import Game, Master, OutboundMail, Player


def describe(session: Session, rows: Sequence[OutboundMail]) -> dict[int, str]:
    """'kind, game NAME, to ROLE' of each row, by id, read in three queries for all of them."""
    games = [row.game_id for row in rows if row.game_id is not None]
    names: dict[int, str] = {}
    roles: dict[tuple[int, str], str] = {}
    if games:
        names = {game_id: name for game_id, name in session.execute(
            select(Game.id, Game.name).where(Game.id.in_(set(games))))}
        pairs = sorted({(row.game_id, row.to_addr.lower()) for row in rows if row.game_id is not None})
        for game_id, email, power in session.execute(
                select(Player.game_id, Player.email, Player.power)
                .where(tuple_(Player.game_id, Player.email).in_(pairs), Player.left_at.is_(None))):
            roles[(game_id, email)] = power or "a player"
        for game_id, email in session.execute(
                select(Master.game_id, Master.email)
                .where(tuple_(Master.game_id, Master.email).in_(pairs), Master.left_at.is_(None))):
            roles.setdefault((game_id, email), "the GM")
    said = {}
    for row in rows:
        if row.game_id is None:  # an answer to a mail in (see its line): to whoever sent it
            said[row.id] = row.kind
            continue
        role = roles.get((row.game_id, row.to_addr.lower()), "another address")
        said[row.id] = f"{row.kind}, game {names.get(row.game_id, row.game_id)}, to {role}"
    return said
