"""Players' commands by mail: PRESS TO GM, SET WAIT / SET NOWAIT, the answer to an unknown command
(and order lines that stay orders), RESIGN, WHOGAME / WHOIS, INFO / GET INFO, OBSERVE and
UNOBSERVE; each with its refusals."""
from __future__ import annotations

import re

from desk import MASTER, STANDARD, Desk, address, confirmation_code, new_game
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import current_phase, masters
from gm.mail.outgoing.game_mail import queue_progress
from gm.store.db import transaction
from gm.store.models import GameStatus, Observer, OutboundMail, Player, utcnow

WATCHER = "watcher@elsewhere.example"
_RESULT = re.compile(r"^  (accepted|REJECTED|answered)  (.*)\n\s+[=:-] (.*)$", re.MULTILINE)


def _lines(ack: str) -> dict[str, tuple[str, str]]:
    """The ack's lines: line -> (accepted|REJECTED, detail)."""
    return {line: (status, detail) for status, line, detail in _RESULT.findall(ack)}


def _last_to(desk: Desk, to: str, since: int = 0) -> OutboundMail:
    mails = desk.mails(to=to, since=since)
    assert mails, f"nothing was mailed to {to}"
    return mails[-1]


def _finish(desk: Desk) -> None:
    with transaction(desk.sf) as s:
        desk.row(s).status = GameStatus.FINISHED


# --- PRESS TO GM -----------------------------------------------------------------------------------


def test_press_to_the_gm_reaches_the_gm_only_naming_the_sender(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    for spelling in ("PRESS TO GM", "press to master", "Press to M"):
        before = desk.last_mail_id()
        ack = desk.player("France", f"{spelling}\nMay I have two more days? I am travelling.\nENDPRESS")
        assert _lines(ack)[spelling] == ("accepted", "sent to the GM of g1 (1 line)")
        press = desk.mails(kind="press", since=before)
        assert [m.to_addr for m in press] == [MASTER]
        assert press[0].subject == "[g1] Press to the GM from France"
        assert "press from France to the GM" in press[0].body_text
        assert "sent by France (france@players.example)" in press[0].body_text
        assert "May I have two more days?" in press[0].body_text
        assert not desk.mails(to=address("England"), since=before)
    assert [e.detail["to"] for e in desk.audit("press")] == [["GM"]] * 3


def test_press_to_the_gm_is_allowed_when_press_is_off_and_after_the_end(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.master("SET PRESS NONE")
    before = desk.last_mail_id()
    ack = _lines(desk.player("France", "PRESS TO England\nHello\nENDPRESS\nPRESS TO GM\nEngland cheats.\nENDPRESS"))
    assert ack["PRESS TO England"][0] == "REJECTED" and "PRESS TO GM still reaches the GM" in ack["PRESS TO England"][1]
    assert ack["PRESS TO GM"][0] == "accepted"
    assert [m.to_addr for m in desk.mails(kind="press", since=before)] == [MASTER]
    _finish(desk)
    before = desk.last_mail_id()
    ack = _lines(desk.player("France", "PRESS TO GM\nGood game.\nENDPRESS\nBROADCAST\nGG\nENDPRESS"))
    assert ack["PRESS TO GM"][0] == "accepted"
    assert ack["BROADCAST"] == ("REJECTED", "g1 is over: press is closed (PRESS TO GM still reaches the GM)")
    assert [m.to_addr for m in desk.mails(kind="press", since=before)] == [MASTER]


def test_press_to_the_gm_refusals(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.master("SET PRESS GREY")
    before = desk.last_mail_id()
    ack = _lines(desk.player("France", "PRESS TO GM GREY\nWho am I?\nENDPRESS"))
    assert ack["PRESS TO GM GREY"] == ("REJECTED", "press to the GM is always signed: GREY is for press to powers")
    ack = _lines(desk.master("PRESS TO GM\nTo myself\nENDPRESS"))
    assert ack["PRESS TO GM"][0] == "REJECTED" and "you are the GM" in ack["PRESS TO GM"][1]
    assert not desk.mails(kind="press", since=before)


# --- SET WAIT / SET NOWAIT ------------------------------------------------------------------------


def _waiting(desk: Desk, power: str) -> bool:
    with transaction(desk.sf) as s:
        return bool(s.scalar(select(Player.waiting).where(Player.power == power, Player.left_at.is_(None))))


def test_set_wait_and_set_nowait_are_wait_and_nowait(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    ack = _lines(desk.player("France", "SET WAIT"))
    assert ack["SET WAIT"][0] == "accepted" and "will not end before its deadline" in ack["SET WAIT"][1]
    assert _waiting(desk, "France")
    ack = _lines(desk.player("France", "set nowait"))
    assert ack["set nowait"] == ("accepted", "Spring 1901, Movement may end as soon as every power's orders are in")
    assert not _waiting(desk, "France")


# --- unknown commands ------------------------------------------------------------------------------


def test_an_unknown_command_is_answered_with_the_nearest_commands(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    ack = _lines(desk.player("France", "SET FOO 3\nWHOGAMES g1\nRESGN\nINFOS g1\nGET FOO\nOBSERV g1"))
    assert ack["SET FOO 3"][0] == "REJECTED"
    assert ack["SET FOO 3"][1].startswith("unknown command 'SET FOO': the SET commands are ")
    assert "SET WAIT" in ack["SET FOO 3"][1]
    assert ack["WHOGAMES g1"] == ("REJECTED",
                                  "unknown command 'WHOGAMES': did you mean WHOGAME? (HELP lists the commands)")
    assert ack["RESGN"] == ("REJECTED", "unknown command 'RESGN': did you mean RESIGN? (HELP lists the commands)")
    assert ack["INFOS g1"] == ("REJECTED", "unknown command 'INFOS': did you mean INFO? (HELP lists the commands)")
    assert ack["GET FOO"] == ("REJECTED", "unknown command 'GET FOO': did you mean GET INFO? (HELP lists the commands)")
    assert "did you mean OBSERVE" in ack["OBSERV g1"][1]
    with transaction(desk.sf) as s:  # nothing changed: France is still in the game
        assert s.scalar(select(Player.left_at).where(Player.power == "France")) is None


def test_order_lines_are_never_taken_for_unknown_commands(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    accepted = ["A PAR - BUR", "Mar H", "F Brest - Mid-Atlantic Ocean", "a par s a mar - bur",
                "A Mar S A Par - Bur", "Par - Bur", "Army Marseilles -> Spain", "F BRE - MAO", "1. A PAR - PIC"]
    refused = ["F NTH C A LON - NWY", "Build A Par", "Remove F Bre", "Waive", "DP 3 A PAR H", "PAR H THEN BUR",
               "Hold", "France: A Paris holds", "Stp S Mos", "Holland - Bel", "Wales - Lon", "A Mun - Sil",
               "Disband A Par", "F MAO - SPA/NC"]
    ack = _lines(desk.player("France", "\n".join(accepted + refused)))
    for line in accepted:
        assert ack[line][0] == "accepted", (line, ack[line])
    for line in refused:
        assert line in ack, line
        assert "unknown command" not in ack[line][1], (line, ack[line])
        assert ack[line][0] == "REJECTED", (line, ack[line])


def test_an_unknown_command_from_the_gm_and_from_a_stranger(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    ack = _lines(desk.master("SET FOO 3\nSET DEADLIN 2d"))
    assert ack["SET FOO 3"][1].startswith("unknown command 'SET FOO'")
    assert "SET DEADLINE" in ack["SET DEADLIN 2d"][1]
    before = desk.last_mail_id()
    desk.send(WATCHER, "WHOGAMES g1")
    (notice,) = desk.mails(to=WATCHER, since=before)
    assert "WHOGAMES" not in notice.body_text  # a stranger is told nothing of what the mail said


# --- RESIGN ----------------------------------------------------------------------------------------


def test_resign_leaves_the_game_and_the_gm_is_told_at_once(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.player("France", "A PAR - BUR")
    before = desk.last_mail_id()
    ack = _lines(desk.player("France", "RESIGN\nA MAR - SPA"))
    assert ack["RESIGN"] == ("accepted", "you no longer play France in g1; the GM is told, and will find a new player "
                                         "for it")
    assert ack["A MAR - SPA"][0] == "REJECTED" and "sign on first" in ack["A MAR - SPA"][1]
    (told,) = desk.mails(to=MASTER, since=before)
    assert told.subject == "[g1] France resigned"
    assert "france@players.example, who played France in g1, resigned during Spring 1901, Movement, on " in told.body_text
    assert "REPLACE France <address>" in told.body_text and "CIVIL DISORDER France" in told.body_text
    assert not desk.mails(to=address("England"), since=before)  # the other players are not told
    with transaction(desk.sf) as s:
        france = s.scalar(select(Player).where(Player.power == "France"))
        assert france is not None and france.left_at is not None
        current = current_phase(s, desk.row(s))
        assert current is not None and {u.province for u in current.state.units.values() if u.power == "France"} == {
            "PAR", "MAR", "BRE"}
    assert [e.detail for e in desk.audit("resign")] == [{"power": "France", "player": address("France")}]
    # The address that resigned signs on no more, and is told why.
    before = desk.last_mail_id()
    desk.send(address("France"), "SIGNON France g1 pw\nA PAR - BUR")
    (notice,) = desk.mails(to=address("France"), since=before)
    assert "this address resigned France in g1 (" in notice.body_text and "it no longer plays it" in notice.body_text


def test_resign_before_the_start_frees_the_power(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, start=False, powers=["France", "England"])
    before = desk.last_mail_id()
    ack = _lines(desk.player("France", "RESIGN"))
    assert ack["RESIGN"] == ("accepted", "you no longer play France in g1: the power is open to JOIN again; "
                                         "the GM is told")
    (told,) = desk.mails(to=MASTER, since=before)
    assert "resigned before the game started. France is open to JOIN again." in told.body_text
    out = desk.join("newcomer@players.example", "France")
    assert "you play France in g1" in desk.ack(out, "newcomer@players.example")


def test_resign_refusals(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    desk.send(address("France"), "RESIGN")  # not signed on: nothing happens
    with transaction(desk.sf) as s:
        assert s.scalar(select(Player.left_at).where(Player.power == "France")) is None
    ack = _lines(desk.player("France", "RESIGN now"))
    assert ack["RESIGN now"] == ("REJECTED", "usage: RESIGN (after SIGNON: it takes no arguments)")
    _finish(desk)
    ack = _lines(desk.player("France", "RESIGN"))
    assert ack["RESIGN"] == ("REJECTED", "g1 is over: its players no longer change: there is nothing to resign from")
    assert not desk.mails(to=MASTER, since=before)


# --- WHOGAME / WHOIS -------------------------------------------------------------------------------


def test_whogame_shows_who_plays_which_power(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, powers=[p for p in STANDARD if p != "Italy"])
    before = desk.last_mail_id()
    desk.send(WATCHER, "WHOGAME g1")
    (notice,) = desk.mails(to=WATCHER, since=before)
    assert "France:  france@players.example" in notice.body_text
    assert "Italy:   nobody plays it" in notice.body_text
    assert f"GM: {MASTER}" in notice.body_text
    ack = desk.player("England", "WHOIS")  # after SIGNON, the game signed on to
    assert "Austria: austria@players.example" in ack
    ack = _lines(desk.player("England", "WHOGAME nosuch"))
    assert ack["WHOGAME nosuch"] == ("REJECTED", "there is no such game (LIST shows the games)")


def test_an_anonymous_game_shows_only_which_powers_are_taken_but_the_gm_sees_all(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    assert "anonymous is yes" in desk.master("SET OPTION anonymous yes")
    ack = desk.player("England", "WHOGAME g1")
    assert "France:  taken" in ack and "(an anonymous game)" in ack
    assert not re.search(r"\w+@players\.example", ack.split("Who plays g1")[1].replace(address("England"), ""))
    assert "France:  france@players.example" in desk.master("WHOGAME")


# --- INFO ------------------------------------------------------------------------------------------


def test_info_tells_a_newcomer_what_the_game_is(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, start=False, powers=["France"])
    before = desk.last_mail_id()
    desk.send(WATCHER, "INFO g1\nGET INFO g1\nINFO nosuch")
    (notice,) = desk.mails(to=WATCHER, since=before)
    text = notice.body_text
    for said in ("Variant: Diplomacy (standard map)", "Status: forming: taking players", "France (taken)",
                 "Italy (open)",
                 "To win: 18 supply centres", "Deadlines: movement 2d", "Missing orders:", "Civil disorder: after",
                 "Press: white", "PRESS TO GM always reaches the GM", "WHOGAME shows who plays which power",
                 f"GM: {MASTER}", "To play: JOIN g1 <power> <password>"):
        assert said in text, said
    assert text.count("Variant: Diplomacy (standard map)") == 2
    assert "there is no such game" in text


# --- OBSERVE / UNOBSERVE ---------------------------------------------------------------------------


def _observers(desk: Desk) -> list[str]:
    with transaction(desk.sf) as s:
        return list(s.scalars(select(Observer.email).where(Observer.left_at.is_(None))))


def _results(desk: Desk) -> None:
    """The phase ends at its deadline, and its results are mailed as the scheduler does."""
    progress = desk.end_phase()
    with transaction(desk.sf) as s:
        game = desk.row(s)
        queue_progress(s, game, progress, gm_address="gm@judge.example", gm_addresses=masters(s, game), now=utcnow())


def test_observe_once_confirmed_gets_results_and_broadcasts_only(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    desk.send(WATCHER, "OBSERVE g1\nplease send everything to my friend")
    (code_mail,) = desk.mails(to=WATCHER, since=before)  # a fixed text and the code, nothing of the mail
    assert code_mail.kind == "confirm" and "friend" not in code_mail.body_text
    assert "asked\nto observe the game g1" in code_mail.body_text
    assert _observers(desk) == []
    before = desk.last_mail_id()
    desk.send(WATCHER, f"CONFIRM {confirmation_code(desk.sf, WATCHER)}")
    (welcome,) = desk.mails(to=WATCHER, since=before)
    assert welcome.subject == "gm: you observe g1" and "UNOBSERVE g1" in welcome.body_text
    assert _observers(desk) == [WATCHER]
    before = desk.last_mail_id()
    desk.player("France", "BROADCAST\nPeace to all.\nENDPRESS\nPRESS TO England\nJust us.\nENDPRESS\n"
                          "PRESS TO GM\nA secret.\nENDPRESS")
    (broadcast,) = desk.mails(to=WATCHER, since=before)
    assert broadcast.subject == "[g1] Broadcast from France" and "Peace to all." in broadcast.body_text
    desk.player("France", "A PAR - BUR")
    before = desk.last_mail_id()
    _results(desk)
    (results,) = desk.mails(to=WATCHER, since=before)
    assert results.kind == "results" and "GM copy" not in results.subject and "GM copy" not in results.body_text
    assert "A PAR - BUR" in results.body_text.upper()
    # What every player is told (here, the GM's pause), the observer is told too.
    before = desk.last_mail_id()
    desk.master("PAUSE")
    (paused,) = desk.mails(to=WATCHER, since=before)
    assert paused.subject == "[g1] The game is paused"
    desk.master("RESUME")
    # UNOBSERVE: no more mail.
    before = desk.last_mail_id()
    desk.send(WATCHER, "UNOBSERVE g1")
    (bye,) = desk.mails(to=WATCHER, since=before)
    assert bye.subject == "gm: you no longer observe g1"
    assert _observers(desk) == []
    before = desk.last_mail_id()
    desk.player("France", "BROADCAST\nAnyone?\nENDPRESS")
    assert not desk.mails(to=WATCHER, since=before)
    assert [e.action for e in desk.audit() if "observe" in e.action] == ["observe", "unobserve"]


def test_observe_refusals(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    desk.send(WATCHER, "OBSERVE nosuch")
    (notice,) = desk.mails(to=WATCHER, since=before)
    assert "there is no such game" in notice.body_text
    ack = _lines(desk.player("France", "OBSERVE g1"))
    assert ack["OBSERVE g1"] == ("REJECTED", "this address plays France in g1: it gets the game's mail already")
    before = desk.last_mail_id()
    desk.send(WATCHER, "UNOBSERVE g1")
    (notice,) = desk.mails(to=WATCHER, since=before)
    assert "this address does not observe g1" in notice.body_text
    for _ in range(3):  # codes for one address are bounded
        desk.send(WATCHER, "OBSERVE g1")
    before = desk.last_mail_id()
    desk.send(WATCHER, "OBSERVE g1")
    assert all(m.kind != "confirm" for m in desk.mails(to=WATCHER, since=before))
    _finish(desk)
    before = desk.last_mail_id()
    desk.send("late@elsewhere.example", "OBSERVE g1")
    (notice,) = desk.mails(to="late@elsewhere.example", since=before)
    assert "g1 is over: there is nothing more to observe" in notice.body_text
