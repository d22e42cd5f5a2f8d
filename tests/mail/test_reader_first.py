"""A whole game's mail read as its player reads it on a phone, for every variant: a game played by
mail (random legal orders, the variant's special orders among them) and ended in a draw; then
each mail the player got (the start, the results of each kind of phase, the end) is read from its
first line. What the player must act on comes first: the deadline and their own part within the
first screen (25 lines); every line of plain text fits 78 characters (a line may be longer only
where one order is); the start mail names each order the variant adds for the player; the end
of a draw carries the map of the final position."""
from __future__ import annotations

import base64
import re
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from gm.mail.outgoing.mail_maps import draw_attachments
from gm.store.db import make_engine, make_session_factory, transaction
from gm.variants import load_variant
from gm.view.results import special_orders
from tests.mail.reader_game import MASTER, Mail, Played, address, play

SCREEN = 25  # lines of a phone's first screen
WIDTH = 78  # where a mail program wraps plain text
# variant -> (the power read as, phases played before the draw): a year and a bit, every kind of
# phase the variant has (1700AD II: a year is one turn)
GAMES = {
    "standard": ("France", 5),
    "classical": ("Rome", 5),
    "ambition": ("France", 5),
    "ambition-v6": ("France", 5),
    "napoleonic": ("France", 5),
    "1700ad": ("French", 2),
}


@dataclass
class Game:
    played: Played
    power: str
    factory: sessionmaker[Session]

    def mails(self, kind: str, to: str | None = None) -> list[Mail]:
        return [m for m in self.played.mail[to or address(self.power)] if m.kind == kind]


@pytest.fixture(scope="module", params=list(GAMES))
def game(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, _migrated_sqlite: Path) -> Game:
    variant = request.param
    power, phases = GAMES[variant]
    path = tmp_path_factory.mktemp(f"reader-{variant}") / "gm.sqlite3"
    shutil.copyfile(_migrated_sqlite, path)
    factory = make_session_factory(make_engine(f"sqlite:///{path}"))
    return Game(play(factory, variant, phase_count=phases), power, factory)


def first_screen(mail: Mail) -> list[str]:
    return mail.text.splitlines()[:SCREEN]


def index(lines: list[str], pattern: str) -> int | None:
    return next((i for i, line in enumerate(lines) if re.search(pattern, line)), None)


def too_wide(game: Game, mail: Mail) -> list[str]:
    """The lines wider than WIDTH that are no one order too long to fit (with the columns before it)."""
    return [line for line in mail.text.splitlines() if len(line) > WIDTH
            and not any(order in line and len(line.rstrip()) <= len(order) + 24 for order in game.played.orders)]


def test_the_start_mail_opens_with_the_readers_power_deadline_and_special_orders(game: Game) -> None:
    variant = load_variant(game.played.variant)
    (start,) = game.mails("start")
    screen = first_screen(start)
    assert f"You play {game.power}." in screen[:3]
    deadline = index(screen, r"^The first phase is .*;$")
    assert deadline is not None and screen[deadline + 1].startswith("its deadline is ")
    for own in (rf"^Due from {game.power}: ", r"^  Units: ", r"^  Home centres: "):
        assert index(screen, own) is not None, (own, start.text)
    # each order the variant adds for this power, with its syntax, and the points it has to spend
    state = variant.initial_state()
    for order in special_orders(variant, game.power):
        assert order.syntax in start.text
        if order.points and state.phase.kind in order.phases:
            points = variant.rules.points_available(variant, state, game.power)
            assert f"You have {points} {order.points}s to spend" in " ".join(start.text.split())
    assert f"\n  SIGNON {game.power} g1 <password>\n" in start.text
    assert not too_wide(game, start)
    # the HTML in the same order: the reader's own before the map, which fits a phone
    assert start.html is not None
    assert start.html.index("You play") < start.html.index("Due from") < start.html.index("<img")
    assert 'style="max-width: 100%; height: auto;"' in start.html


def test_each_results_mail_leads_with_the_deadline_and_the_readers_own_results(game: Game) -> None:
    results = game.mails("results")
    kinds = {label.partition(", ")[2] or "Year" for m in results for label in re.findall(
        r"^((?:Spring|Fall|Autumn|Winter|Summer|Year) [^\n]*)\n=+$", m.text, re.MULTILINE)}
    assert "Movement" in kinds or "Year" in kinds
    if game.played.variant != "1700ad":  # its builds are ordered with the year's moves
        assert "Adjustment" in kinds
    if game.played.variant == "napoleonic":
        assert "Bidding" in kinds
    own_seen = 0
    for mail in results:
        screen = first_screen(mail)
        text = mail.text
        next_at = index(screen, r"^Next: .*, deadline$|^The game is over")
        assert next_at is not None and next_at < 6, text
        if screen[next_at].startswith("Next: "):
            assert screen[next_at + 1].startswith("  ") and screen[next_at + 1].endswith(")")
            assert index(screen, rf"^Due from {game.power}: ") is not None, text
        # the reader's own results first, whenever the phases had any: before the board and every order
        own = index(text.splitlines(), r"^Your results in ")
        if re.search(rf"^{re.escape(game.power)}:$", text, re.MULTILINE) or "Your secret orders" in text:
            assert own is not None and own < SCREEN, text
            own_seen += 1
        if own is not None:
            board = text.index("\n=")
            assert text.index("Your results in ") < board
            if "\nOrders" in text:
                assert board < text.index("\nOrders")
        if "Held without orders" in text and "\nOrders" in text:
            assert text.index("Held without orders") < text.index("\nOrders")
        assert not too_wide(game, mail), too_wide(game, mail)
        # the HTML in the same order: the deadline before the maps, which fit a phone, and no order broken
        assert mail.html is not None
        assert mail.html.index("Next:" if "Next:" in mail.html else "The game is over") < mail.html.index("<img")
        assert mail.html.count("<img") == mail.html.count('style="max-width: 100%; height: auto;"')
        assert "white-space: nowrap" in mail.html
    assert own_seen


def test_the_gms_copy_leads_with_the_deadline_and_what_needs_attention(game: Game) -> None:
    for mail in game.mails("results", to=MASTER):
        screen = first_screen(mail)
        at = index(screen, r"^Next: .*, deadline$|^The game is over")
        assert at is not None and at < 6
        assert index(screen, r"^Needs your attention:$|^Nothing needs your attention") is not None
        assert not too_wide(game, mail)


def test_the_end_of_a_draw_has_the_final_position_and_its_map(game: Game) -> None:
    (end,) = [m for m in game.played.mail[address(game.power)] if "The game is drawn" in m.subject]
    screen = first_screen(end)
    assert index(screen, r"the game is over,") is not None
    assert index(screen, rf"^  {re.escape(game.power)} +\d+ centres?,") is not None, end.text  # the reader's own
    assert not too_wide(game, end), too_wide(game, end)
    assert "Supply centres, year by year:" in end.text and "The map of the final position is attached." in end.text
    (picture,) = end.attachments
    assert picture["content_type"] == "image/png" and picture["map"]["kind"] == "final"
    with transaction(game.factory) as s:
        (drawn,) = draw_attachments(s, end.attachments) or []
    assert base64.b64decode(drawn["data"]).startswith(b"\x89PNG\r\n\x1a\n")
