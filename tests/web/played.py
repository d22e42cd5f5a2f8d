"""A game of Ambition & Empire played by mail (each mail through the judge's own intake, the
deadline scheduler adjudicating) with secret DP allocations, press to one power and broadcast
press; and Debian's Chromium, headless, to look at its pages as a person does. (A module of its
own name: `conftest` is tests/mail's too.)"""
from __future__ import annotations

import random
import shutil
import subprocess
from dataclasses import dataclass, field
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import add_master, create_game, current_phase, find_game
from gm.lifecycle import phases
from gm.lifecycle.house_rules import OPTION_KEY, HouseRules, with_changes
from gm.mail.outgoing.game_mail import queue_start
from gm.mail.ingest import ingest
from gm.randomgame import RandomPlayers
from gm.scheduler import run_due
from gm.store.db import transaction
from gm.store.models import Player, SecretAllocation, utcnow
from gm.store.passwords import PasswordVerifier, hash_password
from gm.variants import load_variant
from tests.mail.reader_game import address

GM = "gm@example.org"
MASTER = "master@example.org"
GAME = "ae"
PUBLIC_URL = "https://games.example.org/gm"
BROADCAST = "Peace in our time, says the Emperor"
PRIVATE_PRESS = "Meet me behind the Alps at midnight"


@dataclass
class Played:
    """The game played: the allocations made (as kept and as written) and the players' addresses."""

    allocations: list[str] = field(default_factory=list)
    addresses: list[str] = field(default_factory=list)
    phases: int = 0


def _mail(sender: str, body: str, n: int) -> bytes:
    m = EmailMessage()
    m["From"] = sender
    m["To"] = GM
    m["Subject"] = "orders"
    m["Message-ID"] = f"<pages-{n}@players.example>"
    m.set_content(body)
    return m.as_bytes()


def play(session_factory: sessionmaker[Session], *, phase_count: int = 6, seed: int = 20261127,
         last_year: int | None = None) -> Played:
    """An A&E game by mail: every great power orders (random legal orders, DP allocations among
    them) each phase; the first power broadcasts press and sends press to one other power. With
    `last_year` (the house rule), the game ends once that year is played."""
    variant = load_variant("ambition")
    secret = hash_password("pw")
    with transaction(session_factory) as s:
        game = create_game(s, GAME, "ambition")
        rules = with_changes(HouseRules(), {"pages_press": "broadcast", "last_year": last_year})
        game.options = {OPTION_KEY: rules.to_options()}
        add_master(s, game, MASTER, None)
        for power in variant.great_powers:
            s.add(Player(game_id=game.id, power=power, email=address(power), password_hash=secret))
        s.flush()
        phases.start(s, game, utcnow())
        queue_start(s, game, gm_address=GM, gm_addresses=[MASTER], now=utcnow())
    first, second = variant.great_powers[:2]
    verifier = PasswordVerifier()
    n = 1
    ingest(session_factory, _mail(address(first), "\n".join([
        f"SIGNON {first} {GAME} pw", "BROADCAST", BROADCAST, "ENDPRESS",
        f"PRESS TO {second}", PRIVATE_PRESS, "ENDPRESS"]), n), gm_address=GM, verifier=verifier)
    players = RandomPlayers(variant, random.Random(seed))
    now = utcnow()
    played = Played(addresses=[address(p) for p in variant.great_powers] + [MASTER])
    for _ in range(phase_count):
        with transaction(session_factory) as s:
            game = find_game(s, GAME)
            assert game is not None
            current = current_phase(s, game)
            if current is None:
                break
            state, deadline = current.state, game.deadline_at
        for power in variant.great_powers:
            lines = [str(o) for o in players.orders(state) if o.power == power]
            if lines:
                n += 1
                ingest(session_factory, _mail(address(power), "\n".join([f"SIGNON {power} {GAME} pw", *lines]), n),
                       gm_address=GM, verifier=verifier)
        assert deadline is not None
        now = max(now, deadline) + timedelta(seconds=1)
        run_due(session_factory, gm_address=GM, now=now, public_url=PUBLIC_URL)
        played.phases += 1
    with transaction(session_factory) as s:
        rows = s.execute(select(SecretAllocation.canonical, SecretAllocation.text)).all()
    played.allocations = sorted({shown for row in rows for shown in row})
    return played


# --- Chromium --------------------------------------------------------------------------------------


def find_chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


@dataclass(frozen=True)
class Browser:
    """Debian's Chromium, headless: what a page shows once loaded (its DOM), and a picture of it."""

    binary: str
    profile: Path

    def _run(self, *args: str) -> subprocess.CompletedProcess[str]:
        argv = [self.binary, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                f"--user-data-dir={self.profile}", "--hide-scrollbars", *args]
        return subprocess.run(argv, capture_output=True, text=True, timeout=120, check=True)

    def dom(self, url: str, *, wait_ms: int = 3000) -> str:
        """The page's DOM after it loaded (and its scripts, if any, ran for up to `wait_ms`)."""
        return self._run(f"--virtual-time-budget={wait_ms}", "--dump-dom", url).stdout

    def screenshot(self, url: str, out: Path, *, width: int = 1200, height: int = 1600) -> Path:
        self._run(f"--window-size={width},{height}", f"--screenshot={out}", url)
        return out
