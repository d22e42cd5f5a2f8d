"""Delivery failure reports ("bounces") of mail the judge sent: pure (no I/O), and never raising.

`read_bounce` says whether an inbound mail is a report that mail failed, and what failed: each
address, for good (5.x.x, a hard bounce) or for now (4.x.x, a delay warning), with the RFC 3463
status and the receiving server's own words; the Message-IDs of the mail it returns; and the
address it came back to (a per-mail return path names the mail). An RFC 3464 report
(multipart/report; report-type=delivery-status) is read from its per-recipient fields. Other forms
(Exim's, qmail's, Yahoo's, older Exchange's, ...) are read by flufl.bounce's detectors, and the
words and status of each address then from the lines of the report that name it.

Left out (None): a person's mail, auto-replies, read receipts, and reports that only say a mail was
delivered, relayed or expanded. Read as a report with no failures: one in a form no detector knows.
Never read: the returned mail's body (only its headers), and anything past the first MAX_SCAN bytes
(MAX_DETECTED for flufl's detectors).
"""
from __future__ import annotations

import base64
import binascii
import email
import email.parser
import email.policy
import re
from dataclasses import dataclass
from email.message import Message

from flufl.bounce import all_failures

from gm.mail.intake.message import _address, _message_id, _norm_id
from gm.mail.intake.mime import (_as_bytes, _clean, _content_type, _decode_bytes, _header, _html_to_text,
                                 _param, _payload_bytes, _unstructured)

try:  # flufl's list of detectors is private: read only to name the one that read a report
    from flufl.bounce._scan import _DETECTORS
except Exception:  # pragma: no cover - another flufl.bounce: all_failures, unnamed
    _DETECTORS = None

__all__ = ["Bounce", "Failure", "MAX_SCAN", "read_bounce"]

MAX_SCAN = 200_000  # bytes of a mail read: a report and the returned mail's headers come first
MAX_DETECTED = 64_000  # bytes of it flufl's detectors read (see _shortened)
_MAX_LINES, _MAX_LINE = 3000, 1000
MAX_WORDS = 300  # characters of a server's words kept
MAX_IDS = 20  # returned Message-IDs kept
_MAX_PARTS = 200


@dataclass(frozen=True)
class Failure:
    """One recipient a report says the mail did not reach."""

    address: str          # the recipient that failed, lower-cased addr-spec
    permanent: bool       # 5.x.x / "failed" / a hard bounce; False: temporary (4.x.x, Action: delayed)
    status: str | None    # the RFC 3463 code ("5.1.1") when the report gives one
    words: str            # the receiving server's own words: one line, at most MAX_WORDS characters ("" when none)


@dataclass(frozen=True)
class Bounce:
    """What a delivery report says: enough to find the mail it returns and whose address fails."""

    failures: tuple[Failure, ...]     # may be empty: a report whose addresses could not be read
    returned_ids: tuple[str, ...]     # '<...>' Message-IDs of the returned mail; never the report's own
    recipient: str | None             # who the report was sent to (X-Original-To, Delivered-To, To), lower-cased
    form: str                         # "dsn", flufl's detector's name ("exim", "qmail", ...) or "unknown": for a log line


def read_bounce(msg: Message | bytes) -> Bounce | None:
    """None when the mail is not a delivery failure report (a person's mail, an out-of-office
    auto-reply, a read receipt, a DSN that only says delivered/relayed/expanded)."""
    try:
        if not isinstance(msg, Message):
            return _read(_as_bytes(msg), None)
        try:
            return _read(msg.as_bytes(policy=email.policy.compat32), None)
        except Exception:  # a Message that will not serialize: read as it is, uncut
            return _read(b"", msg)
    except Exception:
        return None


def _parse(data: bytes) -> Message:
    return email.message_from_bytes(data, policy=email.policy.compat32)  # fast; what flufl expects


def _shortened(data: bytes) -> bytes:
    """What flufl's detectors read: the first MAX_DETECTED bytes, _MAX_LINES lines of at most
    _MAX_LINE bytes (some of their patterns take time quadratic in a line's length)."""
    lines = data[:MAX_DETECTED].split(b"\n", _MAX_LINES)[:_MAX_LINES]
    return b"\n".join(line[:_MAX_LINE] for line in lines)


class _Parts:
    """The parts of a report, the returned mail not entered: texts, delivery-status parts,
    the returned mail's headers, and whether it is a read receipt."""

    def __init__(self, msg: Message) -> None:
        self.plain: list[str] = []
        self.html: list[str] = []
        self.dsn: list[Message] = []
        self.returned: list[Message] = []  # the returned mail's headers
        self.receipt = False
        stack = [(msg, 0)]
        for _ in range(_MAX_PARTS):
            if not stack:
                break
            part, depth = stack.pop()
            ctype = _content_type(part)
            if ctype in ("message/delivery-status", "message/global-delivery-status"):
                self.dsn.append(part)
            elif ctype in ("message/disposition-notification", "message/global-disposition-notification"):
                self.receipt = True
            elif ctype in ("message/rfc822", "message/global"):
                inner = part.get_payload()
                inner = inner[0] if isinstance(inner, list) and inner else inner
                self.returned.append(inner if isinstance(inner, Message) else _headers(str(inner)))
            elif ctype in ("text/rfc822-headers", "message/global-headers"):
                self.returned.append(_headers(_text(part)))
            elif ctype.startswith("multipart/") and part.is_multipart() and depth < 20:
                stack.extend((sub, depth + 1) for sub in reversed(part.get_payload()) if isinstance(sub, Message))
            elif ctype == "text/html":
                self.html.append(_html_to_text(_text(part)))
            elif ctype.startswith("text/"):
                self.plain.append(_text(part))
        self.texts = [t[:MAX_SCAN] for t in (self.plain or self.html)]


def _text(part: Message) -> str:
    return _clean(_decode_bytes(_payload_bytes(part)[:MAX_SCAN], _param(part, "charset")))


def _headers(text: str) -> Message:
    return email.parser.Parser(policy=email.policy.compat32).parsestr(text[:MAX_SCAN], headersonly=True)


_DAEMON = re.compile(r"mailer-daemon|mail-daemon|postmaster|microsoftexchange[0-9a-f]{32}", re.I)
_DAEMON_NAME = re.compile(r"mail delivery (?:sub)?system|mailer.daemon", re.I)
_SUBJECT = re.compile(
    r"\s*(?:undeliver|mail delivery fail|delivery status notification|returned mail"
    r"|delivery failure|failure notice|delayed mail|warning: could not send|mail system error"
    r"|non-?deliver|delivery has failed|message not delivered|unzustellbar|non remis|no entregado)", re.I)


def _is_report(msg: Message, parts: _Parts) -> bool:
    """A delivery-status part, Exim's X-Failed-Recipients, a mail daemon's From; or a report's
    subject on a mail sent with no return path or marked automatic."""
    if parts.dsn or _header(msg, "x-failed-recipients") is not None:
        return True
    sender = _header(msg, "from") or ""
    if _DAEMON.fullmatch(_address(sender).rpartition("@")[0]) or _DAEMON_NAME.search(sender):
        return True
    if not _SUBJECT.match(_unstructured(_header(msg, "subject"))):
        return False
    automatic = (_header(msg, "auto-submitted") or "no").split(";")[0].strip().lower() != "no"
    return automatic or re.fullmatch(r"\s*<\s*>\s*", _header(msg, "return-path") or "x") is not None


_STATUS = re.compile(r"(?<![\w.])([245])\.(\d{1,3})\.(\d{1,3})(?![\w]|\.\d)")
_REPLY = re.compile(r"(?<![\w.\[\]/=-])([245]\d\d)(?=[ \-:]|$)")
_EXCHANGE = re.compile(r"Remote Server returned '([^']{1,500})'", re.I)
_DETAILS = re.compile(r"(?im)^technical details of (?:permanent|temporary) failure:[ \t]*\n((?:[ \t]*\S[^\n]*(?:\n|$)){1,6})")
_COPY = re.compile(r"(?im)^[ \t]*-{2,}.{0,40}(?:copy of (?:the|your) message|original message|returned message"
                   r"|message (?:text )?follows|original headers)")


def _status(text: str | None) -> str | None:
    return ".".join(found.groups()) if (found := _STATUS.search(text or "")) else None


def _words(text: str) -> str:
    """One line of at most MAX_WORDS characters; a multi-line SMTP reply's repeated
    '550-5.1.1' prefixes dropped."""
    text = " ".join(_clean(text).split())
    first = re.match(r"([245]\d\d)[- ](?:([245]\.\d{1,3}\.\d{1,3}) )?", text)
    if first:
        code, status = first.groups()
        again = rf"\s{code}[- ]" + (rf"(?:{re.escape(status)}\s)?" if status else "")
        text = " ".join(filter(None, (code, status, re.sub(again, " ", text[first.end():]))))
        text = " ".join(text.split())
    return text[:MAX_WORDS].rstrip(" #")  # Exchange's "#550 5.1.1 ... ##"


def _text_words(text: str, address: str) -> str:
    """The server's words for `address` in a report's text: from the lines that name it (the
    rest of that line and those under it, up to a blank line), the SMTP reply when there is one."""
    named = re.compile(r"(?<![\w.+-])" + re.escape(address) + r"(?![\w-]|\.\w)", re.I)
    lines, found = text.split("\n"), []
    for i, line in enumerate(lines):
        if (at := named.search(line)) is None:
            continue
        block = [line[at.end():].lstrip(">:\"' \t")]
        for below in lines[i + 1:i + 12]:
            if not below.strip():
                break
            block.append(below)
        found.append(" ".join(" ".join(block).split()))
    for pattern in (_EXCHANGE, _REPLY, _STATUS):
        for block in found:
            if (hit := pattern.search(block)) is not None:
                return _words(hit.group(1) if pattern is _EXCHANGE else block[hit.start():] if pattern is _REPLY
                              else block)
    block = next((b for b in found if b), "")
    if not block and found and (details := _DETAILS.search(text)):  # the address alone on its line
        block = details.group(1)
    return _words(re.sub(r"^on [\d/.-]+ [\d:]+(?: ?[AP]M)?\s*", "", block))  # Exchange's "x@y on <date>"


def _recipient(block: Message) -> str:
    """The address the judge sent to (Original-Recipient), else the one that failed (Final-Recipient)."""
    found = (_address((_header(block, name) or "").rpartition(";")[2].strip())
             for name in ("original-recipient", "final-recipient"))
    return next((address for address in found if "@" in address), "")


def _blocks(part: Message) -> list[Message]:
    """A delivery-status part's field blocks; one sent base64 or quoted-printable decoded first."""
    blocks = [b for b in part.get_payload() if isinstance(b, Message)] if part.is_multipart() else []
    if any(_header(b, "action") is not None for b in blocks):
        return blocks
    raw = "".join(str(b.get_payload()) for b in blocks) if blocks else str(part.get_payload())
    encoding = (_header(part, "content-transfer-encoding") or "").strip().lower()
    try:
        data = base64.b64decode("".join(raw.split())) if encoding == "base64" else raw.encode("utf-8", "surrogateescape")
    except (binascii.Error, ValueError):
        return []
    if encoding == "quoted-printable":
        data = binascii.a2b_qp(data)
    inner = email.message_from_bytes(b"Content-Type: message/delivery-status\n\n" + data.lstrip(),
                                     policy=email.policy.compat32)
    return [b for b in inner.get_payload() if isinstance(b, Message)] if inner.is_multipart() else []


def _dsn_failures(parts: _Parts, text: str) -> tuple[dict[str, Failure], list[str]]:
    """The failed and delayed recipients of the delivery-status parts, and every block's Action."""
    failures: dict[str, Failure] = {}
    actions: list[str] = []
    for part in parts.dsn:
        for block in _blocks(part)[:100]:
            address = _recipient(block)
            if not address:
                continue
            action = (_header(block, "action") or "").strip().lower()
            status = _status(_header(block, "status"))
            actions.append(action)
            if not (action.startswith(("fail", "error", "delayed")) or (not action and status)):
                continue  # delivered, relayed, expanded
            diagnostic = re.sub(r"^\s*[A-Za-z][\w.-]{0,30}\s*;\s*", "", _header(block, "diagnostic-code") or "")
            words = _words(diagnostic) if diagnostic.strip() else _text_words(text, address)
            status = status or _status(words)
            permanent = not (action.startswith("delayed") or (status or "").startswith("4"))
            failures.setdefault(address, Failure(address, permanent, status, words))
    return failures, actions


def _detected(msg: Message) -> tuple[str, frozenset[bytes], frozenset[bytes]]:
    """flufl.bounce's first detector that reads addresses: its name, temporary and permanent ones."""
    if _DETECTORS is None:  # pragma: no cover
        temporary, permanent = all_failures(msg)
        return ("flufl" if temporary or permanent else "unknown"), temporary, permanent
    for detector in _DETECTORS:
        try:
            temporary, permanent = detector().process(msg)
        except Exception:
            continue
        if temporary or permanent:
            return detector.__name__.lower(), frozenset(temporary), frozenset(permanent)
    return "unknown", frozenset(), frozenset()


def _text_failures(temporary: frozenset[bytes], permanent: frozenset[bytes], text: str) -> dict[str, Failure]:
    """The addresses a detector read, in the report's order: permanent or not by the status or SMTP
    reply the report gives each, else as the detector says."""
    failures: dict[str, Failure] = {}
    for raw in sorted(permanent | temporary):
        address = _address(raw.decode("ascii", "replace").strip().strip("<>"))
        if "@" in address and address not in failures:
            words = _text_words(text, address)
            code = _status(words) or ((reply := _REPLY.match(words)) and reply.group(1))
            failures[address] = Failure(address, code[0] == "5" if code else raw in permanent, _status(words), words)
    lowered = text.lower()
    where = {a: (lowered.find(a) if a in lowered else len(lowered)) for a in failures}
    return dict(sorted(failures.items(), key=lambda f: (where[f[0]], f[0])))


_ID_LINE = re.compile(r"(?im)^[ \t>]*(?:x-original-)?message-id[ \t]*:[ \t]*(?:\n[ \t]+)?<([^<>\s]{1,250})>")


def _returned_ids(msg: Message, parts: _Parts) -> tuple[str, ...]:
    """From the returned mail's headers, a DSN's X-Original-Message-ID, and 'Message-ID: <...>'
    lines anywhere in the report's text; the report's own never."""
    found = [_message_id(_header(h, "message-id")) for h in parts.returned]
    for part in parts.dsn:
        found += [_message_id(_header(b, "x-original-message-id")) for b in _blocks(part)[:1]]
    for text in parts.plain + parts.html:
        found += [_norm_id(core) for core in _ID_LINE.findall(text[:MAX_SCAN])]
    own = _message_id(_header(msg, "message-id"))
    return tuple(dict.fromkeys(one for one in found if one and one != own))[:MAX_IDS]


def _read(data: bytes, given: Message | None) -> Bounce | None:
    msg = given if given is not None else _parse(data[:MAX_SCAN])
    parts = _Parts(msg)
    if parts.receipt or not _is_report(msg, parts):
        return None
    text = "\n\n".join(_COPY.split(t, maxsplit=1)[0] for t in parts.texts)
    failures, actions = _dsn_failures(parts, text)
    form = "dsn"
    if not failures:
        if actions and all(a.startswith(("deliver", "relay", "expand")) for a in actions):
            return None  # a report of success
        form, temporary, permanent = _detected(given if given is not None else _parse(_shortened(data)))
        failures = _text_failures(temporary, permanent, text)
    recipient = next((a for a in (_address(_header(msg, n)) for n in ("x-original-to", "delivered-to", "to")) if a),
                     None)
    return Bounce(tuple(failures.values()), _returned_ids(msg, parts), recipient, form)
