"""`gm demo`: a whole Ambition & Empire game played by mail, as it would be played for real.

`gm game new` makes the game, `gm serve` (a child process, on SQLite and its embedded IMAP and
SMTP servers on loopback) runs it, and ten scripted players, one per great power, play it by mail
alone: each JOINs over SMTP and confirms with the code the judge mails back, waits in its own
mailbox (IMAP IDLE) for the start or results mail, and answers with its orders and secret DP
allocations. Deadlines are seconds long, so three game years pass in a minute or two; a phase
ends early once every order is in, or at its deadline when a player left a unit without orders
(on purpose, or as the random players sometimes do in winter).
At the end every mail the GM took in and sent is written out as an .eml file, and a summary says
what happened.
"""
from __future__ import annotations

import asyncio
import email
import email.policy
import os
import random
import re
import secrets
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import format_datetime
from pathlib import Path
from typing import Any

import aioimaplib
import aiosmtplib
from sqlalchemy import create_engine, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session
from tqdm import tqdm

from gm.engine.model import GameState, PhaseKind, Season
from gm.engine.orders import Allocation, Order
from gm.engine.variant import Variant
from gm.lifecycle.phases import owed
from gm.mail.confirm import code_in_subject
from gm.mail.embedded import mailbox_name
from gm.mail.outbox import Outgoing, build_message
from gm.randomgame import RandomPlayers
from gm.store.db import state_from_json
from gm.store.models import (
    Game,
    GamePhase,
    GameStatus,
    InboundMail,
    OutboundMail,
    Player,
)
from gm.variants import load_variant

GAME = "demo"
VARIANT = "ambition"
GM = "gm@judge.example"
MASTER = "master@judge.example"  # the GM: a copy of every results mail with every allocation; a welcome
PLAYERS_DOMAIN = "players.example"
# Seconds, not days: three game years in about a minute. No reminders (a deadline is too near for
# one to help), and no civil disorder for missed deadlines (every power plays to the end).
HOUSE_RULES = ["--movement", "10s", "--retreat", "6s", "--adjustment", "6s", "--remind-before", "0", "--late-limit", "0"]
SEASONS = {Season.SPRING: 1, Season.FALL: 2, Season.WINTER: 3}  # the progress bar's steps in a year
YEAR_LIMIT = 60.0  # seconds a game year may take before the demo gives up: something is wrong


def run_demo(out: Path | None = None, years: int = 3, seed: int = 1763) -> int:
    """Play the demonstration game for `years` game years; everything it leaves goes to `out`
    (a new temporary folder by default). Returns the exit status."""
    folder = Path(out) if out is not None else Path(tempfile.mkdtemp(prefix="gm-demo-"))
    if (folder / "data").exists():
        print(f"gm demo: {folder} holds an earlier demo: give another --out", file=sys.stderr)
        return 2
    try:
        return asyncio.run(Demo(folder.resolve(), years, seed).run())
    except DemoFailed as e:
        print(f"gm demo: {e}", file=sys.stderr)
        return 1


class DemoFailed(Exception):
    """The demo could not go on; the message says where to look."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _slug(name: str) -> str:
    """'Great Britain' -> 'great-britain': for addresses and file names."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def player_address(power: str) -> str:
    return f"{_slug(power)}@{PLAYERS_DOMAIN}"


def _season_step(state: GameState, first_year: int) -> int:
    return (state.phase.year - first_year) * 3 + SEASONS[state.phase.season]


@dataclass
class Tally:
    """What the players saw in their own mailboxes."""

    rejected: list[str] = field(default_factory=list)  # "<power>: <line>: <why>"
    incomplete: list[str] = field(default_factory=list)  # "<phase>: <power> left <unit> without orders"


class Demo:
    def __init__(self, out: Path, years: int, seed: int) -> None:
        self.out, self.years, self.seed = out, years, seed
        self.data = out / "data"
        self.password = secrets.token_urlsafe(12)  # of every mailbox on the embedded server
        self.imap_port, self.smtp_port = _free_port(), _free_port()
        self.variant: Variant = load_variant(VARIANT)
        self.first_year = self.variant.initial_state().phase.year
        self.last_year = self.first_year + years  # play stops when this year's Spring opens
        self.db_url = f"sqlite:///{self.data / 'gm.sqlite3'}"
        self.tally = Tally()
        # Every power's orders for a phase are drawn together, from one seeded generator, the first
        # time a player asks: the same seed plays the same game (as long as the same orders arrive).
        self.random = RandomPlayers(self.variant, random.Random(seed))
        self.drawn: dict[int, list[Order]] = {}
        self.serve: asyncio.subprocess.Process | None = None
        self.master_password = secrets.token_urlsafe(12)  # the GM's, for SIGNON MASTER

    # --- the whole run ---------------------------------------------------------------------------

    async def run(self) -> int:
        started = time.monotonic()
        self.data.mkdir(parents=True, exist_ok=True)
        self.out.joinpath("mail").mkdir(exist_ok=True)
        print(f"gm demo: an {self.variant.title} game played by mail, {self.years} game years; "
              f"everything goes to {self.out}\n")
        if await self._gm("db", "upgrade") != 0:
            return 1
        if await self._gm("game", "new", GAME, "--variant", VARIANT, *HOUSE_RULES, "--master", MASTER) != 0:
            return 1
        engine = create_engine(self.db_url)  # read only, without the service's write locks
        with (self.out / "gm-serve.log").open("wb") as log:
            self.serve = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "gm", "serve", env=self._env(), stdout=log, stderr=asyncio.subprocess.STDOUT)
            try:
                await self._wait_for_port(self.smtp_port)
                print(f"\ngm serve is running (process {self.serve.pid}, log in {self.out / 'gm-serve.log'}): "
                      f"IMAP on 127.0.0.1:{self.imap_port}, SMTP on 127.0.0.1:{self.smtp_port}")
                print(f"Ten players JOIN by mail to {GM} and CONFIRM with the code mailed back, then answer every "
                      "start and results mail with orders; the GM greets them by mail.\n")
                players = [asyncio.create_task(self._player(power, engine), name=power)
                           for power in self.variant.great_powers]
                players.append(asyncio.create_task(self._master(engine), name="GM"))
                try:
                    ended = await self._watch(engine, players)
                finally:
                    for task in players:
                        task.cancel()
                    await asyncio.gather(*players, return_exceptions=True)
                await self._drain(engine)
            finally:
                await self._stop_serve()
        mails = await asyncio.to_thread(self._write_eml, engine)
        self._summary(engine, ended, mails, time.monotonic() - started)
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

    # --- a player ----------------------------------------------------------------------------------

    async def _player(self, power: str, engine: Engine) -> None:
        """One great power's player: JOIN, answer the confirmation with its code (CONFIRM), then
        answer each mail about a new phase with orders."""
        address, password = player_address(power), f"secret-{_slug(power)}"
        await self._send(address, f"join {GAME}", f"JOIN {GAME} {power} {password}")
        mailbox = Mailbox(self.imap_port, address, self.password)
        await mailbox.open()
        ordered: set[int] = set()
        heard = False  # a mail about the game (start or results) has come
        try:
            while True:
                fresh = await mailbox.new_mail(wait=2)
                for msg in fresh:
                    self._read(power, str(msg.get("Subject", "")), msg)
                    code = code_in_subject(str(msg.get("Subject", "")))
                    if code is not None:  # the judge asks whether the JOIN was this address's
                        await self._send(address, f"{GAME}: confirming", f"CONFIRM {code}")
                about_game = [m for m in fresh if str(m.get("Subject", "")).startswith(f"[{GAME}]")]
                heard = heard or bool(about_game)
                # A mail about the game means a new phase to order. Until the first one, the
                # player also looks whether the game has started (should its start mail not come).
                if not about_game and heard:
                    continue
                # A scripted player takes the position from the database, not from the mail (a
                # person reads it there): the same position, without parsing text for people.
                row = await asyncio.to_thread(_current_phase, engine)
                if row is None or row.seq in ordered:
                    continue
                state = state_from_json(row.state_json)
                if state.phase.year >= self.last_year:
                    return  # the demo plays no further
                ordered.add(row.seq)
                lines = self._orders(power, row, state)
                if lines:
                    subject = str(about_game[-1]["Subject"]) if about_game else f"{GAME} orders"
                    await self._send(address, f"Re: {subject}", "\n".join([f"SIGNON {power} {GAME} {password}", *lines]))
        finally:
            await mailbox.close()

    async def _master(self, engine: Engine) -> None:
        """The GM: once the game has started, greets every player by mail (press to all)."""
        while await asyncio.to_thread(_current_phase, engine) is None:
            await asyncio.sleep(0.5)
        await self._send(MASTER, f"{GAME}: welcome", "\n".join([
            f"SIGNON MASTER {GAME} {self.master_password}", "BROADCAST",
            "Welcome to the demonstration game: every mail of it is kept as an .eml file.", "ENDPRESS"]))

    def _read(self, power: str, subject: str, msg: email.message.EmailMessage) -> None:
        """Note the lines the GM rejected: an acknowledgement says which, and why."""
        if subject.startswith(f"[{GAME}]"):
            return  # a start or results mail
        body = msg.get_body(preferencelist=("plain",))
        text = body.get_content() if body is not None else ""  # type: ignore[union-attr]
        for line, why in re.findall(r"^\s*REJECTED\s+(.*)\n\s*:\s*(.*)$", text, re.MULTILINE):
            self.tally.rejected.append(f"{power}: {line.strip()}: {why.strip()}")

    def _orders(self, power: str, row: GamePhase, state: GameState) -> list[str]:
        """`power`'s order lines for the phase: its share of the random draw. In each Fall
        movement one power (a different one each year) leaves a unit without orders, so that the
        deadline ends that phase, where the others end as soon as every order is in."""
        if row.seq not in self.drawn:
            self.drawn[row.seq] = self.random.orders(state)
        mine = [o for o in self.drawn[row.seq] if o.power == power]
        if state.phase.kind is PhaseKind.MOVEMENT and state.phase.season is Season.FALL:
            forgetful = self.variant.great_powers[(state.phase.year - self.first_year) % len(self.variant.great_powers)]
            units = [o for o in mine if type(o) is not Allocation]
            if power == forgetful and units:
                self.tally.incomplete.append(f"{row.label}: {power} leaves {units[-1].province.upper()} without orders")
                mine.remove(units[-1])
        if not mine and power not in owed(self.variant, state):
            return []
        return [str(o) for o in mine]

    async def _send(self, sender: str, subject: str, body: str) -> None:
        msg = EmailMessage()
        msg["From"] = sender
        msg["To"] = GM
        msg["Subject"] = subject
        msg["Date"] = format_datetime(email.utils.localtime())
        msg["Message-ID"] = email.utils.make_msgid(domain=PLAYERS_DOMAIN)
        msg.set_content(body)
        # The embedded SMTP server takes mail for the GM from anyone, as a mail exchanger does.
        await aiosmtplib.send(msg, hostname="127.0.0.1", port=self.smtp_port)

    # --- watching the game -------------------------------------------------------------------------

    async def _watch(self, engine: Engine, players: list[asyncio.Task[None]]) -> list[GamePhase]:
        """Show the game's progress until the Spring after the last year opens (or the game is
        won); returns the phases adjudicated."""
        shown = 0
        bar = tqdm(total=3 * self.years, unit="season", desc="playing", leave=False, dynamic_ncols=True, disable=None,
                   bar_format="{desc}: {bar} {n_fmt}/{total_fmt} seasons [{elapsed}]{postfix}")
        deadline = time.monotonic() + YEAR_LIMIT * self.years
        try:
            while True:
                game, ended, current, mails_in, mails_out = await asyncio.to_thread(_progress, engine)
                for row in ended[shown:]:
                    bar.write(_phase_line(row))
                    bar.update(max(0, _season_step(state_from_json(row.state_json), self.first_year) - bar.n))
                shown = len(ended)
                if current is not None:
                    bar.set_description(current.label.replace(", Movement", ""))
                bar.set_postfix_str(f"mails in {mails_in}, out {mails_out}")
                over = current is not None and state_from_json(current.state_json).phase.year >= self.last_year
                if over or (game is not None and game.status == GameStatus.FINISHED):
                    return ended
                for task in players:
                    if task.done() and not task.cancelled() and task.exception() is not None:
                        raise task.exception()  # type: ignore[misc]
                if self.serve is not None and self.serve.returncode is not None:
                    raise DemoFailed(f"gm serve stopped: see {self.out / 'gm-serve.log'}")
                if time.monotonic() > deadline:
                    raise DemoFailed(f"the game did not get through {self.years} years in {YEAR_LIMIT * self.years:.0f} s: "
                                       f"see {self.out / 'gm-serve.log'}")
                await asyncio.sleep(0.25)
        finally:
            bar.close()

    async def _drain(self, engine: Engine, timeout: float = 30) -> None:
        """Wait until every mail taken in is dealt with and every mail queued is sent."""
        end = time.monotonic() + timeout
        while time.monotonic() < end and await asyncio.to_thread(_busy, engine):
            await asyncio.sleep(0.2)

    # --- what is left ------------------------------------------------------------------------------

    def _write_eml(self, engine: Engine) -> dict[str, Counter[str]]:
        """Every mail the GM took in (as it arrived) and sent (as it was sent) as .eml files:
        mail/in/NNN-from-<who>.eml and mail/out/NNN-to-<who>-<kind>.eml, numbered in order."""
        folder = self.out / "mail"
        for sub in ("in", "out"):
            shutil.rmtree(folder / sub, ignore_errors=True)
            (folder / sub).mkdir(parents=True)
        counts: dict[str, Counter[str]] = {"in": Counter(), "out": Counter()}
        with Session(engine) as session:
            who = {p.email: _slug(p.power or "") for p in session.scalars(select(Player))}
            who[MASTER] = "gm-master"
            inbound = session.scalars(select(InboundMail).order_by(InboundMail.received_at, InboundMail.id)).all()
            for i, mail in enumerate(inbound, 1):
                first = _first_line(mail.raw)
                kind = first.split()[0].upper() if first else "empty"
                counts["in"][kind if kind in ("JOIN", "CONFIRM", "SIGNON") else "other"] += 1
                name = who.get(mail.sender, _slug(mail.sender))
                (folder / "in" / f"{i:03d}-from-{name}.eml").write_bytes(mail.raw)
            outbound = session.scalars(select(OutboundMail).where(OutboundMail.sent_at.is_not(None))
                                       .order_by(OutboundMail.sent_at, OutboundMail.id)).all()
            for i, row in enumerate(outbound, 1):
                counts["out"][row.kind] += 1
                name = who.get(row.to_addr, _slug(row.to_addr))
                raw = build_message(Outgoing.of(row, session), GM)
                (folder / "out" / f"{i:03d}-to-{name}-{row.kind}.eml").write_bytes(raw)
        return counts

    def _summary(self, engine: Engine, ended: list[GamePhase], mails: dict[str, Counter[str]], took: float) -> None:
        with Session(engine) as session:
            current = session.scalar(select(GamePhase).where(GamePhase.adjudicated_at.is_(None))
                                     .order_by(GamePhase.seq.desc()).limit(1))
            unsent = len(session.scalars(select(OutboundMail.id).where(OutboundMail.sent_at.is_(None))).all())
        last = ended[-1] if ended else None
        early = sum(1 for row in ended if _early(row))
        print(f"\nSummary ({took:.0f} s)")
        print("=======")
        if last is not None:
            print(f"Phases played: {len(ended)}, {_when(ended[0].label)} to {_when(last.label)}"
                  + (f" ({current.label} is open)" if current is not None else ""))
            print(f"  {early} ended early, as soon as every order was in; {len(ended) - early} at their deadline")
        print(f"Mails in:  {sum(mails['in'].values()):4d}  ({_kinds(mails['in'])})")
        print(f"Mails out: {sum(mails['out'].values()):4d}  ({_kinds(mails['out'])})"
              + (f"; {unsent} not sent" if unsent else ""))
        if self.tally.incomplete:
            print("Orders left out on purpose: " + "; ".join(self.tally.incomplete))
        late = [r for r in self.tally.rejected if ": too late:" in r]
        wrong = [r for r in self.tally.rejected if r not in late]
        if late:
            print(f"Order lines that came after their phase's deadline: {len(late)} (mail takes a moment on a busy "
                  "machine: the GM goes by the mail's Date)")
        if wrong:
            print(f"Order lines the GM rejected otherwise: {len(wrong)}, e.g. {wrong[0]}")
        state = state_from_json((current or last).state_json) if (current or last) is not None else None
        if state is not None:
            print(f"\nSupply centres, {self.variant.phase_label(state.phase).split(',')[0]}:")
            great = self.variant.great_powers
            for power in sorted(great, key=lambda p: (-len(state.centres_of(p)), p)):
                print(f"  {power:16} {len(state.centres_of(power)):2d} centres, {len(state.units_of(power)):2d} units")
            minor = sum(1 for owner in state.supply_centres.values() if owner not in great)
            print(f"  {'minor powers':16} {minor:2d} centres")
        print(f"\nEvery mail, as .eml files: {self.out / 'mail' / 'in'} (to the GM) and {self.out / 'mail' / 'out'} "
              "(from the GM; results are text and HTML, with the maps inline)")
        print(f"The game's database: {self.data / 'gm.sqlite3'}; gm serve's log: {self.out / 'gm-serve.log'}")


# --- reading the database (the service writes it; these only read) --------------------------------


def _current_phase(engine: Engine) -> GamePhase | None:
    with Session(engine) as session:
        return session.scalar(select(GamePhase).join(Game).where(Game.name == GAME, GamePhase.adjudicated_at.is_(None))
                              .order_by(GamePhase.seq.desc()).limit(1))


def _progress(engine: Engine) -> tuple[Game | None, list[GamePhase], GamePhase | None, int, int]:
    """The game, its adjudicated phases, the open one, mails taken in and sent."""
    from sqlalchemy import func

    with Session(engine) as session:
        game = session.scalar(select(Game).where(Game.name == GAME))
        if game is None:
            return None, [], None, 0, 0
        phases = session.scalars(select(GamePhase).where(GamePhase.game_id == game.id).order_by(GamePhase.seq)).all()
        mails_in = session.scalar(select(func.count()).select_from(InboundMail)) or 0
        mails_out = session.scalar(select(func.count()).select_from(OutboundMail)
                                   .where(OutboundMail.sent_at.is_not(None))) or 0
    ended = [p for p in phases if p.adjudicated_at is not None]
    current = next((p for p in reversed(phases) if p.adjudicated_at is None), None)
    return game, ended, current, int(mails_in), int(mails_out)


def _busy(engine: Engine) -> bool:
    with Session(engine) as session:
        unread = session.scalar(select(InboundMail.id).where(InboundMail.processed_at.is_(None)).limit(1))
        unsent = session.scalar(select(OutboundMail.id).where(OutboundMail.sent_at.is_(None),
                                                              OutboundMail.gave_up_at.is_(None)).limit(1))
    return unread is not None or unsent is not None


def _early(row: GamePhase) -> bool:
    return bool(row.deadline_at and row.adjudicated_at and row.adjudicated_at < row.deadline_at)


def _phase_line(row: GamePhase) -> str:
    """One line per adjudicated phase, as the progress bar goes."""
    report: dict[str, Any] = row.results_json or {}
    took = (row.adjudicated_at - row.opened_at).total_seconds() if row.adjudicated_at and row.opened_at else 0.0
    if report.get("skipped"):
        how = "resolved at once (nothing to decide)"
    elif _early(row):
        how = f"ended early: every order in after {took:.1f} s"
    else:
        late = report.get("late") or []
        how = f"ended at its deadline ({took:.1f} s)" + (f"; no full orders from {', '.join(late)}" if late else "")
    line = f"  {row.label:26} {how}"
    if row.label.startswith("Winter") and report.get("centres"):
        great = load_variant(VARIANT).great_powers
        centres = sorted(((p, n) for p, n in report["centres"].items() if p in great), key=lambda x: (-x[1], x[0]))
        line += "\n    centres: " + ", ".join(f"{p} {n}" for p, n in centres)
    return line


def _when(label: str) -> str:
    """'Fall 1764, Retreat' -> 'Fall 1764'."""
    return label.partition(",")[0]


def _first_line(raw: bytes) -> str:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    body = msg.get_body(preferencelist=("plain",))
    text = body.get_content() if body is not None else ""  # type: ignore[union-attr]
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _kinds(counts: Counter[str]) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in counts.most_common()) or "none"


# --- a player's mailbox ---------------------------------------------------------------------------


class Mailbox:
    """A player's mailbox on the embedded IMAP server, read as a mail program reads it: what is
    new since last time, then IDLE until the server says more has come."""

    def __init__(self, port: int, address: str, password: str) -> None:
        self.port, self.user, self.password = port, mailbox_name(address), password
        self.client: aioimaplib.IMAP4 | None = None
        self.next_uid = 1

    async def open(self, timeout: float = 60) -> None:
        """Log in; the mailbox exists from its first mail on (the JOIN's confirmation code)."""
        end = time.monotonic() + timeout
        while True:
            client = aioimaplib.IMAP4(host="127.0.0.1", port=self.port, timeout=10)
            await client.wait_hello_from_server()
            response = await client.login(self.user, self.password)
            if response.result == "OK":
                await client.select("INBOX")
                self.client = client
                return
            await client.logout()
            if time.monotonic() > end:
                raise DemoFailed(f"no mailbox for {self.user} after {timeout:.0f} s")
            await asyncio.sleep(0.2)

    async def new_mail(self, wait: float = 30) -> list[email.message.EmailMessage]:
        """The mails that came since the last call, oldest first; waits up to `wait` seconds for
        one if none has (then returns none)."""
        assert self.client is not None
        end = time.monotonic() + wait
        while True:
            found = await self._fetch_new()
            if found or time.monotonic() >= end:
                return found
            idle = await self.client.idle_start(timeout=wait + 10)
            try:
                await self.client.wait_server_push(max(0.1, end - time.monotonic()))
            except TimeoutError:
                pass
            finally:
                if not idle.done():
                    self.client.idle_done()
                await asyncio.wait_for(idle, 10)

    async def _fetch_new(self) -> list[email.message.EmailMessage]:
        assert self.client is not None
        response = await self.client.uid("fetch", f"{self.next_uid}:*", "(UID BODY.PEEK[])")
        mails: list[email.message.EmailMessage] = []
        uid = None
        for line in response.lines:
            if isinstance(line, bytes):
                found = re.search(rb"UID (\d+)", line)
                uid = int(found.group(1)) if found else uid
            elif isinstance(line, bytearray) and uid is not None and uid >= self.next_uid:
                mails.append(email.message_from_bytes(bytes(line), policy=email.policy.default))  # type: ignore[arg-type]
                self.next_uid = uid + 1
        if mails:
            # Read mail is deleted, as a POP-style mail program does: the server looks through
            # every mail in a mailbox each second one IDLEs on, so full mailboxes slow it down.
            # (The GM's database keeps every mail: the .eml files come from there.)
            await self.client.uid("store", f"1:{self.next_uid - 1}", "+FLAGS.SILENT", r"(\Deleted)")
            await self.client.expunge()
        return mails

    async def close(self) -> None:
        if self.client is not None:
            try:
                await asyncio.wait_for(self.client.logout(), 5)
            except (OSError, TimeoutError, aioimaplib.AioImapException):
                pass  # the server may be gone already; nothing is lost

