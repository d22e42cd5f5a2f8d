"""Noise around what a player writes: lines no order is meant by, which the judge neither reads
nor answers.

Blocks dropped from the text (`skip_noise`, `without_contact_block`, `ends_at_list_footer`):
"external mail" caution banners ('CAUTION: This email originated from outside of the
organization...', '[EXTERNAL]', their translations), legal and confidentiality disclaimers ('This
e-mail and any attachments are confidential...', 'Diese E-Mail enthält vertrauliche...'), mailing
lists' footers (a rule over 'Mailing list' / '.../listinfo/...', Google Groups' 'You received this
message because you are subscribed to...'), and a signature block of contact lines (phone numbers,
links, addresses) closing the text.

Lines kept in the text but answered with nothing (`no_order_meant`): prose ('Thanks!', 'Here are my
orders:'), links, phone numbers, addresses, rules: a line that may be a mistyped order (it opens
with a unit type, a province's or power's name, an order word, or has an order's shape) is still
answered with its error.
"""
from __future__ import annotations

import re
from collections.abc import Collection

from gm.mail.intake.reply_text.common import order_shaped
from gm.mail.intake.reply_text.separators import is_rule

_BANNER = re.compile(
    r"^\W{0,3}(external|extern|ext|externe|externo|esterno|externí|zewnętrzn\w*|ulkoinen|külső|harici|"
    r"внешн\w+|εξωτερικό|外部|외부)(\s+(e-?mail|mail|message|sender|nachricht|courriel|correo|"
    r"messaggio|bericht|mensagem|meddelande|melding|viesti|wiadomość|zpráva|levél|posta|письмо|"
    r"email))?\W{0,3}(\s|$)|"
    r"^\W{0,3}(caution|warning|attention|notice|achtung|vorsicht|warnung|attenzione|atención|"
    r"precaución|atenção|cuidado|let op|waarschuwing|uwaga|varning|advarsel|huomio|varoitus|"
    r"figyelem|figyelmeztetés|dikkat|uyarı|upozornění|pozor|внимание|осторожно|προσοχή|注意|警告|주의)"
    r"\W{0,3}\s*[:：!-].{0,200}(outside|external|extern|extérieur|exterieur|außerhalb|ausserhalb|"
    r"fuera|externo|esterno|esterna|fora|buiten|zewnątrz|spoza|utanför|utenfor|udenfor|ulkopuol|"
    r"kívül|dışından|mimo|вне|извне|εκτός|外部|외부)|"
    r"(originated|comes|came|was sent|arrived) from (outside|an external)|"
    r"do not click (on )?(any )?links or open attachments|"
    r"(don't|do not) often get e-?mail from|learn why this is important|"
    r"(stammt|kommt|wurde) (von )?(außerhalb|ausserhalb|extern)|von einem externen absender|"
    r"provient de l'ext[ée]rieur|d'un exp[ée]diteur externe|"
    r"(procede|proviene|se origin[óo]) (de )?fuera|remitente externo|"
    r"proviene (dall'esterno|da un mittente esterno)|mittente esterno|"
    r"afkomstig van buiten|externe afzender|"
    r"(origem|originou-se) (externa|fora)|remetente externo|"
    r"kommer (från|fra) (en )?(extern|ekstern|utanför|utenfor|udenfor)|"
    r"pochodzi (spoza|z zewnątrz)|pochází (z vnějšku|mimo|od externího)|"
    r"пришло (извне|от внешнего|из внешней)|"
    r"(do not|don't) click links|click links or open attachments|recogni[sz]e the sender",
    re.I)
# A disclaimer: a confidentiality word with a word for the mail, or a phrase only disclaimers use.
_SECRET = (r"confidential|privileged|proprietary|vertraulich|confidentiel|confidencial|"
           r"riservat\w*|vertrouwelijk|konfidentiell|fortrolig|konfidensiell|luottamuksellinen|"
           r"poufn\w+|důvěrn\w+|bizalmas|gizli|конфиденциальн\w+|εμπιστευτικ\w+|機密|机密|기밀")
_MAIL = (r"e-?mail|message|communication|transmission|attachments?|nachricht|anhänge|anlagen|"
         r"courriel|pièces jointes|correo|mensaje|adjuntos|messaggio|allegati|bericht|bijlagen|"
         r"mensagem|anexos|meddelande|bilagor|meddelelse|melding|vedlegg|viesti|wiadomość|"
         r"załącznik\w*|zpráva|přílohy|üzenet|ileti|сообщение|письмо|μήνυμα|メール|邮件|郵件|메일")
_SECRET_WORD = re.compile(rf"\b({_SECRET})", re.I)
_MAIL_WORD = re.compile(rf"\b({_MAIL})\b", re.I)
_DISCLAIMER = re.compile(
    r"intended (solely |only |exclusively )?for the (use|addressee|recipient|person|named)|"
    r"if you (are not|have received) (the intended|this (e-?mail|message|communication) in error)|"
    r"received this (e-?mail|message|communication) (in error|by mistake)|"
    r"please (notify|inform) the sender|"
    r"consider the environment before printing|before printing this|"
    r"nicht der (richtige|beabsichtigte|vorgesehene) (adressat|empfänger)|irrtümlich erhalten|"
    r"si vous (n'êtes pas|avez reçu ce message par erreur)|avant d'imprimer|"
    r"si (usted )?no es el destinatario|ha recibido este (mensaje|correo) por error|"
    r"se avete ricevuto (questo|il presente) (messaggio|e-?mail) per errore|"
    r"niet de (beoogde )?geadresseerde|"
    r"não (é|for) o destinatário|"
    r"inte (är )?(den )?avsedda mottagaren|ikke (er )?den (rette|tiltenkte) (modtager|mottaker)|"
    r"nie jesteś adresatem|nie są Państwo adresatem|nejste[- ]li (zamýšleným )?adresátem|"
    r"если вы не являетесь (адресатом|получателем)", re.I)
# A disclaimer's heading on a line of its own.
_HEADING = re.compile(
    r"\W{0,3}((important|legal|confidentiality|privacy)\s+)?(notice|disclaimer|haftungsausschluss|"
    r"rechtlicher hinweis|avertissement|aviso legal|avviso legale|vrijwaring)\W{0,3}\s*:?\s*", re.I)
_LIST_FOOTER = re.compile(
    r"mailing list|mailman|/listinfo/|/mailman/|unsubscribe|abmelden|désabonner|"
    r"you received this message because you are subscribed|"
    r"to unsubscribe from this group|"
    r"sie erhalten diese nachricht, weil sie|"
    r"vous recevez (ce message|cet e-mail) car vous (êtes|etes) abonn|"
    r"(recibiste|has recibido) este mensaje porque|hai ricevuto questo messaggio perché|"
    r"je hebt dit bericht ontvangen omdat|você recebeu esta mensagem porque|"
    r"du har fått det här meddelandet eftersom|du modtager denne (besked|meddelelse), fordi|"
    r"otrzymujesz tę wiadomość, ponieważ|tuto zprávu jste obdrželi, protože|"
    r"вы получили это сообщение, поскольку|このメールは google グループ|您收到此邮件是因为", re.I)
_GROUPS = re.compile(
    r"you received this message because you are subscribed to|"
    r"sie erhalten diese nachricht, weil sie .{0,100}abonniert|"
    r"vous recevez (ce message|cet e-mail) car vous (êtes|etes) abonn|"
    r"(recibiste|has recibido) este mensaje porque (estás|estas) suscrit|"
    r"hai ricevuto questo messaggio perché sei iscritto|"
    r"je hebt dit bericht ontvangen omdat je (bent )?geabonneerd|"
    r"você recebeu esta mensagem porque (está )?inscrito|"
    r"вы получили это сообщение, поскольку подписаны", re.I)

# Contact lines of a signature: a phone number (labelled or not), a link, an address.
_PHONE_LABEL = (r"tel|tél|phone|telephone|téléphone|mobile|mob|mobil|cell|fax|office|direct|"
                r"handy|telefon|telefono|teléfono|telefone|móvil|movil|cellulare|telefoon|mobiel|"
                r"puhelin|телефон|моб|τηλ|電話|携帯|手机|전화|t|m|f|p|d|o|w")
_PHONE = re.compile(rf"(\(?({_PHONE_LABEL})\.?\)?\s*[:.]?\s*)?\+?\(?\d[\d\s()./-]{{5,}}\d"
                    rf"(\s*(x|ext\.?)\s*\d+)?", re.I)
_CONTACT = re.compile(
    rf"(?i:(.{{0,40}}[:|]\s*)?(https?://\S+|www\.\S+|<https?://\S+>|[\w.+'-]+@[\w-]+(\.[\w-]+)+))|"
    rf"(?i:.{{0,60}}\b({_PHONE_LABEL})\.?\s*[:.]\s*\+?\(?\d[\d\s()./-]{{5,}}\d.{{0,80}})|"
    rf"{_PHONE.pattern}", re.I)
# Words too common in prose to count as an order's first word, though part of a place's name.
_COMMON = frozenset({"the", "of", "and", "de", "la", "le", "les", "du", "des", "del", "di", "da",
                     "el", "los", "et", "und", "y", "i", "to", "on", "in"})
# Order words that show an order attempt wherever they stand in a short line.
_KEYWORDS = frozenset({"s", "h", "c", "supports", "support", "supporting", "convoys", "convoy",
                       "hold", "holds", "retreat", "retreats", "disband", "disbands", "build",
                       "builds", "remove", "removes", "army", "fleet", "waive", "waives"})
_STRIP = ".,:;!?()[]{}\"'*_<>"
# A unit type and a capitalised place after the first word: 'Buid A Par'.
_UNIT = re.compile(r"\s[AF]\s+[A-Z][a-z]{2,}")


def is_banner(s: str) -> bool:
    return len(s) <= 1000 and _BANNER.search(s) is not None


def is_disclaimer(s: str) -> bool:
    if _HEADING.fullmatch(s):
        return True
    if len(s) > 5000 or len(s.split()) < 3:
        return False
    return bool(_SECRET_WORD.search(s) and _MAIL_WORD.search(s)) or _DISCLAIMER.search(s) is not None


def is_contact(s: str) -> bool:
    return len(s) <= 300 and _CONTACT.fullmatch(s) is not None


def skip_noise(lines: list[str], i: int) -> int:
    """How many lines from line i on are a caution banner or a disclaimer (0: none starts there):
    the paragraph it opens, up to a blank line or a line that may be an order."""
    s = lines[i].strip()
    banner = is_banner(s)
    if not banner and not is_disclaimer(s):
        return 0
    j = i + 1
    while j < len(lines):
        t = lines[j].strip()
        if not t or order_shaped(t):
            break
        # A banner is one or two sentences: past its end, only more of its own words.
        if banner and lines[j - 1].rstrip().endswith((".", "!", "?")) and not is_banner(t):
            break
        j += 1
    return j - i


def ends_at_list_footer(lines: list[str], i: int, s: str) -> bool:
    """Does a mailing list's footer start at line i (stripped: s)?"""
    if _GROUPS.search(s):
        return True
    if is_rule(s):
        following = [t.strip() for t in lines[i + 1:i + 5] if t.strip()]
        return any(_LIST_FOOTER.search(t) for t in following[:3])
    return False


def without_contact_block(kept: list[str]) -> list[str]:
    """`kept` without a signature block closing it: a last paragraph of at most ten lines with a
    phone number, a link or an address in it and no line that may be an order."""
    while kept and not kept[-1].strip():
        kept = kept[:-1]
    while kept:
        start = len(kept)
        while start > 0 and kept[start - 1].strip():
            start -= 1
        block = [line.strip() for line in kept[start:]]
        if not block or len(block) > 10 or not any(is_contact(s) for s in block) or any(
                order_shaped(s) and not is_contact(s) for s in block):
            return kept
        kept = kept[:start]
        while kept and not kept[-1].strip():
            kept.pop()
    return kept


def no_order_meant(line: str, order_words: Collection[str] = frozenset()) -> bool:
    """Whether `line` (a line of the text that is no command) is clearly no attempt at an order or
    a command, given `order_words` (every word an order line may start with: unit types, order
    keywords, province and power names, lower-cased): a link, a phone number, an address, a rule,
    a banner's or a disclaimer's sentence, long prose, or a line that opens with no order word (nor
    a word in capitals, as commands are written) and has no order's shape. A line that may be a mistyped order gets False: its error is answered."""
    s = line.strip()
    if not s or is_rule(s) or is_contact(s) or is_banner(s) or is_disclaimer(s):
        return True
    if all(not ch.isalnum() for ch in s):
        return True
    words = s.split()
    if order_shaped(s):
        return False
    first = words[0].strip(_STRIP)
    if not first.isalpha() or (first.isupper() and len(first) > 1):
        return False  # '1.', 'A(Par)', a number, a word in capitals ('PREVIEW'): perhaps meant
    first = first.lower()
    if len(words) > 14:
        return True  # long prose: no order is this long
    if first in order_words and first not in _COMMON:
        return False
    if _UNIT.search(s):
        return False  # '... A Par', 'Buid F Bre': a unit named after a misspelt first word
    return not any(word.strip(_STRIP).lower() in _KEYWORDS for word in words[1:])
