"""Maps drawn once for every channel: a picture is kept in the database under what it is drawn
from (the variant, the scene: its position, orders and results, title and legend, and the
palette), so that the results mail's outbox and the game's pages, in any process of any `gm
serve` sharing the database, draw each picture once and find it after.

A key is a digest of the scene as drawn, never of where it came from: two channels that draw the
same picture share it, and a picture that differs by a word of its legend is another. Pictures are
kept KEEP_HOURS after they were drawn (the pages and the mail of a phase are written within
minutes of each other, and a mail retried later draws its maps again): the store stays a few
hours of adjudications large, and so do the backups of the database.
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

KEEP_HOURS = 6


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
                session.execute(delete(DrawnMap).where(DrawnMap.drawn_at < utcnow() - timedelta(hours=KEEP_HOURS)))
                session.add(DrawnMap(key=key, png=png))
        except SQLAlchemyError:  # drawn meanwhile by another process (the same picture), or too busy: not kept
            pass
        return png
