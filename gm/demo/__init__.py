"""`gm demo`: a game of any variant played by mail from the first JOIN to its end, as it would be
played for real.

`gm game new` makes the game, `gm serve` runs it on SQLite and its embedded mail servers, and
scripted players, one per great power, play it by mail alone with the variant's special orders,
on deadlines of seconds; a phase ends early once every order is in, or at its deadline when a
player left a unit without orders. The game ends as real games of its variant end: the GM
proposes a draw that the players accept, or (1700AD II) the GM's last year is played. Every mail
the GM took in and sent is then written out as an .eml file, and a summary says what happened.

* driver: the run (the game made, `gm serve` started and stopped, the progress followed);
* players: the scripted players and GM;
* mailbox: a player's sending and reading of mail;
* scripts: each variant's game (its years, its end, the special orders the summary counts);
* report: the .eml files and the summary.
"""
from gm.demo.driver import DEFAULT_VARIANT, run_demo
from gm.demo.scripts import GAME, GM, MASTER, SCRIPTS

__all__ = ["DEFAULT_VARIANT", "GAME", "GM", "MASTER", "SCRIPTS", "run_demo"]
