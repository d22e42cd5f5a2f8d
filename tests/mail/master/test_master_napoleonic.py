"""The GM of a Napoleonic Wars game by mail: the game at a glance in a bidding phase, SET CONTROL
(the GM's choice the rules leave to the GM), SET CENTRE (the board's missing centres) and ORDER
for an uncontrolled minor power's unit (rule 4: the GM makes its unordered moves). Each changes
exactly what it says, is audited, and is refused, changing nothing, where it makes no sense."""
from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker

from desk import Desk, new_game
from gm.games import current_phase
from gm.store.db import transaction

MAJORS = ["Austria", "England", "France", "Prussia", "Russia"]


def nap(sf: sessionmaker[Session]) -> Desk:
    return new_game(sf, "nw", "napoleonic", MAJORS)


def position(desk: Desk):  # type: ignore[no-untyped-def]
    with transaction(desk.sf) as s:
        current = current_phase(s, desk.row(s))
        assert current is not None
        return current.state


def test_the_game_at_a_glance_counts_bids(session_factory: sessionmaker[Session]) -> None:
    desk = nap(session_factory)
    assert desk.phase_label() == "Winter 1800, Bidding"
    desk.player("England", "IP 0 Denmark")
    ack = desk.master("PAUSE")
    assert "England  england@players.example  orders in" in ack
    assert "France   france@players.example   0 of 1 orders in" in ack


def test_set_control_and_set_centre(session_factory: sessionmaker[Session]) -> None:
    desk = nap(session_factory)
    ack = desk.master("SET CONTROL Spain France\nSET CENTRE Rum NONE\nSET CENTRE Finland Russia")
    assert "= Spain is now controlled by France (was nobody)" in ack
    assert "= Rumania is now a supply centre, owned by nobody" in ack
    assert "= Finland is now a supply centre, owned by Russia" in ack
    state = position(desk)
    assert state.extra["control"] == {"Spain": "France"}
    assert state.extra["added_centres"] == ["FIN", "RUM"] and state.supply_centres["FIN"] == "Russia"
    assert [e.detail["change"] for e in desk.audit("set control")] == ["Spain is now controlled by France (was nobody)"]
    assert len(desk.audit("set centre")) == 2
    # Russia has a fifth centre: 15 IPs now.
    assert "IPs used: 15 of 15, left: 0" in desk.player("Russia", "IP 15 Sweden")
    ack = desk.master("SET CONTROL Spain France\nSET CONTROL France Spain\nSET CONTROL Spain Portugal\n"
                      "SET CENTRE MAO\nSET CENTRE Rum\nSET OWNER Rum Austria\nSET CONTROL Spain NONE")
    assert ": Spain is controlled by France already" in ack
    assert ": 'France' is no minor power; they are Bavaria, Denmark" in ack
    assert ": Portugal is a minor power: only a major power controls one" in ack
    assert ": Mid-Atlantic Ocean cannot be a supply centre: it is a sea" in ack
    assert ": Rumania is a supply centre already (SET OWNER changes its owner)" in ack
    assert "= Rumania now owned by Austria (was nobody's)" in ack  # SET OWNER takes an added centre
    assert "= Spain is now controlled by nobody (was France)" in ack
    assert position(desk).extra["control"] == {}


def test_set_control_needs_a_variant_with_control(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    ack = desk.master("SET CONTROL Spain France")
    assert "REJECTED  SET CONTROL Spain France\n            : Diplomacy (standard map) has no control of minor powers" in ack


def test_the_gm_orders_an_uncontrolled_minor_powers_unit(session_factory: sessionmaker[Session]) -> None:
    desk = nap(session_factory)
    for power in MAJORS:
        desk.player(power, "IP 0 Denmark")
    desk.end_phase()
    assert desk.phase_label() == "Spring 1801, Movement"
    ack = desk.master("ORDER Portugal A POR - AND\nORDER England A POR - AND")
    assert "= Portugal: A POR - AND (entered by the GM)" in ack
    assert ": England: the unit in Portugal belongs to Portugal" in ack
    ack = desk.player("England", "A POR - AND")  # England does not control Portugal
    assert "REJECTED" in ack and "belongs to Portugal" in ack


def test_set_unit_places_multiple_units(session_factory: sessionmaker[Session]) -> None:
    desk = nap(session_factory)
    ack = desk.master("SET UNIT France 2A Paris\nSET UNIT England A/F English Channel\nSET UNIT England 2A/F NAO")
    assert "= 2A Paris (France) set on the board, in place of A Paris (France)" in ack
    assert "= A/F English Channel (England) set on the board" in ack
    assert ": 2A/F cannot stand at sea (North Atlantic Ocean): each army needs a fleet to carry it" in ack
    state = position(desk)
    assert str(state.units["PAR"]) == "2A PAR" and str(state.units["ENG"]) == "A/F ENG" and "NAO" not in state.units


def test_orders_for_a_unit_s_parts_are_kept_side_by_side(session_factory: sessionmaker[Session]) -> None:
    """Multiple units by mail: each part of a 2A keeps its own order on file; an order for the
    whole unit replaces them, and a part's order the whole unit's."""
    desk = nap(session_factory)
    desk.master("SET UNIT France 2A Burgundy\nSET PHASE Spring 1801 Movement")
    ack = desk.player("France", "1A Bur S A Par - Pic\n1A Bur - Pic")
    assert "1A BUR S A PAR - PIC" in ack and "1A BUR - PIC" in ack
    on_file = ack.split("on file", 1)[-1]
    assert "1A BUR S A PAR - PIC" in on_file and "1A BUR - PIC" in on_file
    on_file = desk.player("France", "2A Bur H").split("on file", 1)[-1]
    assert "2A BUR H" in on_file and "1A BUR" not in on_file
    on_file = desk.player("France", "1A Bur - Pic").split("on file", 1)[-1]
    assert "1A BUR - PIC" in on_file and "2A BUR H" not in on_file
    # A third part order for a 2A: the earliest part order goes.
    on_file = desk.player("France", "1A Bur S A Par - Pic\n1A Bur S A Par - Mar").split("on file", 1)[-1]
    assert "1A BUR S A PAR - PIC" in on_file and "1A BUR S A PAR - MAR" in on_file and "1A BUR - PIC" not in on_file
    # A part's support that cannot work (Burgundy does not border Bordeaux) is refused at once.
    assert "cannot reach Bordeaux" in desk.player("France", "1A Bur S A Par - Bor")
