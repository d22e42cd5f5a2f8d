"""The shipped map art: built from its geography, in agreement with the rules, and laid out so
that a player can read it. Rebuilding needs the mapbuild extra (GSHHS coastlines, pyproj, shapely)."""
from __future__ import annotations

import json

import numpy as np
import pytest
from PIL import Image

from gm.maps import art
from gm.maps.art import art_dir, load_art
from gm.variants import REGISTRY, load_variant

VARIANTS = sorted(REGISTRY)


def shipped(variant: str) -> bool:
    return (art_dir(variant) / "layout.json").exists()


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_variant_ships_art(variant: str) -> None:
    assert shipped(variant), f"{variant}: no map art; gm map build {variant}"


@pytest.mark.parametrize("variant", [v for v in VARIANTS if v != "ambition-v6"])  # v6 plays on the 2006 art
def test_the_art_agrees_with_the_rules_and_is_current(variant: str) -> None:
    from gm.maps.check import check_board
    from gm.maps.geography import build_board

    board = build_board(variant)
    report = check_board(board)
    assert not report.unexplained, report.text()
    layout = json.loads((art_dir(variant) / "layout.json").read_text())
    assert layout["geography"] == board.geography.digest, f"the art is older than its geography: gm map build {variant}"


def _boxes(layout: dict) -> tuple[list[tuple[str, tuple[float, float, float, float]]], list]:
    w, h = layout["unit_box"]
    dx, dy = layout["dislodged_offset"]
    units = []
    for k, entry in layout["spaces"].items():
        for x, y in [entry["unit"], *entry.get("coasts", {}).values()]:
            units.append((k, (x - w / 2, y - h / 2, x + w / 2, y + h / 2)))
            units.append((k, (x + dx - w / 2, y + dy - h / 2, x + dx + w / 2, y + dy + h / 2)))
    labels = [(k, (e["label_box"][0], e["label_box"][1], e["label_box"][0] + e["label_box"][2],
                   e["label_box"][1] + e["label_box"][3])) for k, e in layout["spaces"].items()]
    return units, labels


def _overlap(a, b) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


@pytest.mark.parametrize("variant", VARIANTS)
def test_no_label_covers_a_unit_or_another_label(variant: str) -> None:
    layout = load_art(variant).layout
    units, labels = _boxes(layout)
    for k, box in labels:
        hit = [u for u, ubox in units if _overlap(box, ubox)]
        assert not hit, f"{variant}: the label of {k} covers the unit place of {hit}"
        hit = [j for j, other in labels if j != k and _overlap(box, other)]
        assert not hit, f"{variant}: the label of {k} covers the label of {hit}"


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_space_is_on_the_board_and_holds_its_unit(variant: str) -> None:
    a = load_art(variant)
    ids = np.array(a.board)
    game_map = load_variant(variant).map
    assert set(a.spaces) == set(game_map.provinces)
    present = np.bincount(ids.ravel(), minlength=256)
    for k, entry in a.spaces.items():
        assert present[entry["id"]] > 150, f"{variant}: {k} has {present[entry['id']]} pixels"
        x, y = entry["unit"]
        assert ids[round(y), round(x)] in (entry["id"], art.LAND_BORDER, art.SEA_BORDER), f"{variant}: {k}'s unit is outside it"
        if entry["terrain"] != "impassable":
            assert not entry["cramped"], f"{variant}: a unit icon does not fit in {k}"
    for k, coast_points in ((k, e.get("coasts", {})) for k, e in a.spaces.items()):
        for coast, (x, y) in coast_points.items():
            assert ids[round(y), round(x)] == a.spaces[k]["id"], f"{variant}: {k}/{coast} is drawn outside {k}"


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_board_is_a_small_palette_image(variant: str) -> None:
    with Image.open(art_dir(variant) / "board.png") as im:
        # about 1,200 px; Classical needs 1,800 to show the Aegean's islands and gulfs as spaces,
        # Napoleonic to show the Canary Islands, Crete and Corsica as spaces; Youngstown, from Ireland
        # to Japan, 2,900 to hold a unit in each of Europe's spaces
        widths = {"classical": 1800, "napoleonic": 1800, "youngstown": 2900}
        assert im.mode == "P" and im.width == widths.get(variant, 1200)
    assert (art_dir(variant) / "board.png").stat().st_size < 150_000
