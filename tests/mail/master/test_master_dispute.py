"""A scripted dispute, by mail, in Ambition & Empire (secret DP allocations): France's results are
wrong because its player mistyped an order; the GM rolls the phase back, enters the order the
player proves he meant, previews the outcome, and processes; every player gets the corrected
results marked as a correction; and, as in test_secrecy, no mail to a player shows another power's
allocation."""
from __future__ import annotations

import random
import re
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from desk import JUDGE, MASTER, Desk, password_hash
from gm.games import add_master, create_game, current_phase, find_game
from gm.lifecycle import phases
from gm.mail.outgoing.game_mail import queue_start
from gm.randomgame import RandomPlayers
from gm.scheduler import run_due
from gm.store.db import transaction
from gm.store.models import OutboundMail, Player, SecretAllocation, utcnow
from gm.variants import load_variant
from test_secrecy import ALLOCATION, assert_no_leaks

VARIANT = load_variant("ambition")
MISTYPED, MEANT = "F Bre - Gas", "F Bre - Eng"  # France's A Par - Gas bounced off its own fleet


def address(power: str) -> str:
    return f"{power.lower().replace(' ', '-')}@players.example"


def new_ambition_game(sf: sessionmaker[Session]) -> Desk:
    with transaction(sf) as s:
        game = create_game(s, "ae1", "ambition")
        add_master(s, game, MASTER, password_hash("gm-pw"))
        s.add_all(Player(game_id=game.id, power=p, email=address(p), password_hash=password_hash("pw"))
                  for p in VARIANT.great_powers)
        s.flush()
        phases.start(s, game, utcnow())
        queue_start(s, game, gm_address=JUDGE, gm_addresses=[MASTER], now=utcnow())
    return Desk(sf, "ae1")


def orders_of(power: str, lines: list[str]) -> list[str]:
    if power != "France":
        return lines
    # France's units: Paris to Gascony, Marseilles holds, and the fleet as mistyped.
    return ["A Par - Gas", "A Mar H", MISTYPED, *(line for line in lines if line.startswith("DP"))]


def test_a_mistyped_order_put_right_by_rollback_order_preview_and_process(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_ambition_game(session_factory)
    with transaction(session_factory) as s:
        game = find_game(s, "ae1")
        current = current_phase(s, game)
        assert game is not None and current is not None and game.deadline_at is not None
        state, deadline = current.state, game.deadline_at
    random_orders = RandomPlayers(VARIANT, random.Random(1763)).orders(state)
    for power in VARIANT.great_powers:
        lines = orders_of(power, [str(o) for o in random_orders if o.power == power])
        out = desk.send(address(power), "\n".join([f"SIGNON {power} ae1 pw", *lines]))
        ack = desk.ack(out, address(power))
        assert "REJECTED" not in ack, ack
    run_due(session_factory, gm_address=JUDGE, now=deadline + timedelta(seconds=1))
    first = desk.mails(kind="results", to=address("France"))
    assert len(first) == 1 and first[0].subject == "[ae1] Spring 1763 results"
    wrong = first[0].body_text
    assert re.search(r"F BRE - GAS\s+fails", wrong) and re.search(r"A PAR - GAS\s+fails", wrong)

    # France proves what it meant; the GM puts it right and looks before processing.
    before = desk.last_mail_id()
    ack = desk.master(f"ROLLBACK\nORDER France {MEANT}\nPREVIEW")
    assert "accepted  ROLLBACK" in ack and "accepted  ORDER France F Bre - Eng" in ack and "accepted  PREVIEW" in ack
    assert "= France: F BRE - ENG (entered by the GM)" in ack
    told = desk.mails(kind="announcement", since=before)
    assert sorted(m.to_addr for m in told) == sorted([*map(address, VARIANT.great_powers), MASTER])
    [preview] = desk.mails(kind="preview", since=before)
    assert preview.to_addr == MASTER and "PREVIEW, nothing kept" in preview.subject
    assert re.search(r"F BRE - ENG\s+succeeds \(entered by the GM\)", preview.body_text)
    assert re.search(r"A PAR - GAS\s+succeeds", preview.body_text)
    shown = ALLOCATION.findall(preview.body_text)  # the GM's copy: every power's allocations, each its unit
    assert len(shown) >= 5 and not any(" ? " in a for a in shown), shown
    assert desk.phase_label() == "Spring 1763, Movement"
    assert not desk.mails(kind="results", since=before)

    before = desk.last_mail_id()
    ack = desk.master("PROCESS")
    assert "accepted  PROCESS" in ack and "now Fall 1763, Movement" in ack
    corrected = desk.mails(kind="results", since=before)
    assert sorted(m.to_addr for m in corrected) == sorted([*map(address, VARIANT.great_powers), MASTER])
    for mail in corrected:
        assert mail.subject.startswith("[ae1] Correction: Spring 1763 results")
        assert mail.body_text.splitlines()[1].startswith("CORRECTION: these results replace")
        assert "CORRECTION: these results replace those mailed earlier for Spring 1763, Movement" in " ".join(
            mail.body_text.split())  # wrapped to a phone's width
        assert "CORRECTION: these results replace" in mail.body_html
        assert re.search(r"F BRE - ENG\s+succeeds \(entered by the GM\)", mail.body_text)
        assert re.search(r"A PAR - GAS\s+succeeds", mail.body_text)
    # Everyone's allocations stood through the rollback, and were adjudicated again.
    gm_copy = next(m for m in corrected if m.to_addr == MASTER).body_text
    assert set(ALLOCATION.findall(gm_copy)) == set(ALLOCATION.findall(preview.body_text))
    assert [e.action for e in desk.audit() if e.actor == MASTER] == ["rollback", "order", "preview", "process"]

    no_allocation_leaks(session_factory)


def no_allocation_leaks(session_factory: sessionmaker[Session]) -> None:
    """test_secrecy's checks, over every mail the judge queued."""
    with transaction(session_factory) as s:
        rows = s.execute(select(SecretAllocation.power, SecretAllocation.canonical, SecretAllocation.text)).all()
        allocations = [(p, shown) for p, canonical, text in rows for shown in (canonical, text)]  # kept, and as written
        mails = s.scalars(select(OutboundMail)).all()
    assert_no_leaks(VARIANT, allocations, mails, {address(p): p for p in VARIANT.great_powers}, MASTER)
    assert {"ack", "results", "announcement", "start"} <= {m.kind for m in mails}
