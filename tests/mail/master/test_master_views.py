"""What the GM sees that players do not: every power's orders and secret allocations on file, in
the GM's acknowledgement and in LIST, HISTORY and SUMMARY; players see only their own."""
from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker

from desk import MASTER, Desk, address, new_game, password_hash
from gm.games import add_master, create_game
from gm.lifecycle import phases
from gm.store.db import transaction
from gm.store.models import Player, utcnow


def ambition(sf: sessionmaker[Session], powers: list[str]) -> Desk:
    """An Ambition and Empire game (secret DP allocations) with `powers` taken, started."""
    with transaction(sf) as s:
        game = create_game(s, "ae1", "ambition")
        add_master(s, game, MASTER, password_hash("gm-pw"))
        s.add_all(Player(game_id=game.id, power=p, email=address(p), password_hash=password_hash("pw"))
                  for p in powers)
        s.flush()
        phases.start(s, game, utcnow())
    return Desk(sf, "ae1")


def section(ack: str, title: str) -> str:
    """The text of one section of an acknowledgement (the first whose title starts with `title`),
    up to the next title."""
    lines = ack.splitlines()
    start = next(i for i, text in enumerate(lines) if text.startswith(title))
    body = []
    for i, text in enumerate(lines[start + 2:], start + 2):
        if i + 1 < len(lines) and set(lines[i + 1]) == {"-"} and len(lines[i + 1]) == len(text):
            break
        body.append(text)
    return "\n".join(body).strip()


def test_the_gm_sees_every_order_on_file_at_sign_on_and_in_list_history_and_summary(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.player("France", "A Par - Bur\nA Mar - Spa")
    desk.player("Germany", "A Mun - Ruh")
    ack = desk.master("ORDER Italy A Ven H")
    glance = section(ack, "g1 now")
    assert "Orders on file for Spring 1901, Movement:" in glance
    assert "  France:   A PAR - BUR\n            A MAR - SPA" in glance
    assert "  Germany:  A MUN - RUH" in glance and "  Italy:    A VEN H (entered by the GM)" in glance
    assert "  Austria:  (none)" in glance
    listing = desk.master("LIST g1")
    assert "A MUN - RUH" in section(listing, "Game g1") and "A MAR - SPA" in section(listing, "Game g1")
    summary = section(desk.master("SUMMARY"), "Summary of g1")
    assert summary.startswith("Spring 1901, Movement\n  Austria: A BUD, A VIE, F TRI; 3 centres")
    assert "Orders on file for Spring 1901, Movement:" in summary and "A PAR - BUR" in summary
    desk.master("PROCESS")
    desk.player("France", "A Bur - Mun")
    history = section(desk.master("HISTORY"), "History of g1")
    assert "Spring 1901, Movement\n" in history and "  Germany: A MUN - RUH -> succeeds" in history
    assert history.endswith("Orders on file for Fall 1901, Movement:\n" + history.partition(
        "Orders on file for Fall 1901, Movement:\n")[2])
    assert "  France:   A BUR - MUN" in history
    # A player sees the position and the history, and of the orders on file only their own.
    for body in ("LIST g1", "SUMMARY", "HISTORY", ""):
        seen = desk.player("Germany", body)
        assert "A BUR - MUN" not in seen and "Orders on file for" not in seen, body
    assert "A BUR - MUN" in desk.player("France", "")


def test_secret_allocations_are_shown_to_the_gm_and_to_their_own_power_only(
        session_factory: sessionmaker[Session]) -> None:
    desk = ambition(session_factory, ["France", "Spain", "Austria"])
    desk.player("France", "DP 2 A Tus H")
    desk.master("DP Spain 1 F Por H")
    glance = section(desk.master(""), "ae1 now")
    assert "Secret allocations on file (seen by the GM and their own power only):" in glance
    assert "  France:  DP 2 A TUS H" in glance and "  Spain:   DP 1 F POR H (entered by the GM)" in glance
    for body in ("LIST ae1", "SUMMARY", "HISTORY"):
        assert "DP 2 A TUS H" in desk.master(body) and "DP 1 F POR H" in desk.master(body), body
    desk.master("PROCESS")
    history = section(desk.master("HISTORY"), "History of ae1")
    assert "France: DP 2 A TUS H" in history and "Spain: DP 1 F POR H" in history
    for body in ("LIST ae1", "SUMMARY", "HISTORY", ""):
        spain, austria = desk.player("Spain", body), desk.player("Austria", body)
        assert "DP 2 A TUS H" not in spain and "DP 2 A TUS H" not in austria, body
        assert "DP 1 F POR H" not in austria and "Secret allocations" not in spain, body
    assert "DP 1 F POR H" in desk.player("Spain", "HISTORY")  # their own, in the results kept
