"""gm.mail.intake.bounce over a corpus of delivery reports (tests/mail/bounces/, one file a form,
each in the shape its server sends) and of mail that is no report: what failed, for good or for
now, in the server's words, and which mail of the judge's it returns. A wrong reading marks a
working address failing, or lets a dead one go unnoticed; a mail that is no report must never be
read as one. And whatever arrives, the reader never raises."""
from __future__ import annotations

import base64
import email
import email.policy
import random
import re
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from gm.mail.intake.bounce import MAX_SCAN, MAX_WORDS, Bounce, Failure, read_bounce

CORPUS = Path(__file__).parent / "bounces"


@dataclass(frozen=True)
class Expected:
    form: str
    recipient: str | None
    ids: tuple[str, ...]
    failures: tuple[tuple[str, bool, str | None, str], ...]  # address, permanent, status, a fragment of the words


EXPECTED: dict[str, Expected | None] = {
    # Postfix's RFC 3464 report, Diagnostic-Code folded over two lines.
    "postfix.eml": Expected(
        "dsn", "gm+b.173.k3jq2xmw@judge.example", ("<173.1234.gm@judge.example>",),
        (("alice@example.org", True, "5.1.1",
          "550 5.1.1 <alice@example.org>: Recipient address rejected: User unknown in virtual mailbox table"),)),
    # Over quota: Dovecot (quota_full_tempfail = no, its default) answers 552 5.2.2 and Postfix
    # bounces it as failed: read as permanent.
    "postfix_full.eml": Expected(
        "dsn", "gm+b.174.r7d2vq4e@judge.example", ("<174.2345.gm@judge.example>",),
        (("erin@example.net", True, "5.2.2", "552 5.2.2 <erin@example.net> Quota exceeded (mailbox for user is full)"),)),
    # A delay warning: Action: delayed, 4.4.1, the returned mail's headers only (text/rfc822-headers).
    "postfix_delayed.eml": Expected(
        "dsn", "gm+b.175.w2nq8jte@judge.example", ("<175.3456.gm@judge.example>",),
        (("frank@example.net", False, "4.4.1", "connect to mx.example.net[198.51.100.40]:25: Connection timed out"),)),
    # Exim's text form: X-Failed-Recipients, the returned mail pasted below the report.
    "exim.eml": Expected(
        "exim", "gm+b.176.p2m4qaz7@judge.example", ("<176.4567.gm@judge.example>",),
        (("dave@example.com", True, "5.1.1",
          "550 5.1.1 <dave@example.com>: Recipient address rejected: User unknown in local recipient table"),)),
    # Office 365's NDR.
    "exchange.eml": Expected(
        "dsn", "gm+b.177.c5hv9ubn@judge.example", ("<177.5678.gm@judge.example>",),
        (("grace@contoso.example", True, "5.1.10",
          "550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup"),)),
    # Gmail's, when the judge sends through Gmail: a multi-line reply folded into Diagnostic-Code.
    "gmail.eml": Expected(
        "dsn", "judge.diplomacy@gmail.example", ("<178.6789.gm@judge.example>",),
        (("ivan@example.com", True, "5.1.1",
          "550 5.1.1 The email account that you tried to reach does not exist. Please try double-checking"),)),
    # Gmail's older text-only delay warning: flufl's SimpleWarning reads it as temporary.
    "gmail_delayed_text.eml": Expected(
        "simplewarning", "judge.diplomacy@gmail.example", ("<183.1234.gm@judge.example>",),
        (("kim@example.com", False, None, "The recipient server did not accept our requests to connect."),)),
    "yahoo.eml": Expected(
        "yahoo", "judge.diplomacy@yahoo.example", ("<179.7890.gm@judge.example>",),
        (("heidi@example.net", True, "5.1.1", "550 5.1.1 <heidi@example.net>: Recipient address rejected"),)),
    # qmail's QSBMF; the status only in qmail's "(#5.1.1)".
    "qmail.eml": Expected(
        "qmail", "gm+b.180.m6t3zkfa@judge.example", ("<180.8901.gm@judge.example>",),
        (("carol@example.net", True, "5.1.1", "Sorry, no mailbox here by that name. (#5.1.1)"),)),
    # Sendmail's, two recipients: one failed, one delayed (its address in capitals).
    "dsn_two_recipients.eml": Expected(
        "dsn", "gm+b.181.a8s5hy2c@judge.example", ("<181.9012.gm@judge.example>",),
        (("ivy@example.com", True, "5.1.1", "550 5.1.1 <ivy@example.com>... User unknown"),
         ("jack@example.com", False, "4.2.2", "452 4.2.2 <Jack@Example.com>... Mailbox full"))),
    # 8-bit UTF-8 and Latin-1 where none is declared, an unknown charset, a base64 body cut
    # short and no closing boundary.
    "broken_mime.eml": Expected(
        "dsn", "gm+b.182.j4k7wq2n@judge.example", ("<182.0123.gm@judge.example>",),
        (("juergen@example.de", True, "5.2.2", "552 5.2.2 Das Postfach von Jürgen ist voll – Nachricht abgewiesen"),)),
    # A mail filter's rejection that names no recipient: the returned mail is known, not who failed.
    "unnamed_recipient.eml": Expected(
        "unknown", "gm+b.184.q2w3e4r5@judge.example", ("<184.2345.gm@judge.example>",), ()),
    # Knowingly unmatched: a postmaster's report that quotes nothing of the returned mail and
    # names no failed address in any form a detector reads. Read as a report with nothing in it
    # (not None): it is kept, matched to no mail, and changes nothing.
    "unmatched.eml": Expected("unknown", "gm@judge.example", (), ()),
    # No reports.
    "dsn_delivered.eml": None,  # a DSN that only says relayed
    "out_of_office.eml": None,
    "read_receipt.eml": None,  # message/disposition-notification
    "player_quoting_bounce.eml": None,  # a player's press quoting a bounce's words
}

_LINE_BREAK = re.compile("[\r\n\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")


def _raw(name: str) -> bytes:
    return (CORPUS / name).read_bytes()


def _well_formed(bounce: Bounce | None) -> None:
    """What every reading holds to, whatever it was given."""
    if bounce is None:
        return
    assert isinstance(bounce, Bounce) and isinstance(bounce.form, str) and bounce.form
    assert bounce.recipient is None or bounce.recipient == bounce.recipient.lower()
    for failure in bounce.failures:
        assert isinstance(failure, Failure)
        assert failure.address == failure.address.lower() and "@" in failure.address
        assert failure.status is None or re.fullmatch(r"[245]\.\d{1,3}\.\d{1,3}", failure.status)
        assert len(failure.words) <= MAX_WORDS and not _LINE_BREAK.search(failure.words)
        assert failure.words == failure.words.strip()
    for message_id in bounce.returned_ids:
        assert re.fullmatch(r"<[^<>\s]+>", message_id)


def test_every_corpus_file_has_its_expectation():
    assert sorted(p.name for p in CORPUS.glob("*.eml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus(name):
    bounce = read_bounce(_raw(name))
    expected = EXPECTED[name]
    if expected is None:
        assert bounce is None
        return
    assert bounce is not None
    _well_formed(bounce)
    assert bounce.form == expected.form
    assert bounce.recipient == expected.recipient
    assert bounce.returned_ids == expected.ids
    assert [(f.address, f.permanent, f.status) for f in bounce.failures] == [e[:3] for e in expected.failures]
    for failure, (*_, fragment) in zip(bounce.failures, expected.failures):
        assert fragment in failure.words, (failure.words, fragment)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_parsed_message_reads_as_its_bytes(name):
    raw = _raw(name)
    for policy in (email.policy.compat32, email.policy.default):
        assert read_bounce(email.message_from_bytes(raw, policy=policy)) == read_bounce(raw)


def test_multi_line_replies_and_folding_leave_one_line():
    words = read_bounce(_raw("gmail.eml")).failures[0].words
    assert "550-5.1.1" not in words and words.count("5.1.1") == 1
    assert words.endswith("https://support.google.com/mail/?p=NoSuchUser a640c23a62f3a-ac1de2f5a12si1234566b.301 - gsmtp")


def test_words_from_the_text_when_the_dsn_gives_none():
    """A DSN without Diagnostic-Code: Exchange's "Remote Server returned '...'" line says it."""
    raw = _raw("exchange.eml")
    without = re.sub(rb"Diagnostic-Code: [^\n]*\n", b"", raw)
    assert without != raw
    failure = read_bounce(without).failures[0]
    assert failure.words == "550 5.1.10 RESOLVER.ADR.RecipientNotFound; Recipient not found by SMTP address lookup"
    assert (failure.address, failure.permanent, failure.status) == ("grace@contoso.example", True, "5.1.10")


def test_a_failed_action_with_a_temporary_status_is_temporary():
    """Postfix gives up on a mail it could not deliver for days as 'failed' with a 4.x.x status:
    the address may well work."""
    raw = _raw("postfix.eml").replace(b"Status: 5.1.1", b"Status: 4.4.1").replace(
        b"smtp; 550 5.1.1", b"X-Postfix; delivery temporarily suspended:")
    failure = read_bounce(raw).failures[0]
    assert (failure.permanent, failure.status) == (False, "4.4.1")


def test_a_base64_delivery_status_part_is_read():
    raw = _raw("postfix_full.eml")
    start = raw.index(b"Content-Type: message/delivery-status\n\n")
    end = raw.index(b"\n--4Z2Mb00Q5Hz1xyZ", start)
    fields = raw[start + len(b"Content-Type: message/delivery-status\n\n"):end]
    raw = (raw[:start] + b"Content-Type: message/delivery-status\nContent-Transfer-Encoding: base64\n\n"
           + base64.encodebytes(fields) + raw[end:])
    bounce = read_bounce(raw)
    assert bounce.form == "dsn"
    assert [(f.address, f.permanent, f.status) for f in bounce.failures] == [("erin@example.net", True, "5.2.2")]


def test_the_reports_own_message_id_is_never_returned():
    for name, expected in EXPECTED.items():
        bounce = read_bounce(_raw(name))
        if bounce is not None:
            own = email.message_from_bytes(_raw(name))["Message-ID"]
            assert own is None or own.strip() not in bounce.returned_ids, name
    # A report that pastes its own Message-ID into its text, the same as the returned mail's.
    raw = _raw("unnamed_recipient.eml").replace(b"<8d1c3b2a.policy@filter.example.net>", b"<184.2345.gm@judge.example>")
    bounce = read_bounce(raw)
    assert bounce is not None and bounce.returned_ids == ()


def test_a_huge_report_is_read_from_its_start():
    """The returned mail of a map's mail is megabytes: the report before it is read all the same."""
    raw = _raw("postfix.eml")
    at = raw.index(b"Austria:")
    huge = raw[:at] + b"Hi. This is the qmail-send program at x.\n<zed@example.org>:\n" * 200_000 + raw[at:]
    assert len(huge) > 10 * MAX_SCAN
    bounce = read_bounce(huge)
    assert [f.address for f in bounce.failures] == ["alice@example.org"]
    assert bounce.returned_ids == ("<173.1234.gm@judge.example>",)


def test_past_the_scanned_start_nothing_is_read():
    raw = _raw("qmail.eml")
    at = raw.index(b"Hi. This is the qmail-send")
    padded = raw[:at] + b"\n" * MAX_SCAN + raw[at:]
    bounce = read_bounce(padded)
    assert bounce is not None and bounce.failures == () and bounce.returned_ids == ()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_truncated_and_damaged_corpus_files_never_raise(name):
    raw = _raw(name)
    rng = random.Random(name)
    for cut in range(0, len(raw), max(1, len(raw) // 60)):
        _well_formed(read_bounce(raw[:cut]))
    for _ in range(40):
        damaged = bytearray(raw)
        for _ in range(rng.randint(1, 20)):
            damaged[rng.randrange(len(damaged))] = rng.randrange(256)
        _well_formed(read_bounce(bytes(damaged)))


def test_garbage_never_raises():
    rng = random.Random(1901)
    daemon = b"From: MAILER-DAEMON@x.example\nContent-Type: multipart/report; boundary=b\n\n--b\n"
    for size in (0, 1, 2, 10, 100, 1000, 10_000, 100_000):
        for _ in range(5):
            noise = bytes(rng.randrange(256) for _ in range(size))
            _well_formed(read_bounce(noise))
            _well_formed(read_bounce(daemon + noise))
            _well_formed(read_bounce(daemon + b"Content-Type: message/delivery-status\n\n" + noise))
    for odd in (b"", b"\n\n", b"\r\n\r\n", "Subject: failure notice\n\n\u2028\ud800", None, 42, object(), [1, 2]):
        assert read_bounce(odd) is None  # type: ignore[arg-type]


def test_long_lines_take_no_quadratic_time():
    """Some of flufl's patterns take time quadratic in a line's length: they see lines cut short,
    so that a forged report of one 190 kB line costs no more than a real one."""
    for start in (b"A message that you sent could not be delivered ", b"Your message to: ", b"failed addresses follow: "):
        raw = b"From: MAILER-DAEMON@x.example\nSubject: failure notice\n\n" + start + b"a" * 190_000 + b"\n"
        began = time.monotonic()
        assert read_bounce(raw) == Bounce((), (), None, "unknown")
        assert time.monotonic() - began < 10  # minutes before the lines were cut
