"""Passwords taken out of stored mail: masked in every text part and header, whatever the charset
and transfer encoding, and never left anywhere in the bytes."""
from __future__ import annotations

import base64
import email
import email.policy
import quopri
import random
import string
from email.message import EmailMessage, Message
from email.mime.message import MIMEMessage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText

import pytest

from gm.mail.commands import MASK, passwords_in
from gm.mail.intake.message import read_message
from gm.mail.intake.redact import NOT_KEPT, redact


def mail(body: str = "SIGNON France g1 pw\nA Par-Bur\n", *, charset: str = "utf-8", cte: str | None = None,
         subject: str = "orders") -> bytes:
    msg = EmailMessage()
    msg["From"] = "alice@example.org"
    msg["To"] = "gm@example.org"
    msg["Subject"] = subject
    msg["Message-ID"] = "<m1@example.org>"
    msg.set_content(body, charset=charset, cte=cte)
    return bytes(msg)


def parse(data: bytes) -> Message:
    return email.message_from_bytes(data, policy=email.policy.compat32)


def texts(data: bytes) -> list[str]:
    """The decoded text of every text/* part, forwarded mail included."""
    found = []
    for part in parse(data).walk():
        if part.get_content_maintype() == "text" and not part.is_multipart():
            found.append(part.get_payload(decode=True).decode(part.get_content_charset() or "ascii"))
    return found


def subject(data: bytes) -> str:
    return read_message(data).subject


def assert_gone(data: bytes, password: str) -> None:
    encoded = password.encode()
    assert encoded not in data
    assert quopri.encodestring(encoded) not in data
    assert base64.b64encode(encoded) not in data


# --- where the password is ------------------------------------------------------------------------

def test_a_plain_body_keeps_everything_but_the_password():
    out = redact(mail(), {"pw"})
    assert texts(out) == [f"SIGNON France g1 {MASK}\nA Par-Bur\n"]
    assert_gone(out, "pw")
    assert read_message(out).message_id == "<m1@example.org>"


def test_mail_without_the_password_is_left_byte_for_byte():
    data = mail("A Par-Bur\n")
    assert redact(data, {"pw"}) == data


@pytest.mark.parametrize("passwords", [set(), {""}, {"  ", "\t"}])
def test_empty_and_blank_passwords_are_ignored(passwords):
    data = mail()
    assert redact(data, passwords) == data


def test_an_html_alternative_is_masked_too():
    msg = MIMEMultipart("alternative")
    msg["From"] = "alice@example.org"
    msg["Subject"] = "orders"
    msg.attach(MIMEText("SIGNON France g1 p&w\nA Par-Bur\n", "plain", "utf-8"))
    msg.attach(MIMEText("<p>SIGNON France g1 <b>p&amp;w</b></p><p>A Par-Bur</p>", "html", "utf-8"))
    out = redact(msg.as_bytes(), {"p&w"})
    assert texts(out) == [f"SIGNON France g1 {MASK}\nA Par-Bur\n",
                          f"<p>SIGNON France g1 <b>{MASK}</b></p><p>A Par-Bur</p>"]
    assert_gone(out, "p&w")
    assert_gone(out, "p&amp;w")


@pytest.mark.parametrize("cte", ["base64", "quoted-printable", "8bit", "7bit"])
@pytest.mark.parametrize("charset, body", [
    ("utf-8", "Привет, Grüße\nSIGNON France g1 pässwört\nA Par-Bur\n"),
    ("iso-8859-1", "Grüße, Müller\nSIGNON France g1 pässwört\nA Par-Bur\n"),
])
def test_charsets_and_transfer_encodings_are_kept(charset, body, cte):
    if cte == "7bit":
        charset, body = "us-ascii", "Hello\nSIGNON France g1 s3cret\nA Par-Bur\n"
    password = body.split("\n")[1].split()[-1]
    data = mail(body, charset=charset, cte=cte)
    out = redact(data, {password})
    part = parse(out)
    assert part.get_content_charset() == charset
    assert part["Content-Transfer-Encoding"] == cte
    assert texts(out) == [body.replace(password, MASK)]
    for encoding in ("utf-8", "latin-1"):
        assert password.encode(encoding) not in out
        assert quopri.encodestring(password.encode(encoding)) not in out


def test_a_charset_that_cannot_take_the_text_becomes_utf8():
    # us-ascii declared, UTF-8 sent: the part is written back as what it is
    data = (b"From: a@example.org\r\nSubject: x\r\nContent-Type: text/plain; charset=us-ascii\r\n\r\n"
            + "Grüße\r\nSIGNON France g1 pw\r\n".encode())
    out = redact(data, {"pw"})
    assert parse(out).get_content_charset() == "utf-8"
    assert texts(out) == [f"Grüße\r\nSIGNON France g1 {MASK}\r\n"]


def test_a_password_with_regex_metacharacters():
    password = "p.a$s*"
    out = redact(mail(f"SIGNON France g1 {password}\npXa$s* stays, and so does p.a$s*x\n"), {password})
    assert texts(out) == [f"SIGNON France g1 {MASK}\npXa$s* stays, and so does p.a$s*x\n"]


def test_a_password_inside_a_longer_word_is_left():
    out = redact(mail("SIGNON France g1 pass\nmy password: passage, bypass, pass.\n"), {"pass"})
    assert texts(out) == [f"SIGNON France g1 {MASK}\nmy password: passage, bypass, {MASK}.\n"]


def test_the_subject_is_masked_plain_or_encoded():
    out = redact(mail(subject="SIGNON France g1 pw"), {"pw"})
    assert subject(out) == f"SIGNON France g1 {MASK}"
    assert_gone(out, "pw")
    encoded = mail(subject="Grüße: SIGNON France g1 pw")
    assert b"=?utf-8?" in encoded
    out = redact(encoded, {"pw"})
    assert subject(out) == f"Grüße: SIGNON France g1 {MASK}"
    assert "pw" not in str(parse(out)["Subject"])


def test_a_quoted_signon_is_masked_and_found():
    body = "A Par-Bur\n\nOn Monday Bob wrote:\n> SIGNON France g1 oldpw\n> A Mar-Spa\n"
    assert passwords_in(body) == {"oldpw"}
    out = redact(mail(body), passwords_in(body))
    assert texts(out) == [body.replace("oldpw", MASK)]


def test_a_forwarded_message_is_masked_inside():
    inner = MIMEText("SIGNON France g1 pw\n", "plain", "utf-8")  # base64
    inner["Subject"] = "SIGNON France g1 pw"
    outer = MIMEMultipart()
    outer["From"] = "alice@example.org"
    outer["Subject"] = "Fwd: my orders"
    outer.attach(MIMEText("see below\n", "plain", "utf-8"))
    outer.attach(MIMEMessage(inner))
    data = outer.as_bytes()
    assert b"SIGNON France g1 pw" in data
    out = redact(data, {"pw"})
    assert texts(out) == ["see below\n", f"SIGNON France g1 {MASK}\n"]
    assert_gone(out, "pw")
    forwarded = parse(out).get_payload()[1].get_payload()[0]
    assert forwarded["Subject"] == f"SIGNON France g1 {MASK}"


# --- when the body cannot be kept ---------------------------------------------------------------

def test_a_password_in_a_part_that_is_not_text_keeps_only_the_headers():
    msg = MIMEMultipart()
    msg["From"] = "alice@example.org"
    msg["Subject"] = "SIGNON France g1 pw"
    msg.attach(MIMEText("orders attached\n"))
    attachment = Message()
    attachment["Content-Type"] = "application/octet-stream"
    attachment["Content-Transfer-Encoding"] = "base64"
    attachment.set_payload(base64.encodebytes(b"SIGNON France g1 pw\n").decode())
    msg.attach(attachment)
    out = redact(msg.as_bytes(), {"pw"})
    kept = parse(out)
    assert kept["From"] == "alice@example.org"
    assert kept["Subject"] == f"SIGNON France g1 {MASK}"
    assert texts(out) == [NOT_KEPT]
    assert_gone(out, "pw")


def test_a_body_its_charset_cannot_read_keeps_only_the_headers():
    # The email package writes UTF-16 with one-byte line breaks, which UTF-16 cannot decode.
    data = mail("hello\nSIGNON France g1 secret1\n\nbye\n", charset="utf-16", cte="base64")
    out = redact(data, {"secret1"})
    assert texts(out) == [NOT_KEPT]
    assert subject(out) == "orders"


def test_binary_attachments_are_kept_even_when_the_password_turns_up_in_them():
    msg = MIMEMultipart()
    msg["From"] = "alice@example.org"
    msg.attach(MIMEText("SIGNON France g1 pw\n"))
    image = Message()
    image["Content-Type"] = "image/png"
    image["Content-Transfer-Encoding"] = "base64"
    image.set_payload(base64.encodebytes(b"\x89PNG\xff\xfe pw \x00\x01").decode())
    msg.attach(image)
    out = redact(msg.as_bytes(), {"pw"})
    assert texts(out) == [f"SIGNON France g1 {MASK}\n"]
    assert parse(out).get_payload()[1].get_payload(decode=True) == b"\x89PNG\xff\xfe pw \x00\x01"


@pytest.mark.parametrize("seed", range(20))
def test_garbage_never_raises_and_keeps_no_password(seed):
    rng = random.Random(seed)
    noise = bytes(rng.randrange(256) for _ in range(rng.randrange(2000)))
    pieces = [noise[:300], b"\r\nSubject: pw\r\n", noise[300:900], b" pw\n", noise[900:],
              b"\n\nContent-Transfer-Encoding: base64\n\n", base64.encodebytes(b" pw ")]
    data = b"".join(rng.sample(pieces, len(pieces)))
    out = redact(data, {"pw"})
    assert isinstance(out, bytes)
    assert b" pw " not in out and b" pw\n" not in out and b": pw" not in out
    assert all(" pw " not in f" {text} " for text in texts(out))


@pytest.mark.parametrize("bad", [None, 3, [None, 5]])
def test_no_usable_passwords_at_all_keep_nothing_rather_than_raise(bad):
    out = redact(mail(), bad)
    if bad == [None, 5]:  # a collection with no password in it: nothing to hide
        assert out == mail()
    else:
        assert texts(out) == [NOT_KEPT]


def test_password_made_of_the_mask_character():
    out = redact(mail("SIGNON France g1 *\n"), {"*"})
    assert texts(out) == [f"SIGNON France g1 {MASK}\n"]


# --- many passwords, charsets and encodings -------------------------------------------------------

_WORDS = ["A", "Par-Bur", "F", "Lon-Nth", "Grüße", "Müller", "déjà", "vu", "army", "fleet", "to", "the",
          "5€", "«quote»", "ok.", "(support)", "x=1", "50%"]
_PASSWORD_CHARS = string.ascii_letters + string.digits + "!#$%&*+-./:;?@^_~=()[]{}|\\'\"<>,"


def _random_password(rng: random.Random) -> str:
    while True:
        password = "".join(rng.choice(_PASSWORD_CHARS) for _ in range(rng.randrange(6, 14)))
        if any(c.isalnum() for c in password) and password.strip() == password:
            return password


@pytest.mark.parametrize("seed", range(300))
def test_random_passwords_charsets_and_encodings(seed):
    rng = random.Random(seed)
    password = _random_password(rng)
    charset = rng.choice(["utf-8", "iso-8859-1", "windows-1252", "iso-8859-15", "utf-16"])
    cte = "base64" if charset == "utf-16" else rng.choice(["base64", "quoted-printable", "8bit"])
    words = [w for w in _WORDS if w.encode(charset, "ignore").decode(charset) == w]
    filler = [" ".join(rng.choice(words) for _ in range(rng.randrange(1, 12))) for _ in range(rng.randrange(1, 6))]
    line = rng.choice(["SIGNON France g1 {}", "JOIN g1 Italy {}", "SET PASSWORD {}", "> SIGNON France g1 {}"])
    line = line.format(password)
    lines = [line, *filler]
    rng.shuffle(lines)
    if rng.random() < 0.5:  # the password line first, so its base64 starts the body's
        lines.remove(line)
        lines.insert(0, line)
    body = "\n".join(lines) + "\n"
    expected = body.replace(line, line.replace(password, MASK))
    subject_line = rng.choice(["orders", line])
    data = mail(body, charset=charset, cte=cte, subject=subject_line)
    if charset == "utf-16":  # the email package writes UTF-16 with one-byte line breaks: by hand
        head = data.split(b"\n\n", 1)[0]
        data = head + b"\n\n" + base64.encodebytes(body.encode(charset))

    out = redact(data, {password})

    encoded = password.encode(charset if charset != "utf-16" else "utf-8")
    assert encoded not in out
    assert quopri.encodestring(encoded) not in out
    first = line.encode(charset)
    if body.startswith(line) and cte == "base64":
        assert base64.b64encode(first[: len(first) // 3 * 3]) not in out
    assert texts(out) == [expected]
    assert subject(out) == subject_line.replace(password, MASK)
    part = parse(out)
    assert (part.get_content_charset(), part["Content-Transfer-Encoding"]) == (charset, cte)
    assert password not in read_message(out).text


# --- which passwords a mail carries -------------------------------------------------------------

def test_passwords_in_command_lines_and_quotes():
    text = ("SIGNON France g1 first\n"
            "set password second\n"
            "JOIN g2 Italy third\n"
            "A Par-Bur\n"
            "The password was wrong\n"
            "> > SIGNON Italy g1 fourth\n"
            "| signon Austria g3 fifth\n")
    assert passwords_in(text) == {"first", "second", "third", "fourth", "fifth"}


@pytest.mark.parametrize("text", ["", "A Par-Bur\nF Lon-Nth", "> A Par-Bur", "SIGNON", "\x00\n>"])
def test_no_passwords_in_text_without_such_commands(text):
    assert passwords_in(text) == set()
