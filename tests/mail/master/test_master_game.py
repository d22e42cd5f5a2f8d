"""The game at the GM's word: START, TERMINATE, a DRAW the powers named vote on (ACCEPT DRAW,
REJECT DRAW), SET OPTION, and CREATE by mail from a trusted address."""
from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from desk import JUDGE, MASTER, STANDARD, Desk, address, confirmation_code, mail, new_game

from gm.games import current_phase, find_game, masters
from gm.lifecycle.house_rules import OPTION_KEY
from gm.mail.ingest import Fetched, IngestOutcome, ingest
from gm.mail.prepared import prehash
from gm.mail.intake.message import command_lines, read_message
from gm.mail.intake.provenance import UNPROVEN, Proof, Provenance
from gm.store.db import state_from_json, state_to_json, transaction
from gm.store.models import Game, InboundMail, Master
from gm.store.passwords import check_password

EVERYONE = sorted([address(p) for p in STANDARD] + [MASTER])


def game_row(desk: Desk) -> tuple[str, str | None, dict | None]:
    """(status, outcome, options) of the desk's game."""
    with transaction(desk.sf) as s:
        game = desk.row(s)
        return game.status, game.outcome, game.options


def told(desk: Desk, since: int, kind: str = "announcement") -> dict[str, list[str]]:
    """Address -> the bodies of the mails of `kind` it got since `since`."""
    out: dict[str, list[str]] = {}
    for m in desk.mails(kind=kind, since=since):
        out.setdefault(m.to_addr, []).append(m.body_text)
    return out


# --- START and TERMINATE ----------------------------------------------------------------------


def test_start_starts_a_forming_game_with_the_powers_taken(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, powers=["France", "Italy", "Turkey"], start=False)
    before = desk.last_mail_id()
    ack = desk.master("START")
    assert "accepted  START\n            = g1 starts with Spring 1901, Movement; every player gets the start mail" \
           in ack
    assert game_row(desk)[0] == "active" and desk.phase_label() == "Spring 1901, Movement"
    start = desk.mails(kind="start", since=before)
    assert sorted(m.to_addr for m in start) == sorted([address("France"), address("Italy"), address("Turkey"),
                                                       MASTER])
    assert next(m for m in start if m.to_addr == address("France")).subject == "[g1] The game starts: you play France"
    (entry,) = desk.audit("start")
    assert entry.actor == MASTER and entry.inbound_id is not None
    ack = desk.master("START\nSTART now")
    assert "REJECTED  START\n            : g1 is active, not forming" in ack and "usage: START" in ack
    assert len(desk.audit("start")) == 1 and not desk.mails(kind="start", since=start[-1].id)


def test_start_refuses_a_game_nobody_joined(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, powers=[], start=False)
    assert "nobody has joined g1 yet: there is nothing to start" in desk.master("START")
    assert game_row(desk)[0] == "forming" and not desk.audit("start")


def test_terminate_ends_the_game_and_it_takes_no_more_orders(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.master("TERMINATE")
    assert "accepted  TERMINATE\n            = g1 is over (terminated by the GM); every player is told" in ack
    status, outcome, _ = game_row(desk)
    assert (status, outcome) == ("finished", "terminated by the GM")
    news = told(desk, before)
    assert sorted(news) == EVERYONE and "ended the game" in news[MASTER][0]
    # with the position it ended in: the standard opening, three centres each (Russia four)
    assert "The final position (Spring 1901):\n  Russia                4 centres,  4 units\n" \
           "  Austria               3 centres,  3 units" in news[address("France")][0]
    assert desk.audit("terminate")[0].detail == {"outcome": "terminated by the GM"}
    assert "g1 is not under way: it takes no orders" in desk.player("France", "A Par - Bur")
    ack = desk.master("TERMINATE\nPAUSE\nDRAW France, Italy")
    assert "g1 is over already (terminated by the GM)" in ack
    assert "g1 is finished, not under way" in ack
    assert len(desk.audit("terminate")) == 1


# --- DRAW -------------------------------------------------------------------------------------


def test_a_draw_every_power_named_accepts_ends_the_game(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.master("DRAW france,germany Italy")
    assert "accepted  DRAW france,germany Italy\n            = a draw between France, Germany, Italy is proposed; " \
           "3 players asked" in ack
    assert game_row(desk)[2]["draw"] == {"powers": ["France", "Germany", "Italy"], "accepted": []}
    asked = told(desk, before)
    assert sorted(asked) == sorted(address(p) for p in ("France", "Germany", "Italy"))
    assert "SIGNON Germany g1 <password>" in asked[address("Germany")][0]
    assert "ACCEPT DRAW" in asked[address("Germany")][0] and "draw between France, Germany, Italy" in \
        asked[address("Germany")][0]
    assert desk.audit("draw")[0].detail == {"powers": ["France", "Germany", "Italy"], "replaced": None}
    # A power not named cannot vote, and learns nothing of the proposal.
    ack = desk.player("England", "ACCEPT DRAW")
    assert "REJECTED  ACCEPT DRAW\n            : there is no draw proposal for England to vote on in g1" in ack
    # Each vote is told to the GM only.
    since = desk.last_mail_id()
    ack = desk.player("France", "ACCEPT DRAW")
    assert "accepted  ACCEPT DRAW\n            = you accept the draw between France, Germany, Italy" in ack
    news = told(desk, since)
    assert list(news) == [MASTER] and "France accepts the draw between France, Germany, Italy (1 of 3" in \
        news[MASTER][0]
    assert "France has accepted this draw already" in desk.player("France", "ACCEPT DRAW")
    desk.player("Germany", "ACCEPT DRAW")
    assert game_row(desk)[0] == "active"
    since = desk.last_mail_id()
    ack = desk.player("Italy", "ACCEPT DRAW")
    assert "every power named has accepted: g1 is drawn between France, Germany, Italy" in ack
    status, outcome, options = game_row(desk)
    assert (status, outcome) == ("finished", "drawn between France, Germany, Italy") and "draw" not in options
    news = told(desk, since)
    assert sorted(news) == EVERYONE
    assert "the game is over, drawn between France, Germany, Italy" in " ".join(news[MASTER][0].split())
    assert "The final position (Spring 1901):" in news[address("England")][0]
    assert "  Turkey                3 centres,  3 units" in news[address("England")][0]
    votes = desk.audit("accept draw")
    assert [(v.actor, v.detail["power"], v.detail["outcome"]) for v in votes] == [
        (address("France"), "France", "accepted"), (address("Germany"), "Germany", "accepted"),
        (address("Italy"), "Italy", "drawn")]
    assert "g1 is not under way" in desk.player("Russia", "A Mos - Ukr")


def test_one_rejection_ends_the_proposal_and_only_the_gm_learns_whose(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.master("DRAW Austria Russia Turkey")
    desk.player("Austria", "ACCEPT DRAW")
    since = desk.last_mail_id()
    ack = desk.player("Russia", "REJECT DRAW")
    assert "accepted  REJECT DRAW\n            = you reject the draw between Austria, Russia, Turkey" in ack
    status, _, options = game_row(desk)
    assert status == "active" and "draw" not in options
    news = told(desk, since)
    # the powers that voted hear of its failure; the others, never told of the proposal, of neither
    assert sorted(news) == sorted([address(p) for p in ("Austria", "Russia", "Turkey")] + [MASTER])
    for to, bodies in news.items():
        assert len(bodies) == 1
        if to == MASTER:
            assert "Russia rejected the draw between Austria, Russia, Turkey" in bodies[0]
        else:
            assert "was rejected: the game goes on" in bodies[0] and "Russia rejected" not in bodies[0]
    assert desk.audit("reject draw")[0].detail == {"power": "Russia", "outcome": "rejected"}
    assert "there is no draw proposal for Turkey to vote on in g1" in desk.player("Turkey", "ACCEPT DRAW")
    assert "there is no draw proposal for Turkey to vote on in g1" in desk.player("Turkey", "REJECT DRAW")


def test_a_new_draw_replaces_the_open_one(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.master("DRAW England, France, Germany")
    desk.player("England", "ACCEPT DRAW")
    since = desk.last_mail_id()
    ack = desk.master("DRAW England France")
    assert "(the proposal before is withdrawn)" in ack
    assert game_row(desk)[2]["draw"] == {"powers": ["England", "France"], "accepted": []}
    news = told(desk, since)
    assert sorted(news) == sorted(address(p) for p in ("England", "France", "Germany"))
    assert "withdrawn the draw proposal" in news[address("Germany")][0]
    assert "It replaces the proposal made before: vote again." in news[address("England")][0]
    assert "no draw proposal for Germany" in desk.player("Germany", "ACCEPT DRAW")
    assert desk.audit("draw")[-1].detail == {"powers": ["England", "France"],
                                             "replaced": ["England", "France", "Germany"]}


def test_draw_refusals_change_nothing(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.master("EJECT Austria")
    with transaction(desk.sf) as s:  # Italy is out of the game: no units, no centres
        current = current_phase(s, desk.row(s))
        assert current is not None
        state = state_from_json(current.row.state_json)
        current.row.state_json = state_to_json(state.with_(
            units={p: u for p, u in state.units.items() if u.power != "Italy"},
            supply_centres={c: o for c, o in state.supply_centres.items() if o != "Italy"}))
    before = desk.last_mail_id()
    ack = desk.master("DRAW France\nDRAW France, Narnia\nDRAW France Italy\nDRAW France Austria\nDRAW")
    assert "a draw is between two powers or more" in ack
    assert "'Narnia' is no power of Diplomacy (standard map)" in ack
    assert "Italy has neither units nor centres: only powers still in the game share a draw" in ack
    assert "nobody plays Austria: a draw is voted by the players of the powers named" in ack
    assert "usage: DRAW <power>,<power>,..." in ack
    assert "draw" not in (game_row(desk)[2] or {}) and not desk.audit("draw")
    assert [m.kind for m in desk.mails(since=before)] == ["ack"]
    assert "REJECTED  ACCEPT DRAW\n            : sign on first" in desk.master("ACCEPT DRAW")
    forming = new_game(session_factory, "g2", start=False)
    assert "g2 is forming, not under way" in forming.master("DRAW France Italy")


# --- SET OPTION -------------------------------------------------------------------------------


def test_set_option_changes_a_house_rule_or_a_game_option_and_tells_every_player(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    ack = desk.master("SET OPTION movement 3d\nSET OPTION days sat, sun\nSET OPTION timezone Europe/Paris\n"
                      "SET OPTION map_palette COLOURBLIND\nSET OPTION several-powers-per-address yes")
    assert "accepted  SET OPTION movement 3d\n            = house rules: movement 3d; every player is told" in ack
    assert "house rules: days sat,sun" in ack and "house rules: timezone Europe/Paris" in ack
    assert "map_palette is colourblind" in ack and "several_powers_per_address is yes" in ack
    options = game_row(desk)[2]
    assert options[OPTION_KEY]["movement"] == "3d" and options[OPTION_KEY]["days"] == "sat,sun"
    assert options[OPTION_KEY]["timezone"] == "Europe/Paris"
    assert options["map_palette"] == "colourblind" and options["several_powers_per_address"] is True
    news = told(desk, before)
    assert sorted(news) == EVERYONE and len(news[MASTER]) == 1  # one notice for the GM's mail
    assert "Deadlines: movement 3d" in news[MASTER][0] and "several_powers_per_address to yes" in news[MASTER][0]
    assert [a.detail for a in desk.audit("set option")] == [
        {"movement": "3d"}, {"days": "sat,sun"}, {"timezone": "Europe/Paris"}, {"map_palette": "colourblind"},
        {"several_powers_per_address": True}]
    # An address may now take a second power.
    assert "accepted" in desk.master(f"REPLACE Italy {address('France')}")


def test_set_option_refusals_name_the_options_and_the_rule(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    was = game_row(desk)[2]
    ack = desk.master("SET OPTION speed 3\nSET OPTION movement forever\nSET OPTION hour 25\n"
                      "SET OPTION map_palette pink\nSET OPTION several_powers_per_address maybe\nSET OPTION grace")
    assert "no game option 'speed'; the options are movement, retreat, adjustment, bidding, days, hour, timezone, grace, " \
           "nmr, late_limit, remind_before, absence_days, last_year, draw, draw_votes, pages, pages_press, language, map_palette, " \
           "several_powers_per_address" in ack
    assert "movement: 'forever' is no duration" in ack and "hour: '25' is not an hour from 0 to 23" in ack
    assert "map_palette is one of rulebook, colourblind, not 'pink'" in ack
    assert "several_powers_per_address is yes or no, not 'maybe'" in ack
    assert "usage: SET OPTION <name> <value>" in ack
    assert game_row(desk)[2] == was and not desk.audit("set option")


def test_set_option_last_year_ends_1700ad_only_in_the_years_of_rule_11(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, variant="1700ad", powers=["Swedish", "Russians"])
    ack = desk.master("SET OPTION last_year 1715\nSET OPTION last_year 1713")
    assert "1700AD II ends only in 1713 or 1721 (or none)" in ack
    assert "= house rules: last_year 1713; every player is told" in ack
    assert game_row(desk)[2][OPTION_KEY]["last_year"] == "1713"
    assert "= house rules: last_year none; every player is told" in desk.master("SET OPTION last_year none")


# --- CREATE -------------------------------------------------------------------------------------


TRUSTED = "boss@gms.example"


def create(session_factory: sessionmaker[Session], sender: str, body: str) -> tuple[Desk, IngestOutcome]:
    """Mail `body` from `sender` to a judge that trusts TRUSTED to create games."""
    desk = Desk(session_factory, "new1")
    out = ingest(session_factory, mail(sender, body), gm_address=JUDGE, verifier=desk.verifier,
                 trusted_masters=(TRUSTED,))
    assert out.inbound_id is not None
    return desk, out


def test_create_by_a_trusted_address_makes_a_game_with_the_sender_as_its_gm_once_confirmed(
        session_factory: sessionmaker[Session]) -> None:
    desk, asked = create(session_factory, TRUSTED, "CREATE New1 ambition s3cret\nSET GRACE 2h\nPAUSE")
    with transaction(session_factory) as s:
        assert s.scalars(select(Game)).all() == []  # nothing until the code comes back
    (code_mail,) = desk.mails(to=TRUSTED)
    assert code_mail.kind == "confirm" and code_mail.subject.startswith("gm: confirm CREATE new1 ambition (CONFIRM ")
    assert "make the game new1 (Ambition & Empire" in code_mail.body_text
    assert "s3cret" not in code_mail.body_text and "GRACE" not in code_mail.body_text
    # The code comes back: the game is made, and the lines after CONFIRM are the new GM's commands.
    desk, out = create(session_factory, TRUSTED, f"CONFIRM {confirmation_code(session_factory, TRUSTED)}\n"
                                                 "SET GRACE 2h\nPAUSE")
    ack = desk.ack(out, TRUSTED)
    assert "accepted  CONFIRM ********\n            = game new1 (ambition) is forming, with you as " \
           "its GM: players send 'JOIN new1 <power> <password>' to gm@judge.example" in ack
    assert "accepted  SET GRACE 2h" in ack  # a GM command: the mail is signed on as the new GM
    assert "REJECTED  PAUSE\n            : new1 is forming, not under way" in ack
    with transaction(session_factory) as s:
        game = find_game(s, "new1")
        assert game is not None and (game.variant, game.status) == ("ambition", "forming")
        assert masters(s, game) == [TRUSTED]
        master = s.scalars(select(Master).where(Master.game_id == game.id)).one()
        assert master.password_hash and check_password(master.password_hash, "s3cret")
        assert b"s3cret" not in s.get(InboundMail, asked.inbound_id).raw  # type: ignore[union-attr]
    (entry,) = desk.audit("create")
    assert entry.actor == TRUSTED and entry.inbound_id == out.inbound_id and entry.detail == {"variant": "ambition"}
    # The GM signs on with that password, from whatever address: the ack goes to theirs.
    out = ingest(session_factory, mail("other@x.example", "SIGNON MASTER new1 s3cret\nSET NMR wait"),
                 gm_address=JUDGE, verifier=desk.verifier)
    assert "accepted  SET NMR wait" in desk.ack(out, TRUSTED)


def test_a_create_is_made_only_if_it_still_may_be_when_confirmed(session_factory: sessionmaker[Session]) -> None:
    """The first of two CREATEs of one name confirmed makes the game; the other is refused then. A
    code is refused too once the judge no longer trusts its address."""
    create(session_factory, TRUSTED, "CREATE new1 standard pw1")
    first = confirmation_code(session_factory, TRUSTED)
    create(session_factory, TRUSTED, "CREATE new1 classical pw2")
    second = confirmation_code(session_factory, TRUSTED)
    create(session_factory, TRUSTED, f"CONFIRM {first}")
    desk, _ = create(session_factory, TRUSTED, f"CONFIRM {second}")
    assert "there is already a game called new1" in desk.mails(to=TRUSTED)[-1].body_text
    create(session_factory, TRUSTED, "CREATE new2 standard pw3")
    out = ingest(session_factory, mail(TRUSTED, f"CONFIRM {confirmation_code(session_factory, TRUSTED)}"),
                 gm_address=JUDGE, verifier=desk.verifier)  # trusted_masters is empty now
    assert out.replies == 1 and "this address may not create games" in desk.mails(to=TRUSTED)[-1].body_text
    with transaction(session_factory) as s:
        assert [(g.name, g.variant) for g in s.scalars(select(Game))] == [("new1", "standard")]


def test_create_is_refused_to_an_address_the_judge_does_not_trust(session_factory: sessionmaker[Session]) -> None:
    stranger = "someone@else.example"
    desk, _ = create(session_factory, stranger, "CREATE new1 standard s3cret")
    with transaction(session_factory) as s:
        assert s.scalars(select(Game)).all() == []
    notice = desk.mails(to=stranger)[-1]
    assert notice.kind == "notice"
    assert "this address may not create games" in notice.body_text and "s3cret" not in notice.body_text


def test_create_refusals_from_a_trusted_address(session_factory: sessionmaker[Session]) -> None:
    new_game(session_factory, "taken", start=False)
    # Told in the judge's own words: the From line may be forged, and the name and variant are its text.
    desk, _ = create(session_factory, TRUSTED, "CREATE visit-https-spam-example standard-but-not pw1")
    told = desk.mails(to=TRUSTED)[-1].body_text
    assert "there is no such variant; the variants are " in told and "spam" not in told
    desk, _ = create(session_factory, TRUSTED, "CREATE taken standard pw1")
    assert "there is already a game of that name" in desk.mails(to=TRUSTED)[-1].body_text
    desk, _ = create(session_factory, TRUSTED, "CREATE other standard")
    assert "usage: CREATE <game> <variant> <password>" in desk.mails(to=TRUSTED)[-1].body_text
    with transaction(session_factory) as s:
        assert [g.name for g in s.scalars(select(Game))] == ["taken"]


def test_a_create_password_is_hashed_before_the_mails_transaction(session_factory: sessionmaker[Session]) -> None:
    raws = [mail(TRUSTED, "CREATE new1 standard s3cret"), mail("stranger@x.example", "CREATE new2 standard s3cret")]
    messages = [read_message(raw) for raw in raws]
    signed = Provenance(Proof.AUTHENTICATED, "a test's")
    hashes = prehash(session_factory, [Fetched(None, raw) for raw in raws], messages,
                      [command_lines(m.text) for m in messages], 1_000_000, frozenset([TRUSTED]), [signed, signed])
    assert list(hashes[0]) == ["s3cret"] and check_password(hashes[0]["s3cret"], "s3cret")
    assert hashes[1] == {}  # an address the judge does not trust costs no hash
    # Unauthenticated, the trusted address has proved nothing yet: its password waits sealed, unhashed.
    hashes = prehash(session_factory, [Fetched(None, raw) for raw in raws], messages,
                      [command_lines(m.text) for m in messages], 1_000_000, frozenset([TRUSTED]), [UNPROVEN] * 2)
    assert hashes == [{}, {}]
