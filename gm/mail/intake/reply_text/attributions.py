"""Attributions: the line above a quote that names who wrote it, "On <date>, <someone> wrote:",
in many languages and word orders, wrapped onto two or three lines by some programs ("On Fri, ...
Name <" / "name@example.org> wrote:", "Den fre 27 nov. 2026 kl. 13:09 skrev Name" / "<address>:").
"""
from __future__ import annotations

import re

from gm.mail.intake.reply_text.quotes import is_quoted

# Attributions: "On <date>, <someone> wrote:" in many languages and word orders. The verb...
_WROTE = re.compile(
    r"(?<!\w)(wrote|writes|schrieb|schreibt|geschrieben|a\s+écrit|écrit|schreef|geschreven|"
    r"escribió|escribio|ha\s+scritto|scrive|escreveu|skrev|skriver|kirjoitti|napisał\(a\)|"
    r"napisała?|napisana|pisze|napsal\(a\)|napsala?|написал\(а\)|написала?|пишет|пише|написав|"
    r"írta|yazdı|έγραψε|quoting|zitat\s+von)(?!\w)|写道|寫道|작성|쓴\s*글|のメール|が書きました", re.I)
# ... and what makes a line with that verb an attribution for certain: the mail address of the
# one quoted, or a date with a time (or with the word an attribution opens with).
_ATTR_ADDRESS = re.compile(r"[\w.+'-]+@[\w-]+(\.[\w-]+)+")
_ATTR_DATE = re.compile(
    r"\d{1,4}\s?[./-]\s?\d{1,2}\s?[./-]\s?\d{1,4}|"  # 04/03/2024, 2024-03-04, 4. 3. 2024
    r"\d{4}\s?[年년]|"  # 2024年3月4日, 2024년 3월 4일
    r"\d{1,2}(st|nd|rd|th|\.)?\s+(de\s+)?[^\W\d_]{3,}\.?,?\s+(de\s+)?\d{4}|"  # 4 Mar 2024
    r"[^\W\d_]{3,}\.?\s+\d{1,2}(st|nd|rd|th)?,?\s+\d{4}|"  # March 4, 2024
    r"\d{4}\.\s+[^\W\d_]{3,}\.?\s+\d{1,2}")  # 2024. márc. 4
_ATTR_TIME = re.compile(r"(?<![\d.:])\d{1,2}[:.h]\d{2}(?![\d.])")
_CLOCK = re.compile(r"(?<!\d)\d{1,2}:\d{2}(?!\d)")
_OPENER = re.compile(r"(on|am|le|op|el|il|em|den|på|w dniu|dnia|dne|at|в|在)\s", re.I)
# Gmail's old Chinese and Japanese form, with neither verb nor colon: "2013/7/20 Name <addr>".
_ATTR_CJK = re.compile(r"\d{4}/\d{1,2}/\d{1,2}\s.{1,100}<[^<>\s]+@[^<>\s]+>\s*[:：]?")


def strength(s: str) -> int:
    """2: s is an attribution ("On <date>, <someone> wrote:") for certain; 1: it may be one (the
    verb and a colon, as in "England wrote:"); 0: it is none."""
    if len(s) > 400:
        return 0
    if s.startswith("--") and s.endswith("--"):  # Zoho: "---- On <date> <someone> wrote ----"
        s = s.strip("- ") + ":"
    if not s.endswith((":", "：")):
        return 2 if _ATTR_CJK.fullmatch(s) else 0
    address, date = _ATTR_ADDRESS.search(s), _ATTR_DATE.search(s)
    if _WROTE.search(s):
        if address or (date and (_ATTR_TIME.search(s) or _OPENER.match(s))):
            return 2
        return 1
    # no verb at all (Russian and Japanese Gmail, Yandex): "4 мар. 2024 г. в 10:00, Name <addr>:"
    return 2 if address and date and _CLOCK.search(s) else 0


_CLOSING = re.compile(r"\s*>\)?\s*(\S+\s*)?[:：]\s*")
_ENDS = (":", "：", "-", ">")  # how the last line of an attribution ends


def attribution(lines: list[str], i: int) -> tuple[int, int]:
    """How many lines (1 to 3: clients wrap it) an attribution starting at line i takes, and how
    certain it is (see _attribution_strength); (0, 0) when none starts there."""
    first = lines[i].strip()
    if len(first) > 400:  # longer than any attribution (and the searches below are not linear)
        return 0, 0
    if first.endswith(_ENDS) and (sure := strength(first)):
        return 1, sure
    following = lines[i + 1:i + 3]
    if not any(line.rstrip().endswith(_ENDS) for line in following):
        return 0, 0
    # A line wraps onto the next only in the middle of an attribution: its first line has a
    # date, a time, an address or the word it opens with (a line of orders above has none).
    if not (_ATTR_ADDRESS.search(first) or _ATTR_DATE.search(first) or first.endswith("<")
            or _ATTR_TIME.search(first) or _OPENER.match(first)):
        return 0, 0
    joined = first
    for n, line in enumerate(following, 1):
        # '>:' closes an address wrapped onto its own line: no quote mark
        if not line.strip() or (is_quoted(line) and not _CLOSING.fullmatch(line)):
            return 0, 0
        joined += " " + line.strip()
        if joined.endswith(_ENDS) and (sure := strength(joined)):
            return n + 1, sure
    return 0, 0

