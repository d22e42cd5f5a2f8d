"""A large receiver's check of the judge's mail, on a real SMTP port (aiosmtpd): SPF for the
envelope's MAIL FROM and the connecting address, DKIM, and DMARC with From alignment, by
authheaders from the headers as they arrive and the DNS (the tests' own: tests/dnsserver.py).
Shared by the DKIM tests (the judge's outbox straight to it) and the Postfix tests (through a
relay, as mail really reaches a receiver)."""
from __future__ import annotations

import asyncio
import email
import email.policy
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from email.message import EmailMessage
from typing import Any

import authheaders
from aiosmtpd.controller import Controller

import gm.mail.intake.dns  # noqa: F401 - authheaders with the public suffix list read once
from loopback import free_port

AUTHSERV_ID = "mx.receiver.example"


@dataclass(frozen=True)
class Arrival:
    """One mail as the receiver took it, and its verdict (an Authentication-Results value)."""

    mail_from: str
    rcpt_tos: tuple[str, ...]
    ip: str  # the address SPF was checked for
    helo: str
    content: bytes
    verdict: str

    def result(self, method: str) -> str | None:
        """The verdict's result of one method ('spf', 'dkim', 'dmarc'): 'pass', 'fail', 'none', ..."""
        found = re.search(rf"(?:^|[;\s]){method}=(\w+)", self.verdict)
        return found.group(1) if found else None

    @property
    def message(self) -> EmailMessage:
        return email.message_from_bytes(self.content, policy=email.policy.default)  # type: ignore[return-value]


class Receiver:
    """aiosmtpd handler checking each mail as it arrives; keeps each Arrival. SPF is checked for the
    connecting address and the client's HELO, unless `ip` and `helo` say others (a test sending
    straight from loopback as if from a host of its choosing)."""

    def __init__(self, ip: str | None = None, helo: str | None = None) -> None:
        self.ip, self.helo = ip, helo
        self.arrivals: list[Arrival] = []
        self.lock = threading.Lock()

    @property
    def verdicts(self) -> list[str]:
        with self.lock:
            return [a.verdict for a in self.arrivals]

    def to(self, address: str) -> list[Arrival]:
        """The mails that arrived for `address` so far."""
        with self.lock:
            return [a for a in self.arrivals if address in a.rcpt_tos]

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        ip = self.ip or session.peer[0]
        helo = self.helo or session.host_name or ""
        content = envelope.original_content or envelope.content
        verdict = await asyncio.to_thread(authheaders.authenticate_message, content, AUTHSERV_ID, spf=True, dkim=True,
                                          dmarc=True, ip=ip, mail_from=envelope.mail_from, helo=helo)
        with self.lock:
            self.arrivals.append(Arrival(envelope.mail_from, tuple(envelope.rcpt_tos), ip, helo, content, verdict))
        return "250 Accepted"


@contextmanager
def receiving(receiver: Receiver) -> Iterator[int]:
    """The receiver on a free loopback port (yielded) until the end of the block."""
    port = free_port()
    controller = Controller(receiver, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield port
    finally:
        controller.stop()
