"""A game's press as its readers are told it, below every channel: which press the game has
(games.options["press"], set by SET PRESS: gm.mail.outgoing.press), and how a reader is told it."""
from __future__ import annotations

from gm.i18n import _
from gm.store.models import Game

OPTION = "press"
KINDS = ("white", "grey", "none")
DEFAULT = "white"


def press_kind(game: Game) -> str:
    """The game's press: 'white', 'grey' or 'none'."""
    kind = (game.options or {}).get(OPTION, DEFAULT)
    return kind if kind in KINDS else DEFAULT


def describe(kind: str) -> str:
    """The press kind as the players are told it (a Text)."""
    if kind == "white":
        return _("white: press is signed with the sender's power")
    if kind == "grey":
        return _("grey: press may be sent unsigned (PRESS TO <power> GREY, BROADCAST GREY) or signed")
    if kind == "none":
        return _("none: players send no press (the GM still may)")
    raise KeyError(kind)
