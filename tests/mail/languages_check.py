"""Whether a text is written in a language: the words only English uses, which a French, German
or Italian mail must not hold outside names and orders, and words every text of each language
has."""
from __future__ import annotations

import re

# Words of English sentences that are no word of French, German or Italian ('will', 'was', 'die',
# 'in', 'a', 'on' are: left out). Names (powers, provinces, games) and orders hold none of them.
ENGLISH_ONLY = frozenset("""
the your you and is are with this that for not has have what when which there been from each every
must should would they their them its our until orders deadline results players succeeds
fails bounced dislodged spring autumn movement adjustments retreats units unit owes still
""".split())
# Words some sentence of every mail in the language has.
OWN = {
    "fr": frozenset("le la les des de du vous votre vos est sont un une pour et".split()),
    "de": frozenset("der die das den dem des und ist sind ein eine für ihre sie zu".split()),
    "it": frozenset("il lo la le gli di del della che sono per e un una vostri tuoi".split()),
    "en": frozenset("the your you and is are of to".split()),
}
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_ORDER_LINE = re.compile(r"^\s*(?:\w+:\s*)?[AF] [A-Z]{3}", re.UNICODE)
_HEADING = re.compile(r"^=== gm \w+ ===$")  # the judge's headings, the same in every language
_NAMES = re.compile(r"\S+@\S+|https?://\S+|<[^>]*>")  # addresses, links: names, not sentences


def english_lines(text: str) -> list[str]:
    """The lines of `text` with a word only English has."""
    found = []
    for line in text.splitlines():
        if _ORDER_LINE.match(line) or _HEADING.match(line):
            continue
        # words in capitals are abbreviations, order and command words (AND is Andalusia)
        words = {w.casefold() for w in _WORD.findall(_NAMES.sub(" ", line)) if not (w.isupper() and len(w) > 1)}
        if words & ENGLISH_ONLY:
            found.append(line)
    return found


def written_in(text: str, language: str) -> bool:
    return bool({w.casefold() for w in _WORD.findall(text)} & OWN[language])
