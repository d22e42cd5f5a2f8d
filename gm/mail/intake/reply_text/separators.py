"""Separators above the mail replied to or forwarded: "-----Original Message-----",
"---------- Forwarded message ---------", "Begin forwarded message:", Lotus Notes' "----- Forwarded
by Name/Org on <date> -----", in each language and decorated or not ('*-------- Original Message
--------*', '**-----Ursprüngliche Nachricht-----**', rules of '=', '_', '~' or box-drawing
characters); and bare rules ('________________________________', '───────'), which end the text
only above a header block, an attribution or a mailing list's footer (see gm.mail.intake.reply_text).
"""
from __future__ import annotations

import re

from gm.mail.intake.reply_text.common import words

# The characters rules are drawn with: hyphens, equals signs, underscores, tildes, dashes and
# box-drawing lines (what some programs make of an <hr> in plain text).
_RULE = "[-=_~\u2010-\u2015\u2212\u2500-\u257f\u2e3a\u2e3b]"
# Emphasis around a separator when a program made plain text of HTML ('*...*', '**...**').
_EMPHASIS = r"[*_]{0,2}\s*"
# QQ Mail writes '&nbsp;' for the spaces in its plain text.
_GAP = r"(\s|&nbsp;)*"

# "-----Original Message-----" and the like, as mail programs write it in each language.
_ORIGINAL = words(
    "original message", "original", "reply message", "replied message", "ursprüngliche nachricht",
    "originalnachricht", "message d'origine", "message original", "oorspronkelijk bericht",
    "origineel bericht", "mensaje original", "messaggio originale", "mensagem original",
    "oprindelig meddelelse", "oprindelig besked", "original meddelelse", "opprinnelig melding",
    "originalmelding", "ursprungligt meddelande", "originalmeddelande", "alkuperäinen viesti",
    "wiadomość oryginalna", "oryginalna wiadomość", "původní zpráva", "původní e-mail",
    "pôvodná správa", "pôvodný e-mail", "исходное сообщение", "оригинальное сообщение",
    "исходное письмо", "eredeti üzenet", "eredeti levél", "özgün ileti", "orijinal mesaj",
    "orijinal ileti", "αρχικό μήνυμα", "mesaj original", "mesajul original", "元のメッセージ",
    "オリジナル メッセージ", "原始邮件", "原始郵件", "原始信息", "原始訊息", "原始消息", "原邮件",
    "回复的原邮件", "원본 메시지", "원본 메일", "izvorna poruka", "originalna poruka",
    "izvirno sporočilo", "оригинално съобщение", "оригінальне повідомлення",
    "вихідне повідомлення", "originalus laiškas", "sākotnējais ziņojums", "algne sõnum",
    "missatge original", "mensaxe orixinal", "thư gốc", "pesan asli", "mesej asal",
    "ข้อความต้นฉบับ", "הודעה מקורית", "الرسالة الأصلية", "मूल संदेश")
# "---------- Forwarded message ---------" in each language.
_FORWARDED = words(
    "forwarded message", "forwarded e-mail", "forwarded email", "weitergeleitete nachricht",
    "weitergeleitete e-mail", "message transféré", "message transfere", "doorgestuurd bericht",
    "mensaje reenviado", "messaggio inoltrato", "mensagem encaminhada", "mensagem reencaminhada",
    "videresendt meddelelse", "videresendt besked", "videresendt melding",
    "vidarebefordrat meddelande", "välitetty viesti", "wiadomość przekazana dalej",
    "przekazana wiadomość", "přeposlaná zpráva", "přeposlaný e-mail", "preposlaná správa",
    "пересылаемое сообщение", "пересланное сообщение", "переслане повідомлення",
    "továbbított üzenet", "továbbított levél", "iletilen mesaj", "yönlendirilmiş ileti",
    "yönlendirilen ileti", "προωθημένο μήνυμα", "mesaj redirecționat", "proslijeđena poruka",
    "posredovano sporočilo", "препратено съобщение", "missatge reenviat", "thư chuyển tiếp",
    "pesan terusan", "転送されたメッセージ", "転送メッセージ", "转发的邮件", "转发邮件",
    "轉寄的郵件", "전달된 메시지", "전달 메시지", "הודעה שהועברה", "رسالة معاد توجيهها")
# Apple Mail's "Begin forwarded message:" in each language.
_BEGIN_FORWARDED = words(
    "begin forwarded message", "anfang der weitergeleiteten nachricht",
    "début du message réexpédié", "début du message transféré", "inicio del mensaje reenviado",
    "comienzo del mensaje reenviado", "inizio messaggio inoltrato",
    "início da mensagem reencaminhada", "início da mensagem encaminhada",
    "begin doorgestuurd bericht", "start på videresendt besked", "start på videresendt meddelelse",
    "videresendt melding", "vidarebefordrat mejl", "vidarebefordrat brev",
    "välitetty viesti alkaa", "początek przekazywanej wiadomości", "začátek přeposlané zprávy",
    "начало переадресованного сообщения", "továbbított levél kezdete", "転送されたメッセージ",
    "以下是转发的邮件", "轉寄的郵件", "전달된 메시지")
# Lotus Notes: "----- Forwarded by Jane Roe/Sales/Acme on 27/11/2026 13:09 -----".
_BY = words("forwarded by", "weitergeleitet von", "transféré par", "réacheminé par",
            "reenviado por", "inoltrato da", "doorgestuurd door", "encaminhado por",
            "videresendt af", "vidarebefordrat av", "przesłane dalej przez", "přeposlal")

_SEPARATOR = re.compile(
    _EMPHASIS + "(" + _RULE + "{2,}" + _GAP + "(" + _ORIGINAL + "|" + _FORWARDED + ")" + _GAP +
    _RULE + "{2,}|" + _RULE + "{2,}" + _GAP + "(" + _BY + r")\s.{1,150}?" + _RULE + "{2,}|(" +
    _BEGIN_FORWARDED + r")\s*[:：])" + r"\s*[*_]{0,2}", re.I)
# A bare rule: a run of one rule character (or a dotted run of one) long enough to be drawn.
_BARE_RULE = re.compile(_EMPHASIS + r"((?P<c>" + _RULE + r")(\s?(?P=c)){7,})" + r"\s*[*_]{0,2}")


def is_separator(s: str) -> bool:
    """Whether the stripped line s is a separator above a mail replied to or forwarded."""
    return len(s) <= 300 and _SEPARATOR.fullmatch(s) is not None


def is_rule(s: str) -> bool:
    """Whether the stripped line s is a bare horizontal rule."""
    return len(s) <= 500 and _BARE_RULE.fullmatch(s) is not None
