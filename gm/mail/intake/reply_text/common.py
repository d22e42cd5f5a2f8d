"""What the reply-text modules share: phrases as patterns, the shape of an order line."""
from __future__ import annotations

import re


def words(*phrases: str) -> str:
    """An alternation of phrases, any run of spaces in one matching any run of spaces."""
    return "|".join(r"\s+".join(re.escape(word) for word in phrase.split()) for phrase in phrases)


# How a player writes an order or a command, as far as the text alone shows it: a unit type and a
# place, a move sign between two words, a short line of capitals opening with a command word.
# Used only to stop dropping a block of noise (a banner, a disclaimer) at a line that may be meant.
_ORDER_SHAPE = re.compile(
    r"(?i:(a|f|army|fleet)\s+[^\W\d_]{2,}.{0,40})|"
    r"\S.{0,40}?\s(-{1,2}>?|[–—→⇒>]|=>)\s*[^\W\d_]{2,}.{0,40}|"
    r"\S.{0,40}?[^\W\d_]-[^\W\d_]{2,}.{0,30}|"
    r"(SIGNON|JOIN|PRESS|BROADCAST|ENDPRESS|WAIT|NOWAIT|CLEAR|SET|GET|LIST|HELP|RESIGN|SIGNOFF|"
    r"CONFIRM|OBSERVE|MAP|SUMMARY|HISTORY|RESULTS|INFO|WHOGAME|CONCEDE|CREATE|PROPOSE|ACCEPT|REJECT)\b.{0,80}")


def order_shaped(s: str) -> bool:
    """Whether the stripped line s may be an order or a command (see _ORDER_SHAPE)."""
    return len(s) <= 120 and _ORDER_SHAPE.fullmatch(s) is not None
