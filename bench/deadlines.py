"""Benchmark: N Ambition & Empire games all due at once, adjudicated and announced by the scheduler.

Each game has its ten great powers' players and a full set of random but legal Spring 1901 orders
on file (gm.randomgame, with DP allocations), stored as ingest stores them; every deadline has
passed. Timed: gm.scheduler.run_due, round after round until no game is due: per game one
transaction that reads the orders, adjudicates, writes the results and the next phase, and queues a
results mail to each player (gm.mail.outgoing.game_mail.queue_progress, no map). Prints games adjudicated/s
and results mails queued/s on SQLite and PostgreSQL, and the peer: gm.engine.adjudicator.adjudicate
alone on the same positions and orders, without database or mail, so that the difference is what
the database and the mail add. See bench/README.md.

Target: 1,000 games adjudicated and their results queued in under 30 s on SQLite.

Run `.venv/bin/python bench/deadlines.py [--games N] [--db sqlite|postgresql|both] [--profile]`
(PostgreSQL as in bench/ingest.py: the test suite's server, `scripts/setup test`).
"""
from __future__ import annotations

import argparse
import cProfile
import pstats
import random
import re
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import func, insert, select, update

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gm import scheduler
from gm.engine.adjudicator import adjudicate, check_order
from gm.engine.model import GameState
from gm.engine.orders import Allocation, Order
from gm.lifecycle import phases
from gm.lifecycle.phases import start as start_game
from gm.mail.outgoing import game_mail
from gm.mail.commands.orders import unit_key
from gm.randomgame import RandomPlayers
from gm.store.db import (
    make_engine,
    make_session_factory,
    state_to_json,
    transaction,
    upgrade,
)
from gm.store.models import (
    Game,
    GamePhase,
    GameStatus,
    OrderRecord,
    OutboundMail,
    Player,
    SecretAllocation,
)
from gm.variants import load_variant
from suite import load

VARIANT = "ambition"
GM_ADDRESS = "gm@example.org"
TARGET_GAMES, TARGET_SECONDS = 1000, 30.0


def _email(power: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", power.lower()) + "@example.org"


def random_orders(seed: int, state: GameState) -> list[Order]:
    """One game's orders as the judge would have them on file: random (gm.randomgame), those
    ingest would reject left out, and of several for the same unit the last (ingest retires the
    earlier ones). Public orders first, then allocations: the order _adjudicate reads them in."""
    variant = load_variant(VARIANT)
    kept: dict[tuple[bool, str, str], Order] = {}
    for i, order in enumerate(RandomPlayers(variant, random.Random(seed)).orders(state)):
        if check_order(variant, state, order):
            continue
        key = unit_key(order) or f"waive{i}"
        secret = type(order) is Allocation
        kept.pop((secret, order.power, key), None)
        kept[secret, order.power, key] = order
    return [o for (secret, _, _), o in kept.items() if not secret] + [o for (secret, _, _), o in kept.items() if secret]


def seed(url: str, every: list[list[Order]], opened: datetime) -> None:
    """A started A&E game for each entry of `every`, its orders on file as ingest writes them,
    the deadline passed. Bulk Core inserts: untimed, but it should not take minutes."""
    upgrade(url)
    variant = load_variant(VARIANT)
    session_factory = make_session_factory(make_engine(url))
    with transaction(session_factory) as s:
        c = s.connection()
        c.execute(insert(Game.__table__), [
            {"name": f"ae{i:05d}", "variant": VARIANT, "status": GameStatus.FORMING, "created_at": opened}
            for i in range(len(every))])
        ids = list(s.scalars(select(Game.id).order_by(Game.id)))
        c.execute(insert(Player.__table__), [
            {"game_id": g, "power": p, "email": _email(p), "password_hash": "x", "created_at": opened}
            for g in ids for p in variant.great_powers])
        for game in s.scalars(select(Game).order_by(Game.id)):
            start_game(s, game, opened)
    with transaction(session_factory) as s:
        c = s.connection()
        phase_of = {g: i for g, i in s.execute(select(GamePhase.game_id, GamePhase.id))}
        player_of = {(g, p): i for i, g, p in s.execute(select(Player.id, Player.game_id, Player.power))}
        received = opened + timedelta(hours=1)
        rows: dict[Any, list[dict[str, Any]]] = {OrderRecord: [], SecretAllocation: []}
        for g, orders in zip(ids, every):
            for order in orders:
                secret = type(order) is Allocation
                row = {"game_id": g, "phase_id": phase_of[g], "player_id": player_of[g, order.power],
                       "power": order.power, "text": str(order), "canonical": str(order), "unit": unit_key(order),
                       "current": True, "inbound_id": None, "received_at": received}
                if secret:
                    row["points"] = order.points  # type: ignore[attr-defined]
                rows[SecretAllocation if secret else OrderRecord].append(row)
        for table, new in rows.items():
            c.execute(insert(table.__table__), new)
        # All due at once: the last orders made the phase complete, and the deadline has passed.
        c.execute(update(Game.__table__).values(next_check_at=opened, orders_changed=True))


# Where the scheduler's time goes, without a profiler's overhead: a clock around a few calls
# (a few per game, a microsecond each). Label -> (module, function) as the caller looks it up.
SPLIT = {
    "phases.check": (phases, "check"),
    "  current_phase": (phases, "current_phase"),
    "  players_by_power": (phases, "players_by_power"),
    "  awaited": (phases, "awaited"),
    "  parse_order": (phases, "parse_order"),
    "  adjudicate": (phases, "adjudicate"),
    "  build_report": (phases, "build_report"),
    "  _open": (phases, "_open"),
    "queue_progress": (game_mail, "queue_progress"),
    "  position": (game_mail, "position"),
    "  _Results": (game_mail, "_Results"),
    "  render": (game_mail, "render"),
    "  _maps": (game_mail, "_maps"),
    "  _insert": (game_mail, "_insert"),
}


@contextmanager
def split_clock(totals: dict[str, float]) -> Iterator[None]:
    """Add the seconds spent in each SPLIT function to `totals` while the block runs."""
    def clocked(label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        def call(*args: Any, **kwargs: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                totals[label] = totals.get(label, 0.0) + time.perf_counter() - t0
        return call

    saved = [(module, name, getattr(module, name)) for module, name in SPLIT.values()]
    for label, (module, name) in SPLIT.items():
        setattr(module, name, clocked(label, getattr(module, name)))
    try:
        yield
    finally:
        for module, name, fn in saved:
            setattr(module, name, fn)


def timed_run(url: str, now: datetime, profile: cProfile.Profile | None) -> dict[str, float]:
    """run_due round after round until no game is due; games adjudicated, mails queued, seconds,
    and the seconds in each SPLIT function."""
    session_factory = make_session_factory(make_engine(url))
    games = rounds = queued = 0
    split: dict[str, float] = {}
    stack = ExitStack()
    if profile is None:
        stack.enter_context(split_clock(split))
    else:
        profile.enable()
    t0 = time.perf_counter()
    while True:
        looked, mails = scheduler.run_due(session_factory, gm_address=GM_ADDRESS, now=now)
        if not looked:
            break
        games, queued, rounds = games + looked, queued + mails, rounds + 1
    seconds = time.perf_counter() - t0
    stack.close()
    if profile is not None:
        profile.disable()
    with transaction(session_factory) as s:
        results = s.scalar(select(func.count()).select_from(OutboundMail).where(OutboundMail.kind == "results"))
        adjudicated = s.scalar(select(func.count()).select_from(GamePhase).where(GamePhase.adjudicated_at.is_not(None)))
    return {"games": games, "rounds": rounds, "queued": queued, "results": results or 0,
            "adjudicated": adjudicated or 0, "seconds": seconds, **{"split " + k: v for k, v in split.items()}}


def agreement(url: str, every: list[list[Order]]) -> int:
    """Games whose second phase, as the scheduler wrote it, is the position adjudicate() alone
    reaches from the same orders: the peer did the same work."""
    variant = load_variant(VARIANT)
    state = variant.initial_state()
    with transaction(make_session_factory(make_engine(url))) as s:
        written = [row for (row,) in s.execute(select(GamePhase.state_json).where(GamePhase.seq == 2)
                                               .order_by(GamePhase.game_id))]
    return sum(row == state_to_json(adjudicate(variant, state, orders).state) for row, orders in zip(written, every))


def peer(every: list[list[Order]], repeat: int = 3) -> float:
    """Seconds for adjudicate() alone on the same positions and orders (best of `repeat`)."""
    variant = load_variant(VARIANT)
    state = variant.initial_state()
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for orders in every:
            adjudicate(variant, state, orders)
        best = min(best, time.perf_counter() - t0)
    return best


def run_one(db: str, every: list[list[Order]], profile: cProfile.Profile | None) -> dict[str, float]:
    with ExitStack() as stack:
        if db == "sqlite":
            work = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="gmbench", dir="/tmp")))
            url = f"sqlite:///{work}/gm.sqlite3"
        else:
            dbtests = load("gm_test_databases", "tests/conftest.py")
            url = stack.enter_context(dbtests.postgres_server(dbtests._pg_bin()))
        now = datetime.now(UTC).replace(microsecond=0)
        opened = now - timedelta(days=3)  # past the 48 h movement deadline
        t0 = time.perf_counter()
        seed(url, every, opened)
        seeding = time.perf_counter() - t0
        result = timed_run(url, now, profile)
        result["seeding"] = seeding
        result["agree"] = agreement(url, every)
        return result


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=TARGET_GAMES)
    ap.add_argument("--db", choices=("sqlite", "postgresql", "both"), default="both")
    ap.add_argument("--profile", action="store_true",
                    help="run the scheduler under cProfile and print the top 25 (its figures are then slower)")
    args = ap.parse_args(argv)
    dbs = ["sqlite", "postgresql"] if args.db == "both" else [args.db]
    print(f"gm deadlines benchmark: {args.games} Ambition & Empire games, 10 players each, Spring 1901 orders "
          "on file, all due at once; gm.scheduler.run_due until none is due (the results mails name their maps; the sender draws them)")
    print(f"{'row':<30}{'games':>7}{'s':>9}{'games/s':>10}{'mails':>8}{'mails/s':>10}{'vs peer':>9}{'seed s':>8}")
    state = load_variant(VARIANT).initial_state()
    every = [random_orders(k, state) for k in range(args.games)]
    alone = peer(every)
    per_game = alone / len(every)
    print(f"{'peer: adjudicate() alone':<30}{len(every):>7}{alone:>9.2f}{len(every) / alone:>10.1f}"
          f"{'-':>8}{'-':>10}{'1x':>9}{'-':>8}")
    results: dict[str, dict[str, float]] = {}
    for db in dbs:
        profile = cProfile.Profile() if args.profile else None
        r = results[db] = run_one(db, every, profile)
        if r["games"] != args.games or r["agree"] != args.games or r["results"] != r["queued"]:
            print(f"  {db}: expected {args.games} games adjudicated as by the peer, a mail queued per player; "
                  f"got {r}", file=sys.stderr)
        print(f"{'scheduler, ' + db:<30}{r['games']:>7.0f}{r['seconds']:>9.2f}{r['games'] / r['seconds']:>10.1f}"
              f"{r['results']:>8.0f}{r['results'] / r['seconds']:>10.1f}"
              f"{r['seconds'] / r['games'] / per_game:>8.0f}x{r['seeding']:>8.1f}")
        if profile is not None:
            stats = pstats.Stats(profile, stream=sys.stdout).strip_dirs()
            print(f"--- profile, {db}: top 25 by own time")
            stats.sort_stats("tottime").print_stats(25)
            print(f"--- profile, {db}: top 25 by cumulative time")
            stats.sort_stats("cumulative").print_stats(25)
    orders = sum(len(o) for o in every) / max(len(every), 1)
    print(f"peer: the same positions and {orders:.1f} orders a game (DP allocations included), no database, "
          f"no mail, best of 3: {per_game * 1000:.2f} ms a game. The scheduler's extra is the database and the "
          "results mails.")
    for db in dbs:
        r = results[db]
        print(f"  {db}: {r['seconds'] / r['games'] * 1000:.1f} ms a game, {r['rounds']:.0f} rounds; "
              f"next phases agree with the peer's: {r['agree']:.0f} of {len(every)}")
        if "split phases.check" in r:
            parts = [(label.strip(), r["split " + label]) for label in SPLIT if "split " + label in r]
            rest = r["seconds"] - r["split phases.check"] - r["split queue_progress"]
            print("    ms a game: " + ", ".join(f"{label} {t / r['games'] * 1000:.1f}" for label, t in parts)
                  + f", the rest (claiming the game, commit) {rest / r['games'] * 1000:.1f}")
    if "sqlite" in results and args.games >= TARGET_GAMES:
        r = results["sqlite"]
        scaled = r["seconds"] * TARGET_GAMES / r["games"]
        verdict = "PASS" if scaled < TARGET_SECONDS else "FAIL"
        print(f"target: {TARGET_GAMES} games in < {TARGET_SECONDS:.0f} s on SQLite: {verdict} ({scaled:.1f} s"
              f"{', under cProfile' if args.profile else ''})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
