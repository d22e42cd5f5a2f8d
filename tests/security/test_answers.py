"""Who the judge answers, and how much: a stranger gets a few fixed notices an hour and never a line
of its mail; a registered player is always answered (or told once that answers are paused), and
nothing others cause uses up a player's answers."""
from __future__ import annotations

from sqlalchemy import select

from desk import JUDGE, Desk, address, mail
from gm.mail import budget
from gm.mail.ingest import ingest
from gm.store.db import transaction
from gm.store.models import OrderRecord, OutboundMail

TEXT = [f"line {i}: visit https://spam{i}.example and call +1 555 01{i:02}" for i in range(40)]


def queue_mail_to(desk: Desk, to: str, kind: str, n: int, *, unproven: bool = False) -> None:
    """n mails to `to` in the outbox, as results, press or notices caused by others leave them."""
    with transaction(desk.sf) as s:
        s.add_all(OutboundMail(to_addr=to, subject="x", body_text="x", kind=kind, unproven=unproven) for _ in range(n))


def test_a_stranger_gets_a_few_fixed_notices_an_hour_and_none_of_its_lines(desk: Desk) -> None:
    victim = "victim@else.example"
    answered = [desk.send(victim, "\n".join(["SIGNON France g1 guess", *TEXT])).replies for _ in range(6)]
    assert answered == [1] * budget.STRANGER_NOTICES_PER_HOUR + [0] * (6 - budget.STRANGER_NOTICES_PER_HOUR)
    for row in desk.mails(to=victim):
        assert not any(line.split(":")[0] in row.body_text for line in TEXT)
        assert "spam" not in row.body_text and "555" not in row.body_text
        assert row.attachments is None
    assert len(desk.mails()) == budget.STRANGER_NOTICES_PER_HOUR  # nobody else was mailed


def test_the_judges_mail_to_addresses_that_proved_nothing_has_a_ceiling_in_all(desk: Desk) -> None:
    for i in range(budget.UNPROVEN_PER_HOUR):
        queue_mail_to(desk, f"earlier@else{i}.example", "notice", 1, unproven=True)
    assert desk.send("new-stranger@other.example", "HELP").replies == 0
    # A registered player is answered all the same.
    assert desk.send(address("France"), "").replies == 1


def test_a_registered_player_is_answered_whatever_others_made_the_judge_send_them(desk: Desk) -> None:
    france = address("France")
    queue_mail_to(desk, france, "press", 80)
    queue_mail_to(desk, france, "results", 5)
    queue_mail_to(desk, france, "notice", budget.STRANGER_NOTICES_PER_HOUR)
    empty = desk.send(france, "")
    assert empty.replies == 1 and "signed on to no game" in desk.mails(to=france)[-1].body_text
    typo = desk.send(france, "SIGNON France g1 pwx")
    assert typo.replies == 1 and "wrong password for France in g1" in desk.mails(to=france)[-1].body_text
    assert "accepted  A Par - Bur" in desk.player("France", "A Par - Bur")


def test_past_its_hourly_acknowledgements_a_player_is_told_once_and_the_orders_are_still_taken(desk: Desk) -> None:
    france = address("France")
    limit = 4
    queued = [ingest(desk.sf, mail(france, f"SIGNON France g1 pw\nA Par - {to}"), gm_address=JUDGE,
                     verifier=desk.verifier, replies_per_hour=limit).replies
              for to in ["Bur", "Pic", "Gas", "Bur", "Pic", "Gas", "Bur"]]
    assert queued == [1] * limit + [1, 0, 0]
    kinds = [m.kind for m in desk.mails(to=france)]
    assert kinds == ["ack"] * limit + ["paused"]
    assert "your orders still taken" in " ".join(desk.mails(to=france)[-1].body_text.split())
    with transaction(desk.sf) as s:
        on_file = s.scalars(select(OrderRecord.canonical).where(OrderRecord.power == "France",
                                                                OrderRecord.current.is_(True))).all()
    assert on_file == ["A PAR - BUR"]  # the last mail's order, unanswered but on file


def test_a_strangers_headers_are_not_carried_into_the_notice(desk: Desk) -> None:
    """A Message-ID, a subject or a Reply-To is the sender's own text: a notice carries none of it."""
    from email.message import EmailMessage

    m = EmailMessage()
    m["From"] = "victim@else.example"
    m["Reply-To"] = "other-victim@else.example"
    m["To"] = JUDGE
    m["Subject"] = "CHEAP-PILLS at https://spam.example"
    m["Message-ID"] = "<cheap-pills.at.spam.example@spam.example>"
    m.set_content("SIGNON France g1 guess")
    out = ingest(desk.sf, m.as_bytes(), gm_address=JUDGE, verifier=desk.verifier)
    (notice,) = desk.mails()
    assert out.replies == 1 and notice.to_addr == "victim@else.example"
    assert notice.in_reply_to is None and notice.references is None
    assert "spam" not in notice.subject + notice.body_text
