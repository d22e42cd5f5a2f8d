"""The board as a reader finds it, whatever the format: spaces with their names, terrain and
adjacency, powers with their home centres and units, the start and the victory count. `finish`
turns it into the data of a maps/<name>/variant.toml once it holds together, and otherwise refuses
it with every problem at the line that caused it (an edge with no way back is named at the line
that gave it, a unit where it cannot stand at the unit's line)."""
from __future__ import annotations

from dataclasses import dataclass, field

from gm.engine.graph import Terrain
from gm.engine.rules import Rules
from gm.variants import VariantError, variant_from_data
from gm.variants.importing import ImportRefused, Problem, Where

# The boxed game's colours for its seven powers, where an imported map keeps their names; other
# powers take the colours after them, in the order the map lists them. Neither judge's map files
# carry colours (DPjudge draws them in its PostScript template, njudge in its C code).
BOARD_COLOURS = {
    "Austria": "#c0392b", "England": "#1f3a93", "France": "#5dade2", "Germany": "#3b3b3b",
    "Italy": "#27ae60", "Russia": "#f4f4f4", "Turkey": "#f1c40f",
}
MORE_COLOURS = ["#8e44ad", "#e67e22", "#a0522d", "#e84393", "#16a085", "#7f8c8d", "#b8860b", "#2c3e50",
                "#d35400", "#6c5ce7", "#00cec9", "#fd79a8", "#636e72", "#55efc4", "#fab1a0", "#74b9ff"]


@dataclass
class Space:
    abbr: str
    name: str
    terrain: Terrain
    where: Where
    aliases: list[str] = field(default_factory=list)
    army: dict[str, Where] = field(default_factory=dict)  # province -> the line that gave the edge
    fleet: dict[str, Where] = field(default_factory=dict)  # location -> line (a space without coasts)
    coasts: dict[str, dict[str, Where]] = field(default_factory=dict)  # 'NC' -> location -> line

    def fleet_locations(self) -> list[str]:
        if self.coasts:
            return [f"{self.abbr}/{c}" for c in self.coasts]
        return [self.abbr] if self.terrain in (Terrain.SEA, Terrain.COAST) else []


@dataclass(frozen=True)
class StartingUnit:
    kind: str  # 'A' or 'F'
    location: str  # 'STP/SC'
    where: Where


@dataclass
class PowerDraft:
    name: str
    where: Where
    adjective: str = ""
    homes: list[str] = field(default_factory=list)
    units: list[StartingUnit] = field(default_factory=list)
    centres: list[str] | None = None  # owned at the start; None: its home centres


@dataclass
class Draft:
    origin: str  # the map's file: where problems of the whole board are named
    title: str
    spaces: dict[str, Space] = field(default_factory=dict)
    centres: dict[str, Where] = field(default_factory=dict)  # supply centre -> the line that made it one
    powers: dict[str, PowerDraft] = field(default_factory=dict)
    start: tuple[str, int, str] | None = None  # ('Spring', 1901, 'Movement')
    victory: int | None = None
    problems: list[Problem] = field(default_factory=list)

    def problem(self, where: Where, text: str, rule: str = "") -> None:
        self.problems.append(Problem(where, text, rule))


def finish(draft: Draft, name: str, notes: list[str] | None = None) -> dict:
    """The variant.toml data of `draft`, checked as the engine will check it; ImportRefused with
    every problem (the reader's too) when it does not hold together. `notes` gets what was
    decided for the map that its files do not say (the victory count)."""
    _check_edges(draft)
    _check_units(draft)
    _check_centres(draft)
    if not draft.powers:
        draft.problem(Where(draft.origin), "no powers: the map names no power with home centres or units")
    if draft.start is None and not draft.problems:  # else a problem named already is why
        draft.problem(Where(draft.origin), "no starting phase")
    if draft.victory is None:
        draft.victory = len(draft.centres) // 2 + 1
        if notes is not None:
            notes.append(f"The files give no victory count: {draft.victory}, one more than half of the "
                         f"{len(draft.centres)} supply centres.")
    elif not 0 < draft.victory <= len(draft.centres):
        draft.problem(Where(draft.origin), f"a victory at {draft.victory} centres, of {len(draft.centres)}")
    if draft.problems:
        raise ImportRefused(draft.problems)
    data = to_data(draft)
    try:
        variant_from_data(name, data, Rules())
    except (VariantError, ValueError, KeyError) as e:  # what the checks above missed: said, not raised
        raise ImportRefused([Problem(Where(draft.origin), f"the engine refuses the board: {e}")]) from None
    return data


def _fleet_targets(draft: Draft) -> dict[str, Space]:
    return {loc: s for s in draft.spaces.values() for loc in s.fleet_locations()}


def _check_edges(draft: Draft) -> None:
    spaces = draft.spaces
    fleet_at = _fleet_targets(draft)
    army: dict[str, dict[str, Where]] = {}
    fleet: dict[str, dict[str, Where]] = {}
    for s in spaces.values():
        if s.terrain in (Terrain.LAND, Terrain.COAST):
            army[s.abbr] = s.army
        elif s.army:
            draft.problem(next(iter(s.army.values())), f"{s.abbr} is {s.terrain.value}: no army stands there")
        if s.coasts:
            fleet.update({f"{s.abbr}/{c}": dests for c, dests in s.coasts.items()})
        elif s.abbr in fleet_at:
            fleet[s.abbr] = s.fleet
        elif s.fleet:
            draft.problem(next(iter(s.fleet.values())), f"{s.abbr} is {s.terrain.value}: no fleet stands there")
    for here, dests in army.items():
        for there, where in dests.items():
            if there not in army:
                what = "an unknown space" if there not in spaces else f"{spaces[there].terrain.value}, where no army goes"
                draft.problem(where, f"army: {here} borders {there}, {what}")
            elif here not in army[there]:
                draft.problem(where, f"army: {here} borders {there}, but {there} does not border {here}")
    for here, dests in fleet.items():
        for there, where in dests.items():
            if there not in fleet:
                what = "an unknown space" if there.partition("/")[0] not in spaces else "where no fleet stands"
                draft.problem(where, f"fleet: {here} borders {there}, {what}")
            elif here not in fleet[there]:
                draft.problem(where, f"fleet: {here} borders {there}, but {there} does not border {here}")


def _check_units(draft: Draft) -> None:
    fleet_at = _fleet_targets(draft)
    held: dict[str, StartingUnit] = {}
    for p in draft.powers.values():
        for u in p.units:
            province = u.location.partition("/")[0]
            space = draft.spaces.get(province)
            if space is None:
                draft.problem(u.where, f"{p.name}'s {u.kind} {u.location}: no such space")
                continue
            if u.kind == "A" and (u.location != province or space.terrain not in (Terrain.LAND, Terrain.COAST)):
                draft.problem(u.where, f"{p.name}'s army in {u.location}: an army cannot stand there ({space.terrain.value})")
            elif u.kind == "F" and u.location not in fleet_at:
                coasts = ", ".join(space.fleet_locations())
                why = f"name its coast ({coasts})" if space.coasts else f"{space.terrain.value}"
                draft.problem(u.where, f"{p.name}'s fleet in {u.location}: a fleet cannot stand there ({why})")
            if province in held:
                draft.problem(u.where, f"two units in {province}: {p.name}'s {u.kind} {u.location} and the "
                                       f"{held[province].kind} {held[province].location} of line {held[province].where.line}")
            else:
                held[province] = u


def _check_centres(draft: Draft) -> None:
    owner: dict[str, str] = {}
    for p in draft.powers.values():
        for c in p.homes:
            if c not in draft.spaces:
                draft.problem(p.where, f"{p.name}'s home centre {c}: no such space")
            elif c not in draft.centres:
                draft.problem(p.where, f"{p.name}'s home centre {c} is no supply centre")
        for c in p.centres if p.centres is not None else p.homes:
            if c in draft.spaces and c in draft.centres:
                if c in owner and owner[c] != p.name:
                    draft.problem(p.where, f"{c} is owned at the start by both {owner[c]} and {p.name}")
                owner[c] = p.name
            elif p.centres is not None and c not in p.homes:
                draft.problem(p.where, f"{p.name} owns {c} at the start, which is no supply centre")
    homes = {c for p in draft.powers.values() for c in p.homes}  # named above already
    for c, where in draft.centres.items():
        if c not in draft.spaces and c not in homes:
            draft.problem(where, f"supply centre {c}: no such space")


def to_data(draft: Draft) -> dict:
    """The variant.toml data, in its order: powers as the map lists them, provinces by abbreviation."""
    powers: dict[str, dict] = {}
    spare = iter(MORE_COLOURS)
    for p in draft.powers.values():
        entry: dict = {"colour": BOARD_COLOURS.get(p.name) or next(spare, "#888888")}
        if p.adjective:
            entry["adjective"] = p.adjective
        entry["home_centres"] = sorted(p.homes)
        if p.centres is not None and sorted(p.centres) != sorted(p.homes):
            entry["centres"] = sorted(p.centres)
        entry["units"] = [f"{u.kind} {u.location}" for u in p.units]
        powers[p.name] = entry
    provinces: dict[str, dict] = {}
    for abbr in sorted(draft.spaces):
        s = draft.spaces[abbr]
        entry = {"name": s.name, "terrain": s.terrain.value}
        if abbr in draft.centres:
            entry["centre"] = True
        if s.aliases:
            entry["aliases"] = list(s.aliases)
        if s.terrain in (Terrain.LAND, Terrain.COAST):
            entry["army"] = sorted(s.army)
        if s.coasts:
            entry["coasts"] = {c: sorted(dests) for c, dests in s.coasts.items()}
        elif s.terrain in (Terrain.COAST, Terrain.SEA):
            entry["fleet"] = sorted(s.fleet)
        provinces[abbr] = entry
    assert draft.start is not None and draft.victory is not None
    season, year, kind = draft.start
    start: dict = {"season": season, "year": year}
    if kind != "Movement":
        start["kind"] = kind
    return {"title": draft.title, "rules": "standard", "victory_centres": draft.victory, "start": start,
            "powers": powers, "provinces": provinces}
