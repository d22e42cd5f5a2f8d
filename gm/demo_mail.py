"""The mail part of `gm demo`: `gm serve` on its embedded mail servers and SQLite, seven scripted
players who JOIN a game by mail and send their Spring 1901 orders, and the acknowledgements they
get back, read from their own mailboxes. One player then answers from a phone, in German, with
orders abbreviated as players abbreviate them and last turn's mail quoted below without marks."""
from __future__ import annotations

import asyncio
import email
import email.policy
import socket
import tempfile
from email.message import EmailMessage
from pathlib import Path
from typing import Callable

import aioimaplib
import aiosmtplib
from sqlalchemy import func, select

from gm.demo import SCRIPT
from gm.games import create_game
from gm.mail.embedded import mailbox_name
from gm.server import serve
from gm.settings import load_settings
from gm.store.db import make_engine, make_session_factory, transaction, upgrade
from gm.store.models import OutboundMail

GM = "gm@judge.example"
PASSWORD = "demo-mail-password"  # of the embedded mailboxes
FIRST = "Spring 1901, Movement"
# Germany's second mail: abbreviations joined by dashes, a list mark, a phone's footer, and the
# mail it answers quoted below a German attribution without '>' marks.
GERMAN_REPLY = """SIGNON Germany demo secret-Germany
1. f kie-den
2. A Ber-Kie
3. A Mun -> Bur

Von meinem iPhone gesendet

Am 25.11.2026 um 10:00 schrieb gm@judge.example <gm@judge.example>:
SIGNON Germany demo ********
F Kiel - Denmark
A Berlin - Kiel
A Munich - Ruhr
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _address(power: str) -> str:
    return f"{power.lower()}@players.example"


async def run_mail_demo(out: Callable[[str], None] = print) -> None:
    data = Path(tempfile.mkdtemp(prefix="gm-demo-"))
    imap_port, smtp_port = _free_port(), _free_port()
    settings = load_settings(
        None,
        environ={
            "GM_ADDRESS": GM,
            "GM_DATA_DIR": str(data),
            "GM_DATABASE_URL": f"sqlite:///{data}/gm.sqlite3",
            "GM_IMAP_PORT": str(imap_port),
            "GM_SMTP_PORT": str(smtp_port),
            "GM_IMAP_PASSWORD": PASSWORD,
        },
    )
    await asyncio.to_thread(upgrade, settings.db_url)
    factory = make_session_factory(make_engine(settings.db_url))
    with transaction(factory) as s:
        create_game(s, "demo", "standard")
    out(f"gm serve: embedded IMAP on port {imap_port}, SMTP on port {smtp_port}, SQLite in {data}")
    service = asyncio.create_task(serve(settings))
    try:
        await _wait_for_port(smtp_port)
        powers = list(SCRIPT[FIRST])
        out(f"Seven players join game 'demo' by mail: JOIN demo <power> <password> to {GM}")
        for power in powers:
            await _send(smtp_port, power, f"JOIN demo {power} secret-{power}")
        await _wait_for_acks(factory, len(powers))
        out(f"Each sends its {FIRST} orders, written the way players write them.")
        for power in powers:
            await _send(smtp_port, power, "\n".join([f"SIGNON {power} demo secret-{power}", *SCRIPT[FIRST][power]]))
        await _wait_for_acks(factory, 2 * len(powers))
        ack = await _latest(imap_port, "France")
        out("\nThe acknowledgement France received:\n")
        out(ack)
        await _send(smtp_port, "Germany", GERMAN_REPLY)
        await _wait_for_acks(factory, 2 * len(powers) + 1)
        out("Germany changes its orders by replying from a phone:\n")
        out("\n".join("  | " + line for line in GERMAN_REPLY.splitlines()))
        out("\nand gets (the quoted mail below the attribution is not read):\n")
        out(await _latest(imap_port, "Germany"))
    finally:
        service.cancel()
        try:
            await service
        except asyncio.CancelledError:
            pass


async def _send(port: int, power: str, body: str) -> None:
    msg = EmailMessage()
    msg["From"] = _address(power)
    msg["To"] = GM
    msg["Subject"] = f"{power} orders"
    msg.set_content(body)
    # The embedded SMTP server takes mail for the GM from anyone, as a mail exchanger does.
    await aiosmtplib.send(msg, hostname="127.0.0.1", port=port)


async def _wait_for_port(port: int, timeout: float = 20) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while True:
        try:
            _, writer = await asyncio.open_connection("127.0.0.1", port)
            writer.close()
            return
        except OSError:
            if loop.time() > deadline:
                raise
            await asyncio.sleep(0.1)


async def _wait_for_acks(factory, count: int, timeout: float = 120) -> None:  # type: ignore[no-untyped-def]
    def sent() -> int:
        with transaction(factory) as s:
            return int(s.scalar(select(func.count()).select_from(OutboundMail).where(OutboundMail.sent_at.is_not(None))))

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while await asyncio.to_thread(sent) < count:
        if loop.time() > deadline:
            raise TimeoutError(f"fewer than {count} acknowledgements were sent in {timeout} s")
        await asyncio.sleep(0.2)


async def _latest(port: int, power: str) -> str:
    """The newest mail in the player's own mailbox, as text."""
    client = aioimaplib.IMAP4(host="127.0.0.1", port=port, timeout=10)
    await client.wait_hello_from_server()
    await client.login(mailbox_name(_address(power)), PASSWORD)
    selected = await client.select("INBOX")
    count = aioimaplib.extract_exists(selected) or 0
    response = await client.fetch(str(count), "(BODY.PEEK[])")
    await client.logout()
    raw = next(bytes(line) for line in response.lines if isinstance(line, bytearray))
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    body = msg.get_body(preferencelist=("plain",))
    return body.get_content() if body is not None else ""  # type: ignore[union-attr]
