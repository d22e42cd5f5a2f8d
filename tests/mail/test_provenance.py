"""What proves a mail's From address (gm.mail.intake.provenance): a receiving server's Authentication-Results
read only from that server and only on top, each method's pass counted only for the From domain or
a parent of it, and a domain's own DMARC refusal read as forged. (The verdicts made for real, by a
receiving server against DNS, are tested in tests/security/test_forgery.py.)"""
from __future__ import annotations

import pytest

from gm.mail.intake.provenance import Proof, aligned, from_results, judge, trusted_results

MX = "mx.operator.example"


def raw(*headers: str) -> bytes:
    return ("".join(h + "\r\n" for h in headers) + "From: ann@players.example\r\nSubject: x\r\n\r\nHOLD\r\n").encode()


@pytest.mark.parametrize(("value", "proof"), [
    (f"{MX}; dmarc=pass header.from=players.example", Proof.AUTHENTICATED),
    (f"{MX}; dmarc=pass header.from=other.example", None),
    (f"{MX}; dkim=pass header.d=players.example header.s=s1", Proof.AUTHENTICATED),
    (f"{MX}; dkim=pass header.i=@players.example", Proof.AUTHENTICATED),
    (f"{MX}; dkim=pass header.d=example", None),  # a bare top-level domain vouches for nobody
    (f"{MX}; dkim=pass header.d=relay.example; spf=pass smtp.mailfrom=bounce@relay.example", None),
    (f"{MX}; spf=pass smtp.mailfrom=ann@players.example", Proof.AUTHENTICATED),
    (f"{MX}; spf=pass smtp.mailfrom=ann@mail.players.example", None),  # a child does not vouch for its parent
    (f"{MX}; spf=fail smtp.mailfrom=ann@players.example; dkim=fail header.d=players.example", None),
    (f"{MX}; dmarc=fail (p=reject dis=none) header.from=players.example", Proof.FORGED),
    (f"{MX}; dmarc=fail header.from=players.example policy.dmarc=quarantine", Proof.FORGED),
    (f"{MX}; dmarc=fail (p=none) header.from=players.example", None),  # the domain asks nothing of receivers
    (f"{MX}; none", None),
    (f"{MX}; dkim=temperror header.d=players.example", None),
    (f"{MX}; this is not ;; a header = at all", None),
])
def test_what_a_trusted_verdict_says(value: str, proof: Proof | None) -> None:
    found = from_results(value, "ann@players.example")
    assert (found.proof if found is not None else None) is proof


def test_only_the_topmost_header_and_only_the_trusted_server() -> None:
    mine = f"Authentication-Results: {MX};\r\n  dmarc=pass header.from=players.example"
    forged = f"Authentication-Results: {MX}; dmarc=pass header.from=players.example"
    other = "Authentication-Results: mx.other.example; dmarc=pass header.from=players.example"
    assert trusted_results(raw(mine), MX) == f"{MX}; dmarc=pass header.from=players.example"  # unfolded
    assert trusted_results(raw(mine), MX.upper()) is not None
    assert trusted_results(raw(mine), None) is None  # no server trusted
    assert trusted_results(raw(other, forged), MX) is None  # the topmost is another server's
    assert trusted_results(raw(f"Authentication-Results: {MX}; none", forged), MX) == f"{MX}; none"
    assert trusted_results(raw(f"Authentication-Results: {MX}.evil.example; none"), MX) is None
    assert trusted_results(raw(), MX) is None


def test_judge_without_a_signature_or_a_verdict_proves_nothing_and_looks_nothing_up() -> None:
    def no_dns(name: str) -> str:
        raise AssertionError(f"looked up {name}")

    from gm.mail.intake.dkim import KeyCache, Verdict

    found = judge(raw(), "ann@players.example", MX, KeyCache(no_dns), need_proof=True, need_dkim=True)
    assert found.proof is Proof.UNPROVEN and found.dkim is Verdict.UNSIGNED
    trusted = raw(f"Authentication-Results: {MX}; dkim=pass header.d=players.example")
    found = judge(trusted, "ann@players.example", MX, KeyCache(no_dns), need_proof=True, need_dkim=True)
    assert found.proof is Proof.AUTHENTICATED and found.dkim is Verdict.SIGNED


def test_alignment() -> None:
    assert aligned("players.example", "players.example")
    assert aligned("mail.players.example", "players.example")
    assert not aligned("players.example", "mail.players.example")
    assert not aligned("players.example", "example") and not aligned("players.example", "")
    assert not aligned("evilplayers.example", "players.example")
