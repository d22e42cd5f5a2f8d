"""The players' side of scripts/test-compose: a short game of standard Diplomacy played by mail
through the compose stack's mail server, from the host, with the judge holding the mailbox stopped
mid-game.

    play.py --smtp PORT --imap PORT [--t0 EPOCH] [--dkim-selector S] -- docker compose -p ... -f ...

1. Seven players get mailboxes on the mail server (its `setup email add`); the GM makes a game
   with short deadlines (`docker compose exec judge gm game new`).
2. The players JOIN by mail (SMTP to the mail server's port 25, as from another mail server) and
   answer the code the judge mails back (CONFIRM); the game starts.
3. Spring 1901: each player mails its orders, with WAIT so that the phase ends at its deadline,
   and reads its mailbox over IMAP: one acknowledgement, then the results with their two maps.
4. The judge holding the GM's mailbox (its connection in pg_stat_activity holds the advisory lock)
   is stopped; the other must take the mailbox over.
5. Fall 1901 as Spring. Then, after a quiet spell, each player must have exactly one
   acknowledgement per order mail and exactly one results mail per phase: nothing lost or doubled.
6. Every mail the players got, as its bytes came, carries a DKIM-Signature by the GM address's
   domain and the judges' selector that verifies (dkimpy) against the record of the key the first
   judge made at its start, as `gm mail dkim-key --show` prints it for the operator to publish.

Exit status 0 when all was so; 1 with one line saying what was missing.
"""
from __future__ import annotations

import argparse
import asyncio
import email.utils
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

import aiosmtplib
import dkim
import dkim.util

from gm.demo.mailbox import Mailbox, plain_text
from gm.demo.players import player_address
from gm.demo.scripts import GM
from gm.mail.commands.confirmations import code_in_subject
from gm.variants import load_variant

GAME = "compose"
VARIANT = "standard"
DEADLINE = 20  # seconds of each movement phase: every player sends WAIT, so it ends at the deadline
PHASES = ("Spring 1901", "Fall 1901")
WAIT = 60.0  # seconds any one mail may take before the test gives up on it
QUIET = 5.0  # seconds after the last expected mail in which nothing more may come
LIMIT = 600.0  # seconds the whole game may take (about 1 min when all goes well)
# Who holds the GM's mailbox: the connection holding gm serve's advisory lock (gm/store/db.py).
HOLDER = ("SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid "
          "WHERE l.locktype = 'advisory' AND l.granted")


class Failed(Exception):
    """What the stack did not do: the test's one-line verdict."""


class KeptMailbox(Mailbox):
    """The demo's mailbox, also keeping every mail's bytes as the server gave them: a DKIM signature
    is checked on those, as a receiver checks it, not on a parsed copy written out again."""

    def __init__(self, port: int, address: str, password: str) -> None:
        super().__init__(port, address, password)
        self.raw: set[bytes] = set()  # a set: a fetch of UID n:* gives the last mail again when none is new

    async def open(self, timeout: float = 60) -> None:
        await super().open(timeout)
        assert self.client is not None
        command = self.client.uid

        async def uid(name: str, *args: Any) -> Any:
            response = await command(name, *args)
            if name == "fetch":
                self.raw.update(bytes(line) for line in response.lines if isinstance(line, bytearray))
            return response

        self.client.uid = uid  # type: ignore[method-assign]


@dataclass
class Player:
    power: str
    mailbox: KeptMailbox
    mails: list[EmailMessage] = field(default_factory=list)  # every mail received, in order
    orders: dict[str, str] = field(default_factory=dict)  # Message-ID of each order mail -> its phase
    arrived: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def address(self) -> str:
        return player_address(self.power)

    @property
    def password(self) -> str:
        return f"secret-{self.power.lower()}"

    async def collect(self) -> None:
        """Read the mailbox as long as the game runs."""
        while True:
            fresh = await self.mailbox.new_mail(wait=5)
            if fresh:
                self.mails.extend(fresh)
                self.arrived.set()

    async def wait_for(self, found: Callable[[EmailMessage], bool], what: str, timeout: float = WAIT) -> EmailMessage:
        end = time.monotonic() + timeout
        while True:
            match = next((m for m in self.mails if found(m)), None)
            if match is not None:
                return match
            left = end - time.monotonic()
            if left <= 0:
                raise Failed(f"{self.power} ({self.address}) got no {what} within {timeout:.0f} s; "
                             f"its mailbox has: {self.subjects() or 'nothing'}")
            self.arrived.clear()
            try:
                await asyncio.wait_for(self.arrived.wait(), left)
            except TimeoutError:
                pass

    def subjects(self) -> str:
        return "; ".join(str(m.get("Subject", "")) for m in self.mails)


def subject(msg: EmailMessage) -> str:
    return str(msg.get("Subject", ""))


def results_of(phase: str) -> Callable[[EmailMessage], bool]:
    """A results mail whose first phase is `phase` ('[compose] Fall 1901 results (and ...)')."""
    return lambda m: subject(m).startswith(f"[{GAME}] {phase} results")


def reply_to(message_id: str) -> Callable[[EmailMessage], bool]:
    return lambda m: str(m.get("In-Reply-To", "")).strip() == message_id


def png_maps(msg: EmailMessage) -> list[bytes]:
    """The pictures of a mail (inline or attached); every one must be a PNG."""
    pictures = []
    for part in msg.walk():
        if part.get_content_maintype() == "image":
            data = part.get_payload(decode=True) or b""
            if part.get_content_type() != "image/png" or not data.startswith(b"\x89PNG\r\n\x1a\n"):
                raise Failed(f"{subject(msg)!r}: a picture that is no PNG ({part.get_content_type()}, {len(data)} bytes)")
            pictures.append(data)
    return pictures


def dkim_problem(raw: bytes, domain: str, selector: str, record: str) -> str | None:
    """None if `raw` has a DKIM-Signature by d=`domain`, s=`selector` that verifies with `record`
    published at <selector>._domainkey.<domain>; else what is wrong."""
    headers, _ = dkim.rfc822_parse(raw)
    signatures = [value for name, value in headers if name.lower() == b"dkim-signature"]
    if not signatures:
        return "no DKIM-Signature"
    where = f"{selector}._domainkey.{domain}"

    def lookup(name: bytes, timeout: float = 5) -> bytes | None:  # the DNS, as published
        return record.encode() if name.decode().rstrip(".").lower() == where else None

    seen = []
    for index, value in enumerate(signatures):
        try:
            tags = dkim.util.parse_tag_value(value)
        except dkim.util.InvalidTagValueList as e:
            return f"a DKIM-Signature that cannot be read: {e}"
        d, s = tags.get(b"d", b"").decode().lower(), tags.get(b"s", b"").decode().lower()
        seen.append(f"d={d} s={s}")
        if (d, s) == (domain, selector):
            try:
                if dkim.DKIM(raw).verify(idx=index, dnsfunc=lookup):
                    return None
                why = "a bad signature"
            except dkim.DKIMException as e:
                why = str(e)
            return f"a DKIM-Signature by d={d}, s={s} that does not verify against {where}'s record: {why}"
    return f"no DKIM-Signature by d={domain}, s={selector}, only {', '.join(seen)}"


class Game:
    def __init__(self, smtp_port: int, imap_port: int, compose: list[str], t0: float, selector: str) -> None:
        self.smtp_port, self.imap_port, self.compose, self.t0 = smtp_port, imap_port, compose, t0
        self.selector, self.domain = selector, GM.rpartition("@")[2]
        variant = load_variant(VARIANT)
        self.units = {power: [str(u) for u in variant.initial_state().units_of(power)] for power in variant.great_powers}
        self.players = [Player(power, KeptMailbox(imap_port, player_address(power), f"mailbox-{power.lower()}"))
                        for power in variant.great_powers]

    def say(self, text: str) -> None:
        print(f"[{time.time() - self.t0:5.0f} s] {text}", flush=True)

    async def run_command(self, *args: str) -> str:
        """A command of the stack (`docker compose ...`), its output; Failed if it fails."""
        proc = await asyncio.to_thread(subprocess.run, [*args], capture_output=True, text=True)
        if proc.returncode != 0:
            shown = args[len(self.compose):] if list(args[:len(self.compose)]) == self.compose else args
            last = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
            raise Failed(f"`{' '.join(shown)}` failed with status {proc.returncode}: {last[0]}")
        return proc.stdout

    async def send(self, player: Player, subject_line: str, body: str) -> str:
        """Mail the GM from `player`, as another mail server hands it to the GM's MX; the Message-ID."""
        msg = EmailMessage()
        msg["From"] = player.address
        msg["To"] = GM
        msg["Subject"] = subject_line
        msg["Date"] = email.utils.format_datetime(email.utils.localtime())
        msg["Message-ID"] = message_id = email.utils.make_msgid(domain=player.address.partition("@")[2])
        msg.set_content(body)
        await aiosmtplib.send(msg, hostname="127.0.0.1", port=self.smtp_port, start_tls=False, timeout=30)
        return message_id

    # --- the game ----------------------------------------------------------------------------------

    async def run(self) -> None:
        started = time.monotonic()
        await asyncio.gather(
            self.run_command(*self.compose, "exec", "-T", "judge", "gm", "game", "new", GAME, "--variant", VARIANT,
                             "--movement", f"{DEADLINE}s", "--retreat", "10s", "--adjustment", "10s",
                             "--remind-before", "0", "--late-limit", "0"),
            *(self.run_command(*self.compose, "exec", "-T", "mail", "setup", "email", "add", p.address,
                               p.mailbox.password) for p in self.players))
        await asyncio.gather(*(p.mailbox.open() for p in self.players))
        self.say(f"the GM made the game with gm game new {GAME} (standard, movement {DEADLINE} s), and the mail server "
                 f"{len(self.players)} players' mailboxes, in {time.monotonic() - started:.1f} s")
        collectors = [asyncio.create_task(p.collect(), name=p.power) for p in self.players]
        try:
            await self.play()
        finally:
            for task in collectors:
                task.cancel()
            await asyncio.gather(*collectors, return_exceptions=True)
            await asyncio.gather(*(p.mailbox.close() for p in self.players))

    async def play(self) -> None:
        started = time.monotonic()
        await asyncio.gather(*(self.join(p) for p in self.players))
        self.say(f"{len(self.players)} players joined by mail, confirmed their codes and got the start mail "
                 f"in {time.monotonic() - started:.1f} s")
        # The judges answer mail, so the first to start has made the key (before it served); read
        # while both run, alongside the first phase.
        shown = asyncio.create_task(
            self.run_command(*self.compose, "exec", "-T", "judge", "gm", "mail", "dkim-key", "--show"))
        try:
            await self.phase(PHASES[0])
        finally:
            await asyncio.wait([shown])
        record = self.published(shown.result())
        await self.stop_holder()
        await self.phase(PHASES[1])
        await self.nothing_lost_or_doubled()
        self.signed(record)

    async def join(self, player: Player) -> None:
        await self.send(player, f"join {GAME}", f"JOIN {GAME} {player.power} {player.password}")
        code_mail = await player.wait_for(lambda m: code_in_subject(subject(m)) is not None, "confirmation code")
        await self.send(player, f"Re: {subject(code_mail)}", f"CONFIRM {code_in_subject(subject(code_mail))}")
        await player.wait_for(lambda m: subject(m).startswith(f"[{GAME}] The game starts"), "start mail")

    async def phase(self, phase: str) -> None:
        """Every player orders its units to hold, and WAIT: one acknowledgement each, then at the
        deadline the results with two PNG maps each."""
        sent = time.monotonic()

        async def one(player: Player) -> float:
            lines = [f"SIGNON {player.power} {GAME} {player.password}", *(f"{u} H" for u in self.units[player.power]),
                     "WAIT"]
            message_id = await self.send(player, f"{GAME}: {phase} orders", "\n".join(lines))
            player.orders[message_id] = phase
            ack = await player.wait_for(reply_to(message_id), f"acknowledgement of its {phase} orders")
            took = time.monotonic() - sent
            if "REJECTED" in plain_text(ack):
                raise Failed(f"{player.power}: {phase} orders rejected: {plain_text(ack)[:400]!r}")
            results = await player.wait_for(results_of(phase), f"{phase} results", timeout=DEADLINE + WAIT)
            maps = png_maps(results)
            if len(maps) != 2:
                raise Failed(f"{player.power}: {subject(results)!r} has {len(maps)} maps, not 2 (the phase's and the position now)")
            return took

        acks = await asyncio.gather(*(one(p) for p in self.players))
        self.say(f"{phase}: {len(acks)} order mails acknowledged (the slowest in {max(acks):.1f} s); "
                 f"results with 2 PNG maps in every mailbox {time.monotonic() - sent:.1f} s after the orders "
                 f"(deadline {DEADLINE} s)")

    async def holder(self) -> str:
        """The hostname of the judge holding the mailbox ('' if none does)."""
        out = await self.run_command(*self.compose, "exec", "-T", "db", "psql", "-U", "gm", "-d", "gm", "-Atc", HOLDER)
        for line in out.splitlines():
            if line.startswith("gm-mailbox ") and " host=" in line:
                return line.rpartition(" host=")[2].strip()
        return ""

    async def stop_holder(self) -> None:
        host = await self.holder()
        if not host:
            raise Failed("no judge holds the mailbox (no advisory lock in pg_stat_activity)")
        ids = (await self.run_command(*self.compose, "ps", "-q", "judge")).split()
        container = next((c for c in ids if c.startswith(host)), None)
        if container is None:
            raise Failed(f"the mailbox is held from host {host}, which is none of the judges' containers")
        name = (await self.run_command("docker", "inspect", "-f", "{{.Name}}", container)).strip().lstrip("/")
        started = time.monotonic()
        await self.run_command("docker", "stop", container)
        stopped = time.monotonic()
        self.say(f"stopped {name}, which held the mailbox, in {stopped - started:.1f} s")
        while (now := await self.holder()) in ("", host):
            if time.monotonic() - stopped > 30:
                raise Failed(f"no other judge took over the mailbox within 30 s of stopping {name}")
            await asyncio.sleep(0.5)
        self.say(f"the judge on host {now} took over the mailbox {time.monotonic() - stopped:.1f} s after the stop")

    def published(self, shown: str) -> str:
        """The TXT record in what `gm mail dkim-key --show` printed, for <selector>._domainkey.<domain>."""
        last = (shown.strip().splitlines() or [""])[-1]
        found = re.fullmatch(r'(\S+)\. IN TXT "(v=DKIM1; [^"]+)"', last)
        if found is None or found.group(1) != f"{self.selector}._domainkey.{self.domain}":
            raise Failed(f"gm mail dkim-key --show printed no record for {self.selector}._domainkey.{self.domain}: "
                         f"{last!r}")
        return found.group(2)

    def signed(self, record: str) -> None:
        """Every mail the players got verifies as its bytes came; says from how many judges (the
        address in the first hop's Received), since each signs with the key it loaded at start."""
        mails, senders = 0, set[bytes]()
        for player in self.players:
            if len(player.mailbox.raw) != len(player.mails):
                raise Failed(f"{player.power}: the bytes of {len(player.mailbox.raw)} mails kept, "
                             f"for {len(player.mails)} mails")
            for raw in player.mailbox.raw:
                problem = dkim_problem(raw, self.domain, self.selector, record)
                if problem is not None:
                    headers = raw.split(b"\r\n\r\n", 1)[0].decode(errors="replace")
                    said = re.search(r"^Subject: (.*)$", headers, re.MULTILINE | re.IGNORECASE)
                    raise Failed(f"{player.power}: the mail {said.group(1) if said else ''!r}: {problem}")
                mails += 1
                received = [value for name, value in dkim.rfc822_parse(raw)[0] if name.lower() == b"received"]
                first_hop = re.search(rb"\[([0-9A-Fa-f.:]+)\]", received[-1]) if received else None
                senders.add(first_hop.group(1) if first_hop else b"?")
        self.say(f"all {mails} mails, sent by {len(senders)} judges, carry a DKIM-Signature by d={self.domain}, "
                 f"s={self.selector} that verifies against the record of gm mail dkim-key --show")

    async def nothing_lost_or_doubled(self) -> None:
        await asyncio.sleep(QUIET)
        for player in self.players:
            for message_id, phase in player.orders.items():
                acks = [m for m in player.mails if reply_to(message_id)(m)]
                if len(acks) != 1:
                    raise Failed(f"{player.power}: {len(acks)} acknowledgements of its {phase} orders, not 1")
            for phase in PHASES:
                results = [m for m in player.mails if results_of(phase)(m)]
                if len(results) != 1:
                    raise Failed(f"{player.power}: {len(results)} {phase} results mails, not 1: {player.subjects()}")
            starts = [m for m in player.mails if subject(m).startswith(f"[{GAME}] The game starts")]
            if len(starts) != 1:
                raise Failed(f"{player.power}: {len(starts)} start mails, not 1")
        mails = sum(len(p.mails) for p in self.players)
        self.say(f"after {QUIET:.0f} s more: every player has exactly one acknowledgement per order mail and one "
                 f"results mail per phase ({mails} mails in the players' mailboxes, none doubled)")


async def within_limit(game: Coroutine[Any, Any, None]) -> None:
    """The game, or after LIMIT seconds the stack of every task still waiting and exit status 1
    at once: a test that hangs must say where, and not hold the run."""
    task = asyncio.ensure_future(game)
    await asyncio.wait([task], timeout=LIMIT)
    if task.done():
        return task.result()
    print(f"compose test: the game by mail did not end within {LIMIT:.0f} s; the tasks still waiting:", file=sys.stderr)
    for waiting in asyncio.all_tasks():
        if waiting is not asyncio.current_task():
            waiting.print_stack(file=sys.stderr)
    sys.stderr.flush()
    os._exit(1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--smtp", type=int, required=True, help="the mail server's port 25, on 127.0.0.1")
    parser.add_argument("--imap", type=int, required=True, help="the mail server's plain IMAP port, on 127.0.0.1")
    parser.add_argument("--t0", type=float, default=time.time(), help="when the whole test started (epoch seconds)")
    parser.add_argument("--dkim-selector", default="gm1", help="the judges' GM_DKIM_SELECTOR (default gm1)")
    parser.add_argument("compose", nargs=argparse.REMAINDER, help="-- then the stack's `docker compose ...` command")
    args = parser.parse_args(argv)
    compose = args.compose[1:] if args.compose[:1] == ["--"] else args.compose
    if not compose:
        parser.error("give the stack's docker compose command after --")
    try:
        asyncio.run(within_limit(Game(args.smtp, args.imap, compose, args.t0, args.dkim_selector.lower()).run()))
    except Failed as e:
        print(f"compose test: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
