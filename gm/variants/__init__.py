"""The variant registry: each variant is a data folder under maps/ plus one rules module here; a
variant imported from another judge's map (gm.variants.importing) is a folder whose variant.toml
names rules gm already has (`rules = "standard"`), found there without a line of code."""
from __future__ import annotations

import importlib
import itertools
import os
import re
import tomllib
from functools import cache
from pathlib import Path

from gm.engine.graph import GameMap, Province, Terrain
from gm.engine.model import Phase, PhaseKind, Season, UnitType, Unit, parse_designation, province_of
from gm.engine.rules import Rules
from gm.engine.variant import Language, LocalName, Power, Variant
from gm.i18n import Written

# name -> (folder under maps/, module under gm.variants holding its Rules class): the variants gm
# ships with rules of their own, then every folder under maps/ whose variant.toml names rules gm
# has (RULES_BY_NAME): a variant imported from another judge's map (`gm variant import`).
SHIPPED: dict[str, tuple[str, str]] = {
    "standard": ("standard", "gm.variants.standard"),
    "classical": ("classical", "gm.variants.classical"),
    "ambition": ("ambition", "gm.variants.ambition"),
    "ambition-v6": ("ambition-v6", "gm.variants.ambition_v6"),
    "napoleonic": ("napoleonic", "gm.variants.napoleonic"),
    "1700ad": ("1700ad", "gm.variants.ad1700"),
}
RULES_BY_NAME = {"standard": "gm.variants.standard"}  # a variant.toml's `rules = "..."`
REGISTRY: dict[str, tuple[str, str]] = dict(SHIPPED)
ALIASES = {
    "classical-mediterranean": "classical",
    "classic": "classical",
    "ambition-and-empire": "ambition",
    "ambition&empire": "ambition",
    "a&e": "ambition",
    "ambition-2006": "ambition",
    "ambition6": "ambition-v6",
    "ambition-and-empire-v6": "ambition-v6",
    "napoleonic-wars": "napoleonic",
    "napoleon": "napoleonic",
    "1700ad-ii": "1700ad",
    "1700": "1700ad",
}


POWER_KEYS = {"adjective", "aliases", "home_centres", "minor", "units", "centres", "colour"}


class VariantError(ValueError):
    pass


def maps_dir() -> Path:
    return Path(os.environ.get("GM_MAPS", Path(__file__).resolve().parents[2] / "maps"))


def imported_variants(root: Path) -> dict[str, tuple[str, str]]:
    """The folders under `root` (maps/) whose variant.toml says `rules = "<rules gm has>"`, by
    folder name: variants imported from other judges' maps, played by rules gm already has. Only
    the lines before the first table are read: TOML puts every top-level key there."""
    found: dict[str, tuple[str, str]] = {}
    shipped = {folder for folder, _ in SHIPPED.values()}
    for path in sorted(root.glob("*/variant.toml")):
        folder = path.parent.name
        if folder in shipped or folder != folder.lower():
            continue
        with path.open("rb") as fh:
            head = b"".join(itertools.takewhile(lambda line: not line.lstrip().startswith(b"["), fh))
        m = re.search(rb'^rules\s*=\s*"([a-z0-9-]+)"', head, re.MULTILINE)
        if m is not None and m[1].decode() in RULES_BY_NAME:
            found[folder] = (folder, RULES_BY_NAME[m[1].decode()])
    return found


def find_imported() -> None:
    """Bring REGISTRY up to date with maps/: a variant imported since gm started becomes known."""
    REGISTRY.update(imported_variants(maps_dir()))


def canonical_name(name: str) -> str:
    key = name.strip().lower()
    key = ALIASES.get(key, key)
    if key not in REGISTRY:
        find_imported()
    if key not in REGISTRY:
        raise VariantError(f"unknown variant {name!r}; known: {', '.join(sorted(REGISTRY))}")
    return key


def art_folder(name: str) -> Path:
    """maps/<folder>/art of a variant, where `gm map build` puts its board; a geography.toml saying
    `base = "<folder>"` shares that folder's."""
    folder = REGISTRY[canonical_name(name)][0]
    geography = maps_dir() / folder / "geography.toml"
    if geography.exists():
        with geography.open("rb") as fh:
            folder = tomllib.load(fh).get("base", folder)
    return maps_dir() / folder / "art"


@cache
def board_drawn(name: str) -> bool:
    """Has the variant's board been drawn (`gm map build`)? Until it has, no mail carries a map
    of it, and results say so. A variant the registry does not know (one built in code) is not
    said to be undrawn."""
    try:
        return (art_folder(name) / "layout.json").exists()
    except VariantError:
        return True


@cache
def load_variant(name: str) -> Variant:
    key = canonical_name(name)
    folder, module = REGISTRY[key]
    rules_class: type[Rules] = getattr(importlib.import_module(module), "VariantRules")
    data = read_variant_data(folder)
    return variant_from_data(key, data, rules_class(), docs=str(maps_dir() / folder / "README.md"),
                             languages=read_languages(folder))


def read_languages(folder: str) -> dict[str, dict]:
    """maps/<folder>/languages/<code>.toml: the variant's names in other languages, by code."""
    found = {}
    for path in sorted((maps_dir() / folder / "languages").glob("*.toml")):
        with path.open("rb") as fh:
            found[path.stem] = tomllib.load(fh)
    return found


def languages_from_data(key: str, files: dict[str, dict], provinces: dict[str, Province],
                        powers: dict[str, Power]) -> dict[str, Language]:
    """Each language file's names, checked against the map and the powers they name."""
    out: dict[str, Language] = {}
    for code, data in files.items():
        unknown = set(data) - {"provinces", "powers", "title", "notes"}
        if unknown:
            raise VariantError(f"{key}: languages/{code}.toml: unknown table {sorted(unknown)[0]!r}")
        named: dict[str, dict[str, LocalName]] = {}
        for table, known in (("provinces", provinces), ("powers", powers)):
            named[table] = {}
            for name, fields in data.get(table, {}).items():
                if name not in known:
                    raise VariantError(f"{key}: languages/{code}.toml names no {table[:-1]} of the variant: {name!r}")
                try:
                    named[table][name] = LocalName(fields["name"], fields.get("abbr", ""), fields.get("adjective", ""),
                                                   tuple(fields.get("aliases", ())))
                except (KeyError, TypeError) as e:
                    raise VariantError(f"{key}: languages/{code}.toml: {table}.{name}: {e}") from None
        out[code] = Language(code, named["provinces"], named["powers"])
    return out


def _title(english: str, local: dict[str, str]) -> str:
    """The variant's title, written in a reader's language where a language file gives it one
    (`title = "Diplomatie (carte standard)"`): it reads as the English."""
    return Written(_local_title, english, tuple(sorted(local.items()))) if local else english


def _local_title(language: str, english: str, local: tuple[tuple[str, str], ...]) -> str:
    return dict(local).get(language, english)


def _notes(key: str, notes: tuple[str, ...], languages: dict[str, dict]) -> tuple[str, ...]:
    """The notes every player is told at the start, each in a reader's language where a language
    file gives them (`notes = [...]`, one for each of variant.toml's, in its order)."""
    local = {code: d["notes"] for code, d in languages.items() if "notes" in d}
    for code, written in local.items():
        if len(written) != len(notes):
            raise VariantError(f"{key}: languages/{code}.toml has {len(written)} notes, variant.toml {len(notes)}")
    return tuple(_title(note, {code: written[i] for code, written in local.items()}) for i, note in enumerate(notes))


def read_variant_data(folder: str) -> dict:
    """maps/<folder>/variant.toml; a file with `base = "<folder>"` holds only what differs from
    that variant's data (tables merge key by key, anything else replaces)."""
    with (maps_dir() / folder / "variant.toml").open("rb") as fh:
        data = tomllib.load(fh)
    base = data.pop("base", None)
    return _merge(read_variant_data(base), data) if base else data


def _merge(base: dict, changes: dict) -> dict:
    out = dict(base)
    for k, v in changes.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def variant_from_data(key: str, data: dict, rules: Rules, docs: str = "",
                      languages: dict[str, dict] | None = None) -> Variant:
    """Build a Variant from the parsed variant.toml, checking that the map is consistent."""
    provinces: dict[str, Province] = {}
    army: dict[str, set[str]] = {}
    fleet: dict[str, set[str]] = {}
    for abbr, p in data["provinces"].items():
        terrain = Terrain(p["terrain"])
        coasts = p.get("coasts", {})
        provinces[abbr] = Province(
            abbr=abbr,
            name=p["name"],
            terrain=terrain,
            supply_centre=p.get("centre", False),
            coasts=tuple(coasts),
            aliases=tuple(p.get("aliases", ())),
        )
        if terrain in (Terrain.LAND, Terrain.COAST):
            army[abbr] = set(p.get("army", ()))
        if coasts:
            for coast, dests in coasts.items():
                fleet[f"{abbr}/{coast}"] = set(dests)
        elif terrain in (Terrain.COAST, Terrain.SEA):
            fleet[abbr] = set(p.get("fleet", ()))
    _check_symmetric(key, "army", army, provinces)
    _check_symmetric(key, "fleet", fleet, provinces)
    game_map = GameMap(
        provinces=provinces,
        army={k: frozenset(v) for k, v in army.items()},
        fleet={k: frozenset(v) for k, v in fleet.items()},
    )
    powers: dict[str, Power] = {}
    units: list[Unit] = []
    centres: dict[str, str] = {}
    for name, p in data["powers"].items():
        homes = frozenset(p.get("home_centres", ()))
        powers[name] = Power(
            name=name,
            adjective=p.get("adjective", ""),
            aliases=tuple(p.get("aliases", ())),
            home_centres=homes,
            minor=p.get("minor", False),
            colour=p.get("colour", ""),
            traits={k: v for k, v in p.items() if k not in POWER_KEYS},
        )
        for text in p.get("units", ()):
            kind, loc = text.split()
            counts = parse_designation(kind)  # 'A', 'F', and stacks such as '2F' or 'A/2F'
            if counts is None:
                raise VariantError(f"{key}: {text!r} is not a unit")
            units.append(Unit.of(name, loc, *counts))
        for c in p.get("centres", sorted(homes)):
            centres[c] = name
    for u in units:
        where = game_map.fleet_locations(u.province) if u.type is UnitType.FLEET else (u.province,)
        if u.location not in where or (u.type is UnitType.ARMY and u.province not in army):
            raise VariantError(f"{key}: starting unit {u} of {u.power} stands where it cannot")
    for c in centres:
        if not provinces[c].supply_centre:
            raise VariantError(f"{key}: {c} is owned at the start but is no supply centre")
    start = data["start"]
    return Variant(
        name=key,
        title=_title(data["title"], {code: str(d["title"]) for code, d in (languages or {}).items() if "title" in d}),
        map=game_map,
        powers=powers,
        starting_units=tuple(units),
        starting_centres=centres,
        first_phase=Phase(start["year"], Season(start["season"]), PhaseKind(start.get("kind", "Movement"))),
        victory_centres=data["victory_centres"],
        rules=rules,
        docs=docs,
        facts=data.get("facts", {}),
        notes=_notes(key, tuple(data.get("notes", ())), languages or {}),
        languages=languages_from_data(key, languages or {}, provinces, powers),
    )


def _check_symmetric(key: str, kind: str, adj: dict[str, set[str]], provinces: dict) -> None:
    for here, dests in adj.items():
        for there in dests:
            if province_of(there) not in provinces:
                raise VariantError(f"{key}: {kind} edge {here}-{there} names an unknown space")
            if here not in adj.get(there, ()):
                raise VariantError(f"{key}: {kind} edge {here}-{there} has no way back")


find_imported()
