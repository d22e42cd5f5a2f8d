"""The MIME side of an inbound mail: pure (no I/O), and never raising on what it is given.

Bytes to text whatever the charset (`decode_bytes`), text cleaned of invisible and control
characters (`clean`), a raw header's value, and the body a person typed: the text/plain part, else
the text/html part turned into lines of text (blockquotes as '> ' lines), attachments and
forwarded messages left out. gm.mail.intake.message reads the headers' meaning; gm.mail.intake.reply_text finds
what the sender newly wrote in the body.
"""
from __future__ import annotations

import codecs
import email.policy
import email.utils
import html
import re
import unicodedata
from email.message import Message
from html.parser import HTMLParser

MAX_TEXT = 500_000  # characters of a body read at most: a player's text is never near this
_MAX_MARKUP = 5_000_000  # characters of HTML read at most, once inline images are taken out


# --- small helpers -------------------------------------------------------------------------------

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
    text = _decode_bytes(_payload_bytes(part), _param(part, "charset"))[:MAX_TEXT]
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
    return _clean(_html_to_text(markup)[:MAX_TEXT])


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
