"""SIGNON MASTER: who may act as a game's GM, where the acknowledgement goes, HELP for a GM, and
GM command words from anyone else."""
from __future__ import annotations

from pathlib import Path

from sqlalchemy.orm import Session, sessionmaker

from gm.mail.commands import master_registry

from desk import MASTER, address, new_game


def test_the_gm_signs_on_with_the_gm_password_and_the_ack_goes_to_the_gms_address(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    out = desk.send("someone@else.example", "SIGNON MASTER g1 gm-pw\nHELP ALL")
    ack = desk.ack(out, MASTER)  # to the GM's registered address, not to the sender
    assert "accepted  SIGNON MASTER g1 ********" in ack and "signed on as GM of g1" in ack
    assert "GM commands" in ack and "ROLLBACK [phase]" in ack and "REPLACE <power> <address>" in ack
    assert "gm-pw" not in ack


def test_a_wrong_gm_password_or_a_player_posing_as_gm_changes_nothing(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    out = desk.send(MASTER, "SIGNON MASTER g1 wrong\nPAUSE")
    assert [m.to_addr for m in desk.mails(since=before)] == [MASTER]  # a fixed notice, to the sender
    notice = desk.mails(since=before)[0].body_text
    assert "wrong password for the GM in g1" in notice and "PAUSE" not in notice
    # A player's own sign-on does not make GM command words commands.
    ack = desk.player("France", "PAUSE\nSET DEADLINE 2030-01-01 20:00")
    assert "REJECTED  PAUSE" in ack
    assert not desk.audit("pause")
    assert out.outcome == "processed"


def test_an_order_line_after_signon_master_is_refused_with_the_way_to_order_for_a_power(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.player("France", "A Par - Bur")
    ack = desk.master("A Par - Bur")
    assert "REJECTED  A Par - Bur" in ack and "ORDER <power> <order>" in ack
    # The GM's acknowledgement ends with the game at a glance: players and how their orders stand.
    assert "g1 (standard), active, Spring 1901, Movement; deadline " in ack
    assert f"France   {address('France')}   1 of 3 orders in" in ack
    assert f"Austria  {address('Austria')}  0 of 3 orders in" in ack


def test_help_for_a_gm_and_the_readme_name_every_gm_command(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    ack = desk.master("HELP ALL")
    readme = (Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### What a GM sends"):readme.index("### House rules and deadlines")]
    for command in master_registry().values():
        assert command.USAGE in ack
        assert f"`{command.NAME}" in section, f"the README's GM table does not name {command.NAME}"
    # A player's HELP lists no GM command.
    assert "GM commands" not in desk.player("France", "HELP")


def test_a_gm_changes_their_own_password_and_another_gm_keeps_theirs(session_factory: sessionmaker[Session]) -> None:
    other = "second@gms.example"
    desk = new_game(session_factory, masters=(MASTER, other))
    ack = desk.master("SET PASSWORD fresh-gm-pw")
    assert "your GM password changed" in ack and "fresh-gm-pw" not in ack
    assert "signed on as GM of g1" in desk.master("HELP", password="fresh-gm-pw")
    # The second GM signs on with the password they had; the acknowledgement goes to them alone.
    out = desk.send(other, "SIGNON MASTER g1 gm-pw\nHELP")
    assert "signed on as GM of g1" in desk.ack(out, other)
    assert [e.actor for e in desk.audit("set password")] == [MASTER]


def test_help_is_short_and_help_of_a_command_says_its_use(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    ack = desk.player("France", "HELP")
    section = ack[ack.index("Commands\n--------"):]
    body = section.split("\n\n")[0:3]
    text = "\n".join(body)
    assert "JOIN <game> <power> <password>" in text and "SIGNON <power> <game> <password>" in text
    assert "Commands: " in section and "WHOGAME" in section and "HELP SIGNON" in section
    assert len(section.strip().splitlines()) <= 20
    assert all(len(line) <= 78 for line in ack.splitlines())
    one = desk.player("France", "HELP SET ADDRESS")
    assert "SET ADDRESS <mail address>\n    change the address results are sent to" in one
    assert "PROMOTE" not in desk.player("France", "HELP ALL")  # a player's list has no GM command
    gm = desk.master("HELP")
    assert "GM commands: " in gm and "ROLLBACK" in gm
    assert "REJECTED" in desk.player("France", "HELP FROBNICATE")
