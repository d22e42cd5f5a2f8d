"""`gm mail dns`: what the GM address's domain publishes in DNS, read as a receiver reads it: its
MX, its SPF (and whether it lets the judge's sending host send), the judge's DKIM key at its
selector, its DMARC policy, and the reverse DNS of the sending host. One line each: what it says
now, and what to publish where it is missing or wrong. It asks the judge's DNS (GM_DNS_SERVER,
else the system's resolver), as the judge's own checks do.
"""
from __future__ import annotations

import ipaddress
import re
from collections.abc import Callable
from dataclasses import dataclass, field

import dns.exception
import dns.resolver
import dns.reversename
import spf

from gm.mail.outgoing.signing import DkimKey, public_key
from gm.settings import Settings


@dataclass
class Report:
    say: Callable[[str], None]
    problems: list[str] = field(default_factory=list)

    def ok(self, text: str) -> None:
        self.say(f"ok       {text}")

    def note(self, text: str) -> None:
        self.say(f"note     {text}")

    def missing(self, text: str) -> None:
        self.say(f"MISSING  {text}")
        self.problems.append(text)

    def wrong(self, text: str) -> None:
        self.say(f"WRONG    {text}")
        self.problems.append(text)


def _txt(name: str, prefix: str) -> list[str]:
    """The TXT records at `name` that start with `prefix` (case-insensitive), their strings joined."""
    try:
        answer = dns.resolver.resolve(name, "TXT", search=False)
    except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
        return []
    texts = [b"".join(r.strings).decode("utf-8", "replace") for r in answer]
    return [t for t in texts if t.lower().startswith(prefix.lower())]


def _addresses(host: str) -> list[str]:
    try:
        ipaddress.ip_address(host)
        return [host]
    except ValueError:
        pass
    found: list[str] = []
    for rdtype in ("A", "AAAA"):
        try:
            found += [r.to_text() for r in dns.resolver.resolve(host, rdtype, search=False)]
        except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
            pass
    return found


def check(settings: Settings, dkim: DkimKey | None, say: Callable[[str], None] = print) -> list[str]:
    """The records of the GM address's domain, said one a line; the problems found."""
    report = Report(say)
    domain = settings.gm_address.rpartition("@")[2].lower()
    if settings.embedded:
        report.note(f"no mail server is set: gm runs its own, on this machine only; {domain}'s DNS matters once "
                    "the judge uses a real mailbox")
    try:
        _mx(report, domain)
        sender = None if settings.embedded else (settings.smtp_host or settings.imap_host)
        _spf(report, domain, settings.gm_address, sender)
        _dkim(report, domain, settings.dkim_selector, dkim)
        _dmarc(report, domain)
        if sender:
            _reverse(report, sender)
    except dns.exception.DNSException as e:
        report.wrong(f"DNS did not answer ({type(e).__name__}): check GM_DNS_SERVER, or this machine's resolver")
    return report.problems


def _mx(report: Report, domain: str) -> None:
    try:
        hosts = sorted((r.preference, r.exchange.to_text().rstrip(".")) for r in
                       dns.resolver.resolve(domain, "MX", search=False))
    except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
        report.missing(f"MX of {domain}: none, so players' mail to the GM address has nowhere to go: publish the "
                       "MX your mail provider names (e.g. '10 mx.example.org.')")
        return
    report.ok(f"MX of {domain}: {', '.join(f'{p} {h}' for p, h in hosts)}")


def _spf(report: Report, domain: str, address: str, sender: str | None) -> None:
    records = _txt(domain, "v=spf1")
    if not records:
        allow = f"a:{sender} " if sender else ""
        report.missing(f"SPF of {domain}: none: publish a TXT record at {domain} such as \"v=spf1 {allow}mx ~all\" "
                       "(or your provider's include:)")
        return
    if len(records) > 1:
        report.wrong(f"SPF of {domain}: {len(records)} records, and a receiver takes none of them: merge them into one")
        return
    if sender is None:
        report.ok(f"SPF of {domain}: {records[0]}")
        return
    ips = _addresses(sender)
    refused = [(ip, result) for ip in ips
               if (result := spf.check2(i=ip, s=address, h=sender)[0]) not in ("pass",)]
    if not ips:
        report.wrong(f"SPF of {domain}: the sending host {sender} has no address in DNS")
    elif refused:
        ip, result = refused[0]
        report.wrong(f"SPF of {domain} ({records[0]}) says {result} for the sending host {sender} ({ip}): add "
                     f"ip{'6' if ':' in ip else '4'}:{ip} or a:{sender} to it")
    else:
        report.ok(f"SPF of {domain}: {records[0]} (passes {sender}, {', '.join(ips)})")


def _dkim(report: Report, domain: str, selector: str | None, key: DkimKey | None) -> None:
    if selector is None or key is None:
        report.note(f"DKIM: the judge signs nothing (no GM_DKIM_SELECTOR); a provider may sign for {domain}, else "
                    "make a key with gm mail dkim-key")
        return
    name = key.record_name
    records = _txt(name, "v=DKIM1")
    if not records:
        report.missing(f"DKIM key {name}: none: publish a TXT record there: \"{key.record()}\"")
        return
    published = re.search(r"(?:^|;)\s*p=([^;]*)", records[0])
    if published is None or "".join(published.group(1).split()) != public_key(key):
        report.wrong(f"DKIM key {name}: it is not the judge's key (mail signed by the judge would fail): publish "
                     f"\"{key.record()}\" instead")
        return
    report.ok(f"DKIM key {name}: the judge's {key.algorithm} key")


def _dmarc(report: Report, domain: str) -> None:
    records = _txt(f"_dmarc.{domain}", "v=DMARC1")
    if not records:
        report.missing(f"DMARC of {domain}: none: publish a TXT record at _dmarc.{domain} such as "
                       f"\"v=DMARC1; p=none; rua=mailto:postmaster@{domain}\" (p=quarantine once every mail passes)")
        return
    policy = re.search(r"(?:^|;)\s*p=([a-z]+)", records[0], re.IGNORECASE)
    report.ok(f"DMARC of {domain}: {records[0]}" + ("" if policy else " (no p=: receivers read it as none)"))


def _reverse(report: Report, host: str) -> None:
    for ip in _addresses(host)[:2]:
        try:
            names = [r.to_text().rstrip(".") for r in dns.resolver.resolve(dns.reversename.from_address(ip), "PTR",
                                                                            search=False)]
        except (dns.resolver.NXDOMAIN, dns.resolver.NoAnswer):
            report.wrong(f"reverse DNS of the sending host {host} ({ip}): none; receivers distrust such hosts: ask "
                         "whoever runs the address to set it to the host's name")
            continue
        confirmed = [n for n in names if ip in _addresses(n)]
        if confirmed:
            report.ok(f"reverse DNS of {ip}: {confirmed[0]} (which has {ip} again)")
        else:
            report.wrong(f"reverse DNS of {ip}: {', '.join(names)}, whose address is not {ip}: the names should "
                         "lead back to the address")

