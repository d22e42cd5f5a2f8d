"""Flood benchmark: the real players' order mails in a flood of hostile mail, through the real path
(SMTP -> Dovecot -> `gm serve` -> outbox -> SMTP, as bench/ingest.py). Prints, on SQLite and on
PostgreSQL, the real players' acknowledgements (p50/p95 from a mail's arrival in the GM's mailbox to
its acknowledgement leaving the outbox, mails/s), the real orders on file afterwards, and the rate
the hostile mail is taken in at; beside them, as the peer, the same real mails with no flood.

In the same flood, forged JOINs and OBSERVEs of a forming game (Ambition & Empire, ten powers) from
thousands of fresh addresses at a hundred domains that publish nothing, while ten newcomers JOIN
it: five in mail their domain signs (DKIM, checked by the judge against a DNS server of the bench's
own), five in unsigned mail, who answer the code mailed to them with CONFIRM. Prints what happened
to each newcomer, and the mail the judge sent to addresses that proved nothing against its bounds.
See bench/README.md.

Targets: the real players' p95 under 2 s during the flood; every real order on file (checked in
the database: a real order missing, or an acknowledgement never sent, makes the run fail); every
newcomer plays, and the mail to addresses that proved nothing stays within gm.mail.budget's bounds
(either failing makes the run fail).

Needs the test extra (`scripts/setup test`), then
`.venv/bin/python bench/flood.py [--hostile N] [--real N] [--forged-joins N] [--forged-observes N]
[--unsigned-joins-at F] [--db sqlite|postgresql|both] [--split]`.
"""
from __future__ import annotations

import argparse
import cProfile
import itertools
import math
import pstats
import signal
import smtplib
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from contextlib import ExitStack, contextmanager
from datetime import datetime
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import SMTP
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

import gm.mail.intake.dns
from gm.games import add_master, create_game, find_game
from gm.mail.intake.auth import CHECKS_PER_MAIL
from gm.mail.budget import REPLIES_PER_HOUR, UNPROVEN_PER_DOMAIN, UNPROVEN_PER_GAME, UNPROVEN_PER_HOUR, WINDOW
from gm.mail.commands.confirmations import code_in_subject
from gm.mail.inbox import BATCH_MAILS
from gm.mail.ingest import Fetched, ingest_batch
from gm.store import judge_key
from gm.store.db import make_engine, make_session_factory, transaction
from gm.store.models import Confirmation, Game, InboundMail, Observer, OrderRecord, OutboundMail, Player
from gm.store.passwords import PasswordVerifier, hash_password
from gm.variants import load_variant
from ingest import (DOMAIN, GAMES, GM, ORDERS, PASSWORD, PLAYERS, SENDERS, TimedRelay, _mails, _p95, _send,
                    _setup, _wait, dbtests, mailtests)
from dnsserver import Zone, publish_dkim, publish_dmarc, publish_spf, sign  # tests/, on the path since ingest

# A game forming with no players yet, of Ambition & Empire (ten great powers): what the forged
# JOINs and OBSERVEs name, and what the ten newcomers join.
FORMING, FORMING_VARIANT = "open0", "ambition"
GREAT_POWERS = load_variant(FORMING_VARIANT).great_powers
SIGNED_DOMAIN = "signed.example"  # publishes a DKIM key, SPF and DMARC p=reject, and signs its mail
UNSIGNED_DOMAIN = "oldschool.example"  # publishes nothing: its mail proves nothing
# The newcomers: address -> (power, password); the first five write from SIGNED_DOMAIN, the rest
# from UNSIGNED_DOMAIN.
NEWCOMERS = {f"newcomer{j}@{SIGNED_DOMAIN if j < len(GREAT_POWERS) // 2 else UNSIGNED_DOMAIN}": (power, f"np{j}")
             for j, power in enumerate(GREAT_POWERS)}
# The forger at scale: a fresh address for each mail, at FORGED_DOMAINS domains that publish nothing;
# one mail in FORGED_SIGNED carries a DKIM signature of its From domain, by a key nobody publishes
# (what costs the judge a DNS look-up).
FORGED_DOMAINS = 100
FORGED_SIGNED = 4
CONFIRM_WAIT_S = 120  # after the flood is taken in: how long a code mail, or a CONFIRM, may still take
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
    "  in the transaction (JOIN, CONFIRM)": ("gm/mail/commands/context.py", "new_password_hash"),
    "password checks (SIGNON)": ("gm/mail/intake/auth.py", "check_password"),
    "  of them, Argon2": ("argon2/_password_hasher.py", "verify"),
    "PRESS lines (press.start)": ("gm/mail/outgoing/press.py", "start"),
    "  of them, the phase read again": ("gm/games.py", "major_powers"),
    "MAP lines": ("gm/mail/commands/map.py", "run"),
    "reading the mails (read_message)": ("gm/mail/intake/message.py", "read_message"),
    "the inbound rows (passwords redacted)": ("gm/mail/ingest.py", "_inbound_values"),
    "what proves each From (_provenances)": ("gm/mail/ingest.py", "_provenances"),
    "  of them, DKIM signatures verified": ("gm/mail/intake/dkim.py", "verdict"),
}


def _setup_flood(url: str) -> None:
    """bench/ingest.py's ten games under way, each with a GM (the target of SIGNON MASTER guesses),
    and one game of Ambition & Empire forming with no players (the target of the forged JOINs and
    OBSERVEs, and the newcomers' game)."""
    _setup(url)
    master_hash = hash_password(MASTER_PASSWORD)
    with transaction(make_session_factory(make_engine(url))) as s:
        create_game(s, FORMING, FORMING_VARIANT)
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
            body = (f"JOIN {FORMING} {GREAT_POWERS[k % len(GREAT_POWERS)]} pw{k}\n"
                    + "\n".join(TEXT[(k + j) % len(TEXT)] for j in range(40)))
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


class _AsSigned(EmailMessage):
    """A signed mail, sent byte for byte as it was signed: written out again, its headers could be
    folded otherwise and its signature broken."""

    raw = b""

    def as_bytes(self, unixfrom: bool = False, policy: object = None) -> bytes:
        return self.raw


def _signed(msg: EmailMessage, domain: str, key: bytes) -> EmailMessage:
    """`msg` (CRLF line ends) with a DKIM signature of `domain`, selector s1, made with `key`."""
    raw = sign(msg.as_bytes(), domain, "s1", key)
    out = BytesParser(_class=_AsSigned, policy=SMTP).parsebytes(raw)
    assert isinstance(out, _AsSigned)
    out.raw = raw
    return out


def _unpublished_key() -> bytes:
    """A DKIM private key (PEM) whose public half no DNS server publishes: a forger's own."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL,
                             serialization.NoEncryption())


def _mail(sender: str, subject: str, message_id: str, body: str) -> EmailMessage:
    msg = EmailMessage(policy=SMTP)  # CRLF line ends, as a mail program sends (and signs) them
    msg["From"] = sender
    msg["To"] = GM
    msg["Subject"] = subject
    msg["Message-ID"] = message_id
    msg.set_content(body + "\n")
    return msg


def _forged(joins: int, observes: int, tag: str) -> list[EmailMessage]:
    """The forger at scale: `joins` forged JOINs of the forming game (each power in turn) and
    `observes` forged OBSERVEs of it, spread evenly among them, each from a fresh address, at
    FORGED_DOMAINS domains that publish nothing; one in FORGED_SIGNED signed by its From domain
    with a key nobody publishes."""
    key = _unpublished_key() if joins + observes else b""
    kinds = _interleaved(["join"] * joins, ["observe"] * observes)  # type: ignore[list-item]
    out = []
    for i, kind in enumerate(kinds):
        domain = f"forged{i % FORGED_DOMAINS}.example"
        sender = f"reader{i}@{domain}"
        body = (f"JOIN {FORMING} {GREAT_POWERS[i % len(GREAT_POWERS)]} fpw{i}" if kind == "join"
                else f"OBSERVE {FORMING}")
        msg = _mail(sender, f"forged {kind} {i}", f"<forged-{tag}-{i}@{domain}>", body)
        out.append(_signed(msg, domain, key) if i % FORGED_SIGNED == FORGED_SIGNED - 1 else msg)
    return out


def _newcomers(tag: str, key: bytes) -> tuple[list[EmailMessage], list[EmailMessage]]:
    """The newcomers' JOINs of the forming game: those signed by SIGNED_DOMAIN (with `key`, the
    private half of the key it publishes), and the unsigned ones."""
    signed, unsigned = [], []
    for address, (power, password) in NEWCOMERS.items():
        domain = address.rpartition("@")[2]
        msg = _mail(address, f"join {FORMING}", f"<join-{tag}-{address.partition('@')[0]}@{domain}>",
                    f"JOIN {FORMING} {power} {password}")
        if domain == SIGNED_DOMAIN:
            signed.append(_signed(msg, domain, key))
        else:
            unsigned.append(msg)
    return signed, unsigned


def _with_newcomers(flood: list[EmailMessage], signed: list[EmailMessage], unsigned: list[EmailMessage],
                    unsigned_at: float) -> list[EmailMessage]:
    """The flood with the signed JOINs spread evenly through it and the unsigned ones together at
    the fraction `unsigned_at` of it (0: as it begins)."""
    places = [(round((j + 0.5) / len(signed) * len(flood)), j, m) for j, m in enumerate(signed)]
    places += [(round(unsigned_at * len(flood)), len(signed) + j, m) for j, m in enumerate(unsigned)]
    out = list(flood)
    for place, _, mail in sorted(places, key=lambda p: (p[0], p[1]), reverse=True):
        out.insert(place, mail)
    return out


class _Confirmer(threading.Thread):
    """What an unsigned newcomer does: reads the code mail once the judge has sent it (the outbox
    row marked sent), and answers `CONFIRM <code>` over SMTP, as a reply to it."""

    def __init__(self, engine: Engine, port: int, addresses: list[str], tag: str) -> None:
        super().__init__(daemon=True)
        self.engine, self.port, self.tag = engine, port, tag
        self.waiting = set(addresses)
        self.code_sent: dict[str, float] = {}  # address -> when its code mail left the judge
        self.confirms: dict[str, str] = {}  # address -> the Message-ID of its CONFIRM mail
        self.done = threading.Event()
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            while self.waiting and not self.done.is_set():
                with Session(self.engine) as s:
                    found = s.execute(
                        select(OutboundMail.to_addr, OutboundMail.subject, OutboundMail.message_id,
                               OutboundMail.sent_at)
                        .where(OutboundMail.kind == "confirm", OutboundMail.to_addr.in_(self.waiting),
                               OutboundMail.sent_at.is_not(None))).all()
                for to, subject, code_mail, sent_at in found:
                    if to not in self.waiting:
                        continue
                    code = code_in_subject(subject)
                    assert code is not None, subject
                    domain = to.rpartition("@")[2]
                    msg = _mail(to, f"Re: {subject}", f"<confirm-{self.tag}-{to.partition('@')[0]}@{domain}>",
                                f"CONFIRM {code}")
                    msg["In-Reply-To"] = code_mail
                    with smtplib.SMTP("127.0.0.1", self.port, timeout=60) as smtp:
                        smtp.sendmail(to, [GM], msg.as_bytes())
                    self.code_sent[to] = sent_at.timestamp()
                    self.confirms[to] = msg["Message-ID"]
                    self.waiting.discard(to)
                self.done.wait(0.5)
        except BaseException as e:  # told by the main thread
            self.error = e


def _joins_without_codes(engine: Engine, join_ids: dict[str, str], addresses: set[str]) -> set[str]:
    """Of `addresses`, those whose JOIN (Message-ID in `join_ids`) the judge has taken in without
    queuing a code mail for them: no code is coming."""
    with Session(engine) as s:
        taken = set(s.scalars(select(InboundMail.message_id).where(
            InboundMail.message_id.in_([join_ids[a] for a in addresses]))))
        coded = set(s.scalars(select(OutboundMail.to_addr).where(
            OutboundMail.kind == "confirm", OutboundMail.to_addr.in_(addresses))))
    return {a for a in addresses if join_ids[a] in taken and a not in coded}


def _most_in_an_hour(times: list[float]) -> int:
    """The most of `times` (seconds) within any hour."""
    times = sorted(times)
    most, first = 0, 0
    for last, t in enumerate(times):
        while t - times[first] >= WINDOW.total_seconds():
            first += 1
        most = max(most, last - first + 1)
    return most


def _forgery_check(engine: Engine, relay: TimedRelay, join_ids: dict[str, str],
                   confirmer: _Confirmer) -> dict[str, object]:
    """What became of the newcomers and of the forged requests, read in the database: who plays,
    the mail to addresses that proved nothing (against gm.mail.budget's bounds), the forged
    requests' codes, the observers, and what failed."""
    with Session(engine) as s:
        game = s.scalar(select(Game).where(Game.name == FORMING))
        assert game is not None
        players = {p.email: p for p in s.scalars(
            select(Player).where(Player.game_id == game.id, Player.left_at.is_(None)))}
        unproven = s.execute(
            select(OutboundMail.to_addr, OutboundMail.kind, OutboundMail.game_id, OutboundMail.created_at)
            .where(OutboundMail.unproven.is_(True))).all()
        observers = s.scalar(select(func.count()).select_from(Observer).where(Observer.game_id == game.id)) or 0
        waiting = s.execute(select(Confirmation.kind, Confirmation.password_hash.is_not(None), func.count())
                            .where(Confirmation.game_id == game.id, Confirmation.address.not_in(list(NEWCOMERS)))
                            .group_by(Confirmation.kind, Confirmation.password_hash.is_not(None))).all()
        taken_at = dict(s.execute(  # the newcomers' JOINs and CONFIRMs: when their batches began
            select(InboundMail.message_id, InboundMail.processed_at)
            .where(InboundMail.message_id.in_([*join_ids.values(), *confirmer.confirms.values()]))).all())
        status = str(game.status)
    newcomers = []
    for address, (power, _) in NEWCOMERS.items():
        player = players.get(address)
        arrived = relay.arrived.get(join_ids[address])  # its JOIN, in the GM's mailbox
        confirm_id = confirmer.confirms.get(address)
        newcomers.append({
            "address": address, "power": power, "signed": address.endswith("@" + SIGNED_DOMAIN),
            "plays": player is not None and player.power == power,
            "join_taken_s": _since(taken_at.get(join_ids[address]), arrived),
            "code_sent_s": _since(confirmer.code_sent.get(address), arrived),
            "confirm_taken_s": _since(taken_at.get(confirm_id) if confirm_id else None, arrived),
            "playing_s": _since(player.created_at if player is not None else None, arrived),
        })
    codes = [(to, game_id, t.timestamp()) for to, kind, game_id, t in unproven if kind == "confirm"]
    forged_codes = [to for to, g, _ in codes if g == game.id and to not in NEWCOMERS]
    by_domain: dict[str, list[float]] = {}
    for to, _, _, t in unproven:
        by_domain.setdefault(to.rpartition("@")[2], []).append(t.timestamp())
    out: dict[str, object] = {
        "newcomers": newcomers,
        "game_status": status,
        "others_playing": sorted(a for a in players if a not in NEWCOMERS),
        "unproven": len(unproven),
        "unproven_hour": _most_in_an_hour([t.timestamp() for *_, t in unproven]),
        "unproven_kinds": dict(Counter(kind for _, kind, _, _ in unproven)),
        "domain_hour": max((_most_in_an_hour(ts) for ts in by_domain.values()), default=0),
        "game_codes_hour": _most_in_an_hour([t for _, g, t in codes if g == game.id]),
        "forged_codes": len(forged_codes),
        "forged_code_domains": len({to.rpartition("@")[2] for to in forged_codes}),
        "observers": observers,
        "waiting": {f"{kind}{' (hashed)' if hashed else ''}": n for kind, hashed, n in waiting},
    }
    failures = [f"{n['address']} does not play {n['power']}" for n in newcomers if not n["plays"]]
    if out["others_playing"]:
        failures.append(f"forged addresses play: {out['others_playing']}")
    if observers:
        failures.append(f"{observers} forged addresses observe {FORMING}")
    for label, found, bound in (("to addresses that proved nothing", out["unproven_hour"], UNPROVEN_PER_HOUR),
                                ("to one domain", out["domain_hour"], UNPROVEN_PER_DOMAIN),
                                (f"codes for {FORMING}", out["game_codes_hour"], UNPROVEN_PER_GAME)):
        if found > bound:  # type: ignore[operator]
            failures.append(f"{found} mails {label} in an hour, over the bound of {bound}")
    if any(hashed for _, hashed, _ in waiting):
        failures.append("a forged request's password was hashed")
    out["failures"] = failures
    return out


def _since(when: datetime | float | None, start: float | None) -> float | None:
    if when is None or start is None:
        return None
    return (when.timestamp() if isinstance(when, datetime) else when) - start


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


def run_one(db: str, hostile_n: int, real_n: int, forged: tuple[int, int], unsigned_at: float,
            dovecot_binary: str) -> list[dict[str, object]]:
    """The baseline (the real mails alone), then the flood (the same number of real mails among
    the hostile ones, the forged JOINs and OBSERVEs, and the newcomers' JOINs and CONFIRMs), on one
    database and one `gm serve`."""
    with ExitStack() as stack:
        work = Path(tempfile.mkdtemp(prefix="gmflood", dir="/tmp"))
        url = (f"sqlite:///{work}/gm.sqlite3" if db == "sqlite"
               else stack.enter_context(dbtests.postgres_server(dbtests._pg_bin())))
        dovecot = stack.enter_context(contextmanager(mailtests._dovecot)(dovecot_binary, None))
        front = mailtests.SmtpFront(TimedRelay(dovecot.lmtp_port))
        front.start()
        stack.callback(front.stop)
        relay = front.relay
        # The DNS the judge asks: SIGNED_DOMAIN's key and policies; every other name is NXDOMAIN.
        zone = Zone()
        zone.start()
        stack.callback(zone.stop)
        key = publish_dkim(zone, SIGNED_DOMAIN)
        publish_spf(zone, SIGNED_DOMAIN)
        publish_dmarc(zone, SIGNED_DOMAIN)
        # The judge's secret key, which `gm serve` reads from its data folder, made here first: the
        # players' and GMs' hashes below carry their quick checks under it, as if the judge had
        # made them (under another key every sign-on would pay the slow hash, and rehash).
        judge_key.load(work / judge_key.FILE_NAME)
        _setup_flood(url)
        engine = make_engine(url)
        stack.callback(engine.dispose)
        server = mailtests.start_gm_serve(url, dovecot, front, work, GM_DNS_SERVER=zone.address)
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
            hostile = _interleaved(_hostile(hostile_n, stamp), _forged(*forged, stamp)) if run == "flood" else []
            mails = _interleaved(hostile, real) if hostile else real
            confirmer: _Confirmer | None = None
            join_ids: dict[str, str] = {}
            if run == "flood":
                signed, unsigned = _newcomers(stamp, key)
                mails = _with_newcomers(mails, signed, unsigned, unsigned_at)
                join_ids = {m["From"]: m["Message-ID"] for m in [*signed, *unsigned]}
                confirmer = _Confirmer(engine, front.port, [m["From"] for m in unsigned], stamp)
                confirmer.start()
            with Session(engine) as s:
                before = s.scalar(select(func.max(InboundMail.id))) or 0
            print(f"  {db} {run}: sending {len(real)} real and {len(hostile)} hostile mails"
                  + (f", and the {len(NEWCOMERS)} newcomers' JOINs" if join_ids else ""), flush=True)
            _send(front.port, mails, SENDERS)
            sent += len(mails)
            taken = _taken_in(engine, sent, server)
            if confirmer is not None:  # the codes still coming, and the CONFIRMs answering them
                deadline = time.monotonic() + CONFIRM_WAIT_S
                while confirmer.error is None and time.monotonic() < deadline and server.poll() is None:
                    waiting = set(confirmer.waiting)  # a code that will never come is not waited for
                    if not waiting - _joins_without_codes(engine, join_ids, waiting):
                        break
                    time.sleep(0.5)
                confirmer.done.set()
                confirmer.join(60)
                if confirmer.error is not None:
                    print(f"  the newcomers' CONFIRMs: {type(confirmer.error).__name__}: {confirmer.error}", flush=True)
                sent += len(confirmer.confirms)
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
            if confirmer is not None:
                result["forgery"] = _forgery_check(engine, relay, join_ids, confirmer)
            results.append(result)
            if server.poll() is not None:
                print(f"  gm serve exited with {server.returncode} during the {run}", flush=True)
                break
        for result in results:
            result["log"] = work / "serve.log"
            result["findings"] = _log_findings(work / "serve.log")
        return results


def split(hostile_n: int, real_n: int, forged: tuple[int, int], unsigned_at: float) -> None:
    """ingest_batch alone (SQLite, no mail servers, cProfile on) on the flood's mails in the
    watcher's batches, then the unsigned newcomers' CONFIRMs: milliseconds a mail, and how much of
    it goes where (SPLIT; among them, every Argon2 hash made)."""
    url = f"sqlite:///{tempfile.mkdtemp(prefix='gmflood', dir='/tmp')}/gm.sqlite3"
    _setup_flood(url)
    zone = Zone()
    zone.start()
    key = publish_dkim(zone, SIGNED_DOMAIN)
    publish_spf(zone, SIGNED_DOMAIN)
    publish_dmarc(zone, SIGNED_DOMAIN)
    gm.mail.intake.dns.configure(zone.address)
    try:
        engine = make_engine(url)
        session_factory = make_session_factory(engine)
        verifier = PasswordVerifier()
        ingest_batch(session_factory, [Fetched(None, m.as_bytes()) for m in _mails(len(PLAYERS), "warm")],
                     gm_address=GM, verifier=verifier)
        signed, unsigned = _newcomers("split", key)
        flood = _interleaved(_interleaved(_hostile(hostile_n, "split"), _forged(*forged, "split")),
                             _real_mails(real_n, "split"))
        mails = [Fetched(None, m.as_bytes()) for m in _with_newcomers(flood, signed, unsigned, unsigned_at)]
        profile = cProfile.Profile()
        start = time.perf_counter()
        profile.enable()
        for i in range(0, len(mails), BATCH_MAILS):
            ingest_batch(session_factory, mails[i:i + BATCH_MAILS], gm_address=GM, verifier=verifier)
        with Session(engine) as s:  # the code mails, as the unsigned newcomers read them
            codes = s.execute(select(OutboundMail.to_addr, OutboundMail.subject).where(
                OutboundMail.kind == "confirm", OutboundMail.to_addr.in_([m["From"] for m in unsigned]))).all()
        confirms = [Fetched(None, _mail(to, f"Re: {subject}", f"<confirm-split-{j}@{UNSIGNED_DOMAIN}>",
                                        f"CONFIRM {code_in_subject(subject)}").as_bytes())
                    for j, (to, subject) in enumerate(codes)]
        if confirms:
            ingest_batch(session_factory, confirms, gm_address=GM, verifier=verifier)
        profile.disable()
        seconds = time.perf_counter() - start
        with Session(engine) as s:
            playing = s.scalar(select(func.count()).select_from(Player).join(Game, Player.game_id == Game.id).where(
                Game.name == FORMING, Player.email.in_(list(NEWCOMERS)), Player.left_at.is_(None)))
    finally:
        gm.mail.intake.dns.configure(None)
        zone.stop()
    total = len(mails) + len(confirms)
    print(f"ingest_batch alone, SQLite, under cProfile: {total} mails in {seconds:.1f} s, "
          f"{seconds / total * 1000:.1f} ms a mail; newcomers playing: {playing} of {len(NEWCOMERS)}")
    cumulative = pstats.Stats(profile).stats  # type: ignore[attr-defined]
    for label, (path, function) in SPLIT.items():
        found = [(nc, ct) for (file, _, name), (_, nc, _, ct, _) in cumulative.items()
                 if file.endswith(path) and name == function]
        calls, spent = sum(nc for nc, _ in found), sum(ct for _, ct in found)
        print(f"  {label:<40}{spent:>8.1f} s{spent / seconds:>6.0%}{calls:>8} calls")


def _shown(rate: float) -> str:
    return "-" if math.isnan(rate) else f"{rate:.1f}"


def _seconds(value: object) -> str:
    return "-" if value is None else f"{value:.1f} s"


def _forgery_report(db: str, forgery: dict[str, object]) -> None:
    """What became of each newcomer, and the mail to addresses that proved nothing, against its bounds."""
    print(f"newcomers ({db}): {FORMING} is {forgery['game_status']}; from each JOIN's arrival in the GM's mailbox:")
    for n in forgery["newcomers"]:  # type: ignore[attr-defined]
        how = (f"JOIN taken in after {_seconds(n['join_taken_s'])}" if n["signed"] else
               f"JOIN taken in after {_seconds(n['join_taken_s'])}, code mail sent after {_seconds(n['code_sent_s'])}, "
               f"CONFIRM taken in after {_seconds(n['confirm_taken_s'])}")
        plays = f"plays after {_seconds(n['playing_s'])}" if n["plays"] else "DOES NOT PLAY"
        print(f"  {n['address']:<30}{n['power']:<16}{'signed' if n['signed'] else 'unsigned':<10}{plays}; {how}")
    kinds = ", ".join(f"{kind} {n}" for kind, n in sorted(forgery["unproven_kinds"].items()))  # type: ignore[attr-defined]
    waiting = ", ".join(f"{kind} {n}" for kind, n in sorted(forgery["waiting"].items()))  # type: ignore[attr-defined]
    print(f"mail to addresses that proved nothing ({db}): {forgery['unproven']} in all ({kinds or 'none'}); "
          f"the most in an hour {forgery['unproven_hour']} (bound {UNPROVEN_PER_HOUR}), to one domain "
          f"{forgery['domain_hour']} (bound {UNPROVEN_PER_DOMAIN}), codes for {FORMING} {forgery['game_codes_hour']} "
          f"(bound {UNPROVEN_PER_GAME}), of them to forged addresses {forgery['forged_codes']} "
          f"(at {forgery['forged_code_domains']} domains)")
    others = forgery["others_playing"]
    print(f"forged requests ({db}): waiting for codes: {waiting or 'none'} (passwords sealed, none hashed unless "
          f"said); forged addresses playing: {len(others)}, observing: {forgery['observers']}")  # type: ignore[arg-type]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hostile", type=int, default=10_000)
    ap.add_argument("--real", type=int, default=1000)
    ap.add_argument("--forged-joins", type=int, default=2000, metavar="N",
                    help=f"forged JOINs of the forming game from fresh addresses at {FORGED_DOMAINS} domains (2000)")
    ap.add_argument("--forged-observes", type=int, default=500, metavar="N",
                    help="forged OBSERVEs of it, likewise (500)")
    ap.add_argument("--unsigned-joins-at", type=float, default=0.0, metavar="F",
                    help="where in the flood the unsigned newcomers' JOINs come, 0 (its start, the default) to 1")
    ap.add_argument("--db", choices=("sqlite", "postgresql", "both"), default="both")
    ap.add_argument("--split", action="store_true", help="instead: ingest_batch alone on the same mails, under cProfile")
    args = ap.parse_args(argv)
    players = len(PLAYERS) - len(FLOODERS)
    # A player's acknowledgements an hour: the warm-up's, then the baseline's and the flood's.
    most = (REPLIES_PER_HOUR - 2) // 2 * players
    if not 0 < args.real <= most:
        raise SystemExit(f"--real: 1 to {most} ({players} players, {REPLIES_PER_HOUR} acknowledgements an hour each)")
    if args.forged_joins < 0 or args.forged_observes < 0 or not 0 <= args.unsigned_joins_at <= 1:
        raise SystemExit("--forged-joins and --forged-observes: 0 or more; --unsigned-joins-at: 0 to 1")
    forged = (args.forged_joins, args.forged_observes)
    if args.split:
        split(args.hostile, args.real, forged, args.unsigned_joins_at)
        return 0
    binary = mailtests._find_dovecot()
    if binary is None:
        raise SystemExit("Dovecot is not installed: run scripts/setup test")
    dbs = ["sqlite", "postgresql"] if args.db == "both" else [args.db]
    print(f"gm flood benchmark: {args.real} real order mails from {players} players among {args.hostile} hostile "
          f"mails and {sum(forged)} forged JOINs and OBSERVEs of {FORMING}, over {SENDERS} SMTP connections -> Dovecot "
          f"-> gm serve (IDLE); baseline: the real mails alone; {len(NEWCOMERS)} newcomers JOIN {FORMING} in the "
          f"flood (signed ones spread through it, unsigned ones at {args.unsigned_joins_at:.0%} of it)")
    results = [r for db in dbs for r in run_one(db, args.hostile, args.real, forged, args.unsigned_joins_at, binary)]
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
        forgery = flood["forgery"]
        _forgery_report(db, forgery)  # type: ignore[arg-type]
        failures = forgery["failures"]  # type: ignore[index]
        failed = failed or bool(failures)
        playing = sum(1 for n in forgery["newcomers"] if n["plays"])  # type: ignore[index]
        print(f"targets ({db}): real p95 < 2 s in the flood: {'PASS' if flood['p95'] < 2 else 'FAIL'} "
              f"({flood['p95']:.2f} s, {base['p95']:.2f} s without it); every real order on file: "
              f"{'PASS' if not flood['missing'] and not base['missing'] else 'FAIL'} "
              f"({flood['on_file']} of {3 * min(args.real, players)} orders); every newcomer plays: "
              f"{'PASS' if playing == len(NEWCOMERS) else 'FAIL'} ({playing} of {len(NEWCOMERS)}); mail to addresses "
              f"that proved nothing within its bounds: {'FAIL' if any('bound' in f for f in failures) else 'PASS'}")
        for failure in failures:
            print(f"  FAIL: {failure}")
        findings = flood["findings"]
        print(f"gm serve's log ({db}, {flood['log']}): {len(findings['errors'])} errors, "  # type: ignore[index]
              f"{len(findings['tracebacks'])} tracebacks, {len(findings['redone'])} batches done again mail by mail")
        for line in itertools.islice(itertools.chain(findings["errors"], findings["redone"]), 5):  # type: ignore[index]
            print(f"  {line[:200]}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
