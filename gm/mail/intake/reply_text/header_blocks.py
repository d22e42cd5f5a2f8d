"""Outlook-style header blocks: the fields of the mail replied to or forwarded, which mail
programs write above a copy of it ("From: ... Sent: ... To: ... Subject: ..."), in every language
Outlook and the webmails ship, with or without a rule above, bold ('*From:*') when HTML was made
plain text, a field's value wrapped onto the next line ('From: A Long Display Name' /
'<name@example.org>'), and Lotus Notes' layout ('Jane Roe/Sales/Acme@ACME' or 'From: Jane
Roe/Sales/Acme@ACME', the date on a line of its own, 'To:', 'cc:', 'Subject:').

A block is a run of consecutive `Name: value` lines (a value may wrap onto a line or two), its
fields in any order, with names known here or not ('Kategorien:', 'Priorité :', any script), that
shows one of:
  - a From field and a date field, or a From field and two of To, Cc, Subject;
  - a date field and two of To, Cc, Subject, with a date or a time in a value;
  - four fields or more, a From or a date field and another known one among them, with an
    address or a date in a value;
  - four fields or more, whatever their names, with an address and a date in their values.
A line such as "To: England" or "Subject to ..." in the new text alone is no block, nor are a
player's "Name: value" lines without an address or a date, nor any line shaped like an order or a
command ("Germany: A Ber - Kie", "PRESS TO France:"), which is never taken for an unknown field.
"""
from __future__ import annotations

import re
from functools import lru_cache

from gm.mail.intake.reply_text.common import order_shaped, words

_FROM = words(
    "from", "von", "de", "de la", "van", "da", "från", "fra", "od", "от", "від", "lähettäjä",
    "feladó", "kimden", "από", "差出人", "送信者", "发件人", "發件人", "寄件者", "寄件人",
    "보낸 사람", "보낸사람", "expéditeur", "remitente", "mittente", "afzender", "avsändare",
    "avsender", "afsender", "nadawca", "odesílatel", "odosielateľ", "отправитель", "šalje",
    "pošiljatelj", "pošiljatelj", "nuo", "no", "saatja", "frá", "từ", "dari", "daripada",
    "จาก", "מאת", "من", "प्रेषक", "tc", "remetente", "mittente", "absender")
_DATE = words(
    "sent", "date", "gesendet", "datum", "envoyé", "envoyé le", "verzonden", "verstuurd",
    "enviado", "enviado el", "enviado em", "enviada em", "fecha", "inviato", "data", "skickat",
    "sendt", "dato", "lähetetty", "päivämäärä", "päiväys", "wysłano", "wysłane", "wysłana",
    "odesláno", "odoslané", "отправлено", "дата", "надіслано", "изпратено", "elküldve",
    "dátum", "gönderildi", "gönderilme tarihi", "tarih", "στάλθηκε", "ημερομηνία", "trimis",
    "poslano", "poslato", "išsiųsta", "nosūtīts", "saadetud", "sent:", "sendur", "đã gửi",
    "ngày", "dikirim", "tanggal", "dihantar", "tarikh", "ส่ง", "วันที่", "נשלח", "תאריך",
    "تم الإرسال", "التاريخ", "भेजा गया", "enviat el", "enviat", "送信日時", "日付", "发送时间",
    "發送時間", "日期", "时间", "時間", "寄件日期", "보낸 날짜", "보낸날짜", "날짜")
_TO = words(
    "to", "an", "à", "a", "aan", "para", "til", "till", "vastaanottaja", "do", "komu", "кому",
    "címzett", "kime", "προς", "宛先", "收件人", "收件者", "받는 사람", "받는사람", "către",
    "prima", "za", "до", "kam", "adressaat", "viðtakandi", "đến", "kepada", "ถึง", "אל",
    "إلى", "प्राप्तकर्ता", "empfänger", "destinataire", "destinatario", "destinatário")
_CC = words(
    "cc", "bcc", "kopie", "kopi", "kopia", "kopio", "dw", "udw", "копия", "копие", "копія", "másolat",
    "másolatot kap", "bilgi", "κοιν.", "κοιν", "抄送", "副本", "참조", "copie à", "copia",
    "cópia", "a/c", "kópia", "kopija", "koopia", "afrit", "bản sao", "tembusan", "สำเนา",
    "עותק", "نسخة")
_SUBJECT = words(
    "subject", "betreff", "objet", "onderwerp", "asunto", "oggetto", "assunto", "emne", "ämne",
    "aihe", "temat", "předmět", "predmet", "тема", "tárgy", "konu", "θέμα", "件名", "主题",
    "主題", "主旨", "제목", "subiect", "относно", "tema", "tēma", "teema", "efni", "chủ đề",
    "perihal", "subjek", "เรื่อง", "נושא", "الموضوع", "विषय", "assumpte", "sujet", "onderwerp")
_OTHER = words(
    "reply-to", "antwort an", "répondre à", "responder a", "rispondi a", "svar til",
    "svara till", "vastausosoite", "odpowiedź do", "odpovědět", "ответить", "importance",
    "wichtigkeit", "priorität", "priority", "importancia", "importanza", "prioridade",
    "prioriteit", "viktighet", "prioritet", "tärkeys", "ważność", "důležitost", "важность",
    "fontosság", "önem", "σημασία", "重要度", "重要性", "중요도", "attachments", "anlagen",
    "anhänge", "pièces jointes", "datos adjuntos", "allegati", "anexos", "bijlagen",
    "vedhæftede filer", "vedlegg", "bifogade filer", "liitteet", "załączniki", "přílohy",
    "вложения", "mellékletek", "ekler", "συνημμένα", "添付ファイル", "附件", "첨부",
    "organization", "organisation", "please respond to", "bitte antworten an")

_FIELD = r"\*{0,2}\s*(%s)\s*\*{0,2}\s*[:：]"
_KINDS = (("from", re.compile(_FIELD % _FROM + r"\s*\*{0,2}\s*\S", re.I)),
          ("date", re.compile(_FIELD % _DATE, re.I)),
          ("to", re.compile(_FIELD % _TO, re.I)),
          ("cc", re.compile(_FIELD % _CC, re.I)),
          ("subject", re.compile(_FIELD % _SUBJECT, re.I)),
          ("other", re.compile(_FIELD % _OTHER, re.I)))
# Lotus Notes names the sender by a hierarchical name on a line of its own.
_NOTES_NAME = re.compile(r"[^\s:/<>@][^:<>]{0,80}/[^:<>\s/][^:<>]{0,80}(@[\w.-]+)?")
# A date with a time on a line of its own (Lotus Notes, some mobile programs).
_DATE_LINE = re.compile(r"[\w.,/ -]{0,40}\d{1,4}[./-]\d{1,2}[./-]\d{1,4}[\w.,/ ]{0,10}"
                        r"\d{1,2}[:.]\d{2}(\s*[AaPp]\.?[Mm]\.?)?(\s*[\w()+:-]{1,12})?")
# A line of a field's value wrapped onto the next: an address, a '[mailto:...]'.
_WRAPPED = re.compile(r"[<\[(]?\s*(mailto:)?[^\s@<>]+@[^\s@<>]+\s*[>\])]?[;,]?|\[mailto:.*\]|<[^<>]*>.*")


# Any field, its name known here or not: one to three words in any script ('Kategorien', 'Reply-To',
# 'A/c', 'Κοιν.', 'विषय' with its vowel signs), then a colon (French puts a space before it).
_ANY_FIELD = re.compile(r"\*{0,2}\s*([^:：*]{1,40}?)\s*\*{0,2}\s*(:(?=[\s*]|$)|：)")
_LETTER = r"(?:[^\W\d_]|[\u0300-\u036f\u0483-\u0489\u0591-\u05c7\u064b-\u065f\u0900-\u0dff\u0e31-\u0e4e])"
_NAME = re.compile(rf"{_LETTER}+(?:[-.'’/]{_LETTER}+)*\.?(?: {_LETTER}+(?:[-.'’/]{_LETTER}+)*\.?){{0,2}}")
# What shows a run of fields is a mail's header: an address, a date or a time in a value.
_ADDRESS = re.compile(r"[^\s@<>()\[\]]+@[^\s@<>()\[\]]+")
_DATED = re.compile(
    r"(?<![\d.:])\d{1,2}[:.h]\d{2}(?![\d.])|"  # 13:09, 10.00, 13h09
    r"\d{1,4}\s?[./-]\s?\d{1,2}\s?[./-]\s?\d{1,4}|"  # 27.11.2026, 2026-11-27
    r"\d{4}\s?[年년]|"  # 2026年11月27日
    r"\d{1,2}\.?\s+[^\W\d_]{3,}\.?,?\s+\d{4}|[^\W\d_]{3,}\.?\s+\d{1,2},?\s+\d{4}")  # 27 Nov 2026


def field_kind(s: str) -> str | None:
    """Which kind of header field the stripped line s is ('from', 'date', 'to', 'cc', 'subject',
    'other'), 'field' for a name not known here, or None."""
    if len(s) > 2000:
        return None
    for kind, pattern in _KINDS:
        if pattern.match(s):
            return kind
    m = _ANY_FIELD.match(s)
    # a line that may be meant as an order or a command is no field whatever its colon
    if m and _NAME.fullmatch(m.group(1)) and not order_shaped(s):
        return "field"
    return None


def _is_block(seen: set[str], fields: int, address: bool, dated: bool) -> bool:
    """Whether fields of the kinds `seen` (`fields` lines), with an address or a date in their
    values or not, make a header block (see the module's docstring)."""
    others = len(seen & {"to", "cc", "subject"})
    anchor = "from" in seen or "date" in seen
    if "from" in seen and ("date" in seen or others >= 2):
        return True
    if "date" in seen and dated and others >= 2:
        return True
    if fields < 4:
        return False
    if anchor and len(seen - {"field"}) >= 2 and (address or dated):
        return True
    return address and dated


@lru_cache(maxsize=256)  # each line is looked at from up to 20 lines above it
def _facts(s: str) -> tuple[str | None, bool, bool]:
    """The field kind of the stripped line s, and whether it has an address, a date or a time."""
    head = s[:300]
    return field_kind(s), _ADDRESS.search(head) is not None, _DATED.search(head) is not None


def _block_from(lines: list[str], i: int, seen: set[str]) -> bool:
    """Whether the fields from line i on, with those `seen` already, make a header block."""
    fields, address, dated = len(seen), False, False
    loose = 0  # lines in a row that are no field: a wrapped value, a date on its own line
    for j in range(i, min(i + 20, len(lines))):
        s = lines[j].strip()
        kind, has_address, has_date = _facts(s) if s else (None, False, False)
        if kind is not None:
            seen.add(kind)
            fields += 1
            loose = 0
        else:
            previous = lines[j - 1].rstrip() if j > 0 else ""
            continued = s and (lines[j][:1].isspace() or previous.endswith((",", ";"))
                               or _WRAPPED.fullmatch(s) or _DATE_LINE.fullmatch(s))
            loose += 1
            if j == i or not continued or loose > 2:
                return False
        address, dated = address or has_address, dated or has_date
        if _is_block(seen, fields, address, dated):
            return True
    return False


def header_block(lines: list[str], i: int) -> bool:
    """Does a header block of the mail replied to or forwarded start at line i?"""
    s = lines[i].strip()
    if s and _facts(s)[0] is not None:
        return _block_from(lines, i, set())
    if _NOTES_NAME.fullmatch(s):
        # the date on a line of its own, and blank lines, may come before the fields
        following = [j for j in range(i + 1, min(i + 6, len(lines))) if lines[j].strip()][:2]
        for nxt in following:
            if field_kind(lines[nxt].strip()) is not None:
                return _block_from(lines, nxt, {"from"})
            if not _DATE_LINE.fullmatch(lines[nxt].strip()):
                return False
    return False
