"""The judge as a relay: a forged From line names a victim, and the judge's mail goes to the victim.
JOIN in a victim's name, SET ADDRESS to a victim, and CREATE from a trusted address each wait for
the code mailed to that address (CONFIRM): the victim gets one fixed text of the judge's own and
nothing of the forger's, and nothing happens without the code. Last, the same through a real `gm
serve` and its own mail servers."""
from __future__ import annotations

import email
import email.policy
import imaplib
import os
import smtplib
import subprocess
import sys
import time
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path

from sqlalchemy import select, update
from sqlalchemy.orm import Session, sessionmaker

from desk import JUDGE, MASTER, Desk, address, confirmation_code, mail, new_game
from gm.mail.budget import UNPROVEN_PER_GAME
from gm.mail.commands.confirmations import NO_SUCH_CODE, PENDING_PER_ADDRESS, code_in_subject
from gm.mail.embedded import mailbox_name
from gm.mail.ingest import IngestOutcome, ingest
from gm.mail.outgoing.reply import render_notice
from gm.store.db import transaction
from gm.store.models import Confirmation, Game, OutboundMail, Player, utcnow
from loopback import free_port, listening, stop
from test_master_dkim import crlf, keys, signed

VICTIM = "victim@else.example"
FORGER = "forger@evil.example"
TRUSTED = "boss@gms.example"
# Forty lines a forger would like the judge to carry to the victim.
SPAM = [f"Cheap watches, line {i:02d}: visit https://spam{i:02d}.evil.example/offer?id=zq{i:02d}" for i in range(40)]


def carried(row: OutboundMail) -> list[str]:
    """The forger's lines a mail carries, in its subject or its text."""
    return [line for line in SPAM if line in row.body_text or line in row.subject]


def one_fixed_text(desk: Desk, since: int, to: str, template: str, **values: str) -> OutboundMail:
    """The one mail `to` got since `since`: the fixed text `template` with its code, nothing else."""
    (row,) = desk.mails(to=to, since=since)
    code = code_in_subject(row.subject)
    assert row.kind == "confirm" and code is not None
    assert row.body_text == render_notice(template, gm_address=JUDGE, code=code, hours=24, **values)
    assert carried(row) == []
    return row


def player_of(desk: Desk, power: str) -> Player | None:
    with transaction(desk.sf) as s:
        player = s.scalar(select(Player).join(Game).where(Game.name == desk.game, Player.power == power,
                                                          Player.left_at.is_(None)))
        s.expunge_all()
    return player


def send_as_trusted(sf: sessionmaker[Session], sender: str, body: str) -> IngestOutcome:
    return ingest(sf, mail(sender, body), gm_address=JUDGE, trusted_masters=(TRUSTED,))


def test_a_forged_join_mails_the_victim_one_fixed_text_and_takes_no_power(forming: Desk) -> None:
    before = forming.last_mail_id()
    forming.send(VICTIM, "\n".join(["JOIN g2 France forged-pw", *SPAM]))
    one_fixed_text(forming, before, VICTIM, "confirm_join", game="g2", power="France")
    assert player_of(forming, "France") is None
    assert [m.to_addr for m in forming.mails(since=before) if carried(m)] == []  # nobody else got them either


def test_only_the_victims_confirm_takes_the_power(forming: Desk) -> None:
    forming.send(VICTIM, "\n".join(["JOIN g2 France chosen-pw", *SPAM]))
    code = confirmation_code(forming.sf, VICTIM)
    wrong = "22222-22222" if code != "22222-22222" else "33333-33333"
    for sender in (FORGER, VICTIM):  # a guess, from anywhere, is no code
        before = forming.last_mail_id()
        forming.send(sender, f"CONFIRM {wrong}\nA Par - Bur")
        (notice,) = forming.mails(since=before)
        assert notice.to_addr == sender and NO_SUCH_CODE in notice.body_text and "A Par" not in notice.body_text
    assert player_of(forming, "France") is None
    out = forming.send(VICTIM, f"CONFIRM {code.lower().replace('-', '')}")  # any case, with or without the dash
    assert "you play France in g2 (1 of 7 powers taken)" in forming.ack(out, VICTIM)
    player = player_of(forming, "France")
    assert player is not None and player.email == VICTIM
    before = forming.last_mail_id()
    forming.send(VICTIM, f"CONFIRM {code}")  # a code serves once
    assert NO_SUCH_CODE in forming.mails(to=VICTIM, since=before)[-1].body_text


def test_set_address_to_a_victim_mails_it_one_fixed_text_and_moves_nothing(desk: Desk) -> None:
    before = desk.last_mail_id()
    out = desk.send(address("France"), "\n".join(["SIGNON France g1 pw", f"SET ADDRESS {VICTIM}", *SPAM]))
    one_fixed_text(desk, before, VICTIM, "confirm_address", game="g1", power="France")
    ack = desk.ack(out, address("France"))  # the registered address is answered, as ever
    assert f"a code to confirm it was mailed to {VICTIM}" in ack
    # the forger's prose reaches no address but the registered one (its acknowledgement does not
    # answer lines no order is meant by: see gm.mail.intake.reply_text.no_order_meant)
    assert {m.to_addr for m in desk.mails(since=before) if carried(m)} <= {address("France")}
    player = player_of(desk, "France")
    assert player is not None and player.email == address("France")
    # Confirmed by the new address, the change is made, and the old address is told.
    desk.send(VICTIM, f"CONFIRM {confirmation_code(desk.sf, VICTIM)}")
    player = player_of(desk, "France")
    assert player is not None and player.email == VICTIM
    assert "now goes to victim@else.example" in desk.mails(to=address("France"))[-1].body_text


def test_a_forged_create_from_a_trusted_address_makes_no_game_until_confirmed(
        session_factory: sessionmaker[Session]) -> None:
    desk = Desk(session_factory, "evil")
    send_as_trusted(session_factory, TRUSTED, "\n".join(["CREATE evil standard forged-pw", "SET GRACE 2h", *SPAM]))
    one_fixed_text(desk, 0, TRUSTED, "confirm_create", game="evil", variant="Diplomacy (standard map)")
    with transaction(session_factory) as s:
        assert s.scalars(select(Game)).all() == []
    out = send_as_trusted(session_factory, TRUSTED, f"CONFIRM {confirmation_code(session_factory, TRUSTED)}")
    assert "game evil (standard) is forming, with you as its GM" in desk.ack(out, TRUSTED)
    with transaction(session_factory) as s:
        assert [g.name for g in s.scalars(select(Game))] == ["evil"]


def test_an_unsigned_join_in_a_game_that_requires_dkim_takes_nothing(forming: Desk) -> None:
    with transaction(forming.sf) as s:
        forming.row(s).require_dkim = True
    before = forming.last_mail_id()
    ingest(forming.sf, crlf(mail(address("France"), "JOIN g2 France pw")), gm_address=JUDGE, dns_lookup=keys().get)
    (notice,) = forming.mails(since=before)
    assert notice.kind == "notice" and "g2 requires mail signed with DKIM by your domain" in notice.body_text
    assert player_of(forming, "France") is None
    with transaction(forming.sf) as s:
        assert s.scalars(select(Confirmation)).all() == []  # no code to anyone either
    # Signed by the sender's own domain, the address is proven: the power is taken at once.
    raw = signed(crlf(mail(address("France"), "JOIN g2 France pw")), "players.example")
    out = ingest(forming.sf, raw, gm_address=JUDGE, dns_lookup=keys().get)
    assert "you play France in g2 (1 of 7 powers taken)" in forming.ack(out, address("France"))
    player = player_of(forming, "France")
    assert player is not None and player.email == address("France")


def test_the_codes_an_address_a_game_or_a_player_can_cause_are_bounded(desk: Desk, forming: Desk) -> None:
    for power in ("France", "England", "Germany", "Italy"):
        forming.send(VICTIM, f"JOIN g2 {power} pw")
    assert len(forming.mails(to=VICTIM, kind="confirm")) == PENDING_PER_ADDRESS
    assert "3 JOINs for this address in the last hour wait for their codes" in forming.mails(to=VICTIM)[-1].body_text
    # Codes for one game's JOINs: as many as its budget, then no mail at all, to anyone.
    for i in range(UNPROVEN_PER_GAME - PENDING_PER_ADDRESS):
        forming.send(f"p{i}@x{i}.example", "JOIN g2 Russia pw")
    assert len(forming.mails(kind="confirm")) == UNPROVEN_PER_GAME
    before = forming.last_mail_id()
    forming.send(FORGER, "JOIN g2 Turkey pw")
    # Nothing to the forger's address; the game's GM is told, once an hour.
    assert [(m.to_addr, m.kind) for m in forming.mails(since=before)] == [(MASTER, "flooded")]
    with transaction(forming.sf) as s:
        assert s.scalar(select(Confirmation).where(Confirmation.address == FORGER)) is None
    # A player may send codes to new addresses a few times an hour.
    body = "SIGNON France g1 pw\n" + "\n".join(f"SET ADDRESS v{i}@else.example" for i in range(4))
    ack = desk.ack(desk.send(address("France"), body), address("France"))
    assert ack.count("a code to confirm it was mailed to") == 3 and "at most 3 new addresses an hour" in ack
    assert [m.to_addr for m in desk.mails(kind="confirm") if m.to_addr.endswith("@else.example")
            and m.to_addr != VICTIM] == [f"v{i}@else.example" for i in range(3)]


def test_a_code_expires(forming: Desk) -> None:
    forming.send(VICTIM, "JOIN g2 France pw")
    code = confirmation_code(forming.sf, VICTIM)
    with transaction(forming.sf) as s:
        s.execute(update(Confirmation).values(expires_at=utcnow() - timedelta(seconds=1)))
    before = forming.last_mail_id()
    forming.send(VICTIM, f"CONFIRM {code}")
    (notice,) = forming.mails(since=before)
    assert "no such confirmation code, or it expired: codes last 24 hours" in notice.body_text
    assert player_of(forming, "France") is None


# --- a real gm serve ---------------------------------------------------------------------------------


def _mailbox(port: int, password: str, owner: str) -> list[email.message.EmailMessage] | None:
    """Every mail in `owner`'s mailbox on the embedded IMAP server; None while it has none."""
    imap = imaplib.IMAP4("127.0.0.1", port, timeout=5)
    try:
        try:
            imap.login(mailbox_name(owner), password)
        except imaplib.IMAP4.error:
            return None  # the mailbox is made by its first mail
        imap.select("INBOX", readonly=True)
        _, found = imap.search(None, "ALL")
        mails = []
        for number in found[0].split():
            _, data = imap.fetch(number, "(BODY.PEEK[])")
            mails.append(email.message_from_bytes(data[0][1], policy=email.policy.default))  # type: ignore[index]
        return mails
    finally:
        try:
            imap.logout()
        except (OSError, imaplib.IMAP4.error):
            pass


def _settled(sf: sessionmaker[Session]) -> bool:
    """Whether every mail queued has been sent."""
    with transaction(sf) as s:
        return s.scalar(select(OutboundMail.id).where(OutboundMail.sent_at.is_(None)).limit(1)) is None


def test_a_forged_join_through_gm_serve_leaves_the_victim_only_the_fixed_text(
        migrated_url: str, session_factory: sessionmaker[Session], tmp_path: Path) -> None:
    new_game(session_factory, "live", powers=[], start=False)
    imap_port, smtp_port, password = free_port(), free_port(), "mailbox-pw"
    env = {k: v for k, v in os.environ.items() if not k.startswith("GM_")}
    env.update(GM_ADDRESS=JUDGE, GM_DATABASE_URL=migrated_url, GM_DATA_DIR=str(tmp_path), GM_IMAP_PORT=str(imap_port),
               GM_SMTP_PORT=str(smtp_port), GM_IMAP_PASSWORD=password, GM_POLL_SECONDS="1")
    with (tmp_path / "serve.log").open("wb") as log:
        serve = subprocess.Popen([sys.executable, "-m", "gm", "serve"], env=env, stdout=log, stderr=log,
                                 cwd=Path(__file__).resolve().parents[2])
    try:
        deadline = time.monotonic() + 60
        while not listening(smtp_port):
            assert serve.poll() is None and time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
            time.sleep(0.1)
        forged = EmailMessage()
        forged["From"], forged["To"], forged["Subject"] = VICTIM, JUDGE, "hello"
        forged["Message-ID"] = "<forged-1@evil.example>"
        forged.set_content("\n".join(["JOIN live France forged-pw", *SPAM]))
        with smtplib.SMTP("127.0.0.1", smtp_port, timeout=10) as smtp:  # the judge's MX takes mail from anyone
            smtp.send_message(forged)
        while not (_mailbox(imap_port, password, VICTIM) and _settled(session_factory)):
            assert serve.poll() is None and time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
            time.sleep(0.2)
        mails = _mailbox(imap_port, password, VICTIM)  # all of them: every mail queued is sent
    finally:
        stop(serve)
    (received,) = mails or []
    code = code_in_subject(str(received["Subject"]))
    assert code is not None
    text = received.get_body(preferencelist=("plain",)).get_content()  # type: ignore[union-attr]
    fixed = render_notice("confirm_join", gm_address=JUDGE, code=code, hours=24, game="live", power="France")
    assert text.replace("\r\n", "\n").strip() == fixed.strip()
    assert not [line for line in SPAM if line in received.as_string()]
    with transaction(session_factory) as s:
        assert s.scalars(select(Player)).all() == []
