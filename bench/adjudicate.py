#!/usr/bin/env python
"""Movement-phase adjudication benchmark: gm against PyPI `diplomacy` and `pydip`, same run, same positions.

What it does
------------
1. Plays `--games` seeded random games of standard Diplomacy for `--years` years, driven by the
   `diplomacy` package (it processes movement, retreat and adjustment phases; retreats and builds
   are picked at random from its list of possible orders). For every movement phase it records
   the position (units, supply centres) and a set of random orders generated here, in gm's terms
   (gm.engine.model.Unit, gm.engine.orders.*). Orders mix holds, moves (weighted towards
   occupied provinces and supply centres), supports of neighbouring units' holds and moves
   (mostly of the power's own units; a few name a move the unit does not make), and convoys
   along chains of fleets where the geometry allows, so phases are full of bounces, cut supports
   and dislodgements. The same generation is reproduced exactly for the same --seed.
2. Feeds every recorded phase, identical for all, to each engine and times only the adjudication
   call (translation of position and orders is done beforehand, outside the timed region):
     gm                   gm.engine.adjudicator.adjudicate(variant, state, orders) -> Adjudication
                          (resolution, retreat options and the next phase's GameState)
     pydip                pydip.turn.resolve.resolve_turn(map, commands)
                          (resolution and retreat options; commands built beforehand)
     diplomacy (resolve)  Game._determine_orders(); Game._add_coasts(); Game._move_results()
                          (resolution, retreat options and moving the units: Game._process()
                          for a movement phase minus the phase advance), on a fresh deep copy
     diplomacy (process)  Game.process(), the public call, on a fresh deep copy (adds history
                          snapshots, phase advance, cache rebuild)
   Each phase is run once untimed (warm-up, and its result is kept for the agreement check), then
   `--repeat` times per engine, the engines interleaved, with the garbage collector off around
   each call (as timeit does), using time.perf_counter_ns. A phase's time for an engine is the
   minimum over its repeats (`--stat median` for the median); the table reports the median, p90
   and mean of those per-phase times over all phases, and the ratios of the medians to gm's.
3. Checks agreement on every phase: the units standing after the phase, the units dislodged and
   each dislodged unit's retreat options, pairwise gm/diplomacy, gm/pydip and diplomacy/pydip.
   The number of disagreeing phases is printed with the first few in detail (`--show`), and
   `--dump FILE` writes every disagreeing phase as JSON (position, orders, both outcomes).

Run:  python bench/adjudicate.py [--quick] [--seed 1] [--games 20] [--years 10] [--repeat 5]
"""
from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import platform
import random
import statistics
import sys
import time
from typing import Any, Callable

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from peers import DiplomacyPeer, Outcome, PhaseRecord, PydipPeer, key  # noqa: E402

from gm.engine import adjudicator  # noqa: E402
from gm.engine.graph import Terrain  # noqa: E402
from gm.engine.model import GameState, Phase, PhaseKind, Season, Unit, UnitType, province_of  # noqa: E402
from gm.engine.orders import Convoy, Hold, Move, Order, SupportHold, SupportMove  # noqa: E402
from gm.engine.variant import Variant  # noqa: E402
from gm.variants import load_variant  # noqa: E402

SEASONS = {"S": Season.SPRING, "F": Season.FALL}

# ------------------------------------------------------------------------------------------------
# Random orders
# ------------------------------------------------------------------------------------------------

P_HOLD = 0.10  # of units not convoying or convoyed
P_SUPPORT = 0.35
P_CONVOY = 0.45  # chance a coastal army with a fleet chain next to it is convoyed
P_FOREIGN_FLEET = 0.25  # chance a convoy chain may use another power's fleets
P_MISMATCH = 0.06  # chance a support names a move its unit does not make


class OrderGenerator:
    def __init__(self, variant: Variant) -> None:
        self.v = variant
        self.map = variant.map

    def reach(self, u: Unit) -> frozenset[str]:
        """Provinces `u` could move to, hence support into."""
        if u.type is UnitType.ARMY:
            return self.map.army[u.province]
        return self.map.fleet_provinces[u.location]

    def moves(self, u: Unit) -> list[str]:
        """Destinations (locations, coasts for fleets) `u` may move to."""
        if u.type is UnitType.ARMY:
            return sorted(self.map.army[u.province])
        return sorted(self.map.fleet[u.location])

    def orders(self, state: GameState, rng: random.Random) -> list[Order]:
        units = state.units
        provs = list(units)
        rng.shuffle(provs)
        out: dict[str, Order] = {}

        # 1. Convoys: a coastal army, a chain of fleets in sea provinces, a coastal destination.
        for prov in provs:
            u = units[prov]
            if u.type is not UnitType.ARMY or self.map.provinces[prov].terrain is not Terrain.COAST:
                continue
            if prov in out or rng.random() >= P_CONVOY:
                continue
            foreign = rng.random() < P_FOREIGN_FLEET
            free = {
                p
                for p, f in units.items()
                if f.type is UnitType.FLEET
                and self.map.is_sea(p)
                and p not in out
                and (foreign or f.power == u.power)
            }
            chain = self._convoy_route(prov, free, rng)
            if chain is None:
                continue
            fleets, dest = chain
            out[prov] = Move(u.power, UnitType.ARMY, prov, dest, via_convoy=True)
            for f in fleets:
                fu = units[f]
                out[f] = Convoy(fu.power, UnitType.FLEET, fu.location, prov, dest)

        # 2. Intentions for the rest.
        supporters = []
        for prov in provs:
            if prov in out:
                continue
            u = units[prov]
            r = rng.random()
            if r < P_HOLD:
                out[prov] = Hold(u.power, u.type, u.location)
            elif r < P_HOLD + P_SUPPORT:
                supporters.append(prov)
            else:
                out[prov] = self._move(u, state, rng)

        # 3. Supports, now that every move is known.
        for prov in supporters:
            out[prov] = self._support(units[prov], state, out, rng)
        return [out[p] for p in sorted(out)]

    def _move(self, u: Unit, state: GameState, rng: random.Random) -> Order:
        dests = self.moves(u)
        if not dests:
            return Hold(u.power, u.type, u.location)
        weights = []
        for d in dests:
            p = province_of(d)
            w = 1.0
            occupant = state.units.get(p)
            if occupant is not None:
                w += 4.0 if occupant.power != u.power else 0.5
            if self.map.provinces[p].supply_centre and state.supply_centres.get(p) != u.power:
                w += 2.0
            weights.append(w)
        dest = rng.choices(dests, weights)[0]
        return Move(u.power, u.type, u.location, dest)

    def _support(self, u: Unit, state: GameState, out: dict[str, Order], rng: random.Random) -> Order:
        reach = self.reach(u)
        cands: list[tuple[float, Order]] = []
        for prov, o in out.items():
            if prov == u.province:
                continue
            t = state.units[prov]
            w = 5.0 if t.power == u.power else 1.0
            if isinstance(o, Move):
                d = province_of(o.dest)
                if d in reach and d != u.province:
                    # Attacks on somebody else's unit are what supports are mostly for.
                    defender = state.units.get(d)
                    if defender is not None and defender.power != u.power:
                        w *= 3.0
                    cands.append((w, SupportMove(u.power, u.type, u.location, prov, d, t.type)))
            elif prov in reach:
                cands.append((w, SupportHold(u.power, u.type, u.location, prov, t.type)))
        # Supporters still to be decided hold in place: they can be support-held too.
        for prov in sorted(reach):
            t = state.units.get(prov)
            if t is not None and prov not in out and prov != u.province:
                w = 5.0 if t.power == u.power else 1.0
                cands.append((w, SupportHold(u.power, u.type, u.location, prov, t.type)))
        if rng.random() < P_MISMATCH or not cands:
            # A support of a move the unit does not make (or of a hold when it moves).
            wrong = []
            for prov in sorted(reach):
                t = state.units.get(prov)
                if t is None:
                    continue
                for d in sorted({province_of(x) for x in self.moves(t)}):
                    if d in reach and d != u.province:
                        wrong.append(SupportMove(u.power, u.type, u.location, prov, d, t.type))
            if wrong:
                return rng.choice(wrong)
        if not cands:
            return self._move(u, state, rng)
        weights, orders = zip(*cands)
        return rng.choices(orders, weights)[0]

    def _convoy_route(
        self, start: str, fleets: set[str], rng: random.Random
    ) -> tuple[list[str], str] | None:
        """A random coastal destination reachable from `start` through `fleets`, and the chain."""
        nb = self.map.sea_neighbours
        parent: dict[str, str | None] = {}
        frontier = [p for p in sorted(nb.get(start, ())) if p in fleets]
        for p in frontier:
            parent[p] = None
        order = list(frontier)
        while frontier:
            nxt = []
            for here in frontier:
                for p in sorted(nb[here]):
                    if p in fleets and p not in parent:
                        parent[p] = here
                        nxt.append(p)
                        order.append(p)
            frontier = nxt
        if not order:
            return None
        # Each destination by its shortest chain (no fleet in it that the army does not need).
        ends: list[tuple[str, str]] = []
        seen: set[str] = set()
        for sea in order:
            for p in sorted(nb[sea]):
                if p != start and p not in seen and self.map.provinces[p].terrain is Terrain.COAST:
                    ends.append((sea, p))
            seen |= nb[sea]
        if not ends:
            return None
        # Prefer destinations an army could not walk to: that is what convoys are for.
        far = [e for e in ends if e[1] not in self.map.army.get(start, ())]
        sea, dest = rng.choice(far if far and rng.random() < 0.8 else ends)
        chain = []
        s: str | None = sea
        while s is not None:
            chain.append(s)
            s = parent[s]
        return chain, dest


# ------------------------------------------------------------------------------------------------
# Game generation, driven by the `diplomacy` package
# ------------------------------------------------------------------------------------------------


def gm_state(variant: Variant, game: Any, phase_name: str) -> GameState:
    units: dict[str, Unit] = {}
    for power, us in game.get_units().items():
        for text in us:
            if text.startswith("*"):
                continue
            kind, loc = text.split()
            u = Unit(power.capitalize(), UnitType(kind), loc)
            units[u.province] = u
    centres = {c: power.capitalize() for power, cs in game.get_centers().items() for c in cs}
    phase = Phase(int(phase_name[1:5]), SEASONS[phase_name[0]], PhaseKind.MOVEMENT)
    return GameState(
        phase=phase,
        units=units,
        supply_centres=centres,
        home_centres={p.name: p.home_centres for p in variant.powers.values()},
    )


def generate(variant: Variant, seed: int, games: int, years: int) -> list[PhaseRecord]:
    from diplomacy import Game

    gen = OrderGenerator(variant)
    records: list[PhaseRecord] = []
    for g in range(games):
        rng = random.Random(f"gm-bench/{seed}/{g}")
        game = Game(map_name="standard")
        last_year = 1900 + years
        while not game.is_game_done:
            name = game.get_current_phase()
            if int(name[1:5]) > last_year:
                break
            kind = name[-1]
            if kind == "M":
                state = gm_state(variant, game, name)
                orders = gen.orders(state, rng)
                rec = PhaseRecord(g, name, state, orders)
                by_power: dict[str, list[str]] = {}
                for o in orders:
                    by_power.setdefault(o.power.upper(), []).append(_dip_text(o, state))
                for power, texts in by_power.items():
                    game.set_orders(power, texts)
                records.append(rec)
            else:
                possible = game.get_all_possible_orders()
                for power, locs in game.get_orderable_locations().items():
                    texts = _other_orders(game, power, locs, possible, kind, rng)
                    if texts:
                        game.set_orders(power, texts)
            game.process()
    return records


def _dip_text(o: Order, state: GameState) -> str:
    from peers import diplomacy_order

    return diplomacy_order(o, state)


def _other_orders(game: Any, power: str, locs: list[str], possible: dict, kind: str, rng: random.Random) -> list[str]:
    if kind == "R":
        return [rng.choice(sorted(possible[loc])) for loc in locs if possible.get(loc)]
    # Adjustments
    p = game.get_power(power)
    diff = len(p.centers) - len(p.units)
    texts: list[str] = []
    if diff > 0:
        sites = [loc for loc in sorted(locs) if any(o.endswith(" B") for o in possible.get(loc, ()))]
        rng.shuffle(sites)
        used: set[str] = set()
        for loc in sites:
            if len(texts) >= diff:
                break
            if loc[:3] in used:
                continue
            builds = sorted(o for o in possible[loc] if o.endswith(" B"))
            texts.append(rng.choice(builds))
            used.add(loc[:3])
    elif diff < 0:
        removes = sorted(o for loc in locs for o in possible.get(loc, ()) if o.endswith(" D"))
        texts = rng.sample(removes, min(-diff, len(removes)))
    return texts


# ------------------------------------------------------------------------------------------------
# Timing and agreement
# ------------------------------------------------------------------------------------------------


def timed(fn: Callable[..., Any], *args: Any) -> int:
    """Nanoseconds taken by fn(*args), the garbage collector off (as timeit does)."""
    gc.disable()
    try:
        t0 = time.perf_counter_ns()
        fn(*args)
        return time.perf_counter_ns() - t0
    finally:
        gc.enable()


def tally(adj: Any, st: dict[str, int], void_examples: list[str], rec: PhaseRecord) -> None:
    from gm.engine.results import Result

    for r in adj.results:
        if r.result is Result.VOID:
            # Voided supports are expected (P_MISMATCH); any other void order means gm and the
            # generator (hence diplomacy, which accepted it) disagree on what is legal.
            if isinstance(r.order, (SupportHold, SupportMove)):
                st["void supports"] += 1
                continue
            st["void"] += 1
            if len(void_examples) < 3:
                void_examples.append(f"{rec.label}: {r.order.power} {r.order}: {r.reason}")
        if isinstance(r.order, Move):
            st["moves"] += 1
            st["moves failed"] += r.result is not Result.SUCCEEDS
        elif isinstance(r.order, (SupportHold, SupportMove)):
            st["supports"] += 1
            st["supports cut"] += r.result is Result.CUT
    st["dislodged"] += len(adj.dislodged)


def gm_outcome(adj: Any) -> Outcome:
    return Outcome(
        frozenset(key(u) for u in adj.units.values()),
        {key(d.unit): frozenset(d.retreats) for d in adj.dislodged.values()},
    )


def compare(a: Outcome, b: Outcome) -> list[str]:
    """Differences between two outcomes, as lines; empty when they agree."""
    lines = []
    for name, x, y in (("units", a.units, b.units), ("dislodged", set(a.dislodged), set(b.dislodged))):
        if x != y:
            lines.append(f"{name}: only first {fmt_units(x - y)}; only second {fmt_units(y - x)}")
    if not lines:
        for u in sorted(a.dislodged):
            if a.dislodged[u] != b.dislodged[u]:
                lines.append(
                    f"retreats of {fmt_unit(u)}: first {sorted(a.dislodged[u])}, second {sorted(b.dislodged[u])}"
                )
    return lines


def fmt_unit(u: tuple[str, str, str]) -> str:
    return f"{u[0]} {u[1]} {u[2]}"


def fmt_units(us: Any) -> str:
    return "[" + ", ".join(fmt_unit(u) for u in sorted(us)) + "]" if us else "[]"


def outcome_json(o: Outcome) -> dict:
    return {
        "units": [fmt_unit(u) for u in sorted(o.units)],
        "dislodged": {fmt_unit(u): sorted(r) for u, r in sorted(o.dislodged.items())},
    }


def relevant_orders(rec: PhaseRecord, diff: list[str], variant: Variant) -> list[str]:
    """The orders touching the provinces named in a difference, and their neighbours."""
    named = {w.strip("[],:'").split("/")[0] for line in diff for w in line.split()}
    provs = {p for p in named if p in variant.map.provinces}
    ring = set(provs)
    for p in provs:
        ring |= variant.map.army.get(p, frozenset()) | variant.map.sea_neighbours.get(p, frozenset())
    out = []
    for o in rec.orders:
        touched = {o.province} | {
            province_of(getattr(o, a)) for a in ("dest", "target") if getattr(o, a, None)
        }
        if touched & ring:
            out.append(f"{o.power}: {o}")
    return out


def fingerprint(records: list[PhaseRecord]) -> str:
    h = hashlib.sha256()
    for r in records:
        h.update(repr((r.game, r.name, sorted(map(key, r.state.units.values())), sorted(r.state.supply_centres.items()),
                       [f"{o.power} {o}" for o in r.orders])).encode())
    return h.hexdigest()[:12]


def percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    if not xs:
        return float("nan")
    i = min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))
    return xs[i]


def opening_holds(variant: Variant, pyd: PydipPeer, runs: int = 200) -> tuple[float, float]:
    """The lightest movement phase there is: gm's and pydip's best time in ms, side by side."""
    state = variant.initial_state()
    orders: list[Order] = [Hold(u.power, u.type, u.location) for u in state.units.values()]
    commands, _ = pyd.prepare(PhaseRecord(0, "S1901M", state, orders))
    gm_ns = min(timed(adjudicator.adjudicate, variant, state, orders) for _ in range(runs))
    pyd_ns = min(timed(pyd.run, commands) for _ in range(runs))
    return gm_ns / 1e6, pyd_ns / 1e6


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--years", type=int, default=10)
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per phase and engine")
    ap.add_argument("--stat", choices=("min", "median"), default="min", help="per-phase statistic over repeats")
    ap.add_argument("--quick", action="store_true", help="CI-sized run: 3 games, 3 years, 3 repeats")
    ap.add_argument("--show", type=int, default=3, help="disagreements to print in detail per pair")
    ap.add_argument("--dump", metavar="FILE", help="write every disagreeing phase to FILE as JSON")
    ap.add_argument("--no-gm", action="store_true", help="time the peers only")
    args = ap.parse_args(argv)
    if args.quick:
        args.games, args.years, args.repeat = 3, 3, 3

    variant = load_variant("standard")
    t0 = time.perf_counter()
    records = generate(variant, args.seed, args.games, args.years)
    gen_s = time.perf_counter() - t0
    if not records:
        print("no movement phases generated")
        return 1

    dip = DiplomacyPeer()
    pyd = PydipPeer(variant)

    use_gm = not args.no_gm
    gm_error = None
    if use_gm:
        try:
            adjudicator.adjudicate(variant, records[0].state, records[0].orders)
        except NotImplementedError:
            use_gm, gm_error = False, "gm.engine.adjudicator.adjudicate is not implemented yet"

    engines = (["gm"] if use_gm else []) + ["pydip", "diplomacy (resolve)", "diplomacy (process)"]
    times: dict[str, list[float]] = {e: [] for e in engines}
    pydip_refused: list[str] = []
    crashes: dict[str, list[str]] = {e: [] for e in engines}
    pairs = ([("gm", "diplomacy"), ("gm", "pydip")] if use_gm else []) + [("diplomacy", "pydip")]
    disagree: dict[tuple[str, str], list[tuple[PhaseRecord, list[str], Outcome, Outcome]]] = {p: [] for p in pairs}
    stat = min if args.stat == "min" else statistics.median
    kinds = {"Hold": 0, "Move": 0, "Move via convoy": 0, "SupportHold": 0, "SupportMove": 0, "Convoy": 0}
    n_dislodged = 0
    gm_stats = dict.fromkeys(("moves", "moves failed", "supports", "supports cut", "void supports", "void", "dislodged"), 0)
    void_examples: list[str] = []
    alone = {"all agree": 0, "gm alone": 0, "diplomacy alone": 0, "pydip alone": 0, "all differ": 0}

    t0 = time.perf_counter()
    for rec in records:
        for o in rec.orders:
            k = type(o).__name__
            kinds["Move via convoy" if k == "Move" and o.via_convoy else k] += 1
        outcomes: dict[str, Outcome] = {}

        # --- prepare (untimed) ------------------------------------------------------------------
        dip_in = dip.prepare(rec)
        dip_copies = [dip.fresh(dip_in) for _ in range(2 * args.repeat + 1)]
        commands, refused = pyd.prepare(rec)
        if refused:
            pydip_refused.append(f"{rec.label}: {refused}")

        # --- warm-up runs, kept for the agreement check -------------------------------------------
        runners: dict[str, Callable[[], int]] = {}
        if use_gm:
            try:
                adj = adjudicator.adjudicate(variant, rec.state, rec.orders)
                outcomes["gm"] = gm_outcome(adj)
                tally(adj, gm_stats, void_examples, rec)
                runners["gm"] = lambda: timed(adjudicator.adjudicate, variant, rec.state, rec.orders)
            except Exception as exc:  # a crash is a finding, not a reason to stop
                crashes["gm"].append(f"{rec.label}: {exc!r}")
        if commands is not None:
            outcomes["pydip"] = pyd.outcome(pyd.run(commands))
            runners["pydip"] = lambda: timed(pyd.run, commands)
        g = dip_copies.pop()
        dip.resolve(g)
        outcomes["diplomacy"] = dip.outcome(dip_in, g)
        runners["diplomacy (resolve)"] = lambda: timed(dip.resolve, dip_copies.pop())
        runners["diplomacy (process)"] = lambda: timed(dip.process, dip_copies.pop())
        n_dislodged += len(outcomes["diplomacy"].dislodged)

        # --- timed runs, engines interleaved -----------------------------------------------------
        samples: dict[str, list[int]] = {e: [] for e in runners}
        for _ in range(args.repeat):
            for e, run in runners.items():
                samples[e].append(run())
        for e, s in samples.items():
            times[e].append(stat(s) / 1e6)

        # --- agreement ---------------------------------------------------------------------------
        if len(outcomes) == 3:
            g_, d_, p_ = outcomes["gm"], outcomes["diplomacy"], outcomes["pydip"]
            gd, gp, dp = not compare(g_, d_), not compare(g_, p_), not compare(d_, p_)
            if gd and gp:
                alone["all agree"] += 1
            elif dp:
                alone["gm alone"] += 1
            elif gp:
                alone["diplomacy alone"] += 1
            elif gd:
                alone["pydip alone"] += 1
            else:
                alone["all differ"] += 1
        for a, b in pairs:
            if a in outcomes and b in outcomes:
                diff = compare(outcomes[a], outcomes[b])
                if diff:
                    disagree[(a, b)].append((rec, diff, outcomes[a], outcomes[b]))
    run_s = time.perf_counter() - t0

    # --- report -------------------------------------------------------------------------------
    n = len(records)
    print(f"gm adjudication benchmark: standard map, seed {args.seed}, {args.games} games x {args.years} years, "
          f"{n} movement phases, {args.repeat} repeats (per-phase {args.stat})")
    print(f"positions fingerprint {fingerprint(records)} (same seed, games and years give the same one)")
    print(f"python {platform.python_version()} on {platform.machine()}, {platform.processor() or platform.system()}; "
          f"diplomacy {dip.version}, pydip {pyd.version}")
    n_orders = sum(kinds.values())
    print(f"orders: {n_orders} ({n_orders / n:.1f}/phase): "
          + ", ".join(f"{k} {100 * v / n_orders:.0f}%" for k, v in kinds.items())
          + f"; {n_dislodged / n:.2f} dislodgements/phase (diplomacy)")
    if use_gm:
        st = gm_stats
        print(f"gm's verdicts: {100 * st['moves failed'] / max(1, st['moves']):.0f}% of moves fail, "
              f"{100 * st['supports cut'] / max(1, st['supports']):.0f}% of supports cut, "
              f"{st['void supports']} supports void, {st['dislodged'] / n:.2f} dislodgements/phase; "
              f"other void orders: {st['void']}"
              + (f" (e.g. {void_examples[0]})" if void_examples else ""))
    if gm_error:
        print(f"NOTE: {gm_error}; gm is left out")
    print()
    header = f"{'engine':<22}{'phases':>7}{'median ms':>11}{'p90 ms':>9}{'mean ms':>9}{'vs gm':>8}"
    print(header)
    print("-" * len(header))
    gm_med = statistics.median(times["gm"]) if use_gm and times["gm"] else None
    for e in engines:
        ts = times[e]
        if not ts:
            print(f"{e:<22}{0:>7}")
            continue
        med = statistics.median(ts)
        ratio = f"{med / gm_med:.2f}x" if gm_med else "-"
        print(f"{e:<22}{len(ts):>7}{med:>11.4f}{percentile(ts, 0.9):>9.4f}{statistics.fmean(ts):>9.4f}{ratio:>8}")
    print()
    if gm_med:
        pyd_med = statistics.median(times["pydip"]) if times["pydip"] else float("nan")
        ok_abs = gm_med <= 0.09
        ok_rel = pyd_med / gm_med >= 2
        print(f"targets: gm median {gm_med:.4f} ms <= 0.09 ms: {'PASS' if ok_abs else 'FAIL'}; "
              f"pydip/gm {pyd_med / gm_med:.2f}x >= 2x: {'PASS' if ok_rel else 'FAIL'}")
        gm_open, pyd_open = opening_holds(variant, pyd)
        print(f"light load, the opening position with every unit holding (best of 200): "
              f"gm {gm_open:.4f} ms, pydip {pyd_open:.4f} ms ({pyd_open / gm_open:.1f}x)")
    print(f"(generation {gen_s:.1f} s, timing and checks {run_s:.1f} s)")
    print()

    print("agreement (phases whose standing units, dislodged units or retreat options differ):")
    if use_gm:
        print("  three-way: " + ", ".join(f"{k} {v}" for k, v in alone.items())
              + "   ('gm alone': both peers agree and gm differs)")
    for (a, b), found in disagree.items():
        print(f"  {a} vs {b}: {len(found)} of {n} phases disagree")
    if pydip_refused:
        print(f"  pydip refused {len(pydip_refused)} phases (left out of its timing and checks), e.g. {pydip_refused[0]}")
    for e, cs in crashes.items():
        if cs:
            print(f"  {e} raised on {len(cs)} phases, e.g. {cs[0]}")
    for (a, b), found in disagree.items():
        for rec, diff, _, _ in found[: args.show]:
            print(f"\n  [{a} vs {b}] {rec.label} (first = {a}, second = {b})")
            for line in diff:
                print(f"    {line}")
            for line in relevant_orders(rec, diff, variant):
                print(f"      {line}")
    if args.dump:
        dump = []
        for (a, b), found in disagree.items():
            for rec, diff, oa, ob in found:
                dump.append(
                    {
                        "pair": [a, b],
                        "phase": rec.label,
                        "units": [f"{u.power} {u}" for u in rec.state.units.values()],
                        "centres": rec.state.supply_centres,
                        "orders": [f"{o.power}: {o}" for o in rec.orders],
                        "difference": diff,
                        a: outcome_json(oa),
                        b: outcome_json(ob),
                    }
                )
        with open(args.dump, "w") as fh:
            json.dump(dump, fh, indent=1)
        print(f"\nwrote {len(dump)} disagreements to {args.dump}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
