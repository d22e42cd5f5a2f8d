"""Co-GMs by mail: PROMOTE (ADD MASTER) makes an address a GM once it confirms with the code
mailed to it, and it sets its own GM password; it then gets the GM's copies and runs the game.
DEMOTE takes a GM away, never the last."""
from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from desk import JUDGE, MASTER, Desk, address, confirmation_code, new_game

from gm.games import masters
from gm.store.db import transaction
from gm.store.models import Master

CO = "co-gm@gms.example"


def gms(desk: Desk) -> list[str]:
    with transaction(desk.sf) as s:
        return masters(s, desk.row(s))


def as_gm(desk: Desk, sender: str, body: str) -> str:
    """`body` in a mail from `sender`; the answer to `sender`."""
    return desk.ack(desk.send(sender, body), sender)


def test_promote_makes_a_co_gm_once_the_address_confirms(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.master(f"PROMOTE {CO.upper()}")
    assert f"accepted  PROMOTE {CO.upper()}\n            = a code to confirm it was mailed to {CO}: that address " \
           "is a GM of g1 once the code comes back" in ack
    assert gms(desk) == [MASTER]  # not before the code comes back
    (asked,) = desk.mails(to=CO, since=before)
    assert asked.kind == "confirm" and asked.subject.startswith("gm: confirm you are a GM of g1 (CONFIRM ")
    assert "SET PASSWORD <your GM password>" in asked.body_text and "gm-pw" not in asked.body_text
    # The address confirms, and sets its GM password in the same mail.
    ack = as_gm(desk, CO, f"CONFIRM {confirmation_code(desk.sf, CO)}\nSET PASSWORD co-pw")
    assert "you are a GM of g1: you get a copy of every results mail, with every secret allocation" in ack
    assert "accepted  SET PASSWORD ********\n            = your GM password changed" in ack and "co-pw" not in ack
    assert gms(desk) == [MASTER, CO]
    assert [e.actor for e in desk.audit("promote")] == [MASTER]
    assert [(e.actor, e.detail) for e in desk.audit("promoted")] == [(CO, {"master": CO, "by": MASTER})]
    # The co-GM runs the game with its own password; the first GM keeps theirs.
    ack = as_gm(desk, CO, "SIGNON MASTER g1 co-pw\nORDER France A Par - Bur")
    assert "signed on as GM of g1" in ack and "accepted  ORDER France A Par - Bur" in ack
    assert "signed on as GM of g1" in desk.master("LIST g1")
    # ... and gets the GM's copy of the results.
    since = desk.last_mail_id()
    desk.master("PROCESS")
    (copy,) = desk.mails(kind="results", to=CO, since=since)
    assert copy.subject.endswith("(GM copy)")
    # The code serves once.
    assert "no such confirmation code" in as_gm(desk, CO, f"CONFIRM {confirmation_code(desk.sf, CO)}")


def test_add_master_is_promote_and_refusals_change_nothing(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.master(f"PROMOTE {address('France')}\nPROMOTE {MASTER}\nPROMOTE noreply@gms.example\nPROMOTE\n"
                      f"PROMOTE {JUDGE}")
    assert f"{address('France')} plays France in g1: a GM plays no power of the game" in ack
    assert f"{MASTER} is a GM of g1 already" in ack
    assert "noreply@gms.example is a machine's address" in ack
    assert "REJECTED  PROMOTE\n            : usage: PROMOTE <address>   (also ADD MASTER <address>)" in ack
    assert f"{JUDGE} is the judge's own address" in ack
    assert [m.kind for m in desk.mails(since=before)] == ["ack"] and not desk.audit("promote")
    # A player may not.
    assert f"REJECTED  PROMOTE {CO}" in desk.player("Germany", f"PROMOTE {CO}")
    assert desk.mails(to=CO) == []
    # ADD MASTER is the same command.
    assert f"a code to confirm it was mailed to {CO}" in desk.master(f"ADD MASTER {CO}")
    # A forged CONFIRM from elsewhere with a wrong code makes no GM.
    assert "no such confirmation code" in as_gm(desk, "evil@else.example", "CONFIRM AAAAA-AAAAA")
    assert gms(desk) == [MASTER]


def test_demote_takes_a_gm_away_but_never_the_last(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.master(f"PROMOTE {CO}")
    as_gm(desk, CO, f"CONFIRM {confirmation_code(desk.sf, CO)}\nSET PASSWORD co-pw")
    ack = desk.master("DEMOTE nobody@gms.example")
    assert f"nobody@gms.example is no GM of g1; its GMs are {MASTER}, {CO}" in ack
    before = desk.last_mail_id()
    ack = desk.master(f"DEMOTE {CO}")
    assert f"accepted  DEMOTE {CO}\n            = {CO} is no longer a GM of g1; the GMs are told" in ack
    assert gms(desk) == [MASTER]
    told = desk.mails(kind="notice", since=before)
    assert sorted(m.to_addr for m in told) == sorted([MASTER, CO])
    assert all(m.subject == f"[g1] {CO} is no longer a GM" for m in told)
    with transaction(desk.sf) as s:
        row = s.scalars(select(Master).where(Master.email == CO)).one()
        assert row.left_at is not None
    # The demoted GM's password signs on no more; no more copies go there.
    ack = as_gm(desk, CO, "SIGNON MASTER g1 co-pw\nPAUSE")
    assert "signed on as GM of g1" not in ack and "accepted" not in ack
    since = desk.last_mail_id()
    desk.master("PROCESS")
    assert desk.mails(kind="results", since=since) and desk.mails(to=CO, since=since) == []
    # The last GM stays.
    ack = desk.master(f"DEMOTE {MASTER}")
    assert f"{MASTER} is the only GM of g1: PROMOTE another first" in ack and gms(desk) == [MASTER]
    assert [e.detail for e in desk.audit("demote")] == [{"master": CO}]
