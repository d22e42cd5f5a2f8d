"""Each variant's demonstration game: how long it runs, how it ends, and which of its special
orders the summary counts.

A game ends as real games of its variant end:

* `draw`: once the years are played, the GM pauses the game and proposes a draw between every
  power still in it (`PAUSE`, `DRAW power,...`); each player answers `ACCEPT DRAW`, and the last
  vote ends the game, every player told with the final position.
* `last_year`: 1700AD II's rule 11: the GM ends the game in 1713 (Utrecht) or 1721 (Nystad) with
  `SET OPTION last_year`, sent with the welcome; the results of that year are the game's last,
  naming the power with the most centres beyond its home centres. A demonstration shorter than
  the 14 years from 1700 to 1713 starts later: the GM moves the first year on (`SET PHASE`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

GAME = "demo"
GM = "gm@judge.example"
MASTER = "master@judge.example"  # the GM: a copy of every results mail with every allocation; a welcome
PLAYERS_DOMAIN = "players.example"


@dataclass(frozen=True)
class Script:
    variant: str  # a name in gm.variants.REGISTRY
    years: int  # game years played by default
    ending: Literal["draw", "last_year"]
    # What the summary counts among the orders the GM accepted: (words, pattern of the line as
    # the player wrote it, a Python regular expression matched from its start; LEADERS, the names
    # of the variant's leaders).
    special: tuple[tuple[str, str], ...]
    about: str  # one line for the newcomer: what to look for in this game's mail


LEADERS = "{leaders}"  # in a pattern: the names of the variant's leaders (Rules.unit_names), as players write them


SCRIPTS: dict[str, Script] = {s.variant: s for s in (
    Script("standard", 3, "draw",
           (("supports", r"[AF] \S+ S "), ("convoys", r"F \S+ C ")),
           "the classic game: seven powers, supports and convoys"),
    Script("classical", 3, "draw",
           (("supports", r"[AF] \S+ S "), ("convoys", r"F \S+ C ")),
           "the Mediterranean of 273 BC: five powers"),
    Script("ambition", 3, "draw",
           (("secret DP allocations", r"DP "),),
           "minor powers moved by the great powers' secret Diplomacy Points"),
    Script("ambition-v6", 3, "draw",
           (("secret DP allocations", r"DP "),),
           "the version 6 rules: secret Diplomacy Points, minor powers' own moves"),
    Script("napoleonic", 2, "draw",
           (("secret IP bids", r"IP "), ("loans of Supply Points", r"LOAN "),
            ("Supply Points converted", r"CONVERT "), ("fleets' second moves", r"F \S+ (- \S+ - |.* THEN )"),
            ("moves merging multiple units", r".* MERGE$"), ("parts split off multiple units", r"\d[AF] ")),
           "winter bids of Influence Points, Supply Points, fleets' second moves, multiple units"),
    Script("youngstown", 3, "draw",
           (("supports", r"[AF] \S+ S "), ("convoys", r"F \S+ C ")),
           "imported from DPjudge's map: ten powers from Ireland to Japan, standard rules"),
    Script("1700ad", 14, "last_year",
           (("double-strength orders", r".*\(x[23]\)"), ("second steps", r".* THEN "),
            ("leaders' orders", LEADERS), ("PERMITs", r"(PERMIT|REVOKE) ")),
           "yearly turns of two impulses, double strength, leaders, PERMIT, the GM's end in 1713"),
)}
