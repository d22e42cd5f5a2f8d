"""Forged mail told from real mail: a stranger who floods the judge with forged requests neither
stops a game from filling nor makes the judge mail third parties past a small bound, and costs it
no slow hash; authenticated mail goes through whatever was forged.

The verdicts are made as in production: mail travels over SMTP to a real receiving server (the
embedded one, which checks SPF, DKIM and DMARC against a real DNS server of the test's own and
writes its Authentication-Results), is read back from its mailbox, and is taken in by the real
intake path on SQLite and PostgreSQL; the judge also verifies DKIM signatures itself against the
same DNS."""
from __future__ import annotations

import asyncio
import imaplib
import itertools
import smtplib
import threading
from collections.abc import Iterator
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import make_msgid
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

import gm.mail.intake.dns
from desk import JUDGE, MASTER, Desk, address, mail
from dnsserver import Zone, publish_dkim, publish_dmarc, publish_spf, sign
from gm.mail import budget
from gm.mail.commands import confirmations
from gm.mail.embedded import EmbeddedMail, embedded_mail
from gm.mail.ingest import Fetched, IngestOutcome, ingest_batch
from gm.settings import EMBEDDED_AUTHSERV_ID
from gm.store import judge_key, passwords
from gm.store.db import transaction
from gm.store.models import Confirmation, Game, GameStatus, Observer, OutboundMail, Player

REAL = "signed.example"  # players whose domain signs its mail (DKIM, SPF, DMARC p=reject)
OLD_SCHOOL = "oldschool.example"  # players whose domain publishes nothing: their mail proves nothing
DISOWNING = "bigmail.example"  # a domain whose policy disowns mail not from it (DMARC p=reject)
NO_POLICY = "nopolicy.example"  # a domain that publishes nothing: forged addresses there prove nothing
POWERS = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]
_uids = itertools.count(1)


class Receiver:
    """The operator's receiving mail server (the embedded one, in a thread of its own) and its DNS:
    mail goes in over SMTP from loopback and comes out of the GM's mailbox over IMAP as the judge
    reads it, with the server's Authentication-Results on top."""

    def __init__(self, base: Path, zone: Zone) -> None:
        self.zone = zone
        self.keys = {REAL: publish_dkim(zone, REAL), "players.example": publish_dkim(zone, "players.example")}
        for domain in (REAL, "players.example"):
            publish_spf(zone, domain, "v=spf1 ip4:127.0.0.1 -all")
            publish_dmarc(zone, domain, "v=DMARC1; p=reject")
        publish_spf(zone, DISOWNING, "v=spf1 ip4:192.0.2.0/24 -all")  # it sends from elsewhere
        publish_dmarc(zone, DISOWNING, "v=DMARC1; p=reject")
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        self.servers = embedded_mail(base, JUDGE)
        self.mail: EmbeddedMail = self._run(self.servers.__aenter__())
        self.last_uid = 0

    def _run(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(120)

    def close(self) -> None:
        self._run(self.servers.__aexit__(None, None, None))
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)

    def deliver(self, mails: list[bytes]) -> list[Fetched]:
        """Send `mails` (each from its own From address) to the GM and read them back, in order."""
        with smtplib.SMTP(self.mail.smtp.host, self.mail.smtp.port, timeout=60) as smtp:
            for raw in mails:
                sender = _from(raw)
                smtp.sendmail(sender, [JUDGE], raw)
        imap = imaplib.IMAP4(self.mail.imap.host, self.mail.imap.port, timeout=60)
        try:
            imap.login(self.mail.imap.user or "", self.mail.imap.password or "")
            imap.select("INBOX", readonly=True)
            _, found = imap.uid("search", None, f"UID {self.last_uid + 1}:*")
            uids = [int(u) for u in found[0].split() if int(u) > self.last_uid]
            out = []
            for uid in uids:
                _, data = imap.uid("fetch", str(uid), "(BODY.PEEK[])")
                out.append(Fetched(next(_uids), bytes(data[0][1])))  # type: ignore[index]
            self.last_uid = max(uids, default=self.last_uid)
        finally:
            imap.logout()
        assert len(out) == len(mails), "every mail reaches the mailbox"
        return out

    def signed(self, sender: str, body: str, subject: str = "orders") -> bytes:
        domain = sender.rpartition("@")[2]
        return sign(smtp_mail(sender, body, subject), domain, "s1", self.keys[domain])


def smtp_mail(sender: str, body: str, subject: str = "orders") -> bytes:
    """A mail as a mail program sends it: CRLF line ends, a Message-ID of its own domain."""
    m = EmailMessage()
    m["From"] = sender
    m["To"] = JUDGE
    m["Subject"] = subject
    m["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2])
    m.set_content(body)
    return m.as_bytes(policy=SMTP)


def _from(raw: bytes) -> str:
    for line in raw.split(b"\r\n"):
        if line.lower().startswith(b"from:"):
            return line[5:].decode().strip()
    raise AssertionError("no From")


@pytest.fixture(scope="module")
def receiver(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Receiver]:
    zone = Zone()
    zone.start()
    gm.mail.intake.dns.configure(zone.address)
    found = Receiver(tmp_path_factory.mktemp("mx"), zone)
    try:
        yield found
    finally:
        found.close()
        zone.stop()
        gm.mail.intake.dns.configure(None)


@pytest.fixture
def mx(receiver: Receiver) -> Receiver:
    gm.mail.intake.dns.configure(receiver.zone.address)  # another module's DNS fixture may have reset it
    return receiver


@pytest.fixture(scope="module")
def forged_flood(receiver: Receiver) -> list[Fetched]:
    """Two hundred forged JOINs of the forming game g2, every power, as delivered by the receiving
    server: half in the names of a domain that disowns them, half in the names of a domain that
    publishes nothing (each a fresh address: a forger needs no mailbox)."""
    gm.mail.intake.dns.configure(receiver.zone.address)
    mails = [smtp_mail(f"victim{i}@{DISOWNING if i % 2 else NO_POLICY}", f"JOIN g2 {POWERS[i % 7]} forged{i}")
             for i in range(200)]
    return receiver.deliver(mails)


class CountingHasher:
    """The tests' Argon2 hasher, counting the slow hashes it makes."""

    def __init__(self, inner: Any) -> None:
        self.inner, self.hashes = inner, 0

    def hash(self, password: str) -> str:
        self.hashes += 1
        return self.inner.hash(password)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@pytest.fixture
def hasher(monkeypatch: pytest.MonkeyPatch) -> CountingHasher:
    counting = CountingHasher(passwords._HASHER)
    monkeypatch.setattr(passwords, "_HASHER", counting)
    return counting


def take_in(desk: Desk, fetched: list[Fetched], *, authserv_id: str | None = EMBEDDED_AUTHSERV_ID,
            batch: int = 50) -> list[IngestOutcome]:
    """Mail read from the mailbox, taken in as the IMAP watcher takes a burst: in batches."""
    outcomes = []
    for start in range(0, len(fetched), batch):
        outcomes += ingest_batch(desk.sf, fetched[start:start + batch], gm_address=JUDGE, uidvalidity=1,
                                 verifier=desk.verifier, authserv_id=authserv_id)
    assert not any(o.failed for o in outcomes), outcomes
    return outcomes


def players(desk: Desk, game: str) -> dict[str, str]:
    with transaction(desk.sf) as s:
        game_id = s.scalar(select(Game.id).where(Game.name == game))
        return {p.power: p.email for p in s.scalars(select(Player).where(Player.game_id == game_id,
                                                                        Player.left_at.is_(None)))}


def mail_to(desk: Desk, domain: str) -> list[OutboundMail]:
    return [m for m in desk.mails() if m.to_addr.endswith("@" + domain)]


# --- a forming game fills ----------------------------------------------------------------------------


def test_a_forming_game_fills_with_real_players_under_a_flood_of_forged_joins(
        forming: Desk, mx: Receiver, forged_flood: list[Fetched], hasher: CountingHasher) -> None:
    take_in(forming, forged_flood)
    assert hasher.hashes == 0  # a forged request costs no slow hash
    assert players(forming, "g2") == {}
    # No mail at all in the names of the domain that disowns them; in the names of the other, its share.
    assert mail_to(forming, DISOWNING) == []
    assert 0 < len(mail_to(forming, NO_POLICY)) <= budget.UNPROVEN_PER_DOMAIN
    # The real players come after the flood: four whose mail is signed take their powers at once...
    signed = [mx.signed(f"{power.lower()}@{REAL}", f"JOIN g2 {power} pw-{power}") for power in POWERS[:4]]
    for out, power in zip(take_in(forming, mx.deliver(signed)), POWERS[:4], strict=True):
        assert f"you play {power} in g2" in forming.ack(out, f"{power.lower()}@{REAL}")
    # ... three whose mail proves nothing get a code, and play once it comes back.
    unsigned = [f"{power.lower()}@{OLD_SCHOOL}" for power in POWERS[4:]]
    take_in(forming, mx.deliver([smtp_mail(a, f"JOIN g2 {p} pw-{p}") for a, p in zip(unsigned, POWERS[4:])]))
    with transaction(forming.sf) as s:  # waiting, sealed: neither the password nor a hash of it is stored
        waiting = s.scalars(select(Confirmation).where(Confirmation.address.in_(unsigned))).all()
        assert len(waiting) == 3 and all(c.password_hash is None and "pw-" not in c.sealed_password for c in waiting)
    assert hasher.hashes == 4
    confirms = [smtp_mail(a, "CONFIRM " + code, "Re: your code") for a in unsigned
                for code in [forming_code(forming, a)]]
    outcomes = take_in(forming, mx.deliver(confirms))
    assert "every power is taken: the game starts" in forming.ack(outcomes[-1], unsigned[-1])
    assert players(forming, "g2") == {**{p: f"{p.lower()}@{REAL}" for p in POWERS[:4]},
                                      **{p: f"{p.lower()}@{OLD_SCHOOL}" for p in POWERS[4:]}}
    assert hasher.hashes == 7  # one a real player: the confirmed ones' once their codes came back
    with transaction(forming.sf) as s:  # used, the requests keep nothing of the passwords
        assert all(c.sealed_password is None for c in s.scalars(
            select(Confirmation).where(Confirmation.address.in_(unsigned))))
    with transaction(forming.sf) as s:
        assert s.scalar(select(Game.status).where(Game.name == "g2")) == GameStatus.ACTIVE
    # Each signs on with the password it chose.
    assert "accepted" in forming.ack(forming.send(f"italy@{OLD_SCHOOL}", "SIGNON Italy g2 pw-Italy"),
                                     f"italy@{OLD_SCHOOL}")


def forming_code(desk: Desk, to: str) -> str:
    (row,) = desk.mails(to=to, kind="confirm")
    code = confirmations.code_in_subject(row.subject)
    assert code is not None
    return code


def test_a_signed_join_is_taken_when_forged_ones_have_spent_every_budget(
        forming: Desk, mx: Receiver, hasher: CountingHasher) -> None:
    # Forged JOINs from many domains that publish nothing: the game's budget and the judge's are spent.
    flood = [Fetched(next(_uids), mail(f"f{i}@spread{i % 40}.example", f"JOIN g2 {POWERS[i % 7]} x{i}"))
             for i in range(300)]
    take_in(forming, flood, batch=100)
    assert len([m for m in forming.mails() if m.unproven]) <= budget.UNPROVEN_PER_GAME
    assert hasher.hashes == 0
    # The game's GM hears of it, once an hour however long the flood.
    (told,) = forming.mails(to=MASTER, kind="flooded")
    assert "Requests to join it went unanswered" in told.subject and "signed with DKIM" in told.body_text
    before = forming.last_mail_id()
    late = Fetched(next(_uids), mail(f"late@{OLD_SCHOOL}", "JOIN g2 France pw"))
    take_in(forming, [late])
    assert forming.mails(since=before) == []  # past the game's budget: no code, no notice, nothing stored
    with transaction(forming.sf) as s:
        assert s.scalar(select(Confirmation).where(Confirmation.address == f"late@{OLD_SCHOOL}")) is None
    (out,) = take_in(forming, mx.deliver([mx.signed(f"france@{REAL}", "JOIN g2 France pw")]))
    assert "you play France in g2 (1 of 7 powers taken)" in forming.ack(out, f"france@{REAL}")


# --- mail to third parties --------------------------------------------------------------------------


def test_mail_to_addresses_that_never_wrote_is_bounded_whatever_the_flood(desk: Desk, forming: Desk,
                                                                           mx: Receiver) -> None:
    """Six hundred forged OBSERVEs and JOINs in as many names at sixty domains, over two games: the
    judge mails those addresses at most UNPROVEN_PER_HOUR messages in all, codes and notices
    together. The players and the GM, and an authenticated newcomer, are answered all the same."""
    bodies = ["OBSERVE g1", "OBSERVE g2", "JOIN g2 France pw", "HELP"]
    flood = [Fetched(next(_uids), mail(f"third{i}@party{i % 60}.example", bodies[i % 4])) for i in range(600)]
    take_in(desk, flood, batch=100)
    sent = [m for m in desk.mails() if m.to_addr.startswith("third")]
    assert 0 < len(sent) <= budget.UNPROVEN_PER_HOUR
    assert all(m.unproven for m in sent)
    # What a flood spent holds up no real reader.
    assert "accepted  A Par - Bur" in desk.player("France", "A Par - Bur")
    (out,) = take_in(desk, mx.deliver([mx.signed(f"fan@{REAL}", "OBSERVE g1")]))
    assert "This address now observes the game" in desk.ack(out, f"fan@{REAL}")
    with transaction(desk.sf) as s:
        assert s.scalar(select(Observer.email).where(Observer.email == f"fan@{REAL}")) is not None


def test_forged_mail_its_domain_disowns_gets_nothing_and_does_nothing(desk: Desk, forming: Desk,
                                                                       mx: Receiver) -> None:
    bodies = ["OBSERVE g1", "JOIN g2 France pw", "HELP", "SIGNON France g1 guess"]
    fetched = mx.deliver([smtp_mail(f"someone{i}@{DISOWNING}", body) for i, body in enumerate(bodies)])
    take_in(desk, fetched)
    assert mail_to(desk, DISOWNING) == []
    with transaction(desk.sf) as s:
        assert s.scalars(select(Confirmation)).all() == [] and s.scalars(select(Observer)).all() == []


# --- proof read only from where it can be trusted ---------------------------------------------------


def test_a_verdict_is_trusted_only_from_the_operators_server_and_only_on_top(forming: Desk) -> None:
    """A sender may write any Authentication-Results it likes: below the receiving server's own,
    or naming another server, or with no receiving server named in the settings, it proves
    nothing, and the JOIN waits for its code."""
    forged = "Authentication-Results: {}; dmarc=pass header.from=players.example\n"
    cases = [
        (forged.format("mx.operator.example"), None),  # no receiving server trusted: the judge's own checks only
        (forged.format("elsewhere.example"), "mx.operator.example"),  # another server's name
        ("Authentication-Results: mx.operator.example; none\n" + forged.format("mx.operator.example"),
         "mx.operator.example"),  # below the operator's own
    ]
    for i, (header, trusted) in enumerate(cases):
        power = POWERS[i]
        raw = header.encode() + mail(address(power), f"JOIN g2 {power} pw")
        take_in(forming, [Fetched(next(_uids), raw)], authserv_id=trusted)
        assert forming.mails(to=address(power), kind="confirm"), header
    assert players(forming, "g2") == {}
    # The operator's server's own verdict, on top, is trusted: the power is taken at once.
    raw = b"Authentication-Results: mx.operator.example; dkim=pass header.d=players.example\n" + mail(
        address("Turkey"), "JOIN g2 Turkey pw")
    take_in(forming, [Fetched(next(_uids), raw)], authserv_id="mx.operator.example")
    assert players(forming, "g2") == {"Turkey": address("Turkey")}


def test_without_a_receiving_server_the_judge_verifies_signatures_itself(forming: Desk, mx: Receiver) -> None:
    """A provider's mailbox, say: no verdict is trusted, and a DKIM signature of the sender's own
    domain, checked against DNS, proves the address; an unsigned JOIN waits for its code."""
    signed = Fetched(next(_uids), mx.signed(address("France"), "JOIN g2 France pw"))
    unsigned = Fetched(next(_uids), smtp_mail(address("Italy"), "JOIN g2 Italy pw"))
    take_in(forming, [signed, unsigned], authserv_id=None)
    assert players(forming, "g2") == {"France": address("France")}
    assert forming.mails(to=address("Italy"), kind="confirm")


def test_an_authenticated_create_is_made_whatever_was_forged_in_its_name(session_factory: Any,
                                                                         mx: Receiver) -> None:
    boss = f"boss@{REAL}"
    desk = Desk(session_factory, "nothing")
    forged = [Fetched(next(_uids), mail(boss, f"CREATE fake{i} standard pw")) for i in range(5)]
    for fetched in forged:
        ingest_batch(session_factory, [fetched], gm_address=JUDGE, trusted_masters=(boss,))
    assert len(desk.mails(to=boss, kind="confirm")) == confirmations.PENDING_PER_ADDRESS
    (fetched,) = mx.deliver([mx.signed(boss, "CREATE real standard gm-pw")])
    (out,) = ingest_batch(session_factory, [fetched], gm_address=JUDGE, trusted_masters=(boss,),
                          authserv_id=EMBEDDED_AUTHSERV_ID, verifier=desk.verifier)
    assert "game real (standard) is forming, with you as its GM" in desk.ack(out, boss)


# --- sign-ons ------------------------------------------------------------------------------------------


def test_the_owners_signed_sign_on_works_under_a_guessing_flood(desk: Desk, mx: Receiver) -> None:
    flood = [Fetched(next(_uids), mail(f"g{i}@guess{i % 30}.example", f"SIGNON France g1 guess{i}"))
             for i in range(300)]
    take_in(desk, flood, batch=100)
    (out,) = take_in(desk, mx.deliver([mx.signed(address("France"), "SIGNON France g1 pw\nA Par - Bur")]))
    ack = desk.ack(out, address("France"))
    assert "accepted  A Par - Bur" in ack and "warning: 300 wrong passwords for France" in ack


# --- what a stolen database gives away -----------------------------------------------------------------


def test_a_waiting_request_is_opened_only_with_its_code_and_the_judges_key(forming: Desk) -> None:
    forming.send(f"ann@{OLD_SCHOOL}", "JOIN g2 France correct-horse")
    code = confirmations.read_code(forming_code(forming, f"ann@{OLD_SCHOOL}"))
    assert code is not None
    with transaction(forming.sf) as s:
        row = s.scalars(select(Confirmation)).one()
        assert row.password_hash is None and "correct-horse" not in (row.sealed_password or "")
        assert confirmations.unseal(row, code) == "correct-horse"
        assert confirmations.unseal(row, confirmations.new_code()) is None  # no other code opens it
        key = judge_key.current()
        judge_key.use(bytes(32))  # another key: the database alone, and the code, open nothing
        try:
            assert confirmations.unseal(row, code) is None
        finally:
            judge_key.use(key)


def test_a_forgers_slow_dns_costs_a_batch_a_bounded_time(forming: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    """Forged JOINs signed in the names of domains whose DNS answers slowly: the batch stops
    looking keys up once its time for look-ups is spent, and the rest wait for their codes."""
    import time

    from gm.mail import prepared
    from test_master_dkim import crlf, signed

    asked: list[str] = []

    def slow_dns(name: str) -> str | None:
        asked.append(name)
        time.sleep(0.2)
        return None

    monkeypatch.setattr(prepared, "VERIFY_SECONDS", 0.5)
    flood = [Fetched(next(_uids), signed(crlf(mail(f"x@slow{i}.example", f"JOIN g2 {POWERS[i % 7]} pw")),
                                         f"slow{i}.example")) for i in range(10)]
    outcomes = ingest_batch(forming.sf, flood, gm_address=JUDGE, dns_lookup=slow_dns, verifier=forming.verifier)
    assert not any(o.failed for o in outcomes)
    assert 1 <= len(asked) <= 5  # of ten keys, each at a domain of its own
    assert players(forming, "g2") == {}
    assert len(forming.mails(kind="confirm")) == 10  # each waits for its code, as unsigned mail would


def test_a_flood_of_junk_spends_the_notices_never_the_newcomers_codes(forming: Desk) -> None:
    """Each stranger's mail earns a notice while notices last; the codes are a share of their own."""
    junk = [Fetched(next(_uids), mail(f"j{i}@junk{i % 50}.example", "buy now")) for i in range(200)]
    take_in(forming, junk, batch=100)
    notices = [m for m in forming.mails() if m.to_addr.startswith("j")]
    assert len(notices) == budget.UNPROVEN_NOTICES_PER_HOUR
    take_in(forming, [Fetched(next(_uids), mail(f"newcomer@{OLD_SCHOOL}", "JOIN g2 France pw"))])
    assert forming.mails(to=f"newcomer@{OLD_SCHOOL}", kind="confirm")


def test_an_authenticated_strangers_answer_is_never_spent_by_mail_forged_in_its_name(desk: Desk, mx: Receiver) -> None:
    victim = f"newcomer@{REAL}"
    forged = [Fetched(next(_uids), mail(victim, "HELP")) for _ in range(6)]
    take_in(desk, forged)
    assert len(desk.mails(to=victim)) == budget.STRANGER_NOTICES_PER_HOUR  # the forged ones' share
    (out,) = take_in(desk, mx.deliver([mx.signed(victim, "HELP")]))
    (answer,) = [m for m in desk.mails(to=victim) if m.inbound_id == out.inbound_id]
    assert answer.kind == "answer" and not answer.unproven and "HELP" in answer.body_text
