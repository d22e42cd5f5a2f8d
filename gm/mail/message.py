"""One inbound mail, raw bytes in, what the judge needs out: pure (no I/O), and never raising.

`read_message` finds the body a person typed (the text/plain part, else the text/html part turned
into text; attachments and forwarded messages ignored), decodes it whatever its charset and
transfer encoding, and keeps only the text the sender wrote: quoted replies, attributions ("On ...
wrote:"), Outlook header blocks, forwarded messages, signatures and pasted acknowledgements of the
judge are dropped. It also says why a mail must not be answered: never (auto-replies, bounces), or
only if it signs on (list or bulk headers, which a relay may add to a player's mail).
`command_lines` gives the lines of that text the judge treats as commands.
"""
from __future__ import annotations

import codecs
import email
import email.policy
import email.utils
import hashlib
import html
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from email.message import Message
from html.parser import HTMLParser
from typing import TypeVar

ACK_MARKER = "=== gm acknowledgement ==="
"""The judge's acknowledgement's first line (gm.mail.reply has the others'); a pasted one ends a text."""

MAX_ADDRESS = 254  # the longest address SMTP can deliver to (RFC 5321's 256-octet path, less '<>')
MAX_MESSAGE_ID = 250  # longer Message-IDs are kept as a hash: no mail program writes one
MAX_SUBJECT = 500  # characters of a subject kept
_MAX_TEXT = 500_000  # characters of a body read at most: a player's text is never near this
_MAX_MARKUP = 5_000_000  # characters of HTML read at most, once inline images are taken out

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
    # before it is stored (see gm.mail.redact).
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
    text = _safe(lambda: _keep(body), "")
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
        return [line.strip() for line in _keep(_clean(str(text))).split("\n") if line.strip()]
    except Exception:
        return []


# --- small helpers -------------------------------------------------------------------------------

def _safe(compute: Callable[[], T], default: T) -> T:
    try:
        return compute()
    except Exception:
        return default


def _as_bytes(raw: object) -> bytes:
    try:
        if isinstance(raw, str):
            return raw.encode("utf-8", "surrogateescape")
        return bytes(raw)  # type: ignore[call-overload]
    except Exception:
        return b""


_LINE_BREAKS = re.compile("\r\n|[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
_INVISIBLE = re.compile("[\ufeff\u200b\u200c\u200d\u2060\u180e\u00ad\u200e\u200f"
                        "\u202a-\u202e\u2066-\u2069]")
_SPACES = re.compile("[\xa0\u1680\u2000-\u200a\u202f\u205f\u3000]")
_CONTROL = re.compile("[\x00-\x08\x0e-\x1b\x1f\x7f-\x84\x86-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")


def _clean(text: str) -> str:
    """'\\n' line ends; no BOM, zero-width or control characters; every kind of space a space."""
    text = _LINE_BREAKS.sub("\n", text)
    text = _INVISIBLE.sub("", text)
    text = _SPACES.sub(" ", text)
    text = _CONTROL.sub("", text)
    text = _SURROGATE.sub("\ufffd", text)
    return unicodedata.normalize("NFC", text)


# --- charsets ------------------------------------------------------------------------------------

# Labels mail software uses for a superset: read them as the superset (as browsers do).
_SUPERSET = {"iso8859-1": "cp1252", "gb2312": "gb18030", "gbk": "gb18030", "shift_jis": "cp932",
             "euc_kr": "cp949", "iso8859-9": "cp1254", "iso8859-11": "cp874", "tis-620": "cp874"}
# Codecs that are no charset a mail body is written in.
_NOT_CHARSETS = {"idna", "punycode", "unicode-escape", "raw-unicode-escape", "undefined",
                 "unicode_escape", "raw_unicode_escape"}


def _codec(label: object) -> str | None:
    if not isinstance(label, str) or not label.strip() or len(label) > 40:
        return None
    try:
        info = codecs.lookup(label.strip().strip("\"'"))
    except (LookupError, ValueError, TypeError):
        return None
    if info.name in _NOT_CHARSETS or not getattr(info, "_is_text_encoding", True):
        return None
    return info.name


def _decode_bytes(data: bytes, declared: object = None) -> str:
    """Bytes to text: the declared charset (us-ascii counts as undeclared), else UTF-8, else UTF-8
    with replacement when as many characters decode as fail, else windows-1252, else latin-1."""
    candidates: list[str] = []
    if data.startswith(b"\xef\xbb\xbf"):
        candidates.append("utf-8-sig")
    name = _codec(declared)
    if name and name != "ascii":
        candidates += [_SUPERSET[name]] if name in _SUPERSET else []
        candidates.append(name)
    candidates.append("utf-8")
    for candidate in candidates:
        try:
            return data.decode(candidate)
        except (UnicodeError, LookupError, ValueError):
            pass
    text = data.decode("utf-8", "replace")
    bad = text.count("\ufffd")
    good = sum(1 for ch in text if ord(ch) > 127) - bad
    if good and good >= bad:
        return text
    try:
        return data.decode("cp1252")
    except UnicodeError:
        return data.decode("latin-1")


# --- headers -------------------------------------------------------------------------------------

def _header(msg: Message, name: str) -> str | None:
    """The first `name` header as text, unfolded, 8-bit bytes decoded; encoded words left as is."""
    for key, value in msg.raw_items():
        if str(key).lower() == name:
            value = value if isinstance(value, str) else str(value)
            if _SURROGATE.search(value):
                value = _decode_bytes(value.encode("utf-8", "surrogateescape"))
            return re.sub(r"[\r\n]+", "", value)
    return None


def _unstructured(value: str | None) -> str:
    """RFC 2047 decoded, cleaned, whitespace collapsed."""
    if value is None:
        return ""
    if "=?" not in value:  # no encoded word: nothing to decode (and the decoder is slow)
        return " ".join(_clean(value).split())
    try:
        decoded = str(email.policy.default.header_factory("subject", value))
    except Exception:
        decoded = value
    return " ".join(_clean(decoded).split())


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


# --- the body ------------------------------------------------------------------------------------

def _content_type(part: Message) -> str:
    try:
        return str(part.get_content_type()).lower()
    except Exception:
        value = _header(part, "content-type") or ""
        found = re.match(r"\s*([\w.+-]+/[\w.+-]+)", value)
        return found.group(1).lower() if found else "text/plain"


def _param(part: Message, name: str) -> str | None:
    try:
        value = part.get_param(name)
        if isinstance(value, tuple):
            value = email.utils.collapse_rfc2231_value(value)
        return value if isinstance(value, str) else None
    except Exception:
        return None


def _is_attachment(part: Message, nested: bool) -> bool:
    """Content-Disposition: attachment; or, inside a multipart, any part with a file name (a body
    typed in a mail program never has one: Apple Mail sends attached files 'inline')."""
    disposition = _header(part, "content-disposition") or ""
    if disposition.split(";")[0].strip().lower() == "attachment":
        return True
    if not nested:
        return False
    if re.search(r"(^|;)\s*filename\*?\s*=", disposition, re.I):
        return True
    return bool(_param(part, "name"))


def _leaves(part: Message, depth: int = 0):
    """The single parts that may be the body, depth-first: no attachments, nothing inside a
    message/* part (forwarded mail, bounced originals)."""
    if depth > 50 or _is_attachment(part, depth > 0):
        return
    maintype = _content_type(part).split("/")[0]
    if maintype == "message":
        return
    if maintype == "multipart":
        if part.is_multipart():
            for sub in part.get_payload():
                if isinstance(sub, Message):
                    yield from _leaves(sub, depth + 1)
        return
    yield part


def _payload_bytes(part: Message) -> bytes:
    payload = part.get_payload(decode=True)
    if payload is None:
        return b""
    if isinstance(payload, str):
        return payload.encode("utf-8", "surrogateescape")
    return bytes(payload)


_META_CHARSET = re.compile(rb"""<meta[^>]{0,200}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""",
                           re.I)
_DATA_URI = re.compile(r"data:[\w/.+-]{0,100};base64,[A-Za-z0-9+/=\r\n]+")


def _body_text(msg: Message) -> str:
    """The text/plain part (the first one), else, or when that is blank, the text/html part."""
    plain = html_part = None
    for part in _leaves(msg):
        ctype = _content_type(part)
        if ctype == "text/plain" and plain is None:
            plain = part
        elif ctype == "text/html" and html_part is None:
            html_part = part
        if plain is not None and html_part is not None:
            break
    text = _plain_text(plain) if plain is not None else ""
    if not text.strip() and html_part is not None:
        text = _html_text(html_part)
    return text


def _plain_text(part: Message) -> str:
    text = _decode_bytes(_payload_bytes(part), _param(part, "charset"))[:_MAX_TEXT]
    text = _LINE_BREAKS.sub("\n", text)
    if (_param(part, "format") or "").lower() == "flowed":
        text = _unflow(text, (_param(part, "delsp") or "").lower() == "yes")
    return _clean(text)


def _html_text(part: Message) -> str:
    data = _payload_bytes(part)
    charset = _param(part, "charset")
    if not charset:
        found = _META_CHARSET.search(data[:4096])
        charset = found.group(1).decode("ascii") if found else None
    markup = _DATA_URI.sub("data:", _decode_bytes(data, charset))[:_MAX_MARKUP]
    return _clean(_html_to_text(markup)[:_MAX_TEXT])


def _unflow(text: str, delsp: bool) -> str:
    """RFC 3676 format=flowed: join soft-broken lines (trailing space) of the same quote depth."""
    out: list[str] = []
    para: list[str] = []
    para_depth = 0

    def flush() -> None:
        if para:
            out.append(("> " * para_depth) + "".join(para) if para_depth else "".join(para))
            para.clear()

    for line in text.split("\n"):
        depth = len(line) - len(line.lstrip(">"))
        content = line[depth:]
        if content.startswith(" "):
            content = content[1:]
        if content == "-- ":
            flush()
            out.append(("> " * depth) + content if depth else content)
            continue
        flowed = content.endswith(" ")
        if flowed and delsp:
            content = content[:-1]
        if not para or depth != para_depth:
            flush()
            para_depth = depth
        para.append(content)
        if not flowed:
            flush()
    flush()
    return "\n".join(out)


class _HTMLText(HTMLParser):
    """HTML to lines of text: line breaks at block elements and <br>, blockquotes as '> ' lines,
    scripts, styles and the head dropped, whitespace collapsed outside <pre>. The attribution
    mail programs put above a blockquote is quoted with it; where one starts an unquoted copy of
    the mail replied to or forwarded, the text ends."""

    BLOCK = frozenset("address article aside blockquote center dd details dialog div dl dt "
                      "fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hr li main "
                      "nav ol p pre section summary table tbody tfoot thead tr ul".split())
    SKIP = frozenset("script style head title template noscript svg".split())
    CELL = frozenset(("td", "th"))
    # Gmail's and Thunderbird's attribution ("On ... wrote:") above the blockquote.
    ATTRIBUTION = frozenset(("gmail_attr", "moz-cite-prefix"))
    # Outlook's header block of the mail replied to, Yahoo's unquoted copy of it, Thunderbird's
    # forwarded mail: nothing after them is the sender's.
    END = frozenset(("appendonsend", "divrplyfwdmsg", "yahoo_quoted", "moz-forward-container"))

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self._current: list[str] = []
        self._skipping: list[str] = []
        self._quote = 0
        self._pre = 0
        self._divs = 0  # <div>s open
        self._attribution: int | None = None  # the <div> depth of an attribution being read
        self._ended = False

    def _emit(self, force: bool) -> None:
        text = "".join(self._current)
        self._current = []
        force = force or "\xa0" in text  # <p>&nbsp;</p>: a blank line, as a browser shows it
        text = text.rstrip() if self._pre else " ".join(text.split())
        if text or force:
            self.lines.append(("> " * self._quote) + text)

    def handle_starttag(self, tag: str, attrs) -> None:
        if self._ended:
            return
        if tag in self.SKIP:
            self._skipping.append(tag)
            return
        if tag == "body":
            self._skipping.clear()
        if self._skipping:
            return
        marks = set()
        for name, value in attrs:
            if name in ("id", "class") and value:
                marks.update(value.lower().split())
        if marks & self.END:
            self._emit(False)
            self._ended = True
            return
        if tag == "div":
            self._divs += 1
            if marks & self.ATTRIBUTION and self._attribution is None:
                self._emit(False)
                self._attribution = self._divs
                self._quote += 1
        if tag == "br":
            self._emit(True)
        elif tag in self.BLOCK:
            self._emit(False)
            self._quote += tag == "blockquote"
            self._pre += tag == "pre"
        elif tag in self.CELL:
            self._current.append(" ")  # cells of a row side by side (spaces collapse on output)

    def handle_startendtag(self, tag: str, attrs) -> None:
        if tag not in self.SKIP:
            self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        if self._ended:
            return
        if tag in self.SKIP:
            if tag in self._skipping:
                del self._skipping[len(self._skipping) - 1 - self._skipping[::-1].index(tag):]
            return
        if self._skipping:
            return
        if tag == "br":
            self._emit(True)
        elif tag in self.BLOCK:
            self._emit(False)
            if tag == "blockquote":
                self._quote = max(0, self._quote - 1)
            if tag == "pre":
                self._pre = max(0, self._pre - 1)
            if tag == "div":
                if self._attribution == self._divs:
                    self._attribution = None
                    self._quote = max(0, self._quote - 1)
                self._divs = max(0, self._divs - 1)

    def handle_data(self, data: str) -> None:
        if self._skipping or self._ended:
            return
        if self._pre:
            *whole, last = data.split("\n")
            for piece in whole:
                self._current.append(piece)
                self._emit(True)
            self._current.append(last)
        else:
            self._current.append(data)


# A tag as html.parser will read it: a name, then anything but '<' and '>' outside quotes.
_TAG = re.compile(r"</?[!?]?[A-Za-z](?:[^<>\"']++|\"[^\"]*+\"|'[^']*+')*+>")


def _defuse(markup: str) -> str:
    """Markup html.parser reads in linear time (it is quadratic on unclosed constructs such as
    '<a <a <a' or '<!--' repeated): comments and marked sections ('<![if !mso]>') dropped, an
    unclosed comment ending the text, and every '<' that starts no complete tag escaped."""
    out: list[str] = []
    i = start = 0
    marked_end = -1
    while True:
        i = markup.find("<", i)
        if i < 0:
            break
        if markup.startswith("<!--", i):
            end = markup.find("-->", i + 4)
            out.append(markup[start:i])
            if end < 0:
                return "".join(out)
            i = start = end + 3
            continue
        if markup.startswith("<![", i):
            if marked_end < i and marked_end != -2:
                found = markup.find("]>", i + 3)
                marked_end = found if found >= 0 else -2  # -2: there is none after here
            if 0 <= marked_end - i <= 1000:
                out.append(markup[start:i])
                i = start = marked_end + 2
                continue
        tag = _TAG.match(markup, i)
        if tag:
            i = tag.end()
            continue
        out.append(markup[start:i])
        out.append("&lt;")
        i = start = i + 1
    out.append(markup[start:])
    return "".join(out)


def _html_to_text(markup: str) -> str:
    markup = _defuse(markup)
    parser = _HTMLText()
    try:
        parser.feed(markup)
        parser.close()
        parser._emit(False)
        return "\n".join(parser.lines)
    except Exception:
        return _crude_html_to_text(markup)


_SCRIPT_OR_STYLE = re.compile(r"<(script|style)\b", re.I)


def _crude_html_to_text(markup: str) -> str:
    """For markup html.parser gives up on (given _defuse'd markup): scripts and styles out, line
    breaks at the usual tags, other tags out, entities decoded."""
    pieces, i = [], 0
    while (opened := _SCRIPT_OR_STYLE.search(markup, i)) is not None:
        pieces.append(markup[i:opened.start()])
        closing = re.compile(r"</" + opened.group(1) + r"\b[^>]*>?", re.I)
        closed = closing.search(markup, opened.end())
        i = closed.end() if closed else len(markup)
    pieces.append(markup[i:])
    markup = "".join(pieces)
    markup = re.sub(r"(?i)<br\b[^>]*>|</?(?:p|div|li|tr|h[1-6]|table|blockquote|hr)\b[^>]*>",
                    "\n", markup)
    markup = html.unescape(re.sub(r"<[^>]*>", "", markup))
    return "\n".join(filter(None, (" ".join(line.split()) for line in markup.split("\n"))))


# --- what the sender wrote -----------------------------------------------------------------------

# A quoted line: '>' (mail programs) or '|' (some webmails), after spaces at most.
_QUOTED = re.compile(r"\s*[>|]")
_ACK = re.compile(r"===\s*gm\s+(?:acknowledgement|results|notice|press)\s*===", re.I)  # any heading of the judge's


def _words(*phrases: str) -> str:
    """An alternation of phrases, any run of spaces in one matching any run of spaces."""
    return "|".join(r"\s+".join(re.escape(word) for word in phrase.split()) for phrase in phrases)


# "-----Original Message-----" and the like, as mail programs write it in each language.
# QQ Mail writes '&nbsp;' for the spaces in its plain text.
_GAP = r"(\s|&nbsp;)*"
_ORIGINAL = re.compile(r"[-=]{2,}" + _GAP + "(" + _words(
    "original message", "original", "reply message", "replied message", "ursprüngliche nachricht",
    "originalnachricht", "message d'origine", "message original", "oorspronkelijk bericht",
    "origineel bericht", "mensaje original", "messaggio originale", "mensagem original",
    "oprindelig meddelelse", "oprindelig besked", "original meddelelse", "opprinnelig melding",
    "originalmelding", "ursprungligt meddelande", "originalmeddelande", "alkuperäinen viesti",
    "wiadomość oryginalna", "oryginalna wiadomość", "původní zpráva", "původní e-mail",
    "pôvodná správa", "исходное сообщение", "оригинальное сообщение", "исходное письмо",
    "eredeti üzenet", "eredeti levél", "özgün ileti", "orijinal mesaj", "orijinal ileti",
    "αρχικό μήνυμα", "mesaj original", "元のメッセージ", "原始邮件", "原始郵件", "原始信息",
    "原始訊息", "原邮件", "回复的原邮件", "원본 메시지", "원본 메일") + ")" + _GAP + "[-=]{2,}", re.I)
# "---------- Forwarded message ---------" and Apple Mail's "Begin forwarded message:".
_FORWARDED = re.compile(r"[-=]{2,}" + _GAP + "(" + _words(
    "forwarded message", "forwarded e-mail", "forwarded email", "weitergeleitete nachricht",
    "weitergeleitete e-mail", "message transféré", "message transfere", "doorgestuurd bericht",
    "mensaje reenviado", "messaggio inoltrato", "mensagem encaminhada", "mensagem reencaminhada",
    "videresendt meddelelse", "videresendt besked", "videresendt melding",
    "vidarebefordrat meddelande", "välitetty viesti", "wiadomość przekazana dalej",
    "przekazana wiadomość", "přeposlaná zpráva", "přeposlaný e-mail", "пересылаемое сообщение",
    "пересланное сообщение", "továbbított üzenet", "továbbított levél", "iletilen mesaj",
    "yönlendirilmiş ileti", "yönlendirilen ileti", "προωθημένο μήνυμα", "転送されたメッセージ",
    "転送メッセージ", "转发的邮件", "转发邮件", "轉寄的郵件", "전달된 메시지", "전달 메시지") +
    ")" + _GAP + "[-=]{2,}|(" + _words(
    "begin forwarded message", "anfang der weitergeleiteten nachricht",
    "début du message réexpédié", "début du message transféré", "inicio del mensaje reenviado",
    "comienzo del mensaje reenviado", "inizio messaggio inoltrato",
    "início da mensagem reencaminhada", "início da mensagem encaminhada",
    "begin doorgestuurd bericht", "start på videresendt besked", "start på videresendt meddelelse",
    "videresendt melding", "vidarebefordrat mejl", "vidarebefordrat brev",
    "välitetty viesti alkaa", "początek przekazywanej wiadomości", "začátek přeposlané zprávy",
    "начало переадресованного сообщения", "továbbított levél kezdete", "転送されたメッセージ",
    "以下是转发的邮件", "轉寄的郵件", "전달된 메시지") + r")\s*[:：]", re.I)
_UNDERSCORES = re.compile(r"_{8,}")

# The fields of an Outlook-style header block ("From: ... Sent: ... To: ... Subject: ..."), as
# mail programs name them in each language; bold ('*From:*') when a program made plain text of
# HTML.
_HDR_FROM = _words(
    "from", "von", "de", "van", "da", "från", "fra", "od", "от", "від", "lähettäjä", "feladó",
    "kimden", "από", "差出人", "送信者", "发件人", "發件人", "寄件者", "寄件人", "보낸 사람",
    "보낸사람", "expéditeur", "remitente", "mittente", "afzender", "avsändare", "avsender",
    "afsender", "nadawca", "odesílatel", "отправитель")
_HDR_DATE = _words(
    "sent", "date", "gesendet", "datum", "envoyé", "envoyé le", "verzonden", "verstuurd",
    "enviado", "enviado el", "enviado em", "enviada em", "fecha", "inviato", "data", "skickat",
    "sendt", "dato", "lähetetty", "päivämäärä", "päiväys", "wysłano", "wysłane", "odesláno",
    "отправлено", "дата", "elküldve", "dátum", "gönderildi", "gönderilme tarihi", "tarih",
    "στάλθηκε", "ημερομηνία", "送信日時", "日付", "发送时间", "發送時間", "日期", "时间", "時間",
    "寄件日期", "보낸 날짜", "보낸날짜", "날짜")
_HDR_OTHER = _words(
    "to", "an", "à", "a", "aan", "para", "til", "till", "vastaanottaja", "do", "komu", "кому",
    "címzett", "kime", "προς", "宛先", "收件人", "收件者", "받는 사람", "받는사람",
    "cc", "bcc", "kopie", "kopi", "kopia", "kopio", "dw", "udw", "копия", "másolat",
    "másolatot kap", "bilgi", "κοιν.", "抄送", "副本", "참조", "copie à",
    "subject", "betreff", "objet", "onderwerp", "asunto", "oggetto", "assunto", "emne", "ämne",
    "aihe", "temat", "předmět", "тема", "tárgy", "konu", "θέμα", "件名", "主题", "主題", "主旨",
    "제목", "reply-to", "antwort an", "répondre à", "responder a", "rispondi a", "svar til",
    "svara till", "vastausosoite", "odpowiedź do", "odpovědět", "ответить", "importance",
    "wichtigkeit", "priorität", "priority", "importancia", "importanza", "prioridade",
    "prioriteit", "viktighet", "prioritet", "tärkeys", "ważność", "důležitost", "важность",
    "fontosság", "önem", "σημασία", "重要度", "重要性", "중요도", "attachments", "anlagen",
    "anhänge", "pièces jointes", "datos adjuntos", "allegati", "anexos", "bijlagen",
    "vedhæftede filer", "vedlegg", "bifogade filer", "liitteet", "załączniki", "přílohy",
    "вложения", "mellékletek", "ekler", "συνημμένα", "添付ファイル", "附件", "첨부",
    "organization", "organisation")
_FIELD = r"\*{0,2}\s*(%s)\s*\*{0,2}\s*[:：]"
_HDR_FROM_LINE = re.compile(_FIELD % _HDR_FROM + r"\s*\*{0,2}\s*\S", re.I)
_HDR_DATE_LINE = re.compile(_FIELD % _HDR_DATE, re.I)
_HDR_OTHER_LINE = re.compile(_FIELD % _HDR_OTHER, re.I)

# Attributions: "On <date>, <someone> wrote:" in many languages and word orders. The verb...
_WROTE = re.compile(
    r"(?<!\w)(wrote|writes|schrieb|schreibt|geschrieben|a\s+écrit|écrit|schreef|geschreven|"
    r"escribió|escribio|ha\s+scritto|scrive|escreveu|skrev|skriver|kirjoitti|napisał\(a\)|"
    r"napisała?|napisana|pisze|napsal\(a\)|napsala?|написал\(а\)|написала?|пишет|пише|написав|"
    r"írta|yazdı|έγραψε|quoting|zitat\s+von)(?!\w)|写道|寫道|작성|쓴\s*글|のメール|が書きました", re.I)
# ... and what makes a line with that verb an attribution for certain: the mail address of the
# one quoted, or a date with a time (or with the word an attribution opens with).
_ATTR_ADDRESS = re.compile(r"[\w.+'-]+@[\w-]+(\.[\w-]+)+")
_ATTR_DATE = re.compile(
    r"\d{1,4}\s?[./-]\s?\d{1,2}\s?[./-]\s?\d{1,4}|"  # 04/03/2024, 2024-03-04, 4. 3. 2024
    r"\d{4}\s?[年년]|"  # 2024年3月4日, 2024년 3월 4일
    r"\d{1,2}(st|nd|rd|th|\.)?\s+(de\s+)?[^\W\d_]{3,}\.?,?\s+(de\s+)?\d{4}|"  # 4 Mar 2024
    r"[^\W\d_]{3,}\.?\s+\d{1,2}(st|nd|rd|th)?,?\s+\d{4}|"  # March 4, 2024
    r"\d{4}\.\s+[^\W\d_]{3,}\.?\s+\d{1,2}")  # 2024. márc. 4
_ATTR_TIME = re.compile(r"(?<![\d.:])\d{1,2}[:.h]\d{2}(?![\d.])")
_CLOCK = re.compile(r"(?<!\d)\d{1,2}:\d{2}(?!\d)")
_OPENER = re.compile(r"(on|am|le|op|el|il|em|den|på|w dniu|dnia|dne|at|в|在)\s", re.I)
# Gmail's old Chinese and Japanese form, with neither verb nor colon: "2013/7/20 Name <addr>".
_ATTR_CJK = re.compile(r"\d{4}/\d{1,2}/\d{1,2}\s.{1,100}<[^<>\s]+@[^<>\s]+>\s*[:：]?")

# The lines a mail program or a mobile adds under what its user wrote ("Sent from my iPhone").
_SOMETHING = r"\S.{0,60}"
_FOOTER = re.compile("(" + "|".join((
    rf"sent (from|with|using|via|by|on) {_SOMETHING}", rf"(get|download) outlook for {_SOMETHING}",
    rf"(von|gesendet von) mein(em|er)? {_SOMETHING}",
    rf"gesendet (mit|von|vom|aus|über) {_SOMETHING}",
    rf"(\S.{0,30} )?outlook für (ios|android)( herunterladen| beziehen)?",
    rf"envoyé (de|depuis|avec|à partir de|par) {_SOMETHING}",
    rf"(télécharger|obtenir) outlook pour {_SOMETHING}",
    rf"enviad[oa] (desde|con|de|do|da|pelo|com|via|a partir d[eo]) {_SOMETHING}",
    rf"(obtener|descargar|obtén|baixe|obter|obtenha|transfira)( o)? outlook para {_SOMETHING}",
    rf"inviato (da|dal|dall'|con|tramite) {_SOMETHING}",
    rf"(scarica|ottieni) outlook per {_SOMETHING}",
    rf"(verzonden|verstuurd) (vanaf|met|van|via) {_SOMETHING}",
    rf"(download )?outlook voor {_SOMETHING}",
    rf"sendt (fra|med|via) {_SOMETHING}", rf"(hent|få) outlook (til|for) {_SOMETHING}",
    rf"skickat (från|med|via) {_SOMETHING}", rf"(skaffa|hämta) outlook för {_SOMETHING}",
    rf"lähetetty {_SOMETHING}", rf"hanki outlook {_SOMETHING}",
    rf"(wysłane|wysłano|wysłana) (z|ze|przy użyciu|za pomocą|przez) {_SOMETHING}",
    rf"pobierz (aplikację )?outlook {_SOMETHING}",
    rf"odesláno (z|ze|pomocí|přes) {_SOMETHING}", rf"(stáhněte si|získejte) outlook {_SOMETHING}",
    rf"отправлено (с|со|из|через) {_SOMETHING}",
    rf"(загрузите|скачайте|получите) outlook {_SOMETHING}",
    rf"{_SOMETHING} küldve", rf"{_SOMETHING} gönderildi",
    rf"(στάλθηκε|εστάλη|απεστάλη) (από|με) {_SOMETHING}",
    r".{1,40}から送信(しました)?", r"(发自|發自|来自|來自|寄自).{1,40}",
    r"(从|從)我的.{1,40}(发送|傳送|寄出)", r".{1,40}에서 (보냄|보낸 메일)",
)) + r")\.?(\s*<https?://[^<>\s]*>)?", re.I)  # Outlook's: 'Get Outlook for iOS<https://...>'


def _header_block(lines: list[str], i: int) -> bool:
    """Does an Outlook-style header block (a From line and a Sent/Date line, in any order among
    other fields) start at line i?"""
    seen_from = seen_date = False
    for j in range(i, min(i + 14, len(lines))):
        s = lines[j].strip()
        if _HDR_FROM_LINE.match(s):
            seen_from = True
        elif _HDR_DATE_LINE.match(s):
            seen_date = True
        elif not _HDR_OTHER_LINE.match(s):
            # a field's value wrapped onto the next line ('To: a, b,' / '  <b@x>') goes on it
            previous = lines[j - 1].rstrip()
            if j == i or not s or not (lines[j][:1].isspace() or previous.endswith((",", ";"))):
                break
        if seen_from and seen_date:
            return True
    return False


def _ends_text(lines: list[str], i: int, s: str) -> bool:
    """Does everything from line i (stripped: s) on belong to someone else, or to a signature?"""
    if lines[i].rstrip() == "--" or _ACK.search(s):
        return True
    if s[0] in "-_=*" or ":" in s or "：" in s:
        if _ORIGINAL.fullmatch(s) or _FORWARDED.fullmatch(s) or _header_block(lines, i):
            return True
        if _UNDERSCORES.fullmatch(s):
            following = [j for j in range(i + 1, min(i + 3, len(lines))) if lines[j].strip()]
            return bool(following) and _header_block(lines, following[0])
    return False


def _attribution_strength(s: str) -> int:
    """2: s is an attribution ("On <date>, <someone> wrote:") for certain; 1: it may be one (the
    verb and a colon, as in "England wrote:"); 0: it is none."""
    if len(s) > 400:
        return 0
    if s.startswith("--") and s.endswith("--"):  # Zoho: "---- On <date> <someone> wrote ----"
        s = s.strip("- ") + ":"
    if not s.endswith((":", "：")):
        return 2 if _ATTR_CJK.fullmatch(s) else 0
    address, date = _ATTR_ADDRESS.search(s), _ATTR_DATE.search(s)
    if _WROTE.search(s):
        if address or (date and (_ATTR_TIME.search(s) or _OPENER.match(s))):
            return 2
        return 1
    # no verb at all (Russian and Japanese Gmail, Yandex): "4 мар. 2024 г. в 10:00, Name <addr>:"
    return 2 if address and date and _CLOCK.search(s) else 0


_ENDS = (":", "：", "-", ">")  # how the last line of an attribution ends


def _attribution(lines: list[str], i: int) -> tuple[int, int]:
    """How many lines (1 to 3: clients wrap it) an attribution starting at line i takes, and how
    certain it is (see _attribution_strength); (0, 0) when none starts there."""
    first = lines[i].strip()
    if len(first) > 400:  # longer than any attribution (and the searches below are not linear)
        return 0, 0
    if first.endswith(_ENDS) and (strength := _attribution_strength(first)):
        return 1, strength
    following = lines[i + 1:i + 3]
    if not any(line.rstrip().endswith(_ENDS) for line in following):
        return 0, 0
    # A line wraps onto the next only in the middle of an attribution: its first line has a
    # date, a time, an address or the word it opens with (a line of orders above has none).
    if not (_ATTR_ADDRESS.search(first) or _ATTR_DATE.search(first) or first.endswith("<")
            or _ATTR_TIME.search(first) or _OPENER.match(first)):
        return 0, 0
    joined = first
    for n, line in enumerate(following, 1):
        if not line.strip() or _QUOTED.match(line):
            return 0, 0
        joined += " " + line.strip()
        if joined.endswith(_ENDS) and (strength := _attribution_strength(joined)):
            return n + 1, strength
    return 0, 0


def _keep(text: str) -> str:
    """What the sender wrote: quoted lines, attributions, mobile footers dropped; the text cut at a
    signature, an Outlook header block, a forwarded message, a pasted acknowledgement or an
    attribution above unquoted text; lines right-stripped, runs of blank lines made one, no blank
    lines at either end.

    An attribution followed by quoted lines ('>' or '|') heads a quote the sender may have written
    between or below (an inline reply, a bottom post): only the quoted lines go. Followed by
    lines that are not quoted, it heads an unmarked quote (Yahoo, Zoho, Outlook, old clients):
    everything from it on goes, unless it is only perhaps an attribution ("England wrote:"), which
    is then the sender's text."""
    lines = text[:_MAX_TEXT].split("\n")
    kept: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        if not s:
            if kept and kept[-1]:
                kept.append("")
            i += 1
            continue
        if _QUOTED.match(line):
            i += 1
            continue
        if _ends_text(lines, i, s):
            break
        taken, strength = _attribution(lines, i)
        if taken:
            after = next((j for j in range(i + taken, len(lines)) if lines[j].strip()), None)
            if after is not None and _QUOTED.match(lines[after]):
                i += taken
                continue
            if strength == 2:
                break
        if not _FOOTER.fullmatch(s):
            kept.append(line.rstrip())
        i += 1
    while kept and not kept[-1]:
        kept.pop()
    return "\n".join(kept)
