"""What the sender of a reply newly wrote, out of the text of its body: pure, and never raising.

A mail program puts much under (or around) what its user types. Each kind has its module:
  quotes         lines quoted with '>' or '|' (or the initials of the one quoted: 'JS>')
  attributions   "On <date>, <someone> wrote:" above a quote, in many languages, wrapped or not
  header_blocks  Outlook's "From: / Sent: / To: / Subject:" block in every language, Lotus Notes'
  separators     "-----Original Message-----", forwarded-message lines, rules, decorated or not
  footers        "Sent from my iPhone", "Get Outlook for Android", in every language
  noise          caution banners, disclaimers, mailing-list footers, contact signature blocks,
                 and which lines left are clearly no order (`no_order_meant`)
"""
from __future__ import annotations

import re

from gm.mail.intake.mime import MAX_TEXT
from gm.mail.intake.reply_text.attributions import attribution
from gm.mail.intake.reply_text.footers import footer
from gm.mail.intake.reply_text.header_blocks import header_block
from gm.mail.intake.reply_text.noise import ends_at_list_footer, no_order_meant, skip_noise, without_contact_block
from gm.mail.intake.reply_text.quotes import is_quoted
from gm.mail.intake.reply_text.separators import is_rule, is_separator

__all__ = ["new_text", "no_order_meant"]

# Any heading of the judge's mail ('=== gm acknowledgement ===', ...): a pasted one ends a text.
_ACK = re.compile(r"===\s*gm\s+(?:acknowledgement|results|notice|press)\s*===", re.I)


def _ends_text(lines: list[str], i: int, s: str) -> bool:
    """Does everything from line i (stripped: s) on belong to someone else, or to a signature?"""
    if lines[i].rstrip() == "--" or _ACK.search(s):
        return True
    if is_separator(s) or header_block(lines, i) or ends_at_list_footer(lines, i, s):
        return True
    if is_rule(s):  # a bare rule ends the text above a header block or an attribution
        following = [j for j in range(i + 1, min(i + 4, len(lines))) if lines[j].strip()]
        return bool(following) and (header_block(lines, following[0])
                                    or attribution(lines, following[0])[1] == 2
                                    or _ACK.search(lines[following[0]]) is not None)
    return False


def new_text(text: str) -> str:
    """What the sender wrote: quoted lines, attributions, mobile footers, rules, banners,
    disclaimers and a closing block of contact lines dropped; the text cut at a signature, a header block, a
    separator, a forwarded message, a mailing list's footer, a pasted acknowledgement, a phone's
    footer with more below it, or an attribution above unquoted text; lines right-stripped, runs
    of blank lines made one, no blank lines at either end.

    An attribution followed by quoted lines ('>' or '|') heads a quote the sender may have written
    between or below (an inline reply, a bottom post): only the quoted lines go. Followed by
    lines that are not quoted, it heads an unmarked quote (Yahoo, Zoho, Outlook, old clients):
    everything from it on goes, unless it is only perhaps an attribution ("England wrote:"), which
    is then the sender's text."""
    lines = text[:MAX_TEXT].split("\n")
    kept: list[str] = []
    i = 0
    while i < len(lines):
        line = lines[i]
        s = line.strip()
        if not s:
            if kept and kept[-1]:
                kept.append("")
            i += 1
            continue
        if is_quoted(line):
            i += 1
            continue
        if _ends_text(lines, i, s):
            break
        taken, strength = attribution(lines, i)
        if taken:
            after = next((j for j in range(i + taken, len(lines)) if lines[j].strip()), None)
            if after is not None and is_quoted(lines[after]):
                i += taken
                continue
            if strength == 2:
                break
        kind = footer(s)
        if kind == 2 and (i + 1 == len(lines) or not lines[i + 1].strip()):
            break  # a phone's or a program's footer, set apart: below it is the mail replied to
        skipped = 1 if kind or is_rule(s) else skip_noise(lines, i)
        if skipped:
            i += skipped
            continue
        kept.append(line.rstrip())
        i += 1
    kept = without_contact_block(kept)
    while kept and not kept[-1]:
        kept.pop()
    return "\n".join(kept)
