"""The judge on Cyrus IMAP (tests/mail/cyrus_server.py), the server of many hosting companies and
of Fastmail, not only on Dovecot: first the Cyrus fixture itself (a password login, an INBOX for
every user, LMTP delivery, UID SEARCH, FETCH BODY.PEEK[], \\Seen by UID STORE, IDLE, stopping),
then whole games by mail from tests/mail/test_game_by_mail.py, run as they are with a Cyrus in
place of the Dovecot."""
from __future__ import annotations

import asyncio
import email.policy
import os
import re
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from email.message import EmailMessage
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aioimaplib
import pytest

from mail.cyrus_server import PASSWORD, USERS, Cyrus, CyrusBinaries
from test_game_by_mail import (
    test_a_game_year_of_standard_diplomacy_by_mail as a_game_year_of_standard_diplomacy_by_mail,
    test_missing_orders_take_the_defaults_and_repeated_lateness_means_civil_disorder as missing_orders_and_civil_disorder,
    test_reminders_name_the_units_still_without_orders_and_a_stale_order_is_refused as reminders_and_a_stale_order,
)

if TYPE_CHECKING:  # fixtures' types only (see conftest.py)
    from conftest import PlayerMail, ReadMailbox, SmtpFront, StartGmServe

_UIDVALIDITY = re.compile(rb"\[UIDVALIDITY (\d+)\]")


async def _login(cyrus: Cyrus, user: str, password: str = PASSWORD) -> tuple[aioimaplib.IMAP4, aioimaplib.Response]:
    client = aioimaplib.IMAP4(host="127.0.0.1", port=cyrus.imap_port, timeout=5)
    await client.wait_hello_from_server()
    return client, await client.login(user, password)


def _raw(subject: str, body: str = "A Par-Bur\n", message_id: str | None = None) -> bytes:
    msg = EmailMessage()
    msg["From"] = "alice@example.org"
    msg["To"] = "gm@example.org"
    msg["Subject"] = subject
    msg["Message-ID"] = message_id or f"<{subject.replace(' ', '-')}-{os.getpid()}-{time.monotonic_ns()}@example.org>"
    msg.set_content(body)
    return msg.as_bytes(policy=email.policy.SMTP)


# --- the fixture ---------------------------------------------------------------------------------


async def test_every_user_has_an_inbox_and_logs_in_with_the_password(cyrus: Cyrus) -> None:
    for user in USERS:
        client, login = await _login(cyrus, user)
        assert login.result == "OK", (user, login)
        selected = await client.select("INBOX")
        assert selected.result == "OK", (user, selected)
        assert aioimaplib.extract_exists(selected) == 0
        await client.logout()
    client, login = await _login(cyrus, "p1", "wrong")
    assert login.result == "NO"
    await client.logout()


async def test_a_mail_delivered_over_lmtp_is_searched_fetched_and_flagged_seen(
    cyrus: Cyrus, read_mailbox: ReadMailbox
) -> None:
    client, login = await _login(cyrus, "p1")
    assert login.result == "OK"
    # Offered (idled runs, and imapd would poll without it): the judge waits in IDLE on Cyrus too.
    assert client.has_capability("IDLE")
    selected = await client.select("INBOX")
    assert selected.result == "OK"
    assert any(_UIDVALIDITY.search(bytes(line)) for line in selected.lines)
    raw = _raw("orders for Cyrus")
    assert b"\nDate:" not in raw
    await asyncio.to_thread(cyrus.deliver, raw, [cyrus.address("p1"), cyrus.address("gm")])

    found = await client.uid_search("UNSEEN", charset=None)
    assert found.result == "OK"
    (uid,) = [int(n) for n in bytes(found.lines[0]).split() if n.isdigit()]
    fetched = await client.uid("fetch", str(uid), "(FLAGS BODY.PEEK[])")
    assert fetched.result == "OK", fetched
    (stored,) = [bytes(line) for line in fetched.lines if isinstance(line, bytearray)]
    assert b"Subject: orders for Cyrus\r\n" in stored and stored.endswith(b"\r\n\r\nA Par-Bur\r\n")
    # Cyrus's lmtpd adds Return-Path and Received, and a Date to a mail that had none.
    assert stored.startswith(b"Return-Path: <alice@example.org>\r\n") and b"\r\nDate: " in stored
    assert b"\\Seen" not in b" ".join(bytes(line) for line in fetched.lines)

    flagged = await client.uid("store", str(uid), "+FLAGS.SILENT", r"(\Seen)")
    assert flagged.result == "OK", flagged
    flags = await client.uid("fetch", str(uid), "(FLAGS)")
    assert b"\\Seen" in bytes(flags.lines[0]), flags
    assert (await client.uid_search("UNSEEN", charset=None)).lines[0].strip() in (b"", b"SEARCH")
    await client.logout()

    # the GM's copy: a mailbox of its own, still unseen
    (gm,) = await read_mailbox(cyrus.account("gm"))
    assert "\\Seen" not in gm.flags and gm.raw.endswith(b"A Par-Bur\r\n")


async def test_idle_tells_of_new_mail_at_once(cyrus: Cyrus) -> None:
    client, _ = await _login(cyrus, "p2")
    await client.select("INBOX")
    idle = await client.idle_start(timeout=30)
    started = time.monotonic()
    await asyncio.to_thread(cyrus.deliver, _raw("pushed"), [cyrus.address("p2")])
    pushed = await client.wait_server_push(timeout=10)
    took = time.monotonic() - started
    client.idle_done()
    assert (await asyncio.wait_for(idle, 5)).result == "OK"
    assert any(b"EXISTS" in bytes(line) for line in pushed), pushed
    assert took < 2, f"{took:.2f} s: no idled, imapd polled?"  # imapidlepoll is 60 s
    await client.logout()


async def test_the_smtp_front_delivers_into_cyrus(
    cyrus: Cyrus, cyrus_smtp_front: SmtpFront, player_mail: PlayerMail, read_mailbox: ReadMailbox
) -> None:
    await asyncio.to_thread(cyrus_smtp_front.send, player_mail("A Mun-Ruh\n", to=cyrus.address("gm")))
    await asyncio.to_thread(cyrus_smtp_front.send, player_mail("F Lon-Nth\n", to=cyrus.address("p3")))
    (gm,) = await read_mailbox(cyrus.account("gm"))
    assert b"A Mun-Ruh" in gm.raw
    (p3,) = await read_mailbox(cyrus.account("p3"))
    assert b"F Lon-Nth" in p3.raw
    assert cyrus_smtp_front.relay.received == 2


async def test_cyrus_delivers_a_message_id_once_to_a_mailbox_unless_told_otherwise(
    cyrus: Cyrus, cyrus_binary: CyrusBinaries, read_mailbox: ReadMailbox
) -> None:
    """Unlike Dovecot: Cyrus's duplicate suppression (on by default) drops a second delivery of a
    Message-ID to a mailbox, silently (LMTP says 250). A Cyrus with it off keeps both."""
    raw = _raw("twice", message_id="<the-same@example.org>")
    await asyncio.to_thread(cyrus.deliver, raw, [cyrus.address("p4"), cyrus.address("p4"), cyrus.address("p6")])
    assert len(await read_mailbox(cyrus.account("p4"))) == 1
    assert len(await read_mailbox(cyrus.account("p6"))) == 1
    keeping = Cyrus(cyrus_binary, duplicate_suppression=False)
    try:
        keeping.start()
        await asyncio.to_thread(keeping.deliver, raw, [keeping.address("p4"), keeping.address("p4")])
        assert len(await read_mailbox(keeping.account("p4"))) == 2
    finally:
        keeping.stop()
        shutil.rmtree(keeping.base, ignore_errors=True)


def _running(group: int) -> list[str]:
    """The processes of a process group, zombies left out."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        name = text[text.index("(") + 1 : text.rindex(")")]
        state, _parent, process_group = text[text.rindex(")") + 1 :].split()[:3]
        if int(process_group) == group and state != "Z":
            found.append(name)
    return found


async def test_stop_kills_the_whole_server_and_start_brings_it_back(cyrus: Cyrus, read_mailbox: ReadMailbox) -> None:
    await asyncio.to_thread(cyrus.deliver, _raw("kept"), [cyrus.address("p5")])
    assert cyrus.process is not None
    group = cyrus.process.pid
    assert {"master", "idled"} <= set(_running(group))
    started = time.monotonic()
    cyrus.stop()
    assert time.monotonic() - started < 2
    assert _running(group) == []
    started = time.monotonic()
    cyrus.start()
    assert time.monotonic() - started < 5
    assert len(await read_mailbox(cyrus.account("p5"))) == 1


# --- the judge on Cyrus ----------------------------------------------------------------------------


@contextmanager
def _shown_if_failing(cyrus: Cyrus, data: Path) -> Iterator[None]:
    """On a failure, what the judge logged and the GM mailbox's IMAP sessions as Cyrus saw them."""
    try:
        yield
    except BaseException:
        serve = data / "serve.log"
        print("--- DATA/serve.log (end)\n" + (serve.read_text(errors="replace")[-20000:] if serve.exists() else ""))
        print("--- Cyrus: the GM's IMAP sessions (end)\n" + cyrus.protocol_log()[-20000:])
        print("--- Cyrus: master's output\n" + cyrus.log()[-5000:])
        raise


def _judge_watched_with_idle(data: Path) -> None:
    """The judge's inbox watcher saw IDLE offered, used it, and never had to reconnect."""
    log = (data / "serve.log").read_text(errors="replace")
    watching = [line for line in log.splitlines() if "watching " in line and "UIDVALIDITY" in line]
    assert watching and all(line.rstrip().endswith("IDLE)") for line in watching), watching or log[-3000:]
    assert "reconnecting to" not in log, log[-3000:]


async def _on_cyrus(test: Any, migrated_url: str, cyrus: Cyrus, front: SmtpFront, read_mailbox: ReadMailbox,
                    gm_serve: StartGmServe, tmp_path: Path) -> None:
    """A whole-game test of test_game_by_mail.py, as it is, on `cyrus` instead of its Dovecot."""
    with _shown_if_failing(cyrus, tmp_path):
        await test(migrated_url=migrated_url, dovecot=cyrus, smtp_front=front, read_mailbox=read_mailbox,
                   gm_serve=gm_serve, tmp_path=tmp_path)
        _judge_watched_with_idle(tmp_path)


@pytest.mark.long
async def test_a_game_year_of_standard_diplomacy_by_mail_on_cyrus(
    migrated_url: str, cyrus: Cyrus, cyrus_smtp_front: SmtpFront, read_mailbox: ReadMailbox,
    gm_serve: StartGmServe, tmp_path: Path,
) -> None:
    await _on_cyrus(a_game_year_of_standard_diplomacy_by_mail, migrated_url, cyrus, cyrus_smtp_front, read_mailbox,
                    gm_serve, tmp_path)


@pytest.mark.long
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)  # the standard game covers PostgreSQL
async def test_missing_orders_and_civil_disorder_by_mail_on_cyrus(
    migrated_url: str, cyrus: Cyrus, cyrus_smtp_front: SmtpFront, read_mailbox: ReadMailbox,
    gm_serve: StartGmServe, tmp_path: Path,
) -> None:
    await _on_cyrus(missing_orders_and_civil_disorder, migrated_url, cyrus, cyrus_smtp_front, read_mailbox,
                    gm_serve, tmp_path)


@pytest.mark.long
@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)  # the standard game covers PostgreSQL
async def test_reminders_and_a_stale_order_by_mail_on_cyrus(
    migrated_url: str, cyrus: Cyrus, cyrus_smtp_front: SmtpFront, read_mailbox: ReadMailbox,
    gm_serve: StartGmServe, tmp_path: Path,
) -> None:
    await _on_cyrus(reminders_and_a_stale_order, migrated_url, cyrus, cyrus_smtp_front, read_mailbox,
                    gm_serve, tmp_path)
