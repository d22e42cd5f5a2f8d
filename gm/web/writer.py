"""Writing the games' pages into a folder: the index of listed games, and for each game that has
pages its own folder (games/<name>/): the game's page (newest phase first), a page per
adjudicated phase with previous/next links, each page twice (the rulebook's colours and
colour-blind-safe ones, linked to each other: no JavaScript), the maps as PNG and a style sheet.

Maps are drawn once: each is kept under maps/ with what it was drawn from (maps/drawn.json), and
drawn again only when that changes (a rollback, a GM's correction). A page is written only when
what it shows changed, so that writing a game's pages after a phase costs the new phase's pages,
the game's page and the index. Files are replaced whole (written aside, then renamed), so that a
web server publishing the folder never serves half a page."""
from __future__ import annotations

import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import select_autoescape
from sqlalchemy import select
from sqlalchemy.orm import Session

from gm.engine.variant import Variant
from gm.i18n import ENGLISH, translated
from gm.maps.art import has_art
from gm.maps.render import PALETTES, power_colours, position_scene, render, results_scene
from gm.maps.store import MapStore
from gm.store.models import Game
from gm.variants import load_variant
from gm.view import paths
from gm.view.templates import environment, templates_dir
from gm.web.pages import GamePages, MapSource, game_pages, index_entry

STYLE = "style.css"
MANIFEST = "drawn.json"  # in a game's maps/ folder: each map's file -> what it was drawn from
PAGES_MANIFEST = ".pages.json"  # in a game's folder: each page -> what it showed when written


_PAGES = select_autoescape(("html.j2",), default=True)


def _render(name: str, language: str = ENGLISH, **values: Any) -> str:
    return environment("web", language, autoescape=_PAGES).get_template(name).render(**values)


@dataclass
class Written:
    """What one writing did: files written (pages and maps), maps drawn, files removed."""

    pages: int = 0
    maps: int = 0
    removed: int = 0
    files: list[Path] = field(default_factory=list)

    def add(self, other: Written) -> None:
        self.pages += other.pages
        self.maps += other.maps
        self.removed += other.removed
        self.files += other.files


def _put(path: Path, data: str | bytes) -> bool:
    """Replace `path` whole, unless it holds `data` already: a reader sees the old file or the
    new one, never half of one. True when written."""
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        if path.stat().st_size == len(raw) and path.read_bytes() == raw:
            return False
    except OSError:
        path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")  # one writer a process: no clash
    try:
        tmp.write_bytes(raw)
        tmp.chmod(0o644)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return True


def _read_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_game(session: Session, game: Game, out: Path) -> Written:
    """Write (or bring up to date) `game`'s folder under `out`; a game without pages (private)
    has its folder removed. Returns what was done. The index is write_index's."""
    return write_pages(out, game.name, game_pages(session, game, kept_pages(out, game.name)))


def kept_pages(out: Path, name: str) -> set[str]:
    """The fingerprints of the phase pages written before into the game's folder, in every
    palette: game_pages need not read those phases' results again."""
    folder = out / paths.game_folder(name)
    manifest = _read_json(folder / PAGES_MANIFEST)
    missing = {fingerprint for file, fingerprint in manifest.items() if not (folder / file).exists()}
    return {fingerprint for fingerprint in manifest.values() if fingerprint not in missing}


def write_pages(out: Path, name: str, shown: GamePages | None, store: MapStore | None = None) -> Written:
    """Write the pages game_pages read (maps are drawn outside any transaction; with a `store`,
    gm.maps.store, each is looked for there first, and kept there once drawn, for the mail too);
    `shown` None: the game has none, its folder is removed."""
    folder = out / paths.game_folder(name)
    if shown is None:
        if folder.exists():
            shutil.rmtree(folder)
            return Written(removed=1)
        return Written()
    done = Written()
    _style(out, done)
    variant = load_variant(shown.variant_name)
    maps = keep_maps(variant, shown, folder / "maps", done, store) if has_art(variant.name) else {}
    before = _read_json(folder / PAGES_MANIFEST)
    now: dict[str, str] = {}
    keep = {PAGES_MANIFEST, "maps"}
    language = shown.language  # the game's: its pages are written in it
    for palette in PALETTES:
        colourblind = palette == "colourblind"
        common = _common(shown, variant, palette, maps)
        for i, page in enumerate(shown.phases):
            file = paths.phase_page(page.label, colourblind=colourblind)
            keep.add(file)
            now[file] = page.fingerprint
            if page.results is None or before.get(file) == page.fingerprint and (folder / file).exists():
                continue  # written before, and the same
            prev = shown.phases[i - 1] if i > 0 else None
            nxt = shown.phases[i + 1] if i + 1 < len(shown.phases) else None
            html = _render("phase.html.j2", language, **common, page=page, prev=prev, next=nxt,
                           other=paths.phase_page(page.label, colourblind=not colourblind))
            _put(folder / file, html)
            done.pages += 1
            done.files.append(folder / file)
        file = paths.game_page(colourblind=colourblind)
        keep.add(file)
        if _put(folder / file, _render("game.html.j2", language, **common,
                                       newest=shown.phases[-1] if shown.phases else None,
                                       other=paths.game_page(colourblind=not colourblind))):
            done.pages += 1
            done.files.append(folder / file)
    for stale in folder.iterdir():  # the pages of phases a rollback undid
        if stale.name not in keep and not stale.name.startswith("."):
            stale.unlink()
            done.removed += 1
    if now != before:
        _put(folder / PAGES_MANIFEST, json.dumps(now, sort_keys=True))
    return done


def _common(shown: GamePages, variant: Variant, palette: str, maps: dict[str, str]) -> dict[str, Any]:
    colourblind = palette == "colourblind"

    def map_file(source: MapSource | None) -> str | None:
        if source is None:
            return None
        name = f"{source.name}.{palette}.png"
        return f"maps/{name}" if name in maps else None

    def page_of(label: str) -> str:
        return paths.phase_page(label, colourblind=colourblind)

    return {"game": shown, "palette": palette, "colourblind": colourblind, "map_file": map_file,
            "page_of": page_of, "home": paths.game_page(colourblind=colourblind), "root": "../..",
            "chart": _chart_svg(shown, variant, palette)}


def keep_maps(variant: Variant, shown: GamePages, folder: Path, done: Written, store: MapStore | None = None
              ) -> dict[str, str]:
    """Every map the pages show, in both palettes, drawn unless kept from before (in the folder, or
    in the `store`); file -> key."""
    sources: dict[str, MapSource] = {}
    for page in shown.phases:
        for source in (page.orders_map, page.after_map):
            if source is not None:
                sources[source.name] = source
    if shown.now_map is not None:
        sources[shown.now_map.name] = shown.now_map
    manifest = _read_json(folder / MANIFEST)
    kept: dict[str, str] = {}
    for name, source in sources.items():
        key = source.key
        for palette in PALETTES:
            file = f"{name}.{palette}.png"
            if manifest.get(file) != key or not (folder / file).exists():
                scene = (results_scene(variant, source.state, source.report, shown.name, language=shown.language)
                         if source.report is not None
                         else position_scene(variant, source.state, shown.name, language=shown.language))
                if store is None:
                    png, drew = render(variant, scene, palette), 1
                else:
                    before = store.drawn
                    png = store.picture(variant, scene, palette, draw=render)
                    drew = store.drawn - before
                _put(folder / file, png)
                done.maps += drew
                done.files.append(folder / file)
            kept[file] = key
    for stale in folder.glob("*.png") if folder.exists() else []:
        if stale.name not in kept:
            stale.unlink()
            done.removed += 1
    if kept != manifest:
        _put(folder / MANIFEST, json.dumps(kept, sort_keys=True))
    return kept


def _chart_svg(shown: GamePages, variant: Variant, palette: str) -> dict[str, Any] | None:
    """The centres year by year as lines (an inline SVG the template draws; the table beside it
    says the same in text). Drawn in CHART_WIDTH units and scaled to the page's width (style.css):
    on a phone its labels stay about 11 px high, on a desktop it is shown at most CHART_SHOWN px
    wide; a year's label is left out where it would run into the one before (the table has them all)."""
    years, powers = shown.chart["years"], shown.chart["powers"]
    if len(years) < 2:
        return None
    width, height, left, bottom, top = CHART_WIDTH, 210, 30, 24, 10
    top_count = max([max(p["counts"]) for p in powers] + [1])
    step = (width - left - 24) / (len(years) - 1)  # room for the last year's label
    colours = power_colours(variant, palette)

    def y(n: int) -> float:
        return round(height - bottom - (height - bottom - top) * n / top_count, 1)

    lines = [{"power": p["name"], "colour": colours.get(p["name"], "#444"),
              "points": " ".join(f"{round(left + i * step, 1)},{y(n)}" for i, n in enumerate(p["counts"]))}
             for p in powers]
    # the years as the page writes them ('start' in the game's language): their width spaces them
    ticks = [{"x": round(left + i * step, 1), "label": translated(label, shown.language)} for i, label in enumerate(years)]
    grid = [{"y": y(n), "label": n} for n in sorted({0, top_count // 2, top_count})]
    return {"width": width, "height": height, "max_width": CHART_SHOWN, "lines": lines, "ticks": _spaced(ticks),
            "grid": grid, "base": height - bottom, "left": left}


CHART_WIDTH = 420  # the chart's own units: its text is 12 of them high, 15 on a phone (style.css)
CHART_SHOWN = 560  # px: the widest it is shown


def _spaced(ticks: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The year labels that do not run into each other (the first and the last always among them),
    each about 9 units a character wide at the chart's text on a phone (15 units)."""
    def apart(a: dict[str, Any], b: dict[str, Any]) -> bool:
        return abs(b["x"] - a["x"]) >= 4.5 * (len(str(a["label"])) + len(str(b["label"]))) + 6

    kept: list[dict[str, Any]] = []
    for tick in ticks[:-1]:
        if not kept or apart(kept[-1], tick):
            kept.append(tick)
    while len(kept) > 1 and not apart(kept[-1], ticks[-1]):
        kept.pop()
    return [*kept, ticks[-1]]


_STYLED: set[Path] = set()  # folders given the style sheet by this process (it changes only with gm)


def _style(out: Path, done: Written) -> None:
    target = out / STYLE
    if target in _STYLED and target.exists():
        return
    if _put(target, (templates_dir() / "web" / STYLE).read_bytes()):
        done.files.append(target)
    _STYLED.add(target)


def index_entries(session: Session) -> list[dict[str, Any]]:
    """The index of games: every listed game, newest first, with its variant and status."""
    return [entry for game in session.scalars(select(Game).order_by(Game.created_at.desc(), Game.id.desc()))
            if (entry := index_entry(session, game)) is not None]


def write_index(out: Path, games: list[dict[str, Any]]) -> Path:
    """The index page (index_entries), and a page in games/ that leads to it, so that a web
    server listing folders does not list the unlisted games. In English: it is no one game's."""
    target = out / paths.INDEX
    _put(target, _render("index.html.j2", games=games, root=""))
    _put(out / paths.GAMES / "index.html", _render("index.html.j2", games=games, root="../"))
    return target


def write_all(session: Session, out: Path) -> Written:
    """Every game's pages and the index."""
    done = Written()
    _style(out, done)
    for game in session.scalars(select(Game).order_by(Game.id)):
        done.add(write_game(session, game, out))
    done.files.append(write_index(out, index_entries(session)))
    return done
