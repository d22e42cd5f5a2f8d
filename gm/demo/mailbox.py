"""A scripted player's side of the mail: sending over the embedded SMTP server, and a mailbox on
its IMAP server read as a mail program reads it."""
from __future__ import annotations

import asyncio
import email
import email.policy
import email.utils
import re
import time
from email.message import EmailMessage
from email.utils import format_datetime

import aioimaplib
import aiosmtplib

from gm.demo.scripts import GM, PLAYERS_DOMAIN
from gm.mail.embedded import mailbox_name


class DemoFailed(Exception):
    """The demo could not go on; the message says where to look."""


async def send(port: int, sender: str, subject: str, body: str) -> None:
    """Mail `body` from `sender` to the GM's address, as a player's mail program would."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = GM
    msg["Subject"] = subject
    msg["Date"] = format_datetime(email.utils.localtime())
    msg["Message-ID"] = email.utils.make_msgid(domain=PLAYERS_DOMAIN)
    msg.set_content(body)
    # The embedded SMTP server takes mail for the GM from anyone, as a mail exchanger does.
    await aiosmtplib.send(msg, hostname="127.0.0.1", port=port)


def plain_text(msg: email.message.EmailMessage) -> str:
    body = msg.get_body(preferencelist=("plain",))
    return body.get_content() if body is not None else ""  # type: ignore[union-attr]



class Mailbox:
    """A player's mailbox on the embedded IMAP server, read as a mail program reads it: what is
    new since last time, then IDLE until the server says more has come."""

    def __init__(self, port: int, address: str, password: str) -> None:
        self.port, self.user, self.password = port, mailbox_name(address), password
        self.client: aioimaplib.IMAP4 | None = None
        self.next_uid = 1

    async def open(self, timeout: float = 60) -> None:
        """Log in; the mailbox exists from its first mail on (the JOIN's confirmation code)."""
        end = time.monotonic() + timeout
        while True:
            client = aioimaplib.IMAP4(host="127.0.0.1", port=self.port, timeout=10)
            try:
                await client.wait_hello_from_server()
                response = await client.login(self.user, self.password)
                if response.result == "OK":
                    await client.select("INBOX")
                    self.client = client
                    return
                await client.logout()
            except (OSError, TimeoutError, aioimaplib.AioImapException):
                pass  # a server slow to answer on a busy machine: try again, until `timeout`
            if time.monotonic() > end:
                raise DemoFailed(f"no mailbox for {self.user} after {timeout:.0f} s")
            await asyncio.sleep(0.2)

    async def new_mail(self, wait: float = 30) -> list[email.message.EmailMessage]:
        """The mails that came since the last call, oldest first; waits up to `wait` seconds for
        one if none has (then returns none)."""
        assert self.client is not None
        end = time.monotonic() + wait
        while True:
            found = await self._fetch_new()
            if found or time.monotonic() >= end:
                return found
            try:
                await self.client.idle_start(timeout=wait + 10)
                await self.client.wait_server_push(max(0.1, end - time.monotonic()))
            except TimeoutError:
                pass
            finally:
                # Also when cancelled mid-IDLE (the demo ends): an IDLE left open holds every
                # later command, the LOGOUT of close() too.
                await self._end_idle()

    async def _end_idle(self) -> None:
        assert self.client is not None
        if self.client.protocol.has_pending_idle_command():
            self.client.idle_done()
            await asyncio.wait([asyncio.ensure_future(self.client.protocol.pending_sync_command.wait())], timeout=10)

    async def _fetch_new(self) -> list[email.message.EmailMessage]:
        assert self.client is not None
        response = await self.client.uid("fetch", f"{self.next_uid}:*", "(UID BODY.PEEK[])")
        mails: list[email.message.EmailMessage] = []
        uid = None
        for line in response.lines:
            if isinstance(line, bytes):
                found = re.search(rb"UID (\d+)", line)
                uid = int(found.group(1)) if found else uid
            elif isinstance(line, bytearray) and uid is not None and uid >= self.next_uid:
                mails.append(email.message_from_bytes(bytes(line), policy=email.policy.default))  # type: ignore[arg-type]
                self.next_uid = uid + 1
        if mails:
            # Read mail is deleted, as a POP-style mail program does: the server looks through
            # every mail in a mailbox each second one IDLEs on, so full mailboxes slow it down.
            # (The GM's database keeps every mail: the .eml files come from there.)
            await self.client.uid("store", f"1:{self.next_uid - 1}", "+FLAGS.SILENT", r"(\Deleted)")
            await self.client.expunge()
        return mails

    async def close(self) -> None:
        """Log out, then drop the connection, in at most a few seconds whatever state the
        server or the connection is in (nothing is lost: read mail is in the player's hands)."""
        if self.client is None:
            return
        client, self.client = self.client, None
        # asyncio.wait, not wait_for: wait_for waits for the command it cancels to end, and a
        # command stuck behind another one may never end.
        logout = asyncio.ensure_future(client.logout())
        await asyncio.wait([logout], timeout=5)
        if not logout.done():
            logout.cancel()
        elif not logout.cancelled():
            logout.exception()  # the server may be gone already: no matter
        if client.protocol.transport is not None:
            client.protocol.transport.abort()

