"""Who really sent a mail: what proves its From address, and what shows it forged.

A From line is anyone's to write. Real mail usually carries proof of it, and the judge reads two
kinds:

* **The verdict of the operator's own receiving server**, which checked SPF, DKIM and DMARC when the
  mail arrived and wrote them in an Authentication-Results header (RFC 8601). Trusted only when it
  is the topmost such header and names that server (the `authserv_id` setting; in the default
  set-up the embedded server's own, which removes any header claiming its name before writing its
  own): every header below it may have been written by the sender. A server that writes several
  headers has only its topmost read.
* **A DKIM signature by the From domain, verified by the judge itself** (gm.mail.intake.dkim), for the mail
  that asks for something (see gm.mail.ingest). This needs no receiving server of the operator's:
  it is what a provider's mailbox, or any set-up without a trusted verdict, relies on. SPF cannot
  be checked here: it needs the address the mail came from, which only the receiving server saw.

A mail is AUTHENTICATED when a trusted verdict says dmarc=pass for its From domain, or dkim=pass
or spf=pass for a domain aligned with it (the From domain or a parent of it), or when its own
DKIM signature verifies. It is FORGED when a trusted verdict says dmarc=fail and the From domain's
policy asks receivers to refuse or quarantine such mail: the domain itself disowns it. Anything
else is UNPROVEN: no proof either way (most forged mail, and some real mail from small domains).
What each may make the judge do is gm.mail.budget's.
"""
from __future__ import annotations

import enum
import logging
import re
from dataclasses import dataclass, replace
from email.parser import BytesHeaderParser
from email.policy import compat32

import authres

from gm.mail.intake import dkim

log = logging.getLogger(__name__)

HEADER = "Authentication-Results"
_REFUSING_POLICY = re.compile(r"\bdmarc\s*=\s*fail\b[^;]*?\b(?:p|policy\.dmarc)\s*=\s*(reject|quarantine)\b", re.I)


class Proof(enum.Enum):
    AUTHENTICATED = "authenticated"
    UNPROVEN = "unproven"
    FORGED = "forged"


@dataclass(frozen=True)
class Provenance:
    """What proves (or disproves) a mail's From address, and how it was found (for the log)."""

    proof: Proof
    how: str
    dkim: dkim.Verdict | None = None  # the DKIM verdict, where one was made or read (SET DKIM REQUIRED)

    @property
    def authenticated(self) -> bool:
        return self.proof is Proof.AUTHENTICATED


UNPROVEN = Provenance(Proof.UNPROVEN, "no proof")


def trusted_results(raw: bytes, authserv_id: str | None) -> str | None:
    """The value of the topmost Authentication-Results header of `raw`, when it names `authserv_id`;
    None when there is none, or the topmost names another server (it is then no one's to trust)."""
    if not authserv_id:
        return None
    head = raw.split(b"\r\n\r\n", 1)[0].split(b"\n\n", 1)[0]
    if b"authentication-results" not in head.lower():
        return None
    found = BytesHeaderParser(policy=compat32).parsebytes(head + b"\r\n\r\n").get_all(HEADER) or []
    if not found:
        return None
    value = re.sub(r"\s+", " ", str(found[0])).strip()
    written_by = value.split(";", 1)[0].strip().split(" ")[0].lower()
    return value if written_by == authserv_id.strip().lower() else None


def from_results(value: str, sender: str) -> Provenance | None:
    """What a trusted Authentication-Results value says of `sender`'s address: AUTHENTICATED,
    FORGED, or None when it proves nothing either way (a verdict of none, temperror, another
    domain's pass)."""
    try:
        header = authres.AuthenticationResultsHeader.parse_value(value)
    except Exception as e:  # authres raises its own errors on a header it cannot read
        log.info("an Authentication-Results header that cannot be read: %s", type(e).__name__)
        return None
    domain = _domain(sender)
    signed = False
    for result in header.results:
        method, verdict = (result.method or "").lower(), (result.result or "").lower()
        if verdict != "pass":
            continue
        props = {(p.type or "").lower() + "." + (p.name or "").lower(): str(p.value or "") for p in result.properties}
        if method == "dmarc" and _domain(props.get("header.from", "")) == domain:
            return Provenance(Proof.AUTHENTICATED, f"dmarc=pass ({header.authserv_id})", _signed_if(signed))
        if method == "dkim" and aligned(domain, props.get("header.d") or _domain(props.get("header.i", ""))):
            signed = True
        if method == "spf" and aligned(domain, _domain(props.get("smtp.mailfrom", ""))):
            return Provenance(Proof.AUTHENTICATED, f"spf=pass ({header.authserv_id})", _signed_if(signed))
    if signed:
        return Provenance(Proof.AUTHENTICATED, f"dkim=pass ({header.authserv_id})", dkim.Verdict.SIGNED)
    if _REFUSING_POLICY.search(value):
        return Provenance(Proof.FORGED, f"dmarc=fail, its domain's policy refuses it ({header.authserv_id})")
    return None


def judge(raw: bytes, sender: str, authserv_id: str | None, keys: dkim.KeyCache | None, *,
          need_proof: bool, need_dkim: bool) -> Provenance:
    """The provenance of mail `raw` whose From address is `sender`: the trusted verdict first (no
    look-up); then the mail's own DKIM signature (key look-ups, with `keys`) when `need_proof` (the
    mail asks for something) and no trusted verdict decided, or when `need_dkim` (it signs on to a
    game that requires DKIM) and none said it is signed. Never raises."""
    value = trusted_results(raw, authserv_id)
    found = from_results(value, sender) if value is not None else None
    if not ((need_proof and found is None) or (need_dkim and (found is None or found.dkim is None))):
        return found or UNPROVEN
    verdict = dkim.verdict(raw, sender, keys)
    if found is not None:
        return found if found.dkim is not None else replace(found, dkim=verdict)
    if verdict is dkim.Verdict.SIGNED:
        return Provenance(Proof.AUTHENTICATED, "DKIM signature of its domain, verified", verdict)
    return Provenance(Proof.UNPROVEN, "no proof", verdict)


def aligned(domain: str, signer: str) -> bool:
    """Whether `signer` (a DKIM d= or an SPF domain) vouches for the From domain `domain`: the same
    domain or a parent of it, never a bare top-level domain."""
    signer = _domain(signer)
    return "." in signer and (domain == signer or domain.endswith("." + signer))


def _domain(text: str) -> str:
    """The domain of an address or a domain, lower case, in its ASCII form, without a final dot."""
    domain = text.strip().strip("<>").rpartition("@")[2].strip().rstrip(".").lower()
    try:
        return domain.encode("idna").decode("ascii")
    except UnicodeError:
        return domain


def _signed_if(signed: bool) -> dkim.Verdict | None:
    return dkim.Verdict.SIGNED if signed else None
