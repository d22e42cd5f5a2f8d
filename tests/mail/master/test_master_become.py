"""BECOME <power>: for the rest of the mail the GM acts as the power (orders, WAIT, press), each
line recorded as the GM's, the orders shown as entered by the GM; the player's own commands stay
theirs."""
from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from desk import MASTER, Desk, address, new_game

from gm.games import current_phase
from gm.store.db import transaction
from gm.store.models import OrderRecord, Player


def on_file(desk: Desk, power: str) -> list[tuple[str, str | None]]:
    with transaction(desk.sf) as s:
        current = current_phase(s, desk.row(s))
        assert current is not None
        return sorted(s.execute(select(OrderRecord.canonical, OrderRecord.entered_by).where(
            OrderRecord.phase_id == current.row.id, OrderRecord.power == power, OrderRecord.current.is_(True))).all())


def waiting(desk: Desk, power: str) -> bool:
    with transaction(desk.sf) as s:
        return s.scalars(select(Player.waiting).where(Player.power == power, Player.left_at.is_(None))).one()


def test_the_gm_acts_as_a_power_for_the_rest_of_the_mail(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    out = desk.send(MASTER, "SIGNON MASTER g1 gm-pw\nBECOME france\nA Par - Bur\nA Mar - Spain\nWAIT\n"
                            "PRESS TO Germany\nBurgundy is ours.\nENDPRESS\nSET PASSWORD stolen\nA Bre - Mos")
    ack = next(m.body_text for m in desk.mails(kind="ack", to=MASTER, since=before))
    assert "accepted  BECOME france\n            = for the rest of this mail you act as France: its orders, WAIT, " \
           "NOWAIT, CLEAR and press, each recorded as the GM's" in ack
    assert "accepted  A Par - Bur\n            = A PAR - BUR (as France, by the GM)" in ack
    assert "accepted  WAIT\n            = Spring 1901, Movement will not end before its deadline" in ack
    assert "accepted  PRESS TO Germany" in ack and "relayed to Germany (1 line) (as France, by the GM)" in ack
    assert "REJECTED  SET PASSWORD ********\n            : the GM acting as France gives its orders, WAIT, NOWAIT, " \
           "CLEAR and press only: SET PASSWORD is its player's" in ack
    assert "REJECTED  A Bre - Mos" in ack and "stolen" not in ack
    # The GM's acknowledgement ends with the game at a glance, as always.
    assert "g1 now" in ack and "France   france@players.example" in ack
    # France's player gets no acknowledgement of the GM's mail; their password is theirs still.
    assert [m.kind for m in desk.mails(to=address("France"), since=before)] == []
    assert "signed on as France in g1" in desk.player("France", "LIST")
    # What was done, as France: orders entered by the GM, WAIT, press from France.
    assert on_file(desk, "France") == [("A MAR - SPA", MASTER), ("A PAR - BUR", MASTER)]
    assert waiting(desk, "France")
    (press,) = desk.mails(kind="press", to=address("Germany"), since=before)
    assert "Burgundy is ours." in press.body_text and "France" in press.body_text and MASTER not in press.body_text
    entries = desk.audit("as power")
    assert [(e.actor, e.detail["line"]) for e in entries] == [  # type: ignore[index]
        (MASTER, "A Par - Bur"), (MASTER, "A Mar - Spain"), (MASTER, "WAIT"), (MASTER, "PRESS TO Germany")]
    assert all(e.detail == {"power": "France", "line": e.detail["line"]} for e in entries)  # type: ignore[index]
    # The results say who entered them.
    since = desk.last_mail_id()
    desk.master("PROCESS")
    france = next(m for m in desk.mails(kind="results", since=since) if m.to_addr == address("Germany"))
    assert "A PAR - BUR" in france.body_text and "(entered by the GM)" in france.body_text


def test_become_ends_at_another_become_or_signon(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    ack = desk.master("BECOME France\nA Par H\nBECOME Germany\nA Ber - Kie\nSIGNON MASTER g1 gm-pw\nEXTEND 1")
    assert "accepted  BECOME Germany" in ack and "A BER - KIE (as Germany, by the GM)" in ack
    assert "accepted  EXTEND 1" in ack and "EXTEND 1\n            = " in ack and "(as Germany" not in \
        ack.split("EXTEND 1")[1].split("\n\n")[0]
    assert on_file(desk, "France") == [("A PAR H", MASTER)] and on_file(desk, "Germany") == [("A BER - KIE", MASTER)]


def test_become_refusals(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    ack = desk.master("BECOME Narnia\nBECOME\nEJECT Italy\nBECOME Italy\nA Par - Bur")
    assert "Diplomacy (standard map) has no great power 'Narnia'" in ack
    assert "REJECTED  BECOME\n            : usage: BECOME <power>" in ack
    assert "nobody plays Italy in g1: ORDER Italy <order> gives its orders" in ack
    assert "REJECTED  A Par - Bur\n            : not a GM command" in ack  # still the GM: no power became
    assert "REJECTED  BECOME France" in desk.player("Germany", "BECOME France\nA Par - Bur")
    assert on_file(desk, "France") == [] and not desk.audit("as power")
