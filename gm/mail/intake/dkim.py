"""DKIM (RFC 6376, with dkimpy): whether a mail was signed by its sender's own domain, for the games
that require it (SET DKIM REQUIRED refuses SIGNON in any other mail).

A signature counts only if it verifies, covers the From header and the whole body, and its d=
domain is the From address's domain or a parent of it (relaxed alignment). The public keys are
looked up by a function (name -> TXT record): DNS for the judge, a dict for the tests. Mail is
verified before its transaction begins (see gm.mail.ingest): a look-up must not hold the database.
"""
from __future__ import annotations

import enum
import logging
from collections.abc import Callable

import dkim as dkimpy
from dkim.canonicalization import CanonicalizationPolicy
from dkim.dnsplug import get_txt as _dns_txt

log = logging.getLogger(__name__)

DnsLookup = Callable[[str], "str | bytes | None"]  # 'sel._domainkey.example.com' -> its TXT record, or None
MAX_SIGNATURES = 5  # signatures tried in one mail: a relay adds one at most, a sender one or two
TIMEOUT = 5  # seconds for one key look-up


class Verdict(enum.Enum):
    """What the DKIM signatures of a mail say of its From address; the value is how a refused
    SIGNON says it."""

    SIGNED = "it is signed by your domain"
    UNSIGNED = "this mail is unsigned"
    BAD = "its signature does not verify"
    OTHER_DOMAIN = "it is signed by another domain"
    UNCHECKED = "its signature could not be checked (no answer for its key from DNS): send it again later"


def has_signature(raw: bytes) -> bool:
    """Whether the mail's header carries a DKIM-Signature (cheap: no parsing of the mail)."""
    head = raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    return b"dkim-signature:" in head.lower()


def refusal(game: str, required: bool, verdict: Verdict | None) -> str | None:
    """Why a SIGNON to `game` is refused for want of DKIM, or None when it may go on. The words are
    the judge's own: they may be told to a sender who signed on to nothing."""
    if not required or verdict is Verdict.SIGNED:
        return None
    why = (verdict or Verdict.UNSIGNED).value
    return f"{game} requires mail signed with DKIM by your domain: {why}"


class KeyCache:
    """The key look-ups of one batch of mail: most of its mails come from a few domains. A look-up
    that fails (a DNS timeout) is remembered as failed, so that one dead domain costs the batch
    one timeout."""

    def __init__(self, lookup: DnsLookup | None = None) -> None:
        self.lookup = lookup
        self._found: dict[str, bytes | None | Exception] = {}

    def txt(self, name: bytes, timeout: int = TIMEOUT) -> bytes | None:
        """dkimpy's `dnsfunc`: the TXT record of `name` (b'sel._domainkey.example.com.')."""
        key = name.decode("ascii", "replace").rstrip(".").lower()
        if key not in self._found:
            try:
                if self.lookup is None:
                    found = _dns_txt(name, timeout=timeout)
                else:
                    found = self.lookup(key)
                self._found[key] = found.encode("ascii", "replace") if isinstance(found, str) else found
            except Exception as e:
                log.info("DKIM key %s: look-up failed: %s: %s", key, type(e).__name__, e)
                self._found[key] = e
        found = self._found[key]
        if isinstance(found, Exception):
            raise dkimpy.DnsTimeoutError(str(found))  # dkimpy counts the signature as not verified
        return found

    def failed(self, name: bytes) -> bool:
        return isinstance(self._found.get(name.decode("ascii", "replace").rstrip(".").lower()), Exception)


def verdict(raw: bytes, sender: str, keys: KeyCache | None = None) -> Verdict:
    """The verdict on mail `raw` whose From address is `sender`. Never raises. Of several
    signatures, one that verifies and is aligned wins; else what became of the aligned ones tells
    the sender most (a relay may add a valid signature of its own domain)."""
    if not has_signature(raw):
        return Verdict.UNSIGNED
    keys = keys or KeyCache()
    domain = _ascii_domain(sender.rpartition("@")[2])
    try:
        signer = dkimpy.DKIM(raw, logger=_QUIET, timeout=TIMEOUT)
        count = sum(1 for name, _ in signer.headers if name.lower() == b"dkim-signature")
    except Exception:  # dkimpy could not read the mail at all
        return Verdict.BAD
    seen = [_one(signer, idx, domain, keys) for idx in range(min(count, MAX_SIGNATURES))]
    if (True, Verdict.SIGNED) in seen:
        return Verdict.SIGNED
    if (True, Verdict.UNCHECKED) in seen:
        return Verdict.UNCHECKED
    if any(aligned for aligned, _ in seen):
        return Verdict.BAD
    return Verdict.OTHER_DOMAIN if (False, Verdict.SIGNED) in seen else Verdict.BAD


def _one(signer: dkimpy.DKIM, idx: int, domain: str, keys: KeyCache) -> tuple[bool, Verdict]:
    """Signature number `idx` (0: the topmost) of the mail: whether its d= is aligned with the From
    domain `domain`, and SIGNED (it verifies), BAD or UNCHECKED."""
    signer.signature_fields, signer.include_headers = {}, ()
    try:
        valid = bool(signer.verify(idx=idx, dnsfunc=keys.txt))
    except Exception as e:  # a signature dkimpy cannot read: it does not verify
        log.debug("DKIM signature %d: %s: %s", idx, type(e).__name__, e)
        valid = False
    fields = signer.signature_fields or {}
    signed_by = fields.get(b"d", b"").decode("ascii", "replace").rstrip(".").lower()
    aligned = "." in signed_by and (domain == signed_by or domain.endswith("." + signed_by))
    if not valid:
        key = fields.get(b"s", b"") + b"._domainkey." + signed_by.encode("ascii", "replace")
        return aligned, Verdict.UNCHECKED if keys.failed(key) else Verdict.BAD
    if b"from" not in signer.include_headers or not _whole_body(signer, fields):
        return aligned, Verdict.BAD
    return aligned, Verdict.SIGNED


def _whole_body(signer: dkimpy.DKIM, fields: dict[bytes, bytes]) -> bool:
    """Whether the signature covers the whole body: one with a length (l=) covers only what came
    first, and anyone may add lines after it."""
    if b"l" not in fields:
        return True
    policy = CanonicalizationPolicy.from_c_value(fields.get(b"c", b"simple/simple"))
    return int(fields[b"l"]) >= len(policy.canonicalize_body(signer.body))


def _ascii_domain(domain: str) -> str:
    """The From domain as DKIM's d= writes it (an internationalised one in its ASCII form)."""
    domain = domain.strip().rstrip(".").lower()
    try:
        return domain.encode("idna").decode("ascii")
    except UnicodeError:
        return domain


class _Quiet:
    """dkimpy's logger: it logs a signature that fails as an error; here that is the mail's
    problem, not the judge's."""

    def debug(self, msg: object, *args: object) -> None:
        log.debug(msg, *args)

    info = warning = error = debug


_QUIET = _Quiet()
