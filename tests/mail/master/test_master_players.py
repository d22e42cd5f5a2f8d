"""Who plays a power, at the GM's word: REPLACE (a new player, the password to the new address
only), EJECT, CIVIL DISORDER and UNCD by each variant's rules (standard and Ambition & Empire)."""
from __future__ import annotations

import re

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from desk import JUDGE, MASTER, STANDARD, Desk, address, new_game

from gm.games import current_phase, variant_of
from gm.lifecycle import phases
from gm.store.db import state_from_json, transaction
from gm.store.models import OrderRecord, Player
from gm.store.passwords import check_password
from gm.variants import load_variant

EVERYONE = sorted([address(p) for p in STANDARD] + [MASTER])
NEW = "newcomer@elsewhere.example"
AMBITION = load_variant("ambition").great_powers


def players(desk: Desk) -> list[tuple[str, str, bool, bool, int]]:
    """Every player row: (power, address, still playing, civil disorder, late streak), oldest first."""
    with transaction(desk.sf) as s:
        rows = s.scalars(select(Player).where(Player.game_id == desk.row(s).id).order_by(Player.id))
        return [(p.power or "", p.email, p.left_at is None, p.civil_disorder, p.late_streak) for p in rows]


def on_file(desk: Desk, power: str) -> list[str]:
    with transaction(desk.sf) as s:
        current = current_phase(s, desk.row(s))
        assert current is not None
        return list(s.scalars(select(OrderRecord.canonical).where(
            OrderRecord.phase_id == current.row.id, OrderRecord.power == power, OrderRecord.current.is_(True))))


def awaited(desk: Desk) -> list[str]:
    with transaction(desk.sf) as s:
        game = desk.row(s)
        current = current_phase(s, game)
        assert current is not None
        return sorted(phases.awaited(s, game, variant_of(game), current, phases.players_by_power(s, game)))


def test_replace_gives_a_power_a_new_player_whose_password_goes_to_the_new_address_only(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.player("France", "A Par - Bur")
    with transaction(desk.sf) as s:  # a France late twice in a row
        player = next(p for p in s.scalars(select(Player)) if p.power == "France")
        player.late_streak = 2
    before = desk.last_mail_id()
    ack = desk.master(f"REPLACE france {NEW.upper()}")
    assert f"accepted  REPLACE france {NEW.upper()}\n            = {NEW} plays France in place of " \
           "france@players.example; the password, the position and what is due went to newcomer@elsewhere.example " \
           "only" in ack
    rows = players(desk)
    assert ("France", address("France"), False, False, 2) in rows
    assert rows[-1] == ("France", NEW, True, False, 0)
    # The new address gets the password, and nothing else does.
    (notice,) = desk.mails(to=NEW, since=before)
    assert notice.kind == "notice" and notice.subject == "g1: you play France"
    password = re.search(r"Your password: (\S+)", notice.body_text).group(1)  # type: ignore[union-attr]
    assert "SIGNON France g1 <password>" in notice.body_text and "Spring 1901, Movement" in notice.body_text
    assert JUDGE in notice.body_text
    others = [m for m in desk.mails(since=before) if m.to_addr != NEW and m.kind != "ack"]
    assert sorted(m.to_addr for m in others) == EVERYONE  # the player replaced too
    for mail in others:
        assert mail.subject == "[g1] France has a new player"
        assert NEW not in mail.body_text and password not in mail.body_text and "@" not in mail.body_text
    assert all(password not in m.body_text for m in desk.mails(since=before) if m.to_addr != NEW)
    with transaction(desk.sf) as s:
        new = s.scalars(select(Player).where(Player.email == NEW)).one()
        assert check_password(new.password_hash, password)
    (entry,) = desk.audit("replace")
    assert entry.actor == MASTER and entry.detail == {"power": "France", "from": address("France"), "to": NEW}
    assert password not in str(entry.detail)
    # The new player signs on with it, and sees the orders on file; the old password is refused.
    out = desk.send(NEW, f"SIGNON France g1 {password}\nA Mar - Spa")
    ack = desk.ack(out, NEW)
    assert "accepted  A Mar - Spa" in ack and "A PAR - BUR" in ack
    desk.send(address("France"), "SIGNON France g1 pw\nA Bre H")
    told = desk.mails(to=address("France"))[-1].body_text  # no longer France's player: told so, and no more
    assert "you no longer play France in g1 (replaced on " in told and "A Bre" not in told


def test_replace_refusals_change_nothing(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    was = players(desk)
    before = desk.last_mail_id()
    ack = desk.master(f"REPLACE France not-an-address\nREPLACE France {JUDGE}\nREPLACE Narnia {NEW}\n"
                      f"REPLACE France {address('Germany')}\nREPLACE France {address('France')}\nREPLACE France")
    assert "REJECTED  REPLACE France not-an-address\n            : 'not-an-address' is not a mail address" in ack
    assert f"{JUDGE} is the judge's own address" in ack
    assert "Diplomacy (standard map) has no great power 'Narnia'; its great powers are Austria, England" in ack
    assert f"{address('Germany')} plays Germany in g1: one address plays one power" in ack
    assert f"{address('France')} plays France in g1 already" in ack
    assert "usage: REPLACE <power> <address>" in ack
    assert players(desk) == was and not desk.audit("replace")
    assert [m.kind for m in desk.mails(since=before)] == ["ack"]
    # A player cannot do it.
    assert f"REJECTED  REPLACE France {NEW}" in desk.player("Germany", f"REPLACE France {NEW}")
    assert players(desk) == was


def test_replace_of_a_power_in_civil_disorder_starts_the_new_player_afresh(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    with transaction(desk.sf) as s:
        player = next(p for p in s.scalars(select(Player)) if p.power == "Italy")
        player.civil_disorder, player.late_streak = True, 3
    desk.master(f"REPLACE Italy {NEW}")
    assert players(desk)[-1] == ("Italy", NEW, True, False, 0)
    assert "Italy" in awaited(desk)


def test_eject_leaves_a_power_to_the_defaults_and_nobody_waits_for_it(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.player("Germany", "A Ber - Kie")
    before = desk.last_mail_id()
    ack = desk.master("EJECT germany")
    assert "accepted  EJECT germany\n            = germany@players.example no longer plays Germany" in ack
    assert ("Germany", address("Germany"), False, False, 0) in players(desk)
    assert on_file(desk, "Germany") == []  # its units take the defaults
    assert "Germany" not in awaited(desk) and "France" in awaited(desk)
    told = [m for m in desk.mails(since=before) if m.kind == "announcement"]
    assert sorted(m.to_addr for m in told) == EVERYONE
    assert "Nobody plays it now" in told[0].body_text and "@" not in told[0].body_text
    (entry,) = desk.audit("eject")
    assert entry.detail == {"power": "Germany", "player": address("Germany")}
    ack = desk.master("EJECT Germany\nEJECT Atlantis\nEJECT")
    assert "nobody plays Germany in g1" in ack and "no great power 'Atlantis'" in ack and "usage: EJECT <power>" in ack
    assert len(desk.audit("eject")) == 1
    # REPLACE gives it a player again.
    desk.master(f"REPLACE Germany {NEW}")
    assert players(desk)[-1] == ("Germany", NEW, True, False, 0) and "Germany" in awaited(desk)


def test_eject_in_a_forming_game_opens_the_power_to_join(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, powers=["France", "Italy"], start=False)
    ack = desk.master("EJECT Italy")
    assert "accepted  EJECT Italy" in ack
    out = desk.join("someone@new.example", "Italy", "secret")
    assert "you play Italy in g1" in desk.ack(out, "someone@new.example")


def test_civil_disorder_and_uncd_in_standard(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.player("Turkey", "A Con - Bul")
    with transaction(desk.sf) as s:
        state_before = current_phase(s, desk.row(s)).row.state_json  # type: ignore[union-attr]
    before = desk.last_mail_id()
    ack = desk.master("CIVIL DISORDER Turkey")
    assert "accepted  CIVIL DISORDER Turkey\n            = Turkey is in civil disorder; its orders on file are " \
           "withdrawn; every player is told" in ack
    assert ("Turkey", address("Turkey"), True, True, 0) in players(desk)
    assert on_file(desk, "Turkey") == [] and "Turkey" not in awaited(desk)
    with transaction(desk.sf) as s:
        game = desk.row(s)
        assert current_phase(s, game).row.state_json == state_before  # type: ignore[union-attr]
        assert game.orders_changed
    told = [m for m in desk.mails(since=before) if m.kind == "announcement"]
    assert sorted(m.to_addr for m in told) == EVERYONE
    assert "put Turkey in civil disorder, by the rules of Diplomacy (standard map)" in told[0].body_text
    assert "back as soon as they order again" in told[0].body_text
    assert desk.audit("civil disorder")[-1].detail == {"power": "Turkey", "permanent": False}
    assert desk.audit("civil disorder")[-1].actor == MASTER
    assert "Turkey is in civil disorder already" in desk.master("CIVIL DISORDER Turkey")
    assert len([a for a in desk.audit("civil disorder") if a.actor == MASTER]) == 1
    # UNCD takes it back.
    before = desk.last_mail_id()
    ack = desk.master("UNCD Turkey")
    assert "accepted  UNCD Turkey\n            = Turkey is out of civil disorder; every player is told" in ack
    assert ("Turkey", address("Turkey"), True, False, 0) in players(desk) and "Turkey" in awaited(desk)
    told = [m for m in desk.mails(since=before) if m.kind == "announcement"]
    assert sorted(m.to_addr for m in told) == EVERYONE and "out of civil disorder" in told[0].body_text
    assert desk.audit("uncd")[0].detail == {"power": "Turkey"}
    ack = desk.master("UNCD Turkey\nUNCD\nCIVIL DISORDER")
    assert "Turkey is not in civil disorder" in ack and "usage: UNCD <power>" in ack
    assert "usage: CIVIL DISORDER <power>" in ack
    assert len(desk.audit("uncd")) == 1


def test_civil_disorder_is_refused_in_a_game_not_under_way_and_for_a_power_nobody_plays(
        session_factory: sessionmaker[Session]) -> None:
    forming = new_game(session_factory, start=False)
    ack = forming.master("CIVIL DISORDER France\nUNCD France")
    assert "REJECTED  CIVIL DISORDER France\n            : g1 is forming, not under way" in ack
    assert "REJECTED  UNCD France\n            : g1 is forming, not under way" in ack
    desk = new_game(session_factory, "g2", powers=["France", "Italy"])
    assert "nobody plays Austria in g2" in desk.master("CIVIL DISORDER Austria")
    assert not desk.audit("civil disorder") and not forming.audit("civil disorder")


def test_civil_disorder_in_ambition_disbands_the_power_for_good(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, "ae1", "ambition", AMBITION)
    desk.player("France", "A Par - Bur")
    before = desk.last_mail_id()
    ack = desk.master("CIVIL DISORDER france")
    assert "accepted  CIVIL DISORDER france\n            = France is in civil disorder for good" in ack
    with transaction(desk.sf) as s:
        state = state_from_json(current_phase(s, desk.row(s)).row.state_json)  # type: ignore[union-attr]
    # Section VII: the units are disbanded, the empty centres rise as independent minor powers.
    assert not state.units_of("France") and "France" in state.extra["civil_disorder"]
    assert on_file(desk, "France") == [] and "France" not in awaited(desk)
    assert ("France", address("France"), True, True, 0) in players(desk)
    told = [m for m in desk.mails(since=before) if m.kind == "announcement"]
    assert len(told) == len(AMBITION) + 1
    assert "by the rules of Ambition & Empire (2006)" in told[0].body_text
    assert "France is never played again" in told[0].body_text
    assert desk.audit("civil disorder")[-1].detail == {"power": "France", "permanent": True}
    # UNCD is refused, naming the rule; a new player starts in civil disorder.
    ack = desk.master("UNCD France")
    assert "REJECTED  UNCD France\n            : by the rules of Ambition & Empire (2006), civil disorder is " \
           "permanent" in ack
    assert not desk.audit("uncd")
    desk.master(f"REPLACE France {NEW}")
    assert players(desk)[-1] == ("France", NEW, True, True, 0)
    # The game goes on without France: the phase ends with every other power's orders in.
    desk.end_phase()
    assert desk.phase_label() == "Fall 1763, Movement"
