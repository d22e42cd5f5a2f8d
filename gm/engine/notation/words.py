"""The words of the order language every variant shares: unit types, order words, tokens."""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from gm.engine.model import PhaseKind, UnitType
from gm.i18n import Text, _

TYPES = {"a": UnitType.ARMY, "army": UnitType.ARMY, "f": UnitType.FLEET, "fleet": UnitType.FLEET}
HOLD = frozenset({"h", "hold", "holds", "stand", "stands"})
MOVE = frozenset({"-", "to", "m", "mv", "move", "moves", "moving"})
SUPPORT = frozenset({"s", "sup", "supp", "support", "supports", "supporting"})
CONVOY = frozenset({"c", "convoy", "convoys", "convoying"})
VIA = frozenset({"via", "by"})
VIA_CONVOY = frozenset({"c", "convoy", "conv"})
RETREAT = frozenset({"r", "retreat", "retreats"})
DISBAND = frozenset({"d", "disband", "disbands"})
REMOVE = frozenset({"remove", "removes"})
BUILD = frozenset({"b", "build", "builds"})
WAIVE = frozenset({"w", "waive", "waives"})
# Multiple units (Multiplicity, the A/F rules): merging, boarding a fleet, landing from one.
MERGE = frozenset({"merge", "merges", "merging"})
EMBARK = frozenset({"e", "embark", "embarks", "embarking", "board", "boards"})
LAND_FROM_SEA = frozenset({"disembark", "disembarks", "land", "lands"})
INTO = frozenset({"to", "into", "in", "with", "onto", "on"})
# '2A', 'A/F', 'A/2F', '3f': a unit of several armies and fleets.
KIND = re.compile(r"(\d{0,2})([af])")
TO, OPEN, CLOSE = frozenset({"to"}), frozenset({"("}), frozenset({")"})
KEYWORDS = HOLD | MOVE | SUPPORT | CONVOY | VIA | RETREAT | DISBAND | REMOVE | BUILD | WAIVE
# Long keywords a misspelt word may be suggested as.
SUGGEST = sorted(k for k in KEYWORDS | set(TYPES) if len(k) >= 4)
DIRECTION_NAMES = {"N": "north", "S": "south", "E": "east", "W": "west"}
DIRECTIONS = {w: d for d, name in DIRECTION_NAMES.items() for w in (name, name[0])}  # 'n' -> 'N'
FUZZY_CUTOFF = 0.8  # difflib ratio a misspelling must reach
FUZZY_TIE = 0.04  # candidates this close to the best are all taken as meant

# Why each kind of order is refused in a phase that does not take it.
WRONG_PHASE = {"hold": _("hold orders are only accepted in a movement phase"),
               "support": _("support orders are only accepted in a movement phase"),
               "convoy": _("convoy orders are only accepted in a movement phase"),
               "move": _("move orders are only accepted in a movement or retreat phase"),
               "retreat": _("retreat orders are only accepted in a retreat phase"),
               "disband": _("disband orders are only accepted in a retreat or adjustment phase"),
               "remove": _("remove orders are only accepted in a retreat or adjustment phase"),
               "build": _("build orders are only accepted in an adjustment phase"),
               "waive": _("waive orders are only accepted in an adjustment phase")}
ACCEPTS = {PhaseKind.MOVEMENT: {"hold", "move", "support", "convoy"},
           PhaseKind.RETREAT: {"move", "retreat", "disband", "remove"},
           PhaseKind.SECOND_RETREAT: {"move", "retreat", "disband", "remove"},
           PhaseKind.ADJUSTMENT: {"build", "waive", "disband", "remove"},
           PhaseKind.BIDDING: set()}


@dataclass(frozen=True, slots=True)
class Tok:
    text: str  # as written
    key: str  # folded: lower case; any run of dashes and arrows is '-'

    @property
    def is_word(self) -> bool:
        return self.key[0].isalnum()


_ARROWS = str.maketrans({c: "-" for c in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212\u2192\u21d2>="})
_TOKEN = re.compile(r"[^\W_]+|-+|[/()]")


def tokens(text: str) -> list[Tok]:
    text = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    text = re.sub(r"['\u2019`]", "", text.translate(_ARROWS))
    return [Tok(m[0], "-" if m[0][0] == "-" else m[0].casefold()) for m in _TOKEN.finditer(text)]


def norm(text: str) -> str:
    """A name as a lookup key: 'Mid-Atlantic Ocean' -> 'mid atlantic ocean'."""
    return " ".join(t.key for t in tokens(text) if t.is_word)


def render(toks: list[Tok]) -> str:
    text = " ".join(t.text for t in toks)
    return re.sub(r"\s*/\s*", "/", re.sub(r"\(\s+", "(", re.sub(r"\s+\)", ")", text)))


def one_of(names: list[str]) -> str:
    """'Paris', 'Paris or Picardy', 'Paris, Picardy or Piedmont' (a Text: 'or' in the reader's words)."""
    names = sorted(names)
    if len(names) == 1:
        return names[0]
    others = names[:-1]  # a list with a Text in it ('Spain (north coast)') is joined in the reader's words
    listed = others if any(isinstance(n, Text) for n in others) else ", ".join(others)
    # TRANSLATORS: the last of places one of which is meant; {names}, the others: 'Paris, Picardy' or 'Paris or Picardy'
    return _("{names} or {name}", names=listed, name=names[-1])


# '<order> THEN <order>': a unit's orders one after the other (a fleet's two moves, a turn's steps).
THEN = re.compile(r"\s+THEN\s+", re.IGNORECASE)
