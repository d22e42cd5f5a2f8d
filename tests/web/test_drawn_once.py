"""Maps drawn once for every channel (gm.maps.store): the results mail's outbox and the game's
pages find each other's pictures in the database instead of drawing them again, in any process;
the store keeps a few hours of pictures."""
from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.orm import Session, sessionmaker

from gm.mail.outgoing.mail_maps import DrawnMaps, draw_planned, plan_attachments
from gm.maps.render import position_scene
from gm.maps import store as store_module
from gm.maps.store import KEEP_HOURS, MapStore
from gm.store.db import make_engine, make_session_factory, transaction
from gm.store.models import DrawnMap, OutboundMail, utcnow
from gm.variants import load_variant
from gm.web.publish import Publisher
from played import play


def test_a_picture_is_drawn_once_in_all_processes_and_kept_a_few_hours(session_factory: sessionmaker[Session]) -> None:
    variant = load_variant("standard")
    scene = position_scene(variant, variant.initial_state(), "g1")
    first, second = MapStore(session_factory), MapStore(session_factory)  # two processes, say
    png = first.picture(variant, scene, "rulebook")
    assert png.startswith(b"\x89PNG") and (first.drawn, first.found) == (1, 0)
    assert second.picture(variant, scene, "rulebook") == png and (second.drawn, second.found) == (0, 1)
    second.picture(variant, scene, "colourblind")  # another palette, another picture
    assert second.drawn == 1
    with transaction(session_factory) as s:
        s.execute(update(DrawnMap).values(drawn_at=utcnow() - timedelta(hours=KEEP_HOURS + 1)))
    first.picture(variant, position_scene(variant, variant.initial_state(), "g2"), "rulebook")
    with transaction(session_factory) as s:  # what was drawn long ago is gone; the new one is kept
        assert s.scalar(select(func.count()).select_from(DrawnMap)) == 1


def test_the_pages_find_the_maps_the_results_mail_drew(session_factory: sessionmaker[Session], tmp_path: Path) -> None:
    play(session_factory)
    mail = DrawnMaps()
    mail.store = MapStore(session_factory)
    with transaction(session_factory) as s:  # as the outbox sends each results mail: maps drawn then
        plans = [plan_attachments(s, row.attachments, mail) for row in s.scalars(
            select(OutboundMail).where(OutboundMail.kind == "results").order_by(OutboundMail.id))]
    for plan in plans:
        draw_planned(plan, mail)
    assert mail.store.drawn > 0
    pages = Publisher(session_factory, tmp_path / "pages")
    done = pages.round()
    # Every picture the mail drew in the palette the pages show too is found, not drawn again.
    assert pages.maps.found > 0 and done.maps == pages.maps.drawn
    again = Publisher(session_factory, tmp_path / "other")  # another folder, another process
    assert again.round().maps == 0 and again.maps.found == pages.maps.found + pages.maps.drawn


def test_a_store_that_cannot_answer_never_costs_a_picture(tmp_path: Path) -> None:
    # A database without the table (or too busy to answer): the picture is drawn, and not kept.
    store = MapStore(make_session_factory(make_engine(f"sqlite:///{tmp_path / 'empty.sqlite3'}")))
    variant = load_variant("standard")
    scene = position_scene(variant, variant.initial_state(), "g1")
    assert store.picture(variant, scene, "rulebook").startswith(b"\x89PNG")
    assert store.picture(variant, scene, "rulebook").startswith(b"\x89PNG")
    assert (store.drawn, store.found) == (2, 0)


def test_the_store_keeps_only_the_newest_pictures(session_factory: sessionmaker[Session],
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(store_module, "KEEP_MOST", 2)
    variant = load_variant("standard")
    store = MapStore(session_factory)
    scenes = [position_scene(variant, variant.initial_state(), f"g{i}") for i in range(4)]
    for scene in scenes:
        store.picture(variant, scene, "rulebook")
    with transaction(session_factory) as s:
        assert s.scalar(select(func.count()).select_from(DrawnMap)) == 2
    store.picture(variant, scenes[-1], "rulebook")  # the newest are kept
    assert (store.drawn, store.found) == (4, 1)
