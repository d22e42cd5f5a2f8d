"""A line that is no command and reads as a command someone meant ('SET DRAW', 'WHOGAMES',
'RESGN'): answered "unknown command" with the nearest command names, not with an order's error.

Order lines stay orders. A line is taken for a command only when its first word is SET or GET,
or is close to a command's name and is no word an order starts with in any variant: a unit type,
an order keyword, a province's or a power's name or abbreviation (gm.mail.commands.orders then
still tries the line as an order of the signed-on power, and an order it is if it reads as one).
"""
from __future__ import annotations

import difflib
from functools import cache

from gm.engine.parse import KEYWORDS, TYPES, _norm
from gm.variants import REGISTRY, load_variant

CUTOFF = 0.75  # difflib ratio a first word must reach to be taken for a misspelt command
SUGGESTIONS = 3  # command names offered at most
# Words an order (or allocation) line may start with, besides unit types, keywords and names.
ORDER_WORDS = frozenset({
    "dp", "dps", "ip", "ips", "bid", "bids", "loan", "lend", "convert", "promote", "home", "merge", "embark",
    "board", "disembark", "land", "retreats", "builds", "removes", "disbands", "holds", "army", "fleet", "then",
    "permit", "permits", "waives", "x2",
})


@cache
def order_words() -> frozenset[str]:
    """Every word an order line may start with, in any variant."""
    words = set(ORDER_WORDS) | set(KEYWORDS) | set(TYPES)
    for name in REGISTRY:
        variant = load_variant(name)
        for p in variant.map.provinces.values():
            for text in (p.abbr, p.name, *p.aliases):
                words.update(_norm(text).split())
        for pw in variant.powers.values():
            for text in filter(None, (pw.name, pw.adjective, *pw.aliases)):
                words.update(_norm(text).split())
    return frozenset(words)


def _first_word(word: str) -> str:
    return word.strip(".,:;!?()[]\"'").upper()


def unknown_command(line: str, names: list[str]) -> str | None:
    """The answer to `line` when it reads as a command that does not exist ("unknown command
    'SET FOO': ..."), given every command name and alias (`names`) the sender may use; None when
    it is to be read as an order."""
    words = line.split()
    if not words:
        return None
    one = _first_word(words[0])
    two = f"{one} {_first_word(words[1])}" if len(words) > 1 else None
    if one in ("SET", "GET"):
        shown = two or one
        alike = [n for n in names if n.split()[0] == one]
        near = difflib.get_close_matches(shown, alike, n=SUGGESTIONS, cutoff=0.6)
        if not near and alike:
            return f"unknown command {shown!r}: the {one} commands are {', '.join(alike)} (HELP lists them all)"
    else:
        if not one.isalpha() or len(one) < 3 or one.lower() in order_words():
            return None
        near_two = difflib.get_close_matches(two, [n for n in names if " " in n], n=SUGGESTIONS,
                                             cutoff=CUTOFF) if two else []
        near_one = difflib.get_close_matches(one, names, n=SUGGESTIONS, cutoff=CUTOFF)
        if near_two:
            shown, near = two, near_two
        elif near_one:
            shown, near = one, near_one
        else:
            return None
    said = f"unknown command {shown!r}"
    if near:
        said += f": did you mean {' or '.join(near)}?"
    return said + " (HELP lists the commands)"
