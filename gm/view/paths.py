"""Where each page of the games' web pages lives in their folder (and under the public address):
one place, below both channels, read by the page writer and by the results mail that links to a
phase's page."""
from __future__ import annotations

import re

INDEX = "index.html"  # the index of games, at the top of the folder
GAMES = "games"  # a folder per game under it
COLOURBLIND = ".colourblind"  # the same page with colour-blind-safe maps: 'spring-1901-movement.colourblind.html'


def slug(label: str) -> str:
    """'Spring 1901, Movement' -> 'spring-1901-movement': a phase's page name."""
    return re.sub(r"[^a-z0-9]+", "-", label.lower()).strip("-") or "phase"


def game_folder(game: str) -> str:
    """The game's folder, relative to the top: game names are ASCII letters, digits, '-' and '_'."""
    return f"{GAMES}/{game.lower()}"


def phase_page(label: str, *, colourblind: bool = False) -> str:
    """A phase's page, relative to its game's folder."""
    return f"{slug(label)}{COLOURBLIND if colourblind else ''}.html"


def game_page(*, colourblind: bool = False) -> str:
    """The game's own page (newest phase first), relative to its folder."""
    return f"index{COLOURBLIND if colourblind else ''}.html"


def phase_url(base: str, game: str, label: str) -> str:
    """The public address of a phase's page, under `base` (GM_PUBLIC_URL)."""
    return f"{base.rstrip('/')}/{game_folder(game)}/{phase_page(label)}"
