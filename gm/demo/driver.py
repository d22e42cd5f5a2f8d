"""The run of a demonstration game: `gm game new` makes the game, `gm serve` (a child process, on
SQLite and its embedded IMAP and SMTP servers on loopback) runs it, the scripted players and GM
(gm.demo.players) play it by mail, and a progress bar follows it until it ends; then every mail
is written out and the summary printed (gm.demo.report).
"""
from __future__ import annotations

import asyncio
import os
import secrets
import signal
import socket
import sys
import tempfile
import time
from pathlib import Path
from typing import BinaryIO

from sqlalchemy import create_engine
from sqlalchemy.engine import Engine
from tqdm import tqdm

from gm.demo.mailbox import DemoFailed
from gm.demo.players import Cast, Plan
from gm.demo.report import PAGES, busy, phase_line, progress, summary, write_eml, write_pages
from gm.demo.scripts import GAME, GM, MASTER, SCRIPTS, Script
from gm.engine.variant import Variant
from gm.store.db import state_from_json
from gm.store.models import GamePhase, GameStatus
from gm.variants import load_variant

DEFAULT_VARIANT = "ambition"
# Seconds, not days: a game year in under a minute. No reminders (a deadline is too near for one
# to help), and no civil disorder for missed deadlines (every power plays to the end).
HOUSE_RULES = ["--movement", "15s", "--retreat", "10s", "--adjustment", "10s", "--bidding", "10s",
               "--remind-before", "0", "--late-limit", "0"]
YEAR_LIMIT = 60.0  # seconds a game year may take before the demo gives up: something is wrong
START_LIMIT = 60.0  # seconds for the players to join and the game to start


def run_demo(out: Path | None = None, years: int | None = None, seed: int = 1763, variant: str = DEFAULT_VARIANT) -> int:
    """Play a demonstration game of `variant` for `years` game years (the variant's own number
    by default) and end it; everything it leaves goes to `out` (a new temporary folder by
    default). Returns the exit status."""
    script = SCRIPTS[variant]
    try:
        plan = make_plan(load_variant(variant), script, years or script.years)
    except DemoFailed as e:
        print(f"gm demo: {e}", file=sys.stderr)
        return 2
    folder = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="gm-demo-"))
    if (folder / "data").exists():
        print(f"gm demo: {folder} holds an earlier demo: give another --out", file=sys.stderr)
        return 2
    try:
        return asyncio.run(Demo(folder.resolve(), script, plan, seed).run())
    except DemoFailed as e:
        print(f"gm demo: {e}", file=sys.stderr)
        return 1


def make_plan(variant: Variant, script: Script, years: int) -> Plan:
    """When the players order and how the game ends, for a game of `years` game years."""
    start = variant.initial_state().phase
    # The first year with a movement: Napoleonic Wars open with the bids of the winter before.
    first = start.year + (1 if variant.has_bidding else 0)
    if script.ending == "draw":
        return Plan(script, first, first + years, None, None)
    allowed = variant.rules.end_years(variant)
    last = next((y for y in allowed if y - years + 1 >= first), None)
    if last is None:
        raise DemoFailed(f"{variant.title} ends in {' or '.join(map(str, allowed))}: at most "
                         f"{max(allowed) - first + 1} years")
    jump = last - years + 1
    return Plan(script, jump, None, last, jump if jump != start.year else None)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Demo:
    def __init__(self, out: Path, script: Script, plan: Plan, seed: int) -> None:
        self.out, self.script, self.plan = out, script, plan
        self.data = out / "data"
        self.variant: Variant = load_variant(script.variant)
        self.password = secrets.token_urlsafe(12)  # of every mailbox on the embedded server
        self.master_password = secrets.token_urlsafe(12)  # the GM's, for SIGNON MASTER
        self.imap_port, self.smtp_port = _free_port(), _free_port()
        self.db_url = f"sqlite:///{self.data / 'gm.sqlite3'}"
        self.cast = Cast(self.variant, plan, self.smtp_port, self.imap_port, self.password, self.master_password, seed)
        self.serve: asyncio.subprocess.Process | None = None

    @property
    def years(self) -> int:
        plan = self.plan
        if plan.stop_year is not None:
            return plan.stop_year - plan.first_year
        assert plan.last_year is not None
        return plan.last_year - plan.first_year + 1

    # --- the whole run ---------------------------------------------------------------------------

    async def run(self) -> int:
        started = time.monotonic()
        self.data.mkdir(parents=True, exist_ok=True)
        self.out.joinpath("mail").mkdir(exist_ok=True)
        v, plan = self.variant, self.plan
        end = ("then the GM proposes a draw and the players accept it" if plan.stop_year is not None
               else f"the GM ends it once {plan.last_year} is played")
        print(f"gm demo: a game of {v.title} ({self.script.about}) played by mail, {self.years} game "
              f"year{'s' if self.years != 1 else ''}; {end}. Everything goes to {self.out}\n")
        new = ["game", "new", GAME, "--variant", self.script.variant, *HOUSE_RULES, "--master", MASTER]
        if await self._gm("db", "upgrade") != 0 or await self._gm(*new) != 0:
            return 1
        engine = create_engine(self.db_url)  # read only, without the service's write locks
        with (self.out / "gm-serve.log").open("wb") as log:
            try:
                await self._start_serve(log)
                print(f"\ngm serve is running (process {self.serve.pid}, log in {self.out / 'gm-serve.log'}): "
                      f"IMAP on 127.0.0.1:{self.imap_port}, SMTP on 127.0.0.1:{self.smtp_port}")
                print(f"{len(v.great_powers)} players JOIN by mail to {GM} and CONFIRM with the code mailed back, "
                      "then answer every start and results mail with orders; the GM greets them by mail.\n")
                tasks = [asyncio.create_task(self.cast.player(power, engine), name=power) for power in v.great_powers]
                tasks.append(asyncio.create_task(self.cast.master(engine), name="GM"))
                try:
                    ended = await self._watch(engine, tasks)
                finally:
                    for task in tasks:
                        task.cancel()
                    # asyncio.wait, not gather: a player stuck in a mail server's answer must not
                    # keep gm serve from being stopped (a task still running then is left behind).
                    done, _ = await asyncio.wait(tasks, timeout=30)
                    for task in done:
                        if not task.cancelled():
                            task.exception()  # seen: a player's end after the game's is no matter
                await self._drain(engine)
            finally:
                await self._stop_serve()
        written = await asyncio.to_thread(write_eml, engine, self.out)
        pages = await asyncio.to_thread(write_pages, engine, self.out)
        summary(engine, v, self.script, self.out, self.cast.tally, ended, written, time.monotonic() - started, pages)
        engine.dispose()
        return 0

    def _env(self) -> dict[str, str]:
        """The environment of gm's own commands: the user's GM_* settings left out, so that the
        demo never touches a real mail server or database."""
        env = {k: v for k, v in os.environ.items() if not k.startswith("GM_")}
        env.update({
            "GM_ADDRESS": GM,
            "GM_DATA_DIR": str(self.data),
            "GM_DATABASE_URL": self.db_url,
            "GM_IMAP_PORT": str(self.imap_port),
            "GM_SMTP_PORT": str(self.smtp_port),
            "GM_IMAP_PASSWORD": self.password,
            "GM_POLL_SECONDS": "5",  # the safety net under IDLE
            "GM_MASTER_PASSWORD": self.master_password,  # gm game new --master: the GM's password
            "GM_PAGES_DIR": str(self.out / PAGES),  # the game's web pages, after each phase
        })
        return env

    async def _gm(self, *args: str) -> int:
        """Run a `gm` command as a user would, showing what it prints."""
        print("$ gm " + " ".join(args))
        proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "gm", *args, env=self._env(),
                                                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT)
        output, _ = await proc.communicate()
        print(output.decode(errors="replace").rstrip())
        return proc.returncode or 0

    async def _start_serve(self, log: BinaryIO, tries: int = 3) -> None:
        """gm serve started and listening. A free port may be taken by another program between
        choosing it and gm serve binding it: then again, on other ports."""
        for attempt in range(tries):
            self.serve = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "gm", "serve", env=self._env(), stdout=log, stderr=asyncio.subprocess.STDOUT)
            try:
                await self._wait_for_port(self.smtp_port)
                return
            except DemoFailed:
                log.flush()
                taken = b"cannot listen" in (self.out / "gm-serve.log").read_bytes()
                if not taken or attempt == tries - 1:
                    raise
            self.imap_port, self.smtp_port = _free_port(), _free_port()
            self.cast.imap_port, self.cast.smtp_port = self.imap_port, self.smtp_port

    async def _wait_for_port(self, port: int, timeout: float = 30) -> None:
        deadline = time.monotonic() + timeout
        while True:
            assert self.serve is not None
            if self.serve.returncode is not None:
                raise DemoFailed(f"gm serve stopped at once: see {self.out / 'gm-serve.log'}")
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", port)
                writer.close()
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)

    async def _stop_serve(self) -> None:
        if self.serve is None or self.serve.returncode is not None:
            return
        self.serve.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(self.serve.wait(), 20)
        except TimeoutError:
            self.serve.kill()
            await self.serve.wait()

    # --- watching the game -------------------------------------------------------------------------

    async def _watch(self, engine: Engine, tasks: list[asyncio.Task[None]]) -> list[GamePhase]:
        """Show the game's progress, a step per game year, until it ends; returns the phases
        adjudicated."""
        shown = 0
        first = self.plan.first_year
        bar = tqdm(total=self.years, unit="year", desc="playing", leave=False, dynamic_ncols=True, disable=None,
                   bar_format="{desc}: {bar} {n_fmt}/{total_fmt} years [{elapsed}]{postfix}")
        limit = START_LIMIT + YEAR_LIMIT * (self.years + 1)  # a year more: the end
        deadline = time.monotonic() + limit
        try:
            while True:
                game, ended, current, mails_in, mails_out = await asyncio.to_thread(progress, engine)
                for row in ended[shown:]:
                    bar.write(phase_line(self.variant, row))
                shown = len(ended)
                if current is not None:
                    year = state_from_json(current.state_json).phase.year
                    bar.update(max(0, min(self.years, year - first) - bar.n))
                    bar.set_description(current.label.replace(", Movement", ""))
                bar.set_postfix_str(f"mails in {mails_in}, out {mails_out}")
                if game is not None and game.status == GameStatus.FINISHED:
                    bar.write(f"  The game is over: {game.outcome}")
                    return ended
                for task in tasks:
                    if task.done() and not task.cancelled() and task.exception() is not None:
                        raise task.exception()  # type: ignore[misc]
                if self.serve is not None and self.serve.returncode is not None:
                    raise DemoFailed(f"gm serve stopped: see {self.out / 'gm-serve.log'}")
                if time.monotonic() > deadline:
                    raise DemoFailed(f"the game did not end in {limit:.0f} s: see {self.out / 'gm-serve.log'}")
                await asyncio.sleep(0.25)
        finally:
            bar.close()

    async def _drain(self, engine: Engine, timeout: float = 30) -> None:
        """Wait until every mail taken in is dealt with and every mail queued is sent."""
        end = time.monotonic() + timeout
        while time.monotonic() < end and await asyncio.to_thread(busy, engine):
            await asyncio.sleep(0.2)
