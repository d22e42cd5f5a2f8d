"""Map rendering benchmark: gm's renderer against PyPI `diplomacy`'s SVG renderer plus `cairosvg`, same run, same position.

What it does
------------
1. Reads one case of a case file (default bench/midgame.case: Fall 1905, 34 units of all seven
   powers, all 34 centres owned, 34 orders of every kind, three dislodgements) and runs it through
   gm (gm.casefile.run_case): the position, the orders and their results.
2. Renders that position with its orders to a PNG, in turn with each renderer, and times only the
   rendering (position and orders in, PNG bytes out):
     gm         gm.maps.render.render_run(run) -> bytes
     diplomacy  diplomacy.engine.renderer.Renderer(game).render(incl_orders=True) -> SVG text, then
                cairosvg.svg2png(bytestring=svg, output_width=--width) -> bytes; the Game holds the
                same units, centres and orders (set_units, set_centers, set_orders; the orders
                converted as bench/peers.py converts them for bench/adjudicate.py). The Renderer
                is built once, untimed (as Game.render() keeps its own); building it (reading the
                map's SVG) is printed apart.
   One untimed run each first (warm-up: map art loaded, caches filled), then --repeat timed runs,
   the two interleaved, the garbage collector off around each call (as timeit does),
   time.perf_counter_ns. The table gives the median and the best of the runs, the PNG's size
   (KB = 1000 bytes) and its width and height in pixels, and each median's ratio to gm's.
3. With --out DIR, writes the images there to be looked at: gm.png, diplomacy.png, diplomacy.svg.

The peer draws what its renderer can: units, centre ownership and the orders as given (it has no
notion of results, and shows dislodged units only in a retreat phase). gm's image may show more
(results, dislodgements); that is work gm does and the peer does not.

Targets for gm: median <= 30 ms a PNG, PNG <= 150 KB, about 1200 px wide, and at least 4x faster
than the peer.

Run:  .venv/bin/python bench/render.py [--repeat 20] [--width 1200] [--out /tmp/render-bench] [--no-gm]
"""
from __future__ import annotations

import argparse
import gc
import io
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from peers import DiplomacyPeer, PhaseRecord, _version

from gm.casefile import CaseRun, read_cases, run_case, select_cases
from gm.engine.model import PhaseKind, UnitType
from gm.engine.orders import Convoy, Hold, Move, SupportHold, SupportMove
from gm.engine.results import Result

HERE = Path(__file__).resolve().parent
TARGET_MS, TARGET_KB, TARGET_WIDTH, TARGET_RATIO = 30.0, 150.0, 1200, 4.0
WIDTH_SLACK = 0.10  # "about 1200 px": within 10%


def timed(fn: Callable[[], Any]) -> tuple[int, Any]:
    """Nanoseconds taken by fn() and what it returned, the garbage collector off (as timeit does)."""
    gc.disable()
    try:
        t0 = time.perf_counter_ns()
        out = fn()
        return time.perf_counter_ns() - t0, out
    finally:
        gc.enable()


def png_size(png: bytes) -> tuple[int, int]:
    from PIL import Image

    with Image.open(io.BytesIO(png)) as im:
        if im.format != "PNG":
            raise ValueError(f"not a PNG but {im.format}")
        return im.size


# ------------------------------------------------------------------------------------------------
# The peer: diplomacy 1.1.2's Renderer (SVG) and cairosvg (SVG -> PNG)
# ------------------------------------------------------------------------------------------------


def phase_name(run: CaseRun) -> str:
    """diplomacy's short phase name: 'F1905M'."""
    p = run.state.phase
    return f"{p.season.value[0]}{p.year}{p.kind.value[0]}"


def diplomacy_game(run: CaseRun) -> Any:
    """A diplomacy Game on the standard map holding the run's units, centres and orders (set up
    as bench/adjudicate.py sets up its peer: bench/peers.py)."""
    if run.variant.name.lower() != "standard":
        raise SystemExit(f"the peer has the standard map only, not {run.variant.name}")
    if run.state.phase.kind is not PhaseKind.MOVEMENT:
        raise SystemExit("the benchmark renders a movement phase with its orders")
    orders = [e.order for e in run.entries if e.order is not None]
    try:
        game, _ = DiplomacyPeer().prepare(PhaseRecord(0, phase_name(run), run.state, orders))
    except ValueError as e:
        raise SystemExit(str(e)) from e
    if game.error:
        raise SystemExit(f"diplomacy did not take the position: {game.error}")
    placed = sum(len(p.units) for p in game.powers.values())
    if placed != len(run.state.units):
        raise SystemExit(f"diplomacy holds {placed} units, the case {len(run.state.units)}")
    return game


class Peer:
    """Renderer(game).render(incl_orders=True) then cairosvg.svg2png; the split is kept per call."""

    def __init__(self, run: CaseRun, width: int):
        import cairosvg
        from diplomacy.engine.renderer import Renderer

        self.width = width
        self._svg2png = cairosvg.svg2png
        self.game = diplomacy_game(run)
        t0 = time.perf_counter_ns()
        self.renderer = Renderer(self.game)
        self.setup_ns = time.perf_counter_ns() - t0
        self.svg_ns: list[int] = []
        self.png_ns: list[int] = []
        self.svg = ""

    def render(self) -> bytes:
        t0 = time.perf_counter_ns()
        svg = self.renderer.render(incl_orders=True)
        t1 = time.perf_counter_ns()
        png = self._svg2png(bytestring=svg.encode("utf-8"), output_width=self.width)
        t2 = time.perf_counter_ns()
        self.svg_ns.append(t1 - t0)
        self.png_ns.append(t2 - t1)
        self.svg = svg
        return png


# ------------------------------------------------------------------------------------------------


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def describe(run: CaseRun) -> str:
    """'34 units (14 fleets) of 7 powers, 34 centres owned; 34 orders: 8 holds, 14 moves (9 fail), ...'"""
    adj = run.adjudication
    assert adj is not None
    results = {id(r.order): r.result for r in adj.results}
    orders = [e.order for e in run.entries if e.order is not None]
    moves = [o for o in orders if isinstance(o, Move)]
    supports = [o for o in orders if isinstance(o, (SupportHold, SupportMove))]
    powers = {u.power for u in run.state.units.values()}
    fleets = sum(1 for u in run.state.units.values() if u.type is UnitType.FLEET)
    return (
        f"{len(run.state.units)} units ({fleets} fleets) of {len(powers)} powers, "
        f"{len(run.state.supply_centres)} centres owned; {len(orders)} orders: "
        f"{sum(isinstance(o, Hold) for o in orders)} holds, "
        f"{len(moves)} moves ({sum(results.get(id(o)) is not Result.SUCCEEDS for o in moves)} fail), "
        f"{sum(isinstance(o, SupportHold) for o in orders)} supports to hold and "
        f"{sum(isinstance(o, SupportMove) for o in orders)} to move "
        f"({sum(results.get(id(o)) is Result.CUT for o in supports)} cut), "
        f"{_n(sum(isinstance(o, Convoy) for o in orders), 'convoy')}; {len(adj.dislodged)} dislodged"
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--case-file", default=str(HERE / "midgame.case"), help="case file (default bench/midgame.case)")
    ap.add_argument("--case", metavar="ID", help="the case to render (default: the file's first)")
    ap.add_argument("--repeat", type=int, default=20, help="timed runs per renderer, after one warm-up (20)")
    ap.add_argument("--width", type=int, default=TARGET_WIDTH, help="the peer's PNG width in px (1200)")
    ap.add_argument("--out", metavar="DIR", help="write gm.png, diplomacy.png and diplomacy.svg to DIR")
    ap.add_argument("--no-gm", action="store_true", help="time the peer only")
    args = ap.parse_args(argv)

    cases = select_cases(read_cases(args.case_file), [args.case] if args.case else None)
    if not cases:
        print(f"no case {args.case!r} in {args.case_file}")
        return 1
    case = cases[0]
    run = run_case(case)
    if run.error or run.adjudication is None:
        print(f"gm could not adjudicate case {case.id}: {run.error}")
        return 1
    void = [e.text for e in run.entries if e.order is None]
    if void:
        print(f"case {case.id}: orders gm cannot read: {void}")
        return 1

    # --- the renderers, and one untimed run each -----------------------------------------------
    renderers: dict[str, Callable[[], bytes]] = {}
    gm_error = None
    if not args.no_gm:
        try:
            from gm.maps.render import render_run
        except ImportError as exc:
            gm_error = f"gm.maps.render.render_run cannot be imported ({exc})"
        else:
            renderers["gm"] = lambda: render_run(run)
    peer = Peer(run, args.width)
    renderers["diplomacy + cairosvg"] = peer.render

    pngs: dict[str, bytes] = {}
    for name, fn in renderers.items():
        png = fn()
        if not isinstance(png, bytes):
            raise SystemExit(f"{name} returned {type(png).__name__}, not bytes")
        png_size(png)  # fails loudly if it is no PNG
        pngs[name] = png
    peer.svg_ns.clear()
    peer.png_ns.clear()

    # --- timed runs, the renderers interleaved ----------------------------------------------------
    samples: dict[str, list[int]] = {name: [] for name in renderers}
    t0 = time.perf_counter()
    for _ in range(args.repeat):
        for name, fn in renderers.items():
            ns, png = timed(fn)
            samples[name].append(ns)
            pngs[name] = png
    run_s = time.perf_counter() - t0

    # --- report -------------------------------------------------------------------------------------
    import cairocffi

    print(f"gm map rendering benchmark: case {case.id} of {args.case_file} ({case.title}), {run.state.phase}; "
          f"{args.repeat} timed runs per renderer after one warm-up, interleaved")
    print(f"position: {describe(run)}")
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.processor() or platform.system()}; "
          f"Pillow {_version('pillow')}, diplomacy {_version('diplomacy')}, cairosvg {_version('cairosvg')} "
          f"(cairo {cairocffi.cairo_version_string()})")
    if gm_error:
        print(f"NOTE: {gm_error}; gm is left out")
    print()
    header = f"{'renderer':<30}{'runs':>6}{'median ms':>11}{'best ms':>9}{'PNG KB':>9}{'px':>11}{'vs gm':>8}"
    print(header)
    print("-" * len(header))
    meds = {name: statistics.median(s) / 1e6 for name, s in samples.items()}
    gm_med = meds.get("gm")
    for name, s in samples.items():
        w, h = png_size(pngs[name])
        ratio = f"{meds[name] / gm_med:.2f}x" if gm_med else "-"
        print(f"{name:<30}{len(s):>6}{meds[name]:>11.2f}{min(s) / 1e6:>9.2f}{len(pngs[name]) / 1000:>9.1f}"
              f"{f'{w}x{h}':>11}{ratio:>8}")
    for label, ns in (("  of it: Renderer.render (SVG)", peer.svg_ns), ("  of it: cairosvg.svg2png", peer.png_ns)):
        print(f"{label:<30}{len(ns):>6}{statistics.median(ns) / 1e6:>11.2f}{min(ns) / 1e6:>9.2f}")
    print(f"(peer, untimed: Renderer(game) read its map SVG in {peer.setup_ns / 1e6:.1f} ms; "
          f"its SVG is {len(peer.svg.encode()) / 1000:.0f} KB; timing {run_s:.1f} s)")
    print()

    status = 0
    if gm_med is not None:
        w, _ = png_size(pngs["gm"])
        kb = len(pngs["gm"]) / 1000
        peer_ratio = meds["diplomacy + cairosvg"] / gm_med
        checks = [
            (f"gm median {gm_med:.2f} ms <= {TARGET_MS:.0f} ms", gm_med <= TARGET_MS),
            (f"PNG {kb:.1f} KB <= {TARGET_KB:.0f} KB", kb <= TARGET_KB),
            (f"width {w} px ~ {TARGET_WIDTH} px (within {WIDTH_SLACK:.0%})",
             abs(w - TARGET_WIDTH) <= WIDTH_SLACK * TARGET_WIDTH),
            (f"peer/gm {peer_ratio:.2f}x >= {TARGET_RATIO:.0f}x", peer_ratio >= TARGET_RATIO),
        ]
        print("targets: " + "; ".join(f"{text}: {'PASS' if ok else 'FAIL'}" for text, ok in checks))
    else:
        print(f"targets (gm not measured): gm median <= {TARGET_MS:.0f} ms, PNG <= {TARGET_KB:.0f} KB, "
              f"~{TARGET_WIDTH} px wide, >= {TARGET_RATIO:.0f}x faster than the peer "
              f"(peer median {meds['diplomacy + cairosvg']:.2f} ms: gm needs <= "
              f"{min(TARGET_MS, meds['diplomacy + cairosvg'] / TARGET_RATIO):.2f} ms)")
        status = 0 if args.no_gm else 1

    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        files = {"gm": "gm.png", "diplomacy + cairosvg": "diplomacy.png"}
        written = []
        for name, png in pngs.items():
            (out / files[name]).write_bytes(png)
            written.append(files[name])
        (out / "diplomacy.svg").write_text(peer.svg, encoding="utf-8")
        written.append("diplomacy.svg")
        print(f"wrote {', '.join(written)} to {out}")
    return status


if __name__ == "__main__":
    sys.exit(main())
