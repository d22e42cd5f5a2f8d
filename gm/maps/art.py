"""A variant's map art as the judge reads it: maps/<folder>/art/board.png, a palette image in which
every pixel's index says what is there (a space, a border, a label, ...), and art/layout.json,
where each space's unit, label and centre marker go. Made by `gm map build` (gm/maps/build.py).

Indices 0..N-1 are the spaces in layout["spaces"] order; the fixed indices below are the rest.
Colouring the board is then only a new palette; units and orders are drawn on top."""
from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from PIL import Image

from gm.variants import art_folder, board_drawn

# fixed palette indices of board.png; render.py adds its inks below FIRST_INK
WATER = 255  # lakes and water that is no space
OFF_BOARD = 254  # land that is not on the board, and impassable spaces
COASTLINE = 253
LAND_BORDER = 252
SEA_BORDER = 251
LABEL = 250
CENTRE = 249  # supply centre marker, inside
CENTRE_RING = 248
CROSSING = 247  # the rules' crossings over water, drawn as arrows
BAND = 246  # the title band and the legend band
FIRST_INK = 200  # 200..245 are free for whatever a render draws
MAX_SPACES = FIRST_INK

BASE_COLOURS = {
    WATER: "#b9d3e6",
    OFF_BOARD: "#c9c4b8",
    COASTLINE: "#2b3a42",
    LAND_BORDER: "#55504a",
    SEA_BORDER: "#8fb0c8",
    LABEL: "#1a1a1a",
    CENTRE: "#ffffff",
    CENTRE_RING: "#1a1a1a",
    CROSSING: "#1a1a1a",
    BAND: "#f4f1ea",
}
LAND = "#d8cfb2"  # an unowned land space
SEA = "#b9d3e6"
IMPASSABLE = BASE_COLOURS[OFF_BOARD]


@dataclass(frozen=True)
class Art:
    board: Image.Image  # mode "P", never drawn on: copy it
    layout: dict[str, Any]

    @property
    def spaces(self) -> dict[str, dict[str, Any]]:
        return self.layout["spaces"]

    def point(self, location: str) -> tuple[int, int]:
        """Where a unit at `location` (a space, or a space's coast: 'SPA/NC') is drawn."""
        space, _, coast = location.partition("/")
        entry = self.spaces[space]
        xy = entry.get("coasts", {}).get(coast) if coast else None
        return tuple(xy or entry["unit"])  # type: ignore[return-value]


@cache
def art_dir(variant_name: str) -> Path:
    """maps/<folder>/art of a variant; a geography.toml saying `base = "<folder>"` shares that folder's."""
    return art_folder(variant_name)


def has_art(variant_name: str) -> bool:
    return board_drawn(variant_name)


@cache
def load_art(variant_name: str) -> Art:
    where = art_dir(variant_name)
    with Image.open(where / "board.png") as im:
        im.load()
        board = im.copy()
    layout = json.loads((where / "layout.json").read_text("utf-8"))
    return Art(board, layout)
