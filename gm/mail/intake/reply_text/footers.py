"""Mobile footers: the line a mail program or a phone adds under what its user wrote ("Sent from
my iPhone", "Get Outlook for Android", "Von Outlook für Android gesendet", "Envoyé de mon iPhone",
"iPhoneから送信", ...). Some programs put the mail replied to right under it, with no attribution
and no quote marks: then everything below the footer is that old mail."""
from __future__ import annotations

import re

_SOMETHING = r"\S.{0,60}"
_FOOTER = re.compile("(" + "|".join((
    rf"sent (from|with|using|via|by|on) {_SOMETHING}", rf"(get|download) outlook for {_SOMETHING}",
    rf"(von|gesendet von) mein(em|er)? {_SOMETHING}",
    rf"gesendet (mit|von|vom|aus|über) {_SOMETHING}",
    r"(von|mit|über) \S.{0,40} (gesendet|versendet|verschickt)",
    r"(\S.{0,30} )?outlook für (ios|android)( herunterladen| beziehen)?",
    rf"envoyé (de|depuis|avec|à partir de|par) {_SOMETHING}",
    rf"(télécharger|obtenir) outlook pour {_SOMETHING}",
    rf"enviad[oa] (desde|con|de|do|da|pelo|com|via|a partir d[eo]) {_SOMETHING}",
    rf"enviat (des de|amb|de|des del) {_SOMETHING}",
    rf"(obtener|descargar|obtén|baixe|obter|obtenha|transfira)( o)? outlook para {_SOMETHING}",
    rf"inviato (da|dal|dall'|dalla|con|tramite) {_SOMETHING}",
    rf"(scarica|ottieni) outlook per {_SOMETHING}",
    rf"(verzonden|verstuurd) (vanaf|met|van|via) {_SOMETHING}",
    rf"(download )?outlook voor {_SOMETHING}",
    rf"sendt (fra|med|via) {_SOMETHING}", rf"(hent|få) outlook (til|for) {_SOMETHING}",
    rf"skickat (från|med|via) {_SOMETHING}", rf"(skaffa|hämta) outlook för {_SOMETHING}",
    rf"lähetetty {_SOMETHING}", rf"hanki outlook {_SOMETHING}",
    rf"(wysłane|wysłano|wysłana) (z|ze|przy użyciu|za pomocą|przez) {_SOMETHING}",
    rf"pobierz (aplikację )?outlook {_SOMETHING}",
    rf"(odesláno|odoslané) (z|ze|pomocí|přes|zo) {_SOMETHING}",
    rf"(stáhněte si|získejte|stiahnite si) outlook {_SOMETHING}",
    rf"(отправлено|надіслано|изпратено) (с|со|из|через|з|від|от) {_SOMETHING}",
    rf"(загрузите|скачайте|получите|завантажте|отримайте) outlook {_SOMETHING}",
    rf"trimis (de pe|de|din|cu) {_SOMETHING}", rf"(poslano|poslato|poslané) (s|sa|z|iz|od|sa) {_SOMETHING}",
    rf"{_SOMETHING} küldve", rf"{_SOMETHING} gönderildi", r"\S.{0,30} outlook'u (edinin|indirin)",
    rf"(στάλθηκε|εστάλη|απεστάλη) (από|με) {_SOMETHING}",
    rf"(gửi từ|dikirim dari|dihantar dari|dikirim dengan) {_SOMETHING}",
    r"(ส่งจาก|נשלח מ|נשלח באמצעות|أرسلت من|أُرسلت من|ارسلت من|مرسل من)\s?.{1,40}",
    r".{1,40}から送信(しました)?", r".{1,40}を入手", r"(发自|發自|来自|來自|寄自).{1,40}",
    r"(从|從)我的.{1,40}(发送|傳送|寄出)", r"(获取|獲取|取得)\s?outlook.{0,30}",
    r".{1,40}에서 (보냄|보낸 메일)", r".{1,30}outlook\s?받기",
)) + r")\.?(\s*<https?://[^<>\s]*>)?", re.I)  # Outlook's: 'Get Outlook for iOS<https://...>'
# What a footer names when a phone or a mail program wrote it (and not a player: "Sent by
# convoy"): a device, a program, 'my'.
_DEVICE = re.compile(
    r"iphon|ipad|android|galax|samsung|outlook|yahoo|mail|gmail|mobile|phone|smartphone|"
    r"handy|huawei|xiaomi|honor|oneplus|pixel|nokia|motorola|blackberry|tablet|windows|aol|"
    r"proton|tuta|spark|airmail|bluemail|telefon|телефон|móvil|movil|cellulare|celular|mobil|"
    r"mobiel|[\u3040-\u30ff\u4e00-\u9fff\uac00-\ud7af\u0590-\u06ff\u0e00-\u0e7f]|"
    r"(?<!\w)(my|mein|meinem|meiner|mon|ma|mi|mio|mia|mijn|min|mitt|meu|minha|moje|mého|mojego|"
    r"мой|моего|мого|μου|benim|mé|saya|của tôi)(?!\w)", re.I)


def footer(s: str) -> int:
    """0: the stripped line s is no footer; 1: it is one (dropped); 2: it is one a phone or a mail
    program wrote, under which a program may put the mail replied to (the text ends there)."""
    if len(s) > 200 or ": " in s or not _FOOTER.fullmatch(s):
        return 0
    return 2 if _DEVICE.search(s) else 1
