"""Mail intake benchmark: N order mails sent over SMTP to a real Dovecot, read by `gm serve`,
acknowledged through its outbox; measured from each mail's arrival in the GM's mailbox to its
acknowledgement leaving the outbox (accepted by the SMTP server). Prints mails/s and the p50/p95
latency on SQLite and on PostgreSQL, for a live burst (the judge watching with IDLE) and for a
backlog (the judge paused while the burst arrives, then let go: its own rate). See bench/README.md.

Targets: at least 200 mails/s on SQLite, p95 acknowledgement under 2 s with IDLE.

It uses the test suite's real servers (tests/conftest.py, tests/mail/conftest.py): install with
`scripts/setup test`, then run `.venv/bin/python bench/ingest.py [--mails N] [--db sqlite|postgresql]`.
"""
from __future__ import annotations

import argparse
import signal
import smtplib
import statistics
import sys
import tempfile
import subprocess
import threading
import time
from contextlib import ExitStack
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path

from sqlalchemy import create_engine, select
from sqlalchemy.orm import Session

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gm.games import create_game  # noqa: E402
from gm.lifecycle.phases import start as start_game  # noqa: E402
from gm.store.db import make_engine, make_session_factory, transaction, upgrade  # noqa: E402
from gm.store.models import InboundMail, OutboundMail, Player, utcnow  # noqa: E402
from gm.store.passwords import hash_password  # noqa: E402
from suite import load  # noqa: E402


dbtests = load("gm_test_databases", "tests/conftest.py")
mailtests = load("gm_test_mail", "tests/mail/conftest.py")
DOMAIN, GM, PASSWORD = mailtests.DOMAIN, mailtests.GM, mailtests.PASSWORD
SENDERS = 8  # SMTP connections the burst is sent over
GAMES = 10  # standard games, every power taken: 70 players, each sending a share of the burst
ORDERS = {"Austria": "A Vie - Gal\nA Bud - Ser\nF Tri - Alb", "England": "F Lon - Nth\nF Edi - Nwg\nA Lvp - Yor",
          "France": "A Par - Bur\nA Mar S A Par - Bur\nF Bre - Mao", "Germany": "A Mun - Ruh\nA Ber - Kie\nF Kie - Den",
          "Italy": "A Ven - Pie\nA Rom - Apu\nF Nap - Ion", "Russia": "A Mos - Ukr\nA War - Gal\nF Sev - Bla",
          "Turkey": "A Con - Bul\nA Smy - Arm\nF Ank - Bla"}
# address -> (game, power): a player per power of each game
PLAYERS = {f"{power.lower()}{g}": (f"bench{g}", power) for g in range(GAMES) for power in ORDERS}


class TimedRelay(mailtests.LmtpRelay):  # type: ignore[misc,name-defined]
    """The test SMTP front's relay, made to keep up with a burst and to time it: mail to the GM
    goes into its Dovecot mailbox over one LMTP connection per worker thread, noting when each
    arrived; mail to players (the acknowledgements) is accepted and timed by its In-Reply-To, as
    a relay that queues mail for delivery elsewhere would, without loading Dovecot with it."""

    def __init__(self, lmtp_port: int) -> None:
        super().__init__(lmtp_port)
        self.arrived: dict[str, float] = {}  # Message-ID of an order mail -> in the GM's mailbox
        self.acked: dict[str, float] = {}  # Message-ID of an order mail -> its acknowledgement accepted
        self.local = threading.local()

    def _deliver(self, sender: str, recipients: list[str], content: bytes) -> None:
        if GM not in recipients:
            self._note(self.acked, content, b"in-reply-to:")
            return
        lmtp = getattr(self.local, "lmtp", None)
        if lmtp is None:
            lmtp = self.local.lmtp = smtplib.LMTP("127.0.0.1", self.lmtp_port)
        try:
            lmtp.sendmail(sender, [GM], content)
        except (OSError, smtplib.SMTPException):
            self.local.lmtp = None
            raise
        self._note(self.arrived, content, b"message-id:")

    @staticmethod
    def _note(times: dict[str, float], content: bytes, header: bytes) -> None:
        now = time.time()
        head = content.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
        for line in head.splitlines():
            if line.lower().startswith(header):
                times[line.split(b":", 1)[1].strip().decode()] = now
                return


def _setup(url: str) -> None:
    upgrade(url)
    password_hash = hash_password(PASSWORD)
    with transaction(make_session_factory(make_engine(url))) as s:
        for g in range(GAMES):
            game = create_game(s, f"bench{g}", "standard")
            for user, (name, power) in PLAYERS.items():
                if name == game.name:
                    s.add(Player(game_id=game.id, power=power, email=f"{user}@{DOMAIN}", password_hash=password_hash))
            s.flush()
            start_game(s, game, utcnow())


def _mails(n: int, tag: str) -> list[EmailMessage]:
    out = []
    users = list(PLAYERS)
    for i in range(n):
        user = users[i % len(users)]
        game, power = PLAYERS[user]
        msg = EmailMessage()
        msg["From"] = f"{user}@{DOMAIN}"
        msg["To"] = GM
        msg["Subject"] = f"orders {i}"
        msg["Message-ID"] = f"<bench-{tag}-{i}@{DOMAIN}>"
        msg.set_content(f"SIGNON {power} {game} {PASSWORD}\n{ORDERS[power]}\n")
        out.append(msg)
    return out


# The sending side, as a small program of its own: a process with nothing else to do, so that
# neither the SMTP front in this process nor the judge waits for it.
SENDER = """
import smtplib, sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
port, folder, connections = int(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
mails = sorted(folder.glob("*.eml"))
def send(share):
    with smtplib.SMTP("127.0.0.1", port) as smtp:
        for path in share:
            raw = path.read_bytes()
            smtp.sendmail("player@example.org", ["{gm}"], raw)
with ThreadPoolExecutor(connections) as pool:
    list(pool.map(send, [mails[i::connections] for i in range(connections)]))
"""


def _send(port: int, mails: list[EmailMessage], connections: int = 1) -> None:
    """Send `mails` over `connections` SMTP connections side by side (players mail at once)."""
    with tempfile.TemporaryDirectory(prefix="gmbench") as folder:
        for i, m in enumerate(mails):
            (Path(folder) / f"{i:06d}.eml").write_bytes(m.as_bytes())
        subprocess.run(
            [sys.executable, "-c", SENDER.replace("{gm}", GM), str(port), folder, str(connections)], check=True
        )


def _acks_on_record(url: str, ids: list[str]) -> int:
    """How many of these mails are recorded with an acknowledgement marked sent in the outbox."""
    with Session(create_engine(url)) as s:
        return len(
            s.execute(
                select(InboundMail.message_id)
                .join(OutboundMail, OutboundMail.inbound_id == InboundMail.id)
                .where(InboundMail.message_id.in_(ids), OutboundMail.sent_at.is_not(None))
            ).all()
        )


def run_one(db: str, n: int, dovecot_binary: str) -> list[dict[str, float | str]]:
    """Both measures on one database: a live burst, then a backlog."""
    with ExitStack() as stack:
        work = Path(tempfile.mkdtemp(prefix="gmbench", dir="/tmp"))
        if db == "sqlite":
            url = f"sqlite:///{work}/gm.sqlite3"
        else:
            url = stack.enter_context(dbtests.postgres_server(dbtests._pg_bin()))
        dovecot = mailtests.Dovecot(dovecot_binary)
        dovecot.start()
        stack.callback(dovecot.stop)
        front = mailtests.SmtpFront(TimedRelay(dovecot.lmtp_port))
        front.start()
        stack.callback(front.stop)
        _setup(url)
        server = mailtests.start_gm_serve(url, dovecot, front, work)
        stack.callback(lambda: (server.send_signal(signal.SIGCONT), server.send_signal(signal.SIGTERM), server.wait(20)))
        # Warm up: one mail per player (the first sign-on pays the slow password hash).
        warm = _mails(len(PLAYERS), f"warm-{db}")
        _send(front.port, warm)
        _wait(front.relay, [m["Message-ID"] for m in warm], 60)
        results = []
        for mode in ("live", "backlog"):
            burst = _mails(n, f"{db}-{mode}-{datetime.now(UTC).timestamp():.0f}")
            ids = [m["Message-ID"] for m in burst]
            if mode == "backlog":  # the judge stopped while the mail comes in, then let go
                server.send_signal(signal.SIGSTOP)
            _send(front.port, burst, SENDERS)
            arrived = front.relay.arrived
            start = min(arrived[i] for i in ids)
            if mode == "backlog":
                start = time.time()
                server.send_signal(signal.SIGCONT)
            sent = _wait(front.relay, ids, 600)
            latencies = sorted(sent[i] - arrived[i] for i in ids)
            deadline = time.monotonic() + 10  # the outbox marks a row sent just after the server took it
            while _acks_on_record(url, ids) < n:
                if time.monotonic() > deadline:
                    raise SystemExit("acknowledgements were delivered but not all are marked sent")
                time.sleep(0.2)
            results.append({
                "mode": mode,
                "mails": n,
                "mails_per_s": n / (max(sent.values()) - start),
                "p50": statistics.median(latencies),
                "p95": _p95(latencies),
                "arrival_s": max(arrived[i] for i in ids) - min(arrived[i] for i in ids),
            })
        return results


def _p95(values: list[float]) -> float:
    return values[int(0.95 * (len(values) - 1))]


def _wait(relay: TimedRelay, ids: list[str], timeout: float) -> dict[str, float]:
    """Message-ID of each mail -> when its acknowledgement reached the SMTP server."""
    deadline = time.monotonic() + timeout
    while True:
        acked = {i: relay.acked[i] for i in ids if i in relay.acked}
        if len(acked) == len(ids):
            return acked
        if time.monotonic() > deadline:
            raise SystemExit(f"only {len(acked)} of {len(ids)} acknowledgements left in {timeout} s")
        time.sleep(0.05)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mails", type=int, default=300)
    ap.add_argument("--db", choices=("sqlite", "postgresql", "both"), default="both")
    ap.add_argument("--in-process", action="store_true", help="also time ingest_batch alone, without mail servers")
    args = ap.parse_args(argv)
    binary = mailtests._find_dovecot()
    if binary is None:
        raise SystemExit("Dovecot is not installed: run scripts/setup test")
    dbs = ["sqlite", "postgresql"] if args.db == "both" else [args.db]
    print(f"gm ingest benchmark: {args.mails} order mails (SIGNON + 3 orders each) over SMTP -> Dovecot -> gm serve (IDLE)")
    print(f"{'database':<12}{'mode':<9}{'mails':>7}{'mails/s':>10}{'p50 s':>9}{'p95 s':>9}{'arrival s':>11}")
    results = {}
    for db in dbs:
        for r in run_one(db, args.mails, binary):
            results[db, r["mode"]] = r
            print(f"{db:<12}{r['mode']:<9}{r['mails']:>7.0f}{r['mails_per_s']:>10.1f}{r['p50']:>9.2f}{r['p95']:>9.2f}"
                  f"{r['arrival_s']:>11.2f}")
    for db in dbs:
        if (db, "live") in results:
            live, backlog = results[db, "live"], results[db, "backlog"]
            print(f"targets ({db}): >= 200 mails/s: {'PASS' if backlog['mails_per_s'] >= 200 else 'FAIL'} "
                  f"(backlog {backlog['mails_per_s']:.0f}, live {live['mails_per_s']:.0f}, arrival "
                  f"{args.mails / live['arrival_s']:.0f}); p95 < 2 s live: {'PASS' if live['p95'] < 2 else 'FAIL'}")
    if len(dbs) == 2:
        pg, lite = results["postgresql", "backlog"]["mails_per_s"], results["sqlite", "backlog"]["mails_per_s"]
        print(f"PostgreSQL backlog >= SQLite's: {'PASS' if pg >= lite else 'FAIL'} ({pg:.0f} vs {lite:.0f} mails/s)")
    if args.in_process:
        print(f"in-process: ingest_batch on batches of 100, {args.mails} mails, no mail servers")
        for db in dbs:
            print(f"{db:<12}{in_process(db, args.mails):>8.2f} ms a mail")
    return 0


def in_process(db: str, n: int) -> float:
    """Milliseconds a mail for ingest_batch alone, on batches of 100: the steadiest figure."""
    from gm.mail.ingest import Fetched, ingest_batch
    from gm.store.passwords import PasswordVerifier

    with ExitStack() as stack:
        work = Path(tempfile.mkdtemp(prefix="gmbench", dir="/tmp"))
        url = (f"sqlite:///{work}/gm.sqlite3" if db == "sqlite"
               else stack.enter_context(dbtests.postgres_server(dbtests._pg_bin())))
        _setup(url)
        session_factory = make_session_factory(make_engine(url))
        verifier = PasswordVerifier()
        warm = [Fetched(None, m.as_bytes()) for m in _mails(len(PLAYERS), "warm")]
        ingest_batch(session_factory, warm, gm_address=GM, verifier=verifier)
        raws = [Fetched(None, m.as_bytes()) for m in _mails(n, "timed")]
        start = time.perf_counter()
        for i in range(0, n, 100):
            outcomes = ingest_batch(session_factory, raws[i:i + 100], gm_address=GM, verifier=verifier)
            assert all(o.outcome == "processed" and o.replies == 1 for o in outcomes), outcomes[0]
        return (time.perf_counter() - start) / n * 1000


if __name__ == "__main__":
    sys.exit(main())
