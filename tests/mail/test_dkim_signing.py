"""The judge's mail signed with DKIM by the GM address's domain (gm.mail.outgoing.signing), and the
domain's DNS as a receiver reads it (`gm mail dns`), against a real DNS server of the test's own
(tests/dnsserver.py): `gm mail dkim-key` makes the key and says the record; the outbox signs every
mail with it; a receiving check that verifies SPF, DKIM and DMARC as a large receiver does
(authheaders, from the real headers and the DNS) passes every mail with From aligned, and fails a
mail signed with another key or sent from a host SPF does not allow."""
from __future__ import annotations

import asyncio
import os
import re
import stat
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from dnsserver import Zone, publish_dmarc, publish_spf
from gm.mail.outgoing.outbox import OutboxSender
from gm.mail.outgoing.signing import load_key, new_key
from gm.settings import MailServer
from gm.store.db import transaction
from gm.store.models import OutboundMail
from mail.receiver import Receiver, receiving

ROOT = Path(__file__).resolve().parents[2]
DOMAIN = "example.org"
GM = f"gm@{DOMAIN}"


def gm_command(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if not k.startswith("GM_")}
    return subprocess.run([sys.executable, "-m", "gm", "mail", *args], cwd=ROOT, env={**base, "GM_ADDRESS": GM, **env},
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("kind", ["rsa", "ed25519"])
def test_gm_mail_dkim_key_makes_a_key_and_says_the_record(tmp_path: Path, kind: str) -> None:
    env = {"GM_DATA_DIR": str(tmp_path)}
    done = gm_command(env, "dkim-key", *(["--ed25519"] if kind == "ed25519" else []))
    assert done.returncode == 0, done.stderr
    path = tmp_path / "dkim-gm1.key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    key = load_key(path, "gm1", DOMAIN)
    assert key.algorithm == kind
    assert "Publish this TXT record, then set GM_DKIM_SELECTOR=gm1" in done.stdout
    assert done.stdout.splitlines()[-1] == f'gm1._domainkey.{DOMAIN}. IN TXT "{key.record()}"'
    assert path.read_text().strip() not in done.stdout  # the private key is never printed
    again = gm_command(env, "dkim-key")
    assert again.returncode == 2 and "exists already" in again.stderr  # a key in use is never replaced
    assert load_key(path, "gm1", DOMAIN) == key


def _made(path: Path, kind: Any) -> Any:
    """A new key of `kind` for gm1._domainkey.example.org, as gm mail dkim-key makes it."""
    new_key(path, kind)
    return load_key(path, "gm1", DOMAIN)


def _queue(sessions: sessionmaker[Session], n: int) -> None:
    at = datetime.now(UTC)
    with transaction(sessions) as session:
        for i in range(n):
            session.add(OutboundMail(to_addr=f"p{i}@players.example", subject=f"[g1] Spring 1901 results {i}",
                                     body_text="Results\n", body_html="<p>Results</p>", kind="results",
                                     created_at=at, next_attempt_at=at, in_reply_to=f"<m{i}@players.example>"))


async def _send_all(sessions: sessionmaker[Session], key: Any, ip: str) -> list[str]:
    receiver = Receiver(ip, helo="judge.example.org")  # as if from that host, not loopback
    with receiving(receiver) as port:
        sender = OutboxSender(MailServer("127.0.0.1", port), sessions, gm_address=GM, poll_seconds=0.05, dkim=key)
        task = asyncio.create_task(sender.run())
        try:
            end = time.monotonic() + 20
            while True:
                with transaction(sessions) as session:
                    if not session.scalar(select(func.count()).select_from(OutboundMail)
                                          .where(OutboundMail.sent_at.is_(None))):
                        break
                assert time.monotonic() < end
                await asyncio.sleep(0.05)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
    return receiver.verdicts


@pytest.mark.parametrize("kind", ["rsa", "ed25519"])
async def test_every_mail_passes_spf_dkim_and_dmarc_at_a_receiver(
        session_factory: sessionmaker[Session], dns_zone: Zone, tmp_path: Path, kind: str) -> None:
    key = _made(tmp_path / "k", kind)
    dns_zone.add(key.record_name, "TXT", key.record())
    publish_spf(dns_zone, DOMAIN, "v=spf1 ip4:192.0.2.25 -all")
    publish_dmarc(dns_zone, DOMAIN, "v=DMARC1; p=reject")
    _queue(session_factory, 3)
    verdicts = await _send_all(session_factory, key, "192.0.2.25")
    assert len(verdicts) == 3
    for verdict in verdicts:
        assert re.search(r"\bspf=pass\b", verdict) and re.search(r"\bdkim=pass\b", verdict), verdict
        assert f"header.d={DOMAIN}" in verdict and re.search(r"\bdmarc=pass\b", verdict), verdict


async def test_another_key_or_a_host_spf_does_not_allow_fails_at_the_receiver(
        session_factory: sessionmaker[Session], dns_zone: Zone, tmp_path: Path) -> None:
    published, signing = _made(tmp_path / "a", "rsa"), _made(tmp_path / "b", "rsa")
    dns_zone.add(published.record_name, "TXT", published.record())
    publish_spf(dns_zone, DOMAIN, "v=spf1 ip4:192.0.2.25 -all")
    publish_dmarc(dns_zone, DOMAIN, "v=DMARC1; p=reject")
    _queue(session_factory, 1)
    (verdict,) = await _send_all(session_factory, signing, "198.51.100.7")  # not the key, not the host
    assert re.search(r"\bdkim=fail\b", verdict) and re.search(r"\bspf=fail\b", verdict), verdict
    assert re.search(r"\bdmarc=fail\b", verdict), verdict


def _publish_all(zone: Zone, key: Any) -> None:
    zone.add(DOMAIN, "MX", f"10 mx.{DOMAIN}")
    zone.add(f"mx.{DOMAIN}", "A", "127.0.0.1")
    zone.add("1.0.0.127.in-addr.arpa", "PTR", f"mx.{DOMAIN}")
    publish_spf(zone, DOMAIN, f"v=spf1 a:mx.{DOMAIN} -all")
    zone.add(key.record_name, "TXT", key.record())
    publish_dmarc(zone, DOMAIN, "v=DMARC1; p=quarantine")


def test_gm_mail_dns_says_what_is_published_and_what_is_missing_or_wrong(dns_zone: Zone, tmp_path: Path) -> None:
    key = _made(tmp_path / "dkim-gm1.key", "rsa")
    env = {"GM_DATA_DIR": str(tmp_path), "GM_DNS_SERVER": dns_zone.address, "GM_DKIM_SELECTOR": "gm1",
           "GM_IMAP_HOST": f"mx.{DOMAIN}", "GM_IMAP_USER": GM, "GM_IMAP_PASSWORD": "pw"}
    _publish_all(dns_zone, key)
    done = gm_command(env, "dns")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines() == [
        f"ok       MX of {DOMAIN}: 10 mx.{DOMAIN}",
        f"ok       SPF of {DOMAIN}: v=spf1 a:mx.{DOMAIN} -all (passes mx.{DOMAIN}, 127.0.0.1)",
        f"ok       DKIM key gm1._domainkey.{DOMAIN}: the judge's rsa key",
        f"ok       DMARC of {DOMAIN}: v=DMARC1; p=quarantine",
        f"ok       reverse DNS of 127.0.0.1: mx.{DOMAIN} (which has 127.0.0.1 again)",
        "gm mail dns: the records a receiver looks at are in place",
    ]
    # Now wrong: another key published, SPF not letting the host send, no DMARC, no reverse DNS.
    dns_zone.records.clear()
    dns_zone.add(DOMAIN, "MX", f"10 mx.{DOMAIN}")
    dns_zone.add(f"mx.{DOMAIN}", "A", "127.0.0.1")
    publish_spf(dns_zone, DOMAIN, "v=spf1 ip4:192.0.2.25 -all")
    dns_zone.add(key.record_name, "TXT", _made(tmp_path / "other.key", "rsa").record())
    done = gm_command(env, "dns")
    assert done.returncode == 1
    lines = done.stdout.splitlines()
    assert lines[1] == (f"WRONG    SPF of {DOMAIN} (v=spf1 ip4:192.0.2.25 -all) says fail for the sending host "
                        f"mx.{DOMAIN} (127.0.0.1): add ip4:127.0.0.1 or a:mx.{DOMAIN} to it")
    assert lines[2] == (f"WRONG    DKIM key gm1._domainkey.{DOMAIN}: it is not the judge's key (mail signed by the judge "
                        f"would fail): publish \"{key.record()}\" instead")
    assert lines[3].startswith(f"MISSING  DMARC of {DOMAIN}: none: publish a TXT record at _dmarc.{DOMAIN} such as ")
    assert lines[4].startswith(f"WRONG    reverse DNS of the sending host mx.{DOMAIN} (127.0.0.1): none")
    assert lines[-1] == "gm mail dns: 4 to publish or put right (MISSING and WRONG lines above)"
    # Nothing at all published for the selector: the record to publish, whole.
    dns_zone.records.pop(key.record_name)
    done = gm_command(env, "dns")
    assert f"MISSING  DKIM key gm1._domainkey.{DOMAIN}: none: publish a TXT record there: \"{key.record()}\"" in \
        done.stdout.splitlines()


def test_gm_serve_will_not_start_with_a_key_it_cannot_read(tmp_path: Path) -> None:
    (tmp_path / "dkim-gm1.key").write_text("not a key\n")
    base = {k: v for k, v in os.environ.items() if not k.startswith("GM_")}
    done = subprocess.run([sys.executable, "-m", "gm", "serve"], cwd=ROOT, capture_output=True, text=True, timeout=60,
                          env={**base, "GM_ADDRESS": GM, "GM_DATA_DIR": str(tmp_path), "GM_DKIM_SELECTOR": "gm1"})
    assert done.returncode != 0
    assert ("the DKIM key " + str(tmp_path / "dkim-gm1.key") + " is neither an RSA key in PEM nor an Ed25519 key "
            "(32 bytes, base64)") in done.stderr
    assert "Traceback" not in done.stderr
