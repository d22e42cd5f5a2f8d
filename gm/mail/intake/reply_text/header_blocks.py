"""Outlook-style header blocks: the fields of the mail replied to or forwarded, which mail
programs write above a copy of it ("From: ... Sent: ... To: ... Subject: ..."), in every language
Outlook and the webmails ship, with or without a rule above, bold ('*From:*') when HTML was made
plain text, a field's value wrapped onto the next line ('From: A Long Display Name' /
'<name@example.org>'), and Lotus Notes' layout ('Jane Roe/Sales/Acme@ACME' or 'From: Jane
Roe/Sales/Acme@ACME', the date on a line of its own, 'To:', 'cc:', 'Subject:').

A block is a From field followed, within a few lines, by a date field or by two other kinds of
field (To, Cc, Subject): a line such as "To: England" or "Subject to ..." in the new text alone is
no block.
"""
from __future__ import annotations

import re

from gm.mail.intake.reply_text.common import words

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


def field_kind(s: str) -> str | None:
    """Which kind of header field the stripped line s is ('from', 'date', 'to', 'cc', 'subject',
    'other'), or None."""
    if len(s) > 2000:
        return None
    for kind, pattern in _KINDS:
        if pattern.match(s):
            return kind
    return None


def _block_from(lines: list[str], i: int, seen: set[str]) -> bool:
    """Whether the fields from line i on, with those `seen` already, make a header block."""
    loose = 0  # lines in a row that are no field: a wrapped value, a date on its own line
    for j in range(i, min(i + 16, len(lines))):
        s = lines[j].strip()
        kind = field_kind(s) if s else None
        if kind is not None:
            seen.add(kind)
            loose = 0
        else:
            previous = lines[j - 1].rstrip() if j > 0 else ""
            continued = s and (lines[j][:1].isspace() or previous.endswith((",", ";"))
                               or _WRAPPED.fullmatch(s) or _DATE_LINE.fullmatch(s))
            loose += 1
            if j == i or not continued or loose > 2:
                return False
        if "from" in seen and ("date" in seen or len(seen & {"to", "cc", "subject"}) >= 2):
            return True
    return False


def header_block(lines: list[str], i: int) -> bool:
    """Does a header block of the mail replied to or forwarded start at line i?"""
    s = lines[i].strip()
    if field_kind(s) is not None:
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
