"""IMPORT by mail: a GM signed on to a forming game of theirs moves a game in from another judge
(the old judge's text after the line, pasted or forwarded). IMPORT shows what was read and makes
nothing; IMPORT YES makes the game, paused, and mails each player a code; a player confirms with it
and chooses a password in the same mail, gets the position, its map and the deadline, and orders;
the GM's RESUME starts the clock. A text that cannot move in makes nothing at all."""
from __future__ import annotations

from pathlib import Path

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from desk import JUDGE, MASTER, STANDARD, Desk, address, confirmation_code, new_game

from gm.store.db import transaction
from gm.store.models import Confirmation, GamePhase, InboundMail, OutboundMail, Player
from gm.store.passwords import check_password

TEXTS = Path(__file__).resolve().parents[2] / "lifecycle" / "moving_in" / "texts"


def status_text() -> str:
    """The DPjudge status file of the tests beside the readers, its players at the desk's addresses."""
    return (TEXTS / "dpjudge-standard-status.txt").read_text(encoding="utf-8").replace("@players.test",
                                                                                       "@players.example")


def counts(desk: Desk) -> tuple[int, int, int]:
    """(phases, players, confirmations) of every game: what an import would have made."""
    with transaction(desk.sf) as s:
        return tuple(s.scalar(select(func.count()).select_from(t)) or 0  # type: ignore[return-value]
                     for t in (GamePhase, Player, Confirmation))


def moved_in(session_factory: sessionmaker[Session]) -> Desk:
    desk = new_game(session_factory, powers=[], start=False)
    ack = desk.master(f"IMPORT YES\n{status_text()}")
    assert "accepted  IMPORT YES" in ack, ack
    return desk


def test_import_shows_what_it_read_and_makes_nothing(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, powers=[], start=False)
    out = desk.send(MASTER, f"SIGNON MASTER g1 gm-pw\nIMPORT\n{status_text()}")
    ack = desk.ack(out, MASTER)
    assert "accepted  IMPORT" in ack and "nothing is made yet: send this mail again with IMPORT YES" in ack
    assert "DPjudge status file of oldgame: Diplomacy (standard map), Fall 1901, Movement" in ack
    assert "Russia: F BOT, F RUM, A UKR, A WAR" in ack and "Player France: france@players.example" in ack
    assert "lines 9, 17, 24: PASSWORD: a password of the old judge: never used nor kept" in ack
    with transaction(desk.sf) as s:
        (reply,) = s.scalars(select(OutboundMail).where(OutboundMail.inbound_id == out.inbound_id)).all()
        assert [a["filename"] for a in reply.attachments or []] == ["g1-read.png"]  # the map of what was read
        raw = s.get(InboundMail, out.inbound_id).raw  # type: ignore[union-attr]
    assert b"gmsecret" not in raw and b"pw1" not in raw  # the old judge's passwords are not kept
    assert counts(desk) == (0, 0, 0)
    assert desk.mails(kind="confirm") == []


def test_import_yes_makes_the_game_paused_and_mails_each_player_a_code(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, powers=[], start=False)
    ack = desk.master(f"IMPORT YES\n{status_text()}")
    assert "g1 is under way in Fall 1901, Movement, paused: 7 players (Austria, England, France, Germany, Italy, " \
           "Russia, Turkey) were mailed a code" in ack
    assert "RESUME starts the clock once you are ready" in ack
    with transaction(desk.sf) as s:
        game = desk.row(s)
        assert game.status == "active" and game.paused_at is not None
        assert game.deadline_at is not None and game.deadline_at.year == 2030  # the old judge's, still ahead
        assert (game.options or {}).get("press") == "grey"
        assert (game.options or {})["house_rules"]["movement"] == "3d"
        assert s.scalar(select(func.count()).select_from(Player)) == 0  # nobody plays until they confirm
    codes = desk.mails(kind="confirm")
    assert sorted(m.to_addr for m in codes) == sorted(address(p) for p in STANDARD)
    france = next(m for m in codes if m.to_addr == address("France"))
    assert france.subject.startswith("gm: confirm you play France in g1 (CONFIRM ")
    assert "moved the game here from DPjudge status file" in france.body_text
    assert "SET PASSWORD <your password>" in france.body_text and "pw" not in france.body_text.split("SET")[0][-80:]
    (entry,) = desk.audit("move in")
    assert entry.actor == MASTER and entry.detail["phase"] == "Fall 1901, Movement"


def test_a_player_confirms_chooses_a_password_and_orders(session_factory: sessionmaker[Session]) -> None:
    desk = moved_in(session_factory)
    code = confirmation_code(desk.sf, address("France"))
    # Without a password chosen in the same mail the code is not used up.
    out = desk.send(address("France"), f"CONFIRM {code}")
    assert "choose your password in the same mail" in desk.ack(out, address("France"))
    out = desk.send(address("France"), f"CONFIRM {code}\nSET PASSWORD paris-1901\nA BUR - MUN")
    ack = desk.ack(out, address("France"))
    assert "accepted  CONFIRM" in ack and "you play France in g1" in ack
    assert "accepted  SET PASSWORD ********" in ack and "accepted  A BUR - MUN" in ack
    with transaction(desk.sf) as s:
        player = s.scalar(select(Player).where(Player.power == "France"))
        assert player is not None and check_password(player.password_hash, "paris-1901")
    (welcome,) = desk.mails(kind="notice", to=address("France"))
    assert welcome.subject == "g1: you play France"
    body = welcome.body_text
    assert "moved the game here from DPjudge status file: you play France" in body
    assert "SIGNON France g1 <password>" in body and "g1 is in Fall 1901, Movement; the deadline is" in body
    assert "France: A BUR, F MAO, A SPA" in body and "@players" not in body  # no other player's address
    assert "Deadlines: movement 3d, retreats 2d, adjustments 2d after the phase opens" in body  # the house rules read
    assert [a["filename"] for a in welcome.attachments or []] == ["g1-position.png"]
    told = [m for m in desk.mails(kind="notice", to=MASTER) if "France confirmed" in m.subject]
    assert told and "(1 of 7 players named have confirmed)" in told[0].body_text
    # The new password signs on; orders are taken while the game is paused.
    out = desk.send(address("France"), "SIGNON France g1 paris-1901\nF MAO - POR")
    assert "accepted  F MAO - POR" in desk.ack(out, address("France"))


def test_a_plain_reply_with_the_password_line_confirms(session_factory: sessionmaker[Session]) -> None:
    desk = moved_in(session_factory)
    (asked,) = desk.mails(kind="confirm", to=address("Italy"))
    out = desk.send(address("Italy"), "SET PASSWORD roma-aeterna", subject=f"Re: {asked.subject}")
    ack = desk.ack(out, address("Italy"))
    assert "accepted  CONFIRM" in ack and "you play Italy in g1" in ack
    out = desk.send(address("Italy"), "SIGNON Italy g1 roma-aeterna\nA PIE - MAR")
    assert "accepted  A PIE - MAR" in desk.ack(out, address("Italy"))
    # the code served once: sent again, it is no more
    out = desk.send(address("Italy"), "SET PASSWORD again-1", subject=f"Re: {asked.subject}")
    assert "no such confirmation code" in desk.ack(out, address("Italy"))


def test_the_players_confirm_the_gm_resumes_and_the_phase_is_played(session_factory: sessionmaker[Session]) -> None:
    desk = moved_in(session_factory)
    for power in STANDARD:
        code = confirmation_code(desk.sf, address(power))
        desk.send(address(power), f"CONFIRM {code}\nSET PASSWORD {power.lower()}-pw")
    desk.send(address("Turkey"), "SIGNON Turkey g1 turkey-pw\nA BUL - RUM\nF BLA S A BUL - RUM")
    desk.send(address("Austria"), "SIGNON Austria g1 austria-pw\nA SER S A BUL - RUM")
    ack = desk.master("RESUME\nPROCESS")
    assert "accepted  RESUME" in ack and "accepted  PROCESS" in ack
    assert desk.phase_label() == "Fall 1901, Retreat"
    (results,) = [m for m in desk.mails(kind="results", to=address("Russia")) if "Fall 1901" in m.subject]
    assert "A BUL - RUM" in results.body_text and "F RUM" in results.body_text


def test_a_text_that_cannot_move_in_makes_nothing(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, powers=[], start=False)
    broken = status_text().replace("A SER\n", "A XYZ\n").replace("A RUH\n", "A BUR\n")
    ack = desk.master(f"IMPORT YES\n{broken}")
    assert "REJECTED  IMPORT YES" in ack and "the text cannot move in: 2 problems (below); nothing was made" in ack
    assert "line 19: 'XYZ' is no place on the Diplomacy (standard map) board" in ack
    assert "line 38: two units in one space: Germany A BUR and France A BUR (line 32)" in ack
    assert counts(desk) == (0, 0, 0) and desk.mails(kind="confirm") == []
    with transaction(desk.sf) as s:
        assert desk.row(s).status == "forming"


def test_import_into_a_game_of_another_variant_or_one_under_way_is_refused(
        session_factory: sessionmaker[Session]) -> None:
    classical = new_game(session_factory, "c1", "classical", powers=[], start=False)
    ack = classical.master(f"IMPORT YES\n{status_text()}")
    assert "wrong variant: the text is a game of Diplomacy (standard map), not Classical Mediterranean Diplomacy" \
           in ack
    desk = new_game(session_factory, "g2")
    ack = desk.master(f"IMPORT YES\n{status_text()}")
    assert "REJECTED  IMPORT YES" in ack and "g2 is active: a game moves in to a forming game of yours" in ack
    with transaction(desk.sf) as s:
        assert s.scalar(select(func.count()).select_from(Confirmation)) == 0


def test_a_player_address_the_judge_cannot_use_refuses_the_import(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, powers=[], start=False)
    text = status_text().replace("france@players.example", MASTER).replace("italy@players.example", JUDGE)
    ack = desk.master(f"IMPORT YES\n{text}")
    assert f"France: {MASTER} is a GM of the game: a GM plays no power" in ack
    assert f"Italy: {JUDGE} is the judge's own address" in ack
    assert counts(desk) == (0, 0, 0)


def test_the_text_ends_at_endimport_and_the_lines_after_are_commands(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, powers=[], start=False)
    ack = desk.master(f"IMPORT YES\n{status_text()}ENDIMPORT\nSET PRESS WHITE")
    assert "accepted  IMPORT YES" in ack and "accepted  SET PRESS WHITE" in ack
    with transaction(desk.sf) as s:
        assert (desk.row(s).options or {}).get("press") == "white"
