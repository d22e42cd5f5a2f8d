"""Passwords taken out of a mail before its raw bytes are stored.

`redact` masks every whole-word occurrence of the given passwords in the headers and in every
text/* part of a mail (forwarded mail included), whatever its charset and transfer encoding, and
checks the result: when a password may still be in it, only the headers are kept, with a note
for a body. `passwords_in` finds the passwords a mail's text carries.
"""
from __future__ import annotations

import base64
import email
import email.header
import email.policy
import html
import io
import quopri
import re
from collections.abc import Collection
from email.generator import BytesGenerator
from email.message import Message

from gm.mail.intake.message import (
    _META_CHARSET,
    _SURROGATE,
    _as_bytes,
    _codec,
    _content_type,
    _decode_bytes,
    _param,
    _payload_bytes,
    _unstructured,
)

MASK = "********"  # what a password is replaced by, wherever it is kept or shown
NOT_KEPT = "gm did not keep the body of this mail, so as not to keep a password it may carry.\n"

# Headers that give a mail its MIME structure: never masked (a password 'plain' must not break
# 'text/plain'), and written anew when only the headers are kept.
_STRUCTURAL = frozenset(("content-type", "content-transfer-encoding", "mime-version"))
_PLAIN_CTES = ("", "7bit", "8bit", "binary")


def redact(raw: bytes, passwords: Collection[str]) -> bytes:
    """`raw` with every whole-word occurrence of each password as MASK. Never raises; when the
    mail cannot be rewritten, or a password is still found in what it was rewritten to, the
    headers are kept (masked) and the body replaced by a note."""
    data = _as_bytes(raw)
    try:
        pattern = _pattern(passwords)
    except Exception:  # not a collection of strings: nothing tells what to hide, so keep nothing
        return _minimal(None)
    if pattern is None:
        return data
    try:
        redacted = _redact_mail(data, pattern)
        if not _leaks(redacted, pattern):
            return redacted
    except Exception:
        pass
    return _headers_only(data, pattern)


def _pattern(passwords: Collection[str]) -> re.Pattern[str] | None:
    words = {p.strip() for p in passwords if isinstance(p, str) and p.strip()}
    # In HTML a password with '&', '<' or quotes is written escaped.
    words |= {html.escape(w, quote=q) for w in words for q in (False, True)}
    if not words:
        return None
    # \b would not do: a password may start or end with punctuation.
    alternatives = "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)")


def _found(pattern: re.Pattern[str], text: str) -> bool:
    # The mask itself is no password, even when a password is made of '*'.
    return pattern.search(text.replace(MASK, " ")) is not None


# --- rewriting -----------------------------------------------------------------------------------

def _redact_mail(data: bytes, pattern: re.Pattern[str]) -> bytes:
    msg = email.message_from_bytes(data, policy=email.policy.compat32)
    changed = False
    for part in msg.walk():  # message/rfc822 parts included
        changed |= _redact_headers(part, pattern)
        for where in ("preamble", "epilogue"):
            value = getattr(part, where)
            if isinstance(value, str) and _found(pattern, value):
                setattr(part, where, pattern.sub(MASK, value))
                changed = True
        if not part.is_multipart() and _content_type(part).startswith("text/"):
            changed |= _redact_text(part, pattern)
    return _flatten(msg, data) if changed else data


def _header_text(value: object) -> str:
    value = str(value)
    if _SURROGATE.search(value):  # 8-bit bytes in the header
        value = _decode_bytes(value.encode("utf-8", "surrogateescape"))
    return _unstructured(re.sub(r"[\r\n]+", "", value))


def _masked_headers(part: Message, pattern: re.Pattern[str]) -> list[tuple[str, str]]:
    """The part's headers with passwords masked (a header whose name has one is left out)."""
    headers = []
    for name, value in part.raw_items():
        if _found(pattern, name):
            continue
        if name.lower() not in _STRUCTURAL:
            text = _header_text(value)
            if _found(pattern, text):
                masked = pattern.sub(MASK, text)
                value = masked if masked.isascii() else email.header.Header(masked, "utf-8").encode()
        headers.append((name, value))
    return headers


def _redact_headers(part: Message, pattern: re.Pattern[str]) -> bool:
    headers = _masked_headers(part, pattern)
    if headers == list(part.raw_items()):
        return False
    for name in {name for name, _ in part.raw_items()}:
        del part[name]
    for name, value in headers:
        part[name] = value
    return True


def _charset(part: Message, data: bytes) -> str | None:
    charset = _param(part, "charset")
    if not charset and _content_type(part) == "text/html":
        found = _META_CHARSET.search(data[:4096])
        charset = found.group(1).decode("ascii") if found else None
    return charset


def _redact_text(part: Message, pattern: re.Pattern[str]) -> bool:
    data = _payload_bytes(part)
    charset = _charset(part, data)
    codec = _codec(charset) or "utf-8"
    try:
        text, same_charset = data.decode(codec), True
    except (UnicodeError, LookupError):
        text, same_charset = _decode_bytes(data, charset), False
    if not _found(pattern, text):
        return False
    text = pattern.sub(MASK, text)
    try:
        if not same_charset:
            raise UnicodeError
        body = text.encode(codec)
    except (UnicodeError, LookupError):
        body = text.encode("utf-8")
        part.set_param("charset", "utf-8")
    _set_body(part, body)
    return True


def _set_body(part: Message, body: bytes) -> None:
    """The part's body as `body`, in its transfer encoding where that can carry it."""
    cte = str(part.get("content-transfer-encoding", "")).strip().lower()
    if cte == "base64":
        part.set_payload(base64.encodebytes(body).decode("ascii"))
        return
    if cte == "quoted-printable":
        part.set_payload(quopri.encodestring(body).decode("ascii"))
        return
    if cte not in _PLAIN_CTES or (cte == "7bit" and not body.isascii()):
        part.replace_header("Content-Transfer-Encoding", "8bit")
    part.set_payload(body.decode("ascii", "surrogateescape"))  # written back as the same bytes


def _flatten(msg: Message, original: bytes) -> bytes:
    head = original.split(b"\n\n", 1)[0]
    policy = email.policy.compat32.clone(linesep="\r\n" if b"\r\n" in head else "\n", max_line_length=None)
    out = io.BytesIO()
    BytesGenerator(out, mangle_from_=False, policy=policy).flatten(msg, unixfrom=msg.get_unixfrom() is not None)
    return out.getvalue()


# --- checking ------------------------------------------------------------------------------------

def _ascii_compatible(codec: str) -> bool:
    try:
        return "SIGNON pw".encode(codec) == b"SIGNON pw"
    except (UnicodeError, LookupError):
        return False


def _leaks(data: bytes, pattern: re.Pattern[str]) -> bool:
    """May a password be in `data`: in a header, in the text of a part (as the part's charset
    reads it, and as plain bytes when that charset is not ASCII's superset), in text an HTML
    entity hides, or in a part that is not text/* but holds UTF-8 text."""
    msg = email.message_from_bytes(data, policy=email.policy.compat32)
    for part in msg.walk():
        for name, value in part.raw_items():
            if _found(pattern, name) or (name.lower() not in _STRUCTURAL and _found(pattern, _header_text(value))):
                return True
        if any(isinstance(v, str) and _found(pattern, v) for v in (part.preamble, part.epilogue)):
            return True
        if part.is_multipart():
            continue
        body = _payload_bytes(part)
        texts = []
        ctype = _content_type(part)
        if ctype.startswith("text/"):
            charset = _charset(part, body)
            codec = _codec(charset) or "utf-8"
            try:
                texts.append(body.decode(codec))
            except (UnicodeError, LookupError):
                texts.append(_decode_bytes(body, charset))
            if not _ascii_compatible(codec):  # UTF-16 and the like: the bytes as ASCII, and
                texts.append(body.decode("latin-1"))  # the text at each alignment a stray byte may shift
                texts += [body[i:].decode(codec, "replace") for i in range(4)]
            if ctype == "text/html":
                texts.append(html.unescape(texts[0]))
        else:
            try:
                texts.append(body.decode("utf-8"))
            except UnicodeError:
                pass  # binary: a short password turns up in it by chance
        if any(_found(pattern, text) for text in texts):
            return True
    return False


# --- when the body cannot be kept ----------------------------------------------------------------

def _note(headers: list[tuple[str, str]], pattern: re.Pattern[str] | None, original: bytes) -> bytes:
    msg = Message(policy=email.policy.compat32)
    for name, value in headers:
        msg[name] = value
    msg["MIME-Version"] = "1.0"
    msg["Content-Type"] = 'text/plain; charset="utf-8"'
    msg["Content-Transfer-Encoding"] = "7bit"
    msg.set_payload(NOT_KEPT if pattern is None else pattern.sub(MASK, NOT_KEPT))
    return _flatten(msg, original)


def _minimal(pattern: re.Pattern[str] | None) -> bytes:
    return _note([], pattern, b"")


def _headers_only(data: bytes, pattern: re.Pattern[str]) -> bytes:
    """The mail's headers, masked, with the note as its body."""
    try:
        original = email.message_from_bytes(data, policy=email.policy.compat32)
        headers = [(n, v) for n, v in _masked_headers(original, pattern) if n.lower() not in _STRUCTURAL]
        out = _note(headers, pattern, data)
        if not _leaks(out, pattern):
            return out
    except Exception:
        pass
    return _minimal(pattern)
