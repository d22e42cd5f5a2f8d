"""Position edits (SET UNIT, REMOVE UNIT, SET OWNER, SET HOME, SET PHASE) and REISSUE: the position
at the start of the current phase changed and checked against the variant, orders that no longer
fit withdrawn, each edit audited with before and after, refusals that change nothing, and the
corrected position mailed to every player and GM as a GM correction."""
from __future__ import annotations

import html

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from desk import MASTER, STANDARD, Desk, address, new_game
from gm.engine.model import GameState
from gm.games import current_phase
from gm.mail.commands.master import OPERATOR
from gm.store.db import transaction
from gm.store.models import OrderRecord
from test_cli_game import gm

PLAYERS = [address(p) for p in STANDARD]


def position(desk: Desk) -> GameState:
    with transaction(desk.sf) as s:
        current = current_phase(s, desk.row(s))
        assert current is not None
        return current.state


def on_file(desk: Desk) -> list[tuple[str, str]]:
    with transaction(desk.sf) as s:
        current = current_phase(s, desk.row(s))
        return [(r.power, r.canonical) for r in s.scalars(
            select(OrderRecord).where(OrderRecord.phase_id == current.row.id, OrderRecord.current.is_(True))
            .order_by(OrderRecord.id))]


def refused(desk: Desk, body: str) -> str:
    """Mail GM lines that must all be refused; the acknowledgement. Nothing may have changed."""
    before, state, orders = desk.last_mail_id(), position(desk), on_file(desk)
    audits = len(desk.audit())
    ack = desk.master(body)
    assert ack.count("accepted  ") == 1, ack  # SIGNON MASTER alone
    assert ack.count("REJECTED  ") == len(body.splitlines())
    assert position(desk) == state and on_file(desk) == orders and len(desk.audit()) == audits
    assert {m.kind for m in desk.mails(since=before)} == {"ack"}
    return ack


def test_set_unit_replaces_whatever_stands_there_and_withdraws_orders_that_no_longer_fit(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.player("Russia", "F Stp/sc - Bot\nA Mos - Ukr")
    ack = desk.master("SET UNIT Russia F Stp/nc\nSET UNIT France A Ruh\nSET UNIT Germany F Spa nc")
    assert "accepted  SET UNIT Russia F Stp/nc" in ack
    assert ("= F St Petersburg (north coast) (Russia) set on the board, in place of F St Petersburg (south coast) "
            "(Russia); withdrawn, as they no longer fit: Russia: F STP/SC - BOT (REISSUE tells the players)") in ack
    assert "= A Ruhr (France) set on the board (REISSUE tells the players)" in ack
    state = position(desk)
    assert (str(state.units["STP"]), state.units["STP"].power) == ("F STP/NC", "Russia")
    assert (str(state.units["RUH"]), state.units["RUH"].power) == ("A RUH", "France")
    assert str(state.units["SPA"]) == "F SPA/NC" and state.units["SPA"].power == "Germany"
    assert on_file(desk) == [("Russia", "A MOS - UKR")]
    first, *_ = desk.audit("set unit")
    assert first.actor == MASTER and first.inbound_id is not None
    assert first.detail == {
        "phase": "Spring 1901, Movement",
        "change": "F St Petersburg (north coast) (Russia) set on the board, in place of F St Petersburg "
                  "(south coast) (Russia)",
        "before": "F STP/SC (Russia)", "after": "F STP/NC (Russia)",
        "withdrawn": [{"power": "Russia", "order": "F STP/SC - BOT"}]}
    # The player sees what is on file now; the new unit takes orders.
    assert "F STP/SC - BOT" not in desk.player("Russia", "")
    assert "accepted  A Ruh - Bel" in desk.player("France", "A Ruh - Bel")


def test_set_unit_places_1700ad_leaders_and_stacks_of_fleets(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, variant="1700ad", powers=["Swedish", "Russians"])
    ack = desk.master("SET UNIT Swedish CXII/2F Sca\nSET UNIT Russians 2F Liv")
    assert "accepted  SET UNIT Swedish CXII/2F Sca" in ack and "accepted  SET UNIT Russians 2F Liv" in ack
    state = position(desk)
    assert str(state.units["SCA"]) == "CXII/2F SCA" and state.units["SCA"].leader == "CXII"
    assert str(state.units["LIV"]) == "2F LIV" and state.units["LIV"].power == "Russians"
    # A player orders the leader by name, and his fleets apart.
    ack = desk.player("Swedish", "CXII(Sca)-Got\n2F Sca - Cos")
    assert "= A SCA - GOT" in ack and "= 2F SCA - COS" in ack


def test_set_unit_refuses_what_cannot_stand_there(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    lines = ["F Par", "A Nth", "F Spa", "F Spa/ec", "A Stp/nc", "A Par", "Q Par", "", "A Swi"]
    ack = refused(desk, "\n".join(f"SET UNIT France {unit}".strip() for unit in lines) + "\nSET UNIT Narnia A Par")
    assert ": a fleet cannot stand inland (Paris)" in ack
    assert ": an army cannot stand at sea (North Sea)" in ack
    assert ": Spain has 2 coasts: say which a fleet is on (F SPA/NC or F SPA/SC)" in ack
    assert ": Spain has no east coast" in ack
    assert ": an army stands in St Petersburg, not on one of its coasts: A STP" in ack
    assert ": Diplomacy (standard map) has no power 'Narnia'; its great powers are Austria, England" in ack
    assert ": 'Q Par' is no unit: write it as A Par, F Stp/nc or F Spa nc" in ack
    assert ": A Paris (France) is there already" in ack
    assert ": name the power and the unit: SET UNIT <power> <unit>" in ack
    assert ": no unit can stand in Switzerland: it is impassable" in ack
    assert "REJECTED  SET UNIT France A Bur" in desk.player("France", "SET UNIT France A Bur")
    forming = new_game(session_factory, "g2", start=False)
    assert ": g2 is forming, not under way" in forming.master("SET UNIT France A Bur")


def test_remove_unit_on_the_board_and_a_dislodged_one(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.player("France", "A Par - Bur\nA Mar S A Par - Bur")
    ack = desk.master("REMOVE UNIT Paris")
    assert "= A Paris (France) taken off the board; withdrawn, as they no longer fit: France: A PAR - BUR" in ack
    assert "PAR" not in position(desk).units
    assert on_file(desk) == []  # the support of a move no unit makes is void too
    [entry] = desk.audit("remove unit")
    assert (entry.detail["before"], entry.detail["after"]) == ("A PAR (France)", None)
    ack = refused(desk, "REMOVE UNIT Bur\nREMOVE UNIT Xyz\nREMOVE UNIT\nREMOVE UNIT DISLODGED Mar")
    assert ": there is no unit in Burgundy" in ack and ": unknown province 'Xyz'" in ack
    assert ": name the place: REMOVE UNIT <location>" in ack and ": no unit was dislodged from Marseilles" in ack
    # A unit dislodged (by the GM's edits and a PROCESS): the retreat phase's unit to remove.
    desk.master("SET UNIT France A Par\nSET UNIT Germany A Bur")
    desk.player("France", "A Par - Bur\nA Mar S A Par - Bur")
    desk.master("PROCESS")
    assert desk.phase_label() == "Spring 1901, Retreat"
    desk.player("Germany", "A Bur - Ruh")
    ack = refused(desk, "REMOVE UNIT Ruh")
    ack = desk.master("REMOVE UNIT DISLODGED Burgundy")
    assert "= the dislodged A Burgundy (Germany) taken off the board; withdrawn, as they no longer fit: " \
           "Germany: A BUR R RUH" in ack
    state = position(desk)
    assert state.dislodged == {} and str(state.units["BUR"]) == "A BUR" and state.units["BUR"].power == "France"


def test_set_owner_and_set_home(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    ack = desk.master("SET OWNER Bel France\nSET OWNER St Petersburg Germany\nSET OWNER Par NONE\nSET HOME France Bel")
    assert "= Belgium now owned by France (was nobody's)" in ack
    assert "= St Petersburg now owned by Germany (was Russia's)" in ack
    assert "= Paris now owned by nobody (was France's)" in ack
    assert "= Belgium now a home centre of France" in ack
    state = position(desk)
    assert state.supply_centres["BEL"] == "France" and state.supply_centres["STP"] == "Germany"
    assert "PAR" not in state.supply_centres
    assert state.home_centres["France"] == frozenset({"BRE", "MAR", "PAR", "BEL"})
    assert [(e.detail["before"], e.detail["after"]) for e in desk.audit("set owner")] == [
        (None, "France"), ("Russia", "Germany"), ("France", None)]
    [home] = desk.audit("set home")
    assert home.detail["before"] == ["BRE", "MAR", "PAR"] and home.detail["after"] == ["BEL", "BRE", "MAR", "PAR"]
    ack = refused(desk, "SET OWNER Bur France\nSET OWNER Bel Narnia\nSET OWNER Bel France\nSET OWNER Bel\n"
                        "SET HOME France Bel\nSET HOME France Bur\nSET HOME Narnia Par")
    assert ": Burgundy is no supply centre" in ack and "no power 'Narnia' (NONE: nobody)" in ack
    assert ": Belgium is owned by France already" in ack and ": Belgium is a home centre of France already" in ack
    assert "SET OWNER <centre> <power>|NONE" in ack


def test_set_phase_keeps_the_position_and_withdraws_what_no_longer_fits(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.player("France", "A Par - Bur")
    ack = desk.master("SET PHASE F1901")
    assert "= the phase is now Fall 1901, Movement (was Spring 1901, Movement)" in ack
    assert desk.phase_label() == "Fall 1901, Movement" and on_file(desk) == [("France", "A PAR - BUR")]
    units = position(desk).units
    ack = desk.master("SET PHASE Winter 1901")
    assert "withdrawn, as they no longer fit: France: A PAR - BUR" in ack
    assert desk.phase_label() == "Winter 1901, Adjustment" and position(desk).units == units
    assert [(e.detail["before"], e.detail["after"]) for e in desk.audit("set phase")] == [
        ("Spring 1901, Movement", "Fall 1901, Movement"), ("Fall 1901, Movement", "Winter 1901, Adjustment")]
    desk.master("SET PHASE Spring 1901")
    ack = refused(desk, "SET PHASE Spring 1901\nSET PHASE Spring 1901 retreats\nSET PHASE Winter 1901 movement\n"
                        "SET PHASE sometime\nSET PHASE")
    assert ": the current phase is Spring 1901, Movement already" in ack
    assert ": Spring 1901, Retreat: a retreat phase needs dislodged units, and there are none" in ack
    assert ": adjustments are in the winter, and the winter has only adjustments" in ack
    assert ": 'sometime' is no phase" in ack
    desk.master("PROCESS")
    ack = refused(desk, "SET PHASE S1901")
    assert ": g1 has had a phase Spring 1901, Movement already (ROLLBACK returns to it)" in ack


def test_set_phase_out_of_a_retreat_disbands_the_dislodged(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.master("SET UNIT Germany A Bur")
    desk.player("France", "A Par - Bur\nA Mar S A Par - Bur")
    desk.master("PROCESS")
    assert desk.phase_label() == "Spring 1901, Retreat"
    ack = desk.master("SET PHASE Fall 1901")
    assert "the phase is now Fall 1901, Movement (was Spring 1901, Retreat); the dislodged units are disbanded: " \
           "A Burgundy (Germany)" in ack
    assert position(desk).dislodged == {}


def test_reissue_mails_every_player_the_corrected_position_as_a_gm_correction(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.player("France", "A Par - Bur")
    desk.player("Germany", "A Mun - Bur")
    refused(desk, "REISSUE")  # nothing edited yet
    desk.master("SET UNIT Austria A Tyr\nREMOVE UNIT Par\nSET OWNER Bel England")
    before = desk.last_mail_id()
    ack = desk.master("REISSUE")
    assert "accepted  REISSUE" in ack
    assert "the corrected position of Spring 1901, Movement (3 changes) went to every player and GM" in ack
    mails = desk.mails(kind="correction", since=before)
    assert sorted(m.to_addr for m in mails) == sorted([*PLAYERS, MASTER])
    changes = ["A Tyrolia (Austria) set on the board", "A Paris (France) taken off the board",
               "Belgium now owned by England (was nobody's)"]
    for mail in mails:
        assert mail.subject.startswith("[g1] GM correction: the position in Spring 1901")
        lines = mail.body_text.splitlines()
        assert lines[1] == ("GM CORRECTION: the GM has corrected the position of g1 (Diplomacy (standard map)) "
                            "at the start of Spring 1901, Movement.")
        for change in changes:
            assert f"  {change}" in lines and change in html.unescape(mail.body_html)
        assert "  units:     A BUD, A TYR, A VIE, F TRI" in lines
        assert "  units:     A MAR, F BRE" in lines
        assert "centres:   Belgium, Edinburgh, London, Liverpool" in mail.body_text
        assert "A MUN - BUR" not in mail.body_text  # nobody's orders, but one's own withdrawn
        assert ("A PAR - BUR" in mail.body_text) == (mail.to_addr in (address("France"), MASTER))
        [picture] = mail.attachments
        assert picture["map"]["kind"] == "position" and picture["content_id"] in mail.body_html
    gm_copy = next(m for m in mails if m.to_addr == MASTER)
    assert gm_copy.subject.endswith("(GM copy)") and "  France: A PAR - BUR" in gm_copy.body_text
    [entry] = desk.audit("reissue")
    assert entry.actor == MASTER and entry.detail == {"phase": "Spring 1901, Movement", "changes": changes}
    ack = refused(desk, "REISSUE\nREISSUE now")
    assert ": nothing to reissue: no position edit" in ack and "usage: REISSUE" in ack
    # Edits before an adjudication are told by its results: nothing left to reissue.
    desk.master("SET UNIT Austria A Gal\nPROCESS")
    refused(desk, "REISSUE")
    assert "REJECTED  REISSUE" in desk.player("France", "REISSUE")


def test_edits_and_reissue_on_the_command_line(session_factory: sessionmaker[Session], migrated_url: str) -> None:
    desk = new_game(session_factory)
    done = gm("game", "master", "g1", "SET UNIT France A Ruh", "REISSUE", url=migrated_url)
    assert done.returncode == 0, done.stderr
    assert "accepted  SET UNIT France A Ruh" in done.stdout and "accepted  REISSUE" in done.stdout
    assert str(position(desk).units["RUH"]) == "A RUH"
    assert [e.actor for e in desk.audit()[-2:]] == [OPERATOR, OPERATOR]
    assert len(desk.mails(kind="correction")) == len(PLAYERS) + 1
    bad = gm("game", "master", "g1", "SET UNIT France F Mun", url=migrated_url)
    assert bad.returncode == 2 and "a fleet cannot stand inland (Munich)" in bad.stdout


def test_a_player_posing_as_gm_changes_nothing(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    lines = ["SET UNIT France A Ruh", "REMOVE UNIT Par", "SET OWNER Bel France", "SET HOME France Bel",
             "SET PHASE F1901", "REISSUE", "DP France 1 A Par H", "ORDER Germany A Mun - Bur"]
    state, before, audits = position(desk), desk.last_mail_id(), len(desk.audit())
    ack = desk.player("France", "\n".join(lines))
    for line in lines:
        assert f"REJECTED  {line}" in ack
    assert position(desk) == state and on_file(desk) == [] and desk.phase_label() == "Spring 1901, Movement"
    assert [m.kind for m in desk.mails(since=before)] == ["ack"] and len(desk.audit()) == audits
