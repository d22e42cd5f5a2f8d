"""Each class of reply layout, generated over clients and languages (a table × a template, as
tests/engine/test_spellings.py does): the orders of the new text are read, and no line of the old
mail under it, nor of the noise around it, is read (command_lines) or answered as an error.

The old mail in each is the player's orders of last turn, which differ from the new ones: a line
of it read as a command shows as a failure."""
from __future__ import annotations

import time

import pytest

from gm.mail.intake.message import command_lines, no_order_meant, read_message
from gm.mail.commands.unknown_command import order_words
from tests.mail.test_ingest import Judge, line_of
from tests.mail.test_ingest import game as game  # noqa: F401  (the fixture)
from tests.mail.test_ingest import judge as judge  # noqa: F401  (the fixture)

NEW = ["SIGNON France g1 pw-France", "A Par - Bur", "F Bre - Mao", "A Mar H"]
NEW_TEXT = "\n".join(NEW)
OLD = "SIGNON France g1 pw-France\nA Par - Pic\nF Bre - Eng\nA Mar - Spa\n\nThanks,\nJane"


def read(body: str) -> list[str]:
    """The command lines of a body, read as a mail and as text."""
    lines = command_lines(body)
    mail = ("From: jane@players.example\r\nSubject: Re: orders\r\nContent-Type: text/plain; charset=utf-8\r\n"
            "\r\n" + body).encode("utf-8")
    assert command_lines(read_message(mail).text) == lines
    return lines


# --- Outlook header blocks in every language ---------------------------------------------------

# language: (From, Sent, To, Subject, Cc) as Outlook writes them.
FIELDS = {
    "en": ("From", "Sent", "To", "Subject", "Cc"),
    "it": ("Da", "Inviato", "A", "Oggetto", "Cc"),
    "it-data": ("Da", "Data", "A", "Oggetto", "Cc"),
    "de": ("Von", "Gesendet", "An", "Betreff", "Cc"),
    "fr": ("De", "Envoyé", "À", "Objet", "Cc"),
    "fr-space": ("De ", "Envoyé ", "À ", "Objet ", "Cc "),
    "nl": ("Van", "Verzonden", "Aan", "Onderwerp", "CC"),
    "es": ("De", "Enviado el", "Para", "Asunto", "CC"),
    "pt": ("De", "Enviado", "Para", "Assunto", "Cc"),
    "pt-br": ("De", "Enviado em", "Para", "Assunto", "Cc"),
    "pl": ("Od", "Wysłano", "Do", "Temat", "DW"),
    "cs": ("Od", "Odesláno", "Komu", "Předmět", "Kopie"),
    "sk": ("Od", "Odoslané", "Komu", "Predmet", "Kópia"),
    "hu": ("Feladó", "Elküldve", "Címzett", "Tárgy", "Másolatot kap"),
    "sv": ("Från", "Skickat", "Till", "Ämne", "Kopia"),
    "da": ("Fra", "Sendt", "Til", "Emne", "Cc"),
    "no": ("Fra", "Sendt", "Til", "Emne", "Kopi"),
    "fi": ("Lähettäjä", "Lähetetty", "Vastaanottaja", "Aihe", "Kopio"),
    "tr": ("Kimden", "Gönderildi", "Kime", "Konu", "Bilgi"),
    "ru": ("От", "Отправлено", "Кому", "Тема", "Копия"),
    "uk": ("Від", "Надіслано", "Кому", "Тема", "Копія"),
    "bg": ("От", "Изпратено", "До", "Относно", "Копие"),
    "el": ("Από", "Στάλθηκε", "Προς", "Θέμα", "Κοιν."),
    "ro": ("De la", "Trimis", "Către", "Subiect", "Cc"),
    "hr": ("Šalje", "Poslano", "Prima", "Predmet", "Kopija"),
    "lt": ("Nuo", "Išsiųsta", "Kam", "Tema", "Kopija"),
    "et": ("Saatja", "Saadetud", "Adressaat", "Teema", "Koopia"),
    "ca": ("De", "Enviat el", "A", "Assumpte", "A/c"),
    "id": ("Dari", "Dikirim", "Kepada", "Perihal", "Cc"),
    "vi": ("Từ", "Đã gửi", "Đến", "Chủ đề", "Cc"),
    "he": ("מאת", "נשלח", "אל", "נושא", "עותק"),
    "ar": ("من", "تم الإرسال", "إلى", "الموضوع", "نسخة"),
    "ja": ("差出人", "送信日時", "宛先", "件名", "CC"),
    "zh": ("发件人", "发送时间", "收件人", "主题", "抄送"),
    "zh-tw": ("寄件者", "寄件日期", "收件者", "主旨", "副本"),
    "ko": ("보낸 사람", "보낸 날짜", "받는 사람", "제목", "참조"),
}
NAME = "Game Master of the Friday Diplomacy Club"
ADDRESS = "gm@judge.example"


def outlook_blocks(f: str, s: str, t: str, subj: str, cc: str):
    """(layout, block) for each way Outlook and its kin lay the block out."""
    date = "Friday, 27 November 2026 13:09"
    rest = f"{s}: {date}\n{t}: jane@players.example\n{subj}: Re: orders"
    yield "plain", f"{f}: {NAME} <{ADDRESS}>\n{rest}"
    yield "rule above", f"________________________________\n{f}: {NAME} <{ADDRESS}>\n{rest}"
    yield "bold", f"*{f}:* {NAME} <{ADDRESS}>\n*{s}:* {date}\n*{t}:* jane@players.example\n*{subj}:* Re: orders"
    yield "wrapped <address>", f"{f}: {NAME}\n<{ADDRESS}>\n{rest}"
    yield "wrapped [mailto:]", f"{f}: {NAME}\n[mailto:{ADDRESS}]\n{rest}"
    yield "no date", f"{f}: {NAME} <{ADDRESS}>\n{t}: jane@players.example\n{cc}: \n{subj}: Re: orders"
    yield "cc in between", f"{f}: {NAME} <{ADDRESS}>\n{s}: {date}\n{t}: jane@players.example\n" \
                           f"{cc}: france@players.example\n{subj}: Re: orders"


HEADER_CASES = [(lang, layout, block) for lang, fields in FIELDS.items()
                for layout, block in outlook_blocks(*fields)]


@pytest.mark.parametrize("lang, layout, block", HEADER_CASES,
                         ids=[f"{lang}-{layout}" for lang, layout, _ in HEADER_CASES])
def test_an_outlook_header_block_ends_the_new_text(lang: str, layout: str, block: str) -> None:
    assert read(f"{NEW_TEXT}\n\n{block}\n\n{OLD}") == NEW
    assert read(f"{NEW_TEXT}\n{block}\n{OLD}") == NEW  # no blank lines (HTML made text)


@pytest.mark.parametrize("text", [
    "To: England, the Channel is yours\nA Par - Bur",
    "Subject to your approval:\nA Par - Bur\nTo: Germany: stay out of Bur",
    "From: France, with love\nA Par - Bur\nTo: everyone",
    "Date: Spring 1901\nA Par - Bur",
])
def test_a_field_alone_is_the_players_text(text: str) -> None:
    assert read(text) == text.split("\n")


# --- the old mail under a mobile footer -------------------------------------------------------

FOOTERS = [
    "Sent from Outlook for Android", "Get Outlook for iOS", "Get Outlook for Android<https://aka.ms/ghei36>",
    "Sent from my iPhone", "Sent from my Galaxy", "Sent from Yahoo Mail on Android", "Sent from my iPad",
    "Von Outlook für Android gesendet", "Outlook für Android herunterladen", "Von meinem iPhone gesendet",
    "Envoyé de mon iPhone", "Télécharger Outlook pour Android", "Enviado desde mi iPhone",
    "Obtener Outlook para Android", "Inviato da iPhone", "Inviato dal mio Galaxy", "Scarica Outlook per Android",
    "Verzonden vanaf mijn iPhone", "Outlook voor Android downloaden", "Skickat från min iPhone",
    "Sendt fra min iPhone", "Wysłane z iPhone'a", "Pobierz aplikację Outlook dla systemu Android",
    "Odesláno z iPhonu", "Отправлено с iPhone", "Enviado do meu iPhone", "Lähetetty iPhonesta",
    "iPhone'umdan gönderildi", "Στάλθηκε από το iPhone μου", "Trimis de pe iPhone-ul meu",
    "iPhoneから送信", "发自我的iPhone", "從我的 iPhone 傳送", "iPhone에서 보냄",
]


@pytest.mark.parametrize("footer", FOOTERS)
def test_the_old_mail_under_a_mobile_footer_is_dropped(footer: str) -> None:
    assert read(f"{NEW_TEXT}\n\n{footer}\n\n{OLD}") == NEW
    assert read(f"{NEW_TEXT}\n{footer}\n\n{OLD}") == NEW
    assert read(f"{NEW_TEXT}\n\n{footer}\n") == NEW


# --- decorated separators ---------------------------------------------------------------------

SEPARATORS = [
    "*-------- Original Message --------*", "-----Original Message-----", "**-----Original Message-----**",
    "**-----Ursprüngliche Nachricht-----**", "*-----Ursprüngliche Nachricht-----*",
    "-------- Message d'origine --------", "*-------- Message d'origine --------*",
    "-------- Mensaje original --------", "-------- Messaggio originale --------",
    "-----Oorspronkelijk bericht-----", "-------- Mensagem original --------",
    "═══════ Original Message ═══════", "─────── Original Message ───────", "━━━━━ 原始邮件 ━━━━━",
    "________ Original Message ________", "=========== Original ===========",
    "───── Forwarded message ─────", "*---------- Forwarded message ---------*",
    "----- Forwarded by Jane Roe/Sales/Acme on 27/11/2026 13:09 -----", "----- Original Message -----",
    "*Begin forwarded message:*", "------------------ 原始邮件 ------------------",
    "-------- Исходное сообщение --------", "-------- Původní zpráva --------",
]


@pytest.mark.parametrize("separator", SEPARATORS)
def test_a_separator_ends_the_new_text(separator: str) -> None:
    assert read(f"{NEW_TEXT}\n\n{separator}\n{OLD}") == NEW
    assert read(f"{NEW_TEXT}\n{separator}\n\n{OLD}") == NEW


RULES = ["________________________________", "*________________________________*", "──────────────────────",
         "━━━━━━━━━━━━━━━━", "════════════════", "==================================",
         "----------------------------------------", "~~~~~~~~~~~~~~~~", "- - - - - - - - - - - -"]


@pytest.mark.parametrize("rule", RULES)
def test_a_rule_over_a_header_block_or_an_attribution_ends_the_new_text(rule: str) -> None:
    assert read(f"{NEW_TEXT}\n\n{rule}\nFrom: gm <{ADDRESS}>\nDate: 27.11.2026\nSubject: orders\n\n{OLD}") == NEW
    assert read(f"{NEW_TEXT}\n{rule}\nOn Fri, 27 Nov 2026 at 13:09, gm <{ADDRESS}> wrote:\n\n{OLD}") == NEW
    # between the new orders, a rule is noise: dropped
    assert read(f"A Par - Bur\n{rule}\nF Bre - Mao") == ["A Par - Bur", "F Bre - Mao"]


@pytest.mark.parametrize("markup", [
    "<hr><div><b>From:</b> gm &lt;gm@judge.example&gt;<br><b>Sent:</b> Friday<br><b>To:</b> jane<br>"
    "<b>Subject:</b> orders</div>",
    "<div><b>-----Original Message-----</b></div><div>{old}</div>",
    "<p>*-------- Original Message --------*</p><p>{old}</p>",
    "<div>________________________________</div><div><b>Da:</b> gm</div><div><b>Inviato:</b> venerdì</div>"
    "<div><b>A:</b> jane</div><div><b>Oggetto:</b> ordini</div>",
    "<p>───────────────</p><p><b>Von:</b> gm<br><b>Gesendet:</b> Freitag<br><b>An:</b> jane<br>"
    "<b>Betreff:</b> Befehle</p>",
])
def test_separators_in_html_made_text(markup: str) -> None:
    old = "<br>".join(OLD.split("\n"))
    body = "<html><body>" + "".join(f"<div>{line}</div>" for line in NEW) + markup.format(old=old) + \
           f"<div>{old}</div></body></html>"
    mail = ("From: jane@players.example\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" + body).encode()
    assert command_lines(read_message(mail).text) == NEW


# --- noise in mails that pass -----------------------------------------------------------------

BANNERS = [
    "CAUTION: This email originated from outside of the organization. Do not click links or open "
    "attachments unless you recognize the sender and know the content is safe.",
    "CAUTION: This email originated from outside of the organization. Do not click links or open\n"
    "attachments unless you recognize the sender and know the content is safe.",
    "[EXTERNAL]", "[EXTERNAL EMAIL]", "EXTERNAL EMAIL", "*EXTERNAL*", "[EXT]", "[Extern]",
    "You don't often get email from jane@players.example. Learn why this is important",
    "WARNING: This message came from an external sender. Be careful with links.",
    "ACHTUNG: Diese E-Mail stammt von außerhalb der Organisation. Klicken Sie nicht auf Links.",
    "ATTENTION : Ce courriel provient de l'extérieur de l'organisation.",
    "PRECAUCIÓN: Este correo se originó fuera de la organización.",
    "ATTENZIONE: questa e-mail proviene dall'esterno dell'organizzazione.",
    "LET OP: Deze e-mail is afkomstig van buiten de organisatie.",
    "UWAGA: Ta wiadomość pochodzi spoza organizacji.",
    "VARNING: Detta e-postmeddelande kommer från en extern avsändare.",
    "ВНИМАНИЕ: Это письмо пришло извне организации.",
]


@pytest.mark.parametrize("banner", BANNERS)
def test_a_caution_banner_is_dropped(banner: str) -> None:
    assert read(f"{banner}\n\n{NEW_TEXT}") == NEW
    assert read(f"{banner}\n{NEW_TEXT}") == NEW
    assert read(f"{banner}\n\nHere are my orders:\n{NEW_TEXT}") == ["Here are my orders:", *NEW]
    assert all(no_order_meant(line, order_words()) for line in banner.split("\n"))


DISCLAIMERS = [
    "This e-mail and any attachments are confidential and may be privileged. If you are not the intended "
    "recipient, please notify the sender immediately and delete it.",
    "This e-mail and any attachments are confidential and may be privileged. If you are not\n"
    "the intended recipient, please notify the sender immediately and delete it. Any use\n"
    "of it is prohibited.",
    "CONFIDENTIALITY NOTICE: The information in this email is confidential and intended solely for the "
    "addressee.",
    "Disclaimer:\nThe information in this message is confidential.\n\nIf you have received this e-mail in "
    "error, please notify the sender.",
    "Diese E-Mail enthält vertrauliche und/oder rechtlich geschützte Informationen. Wenn Sie nicht der "
    "richtige Adressat sind oder diese E-Mail irrtümlich erhalten haben, informieren Sie bitte sofort den "
    "Absender.",
    "Ce message et toutes les pièces jointes sont confidentiels et établis à l'intention exclusive de ses "
    "destinataires.",
    "Este mensaje y sus anexos son confidenciales y están dirigidos exclusivamente a su destinatario.",
    "Questo messaggio e i suoi allegati sono riservati e destinati esclusivamente al destinatario.",
    "Dit bericht is vertrouwelijk en uitsluitend bestemd voor de geadresseerde.",
    "Please consider the environment before printing this e-mail.",
]


@pytest.mark.parametrize("disclaimer", DISCLAIMERS)
def test_a_disclaimer_is_dropped(disclaimer: str) -> None:
    assert read(f"{NEW_TEXT}\n\n{disclaimer}\n") == NEW
    assert read(f"{NEW_TEXT}\n\nBest regards,\nJane\n\n{disclaimer}\n\n{OLD}".replace(OLD, "")) == \
        [*NEW, "Best regards,", "Jane"]
    assert read(f"{NEW_TEXT}\n\n{disclaimer}\n\n-----Original Message-----\n{OLD}") == NEW


LIST_FOOTERS = [
    "_______________________________________________\ndiplomacy mailing list\ndiplomacy@lists.example.org\n"
    "https://lists.example.org/mailman/listinfo/diplomacy",
    "_______________________________________________\nDiplomacy-L mailing list\n"
    "https://lists.example.org/cgi-bin/mailman/listinfo/diplomacy-l",
    "You received this message because you are subscribed to the Google Groups \"Diplomacy\" group.\n"
    "To unsubscribe from this group and stop receiving emails from it, send an email to "
    "diplomacy+unsubscribe@googlegroups.com.",
    "--\nYou received this message because you are subscribed to the Google Groups \"Diplomacy\" group.",
    "Sie erhalten diese Nachricht, weil Sie in Google Groups E-Mails von der Gruppe \"Diplomacy\" abonniert "
    "haben.",
    "Vous recevez ce message car vous êtes abonné au groupe \"Diplomacy\" de Google Groupes.",
]


@pytest.mark.parametrize("footer", LIST_FOOTERS)
def test_a_mailing_list_footer_is_dropped(footer: str) -> None:
    assert read(f"{NEW_TEXT}\n\n{footer}\n") == NEW
    assert read(f"{NEW_TEXT}\n{footer}\n\n{OLD}") == NEW


# (first line, second line) of an attribution a client wrapped.
SPLIT_ATTRIBUTIONS = [
    ("Den fre 27 nov. 2026 kl. 13:09 skrev Game Master <", "gm@judge.example>:"),
    ("Den fre 27 nov. 2026 kl. 13:09 skrev Game Master <gm@judge.example", ">:"),
    ("Den fre 27 nov. 2026 kl. 13:09 skrev Game Master <gm@judge.example>", "wrote:"),
    ("On Fri, 27 Nov 2026 at 13:09, Game Master <", "gm@judge.example> wrote:"),
    ("On Fri, 27 Nov 2026 at 13:09, Game Master <gm@judge.example>", "wrote:"),
    ("Am Fr., 27. Nov. 2026 um 13:09 Uhr schrieb Game Master <", "gm@judge.example>:"),
    ("Le ven. 27 nov. 2026 à 13:09, Game Master <gm@judge.example> a", "écrit :"),
    ("El vie, 27 nov 2026 a las 13:09, Game Master (<", "gm@judge.example>) escribió:"),
    ("Il giorno ven 27 nov 2026 alle ore 13:09 Game Master <", "gm@judge.example> ha scritto:"),
    ("Op vr 27 nov. 2026 om 13:09 schreef Game Master <", "gm@judge.example>:"),
]


@pytest.mark.parametrize("first, second", SPLIT_ATTRIBUTIONS)
def test_an_attribution_split_over_two_lines(first: str, second: str) -> None:
    quoted = "\n".join("> " + line for line in OLD.split("\n"))
    assert read(f"{NEW_TEXT}\n\n{first}\n{second}\n\n{OLD}") == NEW
    assert read(f"{NEW_TEXT}\n\n{first}\n{second}\n{quoted}") == NEW
    assert read(f"{first}\n{second}\n{quoted}\n\n{NEW_TEXT}") == NEW  # a bottom post


@pytest.mark.parametrize("initials", ["C>", "JS>", " JS>", "GM>", " GM>>", "JR> >"])
def test_initials_quoting(initials: str) -> None:
    quoted = "\n".join(f"{initials} {line}" if line else initials for line in OLD.split("\n"))
    assert read(f"{NEW_TEXT}\n\nFriday, November 27, 2026, 1:09:15 PM, you wrote:\n\n{quoted}") == NEW
    assert read(f"Hello Jane,\n\n{quoted}\n\n{NEW_TEXT}") == ["Hello Jane,", *NEW]


SIGNATURES = [
    "Jane Roe\nSenior Analyst | Acme Corp\nTel: +44 20 7946 0958\nMobile: +44 7700 900123\nwww.acme.example",
    "Best regards,\nJane Roe\nHead of Logistics\nAcme GmbH, Hauptstraße 1, 10115 Berlin\nT +49 30 1234567\n"
    "jane.roe@acme.example",
    "Jane Roe | Acme Corp\n+1 (555) 123-4567 | https://acme.example",
    "Jane Roe\nDirector\n\nAcme Corp\n1 Main Street\nSpringfield\nPhone: 555-123-4567\nhttps://acme.example/",
]


@pytest.mark.parametrize("signature", SIGNATURES)
def test_a_closing_block_of_contact_lines_is_dropped(signature: str) -> None:
    expected = [*NEW, "Jane Roe", "Director"] if "Director" in signature else NEW
    assert read(f"{NEW_TEXT}\n\n{signature}\n") == expected
    assert read(f"{NEW_TEXT}\n\n{signature}\n\n-----Original Message-----\n{OLD}") == expected


LOTUS = [
    "Game Master/Judges/GM@JUDGE\n27/11/2026 13:09\nTo: Jane Roe/Sales/Acme@ACME\ncc:\nSubject: Re: orders",
    "Game Master/Judges/GM@JUDGE\n27.11.2026 13:09\nTo: jane@players.example\ncc: \nSubject: Re: orders",
    "From: Game Master/Judges/GM@JUDGE\nTo: Jane Roe/Sales/Acme@ACME\ncc:\nDate: 27/11/2026 13:09\n"
    "Subject: Re: orders",
    "From: Game Master/Judges/GM@JUDGE\n27/11/2026 01:09 PM\nTo: Jane Roe/Sales/Acme@ACME\ncc:\n"
    "Subject: Re: orders",
    "----- Forwarded by Jane Roe/Sales/Acme on 27/11/2026 13:09 -----",
    "----- Original Message -----\nFrom: Game Master/Judges/GM@JUDGE\nTo: Jane Roe/Sales/Acme@ACME",
    "----- Weitergeleitet von Jane Roe/Sales/Acme am 27.11.2026 13:09 -----",
]


@pytest.mark.parametrize("layout", LOTUS)
def test_lotus_notes_layouts(layout: str) -> None:
    assert read(f"{NEW_TEXT}\n\n\n\n{layout}\n\n{OLD}") == NEW


# --- which lines are answered ------------------------------------------------------------------

NOISE = [
    "Thanks!", "Hello judge,", "Here are my orders:", "Best regards,", "Jane Roe", "Cheers", "Hi all",
    "https://example.org/diplomacy", "www.acme.example", "<https://aka.ms/ghei36>", "+44 20 7946 0958",
    "Tel: +44 20 7946 0958", "Mobile: +1 (555) 123-4567", "jane.roe@acme.example", "────────────",
    "________________________________", "This e-mail and any attachments are confidential.", "[EXTERNAL]",
    "Senior Analyst | Acme Corp", "I think Germany is going to attack me next turn, so please be careful "
    "with your fleets in the north and keep me posted",
    "The information in this message is confidential and intended for the addressee only.",
]
ATTEMPTS = [
    "A Pari - Bur", "Pari - Bur", "F Lodn - Nth", "Army Paris to Burgundy", "A Par S A Mar - Buur",
    "Paris holds", "Buid A Par", "Hold A Par", "A Par-Bur.", "Germany: A Ber - Kie", "Spring 1901: A Par - Bur",
    "1. A Par - Bur", "F Bre -> Mao", "Pari H", "A Pic", "Bur S Par",
]


@pytest.mark.parametrize("line", NOISE)
def test_a_line_no_order_is_meant_by(line: str) -> None:
    assert no_order_meant(line, order_words())


@pytest.mark.parametrize("line", ATTEMPTS)
def test_a_mistyped_order_is_an_attempt(line: str) -> None:
    assert not no_order_meant(line, order_words())


def test_noise_is_not_answered_and_a_mistyped_order_is(game: Judge) -> None:
    body = ("SIGNON France g1 pw-France\nHello judge,\nA Par - Bur\nF Bre - Xyzzy\nThanks!\n"
            "https://example.org/diplomacy\nMobile: +44 7700 900123\nSee you next turn, and good luck to all of you "
            "in the north, Germany included")
    ack = game.say("france@players.example", body)
    assert line_of(ack, "A Par - Bur").startswith("accepted")
    assert line_of(ack, "F Bre - Xyzzy").startswith("REJECTED")
    for noise in ("Hello judge", "Thanks!", "example.org/diplomacy", "7700 900123", "good luck"):
        assert noise not in ack
    assert game.current_orders("France") == ["A PAR - BUR"]


@pytest.mark.parametrize("line", [
    "CAUTION: " + "y " * 2000, "caution: " + "outside " * 2000, "confidential " * 800, "x " * 2499,
    "On " + "1 " * 2000 + ":", "From: " + "a, " * 1000, "A " + "Par - " * 500, "Sent from " + "my " * 100,
    "a/" * 40 + "b", "x@" * 1000, "Tel: " + "1 " * 2000, "www." + "a" * 5000, "─" * 50_000,
])
def test_a_long_line_is_read_in_linear_time(line: str) -> None:
    started = time.perf_counter()
    command_lines("\n".join([line] * 5))
    no_order_meant(line, order_words())
    assert time.perf_counter() - started < 2
