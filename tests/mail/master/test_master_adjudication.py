"""PROCESS, PREVIEW and ROLLBACK by mail and on the command line, and ORDER and DP on a power's
behalf: what each does to the stored game, the mail every player and GM gets, the audit entries,
and the refusals, which change nothing."""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from desk import MASTER, STANDARD, Desk, address, new_game, password_hash
from gm.games import add_master, create_game, current_phase
from gm.lifecycle import phases
from gm.mail.outgoing.mail_maps import draw_attachments
from gm.store.db import transaction
from gm.store.models import GamePhase, OrderRecord, OutboundMail, Player, SecretAllocation, utcnow
from test_cli_game import gm

OTHER_GM = "second@gms.example"
PLAYERS = [address(p) for p in STANDARD]


def on_file(desk: Desk, table: type = OrderRecord) -> list[tuple[str, str, str | None]]:
    """(power, canonical, entered_by) of every order on file in the current phase."""
    with transaction(desk.sf) as s:
        current = current_phase(s, desk.row(s))
        assert current is not None
        return [(r.power, r.canonical, r.entered_by) for r in s.scalars(
            select(table).where(table.phase_id == current.row.id, table.current.is_(True)).order_by(table.id))]


def phase_count(desk: Desk) -> int:
    with transaction(desk.sf) as s:
        return len(s.scalars(select(GamePhase).where(GamePhase.game_id == desk.row(s).id)).all())


def unchanged(desk: Desk, before: int, label: str = "Spring 1901, Movement") -> None:
    """Nothing came of a refused command: the phase is the same, no mail but the acknowledgement."""
    assert desk.phase_label() == label
    assert {m.kind for m in desk.mails(since=before)} <= {"ack"}


# --- PROCESS --------------------------------------------------------------------------------------


def test_process_adjudicates_now_and_mails_the_results_as_at_a_deadline(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, masters=(MASTER, OTHER_GM))
    desk.player("France", "A Par - Bur\nA Mar - Spa")
    before = desk.last_mail_id()
    ack = desk.master("PROCESS")
    assert "accepted  PROCESS" in ack
    assert "Spring 1901, Movement adjudicated; the results went to every player and GM; now Fall 1901, Movement" in ack
    assert desk.phase_label() == "Fall 1901, Movement"
    results = desk.mails(kind="results", since=before)
    assert sorted(m.to_addr for m in results) == sorted([*PLAYERS, MASTER, OTHER_GM])
    france = next(m for m in results if m.to_addr == address("France"))
    assert france.subject == "[g1] Spring 1901 results"
    assert "A PAR - BUR" in france.body_text and "succeeds" in france.body_text
    assert "entered by the GM" not in france.body_text and "CORRECTION" not in france.body_text
    assert any(a["map"]["kind"] == "results" for a in france.attachments)  # maps as at a deadline
    assert next(m for m in results if m.to_addr == MASTER).subject == "[g1] Spring 1901 results (GM copy)"
    [entry] = desk.audit("process")
    assert entry.actor == MASTER and entry.detail == {"phases": ["Spring 1901, Movement"]}
    assert entry.inbound_id is not None
    assert [e.detail["phase"] for e in desk.audit("adjudicate")] == ["Spring 1901, Movement"]
    # The next phase took orders at once, in the same mail too.
    ack = desk.master("ORDER France A Bur - Mun\nPROCESS")
    assert "accepted  ORDER France A Bur - Mun" in ack and "now Winter 1901, Adjustment" in ack


def test_process_refusals_change_nothing(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    assert "REJECTED  PROCESS" in desk.player("France", "PROCESS")  # a player is no GM
    assert "REJECTED  PROCESS now" in desk.master("PROCESS now") and "usage: PROCESS" in desk.master("PROCESS now")
    unchanged(desk, before)
    assert not desk.audit("process")
    forming = new_game(session_factory, "g2", start=False)
    ack = forming.master("PROCESS")
    assert "REJECTED  PROCESS" in ack and "g2 is forming, not under way" in ack
    assert not forming.audit("process") and not forming.mails(kind="results")


# --- PREVIEW --------------------------------------------------------------------------------------


def test_preview_mails_the_would_be_results_to_the_gms_only_and_keeps_nothing(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, masters=(MASTER, OTHER_GM))
    desk.player("France", "A Par - Bur")
    desk.master("ORDER Germany A Mun - Bur")
    orders_before = on_file(desk)
    with transaction(desk.sf) as s:
        game = desk.row(s)
        deadline, check = game.deadline_at, game.next_check_at
    before = desk.last_mail_id()
    ack = desk.master("PREVIEW")
    assert "accepted  PREVIEW" in ack
    assert f"the would-be results of Spring 1901, Movement are mailed to {MASTER}, {OTHER_GM} only" in ack
    assert "nothing was kept" in ack and "PREVIEW, NOTHING KEPT" not in ack  # one copy: the preview mail
    mails = desk.mails(since=before)
    previews = [m for m in mails if m.kind == "preview"]
    assert sorted(m.to_addr for m in previews) == [MASTER, OTHER_GM]
    assert {m.kind for m in mails} == {"preview", "ack"}  # and nothing to any player
    preview = previews[0]
    assert preview.subject == "[g1] PREVIEW, nothing kept: Spring 1901 results"
    lines = preview.body_text.splitlines()
    assert lines[1].startswith("PREVIEW, NOTHING KEPT: what PROCESS would make of Spring 1901, Movement in g1")
    assert "GM copy" in preview.body_text
    assert "A PAR - BUR" in preview.body_text and "A MUN - BUR" in preview.body_text and "bounce" in preview.body_text
    assert "(entered by the GM)" in preview.body_text  # Germany's order, as the results would show it
    # Nothing else changed: the phase, its deadline, the orders on file, the phases stored.
    assert desk.phase_label() == "Spring 1901, Movement" and phase_count(desk) == 1
    assert on_file(desk) == orders_before
    with transaction(desk.sf) as s:
        game = desk.row(s)
        assert (game.deadline_at, game.next_check_at) == (deadline, check)
        assert current_phase(s, game).row.results_json is None
    assert not desk.audit("adjudicate")
    [entry] = desk.audit("preview")
    assert entry.actor == MASTER and entry.detail == {"phase": "Spring 1901, Movement"}
    # The preview was right: PROCESS now gives what it said.
    desk.master("PROCESS")
    france = desk.mails(kind="results", to=address("France"), since=before)[0]
    assert "A MUN - BUR" in france.body_text and "(entered by the GM)" in france.body_text


def test_preview_refusals(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    before = desk.last_mail_id()
    assert "REJECTED  PREVIEW" in desk.player("France", "PREVIEW")
    assert "usage: PREVIEW" in desk.master("PREVIEW please")
    unchanged(desk, before)
    forming = new_game(session_factory, "g2", start=False)
    assert "g2 is forming, not under way" in forming.master("PREVIEW")
    assert not desk.audit("preview") and not forming.mails(kind="preview")


# --- ROLLBACK -------------------------------------------------------------------------------------


def test_rollback_returns_to_the_start_of_the_last_phase_with_its_orders_and_tells_everyone(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.player("France", "A Par - Bur\nA Mar - Spa")
    desk.master("PROCESS")
    spring_orders = on_file_in(desk, "Spring 1901, Movement")
    desk.player("France", "A Bur - Mun")
    desk.master("ORDER Germany A Mun H")
    with transaction(desk.sf) as s:
        old_results = s.scalars(select(OutboundMail).where(OutboundMail.kind == "results")).all()
        s.expunge_all()
        spring = s.scalar(select(GamePhase).where(GamePhase.label == "Spring 1901, Movement"))
        assert spring.results_json is not None
    before = desk.last_mail_id()
    ack = desk.master("ROLLBACK")
    assert "accepted  ROLLBACK" in ack
    assert "g1 is back at the start of Spring 1901, Movement with the orders then on file" in ack
    assert "every player and GM is told" in ack
    assert desk.phase_label() == "Spring 1901, Movement" and phase_count(desk) == 1
    assert on_file(desk) == spring_orders  # the orders then on file stand
    with transaction(desk.sf) as s:
        game = desk.row(s)
        row = current_phase(s, game).row
        assert row.results_json is None and row.adjudicated_at is None
        assert row.deadline_at == game.deadline_at and game.deadline_at > utcnow() + timedelta(hours=47)
        assert s.scalars(select(OrderRecord).where(OrderRecord.canonical == "A BUR - MUN")).all() == []
        # Paused: with every order on file the phase must not end at once, before the GM is done.
        assert game.paused_at is not None
        assert phases.check(s, game, game.deadline_at + timedelta(days=1)).ended == []
    told = desk.mails(kind="announcement", since=before)
    assert sorted(m.to_addr for m in told) == sorted([*PLAYERS, MASTER])
    assert told[0].subject == "[g1] Game rolled back by the GM"
    assert "the results of Spring 1901, Movement no longer stand" in told[0].body_text
    assert "The orders that were on file for Spring 1901, Movement stand" in told[0].body_text
    [entry] = desk.audit("rollback")
    assert entry.actor == MASTER and entry.detail["undone"] == ["Spring 1901, Movement"]
    reopened, removed = entry.detail["phases"]
    assert reopened["label"] == "Spring 1901, Movement" and reopened["results"]["phase"] == "Spring 1901, Movement"
    assert removed["label"] == "Fall 1901, Movement" and removed["results"] is None
    assert {"power": "France", "canonical": "A BUR - MUN", "entered_by": None, "current": True} in removed["orders"]
    assert {"power": "Germany", "canonical": "A MUN H", "entered_by": MASTER, "current": True} in removed["orders"]
    # The results mailed before name phases that are gone or opened again: no map, no crash.
    desk.master("PROCESS")
    with transaction(desk.sf) as s:
        for mail in old_results:
            assert mail.attachments and draw_attachments(s, mail.attachments) == []
        new = s.scalars(select(OutboundMail).where(OutboundMail.kind == "results", OutboundMail.id > before)).first()
        assert len(draw_attachments(s, new.attachments)) == 2
    corrected = desk.mails(kind="results", to=address("France"), since=before)[0]
    assert corrected.subject == "[g1] Correction: Spring 1901 results"
    # PROCESS ended the rollback's pause, as the players were told: the next phase runs on its deadline.
    assert "(the game is paused" not in desk.master("PROCESS")
    assert corrected.body_text.splitlines()[1].startswith("CORRECTION: these results replace")
    assert "CORRECTION: these results replace those mailed earlier for Spring 1901, Movement" in " ".join(
        corrected.body_text.split())  # wrapped to a phone's width


def on_file_in(desk: Desk, label: str) -> list[tuple[str, str, str | None]]:
    with transaction(desk.sf) as s:
        row = s.scalar(select(GamePhase).where(GamePhase.label == label))
        return [(r.power, r.canonical, r.entered_by) for r in s.scalars(
            select(OrderRecord).where(OrderRecord.phase_id == row.id, OrderRecord.current.is_(True))
            .order_by(OrderRecord.id))]


def test_rollback_to_a_named_phase_and_of_a_finished_game(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.master("PROCESS\nPROCESS")  # Spring and Fall 1901: no builds, so Spring 1902 is next
    assert desk.phase_label() == "Spring 1902, Movement"
    ack = desk.master("ROLLBACK S1901")
    assert "back at the start of Spring 1901, Movement" in ack
    assert "void: Spring 1901, Movement, Fall 1901, Movement" in ack
    assert desk.phase_label() == "Spring 1901, Movement" and phase_count(desk) == 1
    # France wins in the Fall, by the GM's edits; a rollback with REOPEN makes the game active again.
    centres = ["Bel", "Hol", "Den", "Spa", "Por", "Tun", "Nwy", "Swe", "Gre", "Ser", "Rum", "Bul", "Ber", "Kie", "Mun"]
    desk.master("SET PHASE Fall 1901\nREMOVE UNIT Ber\nREMOVE UNIT Kie\nREMOVE UNIT Mun\n"
                + "\n".join(f"SET OWNER {c} France" for c in centres) + "\nPROCESS")
    with transaction(desk.sf) as s:
        game = desk.row(s)
        assert (game.status, game.outcome) == ("finished", "won by France")
    assert "REOPEN" in desk.master("ROLLBACK")  # refused: see test_master_guards.py
    ack = desk.master("ROLLBACK REOPEN")
    assert "back at the start of Fall 1901, Movement" in ack
    with transaction(desk.sf) as s:
        game = desk.row(s)
        assert (game.status, game.outcome, game.finished_at) == ("active", None, None)
        assert game.deadline_at is not None and game.next_check_at is not None
    assert desk.phase_label() == "Fall 1901, Movement"


def test_rollback_refusals_change_nothing(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    other = new_game(session_factory, "g2")
    other.master("PROCESS\nPROCESS")
    before = desk.last_mail_id()
    assert "no phase of g1 has been adjudicated yet" in desk.master("ROLLBACK")
    assert "Spring 1901, Movement has not been adjudicated: it is the phase under way" in desk.master("ROLLBACK S1901")
    assert "g1 has had no phase Fall 1901, Movement" in desk.master("ROLLBACK F1901")  # g2 has one
    assert "'Autumn of 1901' is no phase" in desk.master("ROLLBACK Autumn of 1901")
    assert "REJECTED  ROLLBACK" in desk.player("France", "ROLLBACK")
    unchanged(desk, before)
    assert not desk.audit("rollback")
    forming = new_game(session_factory, "g3", start=False)
    assert "g3 has not started: there is nothing to roll back" in forming.master("ROLLBACK")
    assert other.phase_label() == "Spring 1902, Movement"


# --- ORDER and DP -------------------------------------------------------------------------------


def test_order_on_a_powers_behalf_replaces_its_order_and_shows_as_the_gms(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, powers=[p for p in STANDARD if p != "Turkey"])
    desk.player("France", "A Par - Pic\nA Mar - Spa")  # mistyped: Picardy for Burgundy
    ack = desk.master("ORDER France A Par - Bur\nORDER turkey: F Ank - Bla")
    assert "accepted  ORDER France A Par - Bur" in ack and "= France: A PAR - BUR (entered by the GM)" in ack
    assert "= Turkey: F ANK - BLA (entered by the GM)" in ack
    assert on_file(desk) == [("France", "A MAR - SPA", None), ("France", "A PAR - BUR", MASTER),
                             ("Turkey", "F ANK - BLA", MASTER)]
    with transaction(desk.sf) as s:
        rows = s.scalars(select(OrderRecord).where(OrderRecord.entered_by == MASTER).order_by(OrderRecord.id)).all()
        france = s.scalar(select(Player).where(Player.power == "France"))
        assert [(r.player_id, r.text) for r in rows] == [(france.id, "ORDER France A Par - Bur"),
                                                        (None, "ORDER turkey: F Ank - Bla")]  # nobody plays Turkey
    status = desk.player("France", "")  # the player sees it in their status, as the GM's
    assert "  A PAR - BUR (entered by the GM)" in status and "  A MAR - SPA\n" in status
    assert [e.detail for e in desk.audit("order")] == [
        {"phase": "Spring 1901, Movement", "power": "France", "order": "A PAR - BUR"},
        {"phase": "Spring 1901, Movement", "power": "Turkey", "order": "F ANK - BLA"}]
    before = desk.last_mail_id()
    desk.master("PROCESS")
    for mail in desk.mails(kind="results", since=before):
        line = next(x for x in mail.body_text.splitlines() if "A PAR - BUR" in x)
        assert line.endswith("(entered by the GM)"), line
        assert "(entered by the GM)" not in next(x for x in mail.body_text.splitlines() if "A MAR - SPA" in x)
        assert "<em>(entered by the GM)</em>" in mail.body_html
    with transaction(desk.sf) as s:
        stored = s.scalar(select(GamePhase).where(GamePhase.label == "Spring 1901, Movement")).results_json
        assert {"power": "France", "order": "A PAR - BUR", "entered_by_gm": True}.items() <= next(
            e for e in stored["orders"] if e["order"] == "A PAR - BUR").items()


def test_order_refusals_change_nothing(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    desk.player("France", "A Par - Bur")
    before = desk.last_mail_id()
    ack = desk.master("ORDER Narnia A Par - Bur\nORDER France A Par - Mos\nORDER France A Ber - Kie\n"
                      "ORDER France\nORDER France DP 1 A Par H\nDP France 1 A Par - Bur")
    assert "has no power 'Narnia'; its great powers are Austria, England, France" in ack
    assert "REJECTED  ORDER France A Par - Mos" in ack
    assert "REJECTED  ORDER France A Ber - Kie" in ack
    assert "usage: ORDER <power> <order>" in ack
    assert "an allocation: use DP <power> <n> <order>" in ack
    assert "has no point allocations" in ack
    assert ack.count("accepted  ") == 1  # SIGNON MASTER alone
    assert on_file(desk) == [("France", "A PAR - BUR", None)]
    assert not desk.audit("order") and not desk.audit("dp")
    assert "REJECTED  ORDER France A Par - Pic" in desk.player("France", "ORDER France A Par - Pic")
    unchanged(desk, before)
    forming = new_game(session_factory, "g2", start=False)
    assert "g2 is forming, not under way" in forming.master("ORDER France A Par - Bur")


def test_dp_on_a_powers_behalf_is_a_secret_allocation_entered_by_the_gm(
        session_factory: sessionmaker[Session]) -> None:
    powers = ["France", "Spain", "Austria"]
    desk = Desk(session_factory, "ae1")
    with transaction(session_factory) as s:
        game = create_game(s, "ae1", "ambition")
        add_master(s, game, MASTER, password_hash("gm-pw"))
        s.add_all(Player(game_id=game.id, power=p, email=address(p), password_hash=password_hash("pw"))
                  for p in powers)
        s.flush()
        phases.start(s, game, utcnow())
    ack = desk.master("DP France 2 A Tus H\nDP Spain 1 F Por H\nDP France x A Tus H\nDP Venice 1 A Tus H\n"
                      "ORDER Venice F Ven H\nDP France 1 A Par - Bur")
    assert "= France: DP 2 A TUS H (entered by the GM)" in ack
    assert "= Spain: DP 1 F POR H (entered by the GM)" in ack
    assert "REJECTED  DP France x A Tus H" in ack and "usage: DP <power> <n> <order>" in ack
    assert ack.count("is a minor power") == 2
    assert "REJECTED  DP France 1 A Par - Bur" in ack
    assert on_file(desk, SecretAllocation) == [("France", "DP 2 A TUS H", MASTER), ("Spain", "DP 1 F POR H", MASTER)]
    france = desk.player("France", "")
    assert "DP 2 A TUS H" in france and "DP 1 F POR H" not in france
    assert "DP 2 A TUS H" not in desk.player("Spain", "")
    assert [e.detail["order"] for e in desk.audit("dp")] == ["DP 2 A TUS H", "DP 1 F POR H"]
    before = desk.last_mail_id()
    desk.master("PROCESS")
    seen = {address("France"): ["DP 2 A TUS H"], address("Spain"): ["DP 1 F POR H"], address("Austria"): [],
            MASTER: ["DP 2 A TUS H", "DP 1 F POR H"]}
    for mail in desk.mails(kind="results", since=before):
        for allocation in ("DP 2 A TUS H", "DP 1 F POR H"):
            shown = allocation in seen[mail.to_addr]
            assert (allocation in mail.body_text, allocation in mail.body_html) == (shown, shown), mail.to_addr
            if shown:
                line = next(x for x in mail.body_text.splitlines() if allocation in x)
                assert line.endswith("(entered by the GM)"), line


# --- on the command line --------------------------------------------------------------------------


def test_process_preview_and_rollback_on_the_command_line(session_factory: sessionmaker[Session],
                                                          migrated_url: str) -> None:
    desk = new_game(session_factory)
    desk.player("France", "A Par - Bur")
    before = desk.last_mail_id()
    preview = gm("game", "preview", "g1", url=migrated_url)
    assert preview.returncode == 0, preview.stderr
    assert "accepted  PREVIEW" in preview.stdout and f"mailed to {MASTER} only" in preview.stdout
    assert "Preview of Spring 1901, Movement in g1 (nothing kept)" in preview.stdout
    assert "PREVIEW, NOTHING KEPT" in preview.stdout and "A PAR - BUR" in preview.stdout
    assert desk.phase_label() == "Spring 1901, Movement"
    assert [m.kind for m in desk.mails(since=before)] == ["preview"]
    done = gm("game", "process", "G1", url=migrated_url)
    assert done.returncode == 0, done.stderr
    assert "accepted  PROCESS" in done.stdout and "now Fall 1901, Movement" in done.stdout
    assert desk.phase_label() == "Fall 1901, Movement"
    assert sorted(m.to_addr for m in desk.mails(kind="results", since=before)) == sorted([*PLAYERS, MASTER])
    back = gm("game", "rollback", "g1", "Spring", "1901", url=migrated_url)
    assert back.returncode == 0, back.stderr
    assert "back at the start of Spring 1901, Movement" in back.stdout
    assert desk.phase_label() == "Spring 1901, Movement"
    assert [(e.actor, e.inbound_id) for e in desk.audit("rollback")] == [("operator (command line)", None)]
    refused = gm("game", "rollback", "g1", "Spring", "1901", url=migrated_url)
    assert refused.returncode == 2 and "REJECTED  ROLLBACK Spring 1901" in refused.stdout
    assert "has not been adjudicated" in refused.stdout
