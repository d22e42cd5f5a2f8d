"""An imported variant as the files of its maps/<name>/ folder: variant.toml (the data, with
`rules = "standard"`, which makes the registry find it), README.md (where it came from, in the
map's own words, and what the files said that gm reads otherwise) and the geography.toml scaffold
that `gm map build` needs, every space listed with its anchors left for the author to fill.

Texts only: the caller writes them."""
from __future__ import annotations

import json
import re
from collections import Counter

from gm.variants.importing import Imported

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")
TERRAIN_WORDS = {"sea": "seas", "coast": "coastal", "land": "inland", "impassable": "impassable"}


def _key(text: str) -> str:
    return text if _BARE.match(text) else json.dumps(text, ensure_ascii=False)


def _value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + " }"
    raise TypeError(f"no TOML for {value!r}")


def _table(lines: list[str], name: str, table: dict) -> None:
    lines.append("")
    lines.append(f"[{name}]")
    nested = []
    for k, v in table.items():
        if isinstance(v, dict) and k == "coasts":
            nested.append((k, v))
        else:
            lines.append(f"{_key(k)} = {_value(v)}")
    for k, v in nested:
        lines.append(f"[{name}.{k}]")
        lines.extend(f"{_key(c)} = {_value(dests)}" for c, dests in v.items())


def variant_toml(imported: Imported) -> str:
    data = imported.data
    files = imported.files
    used = f" (with {', '.join(files[1:])})" if len(files) > 1 else ""
    lines = [
        f"# {data['title']}: imported from {imported.source}'s {files[0]}{used} by `gm variant import`.",
        "# Standard Diplomacy's rules on this board (rules = \"standard\"); README.md says what was read and how.",
    ]
    for k in ("title", "rules", "victory_centres", "start"):
        lines.append(f"{k} = {_value(data[k])}")
    for name, power in data["powers"].items():
        _table(lines, f"powers.{_key(name)}", power)
    for abbr, province in data["provinces"].items():
        _table(lines, f"provinces.{_key(abbr)}", province)
    return "\n".join(lines) + "\n"


def counts(data: dict) -> dict[str, int]:
    """Spaces by terrain, supply centres, and home centres: the facts a README and a reply give."""
    provinces = data["provinces"].values()
    out = dict(Counter(p["terrain"] for p in provinces))
    out["spaces"] = len(data["provinces"])
    out["centres"] = sum(1 for p in provinces if p.get("centre"))
    out["homes"] = sum(len(p.get("home_centres", ())) for p in data["powers"].values())
    return out


def summary(data: dict) -> str:
    """'10 powers, 184 spaces (50 seas, 96 coastal, 34 inland, 4 impassable), 72 supply centres,
    victory at 37'."""
    n = counts(data)
    kinds = ", ".join(f"{n[t]} {w}" for t, w in TERRAIN_WORDS.items() if n.get(t))
    return (f"{len(data['powers'])} powers, {n['spaces']} spaces ({kinds}), {n['centres']} supply centres, "
            f"victory at {data['victory_centres']}")


def readme(imported: Imported, name: str) -> str:
    data = imported.data
    n = counts(data)
    start = data["start"]
    files = ", ".join(f"`{f}`" for f in imported.files)
    out = [
        f"# {data['title']} (`{name}`)",
        "",
        f"Imported from {imported.source}'s `{imported.files[0]}` by `gm variant import` (files read: {files}).",
        "It is played by standard Diplomacy's rules (`gm/engine/rules.py`, unchanged) on this board: "
        "`rules = \"standard\"` in `variant.toml`.",
        "",
    ]
    if imported.header:
        out += ["The map file's own words:", ""] + [f"> {line}" for line in imported.header] + [""]
    kinds = ", ".join(f"{n[t]} {w}" for t, w in TERRAIN_WORDS.items() if n.get(t))
    out += [
        "| fact | value |",
        "| --- | --- |",
        f"| spaces | {n['spaces']}: {kinds} |",
        f"| supply centres | {n['centres']}: {n['homes']} home centres, {n['centres'] - n['homes']} others |",
        f"| powers | {len(data['powers'])} |",
        f"| start | {start['season']} {start['year']}, {start.get('kind', 'Movement')} |",
        f"| victory | {data['victory_centres']} centres |",
        "",
        "| power | adjective | home centres | units |",
        "| --- | --- | --- | --- |",
    ]
    for power, p in data["powers"].items():
        out.append(f"| {power} | {p.get('adjective', '')} | {', '.join(p['home_centres'])} | {', '.join(p['units'])} |")
    out.append("")
    if imported.notes:
        out += ["What the files say that gm reads otherwise, or leaves aside:", ""]
        out += [f"* {note}" for note in imported.notes] + [""]
    out += [
        "The powers' colours on the maps are gm's: the map files carry none.",
        "",
        "## Map art",
        "",
        "`geography.toml` lists every space with its anchors still to fill in. Once they are, "
        f"`gm map build {name}` draws the board and `gm map check {name}` holds it to the adjacency; until "
        "then results mail says the map is not drawn yet. The whole path: `docs/variants.md`.",
        "",
    ]
    return "\n".join(out)


def geography_scaffold(data: dict, name: str) -> str:
    out = [
        f"# How `gm map build {name}` draws {data['title']}'s board (docs/variants.md, docs/maps.md). Fill in the",
        "# frame (the board's extent in longitude and latitude, a PROJ projection, the picture's width) and, for each",
        "# space, its anchors: real places in it as [latitude, longitude], several along its borders. Land is shared",
        "# among the land spaces, and water among the seas, by nearness to their anchors. Until every space has",
        "# anchors the board is not drawn, and results mail says the map is not drawn yet.",
        "",
        "[frame]",
        "# west = -10.0",
        "# east = 40.0",
        "# south = 30.0",
        "# north = 70.0",
        "# projection = \"+proj=laea +lat_0=50 +lon_0=15 +ellps=WGS84 +units=m\"",
        "# width = 1200",
        "",
        "[anchors]",
    ]
    for abbr, p in data["provinces"].items():
        out.append(f"# {_key(abbr)} = []  # {p['name']} ({p['terrain']})")
    out += [
        "",
        "# Crossings the rules have where the board shows no border (a strait), and borders the board shows",
        "# that the rules do not have, each with its reason (see docs/maps.md):",
        "# [[crossing]]",
        "# between = [\"AAA\", \"BBB\"]",
        "# why = \"...\"",
        "",
    ]
    return "\n".join(out)
