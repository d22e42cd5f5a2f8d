"""Draws the players propose (PROPOSE DRAW, njudge's SET DRAW) under the house rule `draw`, the
votes on them, and CONCEDE: by mail, on SQLite and PostgreSQL."""
from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker

from desk import MASTER, STANDARD, Desk, address, new_game
from test_master_game import game_row, told

from gm.games import current_phase
from gm.store.db import state_from_json, state_to_json, transaction

EVERYONE = sorted([address(p) for p in STANDARD] + [MASTER])


def with_rule(sf: sessionmaker[Session], rule: str) -> Desk:
    desk = new_game(sf)
    assert f"house rules: draw {rule}; every player is told" in desk.master(f"SET OPTION draw {rule}")
    return desk


def eliminate(desk: Desk, power: str) -> None:
    """`power` loses every unit and centre (its player stays in the game)."""
    with transaction(desk.sf) as s:
        current = current_phase(s, desk.row(s))
        assert current is not None
        state = state_from_json(current.row.state_json)
        current.row.state_json = state_to_json(state.with_(
            units={p: u for p, u in state.units.items() if u.power != power},
            supply_centres={c: o for c, o in state.supply_centres.items() if o != power}))


def test_a_dias_draw_every_survivor_accepts_ends_the_game(session_factory: sessionmaker[Session]) -> None:
    desk = with_rule(session_factory, "dias")
    since = desk.last_mail_id()
    ack = desk.player("France", "PROPOSE DRAW")
    assert ("accepted  PROPOSE DRAW\n            = you propose a draw between Austria, England, France, Germany, "
            "Italy, Russia, Turkey and accept it; 6 other powers are asked") in ack
    assert "(nobody but the GM is told who proposed it); it lapses at the end of Spring 1901, Movement" in ack
    news = told(desk, since)
    assert sorted(news) == sorted(a for a in EVERYONE if a != address("France"))
    asked = news[address("Italy")][0]
    assert "It is proposed to end the game in a draw between Austria, England, France, Germany, Italy, Russia, " \
           "Turkey." in asked and "It includes every surviving power, and needs the acceptance of each." in asked
    assert "  SIGNON Italy g1 <password>\n  ACCEPT DRAW\nor REJECT DRAW in its place." in asked
    assert "It lapses at the end of this phase (Spring 1901, Movement)" in asked
    assert "France" not in asked.replace("Austria, England, France, Germany", "")  # who proposed: the GM's alone
    assert "France proposes a draw between Austria, England" in news[MASTER][0]
    for power in ("Austria", "England", "Germany", "Italy", "Russia"):
        assert "accepted  ACCEPT DRAW" in desk.player(power, "ACCEPT DRAW")
    assert game_row(desk)[0] == "active"
    since = desk.last_mail_id()
    ack = desk.player("Turkey", "ACCEPT DRAW")
    assert "every surviving power has accepted: g1 is drawn between Austria, England, France, Germany, Italy, " \
           "Russia, Turkey" in ack
    status, outcome, options = game_row(desk)
    assert status == "finished" and outcome == "drawn between Austria, England, France, Germany, Italy, Russia, Turkey"
    assert "draw" not in options
    news = told(desk, since)
    assert sorted(news) == EVERYONE
    ended = news[address("France")][0]
    assert "Every surviving power has accepted the draw a player proposed: the game is over" in " ".join(ended.split())
    assert "The final position (Spring 1901):" in ended
    assert desk.audit("propose draw")[0].detail["power"] == "France"


def test_one_reject_ends_a_dias_draw_and_nobody_but_the_gm_learns_whose(session_factory: sessionmaker[Session]) -> None:
    desk = with_rule(session_factory, "dias")
    desk.player("England", "PROPOSE DRAW")
    desk.player("France", "ACCEPT DRAW")
    since = desk.last_mail_id()
    ack = desk.player("Russia", "REJECT DRAW")
    assert "accepted  REJECT DRAW\n            = you reject the draw between Austria, England, France" in ack
    assert game_row(desk)[0] == "active" and "draw" not in game_row(desk)[2]
    news = told(desk, since)
    assert sorted(news) == EVERYONE  # every survivor voted: each hears it failed
    for to, bodies in news.items():
        assert len(bodies) == 1
        assert ("Russia rejected" in bodies[0]) == (to == MASTER)
    assert "The draw a player proposed between Austria, England" in news[address("Turkey")][0]
    assert "there is no draw proposal for France to vote on in g1" in desk.player("France", "ACCEPT DRAW")
    assert "you propose a draw" in desk.player("Russia", "PROPOSE DRAW")  # a new one may follow


def test_a_named_draw_needs_every_survivor_and_the_eliminated_hear_of_neither(
        session_factory: sessionmaker[Session]) -> None:
    desk = with_rule(session_factory, "named")
    eliminate(desk, "Austria")
    since = desk.last_mail_id()
    ack = desk.player("England", "PROPOSE DRAW England, France Germany")
    assert "you propose a draw between England, France, Germany and accept it; 5 other powers are asked" in ack
    news = told(desk, since)
    voters = [address(p) for p in ("France", "Germany", "Italy", "Russia", "Turkey")]
    assert sorted(news) == sorted(voters + [MASTER])  # not Austria, out of the game, nor England, who proposed
    assert "It needs the acceptance of every surviving power, those it leaves out too: England, France, Germany, " \
           "Italy, Russia, Turkey." in news[address("Italy")][0]
    assert "Austria has neither units nor centres: only the surviving powers vote on a draw" in \
           desk.player("Austria", "ACCEPT DRAW")
    for power in ("France", "Germany", "Italy", "Russia"):
        desk.player(power, "ACCEPT DRAW")
    since = desk.last_mail_id()
    assert "g1 is drawn between England, France, Germany" in desk.player("Turkey", "ACCEPT DRAW")
    assert game_row(desk)[:2] == ("finished", "drawn between England, France, Germany")
    assert sorted(told(desk, since)) == EVERYONE  # the end, Austria too


def test_a_failed_draw_is_told_to_those_who_heard_of_it_only(session_factory: sessionmaker[Session]) -> None:
    desk = with_rule(session_factory, "named")
    eliminate(desk, "Austria")
    desk.player("Italy", "PROPOSE DRAW Italy Turkey")
    since = desk.last_mail_id()
    desk.player("France", "REJECT DRAW")
    news = told(desk, since)
    assert address("Austria") not in news
    assert sorted(news) == sorted([address(p) for p in ("England", "France", "Germany", "Italy", "Russia", "Turkey")]
                                  + [MASTER])
    # the GM's draw: the powers named vote, and only they hear of it and of its failure
    since = desk.last_mail_id()
    desk.master("DRAW France Italy")
    assert sorted(told(desk, since)) == [address("France"), address("Italy")]
    since = desk.last_mail_id()
    desk.player("Italy", "REJECT DRAW")
    assert sorted(told(desk, since)) == sorted([address("France"), address("Italy"), MASTER])


def test_a_proposal_lapses_at_the_end_of_its_phase(session_factory: sessionmaker[Session]) -> None:
    desk = with_rule(session_factory, "dias")
    desk.player("France", "PROPOSE DRAW")
    desk.player("Italy", "ACCEPT DRAW")
    desk.end_phase()
    assert desk.phase_label() != "Spring 1901, Movement"
    assert "there is no draw proposal for Germany to vote on in g1" in desk.player("Germany", "ACCEPT DRAW")
    assert "you propose a draw" in desk.player("Germany", "PROPOSE DRAW")
    assert game_row(desk)[0] == "active"


def test_set_draw_and_set_nodraw_are_njudges_spellings(session_factory: sessionmaker[Session]) -> None:
    desk = with_rule(session_factory, "named")
    ack = desk.player("Germany", "SET DRAW England France Germany")
    assert "accepted  SET DRAW England France Germany\n            = you propose a draw between England, France, " \
           "Germany" in ack
    ack = desk.player("England", "SET DRAW Germany, England, France")
    assert "= you accept the draw between England, France, Germany" in ack
    before = desk.last_mail_id()
    ack = desk.player("France", "SET DRAW France England")
    assert "REJECTED  SET DRAW France England\n            : the draw open is between England, France, Germany, " \
           "not England, France: ACCEPT DRAW or REJECT DRAW it first" in ack
    assert [m.kind for m in desk.mails(since=before)] == ["ack"]
    assert "= you reject the draw between England, France, Germany" in desk.player("Italy", "SET NODRAW")
    assert game_row(desk)[0] == "active" and "draw" not in game_row(desk)[2]
    assert [e.detail["power"] for e in desk.audit("accept draw")] == ["England"]
    assert [e.detail["power"] for e in desk.audit("reject draw")] == ["Italy"]


def test_concession_by_every_other_survivor_ends_the_game(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)  # under the default draw = gm: concession is always open
    eliminate(desk, "Austria")
    since = desk.last_mail_id()
    ack = desk.player("England", "CONCEDE France")
    assert "accepted  CONCEDE France\n            = you concede the game to France (nobody but the GM is told); " \
           "France wins once every other surviving power concedes to it before the end of this phase " \
           "(Spring 1901, Movement)" in ack
    news = told(desk, since)
    assert list(news) == [MASTER] and "England concedes the game to France (1 of 5 needed have: England)" in \
           news[MASTER][0]
    assert "Austria has neither units nor centres: only the surviving powers concede" in \
           desk.player("Austria", "CONCEDE France")
    assert "'Narnia' is no power of Diplomacy (standard map): CONCEDE <power>" in desk.player("Italy", "CONCEDE Narnia")
    assert "France cannot concede to itself" in desk.player("France", "CONCEDE France")
    assert "Austria has neither units nor centres: only powers still in the game win by concession" in \
           desk.player("Italy", "CONCEDE Austria")
    assert "usage: CONCEDE <power>|NONE" in desk.player("Italy", "CONCEDE")
    assert "Italy has conceded to nobody in this phase" in desk.player("Italy", "CONCEDE NONE")
    for power in ("Germany", "Italy", "Russia"):
        desk.player(power, "CONCEDE France")
    assert "you withdraw your concession" in desk.player("Russia", "CONCEDE NONE")
    desk.player("Turkey", "CONCEDE France")
    assert game_row(desk)[0] == "active"  # Russia withdrew
    since = desk.last_mail_id()
    ack = desk.player("Russia", "CONCEDE france")
    assert "every other surviving power has: g1 is won by France by concession" in ack
    assert game_row(desk)[:2] == ("finished", "won by France by concession")
    news = told(desk, since)
    assert sorted(news) == EVERYONE
    assert "Every other surviving power has conceded the game to France: the game is over" in news[address("Italy")][0]
    assert [e.detail["power"] for e in desk.audit("concede")] == ["England", "Germany", "Italy", "Russia", "Russia",
                                                                 "Turkey", "Russia"]


def test_bad_proposals_get_specific_replies_and_change_nothing(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.player("France", "PROPOSE DRAW\nSET DRAW")
    assert "REJECTED  PROPOSE DRAW\n            : in g1 only the GM proposes a draw (house rule draw = gm)" in ack
    assert "REJECTED  SET DRAW\n            : in g1 only the GM proposes a draw" in ack
    assert "draw must be one of gm, dias, named, not 'sometimes'" in desk.master("SET OPTION draw sometimes")
    desk.master("SET OPTION draw named")
    eliminate(desk, "Austria")
    before = desk.last_mail_id()
    ack = desk.player("France", "PROPOSE DRAW France Narnia\nPROPOSE DRAW France\nPROPOSE DRAW France Austria")
    assert "'Narnia' is no power of Diplomacy (standard map)" in ack
    assert "a draw is between two powers or more (CONCEDE <power> gives one power the game)" in ack
    assert "Austria has neither units nor centres: only powers still in the game share a draw" in ack
    assert "Austria has neither units nor centres: only the surviving powers propose a draw" in \
           desk.player("Austria", "PROPOSE DRAW France Italy")
    assert "usage: ACCEPT DRAW" in desk.player("France", "ACCEPT DRAW now")
    assert [m.kind for m in desk.mails(since=before)] == ["ack"] * 3
    assert not desk.audit("propose draw") and "draw" not in game_row(desk)[2]
    desk.master("SET OPTION draw dias")
    ack = desk.player("France", "PROPOSE DRAW France Italy\nPROPOSE DRAW\nPROPOSE DRAW")
    assert "in g1 a draw includes every surviving power (house rule draw = dias): PROPOSE DRAW names no power" in ack
    assert "a draw between England, France, Germany, Italy, Russia, Turkey is open already: ACCEPT DRAW or " \
           "REJECT DRAW it first" in ack
    assert len(desk.audit("propose draw")) == 1
    desk.master("DRAW France Italy")  # the GM's replaces it; those it leaves out cannot answer it
    assert "a draw between France, Italy is open, voted on by France, Italy: propose yours once it is answered" in \
           desk.player("Turkey", "PROPOSE DRAW")


def test_public_votes_are_told_to_the_powers_voting(session_factory: sessionmaker[Session]) -> None:
    desk = with_rule(session_factory, "dias")
    assert "house rules: draw_votes public" in desk.master("SET OPTION draw_votes public")
    assert "draw_votes must be one of secret, public, not 'loud'" in desk.master("SET OPTION draw_votes loud")
    since = desk.last_mail_id()
    assert "(they are told who proposed it)" in desk.player("France", "PROPOSE DRAW")
    asked = told(desk, since)[address("Italy")][0]
    assert "France proposes to end the game in a draw between Austria" in asked
    assert "Every vote is told to the powers voting as it comes" in asked
    since = desk.last_mail_id()
    desk.player("Italy", "ACCEPT DRAW")
    news = told(desk, since)
    assert sorted(news) == sorted(a for a in EVERYONE if a != address("Italy"))
    assert "Italy accepts the draw between Austria" in news[address("Turkey")][0]
    since = desk.last_mail_id()
    assert "(the powers voting are told it was you)" in desk.player("Russia", "REJECT DRAW")
    assert "was rejected by Russia: the game goes on" in told(desk, since)[address("England")][0]
    since = desk.last_mail_id()
    assert "(every player is told)" in desk.player("England", "CONCEDE Germany")
    news = told(desk, since)
    assert sorted(news) == sorted(a for a in EVERYONE if a != address("England"))
    assert "England concedes the game to Germany" in news[address("Italy")][0]
