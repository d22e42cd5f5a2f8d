"""Napoleonic Wars' own orders on the map: a denied passage (X) and a blockade (B), each where it
acts, with its result as the other orders show theirs (grey-edged and crossed when it failed)."""
from __future__ import annotations

import dataclasses
import io
from pathlib import Path

import numpy as np
from PIL import Image

from gm.casefile import read_cases, run_case
from gm.engine.model import UnitType
from gm.engine.orders import Blockade, Deny
from gm.maps import render
from gm.maps.art import load_art

CASES = Path(__file__).parents[1] / "variants" / "napoleonic" / "cases"
ART = load_art("napoleonic")


def scene_of(file: str, case_id: str) -> tuple[render.Scene, object]:
    (case,) = [c for c in read_cases(CASES / file) if c.id == case_id]
    run = run_case(case)
    return render.run_scene(run), run.variant


def pixels(variant: object, scene: render.Scene) -> np.ndarray:
    return np.array(Image.open(io.BytesIO(render.render(variant, scene))))  # type: ignore[arg-type]


def without(scene: render.Scene, kind: str) -> render.Scene:
    return dataclasses.replace(scene, orders=[o for o in scene.orders if o.kind != kind])


def near(ids: np.ndarray, location: str, r: int, offset: tuple[float, float] = (0, 0)) -> np.ndarray:
    x, y = ART.point(location)
    x, y = round(x + offset[0]), round(y + offset[1])
    return ids[y - r:y + r + 1, x - r:x + r + 1]


def england_ink(variant: object, scene: render.Scene) -> int:
    colour = render._rgb(render.power_colours(variant)["England"])  # type: ignore[arg-type]
    im = Image.open(io.BytesIO(render.render(variant, scene)))  # type: ignore[arg-type]
    palette = im.getpalette() or []
    return next(i for i in range(render.POWER_INK, 256) if tuple(palette[3 * i:3 * i + 3]) == colour)


def test_denials_and_blockades_are_read_as_the_engine_writes_them() -> None:
    F = UnitType.FLEET
    deny = render.drawn_order("England", str(Deny("England", F, "SKA", "DEN", "SWE")), "succeeds")
    assert deny is not None
    assert (deny.kind, deny.unit, deny.target, deny.dest, deny.ok) == ("deny", "SKA", "DEN", "SWE", True)
    blockade = render.drawn_order("England", str(Blockade("England", F, "MAO", "BRE")), "cut")
    assert blockade is not None
    assert (blockade.kind, blockade.unit, blockade.dest, blockade.ok) == ("blockade", "MAO", "BRE", False)


def test_a_denial_bars_the_passage_at_the_fleet() -> None:
    scene, variant = scene_of("nw_passages.txt", "nw.passage.3")
    (deny,) = [o for o in scene.orders if o.kind == "deny"]
    assert deny.ok is True and (deny.unit, deny.target, deny.dest) == ("SKA", "DEN", "SWE")
    ids, before = pixels(variant, scene), pixels(variant, without(scene, "deny"))
    ink = england_ink(variant, scene)
    changed = ids != before
    # the bar across the passage, at the fleet (its ends stand out either side of the ship)
    assert (near(changed, "SKA", 24) & (near(ids, "SKA", 24) == ink)).sum() > 60
    # and nothing far from the passage: the fleet's sea and the two ends
    ys, xs = np.nonzero(changed)
    points = [ART.point(p) for p in ("SKA", "DEN", "SWE")]
    left, right = min(p[0] for p in points) - 30, max(p[0] for p in points) + 30
    top, bottom = min(p[1] for p in points) - 30, max(p[1] for p in points) + 30
    assert xs.min() >= left and xs.max() <= right and ys.min() >= top and ys.max() <= bottom
    assert not ((near(ids, "SKA", 30) == render.FAILED) & near(changed, "SKA", 30)).any()


def test_a_denial_that_failed_is_grey_and_crossed() -> None:
    scene, variant = scene_of("nw_passages.txt", "nw.passage.4")
    (deny,) = [o for o in scene.orders if o.kind == "deny"]
    assert deny.ok is False  # the fleet was dislodged
    ids, before = pixels(variant, scene), pixels(variant, without(scene, "deny"))
    offset = ART.layout["dislodged_offset"]
    around = near(ids, "SKA", 30, offset)
    assert ((around == render.FAILED) & (near(before, "SKA", 30, offset) != render.FAILED)).sum() > 20
    assert ((around == render.DISLODGED) & (near(before, "SKA", 30, offset) != render.DISLODGED)).sum() > 10


def test_a_blockade_rings_the_port_and_a_cut_one_is_grey() -> None:
    held, variant = scene_of("nw_blockades.txt", "nw.blockade.1")
    cut, _ = scene_of("nw_blockades.txt", "nw.blockade.2")
    assert [o.ok for o in held.orders if o.kind == "blockade"] == [True]
    assert [o.ok for o in cut.orders if o.kind == "blockade"] == [False]
    ink = england_ink(variant, held)
    ids, before = pixels(variant, held), pixels(variant, without(held, "blockade"))
    ring = near(ids, "BRE", 26)
    assert ((ring == ink) & (near(before, "BRE", 26) != ink)).sum() > 100  # the ring round Brest
    assert not (ring == render.FAILED).any()
    ids_cut, before_cut = pixels(variant, cut), pixels(variant, without(cut, "blockade"))
    ring_cut = near(ids_cut, "BRE", 26)
    assert ((ring_cut == render.FAILED) & (near(before_cut, "BRE", 26) != render.FAILED)).sum() > 60
