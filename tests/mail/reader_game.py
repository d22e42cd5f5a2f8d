"""A whole game of any variant played by mail in process (each mail through the judge's own intake,
the deadline scheduler adjudicating), ended in a draw by the GM and every player's ACCEPT DRAW;
then every mail the judge queued, as each reader got it. For the tests that read the judge's mail
as its readers do (tests/mail/test_reader_first.py)."""
from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from email.message import EmailMessage

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import add_master, create_game, current_phase, find_game
from gm.lifecycle import phases
from gm.lifecycle.house_rules import OPTION_KEY, HouseRules, with_changes
from gm.mail.ingest import ingest
from gm.mail.outgoing.game_mail import queue_start
from gm.randomgame import RandomPlayers
from gm.scheduler import run_due
from gm.store.db import transaction
from gm.store.models import GamePhase, OutboundMail, Player, utcnow
from gm.store.passwords import PasswordVerifier, hash_password
from gm.variants import load_variant

GM = "gm@example.org"
MASTER = "master@example.org"
GAME = "g1"


def address(power: str) -> str:
    return f"{power.lower().replace(' ', '-')}@players.example"


@dataclass
class Mail:
    kind: str
    subject: str
    text: str
    html: str | None
    attachments: list[dict] = field(default_factory=list)


@dataclass
class Played:
    variant: str
    powers: list[str]
    mail: dict[str, list[Mail]]  # address -> the mails it got, in order
    orders: set[str]  # every order and allocation of the game, as its results name them
    sent: list[str] = field(default_factory=list)  # the body of every mail sent to the judge


def _mail(sender: str, body: str, n: int, subject: str = "orders") -> bytes:
    m = EmailMessage()
    m["From"] = sender
    m["To"] = GM
    m["Subject"] = subject
    m["Message-ID"] = f"<reader-{n}@players.example>"
    m.set_content(body)
    return m.as_bytes()


def play(session_factory: sessionmaker[Session], variant_name: str, *, phase_count: int, seed: int = 20261201,
         languages: dict[str, str] | None = None, spell: Callable[[str, str], str] | None = None,
         subjects: dict[str, str] | None = None, **rules: str) -> Played:
    """`phase_count` phases of `variant_name`, every great power ordering by mail (random legal
    orders, the variant's special orders among them), then a draw of every power the GM names.

    `languages`: the language each power (or MASTER, the GM) chooses by mail before the game
    starts (SET LANGUAGE); its orders are then written by `spell(order, language)`, under the
    subject `subjects` gives the language."""
    variant = load_variant(variant_name)
    languages = languages or {}
    spell = spell or (lambda order, language: order)
    with transaction(session_factory) as s:
        game = create_game(s, GAME, variant_name)
        game.options = {OPTION_KEY: with_changes(HouseRules(), {"timezone": "Europe/London", **rules}).to_options()}
        add_master(s, game, MASTER, hash_password("gm-pw"))
        for power in variant.great_powers:
            s.add(Player(game_id=game.id, power=power, email=address(power), password_hash=hash_password("pw")))
    verifier = PasswordVerifier()
    n = 0

    sent: list[str] = []

    def send(sender: str, body: str, language: str = "en") -> None:
        nonlocal n
        n += 1
        sent.append(body)
        ingest(session_factory, _mail(sender, body, n, (subjects or {}).get(language, "orders")), gm_address=GM,
               verifier=verifier)

    for who, language in languages.items():
        if who == MASTER:
            send(MASTER, f"SIGNON MASTER {GAME} gm-pw\nSET LANGUAGE {language}", language)
        else:
            send(address(who), f"SIGNON {who} {GAME} pw\nSET LANGUAGE {language}", language)
    with transaction(session_factory) as s:
        game = find_game(s, GAME)
        assert game is not None
        phases.start(s, game, utcnow())
        queue_start(s, game, gm_address=GM, gm_addresses=[MASTER], now=utcnow())
    players = RandomPlayers(variant, random.Random(seed))
    now = utcnow()

    powers = list(variant.great_powers)
    for _ in range(phase_count):
        with transaction(session_factory) as s:
            game = find_game(s, GAME)
            assert game is not None
            current = current_phase(s, game)
            if current is None:
                break
            state, deadline = current.state, game.deadline_at
            powers = variant.rules.major_powers(variant, state)
        orders = players.orders(state)
        for power in powers:
            language = languages.get(power, "en")
            lines = [spell(str(o), language) for o in orders if o.power == power]
            if lines:
                send(address(power), "\n".join([f"SIGNON {power} {GAME} pw", *lines]), language)
        assert deadline is not None
        now = max(now, deadline) + timedelta(seconds=1)
        run_due(session_factory, gm_address=GM, now=now)
    with transaction(session_factory) as s:
        game = find_game(s, GAME)
        assert game is not None
        playing = {p.power: p.email for p in s.scalars(select(Player).where(Player.game_id == game.id))
                   if p.power and p.left_at is None}
    send(MASTER, "\n".join([f"SIGNON MASTER {GAME} gm-pw", "PAUSE", f"DRAW {', '.join(playing)}"]),
         languages.get(MASTER, "en"))
    for power, to in playing.items():
        send(to, f"SIGNON {power} {GAME} pw\nACCEPT DRAW", languages.get(power, "en"))
    with transaction(session_factory) as s:
        rows = s.scalars(select(OutboundMail).order_by(OutboundMail.id)).all()
        got: dict[str, list[Mail]] = {}
        for row in rows:
            got.setdefault(row.to_addr, []).append(
                Mail(row.kind, row.subject, row.body_text, row.body_html, list(row.attachments or [])))
        orders = {e["order"] for report in s.scalars(select(GamePhase.results_json).where(GamePhase.game_id == game.id))
                  if report for key in ("orders", "secret") for e in report.get(key, [])}
    return Played(variant_name, list(playing), got, orders, sent)
