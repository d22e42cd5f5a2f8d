"""Flood benchmark: the real players' order mails in a flood of hostile mail, through the real path
(SMTP -> Dovecot -> `gm serve` -> outbox -> SMTP, as bench/ingest.py). Prints, on SQLite and on
PostgreSQL, the real players' acknowledgements (p50/p95 from a mail's arrival in the GM's mailbox to
its acknowledgement leaving the outbox, mails/s), the real orders on file afterwards, and the rate
the hostile mail is taken in at; beside them, as the peer, the same real mails with no flood.
See bench/README.md.

Targets: the real players' p95 under 2 s during the flood; every real order on file (checked in
the database: a real order missing, or an acknowledgement never sent, makes the run fail).

Needs the test extra (`scripts/setup test`), then
`.venv/bin/python bench/flood.py [--hostile N] [--real N] [--db sqlite|postgresql|both] [--split]`.
"""
from __future__ import annotations

import argparse
import cProfile
import itertools
import math
import pstats
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from contextlib import ExitStack, contextmanager
from email.message import EmailMessage
from email.policy import SMTP
from pathlib import Path

from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from gm.games import add_master, create_game, find_game
from gm.mail.auth import CHECKS_PER_MAIL
from gm.mail.budget import REPLIES_PER_HOUR
from gm.mail.inbox import BATCH_MAILS
from gm.mail.ingest import Fetched, ingest_batch
from gm.store.db import make_engine, make_session_factory, transaction
from gm.store.models import InboundMail, OrderRecord, OutboundMail
from gm.store.passwords import PasswordVerifier, hash_password
from ingest import (DOMAIN, GAMES, GM, ORDERS, PASSWORD, PLAYERS, SENDERS, TimedRelay, _mails, _p95, _send,
                    _setup, _wait, dbtests, mailtests)

FORMING = "open0"  # a standard game with no players yet: what the forged JOINs name
MASTER_PASSWORD = "gm-secret"  # each bench game's GM, master<g>@DOMAIN
# Real players who flood with the right password (hostile in intent): they send no real orders
# here, since the acknowledgements of their floods use up their own hourly budget.
FLOODERS = {"france0": "map", "germany1": "map", "italy2": "press", "turkey3": "press"}
# The hostile mix, a round of 20: forged JOINs 20%, wrong passwords 30%, JOINs of no game 15%,
# MAP floods 5%, press floods 5%, strangers' junk 25%.
MIX = ("join",) * 4 + ("guess",) * 6 + ("nogame",) * 3 + ("map", "press") + ("junk",) * 5
TEXT = ("the quick brown fox jumps over the lazy dog", "lorem ipsum dolor sit amet consectetur",
        "buy now limited offer click here", "A Par - Bur", "SUMMARY", "it was a dark and stormy night")
STALL_S = 120  # the judge takes no mail in for this long: it is stuck, the run stops there
# --split: where ingest's time goes (cumulative, under cProfile): label -> (file, function).
SPLIT = {
    "Argon2 hashes of new passwords": ("gm/store/passwords.py", "hash_password"),
    "  before the transaction (_prehash)": ("gm/mail/ingest.py", "_prehash"),
    "  in the transaction (JOIN)": ("gm/mail/commands/__init__.py", "new_password_hash"),
    "password checks (SIGNON)": ("gm/mail/auth.py", "check_password"),
    "  of them, Argon2": ("argon2/_password_hasher.py", "verify"),
    "PRESS lines (press.start)": ("gm/mail/press.py", "start"),
    "  of them, the phase read again": ("gm/games.py", "major_powers"),
    "MAP lines": ("gm/mail/commands/map.py", "run"),
    "reading the mails (read_message)": ("gm/mail/message.py", "read_message"),
    "the inbound rows (passwords redacted)": ("gm/mail/ingest.py", "_inbound_values"),
}


def _setup_flood(url: str) -> None:
    """bench/ingest.py's ten games under way, each with a GM (the target of SIGNON MASTER guesses),
    and one game forming with no players (the target of the forged JOINs)."""
    _setup(url)
    master_hash = hash_password(MASTER_PASSWORD)
    with transaction(make_session_factory(make_engine(url))) as s:
        create_game(s, FORMING, "standard")
        for g in range(GAMES):
            game = find_game(s, f"bench{g}")
            assert game is not None
            add_master(s, game, f"master{g}@{DOMAIN}", master_hash)


def _real_mails(n: int, tag: str) -> list[EmailMessage]:
    """`n` of bench/ingest.py's order mails (SIGNON and three orders), from the players who do not flood."""
    every = _mails(n * len(PLAYERS) // (len(PLAYERS) - len(FLOODERS)) + len(PLAYERS), tag)
    return [m for m in every if m["From"].partition("@")[0] not in FLOODERS][:n]


def _forged_orders(power: str) -> str:
    """Every unit of `power` holding: what a guesser hopes to put on file ('A Vie H')."""
    return "\n".join(" ".join(line.split()[:2]) + " H" for line in ORDERS[power].splitlines())


def _hostile(n: int, tag: str) -> list[EmailMessage]:
    """`n` hostile mails, the kinds of MIX in turn."""
    users = list(PLAYERS)
    flooders = {kind: [u for u, k in FLOODERS.items() if k == kind] for kind in ("map", "press")}
    seen: Counter[str] = Counter()
    out = []
    for i in range(n):
        kind = MIX[i % len(MIX)]
        k = seen[kind]  # how many of this kind came before
        seen[kind] += 1
        g = k % GAMES
        power = list(ORDERS)[k % len(ORDERS)]
        if kind == "join":  # forged in a victim's name, and long
            sender = f"victim{k}@victims.example"
            body = f"JOIN {FORMING} {power} pw{k}\n" + "\n".join(TEXT[(k + j) % len(TEXT)] for j in range(40))
        elif kind == "guess":
            form = k % 4
            if form == 0:  # a stranger, one guess and orders
                sender, body = f"guesser{k % 97}@evil.example", f"SIGNON {power} bench{g} guess{k}\n{_forged_orders(power)}"
            elif form == 1:  # forged from the player's own address
                user = next(u for u, (game, p) in PLAYERS.items() if game == f"bench{g}" and p == power)
                sender, body = f"{user}@{DOMAIN}", f"SIGNON {power} bench{g} guess{k}\n{_forged_orders(power)}"
            elif form == 2:  # more sign-ons than a mail may check
                sender = f"guesser{k % 97}@evil.example"
                body = "\n".join(f"SIGNON {p} bench{g} guess{k}x{j}" for j, p in enumerate(list(ORDERS)[:CHECKS_PER_MAIL + 2]))
            else:
                sender, body = f"guesser{k % 97}@evil.example", f"SIGNON MASTER bench{g} guess{k}"
        elif kind == "nogame":
            sender, body = f"joiner{k % 300}@nowhere.example", f"JOIN nosuchgame{k} France pw{k}"
        elif kind in ("map", "press"):  # a real player, with the right password
            user = flooders[kind][k % len(flooders[kind])]
            game, own = PLAYERS[user]
            sender, body = f"{user}@{DOMAIN}", f"SIGNON {own} {game} {PASSWORD}\n"
            if kind == "map":
                body += "MAP\n" * 499
            else:
                rivals = [p for p in ORDERS if p != own]
                body += "".join(f"PRESS TO {rivals[j % len(rivals)]}\n{TEXT[j % len(TEXT)]}\nENDPRESS\n"
                                for j in range(70))
        else:  # a stranger's junk: empty, HELP, LIST, or text
            sender = f"stranger{k % 300}@junk.example"
            body = ("", "HELP", "LIST", "\n".join(TEXT[j % len(TEXT)] for j in range(k % 12)))[k % 4]
        msg = EmailMessage(policy=SMTP)  # CRLF: a mail longer than 1000 bytes is many lines to SMTP
        msg["From"] = sender
        msg["To"] = GM
        msg["Subject"] = f"{kind} {k}"
        msg["Message-ID"] = f"<flood-{tag}-{i}@{DOMAIN}>"
        msg.set_content(body + "\n")
        out.append(msg)
    return out


def _interleaved(hostile: list[EmailMessage], real: list[EmailMessage]) -> list[EmailMessage]:
    """The real mails spread evenly through the hostile ones."""
    out: list[EmailMessage] = []
    done = 0
    for j, mail in enumerate(real):
        upto = round((j + 1) * len(hostile) / len(real))
        out += hostile[done:upto] + [mail]
        done = upto
    return out + hostile[done:]


def _taken_in(engine: Engine, expected: int, server: subprocess.Popen[bytes]) -> int:
    """Wait until the judge has recorded `expected` mails in all; stop early if gm serve has
    died or takes nothing in for STALL_S seconds. How many it recorded."""
    last, since = -1, time.monotonic()
    while True:
        with Session(engine) as s:
            count = s.scalar(select(func.count()).select_from(InboundMail)) or 0
        if count >= expected or server.poll() is not None:
            return count
        if count != last:
            last, since = count, time.monotonic()
        elif time.monotonic() - since > STALL_S:
            return count
        time.sleep(1)


def _acked(engine: Engine, ids: list[str]) -> set[str]:
    """Which of these mails have an acknowledgement (kind 'ack', not a notice that answers are
    paused) marked sent in the outbox."""
    with Session(engine) as s:
        return set(s.scalars(
            select(InboundMail.message_id)
            .join(OutboundMail, OutboundMail.inbound_id == InboundMail.id)
            .where(InboundMail.message_id.in_(ids), OutboundMail.kind == "ack", OutboundMail.sent_at.is_not(None))
        ))


def _orders_check(engine: Engine, ids: list[str]) -> tuple[int, list[str]]:
    """The real orders on file as current, and the real mails whose three orders are not all on
    file as current (not recorded, or replaced by anything but the same orders)."""
    with Session(engine) as s:
        given = s.execute(
            select(InboundMail.message_id, OrderRecord.phase_id, OrderRecord.power, OrderRecord.unit,
                   OrderRecord.canonical)
            .join(OrderRecord, OrderRecord.inbound_id == InboundMail.id)
            .where(InboundMail.message_id.in_(ids))
        ).all()
        current = set(s.execute(select(OrderRecord.phase_id, OrderRecord.power, OrderRecord.unit, OrderRecord.canonical)
                                .where(OrderRecord.current.is_(True))).all())
    by_mail: dict[str, set[tuple[int, str, str, str]]] = {i: set() for i in ids}
    for message_id, *order in given:
        by_mail[message_id].add(tuple(order))  # type: ignore[arg-type]
    on_file = set().union(*by_mail.values()) & current
    missing = [i for i, mine in by_mail.items() if len(mine) != 3 or not mine <= current]
    return len(on_file), missing


def _replies(engine: Engine, after: int) -> dict[str, int]:
    """The outbox rows queued in answer to the mails recorded after row `after`, by kind."""
    with Session(engine) as s:
        rows = s.execute(select(OutboundMail.kind, func.count()).join(InboundMail, OutboundMail.inbound_id == InboundMail.id)
                         .where(InboundMail.id > after).group_by(OutboundMail.kind))
        return {kind: n for kind, n in rows}


def _log_findings(log: Path) -> dict[str, list[str]]:
    """What went wrong by gm serve's own account: errors, tracebacks, and batches done again mail
    by mail (something in them raised)."""
    lines = log.read_text(errors="replace").splitlines() if log.exists() else []
    return {
        "errors": [line for line in lines if " ERROR " in line or " CRITICAL " in line],
        "tracebacks": [line for line in lines if line.startswith("Traceback")],
        "redone": [line for line in lines if "again, mail by mail" in line],
    }


def _timed(relay: TimedRelay, engine: Engine, ids: list[str]) -> dict[str, float]:
    """The real mails' figures, from what the relay timed and what the outbox has marked sent."""
    try:
        _wait(relay, ids, 120)
    except SystemExit as e:  # some never left: counted below
        print(f"  {e}", flush=True)
    deadline = time.monotonic() + 10  # the outbox marks a row sent just after the server took it
    while len(acked := _acked(engine, ids) & relay.acked.keys()) < len(ids) and time.monotonic() < deadline:
        time.sleep(0.5)
    latencies = sorted(relay.acked[i] - relay.arrived[i] for i in acked)
    first = min(relay.arrived[i] for i in ids if i in relay.arrived)
    return {
        "real": len(ids),
        "acked": len(acked),
        "mails_per_s": len(acked) / (max(relay.acked[i] for i in acked) - first) if acked else 0.0,
        "p50": statistics.median(latencies) if latencies else math.nan,
        "p95": _p95(latencies) if latencies else math.nan,
    }


def run_one(db: str, hostile_n: int, real_n: int, dovecot_binary: str) -> list[dict[str, object]]:
    """The baseline (the real mails alone), then the flood (the same number of real mails among
    the hostile ones), on one database and one `gm serve`."""
    with ExitStack() as stack:
        work = Path(tempfile.mkdtemp(prefix="gmflood", dir="/tmp"))
        url = (f"sqlite:///{work}/gm.sqlite3" if db == "sqlite"
               else stack.enter_context(dbtests.postgres_server(dbtests._pg_bin())))
        dovecot = stack.enter_context(contextmanager(mailtests._dovecot)(dovecot_binary, None))
        front = mailtests.SmtpFront(TimedRelay(dovecot.lmtp_port))
        front.start()
        stack.callback(front.stop)
        relay = front.relay
        _setup_flood(url)
        engine = make_engine(url)
        stack.callback(engine.dispose)
        server = mailtests.start_gm_serve(url, dovecot, front, work)
        stack.callback(lambda: (server.poll() is None and server.send_signal(signal.SIGTERM), server.wait(20)))
        # Every player's first sign-on (the slow password check) goes before any clock starts.
        warm = _mails(len(PLAYERS), f"warm-{db}")
        _send(front.port, warm)
        _wait(relay, [m["Message-ID"] for m in warm], 120)
        stamp = f"{db}-{time.time():.0f}"
        results: list[dict[str, object]] = []
        sent = len(warm)
        for run in ("baseline", "flood"):
            real = _real_mails(real_n, f"{run}-{stamp}")
            hostile = _hostile(hostile_n, stamp) if run == "flood" else []
            with Session(engine) as s:
                before = s.scalar(select(func.max(InboundMail.id))) or 0
            print(f"  {db} {run}: sending {len(real)} real and {len(hostile)} hostile mails", flush=True)
            _send(front.port, _interleaved(hostile, real) if hostile else real, SENDERS)
            sent += len(real) + len(hostile)
            taken = _taken_in(engine, sent, server)
            ids = [m["Message-ID"] for m in real]
            result: dict[str, object] = {"db": db, "run": run, "hostile": len(hostile), **_timed(relay, engine, ids)}
            result["on_file"], result["missing"] = _orders_check(engine, ids)
            result["not_taken"] = sent - taken
            hostile_ids = {m["Message-ID"] for m in hostile}
            with Session(engine) as s:
                stamps = {i: t.timestamp() for i, t in s.execute(
                    select(InboundMail.message_id, InboundMail.processed_at).where(InboundMail.id > before))}
            arrived = [relay.arrived[i] for i in [*ids, *hostile_ids] if i in relay.arrived]
            result["arrival_s"] = max(arrived) - min(arrived)
            result["intake_s"] = max(stamps.values()) - min(arrived)  # to the last batch's start
            # Both ends are the starts of batches: the rate from the first hostile mail's to the last's.
            times = [t for i, t in stamps.items() if i in hostile_ids]
            result["hostile_per_s"] = (len(times) - 1) / (max(times) - min(times)) if len(times) > 1 else math.nan
            result["replies"] = _replies(engine, before)
            results.append(result)
            if server.poll() is not None:
                print(f"  gm serve exited with {server.returncode} during the {run}", flush=True)
                break
        for result in results:
            result["log"] = work / "serve.log"
            result["findings"] = _log_findings(work / "serve.log")
        return results


def split(hostile_n: int, real_n: int) -> None:
    """ingest_batch alone (SQLite, no mail servers, cProfile on) on the flood's mails in the
    watcher's batches: milliseconds a mail, and how much of it goes where (SPLIT)."""
    url = f"sqlite:///{tempfile.mkdtemp(prefix='gmflood', dir='/tmp')}/gm.sqlite3"
    _setup_flood(url)
    session_factory = make_session_factory(make_engine(url))
    verifier = PasswordVerifier()
    ingest_batch(session_factory, [Fetched(None, m.as_bytes()) for m in _mails(len(PLAYERS), "warm")],
                 gm_address=GM, verifier=verifier)
    mails = [Fetched(None, m.as_bytes()) for m in _interleaved(_hostile(hostile_n, "split"), _real_mails(real_n, "split"))]
    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.enable()
    for i in range(0, len(mails), BATCH_MAILS):
        ingest_batch(session_factory, mails[i:i + BATCH_MAILS], gm_address=GM, verifier=verifier)
    profile.disable()
    seconds = time.perf_counter() - start
    print(f"ingest_batch alone, SQLite, under cProfile: {len(mails)} mails in {seconds:.1f} s, "
          f"{seconds / len(mails) * 1000:.1f} ms a mail")
    cumulative = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    for label, (path, function) in SPLIT.items():
        found = [(nc, ct) for (file, _, name), (_, nc, _, ct, _) in cumulative.items()
                 if file.endswith(path) and name == function]
        calls, spent = sum(nc for nc, _ in found), sum(ct for _, ct in found)
        print(f"  {label:<40}{spent:>8.1f} s{spent / seconds:>6.0%}{calls:>8} calls")


def _shown(rate: float) -> str:
    return "-" if math.isnan(rate) else f"{rate:.1f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hostile", type=int, default=10_000)
    ap.add_argument("--real", type=int, default=1000)
    ap.add_argument("--db", choices=("sqlite", "postgresql", "both"), default="both")
    ap.add_argument("--split", action="store_true", help="instead: ingest_batch alone on the same mails, under cProfile")
    args = ap.parse_args(argv)
    players = len(PLAYERS) - len(FLOODERS)
    # A player's acknowledgements an hour: the warm-up's, then the baseline's and the flood's.
    most = (REPLIES_PER_HOUR - 2) // 2 * players
    if not 0 < args.real <= most:
        raise SystemExit(f"--real: 1 to {most} ({players} players, {REPLIES_PER_HOUR} acknowledgements an hour each)")
    if args.split:
        split(args.hostile, args.real)
        return 0
    binary = mailtests._find_dovecot()
    if binary is None:
        raise SystemExit("Dovecot is not installed: run scripts/setup test")
    dbs = ["sqlite", "postgresql"] if args.db == "both" else [args.db]
    print(f"gm flood benchmark: {args.real} real order mails from {players} players among {args.hostile} hostile "
          f"mails, over {SENDERS} SMTP connections -> Dovecot -> gm serve (IDLE); baseline: the real mails alone")
    results = [r for db in dbs for r in run_one(db, args.hostile, args.real, binary)]
    print(f"{'database':<12}{'run':<10}{'real':>6}{'acked':>7}{'mails/s':>9}{'p50 s':>8}{'p95 s':>8}"
          f"{'on file':>9}{'hostile':>9}{'hostile/s':>11}{'arrival s':>11}{'intake s':>10}")
    for r in results:
        print(f"{r['db']:<12}{r['run']:<10}{r['real']:>6}{r['acked']:>7}{r['mails_per_s']:>9.1f}{r['p50']:>8.2f}"
              f"{r['p95']:>8.2f}{r['on_file']:>9}{r['hostile']:>9}{_shown(r['hostile_per_s']):>11}{r['arrival_s']:>11.2f}"
              f"{r['intake_s']:>10.2f}")
    failed = False
    for r in results:
        kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(r["replies"].items()))  # type: ignore[attr-defined]
        print(f"{r['db']} {r['run']}: replies queued: {kinds or 'none'}")
        missing = r["missing"]
        if missing or r["acked"] != r["real"] or r["not_taken"]:
            failed = True
            print(f"  FAIL: {len(missing)} real mails' orders not on file (e.g. {missing[:3]}), "  # type: ignore[index]
                  f"{r['real'] - r['acked']} acknowledgements never sent, {r['not_taken']} mails never taken in")
    for db in dbs:
        by_run = {r["run"]: r for r in results if r["db"] == db}
        flood, base = by_run.get("flood"), by_run.get("baseline")
        if flood is None or base is None:
            failed = True
            print(f"targets ({db}): no flood run")
            continue
        print(f"targets ({db}): real p95 < 2 s in the flood: {'PASS' if flood['p95'] < 2 else 'FAIL'} "
              f"({flood['p95']:.2f} s, {base['p95']:.2f} s without it); every real order on file: "
              f"{'PASS' if not flood['missing'] and not base['missing'] else 'FAIL'} "
              f"({flood['on_file']} of {3 * min(args.real, players)} orders)")
        findings = flood["findings"]
        print(f"gm serve's log ({db}, {flood['log']}): {len(findings['errors'])} errors, "  # type: ignore[index]
              f"{len(findings['tracebacks'])} tracebacks, {len(findings['redone'])} batches done again mail by mail")
        for line in itertools.islice(itertools.chain(findings["errors"], findings["redone"]), 5):  # type: ignore[index]
            print(f"  {line[:200]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
