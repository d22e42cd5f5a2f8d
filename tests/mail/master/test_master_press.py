"""Press: PRESS TO and BROADCAST between players and from the GM, relayed without addresses; the
GM's copies; SET PRESS WHITE|GREY|NONE; press inside an order mail; refusals that send nothing."""
from __future__ import annotations

import re

from desk import MASTER, STANDARD, Desk, address, new_game
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import current_phase
from gm.mail.outgoing import press
from gm.mail.commands.master import run_as_operator
from gm.store.db import transaction
from gm.store.models import GameStatus, OrderRecord, OutboundMail
from gm.variants import load_variant

ADDRESS = re.compile(r"[\w.+-]+@[\w-]+(\.[\w-]+)+")


def _press(desk: Desk, since: int) -> list[OutboundMail]:
    return desk.mails(kind="press", since=since)


def _to(mails: list[OutboundMail]) -> list[str]:
    return sorted(m.to_addr for m in mails)


def _no_address_in(mails: list[OutboundMail]) -> None:
    """A relayed press (and the GM's copy) names no address at all."""
    for m in mails:
        assert not ADDRESS.search(m.subject) and not ADDRESS.search(m.body_text), m.body_text


def _orders(desk: Desk, power: str) -> list[str]:
    with transaction(desk.sf) as s:
        current = current_phase(s, desk.row(s))
        assert current is not None
        return list(s.scalars(select(OrderRecord.canonical).where(
            OrderRecord.phase_id == current.row.id, OrderRecord.power == power, OrderRecord.current.is_(True))))


def test_white_press_to_one_power_is_signed_with_the_senders_power_and_the_gm_gets_a_copy(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.player("France", "PRESS TO England\nShall we share the Channel?\nYours, Paris\nENDPRESS")
    assert "accepted  PRESS TO England" in ack and "relayed to England (2 lines)" in ack
    mails = _press(desk, before)
    assert _to(mails) == [address("England"), MASTER]
    to_england = next(m for m in mails if m.to_addr == address("England"))
    assert to_england.subject == "[g1] Press from France"
    assert "g1: press from France to England" in to_england.body_text
    assert "Shall we share the Channel?\nYours, Paris" in to_england.body_text
    assert "copy for the GM" not in to_england.body_text
    copy = next(m for m in mails if m.to_addr == MASTER)
    assert "sent by France" in copy.body_text and "Shall we share the Channel?" in copy.body_text
    assert copy.subject == "[g1] Copy: press from France to England"
    _no_address_in(mails)
    (entry,) = desk.audit("press")
    assert entry.detail == {"from": "France", "to": ["England"], "broadcast": False, "grey": False, "lines": 2,
                            "characters": len("Shall we share the Channel?") + len("Yours, Paris")}
    assert entry.actor == address("France") and entry.inbound_id is not None
    assert "Channel" not in str(entry.detail)  # the text is not in the audit log: the GM has it


def test_press_to_several_powers_with_commas_and_spaces_and_a_power_nobody_plays(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, start=False, powers=["France", "England", "Germany", "Russia"])
    before = desk.last_mail_id()  # a game not yet started: press is how the players negotiate
    ack = desk.player("France", "PRESS TO england, Germany Russia,Italy\nLet us talk.\nENDPRESS")
    assert "relayed to England, Germany, Russia; not to Italy (nobody plays it) (1 line)" in ack
    mails = _press(desk, before)
    assert _to(mails) == sorted([address("England"), address("Germany"), address("Russia"), MASTER])
    for m in mails:
        assert "press from France to England, Germany, Russia, Italy" in m.body_text
    _no_address_in(mails)
    assert desk.audit("press")[0].detail["to"] == ["England", "Germany", "Russia"]


def test_power_names_of_several_words_are_read_from_a_list_without_commas() -> None:
    variant = load_variant("ambition")
    assert press._powers(variant, ["Great", "Britain", "France"], "g") == (["Great Britain", "France"], None)
    assert press._powers(variant, ["Sweden", "Denmark-Norway"], "g") == (["Sweden", "Denmark-Norway"], None)
    assert press._powers(variant, ["France", "Narnia"], "g") == ([], "g has no power 'Narnia': nothing was sent")


def test_broadcast_goes_to_every_other_power_headed_to_every_power(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.player("Turkey", "BROADCAST\nPeace in our time.\nENDPRESS")
    others = [p for p in STANDARD if p != "Turkey"]
    assert f"relayed to {', '.join(others)} (1 line)" in ack
    mails = _press(desk, before)
    assert _to(mails) == sorted([address(p) for p in others] + [MASTER])
    assert all(m.subject == "[g1] Broadcast from Turkey" for m in mails if m.to_addr != MASTER)
    assert all("press from Turkey to every power" in m.body_text for m in mails)
    _no_address_in(mails)
    assert desk.audit("press")[0].detail["broadcast"] is True


def test_the_gm_sends_press_and_broadcasts_signed_as_the_gm(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, masters=(MASTER, "second@gms.example"))
    before = desk.last_mail_id()
    ack = desk.master("PRESS TO Italy\nPlease send your orders.\nENDPRESS\nBROADCAST\nThe deadline stands.\nENDPRESS")
    assert "relayed to Italy (1 line)" in ack and f"relayed to {', '.join(STANDARD)} (1 line)" in ack
    mails = _press(desk, before)
    to_italy = [m for m in mails if m.to_addr == address("Italy")]
    # One mail's press to one player comes in one mail.
    assert [m.subject for m in to_italy] == ["[g1] Press from the GM (+1 more)"]
    assert "g1: press from the GM to Italy" in to_italy[0].body_text
    assert "g1: press from the GM to every power" in to_italy[0].body_text
    # The other GM gets the copies; the GM who sent it has the acknowledgement.
    copies = [m for m in mails if m.to_addr in (MASTER, "second@gms.example")]
    assert _to(copies) == ["second@gms.example"]
    assert "sent by the GM" in copies[0].body_text
    _no_address_in(mails)
    assert [e.detail["from"] for e in desk.audit("press")] == ["GM", "GM"]
    assert all(e.actor == MASTER for e in desk.audit("press"))


def test_grey_press_is_anonymous_to_its_readers_and_named_to_the_gm(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.master("SET PRESS GREY")
    assert "press in g1 is grey now; every player is told" in ack
    told = desk.mails(kind="announcement", since=before)
    assert _to(told) == sorted([address(p) for p in STANDARD] + [MASTER])
    assert "press may be sent unsigned" in told[0].body_text and told[0].subject == "[g1] Press is now grey"
    (entry,) = desk.audit("set press")
    assert entry.detail == {"from": "white", "to": "grey"} and entry.actor == MASTER
    with transaction(desk.sf) as s:
        assert press.press_kind(desk.row(s)) == "grey"

    before = desk.last_mail_id()
    ack = desk.player("Germany", "PRESS TO France, Russia GREY\nAttack England.\nENDPRESS")
    assert "relayed to France, Russia as anonymous press (1 line)" in ack
    mails = _press(desk, before)
    readers = [m for m in mails if m.to_addr != MASTER]
    assert _to(readers) == [address("France"), address("Russia")]
    for m in readers:
        assert m.subject == "[g1] Anonymous press"
        assert "press from anonymous to France, Russia" in m.body_text and "Germany" not in m.body_text
    (copy,) = [m for m in mails if m.to_addr == MASTER]
    assert "sent by Germany, as anonymous press" in copy.body_text
    assert copy.subject == "[g1] Copy: anonymous press from Germany to France, Russia"
    _no_address_in(mails)
    assert desk.audit("press")[-1].detail["grey"] is True
    # In a grey game press without GREY is signed.
    before = desk.last_mail_id()
    desk.player("Germany", "BROADCAST\nHello all.\nENDPRESS")
    assert all("press from Germany to every power" in m.body_text for m in _press(desk, before))


def test_grey_is_refused_in_a_white_game_and_for_the_gm(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.player("Germany", "PRESS TO France GREY\nAttack England.\nENDPRESS\nA Ber - Kie")
    assert "REJECTED  PRESS TO France GREY" in ack and "press in g1 is signed (white press)" in ack
    assert _orders(desk, "Germany") == ["A BER - KIE"]  # the order after it is read
    ack = desk.master("SET PRESS GREY\nBROADCAST GREY\nWho am I?\nENDPRESS")
    assert "the GM's press is always signed as the GM" in ack
    assert not _press(desk, before) and not desk.audit("press")


def test_press_none_refuses_players_but_not_the_gm(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    ack = desk.master("SET PRESS NONE")
    assert "press in g1 is none now" in ack
    before = desk.last_mail_id()
    ack = desk.player("Austria", "PRESS TO Italy\nAlliance?\nENDPRESS\nBROADCAST\nHi\nENDPRESS")
    assert ack.count("g1 has no press between players (the GM's setting): nothing was sent") == 2
    assert not _press(desk, before)
    ack = desk.master("PRESS TO Austria\nPress is off, but the GM may write.\nENDPRESS")
    assert "relayed to Austria" in ack
    assert _to(_press(desk, before)) == [address("Austria")]
    assert [e.detail["from"] for e in desk.audit("press")] == ["GM"]


def test_set_press_refusals_change_nothing(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    assert "usage: SET PRESS WHITE|GREY|NONE" in desk.master("SET PRESS PINK")
    assert "usage: SET PRESS WHITE|GREY|NONE" in desk.master("SET PRESS")
    assert "press in g1 is white already: nothing changed" in desk.master("SET PRESS WHITE")
    ack = desk.player("France", "SET PRESS GREY")  # a player's mail: no GM command
    assert "REJECTED  SET PRESS GREY" in ack
    out = desk.send("someone@else.example", "SIGNON MASTER g1 wrong\nSET PRESS NONE")
    assert out.outcome == "processed"
    with transaction(desk.sf) as s:
        game = desk.row(s)
        assert press.press_kind(game) == "white" and "press" not in (game.options or {})
        game.status = GameStatus.FINISHED
    assert "g1 is over" in desk.master("SET PRESS GREY")
    assert not desk.audit("set press") and not desk.mails(kind="announcement", since=before)


def test_a_press_block_inside_an_order_mail_leaves_the_orders_around_it_alone(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.player("France", "A Par - Bur\nPRESS TO England\nI will not do this:\nA Mar - Spa\nSIGNOFF\n"
                                "SET PASSWORD hunter2\nENDPRESS\nF Bre - MAO")
    assert "relayed to England (4 lines)" in ack
    assert sorted(_orders(desk, "France")) == ["A PAR - BUR", "F BRE - MAO"]  # and nothing of the press
    assert "Units still without orders: A MAR" in ack
    assert "A Mar - Spa" not in ack and "SIGNOFF" not in ack and "hunter2" not in ack  # no line of it read
    to_england = next(m for m in _press(desk, before) if m.to_addr == address("England"))
    assert "I will not do this:\nA Mar - Spa\nSIGNOFF\nSET PASSWORD hunter2" in to_england.body_text
    # SET PASSWORD inside the text changed nothing: the old password still signs on.
    assert "signed on as France in g1" in desk.player("France", "")


def test_an_unclosed_press_sends_nothing_and_its_lines_are_no_orders(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.player("France", "A Par - Bur\nPRESS TO England\nHello\nA Mar - Spa")
    assert "REJECTED  PRESS TO England" in ack and "the mail ended before ENDPRESS: nothing was sent" in ack
    assert _orders(desk, "France") == ["A PAR - BUR"]
    ack = desk.player("France", "PRESS TO Narnia\nA Mar - Spa")
    assert "g1 has no power 'Narnia': nothing was sent; and the mail ended before ENDPRESS" in ack
    assert _orders(desk, "France") == ["A PAR - BUR"]
    assert not _press(desk, before) and not desk.audit("press")


def test_refused_press_lines_still_take_their_text_up_to_endpress(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.player("France", "PRESS TO Narnia\nA Mar - Spa\nENDPRESS\nPRESS TO France\nhi\nENDPRESS\n"
                                "PRESS\nhi\nENDPRESS\nPRESS TO England\nENDPRESS\nA Par - Bur")
    assert "g1 has no power 'Narnia': nothing was sent" in ack
    assert "France is your own power: nothing was sent" in ack
    assert "usage: PRESS TO <power>[,<power>...] [GREY]" in ack
    assert "no text between this line and ENDPRESS: nothing was sent" in ack
    assert _orders(desk, "France") == ["A PAR - BUR"]
    assert not _press(desk, before) and not desk.audit("press")


def test_press_is_bounded_in_lines_and_characters(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    many = "\n".join(f"line {i}" for i in range(press.MAX_LINES + 1))
    ack = desk.player("France", f"PRESS TO England\n{many}\nENDPRESS\nA Par - Bur")
    assert f"press is at most {press.MAX_LINES} lines and 10,000 characters, this one has 101 and" in ack
    long = "\n".join("x" * 990 for _ in range(11))
    ack = desk.player("France", f"PRESS TO England\n{long}\nENDPRESS")
    assert "this one has 11 and 10,890: nothing was sent" in ack
    assert not _press(desk, before) and _orders(desk, "France") == ["A PAR - BUR"]
    exactly = "\n".join(f"line {i}" for i in range(press.MAX_LINES))
    ack = desk.player("France", f"PRESS TO England\n{exactly}\nENDPRESS")
    assert f"relayed to England ({press.MAX_LINES} lines)" in ack


def test_press_needs_a_sign_on_and_a_game_not_over(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    desk.send(address("France"), "PRESS TO England\nHello\nENDPRESS")  # signed on to nothing
    assert not _press(desk, before)
    with transaction(desk.sf) as s:
        desk.row(s).status = GameStatus.FINISHED
    ack = desk.player("France", "PRESS TO England\nGood game.\nENDPRESS")
    assert "g1 is over: press is closed" in ack
    assert not _press(desk, before) and not desk.audit("press")


def test_the_operator_sends_press_from_the_command_line(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    with transaction(desk.sf) as s:
        ctx = run_as_operator(s, desk.row(s), ["SET PRESS GREY", "PRESS TO Russia", "Server notice.", "ENDPRESS"],
                              gm_address="gm@judge.example")
    assert [r.accepted for r in ctx.results] == [True, True]
    mails = _press(desk, before)
    assert _to(mails) == [MASTER, address("Russia")]  # the operator is no GM of the game: every GM gets a copy
    assert "press from the GM to Russia" in mails[0].body_text
    assert [e.action for e in desk.audit() if e.action in ("set press", "press")] == ["set press", "press"]
