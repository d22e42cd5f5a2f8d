"""A real DNS server for the tests (dnslib, UDP and TCP on loopback), serving records a test adds,
and the judge's DNS pointed at it (gm.mail.intake.dns): DKIM, SPF and DMARC checks then run as in
production, against records of the test's own. Also what a sending domain publishes and does:
a DKIM key pair, SPF and DMARC records, a signed mail.

The fixture `dns_zone` is exposed to every test by tests/conftest.py."""
from __future__ import annotations

import base64
import logging
import threading
from collections.abc import Iterator

import dkim
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from dnslib import MX, PTR, QTYPE, RCODE, RR, TXT, A, DNSRecord
from dnslib.server import BaseResolver, DNSHandler, DNSLogger, DNSServer

import gm.mail.intake.dns

log = logging.getLogger(__name__)

SIGNED_HEADERS = (b"From", b"To", b"Subject", b"Date", b"Message-ID")


class Zone(BaseResolver):
    """The records served, by name (lower case, no final dot): lists of (type, text). Types: TXT
    (any length: split into strings of 255 bytes), A, MX ("preference host" or "host")."""

    def __init__(self) -> None:
        self.records: dict[str, list[tuple[str, str]]] = {}
        self.servers: list[DNSServer] = []
        self.port = 0

    @property
    def address(self) -> str:
        """The server as gm.mail.intake.dns.configure and GM_DNS_SERVER take it."""
        return f"127.0.0.1:{self.port}"

    def add(self, name: str, type: str, value: str) -> None:
        self.records.setdefault(_key(name), []).append((type.upper(), value))

    def resolve(self, request: DNSRecord, handler: DNSHandler) -> DNSRecord:
        reply = request.reply()
        name, qtype = _key(str(request.q.qname)), QTYPE[request.q.qtype]
        # A name that holds no records but is above one that does (_domainkey.example.org) exists.
        if not any(known == name or known.endswith("." + name) for known in self.records):
            reply.header.rcode = RCODE.NXDOMAIN
        for type, value in self.records.get(name, []):
            if type == qtype:
                reply.add_answer(RR(request.q.qname, QTYPE.reverse[type], rdata=_rdata(type, value), ttl=60))
        return reply

    def start(self) -> None:
        """Serve on UDP and TCP, on the same free port."""
        quiet = DNSLogger(log="-recv,-send,-request,-reply,-truncated,-data", logf=log.debug)
        for _ in range(10):  # the TCP port of the UDP port found free may be taken
            udp = DNSServer(self, address="127.0.0.1", port=0, logger=quiet)
            port = udp.server.server_address[1]
            try:
                tcp = DNSServer(self, address="127.0.0.1", port=port, tcp=True, logger=quiet)
            except OSError:
                udp.server.server_close()
                continue
            break
        else:
            raise RuntimeError("no port free for both UDP and TCP")
        self.servers, self.port = [udp, tcp], port
        for server in self.servers:  # as DNSServer.start_thread, but quick to stop (every 0.5 s by default)
            threading.Thread(target=server.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    def stop(self) -> None:
        """Stop answering: the port is closed, and a look-up there is refused."""
        for server in self.servers:
            server.stop()
            server.server.server_close()
        self.servers = []


def _key(name: str) -> str:
    return name.lower().rstrip(".")


def _rdata(type: str, value: str) -> TXT | A | MX | PTR:
    if type == "TXT":
        data = value.encode()
        return TXT([data[i : i + 255] for i in range(0, len(data), 255)] or [b""])
    if type == "A":
        return A(value)
    if type == "MX":
        preference, _, host = value.rpartition(" ")
        return MX(host, int(preference or 10))
    if type == "PTR":
        return PTR(value)
    raise ValueError(f"no such record type here: {type}")


@pytest.fixture
def dns_zone() -> Iterator[Zone]:
    """A DNS server of the test's own, which the judge's DNS asks (gm.mail.intake.dns); unknown names are
    NXDOMAIN. Stopped at the end, and the judge's DNS is the system's again."""
    zone = Zone()
    zone.start()
    gm.mail.intake.dns.configure(zone.address)
    try:
        yield zone
    finally:
        zone.stop()
        gm.mail.intake.dns.configure(None)


def publish_dkim(zone: Zone, domain: str, selector: str = "s1") -> bytes:
    """Make an RSA key pair for `domain` and publish its public key at `selector`._domainkey.`domain`;
    returns the private key (PEM), for `sign`."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = key.public_key().public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    zone.add(f"{selector}._domainkey.{domain}", "TXT", f"v=DKIM1; k=rsa; p={base64.b64encode(public).decode()}")
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.TraditionalOpenSSL, serialization.NoEncryption()
    )


def publish_spf(zone: Zone, domain: str, record: str = "v=spf1 ip4:127.0.0.1 -all") -> None:
    zone.add(domain, "TXT", record)


def publish_dmarc(zone: Zone, domain: str, record: str = "v=DMARC1; p=reject") -> None:
    zone.add(f"_dmarc.{domain}", "TXT", record)


def sign(raw: bytes, domain: str, selector: str, key: bytes) -> bytes:
    """`raw` with a DKIM-Signature of `domain` on top, over its From, To, Subject, Date and Message-ID."""
    signature = dkim.sign(raw, selector.encode(), domain.encode(), key, include_headers=list(SIGNED_HEADERS))
    return signature + raw
