"""Benchmark: a thousand deadlines at once, from the deadline to the last results mail delivered.

N Ambition & Empire games (bench/deadlines.py's: ten players each, a full set of Spring 1901 orders
on file) wait in the database of one or two real `gm serve` processes. At one moment every
deadline passes. Timed: from that moment until the last results mail (text, HTML and two maps:
the phase's orders and results, the position now) has been accepted by a real Postfix and stored
by it, over LMTP, in the players' Dovecot mailboxes (counted there, one file a mail). Each run also
records the last acceptance as the judge marked it (`outbox.sent_at`).

Peers, in the same run and against the same servers: a plain SMTP client (aiosmtplib over as many
connections as the judge's outbox uses) sending as many copies of one of the judge's own results
mails, and Postfix's `smtp-source` sending as many mails of the same size (the floor for delivery);
and gm.maps.render drawing a sample of the same maps alone, in this process (the floor for drawing).

Where the time goes: `--profile` samples every gm serve process (its outbox child too) with
py-spy during the run, and sorts the CPU seconds into adjudication, drawing, MIME, SMTP, the
database, and so on.

With `--pages` each gm serve also writes the games' web pages (GM_PAGES_DIR), whose maps (a
phase's orders and the position after it, in both palettes) the results mail shares through the
database (gm.maps.store): the run waits for every game's pages too, and counts the maps drawn
(the store's rows: each picture is drawn once) against the pictures the two channels show.

Targets: 1,000 games under 60 s on SQLite with one gm serve; on PostgreSQL, two gm serve sharing
the work finish faster than one.

Needs the test extra and Postfix (`scripts/setup test`; `apt-get install postfix`; py-spy for
--profile). `.venv/bin/python bench/delivery.py [--games N] [--runs sqlite:1,postgresql:1,postgresql:2]
[--profile] [--no-peers] [--pages] [--keep]`. See bench/README.md.
"""
from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aiosmtplib
from sqlalchemy import case, func, select, update
from sqlalchemy.orm import Session

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from deadlines import random_orders, seed  # noqa: E402
from gm.mail.outgoing import game_mail  # noqa: E402
from gm.mail.outgoing.outbox import Outgoing, build_message  # noqa: E402
from gm.maps.render import render as draw_scene  # noqa: E402
from gm.store.db import make_engine  # noqa: E402
from gm.store.models import DrawnMap, Game, GamePhase, OutboundMail, Player  # noqa: E402
from gm.variants import load_variant  # noqa: E402
from loopback import free_port, listening, stop  # noqa: E402
from suite import load  # noqa: E402

dbtests = load("gm_test_databases", "tests/conftest.py")
mailtests = load("gm_test_mail", "tests/mail/conftest.py")
from mail import oauth2_servers  # noqa: E402 - loaded by the conftest above
GM, DOMAIN = mailtests.GM, mailtests.DOMAIN
VARIANT = "ambition"
TARGET_GAMES, TARGET_SECONDS = 1000, 60.0
CONNECTIONS = 4  # the outbox's SMTP connections (OutboxSender's default): the peer client uses as many
STALL_S = 120  # nothing more stored for this long: the run is stuck, and stops
PROGRESS_S = 30  # a line of progress this often during a run
FLOOR_GAMES = 50  # games whose two maps the drawing floor draws (the per-map figure is what counts)
POSTFIX = "/usr/lib/postfix/sbin/master"

# --- Postfix, a private instance on loopback, delivering into the Dovecot mailboxes by LMTP -------

MASTER_CF = oauth2_servers.MASTER_CF  # the tests' private Postfix's services (tests/mail/oauth2_servers.py)
# Postfix's defaults but for where it lives and where mail for the players' domain goes.
MAIN_CF = """\
compatibility_level = 3.6
queue_directory = {base}/queue
data_directory = {base}/data
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
myhostname = mx.{domain}
mydestination =
mynetworks = 127.0.0.0/8
relay_domains = {domain}
relay_transport = lmtp:inet:127.0.0.1:{lmtp_port}
smtpd_recipient_restrictions = permit_mynetworks, reject
message_size_limit = 0
"""
QUEUES = ("incoming", "active", "deferred", "maildrop", "hold", "corrupt", "bounce", "defer", "trace", "flush",
          "saved", "private", "public")


@contextmanager
def postfix(lmtp_port: int) -> Iterator[int]:
    """A Postfix of its own (its master in the foreground, `master -d`, so that no init system or
    syslog is needed), taking mail for DOMAIN on a free loopback port and passing it to Dovecot's
    LMTP; yields the port."""
    if not os.path.exists(POSTFIX) or os.geteuid() != 0:
        raise SystemExit("needs Postfix and root: apt-get install postfix (the installer may be told "
                         "'No configuration'), then run as root")
    base = Path(tempfile.mkdtemp(prefix="gmpfx", dir="/tmp"))
    base.chmod(0o755)  # Postfix's daemons run as the postfix user
    port = free_port()
    (base / "conf").mkdir()
    (base / "conf" / "master.cf").write_text(MASTER_CF.format(port=port))
    (base / "conf" / "main.cf").write_text(MAIN_CF.format(base=base, domain=DOMAIN, lmtp_port=lmtp_port))
    for name in (*QUEUES, "pid"):
        (base / "queue" / name).mkdir(parents=True)
    (base / "data").mkdir()
    for path in [base / "queue", base / "data", *(base / "queue").iterdir()]:
        shutil.chown(path, "postfix", "postfix")
    shutil.chown(base / "queue" / "pid", "root", "root")
    for name, mode, group in (("private", 0o700, "postfix"), ("public", 0o710, "postdrop"),
                              ("maildrop", 0o730, "postdrop")):
        shutil.chown(base / "queue" / name, "postfix", group)
        (base / "queue" / name).chmod(mode)
    master = subprocess.Popen([POSTFIX, "-c", str(base / "conf"), "-d"], start_new_session=True)
    try:
        deadline = time.monotonic() + 20
        while not listening(port):
            if master.poll() is not None or time.monotonic() > deadline:
                raise SystemExit("Postfix did not start")
            time.sleep(0.1)
        yield port
    finally:
        try:
            os.killpg(master.pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
        master.wait(20)
        shutil.rmtree(base, ignore_errors=True)


# --- the players' mailboxes ---------------------------------------------------------------------


def _mail_dirs(dovecot: object) -> list[Path]:
    return [dovecot.base / "mail" / user / "sdbox" / "mailboxes" / "INBOX" / "dbox-Mails"  # type: ignore[attr-defined]
            for user in mailtests.GAME_PLAYERS]


def stored_count(dovecot: object) -> int:
    """Mails Dovecot has stored in the players' mailboxes (sdbox: one file 'u.<uid>' a mail)."""
    return sum(1 for folder in _mail_dirs(dovecot) for e in os.scandir(folder) if e.name.startswith("u."))


def stored_files(dovecot: object) -> list[os.stat_result]:
    return [e.stat() for folder in _mail_dirs(dovecot) for e in os.scandir(folder) if e.name.startswith("u.")]


def wait_stored(dovecot: object, expected: int, alive: list[subprocess.Popen[bytes]] | None = None,
                t0: float | None = None) -> int:
    """Wait until Dovecot holds `expected` mails (or nothing more arrives for STALL_S s, or a
    gm serve has died); how many it holds. With `t0`, a line of progress every PROGRESS_S s."""
    last, since, said = -1, time.monotonic(), time.monotonic()
    while True:
        count = stored_count(dovecot)
        if t0 is not None and time.monotonic() - said >= PROGRESS_S:
            print(f"    {time.time() - t0:6.0f} s: {count} of {expected} stored (load {os.getloadavg()[0]:.1f})", flush=True)
            said = time.monotonic()
        if count >= expected or any(p.poll() is not None for p in alive or []):
            return count
        if count != last:
            last, since = count, time.monotonic()
        elif time.monotonic() - since > STALL_S:
            return count
        time.sleep(0.2)


# --- the judge's side ---------------------------------------------------------------------------


def prepare(url: str) -> None:
    """The seeded games' players at the Dovecot mailboxes p1..p10 (one for each great power), and
    every game waiting: not due until release()."""
    engine = make_engine(url)
    powers = load_variant(VARIANT).great_powers
    with Session(engine) as s, s.begin():
        s.execute(update(Player).values(email=case(
            {p: f"{user}@{DOMAIN}" for p, user in zip(powers, mailtests.GAME_PLAYERS)}, value=Player.power)))
        s.execute(update(Game).values(next_check_at=datetime.now(UTC) + timedelta(days=30), orders_changed=False))
    engine.dispose()


def release(url: str) -> float:
    """Every deadline passes now, in one transaction; the moment (time.time()) it commits."""
    engine = make_engine(url)
    with Session(engine) as s, s.begin():
        s.execute(update(Game).values(next_check_at=datetime.now(UTC), orders_changed=True))
    engine.dispose()
    return time.time()


def _serving(log: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while "gm serving" not in (log.read_text(errors="replace") if log.exists() else ""):
        if time.monotonic() > deadline:
            raise SystemExit(f"gm serve did not start: see {log}")
        time.sleep(0.2)


def _judge_figures(url: str) -> dict[str, float]:
    """From the database: results mails sent, the last one's acceptance and the last results
    row queued (time.time()), and mails sent more than once."""
    engine = make_engine(url)
    with Session(engine) as s:
        sent, last_sent, twice = s.execute(
            select(func.count(OutboundMail.sent_at), func.max(OutboundMail.sent_at),
                   func.count().filter(OutboundMail.attempts > 1))
            .where(OutboundMail.kind == "results")).one()
        adjudicated = s.scalar(select(func.count()).select_from(GamePhase).where(GamePhase.adjudicated_at.is_not(None)))
    engine.dispose()
    if last_sent is not None and last_sent.tzinfo is None:
        last_sent = last_sent.replace(tzinfo=UTC)
    return {"sent": sent or 0, "last_sent": last_sent.timestamp() if last_sent else float("nan"),
            "twice": twice or 0, "adjudicated": adjudicated or 0}


# --- where the time goes: py-spy on the gm serve processes --------------------------------------

# A sample's stack, read from the innermost frame out: the first frame that matches says where.
WHERE = (
    ("database", ("sqlalchemy/", "psycopg", "sqlite3")),
    ("drawing maps", ("PIL/", "gm/maps/")),
    ("SMTP (aiosmtplib)", ("aiosmtplib/",)),
    ("results text (jinja2)", ("jinja2/", "markupsafe/", "gm/mail/outgoing/reply.py")),
    ("MIME (email, build_message)", ("/email/", "build_message", "_attachment_part", "_text_part", "_html_part")),
    ("adjudication (gm.engine)", ("gm/engine/",)),
    ("phases, reports (gm.lifecycle)", ("gm/lifecycle/",)),
    ("queueing mail, maps planned (game_mail)", ("gm/mail/outgoing/game_mail.py", "gm/scheduler.py")),
    ("reading mail (inbox)", ("gm/mail/inbox.py", "aioimaplib/", "gm/mail/ingest.py")),
)
SPY_RATE = 100  # samples a second


def _where(stack: str) -> str:
    frames = stack.split(";")
    for frame in reversed(frames):
        for label, marks in WHERE:
            if any(mark in frame for mark in marks):
                return label
    return "the rest (event loop, threads, start-up)"


@contextmanager
def spied(pids: list[int], out: Path) -> Iterator[dict[str, Counter[str]]]:
    """py-spy sampling each process in `pids` and its children while the block runs; then, per
    process (the server, its outbox child), the CPU seconds by WHERE."""
    spy = shutil.which("py-spy", path=str(ROOT / ".venv" / "bin")) or shutil.which("py-spy")
    if spy is None:
        raise SystemExit("--profile needs py-spy: .venv/bin/pip install py-spy")
    spies = [subprocess.Popen([spy, "record", "--pid", str(pid), "--subprocesses", "--rate", str(SPY_RATE),
                               "--format", "raw", "--nonblocking", "-o", str(out / f"spy-{pid}.txt")],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for pid in pids]
    split: dict[str, Counter[str]] = {}
    time.sleep(1)  # py-spy attaches
    try:
        yield split
    finally:
        for p in spies:
            p.send_signal(signal.SIGINT)
        for p in spies:
            p.wait(60)
        for pid in pids:
            path = out / f"spy-{pid}.txt"
            for line in path.read_text(errors="replace").splitlines() if path.exists() else []:
                stack, _, count = line.rpartition(" ")
                # Each stack starts with its process, and a child's with its parent's too.
                processes = [f for f in stack.split(";") if f.startswith("process ")]
                role = "gm serve" if len(processes) == 1 else "its outbox sender " + processes[-1].split(":")[0][8:]
                split.setdefault(f"{pid} {role}", Counter())[_where(stack)] += int(count) / SPY_RATE


# --- the peers ----------------------------------------------------------------------------------


def a_results_mail(url: str) -> bytes:
    """One of the judge's own results mails as it sends it (its maps drawn)."""
    engine = make_engine(url)
    with Session(engine) as s:
        row = s.scalars(select(OutboundMail).where(OutboundMail.kind == "results").limit(1)).one()
        mail = Outgoing.of(row, s)
    engine.dispose()
    return build_message(mail, GM)


async def _send_copies(port: int, message: bytes, n: int, connections: int) -> None:
    async def one(share: int) -> None:
        client = aiosmtplib.SMTP(hostname="127.0.0.1", port=port, timeout=120)
        await client.connect()
        for i in range(share):
            await client.sendmail(GM, [f"{mailtests.GAME_PLAYERS[i % 10]}@{DOMAIN}"], message)
        await client.quit()

    await asyncio.gather(*[one(n // connections + (k < n % connections)) for k in range(connections)])


def peer_client(dovecot: object, port: int, message: bytes, n: int, connections: int) -> float:
    """Seconds for aiosmtplib to send `n` copies of `message` over `connections` connections until
    Dovecot has stored them all."""
    before = stored_count(dovecot)
    t0 = time.time()
    asyncio.run(_send_copies(port, message, n, connections))
    wait_stored(dovecot, before + n)
    return max(s.st_mtime for s in stored_files(dovecot)) - t0


def peer_smtp_source(dovecot: object, port: int, size: int, n: int, connections: int) -> float:
    """Seconds for Postfix's smtp-source to send `n` mails of `size` bytes until all are stored."""
    tool = shutil.which("smtp-source") or "/usr/sbin/smtp-source"
    before = stored_count(dovecot)
    t0 = time.time()
    subprocess.run([tool, "-s", str(connections), "-m", str(n), "-l", str(size), "-f", GM,
                    "-t", f"{mailtests.GAME_PLAYERS[0]}@{DOMAIN}", f"127.0.0.1:{port}"], check=True)
    wait_stored(dovecot, before + n)
    return max(s.st_mtime for s in stored_files(dovecot)) - t0


def drawing_floor(url: str, games: int) -> tuple[int, float]:
    """The two maps of each of the first `games` games (the phase's results, the position now),
    drawn alone with gm.maps.render as the sender draws them: maps drawn, seconds."""
    engine = make_engine(url)
    variant = load_variant(VARIANT)
    scenes = []
    with Session(engine) as s:
        for game in s.scalars(select(Game).order_by(Game.id).limit(games)):
            rows = {r.seq: r for r in s.scalars(select(GamePhase).where(GamePhase.game_id == game.id))}
            scenes.append(game_mail._stored_scene(game, variant, rows[1], results=True))
            scenes.append(game_mail._stored_scene(game, variant, rows[2], results=False))
    engine.dispose()
    t0 = time.perf_counter()
    for scene in scenes:
        draw_scene(variant, scene)
    return len(scenes), time.perf_counter() - t0


# --- one run ------------------------------------------------------------------------------------


@dataclass
class Run:
    db: str
    servers: int
    games: int
    figures: dict[str, float] = field(default_factory=dict)
    split: dict[str, Counter[str]] = field(default_factory=dict)
    peers: dict[str, float] = field(default_factory=dict)
    load: tuple[float, float] = (0.0, 0.0)  # 1-minute load average before and after
    log: str = ""
    pages: bool = False  # gm serve writes the games' web pages too


PAGE_MAPS = 4  # a game's pages after its first phase: the orders and the position after, both palettes
MAIL_MAPS = 2  # a results mail's: the orders and the position now, in the game's palette


def wait_pages(work: Path, expected: int, stall: float = 60) -> tuple[int, float]:
    """The PNGs in the servers' page folders once there are `expected` (or nothing new came for
    `stall` seconds), and when the last was written (time.time())."""
    last_count, last_change = -1, time.monotonic()
    while True:
        files = [f.stat().st_mtime for f in work.glob("serve*/pages/games/*/maps/*.png")]
        if len(files) >= expected or time.monotonic() - last_change > stall:
            return len(files), max(files, default=float("nan"))
        if len(files) != last_count:
            last_count, last_change = len(files), time.monotonic()
        time.sleep(0.5)


def maps_drawn(url: str, since: float) -> int:
    """The pictures the channels drew after `since` (time.time()), each once: the map store's rows
    (kept for hours). Not the pages' maps of the games before their first phase, drawn at start."""
    engine = make_engine(url)
    with Session(engine) as s:
        times = s.scalars(select(DrawnMap.drawn_at)).all()
    engine.dispose()
    return sum((at if at.tzinfo else at.replace(tzinfo=UTC)).timestamp() >= since for at in times)


def run_one(run: Run, every: list, dovecot_binary: str, *, profile: bool, peers: bool, keep: bool = False) -> Run:
    expected = run.games * 10
    with ExitStack() as stack:
        work = Path(tempfile.mkdtemp(prefix="gmdeliver", dir="/tmp"))
        url = (f"sqlite:///{work}/gm.sqlite3" if run.db == "sqlite"
               else stack.enter_context(dbtests.postgres_server(dbtests._pg_bin())))
        dovecot = stack.enter_context(contextmanager(mailtests._dovecot)(dovecot_binary, None))
        port = stack.enter_context(postfix(dovecot.lmtp_port))
        print(f"  {run.db}, {run.servers} gm serve: seeding {run.games} games ...", flush=True)
        seed(url, every, datetime.now(UTC).replace(microsecond=0) - timedelta(days=3))
        prepare(url)
        servers = []
        for k in range(run.servers):
            data = work / f"serve{k}"
            data.mkdir()
            pages = {"GM_PAGES_DIR": str(data / "pages")} if run.pages else {}
            server = mailtests.start_gm_serve(url, dovecot, port, data, **pages)
            stack.callback(stop, server)
            servers.append(server)
            _serving(data / "serve.log")
        time.sleep(2)  # the outbox processes start
        run.log = str(work)
        split_stack = ExitStack()
        if profile:
            run.split = split_stack.enter_context(spied([s.pid for s in servers], work))
        if run.pages:  # the games' pages before their first phase (a position map, both palettes), untimed
            wait_pages(work, run.games * 2)
        run.load = (os.getloadavg()[0], 0.0)
        t0 = release(url)
        count = wait_stored(dovecot, expected, servers, t0)
        files = stored_files(dovecot)
        last_stored = max(s.st_mtime for s in files) if files else float("nan")
        split_stack.close()
        run.load = (run.load[0], os.getloadavg()[0])
        time.sleep(1)  # the last marks of sent rows are written just after the server accepted them
        if run.pages:
            run.figures["page_maps"], last_page = wait_pages(work, run.games * PAGE_MAPS)
            run.figures["pages_s"] = last_page - t0
        run.figures["maps_drawn"] = maps_drawn(url, t0)
        judge = _judge_figures(url)
        run.figures |= {"stored": count, "seconds": last_stored - t0, "accepted_s": judge["last_sent"] - t0,
                       "sent": judge["sent"], "twice": judge["twice"], "adjudicated": judge["adjudicated"],
                       "bytes": sum(s.st_size for s in files) / max(len(files), 1)}
        for server in servers:
            stop(server)
        if peers:
            message = a_results_mail(url)
            n = expected
            connections = CONNECTIONS * run.servers
            print(f"  peers: {n} copies of a {len(message)}-byte results mail ...", flush=True)
            run.peers["client"] = peer_client(dovecot, port, message, n, connections)
            run.peers["smtp-source"] = peer_smtp_source(dovecot, port, len(message), n, connections)
            run.peers["size"] = len(message)
            maps, seconds = drawing_floor(url, min(FLOOR_GAMES, run.games))
            run.peers["map_ms"] = seconds / maps * 1000
        if count == expected and not profile and not keep:
            shutil.rmtree(work, ignore_errors=True)  # else kept: the servers' logs and py-spy's stacks
        return run


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=TARGET_GAMES)
    ap.add_argument("--runs", default="sqlite:1,postgresql:1,postgresql:2",
                    help="database:gm serve processes, comma-separated (default: %(default)s)")
    ap.add_argument("--profile", action="store_true", help="sample the gm serve processes with py-spy: where the time goes")
    ap.add_argument("--no-peers", action="store_true", help="skip the peers (the plain client, smtp-source, drawing alone)")
    ap.add_argument("--pages", action="store_true", help="gm serve writes the games' web pages too (GM_PAGES_DIR)")
    ap.add_argument("--keep", action="store_true", help="leave each run's folder (database, logs, pages) in /tmp")
    args = ap.parse_args(argv)
    binary = mailtests._find_dovecot()
    if binary is None:
        raise SystemExit("Dovecot is not installed: run scripts/setup test")
    plan = [(db, int(n)) for db, _, n in (r.partition(":") for r in args.runs.split(","))]
    print(f"gm delivery benchmark: {args.games} Ambition & Empire games, 10 players each, all due at once; "
          "from the deadline to the last results mail (two maps each) stored by Postfix -> LMTP -> Dovecot")
    state = load_variant(VARIANT).initial_state()
    every = [random_orders(k, state) for k in range(args.games)]
    runs = [run_one(Run(db, n, args.games, pages=args.pages), every, binary, profile=args.profile,
                    peers=not args.no_peers, keep=args.keep)
            for db, n in plan]
    print(f"{'run':<22}{'games':>7}{'mails':>7}{'stored s':>10}{'accepted s':>12}{'mails/s':>9}{'KB a mail':>11}"
          f"{'sent twice':>12}{'load':>12}")
    failed = False
    for r in runs:
        f = r.figures
        # More stored than sent can only come from between Postfix and Dovecot (a redelivery): the
        # judge's own count is `sent`, each row once ('sent twice' counts rows attempted again).
        ok = f["stored"] >= r.games * 10 and f["sent"] == r.games * 10 and f["adjudicated"] == r.games
        failed |= not ok
        print(f"{r.db + ', ' + str(r.servers) + ' gm serve':<22}{r.games:>7}{f['stored']:>7.0f}{f['seconds']:>10.1f}"
              f"{f['accepted_s']:>12.1f}{f['stored'] / f['seconds']:>9.1f}{f['bytes'] / 1000:>11.0f}"
              f"{f['twice']:>12.0f}{r.load[0]:>6.1f}/{r.load[1]:<5.1f}" + ("" if ok else f"  INCOMPLETE {f} {r.log}"))
    for r in runs:
        f = r.figures
        shown = r.games * (MAIL_MAPS + (PAGE_MAPS if r.pages else 0))
        pages = (f", pages: {f['page_maps']:.0f} maps written, the last {f['pages_s']:.1f} s after the deadline"
                 if r.pages else ", no pages")
        print(f"maps ({r.db}, {r.servers} gm serve{pages}): {f['maps_drawn']:.0f} drawn, "
              f"{f['maps_drawn'] / r.games:.1f} a game, for {shown / r.games:.0f} a game shown by the channels")
    for r in runs:
        if r.peers:
            n = r.games * 10
            print(f"peers ({r.db}, {CONNECTIONS * r.servers} connections, {n} mails of {r.peers['size'] / 1000:.0f} KB): "
                  f"aiosmtplib {r.peers['client']:.1f} s ({n / r.peers['client']:.0f} mails/s), "
                  f"smtp-source {r.peers['smtp-source']:.1f} s ({n / r.peers['smtp-source']:.0f} mails/s); "
                  f"a map drawn alone {r.peers['map_ms']:.1f} ms: {2 * r.games} maps "
                  f"{2 * r.games * r.peers['map_ms'] / 1000:.1f} s on one core")
    for r in runs:
        for process, where in sorted(r.split.items()):
            total = sum(where.values())
            print(f"where the time goes, {r.db}, {r.servers} gm serve, process {process}: {total:.1f} CPU s")
            for label, seconds in where.most_common():
                print(f"  {label:<44}{seconds:>8.1f} s{seconds / total:>6.0%}")
    one_sqlite = [r for r in runs if r.db == "sqlite" and r.servers == 1]
    if one_sqlite and args.games >= TARGET_GAMES:
        s = one_sqlite[0].figures["seconds"] * TARGET_GAMES / args.games
        print(f"target: {TARGET_GAMES} games delivered in < {TARGET_SECONDS:.0f} s on SQLite, one gm serve: "
              f"{'PASS' if s < TARGET_SECONDS and not failed else 'FAIL'} ({s:.1f} s)")
    pg = {r.servers: r.figures["seconds"] for r in runs if r.db == "postgresql"}
    if 1 in pg and 2 in pg:
        print(f"target: on PostgreSQL two gm serve faster than one: {'PASS' if pg[2] < pg[1] else 'FAIL'} "
              f"({pg[2]:.1f} s against {pg[1]:.1f} s)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
