"""Maps drawn once for every channel: a picture is kept in the database under what it is drawn
from (the variant, the scene: its position, orders and results, title and legend, and the
palette), so that the results mail's outbox and the game's pages, in any process of any `gm
serve` sharing the database, draw each picture once and find it after.

A key is a digest of the scene as drawn, never of where it came from: two channels that draw the
same picture share it, and a picture that differs by a word of its legend is another.

The store is bounded: a picture is kept KEEP_HOURS after it was drawn, and never more than
KEEP_MOST of them (the newest): the pages and the results mail of a phase are drawn within
minutes of each other, and what is gone is only drawn again. KEEP_MOST is a thousand games'
phase of pictures (about 75 KB each: some 300 MB at most, in the database and its backups).
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import timedelta

from sqlalchemy import delete, select
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

import gm
from gm.engine.variant import Variant
from gm.maps.render import Scene, render
from gm.store.db import transaction
from gm.store.models import DrawnMap, utcnow

KEEP_HOURS = 1
KEEP_MOST = 4000


def key_of(variant: Variant, scene: Scene, palette: str) -> str:
    """What a picture is drawn from, as a digest (the release too: another may draw it otherwise)."""
    made_of = f"{gm.__version__}\0{variant.name}\0{palette}\0{scene!r}"
    return hashlib.sha256(made_of.encode("utf-8", "surrogatepass")).hexdigest()


class MapStore:
    """The database's pictures, for one process: `picture` finds one or draws and keeps it.
    `drawn` and `found` count what it did (the benchmarks and the pages' figures read them)."""

    def __init__(self, session_factory: sessionmaker[Session]) -> None:
        self.session_factory = session_factory
        self.drawn = 0
        self.found = 0

    def picture(self, variant: Variant, scene: Scene, palette: str,
                draw: Callable[[Variant, Scene, str], bytes] = render) -> bytes:
        """The PNG of `scene` in `palette`: kept, or drawn now by `draw` (the channel's own way to
        draw) and kept. Call it outside any transaction: it opens its own, short ones. The store
        never costs a picture: a database that cannot answer only means drawing it again."""
        key = key_of(variant, scene, palette)
        try:
            with transaction(self.session_factory) as session:
                png = session.scalar(select(DrawnMap.png).where(DrawnMap.key == key))
        except SQLAlchemyError:  # a database too busy to answer: the picture is drawn, as without a store
            png = None
        if png is not None:
            self.found += 1
            return bytes(png)
        png = draw(variant, scene, palette)
        self.drawn += 1
        try:
            with transaction(self.session_factory) as session:
                session.add(DrawnMap(key=key, png=png))
                session.flush()
                _prune(session)
        except SQLAlchemyError:  # drawn meanwhile by another process (the same picture), or too busy: not kept
            pass
        return png


def _prune(session: Session) -> None:
    """Drop what is older than KEEP_HOURS, and all but the KEEP_MOST newest pictures."""
    session.execute(delete(DrawnMap).where(DrawnMap.drawn_at < utcnow() - timedelta(hours=KEEP_HOURS)))
    newest = select(DrawnMap.drawn_at).order_by(DrawnMap.drawn_at.desc()).offset(KEEP_MOST).limit(1).scalar_subquery()
    session.execute(delete(DrawnMap).where(DrawnMap.drawn_at <= newest))
