"""Secret allocations stay secret: a seeded Ambition & Empire game of several years, every power
allocating DPs by mail each Spring and Fall, the deadline scheduler adjudicating; then every mail
the judge queued is read. Only a power's own mail (its acknowledgements, its results) may show its
own allocations, and only the GM's copies show everyone's: no other mail names an allocation, a
point figure, or which power put points behind a minor power's order."""
from __future__ import annotations

import random
import re
from collections.abc import Sequence
from datetime import timedelta
from email.message import EmailMessage
from html import unescape

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from gm.engine.model import PhaseKind
from gm.engine.variant import Variant
from gm.games import add_master, create_game, current_phase, find_game
from gm.lifecycle import phases
from gm.lifecycle.house_rules import OPTION_KEY, HouseRules
from gm.mail.outgoing.game_mail import queue_start
from gm.mail.ingest import ingest
from gm.randomgame import RandomPlayers
from gm.scheduler import run_due
from gm.store.db import transaction
from gm.store.models import Observer, OutboundMail, Player, SecretAllocation, utcnow
from gm.store.passwords import PasswordVerifier, hash_password
from gm.variants import load_variant

GM = "gm@example.org"
MASTER = "master@example.org"
OBSERVER = "observer@elsewhere.example"
YEARS = 3
# An allocation as a mail could show it: 'DP 2 A TUS H', 'DP 1 F ION S A TUN - NAP'.
ALLOCATION = re.compile(r"\bDP\s*\d+\s+[AF?]\s+[A-Z]{3}[^\n<]*")


def _mail(sender: str, body: str, n: int) -> bytes:
    m = EmailMessage()
    m["From"] = sender
    m["To"] = GM
    m["Subject"] = "orders"
    m["Message-ID"] = f"<secrecy-{n}@example.org>"
    m.set_content(body)
    return m.as_bytes()


def _text(row: OutboundMail) -> str:
    html = re.sub(r"<[^>]+>", " ", unescape(row.body_html or ""))
    return f"{row.subject}\n{row.body_text}\n{html}"


def test_no_mail_reveals_another_powers_allocations(session_factory: sessionmaker[Session]) -> None:
    variant = load_variant("ambition")
    secret = hash_password("pw")
    with transaction(session_factory) as s:
        game = create_game(s, "secrets", "ambition")
        game.options = {OPTION_KEY: HouseRules().to_options()}
        add_master(s, game, MASTER, None)
        for power in variant.great_powers:
            s.add(Player(game_id=game.id, power=power, email=f"{power.lower().replace(' ', '-')}@example.org", password_hash=secret))
        s.add(Observer(game_id=game.id, email=OBSERVER))  # OBSERVE: the results as a reader of no power
        s.flush()
        phases.start(s, game, utcnow())
        queue_start(s, game, gm_address=GM, gm_addresses=[MASTER], now=utcnow())
    address = {f"{p.lower().replace(' ', '-')}@example.org": p for p in variant.great_powers}
    players = RandomPlayers(variant, random.Random(20261125))
    verifier = PasswordVerifier()
    n = 0
    now = utcnow()
    for _ in range(YEARS * 5):
        with transaction(session_factory) as s:
            game = find_game(s, "secrets")
            assert game is not None
            current = current_phase(s, game)
            if current is None:
                break
            state, deadline = current.state, game.deadline_at
        for power in variant.great_powers:
            lines = [str(o) for o in players.orders(state) if o.power == power]
            if lines:
                n += 1
                body = "\n".join([f"SIGNON {power} secrets pw", *lines])
                ingest(session_factory, _mail(f"{power.lower().replace(' ', '-')}@example.org", body, n), gm_address=GM, verifier=verifier)
        assert deadline is not None
        now = max(now, deadline) + timedelta(seconds=1)
        run_due(session_factory, gm_address=GM, now=now)

    with transaction(session_factory) as s:
        rows = s.execute(select(SecretAllocation.power, SecretAllocation.canonical, SecretAllocation.text)).all()
        allocations = [(p, shown) for p, canonical, text in rows for shown in (canonical, text)]  # kept, and as written
        mails = s.scalars(select(OutboundMail)).all()
    kinds = {m.kind for m in mails}
    assert {"ack", "results", "start"} <= kinds
    gm_copies = [m for m in mails if m.to_addr == MASTER]
    assert gm_copies and any(ALLOCATION.search(_text(m)) for m in gm_copies)  # the check can see them
    watched = [m for m in mails if m.to_addr == OBSERVER]
    assert any(m.kind == "results" for m in watched)
    assert not any(ALLOCATION.search(_text(m)) for m in watched), "an observer reads no allocation"
    assert_no_leaks(variant, allocations, [m for m in mails if m.to_addr != OBSERVER], address, MASTER)
    assert any(m.kind == "results" and PhaseKind.MOVEMENT.value in m.body_text for m in mails)


def assert_no_leaks(variant: Variant, allocations: Sequence[tuple[str, str]], mails: Sequence[OutboundMail],
                    address: dict[str, str], master: str) -> None:
    """No mail to a player shows an allocation not its own, or names another power beside points;
    and the players' own mail did show their own (the check can see them). `address`: each
    player's address -> power; mail to `master` (the GM) is not checked."""
    assert len({power for power, _ in allocations}) >= 5, "the game must have several powers allocating"
    own: dict[str, set[str]] = {}
    for power, canonical in allocations:
        own.setdefault(power, set()).add(" ".join(canonical.split()))
    checked = 0
    for mail in mails:
        if mail.to_addr == master:
            continue
        power = address[mail.to_addr]
        text = _text(mail)
        for shown in ALLOCATION.findall(text):
            shown = " ".join(shown.split())
            assert any(shown.startswith(mine) for mine in own.get(power, ())), \
                f"{mail.kind} mail to {power} shows an allocation not its own: {shown!r}"
            checked += 1
        for other in variant.great_powers:
            if other != power:
                # A power's name next to DPs or points would tell who backed whom.
                assert not re.search(rf"{re.escape(other)}\W+(allocated|\d+\s*DP)", text), (mail.kind, power, other)
    assert checked > 0  # the powers' own mail did show their own allocations
