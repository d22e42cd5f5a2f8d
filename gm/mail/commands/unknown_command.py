"""A line that is no command and reads as a command someone meant ('SET DRAW', 'WHOGAMES',
'RESGN'): answered "unknown command" with the nearest command names, not with an order's error.

Order lines stay orders. A line is taken for a command only when its first word is SET or GET,
or is close to a command's name and is no word an order starts with in any variant: a unit type,
an order keyword, a province's or a power's name or abbreviation (gm.mail.commands.orders then
still tries the line as an order of the signed-on power, and an order it is if it reads as one).
A line of one word that is no such order word and no command ('FROBNICATE') is a command too,
though close to none: no order is one word that names nothing (see `unknown_word`).
"""
from __future__ import annotations

import difflib
from functools import cache

from gm.engine.notation.languages import LANGUAGES, vocabulary
from gm.engine.parse import KEYWORDS, TYPES, _norm
from gm.i18n import _
from gm.variants import REGISTRY, load_variant

CUTOFF = 0.75  # difflib ratio a first word must reach to be taken for a misspelt command
NEAR = 0.6  # difflib ratio a command name must reach to be offered for a line already taken for a command
SUGGESTIONS = 3  # command names offered at most
# Words an order (or allocation) line may start with, besides unit types, keywords and names.
ORDER_WORDS = frozenset({
    "dp", "dps", "ip", "ips", "bid", "bids", "loan", "lend", "convert", "promote", "home", "merge", "embark",
    "board", "disembark", "land", "retreats", "builds", "removes", "disbands", "holds", "army", "fleet", "then",
    "permit", "permits", "waives", "x2",
})


@cache
def order_words() -> frozenset[str]:
    """Every word an order line may start with, in any variant and any language players write
    orders in ('Baue A Mar', 'Construit F Bre')."""
    words = set(ORDER_WORDS) | set(KEYWORDS) | set(TYPES)
    for language in LANGUAGES:
        own = vocabulary(language)
        words.update(own.keywords, own.types)
    for name in REGISTRY:
        variant = load_variant(name)
        for p in variant.map.provinces.values():
            for text in (p.abbr, p.name, *p.aliases):
                words.update(_norm(text).split())
        for pw in variant.powers.values():
            for text in filter(None, (pw.name, pw.adjective, *pw.aliases)):
                words.update(_norm(text).split())
        for local in variant.languages.values():
            for n in (*local.provinces.values(), *local.powers.values()):
                for text in filter(None, (n.name, n.abbr, n.adjective, *n.aliases)):
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
        near = difflib.get_close_matches(shown, alike, n=SUGGESTIONS, cutoff=NEAR)
        if not near and alike:
            return _("unknown command {command}: the {word} commands are {commands} (HELP lists them all)",
                     command=repr(shown), word=one, commands=", ".join(alike))
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
    return _answer(shown, near)


def unknown_word(line: str, names: list[str]) -> str | None:
    """The answer to a line of one word that is no command and no word an order starts with in
    any variant ('FROBNICATE', 'XYZZY'): as an order it could only name an unknown province, which
    tells a player nothing; None for any other line. Prose of one word ('Cheers', a name signing
    the mail) is for the caller to leave unanswered first (gm.mail.intake.reply_text.no_order_meant)."""
    words = line.split()
    if len(words) != 1:
        return None
    word = _first_word(words[0])
    if not word.isalpha() or word.lower() in order_words() or word in names:
        return None
    return _answer(word, difflib.get_close_matches(word, names, n=SUGGESTIONS, cutoff=NEAR))


def _answer(shown: str, near: list[str]) -> str:
    if near:
        return _("unknown command {command}: {did_you_mean} (HELP lists the commands)", command=repr(shown),
                 did_you_mean=did_you_mean(near))
    return _("unknown command {command} (HELP lists the commands)", command=repr(shown))


def did_you_mean(names: list[str]) -> str:
    """'did you mean A or B?', of one to three names."""
    if len(names) == 1:
        return _("did you mean {first}?", first=names[0])
    if len(names) == 2:
        return _("did you mean {first} or {second}?", first=names[0], second=names[1])
    return _("did you mean {first} or {second} or {third}?", first=names[0], second=names[1],
             third=" or ".join(names[2:]))
