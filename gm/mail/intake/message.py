"""One inbound mail, raw bytes in, what the judge needs out: pure (no I/O), and never raising.

`read_message` finds the body a person typed and decodes it (gm.mail.intake.mime), keeps only the text
the sender newly wrote (gm.mail.intake.reply_text: quoted replies, attributions, Outlook header blocks,
forwarded messages, mobile footers, signatures, banners and disclaimers and pasted
acknowledgements of the judge are dropped), and reads the headers: who sent it, what it answers,
and why it must not be answered: never (auto-replies, bounces), or only if it signs on (list or
bulk headers, which a relay may add to a player's mail).
`command_lines` gives the lines of that text the judge treats as commands.
"""
from __future__ import annotations

import email
import email.policy
import email.utils
import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import Message
from typing import TypeVar

# What other modules of gm.mail use of the MIME side (gm.mail.intake.redact), importable from here too.
from gm.mail.intake.mime import (  # noqa: F401
    _META_CHARSET,
    _SURROGATE,
    _HTMLText,
    _as_bytes,
    _body_text,
    _clean,
    _codec,
    _content_type,
    _decode_bytes,
    _header,
    _param,
    _payload_bytes,
    _unstructured,
)
from gm.mail.intake.reply_text import new_text, no_order_meant  # noqa: F401
from gm.mail.intake.reply_text.quotes import QUOTED as _QUOTED

ACK_MARKER = "=== gm acknowledgement ==="
"""The judge's acknowledgement's first line (gm.mail.outgoing.reply has the others'); a pasted one ends a text."""

MAX_ADDRESS = 254  # the longest address SMTP can deliver to (RFC 5321's 256-octet path, less '<>')
MAX_MESSAGE_ID = 250  # longer Message-IDs are kept as a hash: no mail program writes one
MAX_SUBJECT = 500  # characters of a subject kept

__all__ = ["ACK_MARKER", "MAX_ADDRESS", "MAX_MESSAGE_ID", "MAX_SUBJECT", "InboundMessage", "command_lines",
           "machine_address", "no_order_meant", "read_message"]

T = TypeVar("T")


@dataclass(frozen=True)
class InboundMessage:
    message_id: str              # '<...>'; generated from a hash of the raw bytes when missing
    sender: str                  # the From addr-spec, lower-cased ('' when there is none)
    reply_to: str                # Reply-To addr-spec if present, else the sender
    subject: str                 # RFC 2047 decoded, whitespace collapsed
    text: str                    # what the sender wrote, quotes and signatures dropped
    automatic: str | None        # why this mail must not be answered; None for a person's mail
    soft_automatic: bool         # `automatic` is only list or bulk headers (Precedence, List-*),
                                 # which a relay may add: answered if the mail signs on after all
    size: int                    # len(raw)
    in_reply_to: str | None      # '<...>'
    references: tuple[str, ...]  # '<...>' each, in order
    # The Date header in UTC: when the sender wrote the mail (an order written before the phase
    # opened is too late for it); None when there is none or it cannot be read.
    date: datetime | None = None
    # The whole body as read, quotes and all: where to look for passwords to take out of the mail
    # before it is stored (see gm.mail.intake.redact).
    body: str = field(default="", compare=False, repr=False)


# --- entry points --------------------------------------------------------------------------------

def read_message(raw: bytes) -> InboundMessage:
    """Read one raw mail. Never raises, whatever the bytes."""
    data = _as_bytes(raw)
    generated_id = "<" + hashlib.sha256(data).hexdigest()[:32] + "@gm.invalid>"
    try:
        # The structure with the compat32 policy: an order of magnitude faster than
        # policy.default on many-part mail (which parses every header of every part while
        # parsing); the few headers that need decoding go through policy.default's header_factory.
        msg = email.message_from_bytes(data, policy=email.policy.compat32)
    except Exception:
        return InboundMessage(generated_id, "", "", "", "", "unreadable message", False,
                              len(data), None, ())
    message_id = _safe(lambda: _message_id(_header(msg, "message-id")), None) or generated_id
    sender = _safe(lambda: _address(_header(msg, "from")), "")
    reply_to = _safe(lambda: _address(_header(msg, "reply-to")), "") or sender
    subject = _safe(lambda: _unstructured(_header(msg, "subject"))[:MAX_SUBJECT], "")
    body = _safe(lambda: _body_text(msg), "")
    text = _safe(lambda: new_text(body), "")
    automatic, soft = _safe(lambda: _automatic(msg, sender, reply_to, subject),
                            ("unreadable headers", False))
    in_reply_to = _safe(lambda: _message_id(_header(msg, "in-reply-to")), None)
    references = _safe(lambda: _references(_header(msg, "references")), ())
    date = _safe(lambda: _date(_header(msg, "date")), None)
    return InboundMessage(message_id, sender, reply_to, subject, text, automatic, soft, len(data),
                          in_reply_to, references, date, body)


def command_lines(text: str) -> list[str]:
    """The lines the judge treats as commands: what is left of `text` once quotes, attributions,
    forwarded and pasted-acknowledgement blocks and signatures are dropped (a no-op on the `text`
    of a read message), non-empty, stripped, in order."""
    try:
        return [line.strip() for line in new_text(_clean(str(text))).split("\n") if line.strip()]
    except Exception:
        return []


_QUOTE_MARKS = re.compile(r"^[\s>|]+")


def lines_and_quotes(text: str) -> list[str]:
    """command_lines(text) and then the lines `text` quotes, their quote marks dropped: where a
    password may stand (a player quoting an old SIGNON)."""
    try:
        return command_lines(text) + [_QUOTE_MARKS.sub("", line).strip() for line in _clean(str(text)).split("\n")
                                      if _QUOTED.match(line)]
    except Exception:
        return []


# --- small helpers -------------------------------------------------------------------------------

def _safe(compute: Callable[[], T], default: T) -> T:
    try:
        return compute()
    except Exception:
        return default


# --- headers -------------------------------------------------------------------------------------

# 'x@y.z', '<x@y.z>' or 'Plain Name <x@y.z>': a display name of letters, digits, spaces, dots,
# hyphens and apostrophes only, and a dot-atom addr-spec; anything else takes the full parser.
_SIMPLE_ADDRESS = re.compile(
    r"\s*(?P<name>[\w .'-]*<)?(?P<spec>[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9.-]+)(?(name)>)\s*"
)


def _address(value: str | None) -> str:
    """The first addr-spec of an address header, lower-cased; '' when there is none, or when it
    is longer than any address mail can be sent to."""
    if not value:
        return ""
    simple = _SIMPLE_ADDRESS.fullmatch(value)
    if simple:  # the usual forms, without the full (and slow) RFC 5322 parser
        spec = simple.group("spec").lower()
        return spec if len(spec) <= MAX_ADDRESS else ""
    if len(value) > 100 * MAX_ADDRESS:  # no header naming one address is this long
        return ""
    try:
        specs = [a.addr_spec for a in email.policy.default.header_factory("from", value).addresses]
    except Exception:
        specs = [addr for _, addr in email.utils.getaddresses([value])]
    for spec in specs:
        spec = _clean(str(spec)).strip().strip("<>").strip().lower()
        if spec and len(spec) <= MAX_ADDRESS and not re.search(r"[\x00-\x1f<>\n]", spec):
            return spec
    return ""


_MSGID = re.compile(r"<([^<>]*)>")


def _norm_id(core: str) -> str | None:
    """'<core>', cleaned; an over-long one as a hash of it (the same for the same id), so that it
    fits where it is stored."""
    core = re.sub(r"[\x00-\x20\x7f<>]+", "", _clean(core))
    if len(core) > MAX_MESSAGE_ID:
        core = hashlib.sha256(core.encode("utf-8", "surrogatepass")).hexdigest() + "@long-id.gm.invalid"
    return f"<{core}>" if core else None


def _message_id(value: str | None) -> str | None:
    """'<...>' from a Message-ID / In-Reply-To value; None when there is none."""
    if not value:
        return None
    found = _MSGID.search(value)
    if found:
        return _norm_id(found.group(1))
    words = value.split()
    return _norm_id(words[0]) if words else None


def _date(value: str | None) -> datetime | None:
    """A Date header in UTC; one without a zone (-0000) is taken as UTC."""
    if not value or len(value) > 200:
        return None
    moment = email.utils.parsedate_to_datetime(value)
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC)


def _references(value: str | None) -> tuple[str, ...]:
    if not value:
        return ()
    cores = _MSGID.findall(value) if "<" in value else value.split()
    ids: list[str] = []
    for core in cores[-50:]:  # the nearest ancestors; a thread is never that deep
        norm = _norm_id(core)
        if norm and norm not in ids:
            ids.append(norm)
    return tuple(ids)


# --- automatic mail ------------------------------------------------------------------------------

_PRECEDENCE = {"auto_reply", "auto-reply"}
_BULK = {"bulk", "junk", "list"}  # what a list or relay may add to a player's mail too
_PRESENCE = ("X-Autoreply", "X-Autorespond", "X-Autogenerated", "X-Failed-Recipients")
_LIST = ("List-Id", "List-Unsubscribe", "List-Post")
_DAEMONS = {"mailer-daemon", "postmaster"}
_NOREPLY = re.compile(r"(no|do[-_.]?not)[-_.]?reply([-+_.].*)?")
_SUBJECTS = ("auto:", "automatic reply", "autoreply", "auto-reply", "auto reply", "out of office",
             "out of the office", "abwesenheitsnotiz", "automatische antwort",
             "réponse automatique", "respuesta automática", "automatisch antwoord",
             "undeliverable", "undelivered mail returned to sender",
             "delivery status notification", "mail delivery failed", "returned mail:",
             "delivery failure", "failure notice")


def _reason(name: str, value: str) -> str:
    value = " ".join(_clean(value).split())
    if len(value) > 80:
        value = value[:77] + "..."
    return f"{name}: {value}" if value else f"{name} header"


def _automatic(msg: Message, sender: str, reply_to: str, subject: str) -> tuple[str | None, bool]:
    """Why this mail must not be answered (None: it may be), and whether that is only list or bulk
    headers (see InboundMessage.soft_automatic)."""
    machine = _machine(msg, sender, reply_to, subject)
    if machine is not None:
        return machine, False
    bulk = _list_or_bulk(msg)
    return bulk, bulk is not None


def _machine(msg: Message, sender: str, reply_to: str, subject: str) -> str | None:
    """Why this mail is a machine's (an auto-reply, a bounce): never answered; or None."""
    value = _header(msg, "auto-submitted")
    if value is not None:
        token = re.sub(r"\([^)]*\)", "", value).split(";")[0].strip()
        if token.lower() != "no":
            return _reason("Auto-Submitted", token)
    precedence = _precedence(msg)
    if precedence in _PRECEDENCE:
        return _reason("Precedence", precedence)
    for name in _PRESENCE:
        value = _header(msg, name.lower())
        if value is not None:
            return _reason(name, value)
    value = _header(msg, "x-auto-response-suppress")
    if value is not None and "all" in re.split(r"[\s,;]+", value.lower()):
        return _reason("X-Auto-Response-Suppress", value)
    value = _header(msg, "return-path")
    if value is not None and re.fullmatch(r"\s*(<\s*>)?\s*", value):
        return "Return-Path: <>"
    for name, address in (("From", sender), ("Reply-To", reply_to)):
        if machine_address(address):
            return f"From: {address}" if name == "From" else f"Reply-To: {address}"
    ctype = _content_type(msg)
    if ctype == "multipart/report":
        report = _safe(lambda: msg.get_param("report-type"), None)
        report = report if isinstance(report, str) else ""
        return "Content-Type: multipart/report" + (f"; report-type={report.lower()}"
                                                   if report else "")
    if ctype in ("message/delivery-status", "message/disposition-notification"):
        return f"Content-Type: {ctype}"
    lowered = subject.lower()
    for prefix in _SUBJECTS:
        if lowered.startswith(prefix):
            return "Subject: " + subject[:len(prefix)]
    if not sender:
        return "no From address"
    return None


def machine_address(address: str) -> bool:
    """Whether mail from `address` is a machine's (mailer-daemon, no-reply), never read."""
    local = address.rsplit("@", 1)[0].strip('"')
    return local in _DAEMONS or bool(_NOREPLY.fullmatch(local))


def _precedence(msg: Message) -> str:
    """The first word of the Precedence header, lower-cased ('' when there is none)."""
    words = (_header(msg, "precedence") or "").lower().split()
    return words[0] if words else ""


def _list_or_bulk(msg: Message) -> str | None:
    """The list or bulk header of a mail (Precedence: bulk, List-Id, ...), or None. A mailing list
    or a relay adds these to a person's mail too: such a mail is answered if it signs on."""
    precedence = _precedence(msg)
    if precedence in _BULK:
        return _reason("Precedence", precedence)
    for name in _LIST:
        value = _header(msg, name.lower())
        if value is not None:
            return _reason(name, value)
    return None
