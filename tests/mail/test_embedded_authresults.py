"""The embedded SMTP server's Authentication-Results (RFC 8601) on mail to the GM: real SPF, DKIM and
DMARC verdicts (authheaders, pyspf, dkimpy) against a real DNS server of the test's own
(tests/dnsserver.py), a forged header of its own authserv-id dropped, and the mail delivered even
when DNS does not answer. Also gm.mail.intake.dns, the judge's DNS."""
from __future__ import annotations

import email
import email.policy
import email.utils
from email.message import EmailMessage
from pathlib import Path
from typing import TYPE_CHECKING

import aiosmtplib
import authres
import pytest

import gm.mail.intake.dns
import gm.mail.embedded
from dnsserver import Zone, publish_dkim, publish_dmarc, publish_spf, sign
from gm.mail.embedded import EmbeddedMail, drop_results, embedded_mail
from gm.settings import EMBEDDED_AUTHSERV_ID, Settings, SettingsError, load_settings
from loopback import free_port

if TYPE_CHECKING:  # fixtures' types only: see conftest.py on why nothing is imported from it
    from conftest import ReadMailbox

GM = "gm@example.org"
ALICE = "alice@example.org"


def mail_from(sender: str, extra: str = "") -> bytes:
    """A mail from `sender` to the GM, with CRLF line ends (as it travels, and as DKIM signs it)."""
    msg = EmailMessage()
    msg["From"] = sender
    msg["To"] = GM
    msg["Subject"] = "orders"
    msg["Date"] = email.utils.formatdate(localtime=True)
    msg["Message-ID"] = email.utils.make_msgid(domain=sender.split("@")[1])
    msg.set_content("A Par-Bur\n")
    return extra.encode() + msg.as_bytes(policy=email.policy.SMTP)


async def send(mail: EmbeddedMail, raw: bytes, sender: str, to: str = GM) -> None:
    """Over SMTP to the embedded server, as any mail server on the internet would: no login."""
    await aiosmtplib.send(
        raw, sender=sender, recipients=[to], hostname=mail.smtp.host, port=mail.smtp.port, start_tls=False, timeout=30
    )


async def delivered(mail: EmbeddedMail, read_mailbox: ReadMailbox) -> EmailMessage:
    (stored,) = await read_mailbox(mail.imap)
    msg = email.message_from_bytes(stored.raw, policy=email.policy.default)
    assert isinstance(msg, EmailMessage)
    return msg


def verdict(msg: EmailMessage) -> dict[str, str]:
    """The topmost Authentication-Results of `msg`, which must be the embedded server's: method -> result."""
    assert list(msg.keys())[:3] == ["Return-Path", "Delivered-To", "Authentication-Results"]
    header = authres.AuthenticationResultsHeader.parse("Authentication-Results: " + str(msg["Authentication-Results"]))
    assert header.authserv_id == EMBEDDED_AUTHSERV_ID
    return {result.method: result.result for result in header.results}


async def test_signed_mail_passes_spf_dkim_and_dmarc(
    tmp_path: Path, dns_zone: Zone, read_mailbox: ReadMailbox
) -> None:
    key = publish_dkim(dns_zone, "signed.example")
    publish_spf(dns_zone, "signed.example", "v=spf1 ip4:127.0.0.1 -all")
    publish_dmarc(dns_zone, "signed.example", "v=DMARC1; p=reject")
    async with embedded_mail(tmp_path, GM) as mail:
        await send(mail, sign(mail_from("alice@signed.example"), "signed.example", "s1", key), "alice@signed.example")
        msg = await delivered(mail, read_mailbox)
    assert verdict(msg) == {"spf": "pass", "dkim": "pass", "dmarc": "pass"}
    assert msg["Return-Path"] == "<alice@signed.example>" and msg["DKIM-Signature"]


async def test_a_forged_from_fails_dmarc(tmp_path: Path, dns_zone: Zone, read_mailbox: ReadMailbox) -> None:
    publish_spf(dns_zone, "strict.example", "v=spf1 ip4:192.0.2.1 -all")
    publish_dmarc(dns_zone, "strict.example", "v=DMARC1; p=reject")
    async with embedded_mail(tmp_path, GM) as mail:
        await send(mail, mail_from("someone@strict.example"), "someone@strict.example")
        msg = await delivered(mail, read_mailbox)
    assert verdict(msg) == {"spf": "fail", "dkim": "fail", "dmarc": "fail"}  # authheaders: unsigned is dkim=fail
    assert "policy.dmarc=reject" in str(msg["Authentication-Results"])  # the domain disowns it (gm.mail.intake.provenance)


async def test_a_forged_header_of_its_own_id_is_dropped(
    tmp_path: Path, dns_zone: Zone, read_mailbox: ReadMailbox
) -> None:
    publish_spf(dns_zone, "strict.example", "v=spf1 -all")
    publish_dmarc(dns_zone, "strict.example", "v=DMARC1; p=reject")
    forged = (
        f"Authentication-Results: {EMBEDDED_AUTHSERV_ID.upper()};\r\n dkim=pass header.d=strict.example;\r\n"
        "  dmarc=pass header.from=strict.example\r\n"
        "Authentication-Results: mx.other.example; dmarc=pass header.from=strict.example\r\n"
    )
    async with embedded_mail(tmp_path, GM) as mail:
        await send(mail, mail_from("someone@strict.example", extra=forged), "someone@strict.example")
        msg = await delivered(mail, read_mailbox)
    assert verdict(msg)["dmarc"] == "fail"
    # Only this server's own verdict claims its id; another server's header stays, below it.
    all_results = [str(h) for h in msg.get_all("Authentication-Results", [])]
    assert len(all_results) == 2 and all_results[1].startswith("mx.other.example;")


async def test_a_domain_without_records_has_no_dmarc_policy(
    tmp_path: Path, dns_zone: Zone, read_mailbox: ReadMailbox
) -> None:
    async with embedded_mail(tmp_path, GM) as mail:
        await send(mail, mail_from("bob@nowhere.example"), "bob@nowhere.example")
        results = verdict(await delivered(mail, read_mailbox))
    assert results["dmarc"] == "none" and results["spf"] == "none"


async def test_mail_is_delivered_when_dns_does_not_answer(
    tmp_path: Path, dns_zone: Zone, read_mailbox: ReadMailbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    key = publish_dkim(dns_zone, "signed.example")
    raw = sign(mail_from("alice@signed.example"), "signed.example", "s1", key)
    dns_zone.stop()
    monkeypatch.setattr(gm.mail.intake.dns, "LIFETIME", 0.3)
    gm.mail.intake.dns.configure(f"127.0.0.1:{free_port()}")  # nothing answers there
    async with embedded_mail(tmp_path, GM) as mail:
        await send(mail, raw, "alice@signed.example")
        results = verdict(await delivered(mail, read_mailbox))
    # Every look-up times out; the DMARC one makes authheaders give up, and the verdict is `none`.
    assert "pass" not in results.values()
    assert set(results.values()) <= {"none", "temperror", "fail"}


async def test_a_verdict_taking_too_long_is_none(
    tmp_path: Path, dns_zone: Zone, read_mailbox: ReadMailbox, monkeypatch: pytest.MonkeyPatch
) -> None:
    dns_zone.stop()
    monkeypatch.setattr(gm.mail.intake.dns, "LIFETIME", 0.5)
    gm.mail.intake.dns.configure(f"127.0.0.1:{free_port()}")
    monkeypatch.setattr(gm.mail.embedded, "VERDICT_SECONDS", 0.1)
    async with embedded_mail(tmp_path, GM) as mail:
        await send(mail, mail_from("bob@slow.example"), "bob@slow.example")
        msg = await delivered(mail, read_mailbox)
    assert str(msg["Authentication-Results"]) == f"{EMBEDDED_AUTHSERV_ID}; none"


async def test_players_mailboxes_get_no_verdict(tmp_path: Path, dns_zone: Zone, read_mailbox: ReadMailbox) -> None:
    async with embedded_mail(tmp_path, GM, authserv_id="mx.example.org") as mail:
        raw = mail_from(GM, extra="Authentication-Results: mx.example.org; none\r\n")
        await aiosmtplib.send(raw, sender=GM, recipients=[ALICE, GM], hostname=mail.smtp.host, port=mail.smtp.port,
                              username=mail.smtp.user, password=mail.smtp.password, start_tls=False, timeout=30)
        (alices,) = await read_mailbox(mail.mailbox(ALICE))
        gms = await delivered(mail, read_mailbox)
    assert alices.raw.count(b"Authentication-Results:") == 1  # as it came
    (header,) = gms.get_all("Authentication-Results")
    assert str(header).startswith("mx.example.org; ") and str(header) != "mx.example.org; none"


def test_drop_results_keeps_everything_else_byte_for_byte() -> None:
    raw = (
        b"Received: from x\r\n\tby y\r\n"
        b"Authentication-Results: (comment) \"gm-embedded\" 1; dkim=pass\r\n"
        b"Authentication-Results:\r\n gm-embedded;\r\n spf=pass\r\n"
        b"Authentication-Results: gm-embedded.example; spf=pass\r\n"
        b"Subject: hi\r\n\r\nAuthentication-Results: gm-embedded; body, not header\r\n"
    )
    assert drop_results(raw, "GM-Embedded") == (
        b"Received: from x\r\n\tby y\r\n"
        b"Authentication-Results: gm-embedded.example; spf=pass\r\n"
        b"Subject: hi\r\n\r\nAuthentication-Results: gm-embedded; body, not header\r\n"
    )


# --- gm.mail.intake.dns and the settings ------------------------------------------------------------------


def test_txt_of_a_published_record_and_of_none(dns_zone: Zone) -> None:
    long = "v=DKIM1; k=rsa; p=" + "A" * 400  # more than one string of 255 bytes
    dns_zone.add("s1._domainkey.signed.example", "TXT", long)
    dns_zone.add("host.signed.example", "A", "192.0.2.7")
    assert gm.mail.intake.dns.txt("s1._domainkey.signed.example") == long
    assert gm.mail.intake.dns.txt("S1._domainkey.Signed.Example.") == long
    assert gm.mail.intake.dns.txt("missing.example") is None  # NXDOMAIN
    assert gm.mail.intake.dns.txt("host.signed.example") is None  # no TXT there
    assert gm.mail.intake.dns.txt("_domainkey.signed.example") is None  # a name above a record


def test_txt_raises_when_dns_does_not_answer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gm.mail.intake.dns, "LIFETIME", 0.3)
    gm.mail.intake.dns.configure(f"127.0.0.1:{free_port()}")
    try:
        with pytest.raises(Exception) as raised:
            gm.mail.intake.dns.txt("signed.example")
        assert type(raised.value).__module__.startswith("dns.")
    finally:
        gm.mail.intake.dns.configure(None)


def test_dns_and_authserv_id_settings() -> None:
    assert Settings().trusted_authserv_id == EMBEDDED_AUTHSERV_ID  # embedded mail by default
    real = {"GM_ADDRESS": GM, "GM_IMAP_HOST": "imap.example.org", "GM_IMAP_USER": "gm", "GM_IMAP_PASSWORD": "pw"}
    assert load_settings(environ=real).trusted_authserv_id is None
    settings = load_settings(environ={**real, "GM_AUTHSERV_ID": " mx.example.org ", "GM_DNS_SERVER": "[::1]:5353"})
    assert settings.trusted_authserv_id == "mx.example.org" and settings.dns_server == "[::1]:5353"
    assert load_settings(environ={"GM_DNS_SERVER": ""}).dns_server is None
    for bad in ("dns.example.org", "127.0.0.1:99999", "[::1"):
        with pytest.raises(SettingsError, match="GM_DNS_SERVER"):
            load_settings(environ={"GM_DNS_SERVER": bad})
    with pytest.raises(SettingsError, match="GM_AUTHSERV_ID"):
        load_settings(environ={"GM_AUTHSERV_ID": "mx.example.org; dkim=pass"})
