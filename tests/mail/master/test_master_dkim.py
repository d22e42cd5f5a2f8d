"""DKIM: the verdict on a mail's signatures (keys served from a dict, no DNS), SET DKIM
REQUIRED|OPTIONAL, and SIGNON (of a player and of the GM) refused in mail not signed by the
sender's own domain while it is required."""
from __future__ import annotations

import base64
import secrets
from collections.abc import Callable
from functools import cache

import dkim
import pytest
from desk import JUDGE, MASTER, STANDARD, Desk, address, mail, new_game
from nacl.signing import SigningKey
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import current_phase
from gm.mail.intake import dkim as dkim_check
from gm.mail.commands.master import run_as_operator
from gm.mail.intake.dkim import Verdict
from gm.mail.ingest import Fetched, IngestOutcome, ingest, ingest_batch
from gm.store.db import transaction
from gm.store.models import AuthFailure, OrderRecord

# --- keys and signed mail ------------------------------------------------------------------------


def _prime(bits: int) -> int:
    """A random prime of `bits` bits, its top two bits set so that a product of two has twice the
    bits (dkimpy refuses a key under 1024 bits). Miller-Rabin, 32 rounds."""
    while True:
        n = secrets.randbits(bits) | (3 << (bits - 2)) | 1
        if any(n % p == 0 for p in (3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)):
            continue
        d, r = n - 1, 0
        while d % 2 == 0:
            d, r = d // 2, r + 1
        for _ in range(32):
            x = pow(secrets.randbelow(n - 3) + 2, d, n)
            if x in (1, n - 1):
                continue
            for _ in range(r - 1):
                x = pow(x, 2, n)
                if x == n - 1:
                    break
            else:
                break
        else:
            return n


def _der(tag: int, body: bytes) -> bytes:
    size = len(body)
    if size < 0x80:
        return bytes([tag, size]) + body
    octets = size.to_bytes((size.bit_length() + 7) // 8, "big")
    return bytes([tag, 0x80 | len(octets)]) + octets + body


def _integer(value: int) -> bytes:
    return _der(0x02, value.to_bytes(value.bit_length() // 8 + 1, "big"))


@cache
def rsa_key(selector: str = "") -> tuple[bytes, str]:
    """A new 1024-bit RSA key (a different one for each `selector`): the private key in PEM (PKCS#1),
    and the DNS record of its public key."""
    e = 65537
    while True:
        p, q = _prime(512), _prime(512)
        phi = (p - 1) * (q - 1)
        if p != q and phi % e:
            break
    n, d = p * q, pow(e, -1, phi)
    private = _der(0x30, b"".join(_integer(v) for v in (0, n, e, d, p, q, d % (p - 1), d % (q - 1), pow(q, -1, p))))
    pem = b"-----BEGIN RSA PRIVATE KEY-----\n" + base64.encodebytes(private) + b"-----END RSA PRIVATE KEY-----\n"
    public = _der(0x30, _integer(n) + _integer(e))  # RSAPublicKey, which dkimpy reads as p=
    return pem, "v=DKIM1; k=rsa; p=" + base64.b64encode(public).decode()


@cache
def ed25519_key() -> tuple[bytes, str]:
    key = SigningKey.generate()
    return base64.b64encode(bytes(key)), "v=DKIM1; k=ed25519; p=" + base64.b64encode(bytes(key.verify_key)).decode()


def keys() -> dict[str, str]:
    """The DNS the tests' key look-ups see: players.example and gms.example sign with RSA (and
    players.example with ed25519 too); elsewhere.example is a domain of its own."""
    return {"rsa._domainkey.players.example": rsa_key("players")[1],
            "ed._domainkey.players.example": ed25519_key()[1],
            "rsa._domainkey.gms.example": rsa_key("gms")[1],
            "rsa._domainkey.elsewhere.example": rsa_key("elsewhere")[1]}


def crlf(raw: bytes) -> bytes:
    """A mail as it comes from a mail server: CRLF line ends."""
    return raw.replace(b"\r\n", b"\n").replace(b"\n", b"\r\n")


def signed(raw: bytes, domain: str, *, ed: bool = False, length: bool = False) -> bytes:
    """`raw` with a DKIM-Signature by `domain` on top."""
    if ed:
        header = dkim.sign(raw, b"ed", domain.encode(), ed25519_key()[0], signature_algorithm=b"ed25519-sha256")
    else:
        header = dkim.sign(raw, b"rsa", domain.encode(), rsa_key(domain.split(".")[0])[0], length=length)
    return header + raw


def send(desk: Desk, raw: bytes, lookup: Callable[[str], str | None] | None = None) -> IngestOutcome:
    return ingest(desk.sf, raw, gm_address=JUDGE, verifier=desk.verifier, dns_lookup=lookup or keys().get)


def signon(power: str, body: str = "", sender: str | None = None) -> bytes:
    return crlf(mail(sender or address(power), f"SIGNON {power} g1 pw\n{body}"))


def master_mail(body: str) -> bytes:
    return crlf(mail(MASTER, f"SIGNON MASTER g1 gm-pw\n{body}"))


def required(session_factory: sessionmaker[Session]) -> Desk:
    desk = new_game(session_factory)
    ack = desk.ack(send(desk, signed(master_mail("SET DKIM REQUIRED"), "gms.example")), MASTER)
    assert "g1 requires DKIM-signed mail now; every player is told" in ack and "Beware" not in ack
    return desk


def orders(desk: Desk, power: str) -> list[str]:
    with transaction(desk.sf) as s:
        current = current_phase(s, desk.row(s))
        assert current is not None
        return list(s.scalars(select(OrderRecord.canonical).where(
            OrderRecord.phase_id == current.row.id, OrderRecord.power == power)))


def refusal(desk: Desk, before: int, to: str) -> str:
    """The fixed notice a mail that signed on to nothing got."""
    (notice,) = desk.mails(since=before)
    assert notice.to_addr == to and notice.kind == "notice"
    return notice.body_text


# --- the verdict -----------------------------------------------------------------------------------


def test_the_verdict_on_signatures_valid_unsigned_altered_other_domain_and_parent_domain() -> None:
    raw = signon("France", "A Par - Bur")
    lookup = dkim_check.KeyCache(keys().get)
    assert dkim_check.verdict(signed(raw, "players.example"), address("France"), lookup) is Verdict.SIGNED
    assert dkim_check.verdict(signed(raw, "players.example", ed=True), address("France"), lookup) is Verdict.SIGNED
    assert dkim_check.verdict(raw, address("France"), lookup) is Verdict.UNSIGNED
    altered = signed(raw, "players.example").replace(b"A Par - Bur", b"A Par - Pic")
    assert dkim_check.verdict(altered, address("France"), lookup) is Verdict.BAD
    assert dkim_check.verdict(signed(raw, "elsewhere.example"), address("France"), lookup) is Verdict.OTHER_DOMAIN
    # Relaxed alignment: a parent of the From domain signs for it; a child, or a bare suffix, does not.
    sub = crlf(mail("france@eu.players.example", "SIGNON France g1 pw"))
    assert dkim_check.verdict(signed(sub, "players.example"), "france@eu.players.example", lookup) is Verdict.SIGNED
    assert dkim_check.verdict(signed(raw, "players.example"), "france@example", lookup) is Verdict.OTHER_DOMAIN
    # A key nobody publishes: the signature does not verify.
    assert dkim_check.verdict(signed(raw, "players.example"), address("France"),
                              dkim_check.KeyCache({}.get)) is Verdict.BAD


def test_a_signature_of_part_of_the_body_does_not_cover_lines_added_after_it() -> None:
    raw = signon("France", "A Par - Bur")
    lookup = dkim_check.KeyCache(keys().get)
    partial = signed(raw, "players.example", length=True)
    assert dkim_check.verdict(partial, address("France"), lookup) is Verdict.SIGNED
    assert dkim_check.verdict(partial + b"A Mar - Spa\r\n", address("France"), lookup) is Verdict.BAD


def test_of_several_signatures_the_aligned_one_decides() -> None:
    raw = signon("France")
    lookup = dkim_check.KeyCache(keys().get)
    relayed = signed(signed(raw, "players.example"), "elsewhere.example")  # a relay signs on top
    assert dkim_check.verdict(relayed, address("France"), lookup) is Verdict.SIGNED
    broken = signed(signed(raw, "players.example").replace(b"SIGNON", b"SIGNOFF"), "elsewhere.example")
    assert dkim_check.verdict(broken, address("France"), lookup) is Verdict.BAD


def test_a_key_look_up_that_fails_says_the_signature_could_not_be_checked() -> None:
    def dead(name: str) -> str:
        raise TimeoutError(f"no answer for {name}")

    verdict = dkim_check.verdict(signed(signon("France"), "players.example"), address("France"),
                                 dkim_check.KeyCache(dead))
    assert verdict is Verdict.UNCHECKED


def test_keys_are_looked_up_only_for_signed_mail_that_signs_on_and_once_a_batch(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    asked: list[str] = []

    def lookup(name: str) -> str | None:
        asked.append(name)
        return keys().get(name)

    def batch() -> list[bytes]:
        return [signed(crlf(mail(address("France"), "LIST")), "players.example"),  # signs on to nothing
                signon("England", "A Lon - Nth"),  # unsigned: nothing to look up
                signed(signon("France", "A Par - Bur"), "players.example"),
                signed(signon("Germany", "A Ber - Kie"), "players.example")]

    # While no game requires DKIM, signed mail costs no look-up at all.
    outcomes = ingest_batch(desk.sf, [Fetched(None, raw) for raw in batch()], gm_address=JUDGE,
                            verifier=desk.verifier, dns_lookup=lookup)
    assert [o.outcome for o in outcomes] == ["processed"] * 4 and asked == []
    with transaction(desk.sf) as s:
        desk.row(s).require_dkim = True
    outcomes = ingest_batch(desk.sf, [Fetched(None, raw) for raw in batch()], gm_address=JUDGE,
                            verifier=desk.verifier, dns_lookup=lookup)
    assert [o.outcome for o in outcomes] == ["processed"] * 4
    assert asked == ["rsa._domainkey.players.example"]


# --- SET DKIM and SIGNON ---------------------------------------------------------------------------


def test_set_dkim_required_is_stored_audited_and_announced(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.master("SET DKIM REQUIRED")  # the GM's own mail is unsigned: they are warned
    assert "g1 requires DKIM-signed mail now; every player is told" in ack
    assert "Beware: this mail is unsigned, so a SIGNON MASTER in mail like it would be refused" in ack
    with transaction(desk.sf) as s:
        assert desk.row(s).require_dkim is True
    (entry,) = desk.audit("set dkim")
    assert entry.detail == {"required": True} and entry.actor == MASTER and entry.inbound_id is not None
    told = desk.mails(kind="announcement", since=before)
    assert sorted(m.to_addr for m in told) == sorted([address(p) for p in STANDARD] + [MASTER])
    assert told[0].subject == "[g1] DKIM required" and "require mail signed with DKIM" in told[0].body_text


def test_while_required_a_player_signs_on_only_in_mail_signed_by_their_domain(
        session_factory: sessionmaker[Session]) -> None:
    desk = required(session_factory)
    # From addresses of their own: a sender who signs on to nothing gets 3 notices an hour.
    cases = [
        ("fr1@players.example", lambda raw: raw, "this mail is unsigned"),
        ("fr2@players.example", lambda raw: signed(raw, "players.example").replace(b"A Par - Bur", b"A Par - Pic"),
         "its signature does not verify"),
        ("fr3@players.example", lambda raw: signed(raw, "elsewhere.example"), "it is signed by another domain"),
    ]
    for sender, sign, why in cases:
        before = desk.last_mail_id()
        send(desk, sign(signon("France", "A Par - Bur", sender=sender)))
        notice = refusal(desk, before, sender)
        assert f"g1 requires mail signed with DKIM by your domain: {why}" in notice
        assert "A Par" not in notice
    assert orders(desk, "France") == []
    with transaction(desk.sf) as s:  # refused before the password was looked at: no failed try counted
        assert s.scalar(select(func.count()).select_from(AuthFailure)) == 0
    ack = desk.ack(send(desk, signed(signon("France", "A Par - Bur"), "players.example")), address("France"))
    assert "signed on as France in g1" in ack and orders(desk, "France") == ["A PAR - BUR"]
    ack = desk.ack(send(desk, signed(signon("France", "A Mar - Spa"), "players.example", ed=True)), address("France"))
    assert "signed on as France in g1" in ack and "A MAR - SPA" in orders(desk, "France")
    # A subdomain of the player's domain, signed by the domain: relaxed alignment.
    raw = signed(signon("Italy", "A Ven - Tyr", sender="italy@eu.players.example"), "players.example")
    assert "signed on as Italy in g1" in desk.ack(send(desk, raw), address("Italy"))


def test_while_required_the_gm_signs_on_only_in_signed_mail(session_factory: sessionmaker[Session]) -> None:
    desk = required(session_factory)
    before = desk.last_mail_id()
    send(desk, master_mail("SET DKIM OPTIONAL"))
    assert "g1 requires mail signed with DKIM by your domain: this mail is unsigned" in refusal(desk, before, MASTER)
    assert len(desk.audit("set dkim")) == 1
    ack = desk.ack(send(desk, signed(master_mail("SET DKIM OPTIONAL"), "gms.example")), MASTER)
    assert "g1 takes mail signed with DKIM or not now; every player is told" in ack
    assert [e.detail for e in desk.audit("set dkim")] == [{"required": True}, {"required": False}]
    # Optional again: unsigned mail and a signature that does not verify sign on as before.
    assert "signed on as France in g1" in desk.ack(send(desk, signon("France")), address("France"))
    broken = signed(signon("Russia", "A Mos - Ukr"), "players.example").replace(b"Ukr", b"Sev")
    assert "signed on as Russia in g1" in desk.ack(send(desk, broken), address("Russia"))


def test_a_key_that_cannot_be_looked_up_refuses_with_a_reason_to_try_again(
        session_factory: sessionmaker[Session]) -> None:
    desk = required(session_factory)

    def dead(name: str) -> str:
        raise TimeoutError(name)

    before = desk.last_mail_id()
    send(desk, signed(signon("France"), "players.example"), dead)
    assert "its signature could not be checked" in refusal(desk, before, address("France"))


@pytest.mark.parametrize("line", ["SET DKIM", "SET DKIM MAYBE", "SET DKIM REQUIRED NOW"])
def test_set_dkim_refusals_change_nothing(session_factory: sessionmaker[Session], line: str) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    assert "usage: SET DKIM REQUIRED|OPTIONAL" in desk.master(line)
    assert "g1 takes mail signed with DKIM or not already: nothing changed" in desk.master("SET DKIM OPTIONAL")
    assert "REJECTED  SET DKIM REQUIRED" in desk.player("France", "SET DKIM REQUIRED")  # no GM command to a player
    with transaction(desk.sf) as s:
        assert desk.row(s).require_dkim is False
    assert not desk.audit("set dkim") and not desk.mails(kind="announcement", since=before)


def test_the_operator_sets_dkim_from_the_command_line(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    with transaction(desk.sf) as s:
        ctx = run_as_operator(s, desk.row(s), ["SET DKIM REQUIRED"], gm_address=JUDGE)
    assert ctx.results[0].accepted and "Beware" not in ctx.results[0].detail
    with transaction(desk.sf) as s:
        assert desk.row(s).require_dkim is True
    assert [e.detail for e in desk.audit("set dkim")] == [{"required": True}]


def test_a_game_that_requires_dkim_says_so_in_its_start_mail(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, start=False)
    desk.master("SET DKIM REQUIRED\nSET PRESS GREY")  # a forming game: the GM sets it up before the start
    with transaction(desk.sf) as s:
        run_as_operator(s, desk.row(s), ["START"], gm_address=JUDGE)
    (start, *_) = desk.mails(kind="start", to=address("France"))
    assert "Sign-ons are read only in mail signed with DKIM by the sender's own domain" in start.body_text
    assert "Press: grey: press may be sent unsigned" in start.body_text
