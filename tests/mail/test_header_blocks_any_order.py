"""Header blocks of the mail replied to, generated (a table × a template, as tests/mail/test_reply_layouts.py
does): their fields in any order, with fields not known to gm.mail.intake.reply_text.header_blocks
('Kategorien:', 'Priorité :', any script), in many languages, each under each new text: the orders
of the new text are read and no line of the block or of the old mail under it is (command_lines).
And a player's own lines that merely look like fields ('To: England', 'A: Francia', 'Note: ...')
are kept, alone, between orders, and above a real block.

The old mail is the player's orders of last turn, which differ from the new ones: a line of it
read as a command shows as a failure."""
from __future__ import annotations

import time

import pytest

from gm.mail.intake.message import command_lines
from tests.mail.test_reply_layouts import read

OLD = "SIGNON France g1 pw-France\nA Par - Pic\nF Bre - Eng\nA Mar - Spa\n\nThanks,\nJane"
OLD_LINES = {line for line in OLD.split("\n") if line}

# The new texts a block is put under: a template of the player's orders, and of orders between
# greetings.
NEW_TEXTS = {
    "orders": "SIGNON France g1 pw-France\nA Par - Bur\nF Bre - Mao\nA Mar H",
    "greeted": "Hello GM,\n\nSIGNON France g1 pw-France\nA Par - Bur\nF Bre - Mao\nA Mar H\n\nThanks,\nJane",
}




def lines_of(text: str) -> list[str]:
    return [line.strip() for line in text.split("\n") if line.strip()]


# language: the names of (From, Sent, To, Cc, Subject) and of two more fields, most not known here (a
# category, a priority or the like), as that language's mail programs write them; `known` is False
# for a language none of whose names are known here (then only the values show a header).
LANGUAGES = {
    "en": (("From", "Sent", "To", "Cc", "Subject"), ("Categories", "Sensitivity"), True),
    "en-date": (("From", "Date", "To", "Bcc", "Subject"), ("Follow Up Flag", "Flag Status"), True),
    "en-known": (("From", "Sent", "To", "Bcc", "Subject"), ("Reply-To", "Importance"), True),
    "en-attachments": (("From", "Date", "To", "Cc", "Subject"), ("Attachments", "Priority"), True),
    "fr": (("De ", "Envoyé ", "À ", "Cc ", "Objet "), ("Catégories ", "Priorité "), True),
    "fr-nospace": (("De", "Date", "À", "Copie à", "Objet"), ("Catégories", "Priorité"), True),
    "de": (("Von", "Gesendet", "An", "Cc", "Betreff"), ("Kategorien", "Vertraulichkeit"), True),
    "de-anlagen": (("Von", "Datum", "An", "Kopie", "Betreff"), ("Anlagen", "Kennzeichnung"), True),
    "it": (("Da", "Inviato", "A", "Cc", "Oggetto"), ("Categorie", "Priorità"), True),
    "it-allegati": (("Da", "Data", "A", "Cc", "Oggetto"), ("Allegati", "Riservatezza"), True),
    "es": (("De", "Enviado el", "Para", "CC", "Asunto"), ("Categorías", "Prioridad"), True),
    "nl": (("Van", "Verzonden", "Aan", "CC", "Onderwerp"), ("Categorieën", "Urgentie"), True),
    "pt": (("De", "Enviado", "Para", "Cc", "Assunto"), ("Categorias", "Confidencialidade"), True),
    "pl": (("Od", "Wysłano", "Do", "DW", "Temat"), ("Kategorie", "Priorytet"), True),
    "ru": (("От", "Отправлено", "Кому", "Копия", "Тема"), ("Категории", "Приоритет"), True),
    "el": (("Από", "Στάλθηκε", "Προς", "Κοιν.", "Θέμα"), ("Κατηγορίες", "Προτεραιότητα"), True),
    "ja": (("差出人", "送信日時", "宛先", "CC", "件名"), ("分類項目", "優先度"), True),
    "zh": (("发件人", "发送时间", "收件人", "抄送", "主题"), ("类别", "优先级"), True),
    "ar": (("من", "تم الإرسال", "إلى", "نسخة", "الموضوع"), ("الفئات", "الأولوية"), True),
    "hi": (("प्रेषक", "भेजा गया", "प्राप्तकर्ता", "Cc", "विषय"), ("श्रेणियाँ", "प्राथमिकता"), True),
    "th": (("จาก", "ส่ง", "ถึง", "สำเนา", "เรื่อง"), ("ประเภท", "ความสำคัญ"), True),
    # names not known here at all: Georgian, Swahili, Amharic
    "ka": (("ვისგან", "გაგზავნილია", "ვის", "ასლი", "სათაური"), ("კატეგორიები", "პრიორიტეტი"), False),
    "sw": (("Kutoka", "Imetumwa", "Kwa", "Nakala", "Mada"), ("Aina", "Kipaumbele"), False),
    "am": (("ከ", "የተላከው", "ለ", "ቅጂ", "ርዕስ"), ("ምድቦች", "ቅድሚያ"), False),
}
NAME = "Game Master of the Friday Diplomacy Club"
ADDRESS = "gm@judge.example"
VALUES = {"from": f"{NAME} <{ADDRESS}>", "date": "Friday, 27 November 2026 13:09", "to": "jane@players.example",
          "cc": "france@players.example", "subject": "Re: orders", "x1": "Red", "x2": "High"}

# layout: its fields in order, and whether it shows a header only by the names known here (a block
# with no date or no From: not recognised in a language none of whose names are known).
ORDERS = {
    "outlook": (("from", "date", "to", "subject"), False),
    "subject first": (("subject", "from", "date", "to"), False),
    "date first": (("date", "from", "to", "subject"), False),
    "date before from": (("subject", "date", "from", "to", "cc"), False),
    "to before from": (("to", "cc", "from", "date", "subject"), False),
    "to first, no subject": (("to", "from", "date", "x1"), False),
    "unseen between": (("from", "x1", "date", "to", "x2", "subject"), False),
    "unseen first and last": (("x1", "from", "date", "to", "subject", "x2"), False),
    "unseen all about": (("x1", "x2", "date", "to", "from", "subject"), False),
    "no from": (("date", "to", "cc", "subject", "x1"), True),
    "no date": (("from", "to", "x1", "cc", "subject"), True),
    "no date, subject first": (("subject", "x2", "to", "from"), True),
}


def layouts(names: tuple[str, ...], unseen: tuple[str, ...], order: tuple[str, ...]):
    """(style, block) for each way the fields of `order` are written: plain, bold (HTML made text),
    the From value wrapped onto the next line, and under a rule."""
    name = dict(zip(("from", "date", "to", "cc", "subject", "x1", "x2"), names + unseen))
    plain = [f"{name[f]}: {VALUES[f]}" for f in order]
    yield "plain", "\n".join(plain)
    yield "bold", "\n".join(f"*{name[f]}:* {VALUES[f]}" for f in order)
    wrapped = [f"{name[f]}: {NAME}\n<{ADDRESS}>" if f == "from" else line for f, line in zip(order, plain)]
    yield "wrapped", "\n".join(wrapped)
    yield "rule above", "________________________________\n" + "\n".join(plain)


BLOCK_CASES = [(f"{lang}-{order}-{style}", block)
               for lang, (names, unseen, known) in LANGUAGES.items()
               for order, (fields, by_names) in ORDERS.items() if known or not by_names
               for style, block in layouts(names, unseen, fields)]


@pytest.mark.parametrize("new", NEW_TEXTS.values(), ids=NEW_TEXTS.keys())
@pytest.mark.parametrize("case, block", BLOCK_CASES, ids=[case for case, _ in BLOCK_CASES])
def test_a_header_block_in_any_order_ends_the_new_text(case: str, block: str, new: str) -> None:
    for body in (f"{new}\n\n{block}\n\n{OLD}",
                 f"{new}\n{block}\n{OLD}",  # no blank lines (HTML made text)
                 f"{new}\n\n{block}\n{OLD}"):
        read_lines = read(body)
        assert read_lines == lines_of(new), body
        assert not (OLD_LINES - set(lines_of(new))) & set(read_lines)  # the old mail's own lines


# The player's own lines that merely look like fields, alone or a few together.
PLAYERS_LINES = [
    "To: England", "To: England, the Channel is yours", "To: Germany: stay out of Bur", "A: Francia",
    "A: tutti, buona fortuna", "Subject to France's support", "Subject to France's support:",
    "Note: I will be away next week", "Note: A Par - Bur is my main move", "PRESS TO France:",
    "PRESS TO France: shall we talk?", "F: Bre - Mao", "A Par - Bur", "De : la France, avec amitié",
    "Objet : notre alliance", "Da: Italia", "Von: Deutschland, mit Grüßen", "Date: Spring 1901",
    "Datum: Frühjahr 1901", "Fecha: primavera de 1901", "Asunto: la alianza", "Van: Nederland",
    "Onderwerp: de alliantie", "От: Франции с любовью", "Кому: Англии", "件名: 同盟について",
    "Από: Γαλλία", "Germany: A Ber - Kie", "Spring 1901: A Par - Bur", "Orders for 4.3:",
    "Re: your proposal", "P.S.: good luck", "Deadline: 27.11.2026",
    "From: France\nTo: England",
    "From: France\nNote: see you in Bur",
    "Da: Italia\nA: Francia",
    "De : la France\nÀ : l'Angleterre",
    "Note: my orders\nPS: good luck\nRe: your offer",
    "Data: primavera 1901\nItalia: alleata\nFrancia: nemica\nAustria: neutrale",
    "Von: Deutschland\nAn: Frankreich\nAbsicht: Frieden\nStand: Frühjahr 1901",
    "Spring 1901:\nEngland: ally\nGermany: enemy\nRussia: who knows",
    "Germany: A Ber - Kie\nFrance: A Par - Bur\nItaly: A Ven H",
    "PRESS TO France:\nTo: France\nSubject: Belgium\nENDPRESS",
    "Кому: Англии\nТема: союз",
]
BLOCK = f"From: {NAME} <{ADDRESS}>\nKategorien: Red\nSent: Friday, 27 November 2026 13:09\nTo: jane@players.example"


@pytest.mark.parametrize("own", PLAYERS_LINES)
def test_the_players_lines_that_look_like_fields_are_kept(own: str) -> None:
    new = NEW_TEXTS["orders"].split("\n")
    assert read(own) == lines_of(own)
    assert read("\n".join([new[0], own, *new[1:]])) == [new[0], *lines_of(own), *new[1:]]
    assert read("\n".join([*new, own])) == [*new, *lines_of(own)]
    assert read("\n".join([own, *new])) == [*lines_of(own), *new]
    # and above a real block, set apart as mail programs set it
    assert read("\n".join([*new, own, "", BLOCK, "", OLD])) == [*new, *lines_of(own)]


@pytest.mark.parametrize("line", ["Note: x", "Kategorien: " + "rot " * 400, "Deadline: 27.11.2026 " + "x@y " * 300])
def test_many_lines_that_look_like_fields_are_read_in_linear_time(line: str) -> None:
    started = time.perf_counter()
    command_lines("\n".join([line] * 20_000))
    assert time.perf_counter() - started < 3
