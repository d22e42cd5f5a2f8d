"""Reading inbound mail: bodies in every encoding, quoted text dropped, automatic mail recognised,
and never raising on any bytes."""
from __future__ import annotations

import random
import re
from email.message import EmailMessage
from email.mime.message import MIMEMessage
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText

import pytest

from gm.mail.intake import message
from gm.mail.intake.message import ACK_MARKER, InboundMessage, command_lines, read_message

JUDGE = "judge@gm.example"


def mail(body: str = "A Par-Bur\n", *, charset: str = "utf-8", cte: str | None = None,
         subtype: str = "plain", **headers: str) -> bytes:
    """A single-part mail as a mail program writes it; headers as keyword arguments with '_' for
    '-', None to leave one out."""
    msg = EmailMessage()
    defaults = {"From": "Player One <Player.One@Example.COM>", "To": JUDGE,
                "Subject": "orders", "Message_ID": "<m1@example.com>"}
    for name, value in {**defaults, **headers}.items():
        if value is not None:
            msg[name.replace("_", "-")] = value
    msg.set_content(body, subtype=subtype, charset=charset, cte=cte)
    return bytes(msg)


def raw(headers: str, body: bytes) -> bytes:
    """A mail written byte for byte: headers (one per line), a blank line, the body."""
    head = "\r\n".join(headers.strip().splitlines()).encode("utf-8")
    return head + b"\r\n\r\n" + body


def text_of(data: bytes) -> str:
    return read_message(data).text


# --- the basics ----------------------------------------------------------------------------------

def test_plain_utf8():
    data = mail("A Par-Bur\nF Bre-Mao\n  A Mar - Spa  \n", Subject="Frühling 1901",
                In_Reply_To="<ack-7@gm.example>",
                References="<a1@gm.example> <ack-7@gm.example>")
    assert read_message(data) == InboundMessage(
        message_id="<m1@example.com>", sender="player.one@example.com",
        reply_to="player.one@example.com", subject="Frühling 1901",
        text="A Par-Bur\nF Bre-Mao\n  A Mar - Spa", automatic=None, soft_automatic=False,
        size=len(data),
        in_reply_to="<ack-7@gm.example>", references=("<a1@gm.example>", "<ack-7@gm.example>"))
    assert command_lines(read_message(data).text) == ["A Par-Bur", "F Bre-Mao", "A Mar - Spa"]


def test_reply_to_and_sender():
    msg = read_message(mail(From='"Jörg Müller" <Joerg@Example.DE>',
                            Reply_To="Orders <ORDERS+germany@Example.de>"))
    assert (msg.sender, msg.reply_to) == ("joerg@example.de", "orders+germany@example.de")
    msg = read_message(mail(From="=?utf-8?q?J=C3=B6rg?= <J@X.DE>"))
    assert (msg.sender, msg.reply_to) == ("j@x.de", "j@x.de")
    msg = read_message(mail(From="j@x.de (Jörg)"))
    assert msg.sender == "j@x.de"


@pytest.mark.parametrize("charset, body", [
    ("latin-1", "Frühling: A Mün-Ber, F Kie-Dän\n"),
    ("windows-1252", "\u201cA Par-Bur\u201d \u2013 5 \u20ac\n"),
    ("koi8-r", "Приказы: A Mos-Sev\n"),
    ("utf-8", "Приказы \u2192 A Mos-Sev 🙂\n"),
])
@pytest.mark.parametrize("cte", ["8bit", "quoted-printable", "base64"])
def test_charsets_and_transfer_encodings(charset, body, cte):
    data = mail(body, charset=charset, cte=cte)
    assert f"Content-Transfer-Encoding: {cte}".encode() in data
    assert text_of(data) == body.rstrip("\n")


def test_quoted_printable_soft_breaks_and_base64_are_decoded():
    long = "A Par-Bur " + "and a very long line of diplomacy chatter " * 4 + "end"
    data = mail(long + "\nF Lon-Nth\n", cte="quoted-printable")
    assert b"=\n" in data
    assert text_of(data) == long + "\nF Lon-Nth"
    data = raw("From: a@b.c\nContent-Type: text/plain; charset=utf-8\n"
               "Content-Transfer-Encoding: base64",
               b"QSBQYXItQnVyCkYgTG9uLU\r\n50aArDqcOpIQo=\r\n")
    assert text_of(data) == "A Par-Bur\nF Lon-Nth\n\u00e9\u00e9!"


@pytest.mark.parametrize("ctype, body, expected", [
    # no charset declared: UTF-8 if it is UTF-8, else windows-1252
    ("text/plain", "Mün-Ber \u2013 ok".encode("utf-8"), "Mün-Ber \u2013 ok"),
    ("text/plain", "Mün-Ber \u2013 ok".encode("cp1252"), "Mün-Ber \u2013 ok"),
    # us-ascii declared (a common lie) counts as undeclared
    ("text/plain; charset=us-ascii", "Mün-Ber".encode("utf-8"), "Mün-Ber"),
    ("text/plain; charset=us-ascii", "Mün-Ber".encode("latin-1"), "Mün-Ber"),
    # iso-8859-1 is read as windows-1252 (smart quotes), and as latin-1 where that fails
    ("text/plain; charset=iso-8859-1", b"\x93A Par-Bur\x94", "\u201cA Par-Bur\u201d"),
    ("text/plain; charset=iso-8859-1", b"A Par-Bur \x81\xe9", "A Par-Bur \u00e9"),  # no C1
    # an unknown or unusable charset label: guessed from the bytes
    ("text/plain; charset=x-unknown", "Mün-Ber".encode("utf-8"), "Mün-Ber"),
    ("text/plain; charset=unicode-escape", b"A Par-Bur \\u0041", "A Par-Bur \\u0041"),
    ("text/plain; charset=\"utf-8\x01\"", "Mün-Ber".encode("utf-8"), "Mün-Ber"),
    # mostly UTF-8 with a stray byte: UTF-8 with a replacement character
    ("text/plain; charset=utf-8", "Mün-Ber ".encode() + b"\xff Kiel", "Mün-Ber \ufffd Kiel"),
    ("text/plain", "Mün-Ber, Dän-Kie ".encode("utf-8") + b"\xe9", "Mün-Ber, Dän-Kie \ufffd"),
    # declared UTF-8 but really latin-1
    ("text/plain; charset=utf-8", "Mün-Ber".encode("latin-1"), "Mün-Ber"),
    # gb2312 read as gb18030
    ("text/plain; charset=gb2312", "命令 A Par-Bur".encode("gb18030"), "命令 A Par-Bur"),
])
def test_charset_fallbacks(ctype, body, expected):
    assert text_of(raw(f"From: a@b.c\nContent-Type: {ctype}", body)) == expected


def test_line_endings_bom_and_invisible_characters():
    body = "\ufeffA Par\u00a0-\u00a0Bur\r\nF Lon\u200b-Nth\rA Mun-\u2060Ruh\u2028F Kie\u202f-Den\n"
    data = raw("From: a@b.c\nContent-Type: text/plain; charset=utf-8", body.encode("utf-8"))
    assert text_of(data) == "A Par - Bur\nF Lon-Nth\nA Mun-Ruh\nF Kie -Den"
    # a UTF-8 BOM in a body declared as something else still means UTF-8
    data = raw("From: a@b.c\nContent-Type: text/plain; charset=iso-8859-1",
               b"\xef\xbb\xbf" + "Mün-Ber".encode("utf-8"))
    assert text_of(data) == "Mün-Ber"


def test_format_flowed():
    body = ("A Par-Bur, and then the longest sentence anyone ever wrote in a mail to \r\n"
            "the judge\r\n"
            " From Kiel: F Kie-Den\r\n"
            "F Lon-N \r\nth\r\n"
            "> quoted and \r\n> flowed\r\n"
            "-- \r\n"
            "Player\r\n")
    flowed = raw("From: a@b.c\nContent-Type: text/plain; charset=utf-8; format=flowed",
                 body.encode())
    assert text_of(flowed) == ("A Par-Bur, and then the longest sentence anyone ever wrote in a "
                               "mail to the judge\nFrom Kiel: F Kie-Den\nF Lon-N th")
    delsp = raw("From: a@b.c\nContent-Type: text/plain; charset=utf-8; format=flowed; delsp=yes",
                b"F Lon-N \r\nth\r\nA Par-Bur \r\n")
    assert text_of(delsp) == "F Lon-Nth\nA Par-Bur"
    fixed = raw("From: a@b.c\nContent-Type: text/plain; charset=utf-8", b"F Lon-N \r\nth\r\n")
    assert text_of(fixed) == "F Lon-N\nth"


# --- HTML ----------------------------------------------------------------------------------------

HTML = """\
<html><head><meta charset="utf-8"><title>A Ven-Tyr</title>
<style>p { color: red; }</style></head>
<body><div dir="ltr"><div>A Par&nbsp;-&gt; Bur<br>F Lon&#8211;Nth</div>
<div><br></div>
<div><div><div>A   Mun
  -  Ruh</div></div></div>
<p>Caf&eacute; &amp; co &lt;3</p>
<ul><li>F Kie-Den</li><li><b>A</b> <i>Ber</i>-Pru</li></ul>
<table><tr><td>F Edi</td><td>-</td><td>Nwg</td></tr><tr><td>F Bre</td><td>H</td></tr></table>
<pre>F  Tri  H
  A Vie-Gal</pre>
<script>document.write("A Rom-Ven")</script>
</div>
<div class="gmail_quote"><div dir="ltr" class="gmail_attr">On Mon, 4 Mar 2024 at 10:00, Judge
&lt;<a href="mailto:judge@gm.example">judge@gm.example</a>&gt; wrote:<br></div>
<blockquote class="gmail_quote" style="margin:0 0 0 .8ex">
<div>Orders received:</div><div>A Ven-Tyr</div>
<blockquote>nested: F Nap-Ion</blockquote><div>A Rom-Apu</div></blockquote></div>
</body></html>
"""
HTML_TEXT = ("A Par -> Bur\nF Lon\u2013Nth\n\nA Mun - Ruh\nCafé & co <3\nF Kie-Den\nA Ber-Pru\n"
             "F Edi - Nwg\nF Bre H\nF  Tri  H\n  A Vie-Gal")


def test_html_only():
    assert text_of(mail(HTML, subtype="html")) == HTML_TEXT
    for cte in ("quoted-printable", "base64"):
        assert text_of(mail(HTML, subtype="html", cte=cte)) == HTML_TEXT


def test_html_charset_from_meta_and_outlook_reply():
    markup = ('<html><head>'
              '<meta http-equiv="Content-Type" content="text/html; charset=windows-1252">'
              '</head><body><p class=MsoNormal>A Mün-Ber \u201cnow\u201d<o:p></o:p></p>'
              '<p class=MsoNormal><o:p>&nbsp;</o:p></p><p class=MsoNormal>F Kie-Den</p>'
              '<div id="divRplyFwdMsg"><hr><b>From:</b> Judge &lt;judge@gm.example&gt;<br>'
              '<b>Sent:</b> Monday, March 4, 2024 10:00 AM<br><b>To:</b> Player<br>'
              '<b>Subject:</b> Spring 1901</div><div>A Ven-Tyr</div></body></html>')
    data = raw("From: a@b.c\nContent-Type: text/html", markup.encode("cp1252"))
    assert text_of(data) == "A Mün-Ber \u201cnow\u201d\n\nF Kie-Den"


def test_html_marked_sections_comments_and_stray_brackets():
    markup = ("<p>A Par-Bur<!-- a comment: F Lon-Nth --></p><![if !supportLists]><p>F Bre-Mao</p>"
              "<![endif]><p>F Lon &lt;-&gt; Nth, a < b <3 <<x>> </ p></p><p>A Mun-Ruh<!-- unclosed")
    assert text_of(mail(markup, subtype="html")) == (
        "A Par-Bur\nF Bre-Mao\nF Lon <-> Nth, a < b <3 <> </ p>\nA Mun-Ruh")


def test_html_inline_images_are_not_text():
    image = "data:image/png;base64," + "iVBORw0KGgo" * 100_000
    markup = f'<p>A Par-Bur</p><p><img src="{image}" alt="map"></p><p>F Lon-Nth</p>'
    assert text_of(mail(markup, subtype="html", cte="base64")) == "A Par-Bur\nF Lon-Nth"


def test_html_that_html_parser_gives_up_on(monkeypatch):
    def give_up(self, data):
        raise AssertionError("unknown status keyword")
    monkeypatch.setattr(message._HTMLText, "feed", give_up)
    markup = ("<html><head><style>p {}</style></head><body><p>A Par-Bur</p><script>A Rom-Ven"
              "</script><div>F Lon&amp;Nth<br/>F Bre-Mao</div><blockquote>A Ven-Tyr</blockquote>")
    # cruder: blockquotes are not recognised
    assert text_of(mail(markup, subtype="html")) == "A Par-Bur\nF Lon&Nth\nF Bre-Mao\nA Ven-Tyr"


# --- multipart -----------------------------------------------------------------------------------

def alternative(plain: str, markup: str, html_first: bool = False) -> bytes:
    msg = MIMEMultipart("alternative")
    parts = [MIMEText(plain, "plain", "utf-8"), MIMEText(markup, "html", "utf-8")]
    for part in reversed(parts) if html_first else parts:
        msg.attach(part)
    msg["From"], msg["To"], msg["Subject"] = "a@b.c", JUDGE, "orders"
    return msg.as_bytes()


def test_multipart_alternative_prefers_plain():
    assert text_of(alternative("A Par-Bur\n", "<b>F Lon-Nth</b>")) == "A Par-Bur"
    assert text_of(alternative("A Par-Bur\n", "<b>F Lon-Nth</b>", html_first=True)) == "A Par-Bur"


def with_attachments(body: str, subtype: str = "plain") -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = "a@b.c", JUDGE, "orders"
    msg.set_content(body, subtype=subtype)
    msg.add_attachment("A Par-Bur\n", filename="orders.txt")
    msg.add_attachment(b"\x89PNG\r\n\x1a\n\x00\x00", maintype="image", subtype="png",
                       filename="map.png")
    return msg


def test_blank_plain_part_falls_back_to_html():
    assert text_of(alternative(" \n\n", "<p>A Par-Bur</p>")) == "A Par-Bur"
    assert text_of(alternative("> quoted only\n", "<p>A Par-Bur</p>")) == ""


def test_attachments_are_ignored():
    assert text_of(bytes(with_attachments("F Lon-Nth\n"))) == "F Lon-Nth"
    assert text_of(bytes(with_attachments("<p>F Lon-Nth</p>", "html"))) == "F Lon-Nth"
    # Apple Mail attaches files "inline" with a file name: still an attachment
    msg = EmailMessage()
    msg["From"] = "a@b.c"
    msg.set_content("F Lon-Nth\n")
    msg.add_attachment("A Par-Bur\n", filename="orders.txt", disposition="inline")
    assert text_of(bytes(msg)) == "F Lon-Nth"
    # a mail that is nothing but attachments has no text
    msg = EmailMessage()
    msg["From"] = "a@b.c"
    msg.add_attachment("A Par-Bur\n", filename="orders.txt")
    assert text_of(bytes(msg)) == ""


def test_forwarded_message_part_is_ignored():
    inner = EmailMessage()
    inner["From"], inner["Subject"] = "someone@else.org", "their orders"
    inner.set_content("A Par-Bur\n")
    outer = EmailMessage()
    outer["From"] = "a@b.c"
    outer.set_content("F Lon-Nth\n")
    outer.add_attachment(inner)  # message/rfc822
    assert b"message/rfc822" in bytes(outer)
    assert text_of(bytes(outer)) == "F Lon-Nth"
    # a forward with no text of the sender's own
    only = MIMEMultipart("mixed")
    only["From"] = "a@b.c"
    only.attach(MIMEMessage(inner))
    assert text_of(only.as_bytes()) == ""


def test_related_html_with_inline_image():
    msg = EmailMessage()
    msg["From"] = "a@b.c"
    msg.set_content("A Par-Bur\n")
    msg.add_alternative("<p>A Par-Bur</p><p><img src='cid:map'></p>", subtype="html")
    msg.get_payload()[1].add_related(b"\x89PNG", maintype="image", subtype="png", cid="<map>")
    assert text_of(bytes(msg)) == "A Par-Bur"
    msg = EmailMessage()
    msg["From"] = "a@b.c"
    msg.set_content("<p>F Lon-Nth</p><p><img src='cid:map'></p>", subtype="html")
    msg.add_related(b"\x89PNG", maintype="image", subtype="png", cid="<map>")
    assert text_of(bytes(msg)) == "F Lon-Nth"


# --- what the sender wrote -----------------------------------------------------------------------

@pytest.mark.parametrize("body, expected", [
    # '>' quoting, inline replies between quotes kept
    ("A Par-Bur\n\n> Your orders:\n>   F Lon-Nth\n  > > A Ven-Tyr\n", "A Par-Bur"),
    ("> Orders for Spring 1901?\nA Par-Bur\n> And England?\n\nF Lon-Nth\n>\n",
     "A Par-Bur\n\nF Lon-Nth"),
    # Gmail, wrapped over two lines
    ("A Par-Bur\n\nOn Mon, 4 Mar 2024 at 10:00, The Judge of gm <judge@gm.example>\nwrote:\n\n"
     "> Orders received\n", "A Par-Bur"),
    # Gmail, one line
    ("A Par-Bur\n\nOn Mon, 4 Mar 2024 at 10:00, Judge <judge@gm.example> wrote:\n> x\n",
     "A Par-Bur"),
    # Apple Mail
    ("A Par-Bur\n\nSent from my iPhone\n\n> On 4 Mar 2024, at 10:00, Judge <judge@gm.example> "
     "wrote:\n> \n> x\n", "A Par-Bur"),
    ("A Par-Bur\n\nOn 4 Mar 2024, at 10:00, Judge <judge@gm.example> wrote:\n\n> x\n",
     "A Par-Bur"),
    # Thunderbird
    ("A Par-Bur\n\nOn 04/03/2024 10:00, Judge wrote:\n> x\n", "A Par-Bur"),
    # wrapped over three lines
    ("A Par-Bur\nOn Monday, March 4, 2024 at 10:00:00 AM Central European Standard\n"
     "Time, The Judge of gm <judge@gm.example>\nwrote:\n> x\n", "A Par-Bur"),
    # German, French, Dutch, Spanish
    ("A Par-Bur\n\nAm Mo., 4. März 2024 um 10:00 Uhr schrieb Judge <judge@gm.example>:\n> x\n",
     "A Par-Bur"),
    ("A Par-Bur\n\nAm 04.03.24 um 10:00 schrieb Judge:\n> x\n", "A Par-Bur"),
    ("A Par-Bur\n\nJudge <judge@gm.example> schrieb am Mo., 4. März 2024, 10:00:\n> x\n",
     "A Par-Bur"),
    ("A Par-Bur\n\nLe lun. 4 mars 2024 à 10:00, Judge <judge@gm.example> a écrit :\n> x\n",
     "A Par-Bur"),
    ("A Par-Bur\n\nOp ma 4 mrt 2024 om 10:00 schreef Judge <judge@gm.example>:\n> x\n",
     "A Par-Bur"),
    ("A Par-Bur\n\nEl lun, 4 mar 2024 a las 10:00, Judge (<judge@gm.example>) escribió:\n> x\n",
     "A Par-Bur"),
    ("A Par-Bur\n\nIl giorno lun 4 mar 2024 alle ore 10:00 Judge <judge@gm.example>\n"
     "ha scritto:\n> x\n", "A Par-Bur"),
    ("A Par-Bur\n\nAm Mo., 4. März 2024 um 10:00 Uhr schrieb The Judge of gm <\n"
     "judge@gm.example>:\n> x\n", "A Par-Bur"),
    # Outlook
    ("A Par-Bur\n\n-----Original Message-----\nFrom: Judge\nSent: Monday\n\nA Ven-Tyr\n",
     "A Par-Bur"),
    ("A Par-Bur\n-----Ursprüngliche Nachricht-----\nA Ven-Tyr\n", "A Par-Bur"),
    ("A Par-Bur\n\n________________________________\nFrom: Judge <judge@gm.example>\n"
     "Sent: Monday, March 4, 2024 10:00 AM\nTo: Player One\nSubject: Spring 1901\n\nA Ven-Tyr\n",
     "A Par-Bur"),
    ("A Par-Bur\n\nVon: Judge <judge@gm.example>\nGesendet: Montag, 4. März 2024 10:00\n"
     "An: Player\nBetreff: Frühjahr 1901\n\nA Ven-Tyr\n", "A Par-Bur"),
    ("A Par-Bur\n\nDe : Judge <judge@gm.example>\nEnvoyé : lundi 4 mars 2024 10:00\n\nA Ven-Tyr\n",
     "A Par-Bur"),
    ("A Par-Bur\nFrom: Judge <judge@gm.example>\nDate: Monday, 4 March 2024 at 10:00\n"
     "To: Player\nSubject: Spring\nA Ven-Tyr\n", "A Par-Bur"),
    # a From: line with no date after it is the sender's own text
    ("From: France\nA Par-Bur\n", "From: France\nA Par-Bur"),
    # forwarded messages
    ("F Lon-Nth\n\n---------- Forwarded message ---------\nFrom: Germany <g@x.de>\n"
     "Date: Mon\n\nA Mun-Bur\n", "F Lon-Nth"),
    ("F Lon-Nth\n-------- Forwarded Message --------\nA Mun-Bur\n", "F Lon-Nth"),
    ("F Lon-Nth\n\nBegin forwarded message:\n\nA Mun-Bur\n", "F Lon-Nth"),
    # a pasted acknowledgement of the judge
    (f"A Par-Bur\n\n{ACK_MARKER}\nGame: test\nOrders received:\nF Lon-Nth\n", "A Par-Bur"),
    (f"A Par-Bur\n   {ACK_MARKER}   \nF Lon-Nth\n", "A Par-Bur"),
    # a quoted acknowledgement with orders written between its lines: only the quote goes
    (f"> {ACK_MARKER}\n> Orders received:\nA Par-Bur\n> F Lon-Nth\nF Lon-Yor\n",
     "A Par-Bur\nF Lon-Yor"),
    # signatures
    ("A Par-Bur\nF Lon-Nth\n-- \nPlayer One\nA Ven-Tyr\n", "A Par-Bur\nF Lon-Nth"),
    ("A Par-Bur\n--\nPlayer One\n", "A Par-Bur"),
    ("A Par-Bur\nF Lon--Nth\n--- \nF Bre-Mao\n", "A Par-Bur\nF Lon--Nth\n---\nF Bre-Mao"),
    # mobile footers
    ("A Par-Bur\n\nSent from my iPhone\n", "A Par-Bur"),
    ("A Par-Bur\nVon meinem iPhone gesendet\nF Lon-Nth\nGet Outlook for Android\n",
     "A Par-Bur\nF Lon-Nth"),
    # blank lines: runs made one, none at either end
    ("\n\n  \nA Par-Bur  \n\n\n\nF Lon-Nth\n\n\n", "A Par-Bur\n\nF Lon-Nth"),
    # a line that only looks like the start of an attribution is kept
    ("On second thoughts:\nA Par-Bur\n", "On second thoughts:\nA Par-Bur"),
])
def test_text_kept(body, expected):
    assert text_of(mail(body)) == expected
    assert command_lines(body) == [line.strip() for line in expected.split("\n") if line.strip()]


def test_command_lines():
    text = "  A Par-Bur  \n\n\tF Lon-Nth\n \n"
    assert command_lines(text) == ["A Par-Bur", "F Lon-Nth"]
    assert command_lines("") == []
    assert command_lines("A Par-Bur\r\nF Lon-Nth\r\n> x\r\n-- \r\nsig") == [
        "A Par-Bur", "F Lon-Nth"]
    assert command_lines(None) == ["None"]  # type: ignore[arg-type]  # never raises


def test_command_lines_of_a_read_text_is_just_its_lines():
    for data in corpus():
        text = read_message(data).text
        assert command_lines(text) == [line.strip() for line in text.split("\n") if line.strip()]


def test_html_reply_quotes_dropped_like_text_quotes():
    markup = ("<div>A Par-Bur</div><div class='moz-cite-prefix'>On 04/03/2024 10:00, Judge wrote:"
              "<br></div><blockquote type='cite'><div>Orders received</div>"
              "<div>-- <br>sig</div></blockquote><div>F Lon-Nth</div>")
    assert text_of(mail(markup, subtype="html")) == "A Par-Bur\nF Lon-Nth"


# --- replies from real mail programs -------------------------------------------------------------

# The mail replied to, as a mail program copies it below an attribution without '>' marks: the
# player's own orders of last turn (no acknowledgement marker to stop at).
OLD = "SIGNON France g1 pw-France\nA Par-Bur\nF Bre-Mao\n"


@pytest.mark.parametrize("attribution", [
    "On Mon, 4 Mar 2024 at 10:00, Player One <player.one@example.com> wrote:",
    "On Monday, March 4, 2024, 10:00:00 AM GMT+1, Player One <player.one@example.com> wrote:",
    "On 04/03/2024 10:00, Player One wrote:",
    "On Mon, 4 Mar 2024, Player One wrote:",  # Alpine: a date, no time
    "At 10:00 04.03.2024, you wrote:",  # Eudora
    "Am 04.03.24 um 10:00 schrieb Player One:",
    "Am Montag, 4. März 2024, 10:00:00 MEZ hat Player One <p1@example.com> Folgendes geschrieben:",
    "Le lun. 4 mars 2024 à 10:00, Player One <p1@example.com> a écrit :",
    "Op 4 mrt 2024 om 10:00 heeft Player One <p1@example.com> het volgende geschreven:",
    "Op ma 4 mrt 2024 om 10:00 schreef Player One <p1@example.com>:",
    "El lun, 4 mar 2024 a las 10:00, Player One (<p1@example.com>) escribió:",
    "Il giorno lun 4 mar 2024 alle ore 10:00 Player One <p1@example.com> ha scritto:",
    "In data 4 marzo 2024 10:00:00, Player One <p1@example.com> ha scritto:",
    "Em seg., 4 de mar. de 2024 às 10:00, Player One <p1@example.com> escreveu:",
    "ma 4. maalisk. 2024 klo 10.00 Player One <p1@example.com> kirjoitti:",
    "4.3.2024 klo 10.00 Player One kirjoitti:",
    "Den man. 4. mar. 2024 kl. 10.00 skrev Player One <p1@example.com>:",
    "man. 4. mar. 2024 kl. 10:00 skrev Player One <p1@example.com>:",
    "Den mån 4 mars 2024 kl 10:00 skrev Player One <p1@example.com>:",
    "pon., 4 mar 2024 o 10:00 Player One <p1@example.com> napisał(a):",
    "W dniu 4.03.2024 o 10:00, Player One pisze:",
    "Wiadomość napisana przez Player One <p1@example.com> w dniu 4 mar 2024, o godz. 10:00:",
    "Dne 04. 03. 24 v 10:00 Player One napsal(a):",
    "po 4. 3. 2024 v 10:00 odesílatel Player One <p1@example.com> napsal:",
    '25.11.2026, 10:00, "Player One" <p1@example.com>:',
    "Пн, 25 нояб. 2026 г. в 10:00, Player One <p1@example.com>:",
    "25.11.2026 10:00, Player One пишет:",
    "4 марта 2024 г., в 10:00, Player One <p1@example.com> написал(а):",
    "Понедельник, 4 марта 2024, 10:00 +03:00 от Player One <p1@example.com>:",
    "Player One <p1@example.com> ezt írta (időpont: 2024. márc. 4., H, 10:00):",
    "Player One <p1@example.com>, 4 Mar 2024 Pzt, 10:00 tarihinde şunu yazdı:",
    "Δευ 4 Μαρ 2024 στις 10:00, ο/η Player One <p1@example.com> έγραψε:",
    "2024年3月4日(月) 10:00 Player One <p1@example.com>:",
    "2024/03/04 10:00、Player One <p1@example.com>のメール：",
    "Player One <p1@example.com> 于2024年3月4日周一 10:00写道：",
    "在 2024年3月4日，10:00，Player One <p1@example.com> 写道：",
    "在 2013年7月20日，Player One 写道：",
    "2024년 3월 4일 (월) 오전 10:00, Player One <p1@example.com>님이 작성:",
    "2013/7/20 Player One <p1@example.com>",  # old Gmail, Chinese: neither verb nor colon
    "---- On Mon, 04 Mar 2024 10:00:00 +0100 Player One <p1@example.com> wrote ----",  # Zoho
    # wrapped: after the date, inside the address, before the verb
    "On Mon, 4 Mar 2024 10:00:00 +0100\nPlayer One <p1@example.com> wrote:",
    "Am Mo., 4. März 2024 um 10:00 Uhr schrieb Player One of France <\np1@example.com>:",
    "On Mon, 4 Mar 2024 at 10:00, The Player who plays France <p1@example.com>\nwrote:",
    "Пн, 25 нояб. 2026 г. в 10:00, Player One who plays France <\np1@example.com>:",
])
def test_an_attribution_above_unquoted_text_ends_the_text(attribution):
    for body in (f"A Par-Pic\nF Bre-Eng\n\n{attribution}\n\n{OLD}",
                 f"A Par-Pic\nF Bre-Eng\n{attribution}\n{OLD}",
                 f"A Par-Pic\nF Bre-Eng\n\n    {attribution}\n    {OLD}"):  # Yahoo: indented
        assert text_of(mail(body)).split("\n") == ["A Par-Pic", "F Bre-Eng"], body
        assert command_lines(body) == ["A Par-Pic", "F Bre-Eng"], body


@pytest.mark.parametrize("attribution", [
    "On Mon, 4 Mar 2024 at 10:00, Player One <player.one@example.com> wrote:",
    "Am 04.03.24 um 10:00 schrieb Player One:",
    "Пн, 25 нояб. 2026 г. в 10:00, Player One <p1@example.com>:",
    "Player One <p1@example.com> 于2024年3月4日周一 10:00写道：",
    "On Mon, 4 Mar 2024 at 10:00, The Player who plays France <p1@example.com>\nwrote:",
    "England wrote:",  # not for certain an attribution, but above a quote
])
def test_an_attribution_above_quoted_text_keeps_what_is_written_between_and_below(attribution):
    quote = "".join(f"> {line}\n" for line in OLD.splitlines())
    bars = "".join(f"| {line}\n" for line in OLD.splitlines())
    for body, expected in [
        (f"A Par-Pic\n\n{attribution}\n{quote}", ["A Par-Pic"]),  # top post
        (f"{attribution}\n{quote}\nA Par-Pic\nF Bre-Eng\n", ["A Par-Pic", "F Bre-Eng"]),  # bottom
        (f"{attribution}\n\n> A Par-Bur\nA Par-Pic\n> F Bre-Mao\n\nF Bre-Eng\n> A Mar H\n",
         ["A Par-Pic", "F Bre-Eng"]),  # inline
        (f"{attribution}\n{bars}A Par-Pic\n", ["A Par-Pic"]),
    ]:
        assert command_lines(body) == expected, body
        assert command_lines(text_of(mail(body))) == expected, body


@pytest.mark.parametrize("body", [
    "Note: I wrote to France:\nA Par-Pic\n",
    "England wrote:\nA Par-Pic\n",
    "On second thoughts, Germany wrote:\nA Par-Pic\n",
    "Russia wrote to me at 10:00:\nA Par-Pic\n",
    "In Spring 1901 Austria wrote:\nA Par-Pic\n",
    "Orders for 4.3:\nA Par-Pic\n",
    "From: France\nTo: the judge\nA Par-Pic\n",
    "Sent: too late, sorry\nA Par-Pic\n",
    "----- Spring 1901 -----\nA Par-Pic\n",
    "Den 4. ska Tyskland:\nA Par-Pic\n",
])
def test_what_only_looks_like_an_attribution_or_a_header_does_not_cut(body):
    assert command_lines(body) == [line.strip() for line in body.splitlines()]
    assert text_of(mail(body)) == body.rstrip("\n")


@pytest.mark.parametrize("block", [
    "Fra: Judge <judge@gm.example>\nSendt: 4. marts 2024 10:00\nTil: Player One\nEmne: orders",
    "Fra: Judge <judge@gm.example>\nDato: mandag 4. mars 2024 10:00\nTil: Player One\nEmne: orders",
    "Från: Judge <judge@gm.example>\nSkickat: den 4 mars 2024 10:00\nTill: Player One\n"
    "Ämne: orders",
    "От: Judge <judge@gm.example>\nОтправлено: 4 марта 2024 г. 10:00\nКому: Player One\n"
    "Тема: orders",
    "Od: Judge <judge@gm.example>\nWysłano: 4 marca 2024 10:00\nDo: Player One\nTemat: orders",
    "Od: Judge <judge@gm.example>\nOdesláno: 4. března 2024 10:00\nKomu: Player One\n"
    "Předmět: orders",
    "Lähettäjä: Judge <judge@gm.example>\nLähetetty: maanantai 4. maaliskuuta 2024 10.00\n"
    "Vastaanottaja: Player One\nAihe: orders",
    "De: Judge <judge@gm.example>\nEnviada em: segunda-feira, 4 de março de 2024 10:00\n"
    "Para: Player One\nAssunto: orders",
    "Da: Judge <judge@gm.example>\nInviato: lunedì 4 marzo 2024 10:00\nA: Player One\n"
    "Oggetto: orders",
    "De: Judge <judge@gm.example>\nEnviado el: lunes, 4 de marzo de 2024 10:00\nPara: Player\n"
    "Asunto: orders",
    "Van: Judge <judge@gm.example>\nVerzonden: maandag 4 maart 2024 10:00\nAan: Player One\n"
    "Onderwerp: orders",
    "Feladó: Judge <judge@gm.example>\nElküldve: 2024. március 4. 10:00\nCímzett: Player One\n"
    "Tárgy: orders",
    "Kimden: Judge <judge@gm.example>\nGönderildi: 4 Mart 2024 Pazartesi 10:00\nKime: Player\n"
    "Konu: orders",
    "Από: Judge <judge@gm.example>\nΣτάλθηκε: Δευτέρα, 4 Μαρτίου 2024 10:00 πμ\nΠρος: Player\n"
    "Θέμα: orders",
    "差出人: Judge <judge@gm.example>\n送信日時: 2024年3月4日 10:00\n宛先: Player One\n件名: orders",
    "发件人: Judge <judge@gm.example>\n发送时间: 2024年3月4日 10:00\n收件人: Player One\n主题: orders",
    "发件人： \"Judge\"<judge@gm.example>;\n发送时间： 2024年3月4日(星期一) 上午10:00\n"
    "收件人： \"Player\"<p1@example.com>;\n主题： orders",
    "寄件者: Judge <judge@gm.example>\n寄件日期: 2024年3月4日 上午 10:00\n收件者: Player One\n"
    "主旨: orders",
    "보낸 사람: Judge <judge@gm.example>\n보낸 날짜: 2024년 3월 4일 월요일 오전 10:00\n"
    "받는 사람: Player One\n제목: orders",
    # more fields, in another order, bold, wrapped
    "From: Judge <judge@gm.example>\nReply-To: Judge <judge@gm.example>\nDate: Monday, "
    "4 March 2024 at 10:00\nTo: Player One <p1@example.com>, Player Two\n <p2@example.com>\n"
    "Cc: gm@gm.example\nSubject: orders\nImportance: High",
    "To: Player One\nSubject: orders\nFrom: Judge <judge@gm.example>\nSent: Monday 10:00",
    "*From:* Judge <judge@gm.example>\n*Sent:* Monday, March 4, 2024 10:00 AM\n*To:* Player One\n"
    "*Subject:* orders",
    "Gesendet: Montag, 04. März 2024 um 10:00 Uhr\nVon: \"Judge\" <judge@gm.example>\n"
    "An: p1@example.com\nBetreff: orders",  # GMX, Web.de
])
def test_outlook_header_blocks_in_other_languages_end_the_text(block):
    for rule in ("", "________________________________\n", "-----Original Message-----\n"):
        body = f"A Par-Pic\n\n{rule}{block}\n\n{OLD}"
        assert command_lines(body) == ["A Par-Pic"], body
        assert text_of(mail(body)) == "A Par-Pic"


@pytest.mark.parametrize("rule", [
    "-----Oprindelig meddelelse-----", "-----Oprindelig besked-----",
    "-----Opprinnelig melding-----", "-----Ursprungligt meddelande-----",
    "-----Alkuperäinen viesti-----", "-----Исходное сообщение-----",
    "-----Wiadomość oryginalna-----", "-----Původní zpráva-----", "-----Mensagem original-----",
    "-----Messaggio originale-----", "-----Mensaje original-----", "-----Message d'origine-----",
    "-----Oorspronkelijk bericht-----", "-----Eredeti üzenet-----", "-----Αρχικό μήνυμα-----",
    "-------- Original message --------", "-------- 원본 메시지 --------",
    "------------------ 原始邮件 ------------------", "------------------ Original ------------------",
    "---------- Původní e-mail ----------", "---- Replied Message ----",
    "---------- Forwarded message ---------", "---------- Weitergeleitete Nachricht ----------",
    "-------- Message transféré --------", "---------- Mensaje reenviado ---------",
    "---------- Mensagem encaminhada ---------", "---------- Videresendt meddelelse ----------",
    "---------- Vidarebefordrat meddelande ---------", "---------- Välitetty viesti ---------",
    "---------- Wiadomość przekazana dalej ---------", "-------- Přeposlaná zpráva --------",
    "-------- Пересылаемое сообщение --------", "---------- 转发的邮件 ---------",
    "============ Forwarded message ============",
    "Begin forwarded message:", "Anfang der weitergeleiteten Nachricht:",
    "Inicio del mensaje reenviado:", "Inizio messaggio inoltrato:",
    "Início da mensagem reencaminhada:", "Begin doorgestuurd bericht:",
    "Start på videresendt besked:", "Vidarebefordrat mejl:", "Välitetty viesti alkaa:",
    "Początek przekazywanej wiadomości:", "Začátek přeposlané zprávy:",
    "Начало переадресованного сообщения:",
])
def test_original_message_and_forwarded_message_rules_end_the_text(rule):
    body = f"A Par-Pic\n\n{rule}\n{OLD}"
    assert command_lines(body) == ["A Par-Pic"]


@pytest.mark.parametrize("footer", [
    "Sent from my iPhone", "Sendt fra min iPad", "Sendt fra min iPhone", "Skickat från min iPhone",
    "Lähetetty iPhonesta", "Отправлено с iPhone", "Wysłane z mojego iPhone", "Wysłane z iPhone'a",
    "Inviato da iPhone", "Enviado do meu iPhone", "Enviado desde mi iPhone", "Envoyé de mon iPhone",
    "Von meinem iPhone gesendet", "Verzonden vanaf mijn iPhone", "Odesláno z iPhonu",
    "iPhone'umdan gönderildi", "Az iPhone-omról küldve", "Στάλθηκε από το iPhone μου",
    "iPhoneから送信", "发自我的iPhone", "從我的 iPhone 傳送", "iPhone에서 보냄",
    "Sent from TypeApp", "Sent from BlueMail", "Sent with ProtonMail",
    "Sent with Proton Mail secure email.", "Get Outlook for Android", "Get Outlook for iOS",
    "Sent from Samsung Mobile", "Sent from my Galaxy", "Sent from Yahoo Mail on Android",
    "Sent from Mail for Windows", "Sent using Zoho Mail", "Gesendet mit der GMX Mail App",
    "Gesendet mit der WEB.DE Mail App", "Outlook für Android herunterladen",
    "Télécharger Outlook pour Android", "Hent Outlook til Android", "Skaffa Outlook för iOS",
    "Отправлено из мобильной Яндекс Почты", "Отправлено из Mail.ru для Android",
    "Inviato da Libero Mail per Android", "发自网易邮箱大师",
])
def test_mobile_footers_in_other_languages_are_dropped(footer):
    body = f"A Par-Pic\n\n{footer}\n"
    assert command_lines(body) == ["A Par-Pic"]
    assert text_of(mail(body)) == "A Par-Pic"


@pytest.mark.parametrize("line", ["| A Par-Bur", "|A Par-Bur", "  | A Par-Bur", "> > | A Par-Bur",
                                  "|| F Bre-Mao", ">|A Par-Bur"])
def test_a_line_that_starts_with_a_quote_mark_is_never_a_command(line):
    assert command_lines(f"A Par-Pic\n{line}\nF Bre-Eng\n") == ["A Par-Pic", "F Bre-Eng"]
    # a '|' elsewhere on a line is the sender's
    assert command_lines("A Par-Pic | F Bre-Eng\n") == ["A Par-Pic | F Bre-Eng"]


@pytest.mark.parametrize("markup", [
    # Gmail and Thunderbird, with the attribution in a language not known here
    "<div dir='ltr'>A Par-Pic</div><div class='gmail_quote'><div dir='ltr' class='gmail_attr'>"
    "Ngày 4 thg 3, 2024 lúc 10:00 Player One &lt;p1@example.com&gt; đã viết:<br></div>"
    "<blockquote class='gmail_quote'>SIGNON France g1 pw-France<br>A Par-Bur</blockquote></div>",
    "<div>A Par-Pic</div><div class='moz-cite-prefix'>Dne 4.3.2024 v 10:00 Player One "
    "napsal(a):<br></div><blockquote type='cite'>A Par-Bur</blockquote><div>F Bre-Eng</div>",
    # Outlook on the web: the mail replied to is not in a blockquote
    "<div>A Par-Pic</div><div id='appendonsend'></div><hr><div id='divRplyFwdMsg' dir='ltr'>"
    "<b>Feladó:</b> Player One<br><b>Elküldve:</b> 2024. március 4. 10:00</div>"
    "<div>SIGNON France g1 pw-France<br>A Par-Bur</div>",
    "<div>A Par-Pic</div><div id='divRplyFwdMsg'><b>Od:</b> Player One</div><div>A Par-Bur</div>",
    # Yahoo: nor here
    "<div class='ydp1'>A Par-Pic</div><div id='yahoo_quoted_123' class='yahoo_quoted'>"
    "<div>Ngày 4 thg 3, 2024, Player One đã viết:</div><div>A Par-Bur</div></div>",
    # Thunderbird's forward
    "<p>A Par-Pic</p><div class='moz-forward-container'>A Par-Bur</div>",
])
def test_html_replies_end_at_the_marks_mail_programs_leave(markup):
    assert command_lines(text_of(mail(markup, subtype="html"))) in (
        ["A Par-Pic"], ["A Par-Pic", "F Bre-Eng"])


# --- ids, subjects -------------------------------------------------------------------------------

def test_missing_message_id_is_generated_stably():
    data = mail(Message_ID=None)
    first, again = read_message(data), read_message(bytes(data))
    assert re.fullmatch(r"<[0-9a-f]{32}@gm\.invalid>", first.message_id)
    assert first.message_id == again.message_id
    assert read_message(mail("F Lon-Nth\n", Message_ID=None)).message_id != first.message_id
    for empty in ("<>", "", "  < >  "):  # present but empty: generated too
        data = raw(f"From: a@b.c\nMessage-ID: {empty}", b"x")
        assert re.fullmatch(r"<[0-9a-f]{32}@gm\.invalid>", read_message(data).message_id)


@pytest.mark.parametrize("value, expected", [
    ("<m1@example.com>", "<m1@example.com>"),
    ("  <m1@example.com>  (a comment)", "<m1@example.com>"),
    ("m1@example.com", "<m1@example.com>"),
    ("<m1@exa\r\n mple.com>", "<m1@example.com>"),
])
def test_message_id_normalised(value, expected):
    data = raw(f"From: a@b.c\nMessage-ID: {value}\nIn-Reply-To: {value}", b"x")
    msg = read_message(data)
    assert (msg.message_id, msg.in_reply_to) == (expected, expected)


def test_references():
    data = raw("From: a@b.c\nReferences: <a@x> <b@x>\n\t<c@x><a@x>", b"x")
    assert read_message(data).references == ("<a@x>", "<b@x>", "<c@x>")
    assert read_message(raw("From: a@b.c\nReferences: a@x b@x", b"x")).references == (
        "<a@x>", "<b@x>")
    assert read_message(raw("From: a@b.c", b"x")).references == ()
    assert read_message(raw("From: a@b.c", b"x")).in_reply_to is None


@pytest.mark.parametrize("header, expected", [
    ("=?utf-8?q?Fr=C3=BChling_1901?=", "Frühling 1901"),
    ("=?UTF-8?B?0J/RgNC40LrQsNC30Ys=?= A Mos-Sev", "Приказы A Mos-Sev"),
    ("=?iso-8859-1?q?M=FCnchen?= =?iso-8859-1?q?_Berlin?=", "München Berlin"),
    ("Re: =?utf-8?q?caf=C3=A9?=\r\n =?utf-8?q?_au_lait?=  orders", "Re: café au lait orders"),
    ("=?x-unknown?q?caf=C3=A9?=", "café"),  # guessed: the bytes are UTF-8
    ("Frühling 1901", "Frühling 1901"),  # raw UTF-8 in the header
    ("plain\r\n  folded   subject", "plain folded subject"),
])
def test_rfc2047_subjects(header, expected):
    assert read_message(raw(f"From: a@b.c\nSubject: {header}", b"x")).subject == expected


def test_raw_latin1_subject():
    data = b"From: a@b.c\r\nSubject: M\xfcnchen\r\n\r\nx"
    assert read_message(data).subject == "München"


# --- automatic mail ------------------------------------------------------------------------------

@pytest.mark.parametrize("headers, reason", [
    ({"Auto_Submitted": "auto-replied"}, "Auto-Submitted: auto-replied"),
    ({"Auto_Submitted": "auto-generated; owner-email=x@y"}, "Auto-Submitted: auto-generated"),
    ({"Auto_Submitted": "no"}, None),
    ({"Auto_Submitted": "No (a person wrote this)"}, None),
    ({"Precedence": "bulk"}, "Precedence: bulk"),
    ({"Precedence": "junk"}, "Precedence: junk"),
    ({"Precedence": "list"}, "Precedence: list"),
    ({"Precedence": "auto_reply"}, "Precedence: auto_reply"),
    ({"Precedence": "first-class"}, None),
    ({"X_Autoreply": "yes"}, "X-Autoreply: yes"),
    ({"X_Autorespond": "Out of office"}, "X-Autorespond: Out of office"),
    ({"X_Auto_Response_Suppress": "All"}, "X-Auto-Response-Suppress: All"),
    ({"X_Auto_Response_Suppress": "DR, RN, NRN, OOF"}, None),
    ({"X_Failed_Recipients": "x@y"}, "X-Failed-Recipients: x@y"),
    ({"List_Id": "Diplomacy players <dip.lists.example.org>"},
     "List-Id: Diplomacy players <dip.lists.example.org>"),
    ({"List_Unsubscribe": "<mailto:leave@lists.example.org>"},
     "List-Unsubscribe: <mailto:leave@lists.example.org>"),
    ({"List_Post": "<mailto:dip@lists.example.org>"}, "List-Post: <mailto:dip@lists.example.org>"),
    ({"Return_Path": "<>"}, "Return-Path: <>"),
    ({"Return_Path": "<player.one@example.com>"}, None),
    ({"From": "MAILER-DAEMON@mx.example.com (Mail Delivery System)"},
     "From: mailer-daemon@mx.example.com"),
    ({"From": "Mail Delivery Subsystem <mailer-daemon@googlemail.com>"},
     "From: mailer-daemon@googlemail.com"),
    ({"From": "MAILER-DAEMON"}, "From: mailer-daemon"),
    ({"From": "postmaster@example.com"}, "From: postmaster@example.com"),
    ({"From": "Example <noreply@example.com>"}, "From: noreply@example.com"),
    ({"From": "no-reply@example.com"}, "From: no-reply@example.com"),
    ({"From": "do-not-reply+news@example.com"}, "From: do-not-reply+news@example.com"),
    ({"From": "norepl@example.com"}, None),
    ({"Reply_To": "noreply@example.com"}, "Reply-To: noreply@example.com"),
    ({"Subject": "Auto: orders"}, "Subject: Auto:"),
    ({"Subject": "Automatic reply: orders"}, "Subject: Automatic reply"),
    ({"Subject": "Out of Office: orders"}, "Subject: Out of Office"),
    ({"Subject": "OUT OF OFFICE"}, "Subject: OUT OF OFFICE"),
    ({"Subject": "Abwesenheitsnotiz: Befehle"}, "Subject: Abwesenheitsnotiz"),
    ({"Subject": "Automatische Antwort: Befehle"}, "Subject: Automatische Antwort"),
    ({"Subject": "Undeliverable: orders"}, "Subject: Undeliverable"),
    ({"Subject": "Undelivered Mail Returned to Sender"},
     "Subject: Undelivered Mail Returned to Sender"),
    ({"Subject": "Delivery Status Notification (Failure)"},
     "Subject: Delivery Status Notification"),
    ({"Subject": "Re: Out of Office next week, NMR me"}, None),
    ({"From": None}, "no From address"),
    ({"From": "undisclosed-recipients:;"}, "no From address"),
])
def test_automatic(headers, reason):
    assert read_message(mail(**headers)).automatic == reason


@pytest.mark.parametrize("headers, reason, soft", [
    # what a list or a relay adds, to a person's mail too: answered if it signs on
    ({"Precedence": "bulk"}, "Precedence: bulk", True),
    ({"Precedence": "list"}, "Precedence: list", True),
    ({"Precedence": "junk"}, "Precedence: junk", True),
    ({"List_Id": "<dip.lists.example.org>"}, "List-Id: <dip.lists.example.org>", True),
    ({"Precedence": "bulk", "List_Unsubscribe": "<mailto:x@y>"}, "Precedence: bulk", True),
    # a machine's mail: never answered, whatever a list adds to it
    ({"Precedence": "auto_reply"}, "Precedence: auto_reply", False),
    ({"Precedence": "bulk", "Auto_Submitted": "auto-replied"}, "Auto-Submitted: auto-replied",
     False),
    ({"List_Id": "<l.example.org>", "X_Autoreply": "yes"}, "X-Autoreply: yes", False),
    ({"Precedence": "bulk", "From": "MAILER-DAEMON@x.example"}, "From: mailer-daemon@x.example",
     False),
    ({"Precedence": "list", "Subject": "Out of Office: orders"}, "Subject: Out of Office", False),
    ({"Precedence": "bulk", "Return_Path": "<>"}, "Return-Path: <>", False),
    ({}, None, False),
])
def test_list_and_bulk_headers_are_told_from_a_machines_mail(headers, reason, soft):
    msg = read_message(mail(**headers))
    assert (msg.automatic, msg.soft_automatic) == (reason, soft)


def test_automatic_bounce_report():
    report = MIMEMultipart("report", report_type="delivery-status")
    report["From"] = "a@b.c"
    report.attach(MIMEText("Your mail could not be delivered.\n"))
    assert read_message(report.as_bytes()).automatic == (
        "Content-Type: multipart/report; report-type=delivery-status")
    data = raw("From: a@b.c\nContent-Type: message/delivery-status", b"Action: failed\r\n")
    assert read_message(data).automatic == "Content-Type: message/delivery-status"


def test_a_persons_mail_is_not_automatic():
    assert read_message(mail()).automatic is None
    assert read_message(alternative("A Par-Bur\n", "<p>A Par-Bur</p>")).automatic is None


# --- never raising -------------------------------------------------------------------------------

NASTY = [
    b"",
    b"\r\n",
    b"\r\n\r\n\r\n",
    b"\x00" * 100,
    bytes(range(256)) * 4,
    b"From:\r\nSubject:\r\nMessage-ID:\r\nReferences:\r\nIn-Reply-To: <\r\n\r\n",
    b"From: <<<@>>>, ,,;; \"\r\nReply-To: =?utf-8?q?\r\n\r\nx",
    b"From: =?utf-8?b?####?= <a@b.c>\r\nSubject: =?utf-8?b?####?= =?bogus?x?y?=\r\n\r\nx",
    b"Content-Type: multipart/mixed\r\n\r\n--x\r\nA Par-Bur",
    b"Content-Type: multipart/mixed; boundary=x\r\n\r\nno boundary anywhere",
    b"Content-Type: multipart/alternative; boundary=\"\"\r\n\r\n--\r\n\r\n--",
    b"Content-Type: text/plain; charset=\r\nContent-Transfer-Encoding: base64\r\n\r\n!!!@@@",
    b"Content-Type: text/plain; charset*=utf-8''%FF%FE\r\n\r\nx",
    b"Content-Type: text/plain; charset=punycode\r\n\r\n\xff\xfe" * 3,
    b"Content-Type: text/plain\r\nContent-Transfer-Encoding: x-uuencode\r\n\r\n"
    b"begin 644 x\r\n!!!\r\n",
    b"Content-Type: text/html\r\n\r\n<![if x]><![foo[<a href='<!--'>&#xFFFFFFFF;&#0;<script>",
    b"Content-Type: text/html\r\n\r\n" + b"<blockquote>" * 5000 + b"A Par-Bur",
    b"Content-Type: message/rfc822\r\n\r\nFrom: x\r\n\r\n",
    b"Content-Disposition: attachment\r\n\r\nA Par-Bur",
    b"From: a@b.c\r\n" + b"X-Long: " + b"a" * 100_000 + b"\r\n\r\n" + b"A Par-Bur\n" * 10_000,
    b"Subject: =?utf-8?q?" + b"=C3" * 1000 + b"?=\r\n\r\n",
    "From: Jörg <jörg@münchen.de>\r\n\r\nA Mün-Ber".encode("utf-8"),
]


def nested_multipart(depth: int) -> bytes:
    parts = [b"From: a@b.c\r\nContent-Type: multipart/mixed; boundary=b0\r\n\r\n"]
    for i in range(1, depth):
        parts.append(b"--b%d\r\nContent-Type: multipart/mixed; boundary=b%d\r\n\r\n" % (i - 1, i))
    parts.append(b"--b%d\r\nContent-Type: text/plain\r\n\r\nA Par-Bur\r\n" % (depth - 1))
    return b"".join(parts)


def check(data: bytes) -> InboundMessage:
    msg = read_message(data)
    assert isinstance(msg, InboundMessage)
    assert msg.size == len(data)
    assert re.fullmatch(r"<[^<>\s]+>", msg.message_id)
    for value in (msg.sender, msg.reply_to, msg.subject, msg.text):
        assert isinstance(value, str) and not re.search("[\ud800-\udfff\x00\r]", value)
    assert msg.automatic is None or isinstance(msg.automatic, str)
    assert msg.in_reply_to is None or re.fullmatch(r"<[^<>\s]+>", msg.in_reply_to)
    assert all(re.fullmatch(r"<[^<>\s]+>", ref) for ref in msg.references)
    assert isinstance(command_lines(msg.text), list)
    return msg


@pytest.mark.parametrize("data", NASTY, ids=range(len(NASTY)))
def test_malformed_input_never_raises(data):
    check(data)


def test_malformed_input_specifics():
    assert check(b"").automatic == "no From address"
    assert check(NASTY[8]).text == ""  # multipart without a boundary: no body found
    assert check(NASTY[18]).text == ""  # the whole mail an attachment
    assert check(NASTY[-1]).sender == "jörg@münchen.de"
    assert check(nested_multipart(10)).text == "A Par-Bur"
    check(nested_multipart(3000))  # beyond what the email package can parse
    assert read_message(bytearray(mail())) == read_message(mail())
    check("From: a@b.c\n\nA Par-Bur")  # type: ignore[arg-type]
    assert read_message(None).size == 0  # type: ignore[arg-type]


def corpus() -> list[bytes]:
    """Every kind of mail above, to mutate."""
    multi = with_attachments("A Par-Bur\n\n> quoted\n-- \nsig\n")
    return [
        mail(), mail("Frühling: A Mün-Ber\n", charset="latin-1", cte="quoted-printable"),
        mail("Приказы: A Mos-Sev\n", charset="koi8-r", cte="base64"),
        mail(HTML, subtype="html"), mail(HTML, subtype="html", cte="base64"),
        alternative("A Par-Bur\n", HTML), bytes(multi),
        raw("From: a@b.c\nContent-Type: text/plain; charset=utf-8; format=flowed; delsp=yes",
            b"F Lon-N \r\nth\r\n> q \r\n> r\r\n"),
        mail(f"A Par-Bur\nOn Mon, 4 Mar 2024 at 10:00, Judge <j@x>\nwrote:\n> x\n{ACK_MARKER}\n",
             Auto_Submitted="auto-replied", References="<a@x> <b@x>", In_Reply_To="<b@x>"),
        MIMEMultipart("report", report_type="delivery-status").as_bytes(),
    ]


TOKENS = [b"\r\n", b"\n", b"\r\n\r\n", b"=?", b"?=", b"=?utf-8?b?", b"=?utf-8?q?", b"--", b"-- \n",
          b"<", b">", b"\"", b";", b"=", b"=\r\n", b"=FF", b"\xff", b"\xc3", b"\x00", b"\t", b" ",
          b"boundary=", b"charset=", b"Content-Type: multipart/mixed; boundary=\"x\"\r\n",
          b"Content-Type: text/html\r\n", b"Content-Transfer-Encoding: base64\r\n",
          b"Content-Disposition: attachment\r\n", b"message/rfc822", b"<blockquote>", b"<![",
          b"<!--", b"&#", b"&#x", b"<pre>", b"<script>", b"format=flowed", b"> ",
          ACK_MARKER.encode()]


def mutate(rng: random.Random, data: bytes) -> bytes:
    data = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        where = rng.randint(0, len(data))
        action = rng.randrange(6)
        if action == 0 and data:
            data[min(where, len(data) - 1)] = rng.randrange(256)
        elif action == 1:
            del data[where:where + rng.randint(1, 64)]
        elif action == 2:
            data[where:where] = rng.choice(TOKENS)
        elif action == 3:
            start = rng.randint(0, len(data))
            data[where:where] = data[start:start + rng.randint(1, 200)]
        elif action == 4:
            del data[where:]
        else:
            data[where:where] = rng.randbytes(rng.randint(1, 32))
    return bytes(data)


def test_fuzz_random_bytes():
    rng = random.Random(1901)
    for _ in range(400):
        check(rng.randbytes(rng.choice([0, 1, 2, 7, 64, 500, 4000])))
    for _ in range(200):  # random text that looks a little like mail
        check(b"".join(rng.choice(TOKENS + [b"From: ", b"Subject: ", b"A Par-Bur", b"x"])
                       for _ in range(rng.randint(0, 80))))


def test_fuzz_mutated_real_messages():
    rng = random.Random(1914)
    messages = corpus()
    for _ in range(1500):
        check(mutate(rng, rng.choice(messages)))
