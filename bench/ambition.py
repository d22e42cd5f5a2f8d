#!/usr/bin/env python
"""Movement-phase adjudication benchmark for Ambition & Empire (2006 and v6 rules), gm alone.

What it does
------------
1. Plays `--games` seeded random games of each variant for up to `--years` years with
   gm/randomgame.py (the same generator the tests use: holds, moves, supports, convoys, and DP
   allocations by the great powers to orders for the minor units next to theirs, some over the
   power's entitlement, some backing the same order as another power). Every phase goes through
   gm's adjudicator; a game stops early when a power wins. Each movement phase's position and
   orders are recorded.
2. Times `gm.engine.adjudicator.adjudicate(variant, state, orders)` on every recorded movement
   phase: once untimed, then `--repeat` times with the garbage collector off, a phase's time being
   the best of its repeats. Prints the median, p90 and mean ms per movement phase, the median of
   the DP step alone (`variant.rules.prepare`, timed the same way), and the average number of
   units, orders and DP allocations per phase.
3. For scale, the same measurement on the standard map: on games from the same generator (same
   seed scheme), and, when the `diplomacy` package is installed (`pip install -e '.[bench]'`), on
   exactly the positions and orders bench/adjudicate.py times (its generator, `--seed`, 20 games x
   10 years: its default run, same fingerprint); and the opening position of each map with every
   unit holding (best of 200).

No other adjudicator plays Ambition & Empire (neither `diplomacy` nor `pydip` has the map or the
Diplomacy Points), so there is no peer to compare with or agree against: the figures are gm's
alone. For gm against peers on the standard map, see bench/adjudicate.py.

Run:  python bench/ambition.py [--quick] [--seed 1] [--games 10] [--years 30] [--repeat 5]
"""
from __future__ import annotations

import argparse
import gc
import hashlib
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable

from gm.engine.adjudicator import adjudicate
from gm.engine.model import GameState, PhaseKind
from gm.engine.orders import Allocation, Hold, Order
from gm.engine.variant import Variant
from gm.randomgame import play_random_game
from gm.variants import load_variant


@dataclass
class Phase:
    game: int
    state: GameState
    orders: list[Order]


def generate(variant: Variant, seed: int, games: int, years: int) -> tuple[list[Phase], int, int]:
    """The movement phases of the games, the number of game years played and of games won."""
    phases: list[Phase] = []
    played = won = 0
    for g in range(games):
        last = None
        for state, orders, adj in play_random_game(variant, f"gm-bench-ambition/{seed}/{g}", years):
            if state.phase.kind is PhaseKind.MOVEMENT:
                phases.append(Phase(g, state, orders))
            last = adj
        if last is not None:
            played += last.state.phase.year - variant.first_phase.year
            won += last.winner is not None
    return phases, played, won


def timed(variant: Variant, state: GameState, orders: list[Order], fn: Callable[..., object] = adjudicate) -> int:
    """Nanoseconds taken by fn(variant, state, orders), the garbage collector off (as timeit does)."""
    gc.disable()
    try:
        t0 = time.perf_counter_ns()
        fn(variant, state, orders)
        return time.perf_counter_ns() - t0
    finally:
        gc.enable()


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))] if xs else float("nan")


def fingerprint(phases: list[Phase]) -> str:
    h = hashlib.sha256()
    for p in phases:
        units = sorted(f"{u.power} {u}" for u in p.state.units.values())
        h.update(repr((p.game, str(p.state.phase), units, sorted(p.state.supply_centres.items()),
                       [f"{o.power} {o}" for o in p.orders])).encode())
    return h.hexdigest()[:12]


def opening_holds(variant: Variant, runs: int = 200) -> float:
    """The lightest movement phase: the opening position, every unit holding; best time in ms."""
    state = variant.initial_state()
    orders: list[Order] = [Hold(u.power, u.type, u.location) for u in state.units.values()]
    return min(timed(variant, state, orders) for _ in range(runs)) / 1e6


def adjudicate_py_phases(variant: Variant, seed: int, games: int, years: int) -> tuple[list[Phase], str] | None:
    """bench/adjudicate.py's standard-map positions and orders (driven by `diplomacy`) and their
    fingerprint as bench/adjudicate.py prints it; None without the `diplomacy` package."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    try:
        import adjudicate as standard_bench  # bench/adjudicate.py
        records = standard_bench.generate(variant, seed, games, years)
    except ImportError:
        return None
    return [Phase(r.game, r.state, r.orders) for r in records], standard_bench.fingerprint(records)


def measure(name: str, args: argparse.Namespace, label: str = "", peer_positions: bool = False) -> dict[str, Any] | None:
    variant = load_variant(name)
    t0 = time.perf_counter()
    if peer_positions:
        got = adjudicate_py_phases(variant, args.seed, 20, 10)
        if got is None:
            return None
        (phases, fp), years, won = got, 200, "-"
    else:
        phases, years, won = generate(variant, args.seed, args.games, args.years)
        fp = fingerprint(phases)
    gen_s = time.perf_counter() - t0
    times: list[float] = []
    prepare: list[float] = []  # the part spent turning DP allocations into the minor units' orders
    for p in phases:
        adjudicate(variant, p.state, p.orders)  # warm-up
        times.append(min(timed(variant, p.state, p.orders) for _ in range(args.repeat)) / 1e6)
        prepare.append(min(timed(variant, p.state, p.orders, variant.rules.prepare) for _ in range(args.repeat)) / 1e6)
    n = len(phases)
    allocations = sum(type(o) is Allocation for p in phases for o in p.orders)
    return {
        "variant": label or name,
        "phases": n,
        "years": years,
        "won": won,
        "median": statistics.median(times),
        "p90": percentile(times, 0.9),
        "mean": statistics.fmean(times),
        "prepare": statistics.median(prepare),
        "units": sum(len(p.state.units) for p in phases) / n,
        "orders": sum(len(p.orders) for p in phases) / n,
        "allocations": allocations / n,
        "opening": opening_holds(variant),
        "fingerprint": fp,
        "gen_s": gen_s,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--games", type=int, default=10)
    ap.add_argument("--years", type=int, default=30, help="game years per game at most (a win ends a game)")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per phase (the best is kept)")
    ap.add_argument("--quick", action="store_true", help="CI-sized run: 2 games, 5 years, 3 repeats")
    args = ap.parse_args(argv)
    if args.quick:
        args.games, args.years, args.repeat = 2, 5, 3

    rows: list[dict[str, Any]] = [measure(name, args) for name in ("ambition", "ambition-v6", "standard")]  # type: ignore[misc]
    peer_row = None if args.quick else measure("standard", args, "adjudicate.py", peer_positions=True)
    if peer_row is not None:
        rows.append(peer_row)
    print(f"gm adjudication benchmark, Ambition & Empire: seed {args.seed}, {args.games} games x up to "
          f"{args.years} years each, {args.repeat} repeats (per-phase best)")
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.processor() or platform.system()}")
    print("no peer: no other adjudicator plays Ambition & Empire, so these are gm's figures alone "
          "(the standard row is the same generator on the standard map, for scale)")
    print()
    header = (f"{'variant':<14}{'phases':>7}{'years':>6}{'won':>4}{'median ms':>11}{'p90 ms':>9}{'mean ms':>9}"
              f"{'DP step':>9}{'units':>7}{'orders':>8}{'DP alloc':>9}{'opening ms':>12}  fingerprint")
    print(header)
    print("-" * len(header))
    for r in rows:
        print(f"{r['variant']:<14}{r['phases']:>7}{r['years']:>6}{r['won']:>4}{r['median']:>11.4f}{r['p90']:>9.4f}"
              f"{r['mean']:>9.4f}{r['prepare']:>9.4f}{r['units']:>7.1f}{r['orders']:>8.1f}{r['allocations']:>9.2f}{r['opening']:>12.4f}"
              f"  {r['fingerprint']}")
    print()
    print("phases: movement phases timed; years: game years played in all (a win ends a game early); won: games won;")
    print("units, orders, DP alloc: averages per movement phase (DP alloc: Allocation orders among the orders);")
    print("DP step: median ms of rules.prepare alone (DP allocations -> the minor units' orders), part of the median;")
    print("opening ms: the opening position with every unit holding, best of 200.")
    if peer_row is not None:
        print("adjudicate.py: gm on the standard-map positions and orders of bench/adjudicate.py's default run "
              "(20 games x 10 years, diplomacy-driven; fingerprint as printed there)")
    elif not args.quick:
        print("(bench/adjudicate.py's standard-map positions left out: the `diplomacy` package is not installed)")
    print(f"(generation {sum(r['gen_s'] for r in rows):.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
