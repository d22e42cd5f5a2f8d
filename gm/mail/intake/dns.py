"""The judge's DNS: which server it asks for DKIM keys, SPF and DMARC records, and a TXT look-up.

dkimpy (dkim.dnsplug), pyspf and authheaders all ask dnspython's process-wide default resolver
(`dns.resolver.default_resolver`), so pointing that one at a server points all of them: the
operator's own resolver in production (GM_DNS_SERVER), a DNS server of the tests' own in the
tests (tests/dnsserver.py). Every look-up is bounded by a short lifetime, whatever its caller asks
for (dkimpy asks for 5 s, pyspf for 20): an unanswered one must hold a mail's verdict for seconds.
"""
from __future__ import annotations

import functools
import importlib.resources
from typing import Any

import authheaders
import dns.name
import dns.resolver
from authheaders import dmarc_lookup

from gm.settings import dns_server_address

LIFETIME = 3.0  # seconds for one look-up, tries and retries together


@functools.cache
def _suffix_list() -> Any:
    """authheaders' own public suffix list (where it finds it), parsed once."""
    try:
        from authheaders.findpsl import location  # a list the system keeps, where there is one
    except ModuleNotFoundError:
        location = None
    if location is not None:
        with open(location, encoding="utf-8") as lines:
            return dmarc_lookup.PublicSuffixList(lines)
    with importlib.resources.as_file(importlib.resources.files("authheaders") / "public_suffix_list.txt") as path:
        with open(path, encoding="utf-8") as lines:
            return dmarc_lookup.PublicSuffixList(lines)


@functools.lru_cache(maxsize=4096)
def org_domain(domain: str) -> str:
    """The organizational domain of `domain`: 'example.co.uk' of 'mail.example.co.uk'."""
    return str(_suffix_list().get_public_suffix(domain))


authheaders.get_org_domain = dmarc_lookup.get_org_domain = org_domain


class _Resolver(dns.resolver.Resolver):
    """dnspython's resolver, whose own lifetime caps the one a caller asks for."""

    def resolve(
        self, qname: Any, rdtype: Any = "A", rdclass: Any = "IN", tcp: bool = False, source: Any = None,
        raise_on_no_answer: bool = True, source_port: int = 0, lifetime: float | None = None, search: bool | None = None
    ) -> dns.resolver.Answer:
        lifetime = self.lifetime if lifetime is None else min(lifetime, self.lifetime)
        return super().resolve(qname, rdtype, rdclass, tcp, source, raise_on_no_answer, source_port, lifetime, search)


def configure(server: str | None) -> None:
    """Point the default resolver at `server` ("host", "host:port" or "[IPv6]:port", an IP address),
    or back at the system's (/etc/resolv.conf) for None. Raises ValueError for a malformed server."""
    if server is None:
        try:
            resolver = _Resolver()
        except dns.resolver.NoResolverConfiguration:
            # No resolv.conf: leave it to dnspython, which tries again, and raises, at each look-up.
            dns.resolver.default_resolver = None
            return
    else:
        address, port = dns_server_address(server)
        resolver = _Resolver(configure=False)
        resolver.nameservers = [address]
        resolver.port = port
        # No search domains: the names looked up are whole ones, and a miss must not be tried again
        # under the host's own domain.
        resolver.domain = dns.name.root
        resolver.search = []
    resolver.lifetime = LIFETIME
    dns.resolver.default_resolver = resolver


def txt(name: str) -> str | None:
    """The text of the TXT record at `name` (its strings joined; the first record if there are
    several), or None if there is none (NXDOMAIN, or no TXT there). Raises dns.exception.DNSException
    (a timeout, SERVFAIL from every server) when DNS does not say either way."""
    try:
        answer = dns.resolver.resolve(name, "TXT", search=False)
    except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
        return None
    record = next(iter(answer))
    return b"".join(record.strings).decode("utf-8", "replace")
