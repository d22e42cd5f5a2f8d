"""Game pages benchmark: what writing a game's web pages costs after a phase, against rendering
the results mail of the same phase, same run, same game.

What it does
------------
1. Plays an Ambition & Empire game on a new SQLite file the way the tests do: every great power's
   random legal orders (DP allocations among them) go through the judge's mail intake
   (gm.mail.ingest.ingest), and the deadline scheduler (gm.scheduler.run_due) adjudicates each
   phase and queues its results mail. --warmup phases are played and their pages written first
   (untimed): the game has a history, as a game in its third year has.
2. Then for each of --phases more phases: the phase is played (untimed); its new maps are drawn
   into the pages' folder (untimed, timed apart as "maps": the pages' own maps of the phase, in
   both palettes: the phase's orders and the position after it); then, timed:
     pages   gm.web.publish.Publisher.round(): one look at every game for a change (one query),
             what the changed game's pages show read from the database (every phase's public
             results, the centres year by year, the players' powers), and the pages that changed
             rendered (jinja2) and written to disk: the new phase's page and the previous
             phase's (its "next" link), the game's page, in both palettes, the index of games
             and the games/ page. The maps are found kept, not drawn.
     mail    the peer: the results mail of the same phase rendered for one reader, text and HTML
             (gm.mail.outgoing.game_mail.results_text and results_html, with the position the phase was
             played from): what the judge does for every results mail it queues.
   time.perf_counter_ns around each, the garbage collector on (as in gm serve).
3. Prints the median and the worst of each, and whether pages stays under the target.

Target: pages under 50 ms a game after a phase, maps excluded (they are drawn once, and timed
apart).

Run:  .venv/bin/python bench/pages.py [--warmup 10] [--phases 10] [--keep DIR]
"""
from __future__ import annotations

import argparse
import os
import platform
import random
import statistics
import tempfile
import time
from datetime import timedelta

from sqlalchemy import select
from email.message import EmailMessage
from pathlib import Path

from gm.games import create_game, current_phase, find_game, variant_of
from gm.lifecycle import phases
from gm.lifecycle.house_rules import OPTION_KEY, HouseRules
from gm.lifecycle.phases import history, position
from gm.mail.outgoing.game_mail import results_html, results_text
from gm.mail.outgoing.mail_maps import DrawnMaps, draw_planned, plan_attachments
from gm.maps.store import MapStore
from gm.mail.ingest import ingest
from gm.randomgame import RandomPlayers
from gm.scheduler import run_due
from gm.store.db import make_engine, make_session_factory, transaction, upgrade
from gm.store.models import OutboundMail, Player, utcnow
from gm.store.passwords import PasswordVerifier, hash_password
from gm.variants import load_variant
from gm.view import paths
from gm.web.pages import game_pages
from gm.web.publish import Publisher
from gm.web.writer import Written, keep_maps

GM = "gm@example.org"
GAME = "bench"
TARGET_MS = 50.0


def address(power: str) -> str:
    return f"{power.lower().replace(' ', '-')}@players.example"


class Game:
    """The game played by mail, a phase at a time."""

    def __init__(self, url: str, seed: int) -> None:
        upgrade(url)
        self.factory = make_session_factory(make_engine(url))
        self.variant = load_variant("ambition")
        self.players = RandomPlayers(self.variant, random.Random(seed))
        self.verifier = PasswordVerifier()
        self.n = 0
        self.now = utcnow()
        with transaction(self.factory) as s:
            game = create_game(s, GAME, "ambition")
            game.options = {OPTION_KEY: HouseRules().to_options()}
            secret = hash_password("pw")
            for power in self.variant.great_powers:
                s.add(Player(game_id=game.id, power=power, email=address(power), password_hash=secret))
            s.flush()
            phases.start(s, game, utcnow())

    def play(self) -> None:
        with transaction(self.factory) as s:
            game = find_game(s, GAME)
            assert game is not None
            current = current_phase(s, game)
            assert current is not None, "the game ended"
            state, deadline = current.state, game.deadline_at
        for power in self.variant.great_powers:
            lines = [str(o) for o in self.players.orders(state) if o.power == power]
            if lines:
                self.n += 1
                m = EmailMessage()
                m["From"], m["To"], m["Subject"] = address(power), GM, "orders"
                m["Message-ID"] = f"<bench-{self.n}@players.example>"
                m.set_content("\n".join([f"SIGNON {power} {GAME} pw", *lines]))
                ingest(self.factory, m.as_bytes(), gm_address=GM, verifier=self.verifier)
        assert deadline is not None
        self.now = max(self.now, deadline) + timedelta(seconds=1)
        run_due(self.factory, gm_address=GM, now=self.now)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--warmup", type=int, default=10, help="phases played (and written) before timing")
    parser.add_argument("--phases", type=int, default=10, help="phases timed")
    parser.add_argument("--seed", type=int, default=1763)
    parser.add_argument("--keep", metavar="DIR", help="leave the pages (and the database) in DIR")
    args = parser.parse_args()
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="gm-pages-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    out = folder / "pages"
    game = Game(f"sqlite:///{folder / 'gm.sqlite3'}", args.seed)
    publisher = Publisher(game.factory, out)
    for _ in range(args.warmup):
        game.play()
    publisher.round()  # the history so far: every page and map
    pages_ms: list[float] = []
    mail_ms: list[float] = []
    maps_ms: list[float] = []
    written: list[int] = []
    store = MapStore(game.factory)  # the maps every channel shares (gm.maps.store), as in gm serve
    mail_drew: list[int] = []
    pages_drew: list[int] = []
    pages_found: list[int] = []
    for _ in range(args.phases):
        game.play()
        # The results mail's maps, as the outbox draws them: planned in its claim's transaction,
        # drawn after it, into the store.
        drawn = DrawnMaps()
        drawn.store = store
        before = store.drawn
        with transaction(game.factory) as s:
            queued = s.scalars(select(OutboundMail).where(OutboundMail.kind == "results")
                               .order_by(OutboundMail.id.desc()).limit(1)).one()
            planned = plan_attachments(s, queued.attachments, drawn)
        draw_planned(planned, drawn)
        mail_drew.append(store.drawn - before)

        before, found = store.drawn, store.found
        started = time.perf_counter_ns()
        with transaction(game.factory) as s:  # the new maps, drawn apart (untimed in "pages")
            row = find_game(s, GAME)
            assert row is not None
            shown = game_pages(s, row)
        assert shown is not None
        keep_maps(game.variant, shown, out / paths.game_folder(GAME) / "maps", Written(), store)
        maps_ms.append((time.perf_counter_ns() - started) / 1e6)
        pages_drew.append(store.drawn - before)
        pages_found.append(store.found - found)

        started = time.perf_counter_ns()
        done = publisher.round()
        pages_ms.append((time.perf_counter_ns() - started) / 1e6)
        assert done.maps == 0, "the maps were drawn beforehand"
        written.append(done.pages)

        with transaction(game.factory) as s:
            row = find_game(s, GAME)
            assert row is not None
            last = history(s, row)[-1]
            report, before, variant = last.results_json or {}, position(last), variant_of(row)
            started = time.perf_counter_ns()
            results_text(row, variant, report, None, before=before)
            results_html(row, variant, report, None, before=before)
            mail_ms.append((time.perf_counter_ns() - started) / 1e6)
    with transaction(game.factory) as s:
        row = find_game(s, GAME)
        assert row is not None
        played = len(history(s, row))
    print(f"gm game pages benchmark: Ambition & Empire, {played} phases played by the end "
          f"({args.warmup} before timing, {args.phases} timed); Python {platform.python_version()}, "
          f"{platform.machine()}, {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end")
    print(f"{'':8} {'median ms':>10} {'worst ms':>9}")
    for name, figures in (("pages", pages_ms), ("mail", mail_ms), ("maps", maps_ms)):
        print(f"{name:8} {statistics.median(figures):10.1f} {max(figures):9.1f}")
    print(f"pages written a phase: {statistics.median(written):.0f} (median); pages / mail: "
          f"{statistics.median(pages_ms) / statistics.median(mail_ms):.1f}x")
    print(f"maps drawn a phase: {statistics.median(mail_drew):.0f} by the results mail + "
          f"{statistics.median(pages_drew):.0f} by the pages (which found {statistics.median(pages_found):.0f} of theirs "
          f"drawn by the mail) = {statistics.median([m + p for m, p in zip(mail_drew, pages_drew)]):.0f} "
          f"(median; each channel drawing its own: {statistics.median([m + p + f for m, p, f in zip(mail_drew, pages_drew, pages_found)]):.0f})")
    ok = statistics.median(pages_ms) < TARGET_MS
    print(f"target: pages under {TARGET_MS:.0f} ms a game after a phase (maps excluded): "
          f"{'met' if ok else 'NOT met'}")
    print(f"pages left in {out}" if args.keep else "")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
