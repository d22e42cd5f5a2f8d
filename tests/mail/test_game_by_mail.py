"""Whole games by mail: `gm serve` on a real IMAP server (Dovecot), a real SMTP server and SQLite
or PostgreSQL; players JOIN (and CONFIRM the code mailed to them), get the start mail, send
orders, and get every phase's results: movement, a retreat, winter builds; phases ending early
once every order is in; missing orders at a deadline, lateness and civil disorder; reminders; an
order written before the phase opened."""
from __future__ import annotations

import asyncio
import email
import email.policy
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime, make_msgid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from sqlalchemy import func, select

from gm.games import create_game, current_phase, find_game
from gm.lifecycle.house_rules import OPTION_KEY, HouseRules, with_changes
from gm.mail.commands.confirmations import code_in_subject
from gm.randomgame import RandomPlayers
from gm.store.db import make_engine, make_session_factory, transaction
from gm.store.models import Game, GamePhase, GameStatus, OutboundMail, Player
from loopback import stop
from gm.variants import load_variant

if TYPE_CHECKING:  # fixtures' types only (see conftest.py)
    from conftest import Dovecot, ReadMailbox, SmtpFront, StartGmServe

DOMAIN = "example.org"
GM = f"gm@{DOMAIN}"


def user_of(i: int) -> str:
    return f"p{i + 1}"


@contextmanager
def serving(gm_serve: StartGmServe, url: str, dovecot: Dovecot, front: SmtpFront, data: Path) -> Iterator[None]:
    server = gm_serve(url, dovecot, front, data)
    try:
        yield
    finally:
        stop(server)


class Table:
    """The players of one game by mail, and what they can see of it."""

    def __init__(self, url: str, front: SmtpFront, dovecot: Dovecot, read_mailbox: ReadMailbox, game: str,
                 variant: str) -> None:
        self.factory = make_session_factory(make_engine(url))
        self.front, self.dovecot, self.read_mailbox = front, dovecot, read_mailbox
        self.game, self.variant = game, load_variant(variant)
        self.powers = self.variant.great_powers
        self.users = {power: user_of(i) for i, power in enumerate(self.powers)}

    async def mail(self, power: str, body: str, *, date: datetime | None = None) -> EmailMessage:
        msg = EmailMessage()
        msg["From"] = f"{self.users[power]}@{DOMAIN}"
        msg["To"] = GM
        msg["Subject"] = f"{self.game} {power}"
        msg["Message-ID"] = make_msgid(domain=DOMAIN)
        if date is not None:
            msg["Date"] = format_datetime(date)
        msg.set_content(body)
        await asyncio.to_thread(self.front.send, msg)
        return msg

    async def join_all(self) -> None:
        """Every power's player JOINs the game by mail, then sends back the code the judge mailed
        to confirm it (CONFIRM), as its subject carries it."""
        for power in self.powers:
            await self.mail(power, f"JOIN {self.game} {power} pw-{self.users[power]}")
        for power in self.powers:
            (asked, *_) = await self.wait_mail(power, lambda m: code_in_subject(str(m["Subject"])) is not None)
            await self.mail(power, f"CONFIRM {code_in_subject(str(asked['Subject']))}")

    async def orders(self, power: str, lines: list[str], **kwargs: Any) -> EmailMessage:
        return await self.mail(power, "\n".join([f"SIGNON {power} {self.game} pw-{self.users[power]}", *lines]), **kwargs)

    async def inbox(self, power: str) -> list[email.message.EmailMessage]:
        stored = await self.read_mailbox(self.dovecot.account(self.users[power]))
        return [email.message_from_bytes(m.raw, policy=email.policy.default) for m in stored]  # type: ignore[misc]

    def phase(self) -> tuple[str, Any]:
        with transaction(self.factory) as s:
            game = find_game(s, self.game)
            assert game is not None
            current = current_phase(s, game)
            return (current.row.label, current.state) if current else ("-", None)

    async def wait_phase(self, label: str, timeout: float = 40) -> Any:
        deadline = time.monotonic() + timeout
        while True:
            now, state = await asyncio.to_thread(self.phase)
            if now == label:
                return state
            assert time.monotonic() < deadline, f"still {now}, not {label}"
            await asyncio.sleep(0.2)

    async def wait_mail(self, power: str, kind: Callable[[email.message.EmailMessage], bool], count: int = 1,
                        timeout: float = 40) -> list[email.message.EmailMessage]:
        deadline = time.monotonic() + timeout
        while True:
            found = [m for m in await self.inbox(power) if kind(m)]
            if len(found) >= count:
                return found
            assert time.monotonic() < deadline, f"{power}: {len(found)} of {count} mails; subjects: " + \
                ", ".join(str(m["Subject"]) for m in await self.inbox(power))
            await asyncio.sleep(0.3)


def text_of(msg: email.message.EmailMessage) -> str:
    part = msg.get_body(preferencelist=("plain",))
    assert part is not None
    return str(part.get_content())


def subject_has(words: str) -> Callable[[email.message.EmailMessage], bool]:
    return lambda m: words in str(m["Subject"])


def results_of(phase: str) -> Callable[[email.message.EmailMessage], bool]:
    """The results mail of `phase`: not a reminder of a phase of that name."""
    return lambda m: phase in str(m["Subject"]) and "Reminder" not in str(m["Subject"])


def new_game(url: str, name: str, variant: str, **rules: str) -> None:
    factory = make_session_factory(make_engine(url))
    with transaction(factory) as s:
        game = create_game(s, name, variant)
        game.options = {OPTION_KEY: with_changes(HouseRules(), rules).to_options()}


SPRING = {
    "France": ["A Paris - Burgundy", "A Marseilles H", "F Brest - Mid-Atlantic Ocean"],
    "Germany": ["A Munich - Ruhr", "A Berlin - Munich", "F Kiel - Holland"],
}
FALL = {
    "France": ["A Burgundy H", "A Marseilles H", "F Mid-Atlantic Ocean - Portugal"],
    "Germany": ["A Ruhr - Burgundy", "A Munich S A Ruhr - Burgundy", "F Holland H"],
}


@pytest.mark.long
async def test_a_game_year_of_standard_diplomacy_by_mail(
    migrated_url: str, dovecot: Dovecot, smtp_front: SmtpFront, read_mailbox: ReadMailbox, gm_serve: StartGmServe,
    tmp_path: Path,
) -> None:
    new_game(migrated_url, "year", "standard", movement="1h", retreat="1h", adjustment="1h")
    t = Table(migrated_url, smtp_front, dovecot, read_mailbox, "year", "standard")
    with serving(gm_serve, migrated_url, dovecot, smtp_front, tmp_path):
        await t.join_all()
        state = await t.wait_phase("Spring 1901, Movement")
        # Every player, not only the last to join, is told the game started: power, position, rules, deadline.
        for power in t.powers:
            (start,) = await t.wait_mail(power, subject_has("starts"))
            body = text_of(start)
            assert f"You play {power}" in body or f"you play {power}" in body.lower(), body
            assert "Deadline" in body or "deadline" in body
            assert "Reminders" in body  # the house rules

        async def everyone(orders: dict[str, list[str]], state: Any) -> None:
            for power in t.powers:
                lines = orders.get(power) or [f"{u} H" for u in state.units_of(power)]
                await t.orders(power, lines)

        await everyone(SPRING, state)
        state = await t.wait_phase("Fall 1901, Movement")  # early: every order was in
        (results,) = await t.wait_mail("Austria", results_of("Spring 1901"))
        body = text_of(results)
        assert "A PAR - BUR" in body and "F KIE - HOL" in body
        assert "House rules: movement 1h, retreats 1h, adjustments 1h" in body
        assert results.get_content_type() == "multipart/alternative"
        assert results["References"] and results["In-Reply-To"]
        # the sender drew both maps, the phase's orders and the position now, shown in the HTML
        maps = [p for p in results.walk() if p.get_content_type() == "image/png"]
        assert [p.get_filename() for p in maps] == ["year-spring-1901-movement.png", "year-fall-1901-position.png"]
        html = results.get_body(preferencelist=("html",))
        assert html is not None and all(f"cid:{p['Content-ID'].strip('<>')}" in html.get_content() for p in maps)
        assert all(p.get_content()[:8] == b"\x89PNG\r\n\x1a\n" for p in maps)

        await everyone(FALL, state)
        state = await t.wait_phase("Fall 1901, Retreat")
        (results,) = await t.wait_mail("France", results_of("Fall 1901"))
        body = text_of(results)
        assert "A BUR" in body and "GAS" in body and "PIC" in body  # dislodged, with its retreats
        await t.orders("France", ["A Burgundy R Gascony"])
        state = await t.wait_phase("Winter 1901, Adjustment")
        await t.orders("Germany", ["Build A Berlin"])
        await t.orders("France", ["Build F Brest"])
        state = await t.wait_phase("Spring 1902, Movement")
        assert state.units["BER"].power == "Germany" and state.units["BRE"].power == "France"
        assert state.units["GAS"].power == "France"
        winter = await t.wait_mail("Italy", results_of("Winter 1901"))
        assert "Build A BER" in text_of(winter[0])

    with transaction(t.factory) as s:
        game = s.scalar(select(Game).where(Game.name == "year"))
        assert game is not None
        labels = [r.label for r in s.scalars(select(GamePhase).where(GamePhase.game_id == game.id).order_by(GamePhase.seq))]
        assert labels == ["Spring 1901, Movement", "Fall 1901, Movement", "Fall 1901, Retreat",
                          "Winter 1901, Adjustment", "Spring 1902, Movement"]
        results = s.scalar(select(func.count()).select_from(OutboundMail).where(OutboundMail.kind == "results"))
        assert results == 4 * 7  # four phases, seven players (no GM address set)


@pytest.mark.long
async def test_a_game_year_of_ambition_and_empire_by_mail(
    migrated_url: str, dovecot: Dovecot, smtp_front: SmtpFront, read_mailbox: ReadMailbox, gm_serve: StartGmServe,
    tmp_path: Path,
) -> None:
    """Random legal orders and secret DP allocations from every power, each phase, for a year."""
    import random

    rng = random.Random(1756)
    # Random orders leave some retreats and builds out: those phases end at their (short) deadline.
    new_game(migrated_url, "ae", "ambition", movement="8s", retreat="8s", adjustment="8s", remind_before="0")
    t = Table(migrated_url, smtp_front, dovecot, read_mailbox, "ae", "ambition")
    with serving(gm_serve, migrated_url, dovecot, smtp_front, tmp_path):
        await t.join_all()
        label = t.variant.phase_label(t.variant.first_phase)
        state = await t.wait_phase(label)
        players = RandomPlayers(t.variant, rng)
        played = []
        allocations = 0
        while not label.startswith("Spring 1764"):
            orders = players.orders(state)
            for power in t.powers:
                lines = [str(o) for o in orders if o.power == power]
                allocations += sum(1 for line in lines if line.startswith("DP "))
                if lines:
                    await t.orders(power, lines)
            played.append(label)
            deadline = time.monotonic() + 40
            while (now := await asyncio.to_thread(t.phase))[0] == label:
                assert time.monotonic() < deadline, f"{label} did not end"
                await asyncio.sleep(0.2)
            label, state = now
        assert played[0] == "Spring 1763, Movement" and "Fall 1763, Movement" in played
        assert allocations > 0
        results = await t.wait_mail("Spain", subject_has("results"), count=len(played) - 1)
        assert results


@pytest.mark.long
async def test_missing_orders_take_the_defaults_and_repeated_lateness_means_civil_disorder(
    migrated_url: str, dovecot: Dovecot, smtp_front: SmtpFront, read_mailbox: ReadMailbox, gm_serve: StartGmServe,
    tmp_path: Path,
) -> None:
    new_game(migrated_url, "nmr", "standard", movement="3s", retreat="3s", adjustment="3s", remind_before="0",
             late_limit="2")
    t = Table(migrated_url, smtp_front, dovecot, read_mailbox, "nmr", "standard")
    with serving(gm_serve, migrated_url, dovecot, smtp_front, tmp_path):
        await t.join_all()
        await t.wait_phase("Spring 1901, Movement")
        await t.orders("France", ["A Paris - Burgundy"])  # the rest of France and everyone else: nothing
        await t.wait_phase("Fall 1901, Movement", timeout=30)
        (first,) = await t.wait_mail("England", results_of("Spring 1901"))
        body = text_of(first)
        assert "A PAR - BUR" in body and "F LON H" in body  # England's fleet held: the default
        assert "late" in body.lower() and "England" in body
        await t.wait_phase("Spring 1902, Movement", timeout=30)
        (second,) = await t.wait_mail("Russia", results_of("Fall 1901"))
        assert "civil disorder" in text_of(second).lower()
    with transaction(t.factory) as s:
        cd = s.scalars(select(Player.power).where(Player.civil_disorder.is_(True))).all()
        assert sorted(cd) == sorted(t.powers)  # seven late twice in a row


@pytest.mark.long
async def test_reminders_name_the_units_still_without_orders_and_a_stale_order_is_refused(
    migrated_url: str, dovecot: Dovecot, smtp_front: SmtpFront, read_mailbox: ReadMailbox, gm_serve: StartGmServe,
    tmp_path: Path,
) -> None:
    new_game(migrated_url, "rem", "standard", movement="8s", remind_before="6s", late_limit="0")
    t = Table(migrated_url, smtp_front, dovecot, read_mailbox, "rem", "standard")
    with serving(gm_serve, migrated_url, dovecot, smtp_front, tmp_path):
        await t.join_all()
        await t.wait_phase("Spring 1901, Movement")
        joined = time.monotonic()
        await t.orders("England", ["F London - North Sea"])
        await t.orders("France", ["A Paris H", "A Marseilles H", "F Brest H"])
        (reminder,) = await t.wait_mail("England", subject_has("eminder"), timeout=20)
        assert time.monotonic() - joined < 8  # before the deadline
        body = text_of(reminder)
        assert "F EDI" in body and "A LVP" in body and "F LON" not in body
        await t.wait_phase("Fall 1901, Movement", timeout=30)
        assert not [m for m in await t.inbox("France") if "eminder" in str(m["Subject"])]  # France was done
        # A mail written before Fall opened (its Date says so), arriving now: too late, nothing stored.
        stale = await t.orders("Germany", ["A Munich - Ruhr"], date=datetime.now().astimezone() - timedelta(minutes=5))
        acks = await t.wait_mail("Germany", lambda m: m["In-Reply-To"] == stale["Message-ID"])
        assert "too late" in text_of(acks[0])
    with transaction(t.factory) as s:
        game = s.scalar(select(Game).where(Game.name == "rem"))
        assert game is not None and game.status == GameStatus.ACTIVE
