"""Does the picture agree with the rules? Which regions touch in the art, against the variant's
adjacency, every difference listed. Build time only (see gm/maps/geography.py)."""
from __future__ import annotations

from dataclasses import dataclass, field

import shapely

from gm.engine.graph import Terrain
from gm.engine.model import province_of
from gm.maps.geography import Board

ARMY_BORDER_M = 5_000  # two land spaces touch when they share this much border
SEA_BORDER_M = 10_000  # a sea touches a space when they share this much border
NEAR_M = 500  # how far apart two borders may be and still count as shared (rounding in the geometry)


@dataclass(frozen=True, order=True)
class Difference:
    kind: str  # "army" or "fleet"
    a: str
    b: str
    in_rules: bool  # True: the rules have the edge and the art not; False: the art has it, the rules not
    border_km: float = 0.0  # length of the shared border in the art
    explained: str = ""  # the geography.toml entry that lists it

    def __str__(self) -> str:
        if self.kind.startswith("stale"):
            return f"{self.kind} {self.a}-{self.b}: geography.toml lists it, but the art agrees with the rules"
        what = "rules only" if self.in_rules else f"art only ({self.border_km:.0f} km of border)"
        why = f"  expected: {self.explained}" if self.explained else ""
        return f"{self.kind:5} {self.a}-{self.b}: {what}{why}"


@dataclass
class CheckReport:
    variant: str
    differences: list[Difference] = field(default_factory=list)

    @property
    def unexplained(self) -> list[Difference]:
        return [d for d in self.differences if not d.explained]

    def text(self) -> str:
        lines = [f"{self.variant}: {len(self.differences)} differences between the art and the rules, "
                 f"{len(self.unexplained)} unexplained"]
        lines += [f"  {d}" for d in sorted(self.differences, key=lambda d: (bool(d.explained), d.kind, d.a, d.b))]
        return "\n".join(lines)


def shared_borders(board: Board) -> dict[frozenset[str], float]:
    """Length in metres of the border each pair of touching spaces shares."""
    keys = list(board.regions)
    geoms = [board.regions[k] for k in keys]
    tree = shapely.STRtree(geoms)
    out: dict[frozenset[str], float] = {}
    for i, k in enumerate(keys):
        near = geoms[i].buffer(NEAR_M)
        for j in tree.query(near, predicate="intersects"):
            if j > i:
                length = shapely.intersection(geoms[j].boundary, near).length
                if length > 0:
                    out[frozenset((k, keys[j]))] = length
    return out


def coast_meets_sea(board: Board, a: str, b: str, sea_touch: dict[str, set[str]]) -> bool:
    """Does the land border between coastal spaces a and b reach a sea that both touch?"""
    border = shapely.intersection(board.regions[a].buffer(NEAR_M), board.regions[b].buffer(NEAR_M))
    for sea in sea_touch.get(a, set()) & sea_touch.get(b, set()):
        if border.intersects(board.regions[sea].buffer(NEAR_M)):
            return True
    return False


def check_board(board: Board) -> CheckReport:
    variant = board.variant
    game_map = variant.map
    terrain = {k: p.terrain for k, p in game_map.provinces.items()}
    playable = {k for k, t in terrain.items() if t is not Terrain.IMPASSABLE}
    borders = shared_borders(board)

    army_rules = {frozenset((a, province_of(b))) for a, dests in game_map.army.items() for b in dests}
    fleet_rules = {frozenset((province_of(a), province_of(b))) for a, dests in game_map.fleet.items() for b in dests}
    army_art = {e for e, length in borders.items()
                if length > ARMY_BORDER_M and e <= playable and all(terrain[k] is not Terrain.SEA for k in e)}
    sea_touch: dict[str, set[str]] = {}
    fleet_art = set()
    for e, length in borders.items():
        if length > SEA_BORDER_M and e <= playable and any(terrain[k] is Terrain.SEA for k in e):
            fleet_art.add(e)
            a, b = sorted(e)
            if terrain[a] is Terrain.SEA:
                sea_touch.setdefault(b, set()).add(a)
            if terrain[b] is Terrain.SEA:
                sea_touch.setdefault(a, set()).add(b)
    # coast to coast: along the shore, where the common land border reaches a common sea
    for e in army_art:
        a, b = sorted(e)
        if terrain[a] is Terrain.COAST and terrain[b] is Terrain.COAST and coast_meets_sea(board, a, b, sea_touch):
            fleet_art.add(e)

    listed = {frozenset(c["between"]): c.get("why", "crossing") for c in board.geography.crossing}
    apart = {frozenset(c["between"]): c.get("why", "apart") for c in board.geography.apart}
    report = CheckReport(variant.name)
    for kind, rules, art in (("army", army_rules, army_art), ("fleet", fleet_rules, fleet_art)):
        for e in rules - art:
            a, b = sorted(e)
            report.differences.append(Difference(kind, a, b, True, borders.get(e, 0) / 1000, listed.get(e, "")))
        for e in art - rules:
            a, b = sorted(e)
            report.differences.append(Difference(kind, a, b, False, borders.get(e, 0) / 1000, apart.get(e, "")))
    explained = {frozenset((d.a, d.b)) for d in report.differences if d.explained}
    for entry, kind in [(c, "crossing") for c in board.geography.crossing] + [(c, "apart") for c in board.geography.apart]:
        if frozenset(entry["between"]) not in explained:  # an entry that explains nothing misleads: say so
            a, b = sorted(entry["between"])
            report.differences.append(Difference(f"stale {kind}", a, b, kind == "crossing"))
    return report
