"""Draw a position, with its orders and their results, on a variant's board: a PNG for the results
mail, the MAP command and `gm map render`.

The board (gm/maps/art.py) is a palette image whose every pixel names a space or a fixed feature,
so owning a space is one palette entry; units, order arrows, the title and the legend are drawn on a
copy with Pillow in palette mode, and the PNG is written as it is (no colour reduction needed).
Pure of I/O but for reading the art once."""
from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from PIL import Image, ImageDraw

from gm.engine.graph import Terrain
from gm.engine.model import RETREATS, GameState, PhaseKind, Unit, UnitType, parse_designation, province_of
from gm.engine.variant import Variant
from gm.i18n import ENGLISH, _, _p, translated
from gm.lifecycle.phase_names import phase_name
from gm.maps import art
from gm.maps.art import Art, load_art
from gm.maps.fonts import fitting, font

if TYPE_CHECKING:
    from gm.casefile import CaseRun

# inks: palette indices for what a render draws (art.FIRST_INK upwards)
BLACK, WHITE, FAILED, DISLODGED, RETREAT, LEADER, POWER_INK = 200, 201, 202, 203, 204, 205, 206
MAX_INKS = art.BAND - POWER_INK  # distinct power colours a picture can hold
INKS = {BLACK: "#111111", WHITE: "#ffffff", FAILED: "#6e6e6e", DISLODGED: "#d7191c", RETREAT: "#e66101",
        LEADER: "#f2c14e"}

# A colour-blind-safe set (Okabe and Ito, then Tol's muted for more powers), handed out in the
# order the variant lists its great powers; minor powers share the last.
COLOURBLIND = ["#E69F00", "#56B4E9", "#009E73", "#F0E442", "#0072B2", "#D55E00", "#CC79A7", "#000000",
               "#FFFFFF", "#882255", "#999933"]
COLOURBLIND_MINOR = "#44AA99"
PALETTES = ("rulebook", "colourblind")
DEFAULT_COLOUR = "#888888"
MINOR_KEY = "Minor powers"  # the legend's entry for them all (drawn in the scene's language)
# TRANSLATORS: a map's legend: the colour of every minor power
_MINOR_WORDS = _("Minor powers")
TINT = 0.6  # how much of a power's colour a space it owns takes
MIN_TINT_LUMA = 135


@dataclass(frozen=True)
class DrawnOrder:
    """An order as the map shows it. `ok` is None before the phase is adjudicated."""

    power: str
    kind: str  # hold, move, support, convoy, retreat, build, disband, deny, blockade
    unit: str  # the ordered unit's location (a build: where it is built)
    unit_type: str = ""
    target: str = ""  # supported or convoyed unit's location; one end of a passage denied
    dest: str = ""  # where the move, retreat, supported move or convoy goes; a passage's other end; the port blockaded
    ok: bool | None = None
    # A step of a turn of impulses (1700AD II): its impulse, and its strength when more than one.
    impulse: int = 0
    strength: int = 1


@dataclass
class Scene:
    """Everything one picture shows."""

    title: str  # the words drawn (Texts, or plain words) are written in `language`
    units: list[Unit]
    centres: dict[str, str]
    orders: list[DrawnOrder] = field(default_factory=list)
    dislodged: list[tuple[Unit, tuple[str, ...]]] = field(default_factory=list)  # with their retreats
    subtitle: str = ""
    # The major powers, where the rules changed them in play (a promoted minor power takes the
    # colour of the power whose player plays it now); None: the variant's.
    majors: list[str] | None = None
    language: str = ENGLISH  # the title's, the subtitle's and the legend's


SECOND_MOVE = " (second move)"  # how gm.engine.orders.SecondPhase ends
# How gm.engine.orders.Step ends: '(x2) (impulse 2)'.
_STEP = re.compile(r"(?:\s+\(x(?P<x>\d)\))?\s+\(impulse (?P<i>\d)\)$")
_KIND = r"\d{0,2}[AF](?:/\d{0,2}[AF])?"  # 'A', 'F', and multiple units: '2A', 'A/F', '1F'
_UNIT = rf"(?P<t>{_KIND}) (?P<u>[A-Z0-9]+(?:/[A-Z]+)?)"
_LOC = r"[A-Z0-9]+(?:/[A-Z]+)?"
_PATTERNS = [
    ("hold", re.compile(rf"^{_UNIT} H$")),
    ("move", re.compile(rf"^{_UNIT} - (?P<d>{_LOC})(?: VIA CONVOY)?(?: MERGE)?$")),
    ("support", re.compile(rf"^{_UNIT} S (?:{_KIND} )?(?P<g>{_LOC}) - (?P<d>{_LOC})$")),
    ("support", re.compile(rf"^{_UNIT} S (?:{_KIND} )?(?P<g>{_LOC})$")),
    ("convoy", re.compile(rf"^{_UNIT} C A (?P<g>{_LOC}) - (?P<d>{_LOC})$")),
    ("retreat", re.compile(rf"^{_UNIT} R (?P<d>{_LOC})$")),
    ("disband", re.compile(rf"^{_UNIT} D$")),
    ("build", re.compile(rf"^Build {_UNIT}$")),
    ("deny", re.compile(rf"^{_UNIT} X (?P<g>{_LOC})-(?P<d>{_LOC})$")),  # Napoleonic Wars
    ("blockade", re.compile(rf"^{_UNIT} B (?P<d>{_LOC})$")),
]


def drawn_order(power: str, text: str, result: str | bool | None = None) -> DrawnOrder | None:
    """Read an order as the engine writes it (str(order)); None for what a map does not show
    (waives, home declarations, point allocations)."""
    ok = result if isinstance(result, bool) or result is None else result == "succeeds"
    text = text.strip().removesuffix(SECOND_MOVE)  # a fleet's second move is drawn as a move from where it went
    step = _STEP.search(text)  # a step of a turn of impulses: drawn from where the unit makes it
    impulse, strength = (int(step["i"]), int(step["x"] or 1)) if step else (0, 1)
    text = text[:step.start()] if step else text
    for kind, pattern in _PATTERNS:
        m = pattern.match(text)
        if m:
            g = m.groupdict()
            return DrawnOrder(power, kind, g["u"], g["t"], g.get("g") or "", g.get("d") or "", ok, impulse, strength)
    return None


# --- colours ----------------------------------------------------------------------------------------


def _rgb(colour: str) -> tuple[int, int, int]:
    return tuple(bytes.fromhex(colour.lstrip("#")))  # type: ignore[return-value]


def power_colours(variant: Variant, palette: str = "rulebook") -> dict[str, str]:
    """Each power's colour: the rulebook's (variant.toml), or the colour-blind-safe set."""
    if palette not in PALETTES:
        raise ValueError(f"unknown map palette {palette!r}; known: {', '.join(PALETTES)}")
    out = {}
    majors = [p for p in variant.powers.values() if not p.minor]
    for i, p in enumerate(majors):
        out[p.name] = COLOURBLIND[i % len(COLOURBLIND)] if palette == "colourblind" else (p.colour or DEFAULT_COLOUR)
    for p in variant.powers.values():
        if p.minor:
            out[p.name] = COLOURBLIND_MINOR if palette == "colourblind" else (p.colour or DEFAULT_COLOUR)
    return out


def _mix(colour: str, base: str, share: float) -> tuple[int, int, int]:
    c, b = _rgb(colour), _rgb(base)
    return tuple(round(share * x + (1 - share) * y) for x, y in zip(c, b))  # type: ignore[return-value]


def _luma(rgb: tuple[int, int, int]) -> float:
    r, g, b = rgb
    return 0.299 * r + 0.587 * g + 0.114 * b


def tint(colour: str) -> tuple[int, int, int]:
    """The colour of a space a power owns: its colour mixed into the land's, light enough that
    the black labels stay readable (a black power's land is grey, not black)."""
    share = TINT
    while share > 0.2 and _luma(_mix(colour, art.LAND, share)) < MIN_TINT_LUMA:
        share -= 0.05
    return _mix(colour, art.LAND, share)


class _Palette:
    def __init__(self, board: Image.Image):
        self.entries = bytearray(board.getpalette() or [])
        self.entries.extend(b"\0" * (768 - len(self.entries)))
        for index, colour in INKS.items():
            self.set(index, _rgb(colour))

    def set(self, index: int, rgb: tuple[int, int, int]) -> None:
        self.entries[3 * index:3 * index + 3] = bytes(rgb)


# --- drawing ------------------------------------------------------------------------------------------


def _shorten(p, q, start: float, end: float):
    (x1, y1), (x2, y2) = p, q
    d = math.hypot(x2 - x1, y2 - y1)
    if d <= start + end + 4:
        return p, q
    ux, uy = (x2 - x1) / d, (y2 - y1) / d
    return (x1 + ux * start, y1 + uy * start), (x2 - ux * end, y2 - uy * end)


def _dashed(draw: ImageDraw.ImageDraw, p, q, fill: int, width: int, dash: float = 7, gap: float = 5) -> None:
    (x1, y1), (x2, y2) = p, q
    d = math.hypot(x2 - x1, y2 - y1) or 1.0
    ux, uy = (x2 - x1) / d, (y2 - y1) / d
    t = 0.0
    while t < d:
        e = min(d, t + dash)
        draw.line([(x1 + ux * t, y1 + uy * t), (x1 + ux * e, y1 + uy * e)], fill=fill, width=width)
        t = e + gap


def _head(draw: ImageDraw.ImageDraw, p, q, fill: int, size: float = 9, outline: int | None = BLACK) -> None:
    (x1, y1), (x2, y2) = p, q
    a = math.atan2(y2 - y1, x2 - x1)
    pts = [q, (x2 - size * math.cos(a - 0.42), y2 - size * math.sin(a - 0.42)),
           (x2 - size * math.cos(a + 0.42), y2 - size * math.sin(a + 0.42))]
    draw.polygon(pts, fill=fill, outline=outline)


def _cross(draw: ImageDraw.ImageDraw, x: float, y: float, r: float = 4, fill: int = DISLODGED) -> None:
    draw.line([(x - r, y - r), (x + r, y + r)], fill=fill, width=3)
    draw.line([(x - r, y + r), (x + r, y - r)], fill=fill, width=3)


def _bar(draw: ImageDraw.ImageDraw, p, q, ink: int, ok: bool | None, half: float = 9) -> None:
    """A bar across the line p-q at q, as a barrier: dark-edged, or grey-edged when it failed."""
    (x1, y1), (x2, y2) = p, q
    d = math.hypot(x2 - x1, y2 - y1) or 1.0
    nx, ny = -(y2 - y1) / d * half, (x2 - x1) / d * half
    ends = [(x2 - nx, y2 - ny), (x2 + nx, y2 + ny)]
    draw.line(ends, fill=FAILED if ok is False else BLACK, width=7)
    draw.line(ends, fill=ink, width=4)


def _line(draw, p, q, ink: int, ok: bool | None, width: int, head: bool) -> None:
    """An order's line: solid with a dark edge when it succeeded (or is not adjudicated yet),
    dashed grey-edged when it failed, ending in a cross."""
    if ok is False:
        _dashed(draw, p, q, FAILED, width + 2)
        _dashed(draw, p, q, ink, width)
        if head:
            _head(draw, p, q, ink, outline=FAILED)
        _cross(draw, *q)
    else:
        draw.line([p, q], fill=BLACK, width=width + 2)
        draw.line([p, q], fill=ink, width=width)
        if head:
            _head(draw, p, q, ink)


def _army(draw: ImageDraw.ImageDraw, x: float, y: float, fill: int, edge: int) -> None:
    """An army: a field gun seen side-on (barrel, carriage, wheel), on a square badge."""
    draw.rounded_rectangle([x - 10, y - 8, x + 10, y + 8], radius=3, fill=fill, outline=edge, width=2)
    draw.line([(x - 6, y + 1), (x + 6, y - 4)], fill=edge, width=3)
    draw.ellipse([x - 4, y, x + 2, y + 6], outline=edge, width=2)


def _fleet(draw: ImageDraw.ImageDraw, x: float, y: float, fill: int, edge: int) -> None:
    """A fleet: a hull with a sail."""
    draw.polygon([(x - 12, y + 1), (x + 12, y + 1), (x + 8, y + 8), (x - 8, y + 8)], fill=fill, outline=edge, width=2)
    draw.polygon([(x - 1, y - 10), (x - 1, y), (x + 8, y)], fill=fill, outline=edge, width=2)
    draw.polygon([(x - 3, y - 8), (x - 3, y), (x - 10, y)], fill=fill, outline=edge, width=2)


def _unit(draw, kind: str, x: float, y: float, fill: int, edge: int) -> None:
    """A unit by its designation: 'A', 'F', and for multiple units '2A', 'A/F', '2A/3F': an army
    and a fleet side by side for an A/F, with the number of each beside it when more than one.
    A leader ('CXII', 'CXII/2F' beside fleets) is an army with a star."""
    parts = parse_designation(kind)
    leader = parts is None and bool(kind)
    if leader:
        _armies, _slash, fleet_part = kind.partition("/")
        parts = (1, (parse_designation(fleet_part) or (0, 0))[1])
    armies, fleets = parts or (1, 0)
    ax, ay = (x - 8, y - 4) if armies and fleets else (x, y)
    if armies and fleets:
        _fleet(draw, x + 6, y + 2, fill, edge)
        _army(draw, ax, ay, fill, edge)
    else:
        (_fleet if fleets else _army)(draw, x, y, fill, edge)
    if leader:
        draw.regular_polygon((ax, ay - 12, 6), 5, rotation=90, fill=LEADER, outline=edge)
    for n, (dx, dy) in ((armies, (-17, -14)), (fleets, (15, -12))):
        if n > 1:
            draw.ellipse([x + dx - 6, y + dy - 6, x + dx + 6, y + dy + 6], fill=WHITE, outline=edge, width=1)
            draw.text((x + dx, y + dy), str(n), font=font(11), fill=edge, anchor="mm")


class _Picture:
    def __init__(self, variant: Variant, scene: Scene, palette: str):
        self.variant = variant
        self.scene = scene
        self.art: Art = load_art(variant.name)
        self.image = self.art.board.copy()
        self.draw = ImageDraw.Draw(self.image)
        self.draw.fontmode = "1"
        self.colours = power_colours(variant, palette)
        minors = [c for p, c in self.colours.items() if variant.powers[p].minor]
        # a minor power the rules made in play (an A&E centre in civil disorder) takes the minors' colour
        self.minor_colour = minors[0] if minors else (COLOURBLIND_MINOR if palette == "colourblind" else DEFAULT_COLOUR)
        self.majors = scene.majors or variant.great_powers
        if scene.majors:  # a promotion: the colours follow the players
            was = {p: self.colours[p] for p in variant.great_powers}
            for old, new in zip(variant.great_powers, scene.majors):
                self.colours[new] = was[old]
                if old not in scene.majors:
                    self.colours[old] = self.minor_colour
        self.pal = _Palette(self.art.board)
        self.ink: dict[str, int] = {}
        self.edge: dict[str, int] = {}
        by_colour: dict[str, int] = {}  # powers of one colour share an ink
        for power in self._powers():
            colour = self.colour(power)
            if colour not in by_colour:
                by_colour[colour] = POWER_INK + min(len(by_colour), MAX_INKS - 1)
                self.pal.set(by_colour[colour], _rgb(colour))
            self.ink[power] = by_colour[colour]
            self.edge[power] = WHITE if _luma(_rgb(colour)) < 70 else BLACK  # a black power's units: white lines
        dx, dy = self.art.layout["dislodged_offset"]
        self.offset = (dx, dy)
        self.out = {d[0].province for d in scene.dislodged}

    def _powers(self) -> list[str]:
        """The variant's powers, then any other the scene shows."""
        scene = self.scene
        shown = [u.power for u in scene.units] + list(scene.centres.values()) + [o.power for o in scene.orders]
        shown += [u.power for u, _retreats in scene.dislodged]
        return list(dict.fromkeys([*self.variant.powers, *shown]))

    def colour(self, power: str) -> str:
        return self.colours.get(power, self.minor_colour)

    def is_minor(self, power: str) -> bool:
        return power not in self.majors

    # where things are
    def at(self, location: str) -> tuple[float, float]:
        return self.art.point(location)

    def unit_at(self, location: str) -> tuple[float, float]:
        x, y = self.at(location)
        if province_of(location) in self.out:
            return x + self.offset[0], y + self.offset[1]
        return x, y

    def tint(self) -> None:
        spaces = self.art.spaces
        owner: dict[str, str] = {}
        for u in self.scene.units:
            if self.variant.map.provinces[u.province].terrain is not Terrain.SEA:
                owner[u.province] = u.power
        owner.update(self.scene.centres)
        for space, power in owner.items():
            entry = spaces.get(space)
            if entry is not None:
                self.pal.set(entry["id"], tint(self.colour(power)))

    def orders(self) -> None:
        for o in sorted(self.scene.orders, key=lambda o: o.kind != "support"):  # supports under moves
            ink = self.ink.get(o.power, BLACK)
            if o.kind in ("move", "retreat"):
                p, q = _shorten(self.unit_at(o.unit), self.at(o.dest), 10, 11)
                _line(self.draw, p, q, ink, o.ok, 3, True)
                if o.impulse > 1 or o.strength > 1:  # a step of a turn: its impulse, and 'x2' at double strength
                    label = " ".join(([str(o.impulse)] if o.impulse else []) + ([f"x{o.strength}"] if o.strength > 1 else []))
                    mid = ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)
                    self.draw.text(mid, label, font=font(11), fill=BLACK, anchor="mm", stroke_width=2, stroke_fill=WHITE)
            elif o.kind == "support" and o.dest:
                a, b = self.at(o.target), self.at(o.dest)
                mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
                p, q = _shorten(self.unit_at(o.unit), mid, 10, 3)
                _line(self.draw, p, q, ink, o.ok, 2, False)
                self.draw.ellipse([q[0] - 3, q[1] - 3, q[0] + 3, q[1] + 3], fill=ink, outline=BLACK)
            elif o.kind == "support":
                p, q = _shorten(self.unit_at(o.unit), self.unit_at(o.target), 10, 14)
                _line(self.draw, p, q, ink, o.ok, 2, False)
                x, y = self.unit_at(o.target)
                self.draw.ellipse([x - 15, y - 13, x + 15, y + 13], outline=ink, width=2)
            elif o.kind == "convoy":
                a, b = self.at(o.target), self.at(o.dest)
                mid = ((a[0] + b[0]) / 2, (a[1] + b[1]) / 2)
                p, q = _shorten(self.unit_at(o.unit), mid, 12, 3)
                _dashed(self.draw, p, q, BLACK, 4, dash=3, gap=3)
                _dashed(self.draw, p, q, ink if o.ok is not False else FAILED, 2, dash=3, gap=3)
                self.draw.regular_polygon((q, 5), 4, fill=ink, outline=BLACK)
            elif o.kind == "deny":
                self._deny(o, ink)
            elif o.kind == "blockade":
                self._blockade(o, ink)
            elif o.kind == "build":
                x, y = self.at(o.unit)
                self.draw.ellipse([x - 16, y - 14, x + 16, y + 14], outline=BLACK if o.ok is not False else FAILED, width=3)
                self.draw.ellipse([x - 14, y - 12, x + 14, y + 12], outline=ink, width=2)

    def _deny(self, o: DrawnOrder, ink: int) -> None:
        """A denied passage (X): the passage from one land space to the other by way of the
        fleet's sea, thin and dashed, barred across at the fleet; grey and crossed when it failed."""
        a, b, f = self.at(o.target), self.at(o.dest), self.unit_at(o.unit)
        colour = ink if o.ok is not False else FAILED
        for p, q in ((a, f), (f, b)):
            _dashed(self.draw, *_shorten(p, q, 12, 14), colour, 2, dash=4, gap=4)
        across = (f[0] - (b[0] - a[0]), f[1] - (b[1] - a[1]))  # the bar stands across the passage
        _bar(self.draw, across, f, ink, o.ok, half=22)
        if o.ok is False:
            _cross(self.draw, f[0] + 18, f[1] - 16)

    def _blockade(self, o: DrawnOrder, ink: int) -> None:
        """A blockade (B): the fleet's line to the port, barred at its shore, and a broken ring
        (a chain of ships) round the port; grey and crossed when it was cut."""
        x, y = self.at(o.dest)
        edge = FAILED if o.ok is False else BLACK
        for start in range(0, 360, 45):  # eight links, with gaps, clear of the port's name
            for r, colour, width in ((23, edge, 5), (23, ink, 3)):
                self.draw.arc([x - r, y - r, x + r, y + r], start + 6, start + 39, fill=colour, width=width)
        p, q = _shorten(self.unit_at(o.unit), (x, y), 10, 28)
        _line(self.draw, p, q, ink, o.ok, 3, False)
        _bar(self.draw, p, q, ink, o.ok)

    def retreat_options(self) -> None:
        for unit, options in self.scene.dislodged:
            start = self.unit_at(unit.location)
            for dest in options:
                p, q = _shorten(start, self.at(dest), 10, 8)
                _dashed(self.draw, p, q, RETREAT, 2, dash=4, gap=3)
                self.draw.ellipse([q[0] - 3, q[1] - 3, q[0] + 3, q[1] + 3], fill=RETREAT)

    def units(self) -> None:
        for u in self.scene.units:
            x, y = self.unit_at(u.location)
            _unit(self.draw, u.designation, x, y, self.ink.get(u.power, BLACK), self.edge.get(u.power, BLACK))
        for u, _retreats in self.scene.dislodged:
            if any(v.location == u.location and v.power == u.power for v in self.scene.units):
                continue  # drawn above, already offset
            x, y = self.unit_at(u.location)
            _unit(self.draw, u.designation, x, y, self.ink.get(u.power, BLACK), self.edge.get(u.power, BLACK))
        for u, _retreats in self.scene.dislodged:  # a dislodged unit wears a red ring
            x, y = self.unit_at(u.location)
            self.draw.rounded_rectangle([x - 14, y - 12, x + 14, y + 12], radius=5, outline=DISLODGED, width=2)
        for o in self.scene.orders:
            if (o.kind == "disband" and o.ok is not False) or (o.kind == "build" and o.ok is False):
                _cross(self.draw, *self.unit_at(o.unit), r=7)

    def bands(self) -> None:
        layout = self.art.layout
        language = self.scene.language
        title, f = fitting(translated(self.scene.title, language), 18)
        self.draw.text((10, 7), title, font=f, fill=art.LABEL)
        if self.scene.subtitle:
            subtitle, f = fitting(translated(self.scene.subtitle, language), 13)
            right = layout["width"] - 10 - self.draw.textlength(subtitle, font=f)
            self.draw.text((right, 11), subtitle, font=f, fill=art.LABEL)
        counts: dict[str, int] = {}
        for power in self.scene.centres.values():
            key = MINOR_KEY if self.is_minor(power) else power
            counts[key] = counts.get(key, 0) + 1
        entries = [(p, self.ink[p]) for p in self.majors]
        minors = [p for p in self.ink if self.is_minor(p)]
        if minors:
            entries.append((MINOR_KEY, self.ink[minors[0]]))
        per_row = max(1, layout["width"] // 200)
        top = layout["legend_top"] + 6
        for i, (name, ink) in enumerate(entries):
            x, y = 12 + (i % per_row) * 200, top + (i // per_row) * 22
            self.draw.rectangle([x, y + 2, x + 16, y + 14], fill=ink, outline=BLACK)
            shown = translated(_MINOR_WORDS, language) if name == MINOR_KEY else name
            words, f = fitting(f"{shown} {counts.get(name, 0)}", 13)
            self.draw.text((x + 22, y), words, font=f, fill=art.LABEL)

    def png(self) -> bytes:
        self.image.putpalette(bytes(self.pal.entries))
        buf = io.BytesIO()
        self.image.save(buf, format="PNG", compress_level=6)
        return buf.getvalue()


def render(variant: Variant, scene: Scene, palette: str = "rulebook") -> bytes:
    """The scene drawn on the variant's board, as PNG bytes."""
    picture = _Picture(variant, scene, palette)
    picture.tint()
    picture.retreat_options()
    picture.orders()
    picture.units()
    picture.bands()
    return picture.png()


# --- scenes -----------------------------------------------------------------------------------------


def _title(variant: Variant, state: GameState, name: str) -> str:
    label = phase_name(variant.phase_label(state.phase))
    # TRANSLATORS: a map's title: the game's name and the phase
    return _("{game}: {phase}", game=name, phase=label) if name else label


# TRANSLATORS: a map's subtitle: it shows a position
_POSITION = _p("map", "position")
# TRANSLATORS: a map's subtitle: it shows a phase's orders and their results
_RESULTS = _p("map", "orders and results")
# TRANSLATORS: a map's subtitle: it shows orders not yet adjudicated
_ORDERS = _p("map", "orders")


def position_scene(variant: Variant, state: GameState, game: str = "", *, language: str = ENGLISH) -> Scene:
    """A position as it stands: units, centres, and in a retreat phase the dislodged units with
    where they may go; its words in `language`."""
    return Scene(title=_title(variant, state, game), units=list(state.units.values()),
                 centres=dict(state.supply_centres),
                 dislodged=[(d.unit, d.retreats) for d in state.dislodged.values()], subtitle=_POSITION,
                 majors=_majors(variant, state), language=language)


def _majors(variant: Variant, state: GameState) -> list[str] | None:
    """The major powers of the position, where the rules changed them in play."""
    majors = variant.rules.major_powers(variant, state)
    return None if majors == variant.great_powers else list(majors)


def _phase_scene(variant: Variant, before: GameState, orders: list[DrawnOrder],
                 dislodged: list[tuple[Unit, tuple[str, ...]]], name: str, subtitle: str,
                 language: str = ENGLISH) -> Scene:
    """A phase with its orders, from the position it started from: after a movement phase the
    units it dislodged, with where they may retreat; in a retreat phase the units retreating."""
    units = list(before.units.values())
    if before.phase.kind in RETREATS:
        units += [d.unit for d in before.dislodged.values()]
        dislodged = [(d.unit, ()) for d in before.dislodged.values()]
    elif before.phase.kind is not PhaseKind.MOVEMENT:
        dislodged = []
    return Scene(title=_title(variant, before, name), units=units, centres=dict(before.supply_centres),
                 orders=orders, dislodged=dislodged, subtitle=subtitle, majors=_majors(variant, before),
                 language=language)


def results_scene(variant: Variant, before: GameState, report: dict, game: str = "", *,
                  language: str = ENGLISH) -> Scene:
    """A phase adjudicated (a report of gm/lifecycle/report.py): every public order with its result;
    its words in `language`."""
    orders = [o for e in report.get("orders", []) if (o := drawn_order(e["power"], e["order"], e["result"]))]
    dislodged = []
    for d in report.get("dislodged", []):
        kind, _space, location = d["unit"].partition(" ")
        parts = parse_designation(kind)
        unit = Unit.of(d["power"], location, *parts) if parts else Unit(d["power"], UnitType.ARMY, location, leader=kind)
        # a turn's retreats are made with it (1700AD II): its orders show where the unit went
        dislodged.append((unit, () if d.get("settled") else tuple(d.get("retreats", ()))))
    return _phase_scene(variant, before, orders, dislodged, game, _RESULTS, language)


def run_scene(run: "CaseRun") -> Scene:
    """A case of a case file as `gm adjudicate` ran it: its orders, with their results when the
    engine resolved them."""
    adjudication = run.adjudication
    if adjudication is None:
        orders = [o for e in run.entries if e.order is not None and (o := drawn_order(e.order.power, str(e.order)))]
        return _phase_scene(run.variant, run.state, orders, [], run.case.id, _ORDERS)
    orders = [o for r in adjudication.results if (o := drawn_order(r.order.power, str(r.order), r.result.value))]
    settled = run.variant.rules.impulses > 1  # a turn's retreats are made with it: its orders show them
    dislodged = [(d.unit, () if settled else d.retreats) for d in adjudication.dislodged.values()]
    return _phase_scene(run.variant, run.state, orders, dislodged, run.case.id, _RESULTS)


def render_run(run: "CaseRun", palette: str = "rulebook") -> bytes:
    return render(run.variant, run_scene(run), palette)
