"""The judge's mail through a real Postfix. Relayed on to a large receiver, every mail `gm serve`
sends in a whole game (acknowledgements, confirmation codes, the start, results with maps, press,
the end) passes SPF, DKIM and DMARC with From aligned, as published in the test's DNS; mail signed
with another key, or sent from a host SPF does not name, fails there. Refused at delivery (no such user, a full
mailbox), a mail comes back to the judge's mailbox as Postfix's own bounce: an RFC 3464 report
naming the recipient and the status, sent to the mail's own return path."""
from __future__ import annotations

import asyncio
import email
import email.policy
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from email.message import EmailMessage, Message
from email.utils import make_msgid
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiosmtplib
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from dnsserver import Zone, publish_dmarc, publish_spf
from gm.games import add_master, create_game, current_phase, find_game
from gm.mail.commands.confirmations import code_in_subject
from gm.mail.outgoing.outbox import OutboxSender
from gm.mail.outgoing.signing import DkimKey, load_key, new_key
from gm.server import judge_dkim_key
from gm.settings import MailServer, load_settings
from gm.store.db import make_engine, make_session_factory, transaction
from gm.store import failing
from gm.store.models import Bounce, OutboundMail, Player
from gm.store.passwords import hash_password
from gm.variants import load_variant
from loopback import stop
from mail.receiver import Arrival, Receiver

if TYPE_CHECKING:  # fixtures' types only (see conftest.py)
    from conftest import Dovecot, ReadMailbox, StartGmServe, WaitUntil
    from mail.postfix_servers import BouncingMail, Relay

ROOT = Path(__file__).resolve().parents[2]
JUDGE_DOMAIN = "judge.example"
JUDGE = f"gm@{JUDGE_DOMAIN}"
PLAYERS = "players.example"
MASTER = f"master@{PLAYERS}"
SELECTOR = "gm1"
SQLITE = pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)  # the database is not what is tested here


# --- the judge and its players --------------------------------------------------------------------


def operators_key(data: Path, zone: Zone) -> DkimKey:
    """The judge's key as an operator sets it up: `gm mail dkim-key`, its record published as the
    command says, GM_DKIM_SELECTOR set, and the key read as gm serve reads it."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GM_")}
    done = subprocess.run([sys.executable, "-m", "gm", "mail", "dkim-key"], cwd=ROOT, capture_output=True, text=True,
                          env={**env, "GM_ADDRESS": JUDGE, "GM_DATA_DIR": str(data)}, timeout=60)
    assert done.returncode == 0, done.stderr
    name, _, record = done.stdout.splitlines()[-1].partition(". IN TXT ")
    zone.add(name, "TXT", record.strip('"'))
    settings = load_settings(environ={"GM_ADDRESS": JUDGE, "GM_DATA_DIR": str(data), "GM_DKIM_SELECTOR": SELECTOR})
    key = judge_dkim_key(settings)
    assert key is not None and key.record_name == name
    return key


@asynccontextmanager
async def sending(sessions: sessionmaker[Session], server: MailServer, key: DkimKey | None) -> AsyncIterator[None]:
    """The judge's outbox sender in this process (signing with `key`) until the end of the block."""
    sender = OutboxSender(server, sessions, gm_address=JUDGE, poll_seconds=0.05, dkim=key)
    task = asyncio.create_task(sender.run())
    try:
        yield
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


def player(power: str) -> str:
    return f"{power.lower()}@{PLAYERS}"


class Players:
    """The players and the GM of one game, mailing the judge (into its Dovecot mailbox) and
    reading what reached them at the receiver; and the game and the outbox as the database has them."""

    def __init__(self, url: str, game: str, dovecot: Dovecot, receiver: Receiver) -> None:
        self.sessions = make_session_factory(make_engine(url))
        self.game, self.dovecot, self.receiver = game, dovecot, receiver

    def send(self, sender: str, body: str) -> None:
        msg = EmailMessage()
        msg["From"], msg["To"], msg["Subject"] = sender, JUDGE, self.game
        msg["Message-ID"] = make_msgid(domain=PLAYERS)
        msg.set_content(body)
        self.dovecot.deliver(msg.as_bytes(), [JUDGE], sender=sender)

    def orders(self, power: str, lines: list[str]) -> None:
        self.send(player(power), "\n".join([f"SIGNON {power} {self.game} pw-{power}", *lines]))

    def codes(self, power: str) -> set[str]:
        """The confirmation codes mailed to `power`'s player."""
        return {c for a in self.receiver.to(player(power)) if (c := code_in_subject(str(a.message["Subject"])))}

    def mails(self, to: str, subject: str) -> list[Arrival]:
        return [a for a in self.receiver.to(to) if subject in str(a.message["Subject"])]

    def position(self) -> tuple[str, Any]:
        """The current phase's label and state."""
        with transaction(self.sessions) as s:
            game = find_game(s, self.game)
            assert game is not None
            current = current_phase(s, game)
            return (current.row.label, current.state) if current is not None else ("", None)

    def outbox(self) -> list[OutboundMail]:
        with transaction(self.sessions) as s:
            rows = list(s.scalars(select(OutboundMail)))
            s.expunge_all()
        return rows


# --- a whole game's mail, relayed to a large receiver ------------------------------------------


def verdicts_pass(arrival: Arrival) -> None:
    verdict = arrival.verdict
    assert (arrival.result("spf"), arrival.result("dkim"), arrival.result("dmarc")) == ("pass", "pass", "pass"), verdict
    assert f"smtp.mailfrom={JUDGE_DOMAIN};" in verdict, verdict  # SPF of the envelope's domain ...
    assert f"header.d={JUDGE_DOMAIN}" in verdict, verdict  # ... DKIM of the From's ...
    assert f"header.from={JUDGE_DOMAIN}" in verdict, verdict  # ... so both aligned with From
    assert (arrival.ip, arrival.helo) == ("127.0.0.1", f"mx.{JUDGE_DOMAIN}")  # as Postfix connected
    assert arrival.message["From"].addresses[0].addr_spec == JUDGE
    assert f"by mx.{JUDGE_DOMAIN} (Postfix)" in str(arrival.message["Received"])


@pytest.mark.long
@SQLITE
async def test_a_whole_games_mail_passes_spf_dkim_and_dmarc_at_the_receiver_through_postfix(
        migrated_url: str, dovecot: Dovecot, postfix_relay: Relay, dns_zone: Zone, gm_serve: StartGmServe,
        tmp_path: Path, wait_until: WaitUntil) -> None:
    operators_key(tmp_path, dns_zone)
    publish_spf(dns_zone, JUDGE_DOMAIN, "v=spf1 ip4:127.0.0.1 -all")
    publish_dmarc(dns_zone, JUDGE_DOMAIN, "v=DMARC1; p=reject")
    powers = load_variant("standard").great_powers
    t = Players(migrated_url, "relay", dovecot, postfix_relay.receiver)
    with transaction(t.sessions) as s:
        add_master(s, create_game(s, "relay", "standard"), MASTER, hash_password("gm-pw"))
    server = gm_serve(migrated_url, dovecot, postfix_relay.postfix.port, tmp_path, GM_ADDRESS=JUDGE,
                      GM_DKIM_SELECTOR=SELECTOR, GM_DNS_SERVER=dns_zone.address)
    try:
        for power in powers:
            t.send(player(power), f"JOIN relay {power} pw-{power}")
        # Each player confirms with the code in the mail that reached them; the last one starts the game.
        await wait_until(lambda: all(t.codes(power) for power in powers), timeout=20)
        for power in powers:
            (code,) = t.codes(power)
            t.send(player(power), f"CONFIRM {code}")
        for phase in ("Spring 1901", "Fall 1901"):
            await wait_until(lambda: t.position()[0] == f"{phase}, Movement", timeout=20)
            state = t.position()[1]
            for power in powers:
                t.orders(power, [f"{unit} H" for unit in state.units_of(power)])
            # every order in: adjudicated at the scheduler's next look, the results mailed
            await wait_until(lambda: all(t.mails(player(p), f"] {phase} results") for p in powers), timeout=20)
        t.orders("France", ["PRESS TO Germany", "Shall we share Belgium?", "ENDPRESS"])
        t.send(MASTER, "SIGNON MASTER relay gm-pw\nTERMINATE")
        await wait_until(lambda: len(t.mails(MASTER, "The game is over")) == 1, timeout=20)
        await wait_until(lambda: all(row.sent_at or row.gave_up_at for row in t.outbox()), timeout=20)
    finally:
        stop(server)
    rows = t.outbox()
    assert not [(r.to_addr, r.kind, r.last_error) for r in rows if r.sent_at is None]
    receiver = postfix_relay.receiver
    await wait_until(lambda: len(receiver.arrivals) >= len(rows), timeout=10, state=postfix_relay.postfix.log)

    arrivals = {a.message["Message-ID"]: a for a in receiver.arrivals}
    assert len(arrivals) == len(receiver.arrivals) == len(rows)  # every mail sent arrived, once
    for row in rows:
        arrival = arrivals[row.message_id]
        assert arrival.rcpt_tos == (row.to_addr,) and arrival.mail_from.endswith(f"@{JUDGE_DOMAIN}")
        verdicts_pass(arrival)
    # Message-IDs on the judge's own domain; each game's mail on the game's list.
    assert all(row.message_id.endswith(f"@{JUDGE_DOMAIN}>") for row in rows)
    assert all(arrivals[row.message_id].message["List-Id"] == f'"gm game relay" <relay.games.{JUDGE_DOMAIN}>'
               for row in rows if row.game_id is not None)
    kinds = {row.kind for row in rows}
    assert {"ack", "confirm", "start", "results", "press", "announcement"} <= kinds, kinds
    results = [arrivals[row.message_id].message for row in rows if row.kind == "results"]
    assert len(results) == 2 * (len(powers) + 1)  # two phases, each player and the GM
    assert all(any(p.get_content_type() == "image/png" for p in r.walk()) for r in results)
    assert sum("The game is over" in str(a.message["Subject"]) for a in receiver.arrivals) == len(powers) + 1


# --- the same path failing at the receiver -------------------------------------------------------

FAILING = [
    # (signed with, SPF of judge.example) -> the receiver's (spf, dkim, dmarc)
    pytest.param("another key", None, ("none", "fail", "fail"), id="another-key-fails-dkim-and-dmarc"),
    # Not signed at all: authheaders says dkim=fail (no header.d), not none.
    pytest.param(None, "v=spf1 ip4:192.0.2.1 -all", ("fail", "fail", "fail"), id="spf-of-another-host-fails-spf-and-dmarc"),
    # DMARC asks for one aligned pass, either: each alone carries it.
    pytest.param("the key", "v=spf1 ip4:192.0.2.1 -all", ("fail", "pass", "pass"), id="dkim-alone-passes-dmarc"),
    pytest.param("another key", "v=spf1 ip4:127.0.0.1 -all", ("pass", "fail", "pass"), id="spf-alone-passes-dmarc"),
]


@SQLITE
@pytest.mark.parametrize(("signed", "spf", "expected"), FAILING)
async def test_another_key_or_an_spf_of_another_host_fails_at_the_receiver_unless_the_other_passes(
        session_factory: sessionmaker[Session], dns_zone: Zone, postfix_relay: Relay, tmp_path: Path,
        wait_until: WaitUntil, signed: str | None, spf: str | None, expected: tuple[str, str, str]) -> None:
    published = _key(tmp_path / "published")
    dns_zone.add(published.record_name, "TXT", published.record())
    publish_dmarc(dns_zone, JUDGE_DOMAIN, "v=DMARC1; p=reject")
    if spf is not None:
        publish_spf(dns_zone, JUDGE_DOMAIN, spf)
    key = {"the key": published, "another key": _key(tmp_path / "other"), None: None}[signed]
    at = datetime.now(UTC)
    with transaction(session_factory) as s:
        s.add(OutboundMail(to_addr=player("France"), subject="[g1] Spring 1901 results", body_text="Results\n",
                           kind="results", created_at=at, next_attempt_at=at))
    async with sending(session_factory, postfix_relay.server, key):
        await wait_until(lambda: len(postfix_relay.receiver.arrivals) == 1, timeout=10, state=postfix_relay.postfix.log)
    (arrival,) = postfix_relay.receiver.arrivals
    assert (arrival.result("spf"), arrival.result("dkim"), arrival.result("dmarc")) == expected, arrival.verdict
    assert f"header.from={JUDGE_DOMAIN}" in arrival.verdict and arrival.ip == "127.0.0.1"
    assert ("header.d=" in arrival.verdict) == (key is not None), arrival.verdict


def _key(path: Path) -> DkimKey:
    new_key(path, "rsa")
    return load_key(path, SELECTOR, JUDGE_DOMAIN)


# --- bounces -------------------------------------------------------------------------------------


def _parts(bounce: EmailMessage) -> tuple[list[Message], Message]:
    """A DSN's delivery-status blocks (per message, then per recipient) and the returned headers."""
    status = next(p for p in bounce.walk() if p.get_content_type() == "message/delivery-status")
    returned = next(p for p in bounce.walk() if p.get_content_type() in ("message/rfc822", "text/rfc822-headers"))
    if returned.get_content_type() == "message/rfc822":
        original = returned.get_payload(0)
    else:
        original = email.message_from_string(returned.get_content(), policy=email.policy.default)
    return list(status.get_payload()), original


async def test_postfix_bounces_an_unknown_user_and_a_full_mailbox_to_the_judges_return_path(
        bouncing_mail: BouncingMail, read_mailbox: ReadMailbox, wait_until: WaitUntil) -> None:
    server = bouncing_mail.submission
    assert server.user is not None and server.password is not None
    sent: dict[str, tuple[EmailMessage, str]] = {}
    async with aiosmtplib.SMTP(hostname=server.host, port=server.port) as smtp:
        await smtp.login(server.user, server.password)
        for i, user in enumerate(("nobody", "full", "alice"), 1):
            msg = EmailMessage()
            msg["From"], msg["To"], msg["Subject"] = JUDGE, bouncing_mail.address(user), f"[g1] results {i}"
            msg["Message-ID"] = make_msgid(domain=JUDGE_DOMAIN)
            msg.set_content("Spring 1901 results\n")
            return_path = f"gm+b.1.{i}@{JUDGE_DOMAIN}"
            await smtp.send_message(msg, sender=return_path)  # Postfix takes every recipient at RCPT
            sent[user] = (msg, return_path)

    stored: list[EmailMessage] = []

    async def two_in_the_judges_mailbox() -> bool:
        stored[:] = [email.message_from_bytes(m.raw, policy=email.policy.default)  # type: ignore[misc]
                     for m in await read_mailbox(bouncing_mail.judge_account())]
        return len(stored) >= 2

    await wait_until(two_in_the_judges_mailbox, timeout=20, step=0.1, state=bouncing_mail.log)
    bounces = {str(b["To"]): b for b in stored}
    for user, code, status in (("nobody", 550, "5.1.1"), ("full", 552, "5.2.2")):
        msg, return_path = sent[user]
        bounce = bounces[return_path]  # to the return path of the mail it returns, and delivered there
        assert bounce["Delivered-To"] == return_path and bounce["Return-Path"] == "<>"
        assert bounce.get_content_type() == "multipart/report"
        assert bounce.get_param("report-type") == "delivery-status"
        (per_message, per_recipient), original = _parts(bounce)
        assert per_message["Reporting-MTA"] == f"dns; mx.{JUDGE_DOMAIN}"
        assert per_recipient["Final-Recipient"] == f"rfc822; {bouncing_mail.address(user)}"
        assert per_recipient["Action"] == "failed" and per_recipient["Status"] == status
        assert per_recipient["Diagnostic-Code"].startswith(f"smtp; {code} {status} ")
        assert original["Message-ID"] == msg["Message-ID"] and original["Subject"] == msg["Subject"]
    assert len(stored) == 2  # nothing for alice's
    (alices,) = await read_mailbox(bouncing_mail.account("alice"))
    assert email.message_from_bytes(alices.raw)["Message-ID"] == sent["alice"][0]["Message-ID"]
    assert "status=deferred" not in bouncing_mail.log()  # bounced at once, not after retries


@SQLITE
async def test_the_judge_takes_postfixs_real_bounces_in_and_tells_the_gm(
        migrated_url: str, bouncing_mail: BouncingMail, gm_serve: StartGmServe, read_mailbox: ReadMailbox,
        tmp_path: Path, wait_until: WaitUntil) -> None:
    """gm serve, sending each mail from a return path of its own, through the bouncing Postfix: the
    reports for an unknown user and a full mailbox come back to its mailbox, are matched to the
    players' mails, mark both addresses failing, and the GM hears of each with the server's words."""
    gone, full, master = (bouncing_mail.address(user) for user in ("nobody", "full", "alice"))
    sessions = make_session_factory(make_engine(migrated_url))
    with transaction(sessions) as s:
        game = create_game(s, "g1", "standard")
        add_master(s, game, master, hash_password("gm-pw"))
        for power, address in (("England", gone), ("France", full)):
            s.add(Player(game_id=game.id, power=power, email=address, password_hash=hash_password("pw")))
            s.add(OutboundMail(to_addr=address, subject="[g1] Spring 1901 results", body_text="...", kind="results",
                               game_id=game.id, message_id=make_msgid(domain=JUDGE_DOMAIN)))
    server = gm_serve(migrated_url, bouncing_mail.dovecot, bouncing_mail.postfix.port, tmp_path,
                      GM_SMTP_RETURN_PATH="tagged", **bouncing_mail.serve_settings)
    try:
        async def told() -> bool:
            return len(await read_mailbox(bouncing_mail.account("alice"))) >= 2

        await wait_until(told, timeout=30, step=0.2, state=bouncing_mail.log)
    finally:
        stop(server)
    with transaction(sessions) as s:
        bounces = {b.address: b for b in s.scalars(select(Bounce))}
        sent = {m.to_addr: m for m in s.scalars(select(OutboundMail).where(OutboundMail.kind == "results"))}
        assert set(bounces) == {gone, full} == set(failing.marks(s, [gone, full, master]))
        for address, status in ((gone, "5.1.1"), (full, "5.2.2")):
            assert (bounces[address].outbox_id, bounces[address].status, bounces[address].permanent) == (
                sent[address].id, status, True)
            assert bounces[address].inbound_id is not None and bounces[address].form == "dsn"
        # Never answered: the judge sent nothing but the two results and the GM's two notices.
        assert sorted(m.to_addr for m in s.scalars(select(OutboundMail))) == sorted([gone, full, master, master])
    notices = [email.message_from_bytes(m.raw, policy=email.policy.default)
               for m in await read_mailbox(bouncing_mail.account("alice"))]
    said = {str(n["Subject"]): n.get_body(("plain",)).get_content() for n in notices}  # type: ignore[union-attr]
    assert "5.1.1" in said["[g1] Mail to England is not arriving"] and gone in said["[g1] Mail to England is not arriving"]
    assert "5.2.2" in said["[g1] Mail to France is not arriving"]
