"""Engines, the transaction helper and the tables' constraints, alike on SQLite and PostgreSQL."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
from sqlalchemy import func, select, update
from sqlalchemy.exc import IntegrityError, StatementError
from sqlalchemy.orm import Session, sessionmaker

from gm.store.db import make_engine, transaction
from gm.store.models import (
    AuditEntry,
    AuthFailure,
    Game,
    GamePhase,
    GameStatus,
    InboundMail,
    OrderRecord,
    OutboundMail,
    Player,
    SecretAllocation,
    dedup_key,
)

T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def add_game(sf: sessionmaker[Session], name: str = "tuscany") -> int:
    with transaction(sf) as s:
        game = Game(name=name, variant="standard")
        s.add(game)
        s.flush()
        return game.id


def add_mail(s: Session, message_id: str, uid: int | None = None, uidvalidity: int | None = None) -> InboundMail:
    mail = InboundMail(
        message_id=message_id,
        dedup_key=dedup_key(message_id, "a@example.org", "body"),
        imap_uidvalidity=uidvalidity,
        imap_uid=uid,
        sender="a@example.org",
        raw=b"Subject: x\r\n\r\nbody\xff",
        size=22,
    )
    s.add(mail)
    return mail


def count(sf: sessionmaker[Session], model: type) -> int:
    with transaction(sf) as s:
        return int(s.scalar(select(func.count()).select_from(model)) or 0)


# --- engines ---------------------------------------------------------------------------------


def test_sqlite_connections_have_foreign_keys_wal_and_a_busy_timeout(tmp_path: Path) -> None:
    engine = make_engine(f"sqlite:///{tmp_path / 'gm.sqlite3'}")
    try:
        with engine.connect() as c:
            assert c.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert c.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert (c.exec_driver_sql("PRAGMA busy_timeout").scalar() or 0) >= 1000
    finally:
        engine.dispose()


def test_foreign_keys_are_enforced(session_factory: sessionmaker[Session]) -> None:
    with pytest.raises(IntegrityError), transaction(session_factory) as s:
        s.add(Player(game_id=12345, power="France", email="f@example.org", password_hash="x"))


# --- the transaction helper ------------------------------------------------------------------


def test_transaction_commits_when_the_block_ends(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        s.add(Game(name="tuscany", variant="standard"))
    with transaction(session_factory) as s:
        game = s.scalars(select(Game)).one()
    assert (game.name, game.status, game.require_dkim) == ("tuscany", GameStatus.FORMING, False)
    assert game.created_at.tzinfo is not None


def test_transaction_rolls_back_when_the_block_raises(session_factory: sessionmaker[Session]) -> None:
    add_game(session_factory, "kept")
    with pytest.raises(RuntimeError, match="boom"), transaction(session_factory) as s:
        s.add(Game(name="lost", variant="standard"))
        s.flush()  # written, but not committed
        s.execute(update(Game).values(status=GameStatus.FINISHED))
        raise RuntimeError("boom")
    with transaction(session_factory) as s:
        assert [(g.name, g.status) for g in s.scalars(select(Game))] == [("kept", "forming")]


def test_a_failed_statement_rolls_back_the_whole_transaction(session_factory: sessionmaker[Session]) -> None:
    add_game(session_factory, "taken")
    with pytest.raises(IntegrityError), transaction(session_factory) as s:
        s.add(AuditEntry(actor="system", action="create", detail={"name": "taken"}))
        s.flush()
        s.add(Game(name="taken", variant="standard"))
    assert count(session_factory, AuditEntry) == 0


# --- constraints -----------------------------------------------------------------------------


def test_game_names_are_unique_and_status_is_checked(session_factory: sessionmaker[Session]) -> None:
    add_game(session_factory, "tuscany")
    with pytest.raises(IntegrityError):
        add_game(session_factory, "tuscany")
    with pytest.raises(IntegrityError), transaction(session_factory) as s:
        s.add(Game(name="other", variant="standard", status="paused"))


def test_an_inbound_mail_is_recorded_once(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        add_mail(s, "<1@example.org>")
    with pytest.raises(IntegrityError), transaction(session_factory) as s:
        add_mail(s, "<1@example.org>")
    assert count(session_factory, InboundMail) == 1
    assert dedup_key("<1@x>", "a@x", "A Par-Bur") == dedup_key("<1@x>", "a@x", "A Par-Bur")
    keys = {dedup_key("<1@x>", "a@x", "A Par-Bur"), dedup_key("<1@x>", "b@x", "A Par-Bur"),
            dedup_key("<1@x>", "a@x", "A Par-Pic"), dedup_key("<1@x>a@x", "", "A Par-Bur")}
    assert len(keys) == 4


def test_an_imap_uid_is_unique_within_its_uidvalidity(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        add_mail(s, "<1@example.org>", uid=7, uidvalidity=100)
        add_mail(s, "<2@example.org>", uid=7, uidvalidity=101)  # a new mailbox generation
        add_mail(s, "<3@example.org>")  # not from IMAP: no uid at all, any number of times
        add_mail(s, "<4@example.org>")
    with pytest.raises(IntegrityError), transaction(session_factory) as s:
        add_mail(s, "<5@example.org>", uid=7, uidvalidity=100)
    with transaction(session_factory) as s:
        raw = s.scalars(select(InboundMail.raw).where(InboundMail.message_id == "<1@example.org>")).one()
    assert raw == b"Subject: x\r\n\r\nbody\xff"


def test_outbox_message_id_is_made_with_the_row_and_unique(session_factory: sessionmaker[Session]) -> None:
    def mail(**kw: object) -> OutboundMail:
        return OutboundMail(to_addr="a@example.org", subject="s", body_text="b", kind="ack", **kw)

    first = mail()
    assert first.message_id.startswith("<") and first.message_id.endswith(">")
    assert mail().message_id != first.message_id
    with transaction(session_factory) as s:
        s.add(first)
    with transaction(session_factory) as s:
        stored = s.scalars(select(OutboundMail)).one()
    assert stored.message_id == first.message_id
    assert (stored.attempts, stored.sent_at) == (0, None)
    with pytest.raises(IntegrityError), transaction(session_factory) as s:
        s.add(mail(message_id=first.message_id))


def test_one_active_player_per_power(session_factory: sessionmaker[Session]) -> None:
    game_id = add_game(session_factory)

    def join(power: str | None, email: str) -> Player:
        return Player(game_id=game_id, power=power, email=email, password_hash="x")

    with transaction(session_factory) as s:
        s.add_all([join("France", "f@example.org"), join(None, "a@example.org"), join(None, "b@example.org")])
    with pytest.raises(IntegrityError), transaction(session_factory) as s:
        s.add(join("France", "g@example.org"))
    # Once the first player has left, a replacement takes the power over.
    with transaction(session_factory) as s:
        s.execute(update(Player).where(Player.power == "France").values(left_at=T0))
        s.add(join("France", "g@example.org"))
    with transaction(session_factory) as s:
        active = s.scalars(select(Player.email).where(Player.power == "France", Player.left_at.is_(None))).all()
    assert active == ["g@example.org"]


def test_phase_numbers_are_unique_within_a_game(session_factory: sessionmaker[Session]) -> None:
    a, b = add_game(session_factory, "a"), add_game(session_factory, "b")
    with transaction(session_factory) as s:
        for game_id in (a, b):
            s.add(GamePhase(game_id=game_id, seq=1, label="Spring 1901, Movement", state_json={}))
    with pytest.raises(IntegrityError), transaction(session_factory) as s:
        s.add(GamePhase(game_id=a, seq=1, label="Spring 1901, Movement", state_json={}))


# --- values ----------------------------------------------------------------------------------


def test_times_come_back_in_utc_with_their_zone(session_factory: sessionmaker[Session]) -> None:
    paris = timezone(timedelta(hours=1))
    with transaction(session_factory) as s:
        s.add(Game(name="g", variant="standard", deadline_at=datetime(2026, 3, 1, 13, 0, tzinfo=paris)))
    with transaction(session_factory) as s:
        deadline = s.scalars(select(Game.deadline_at)).one()
    assert deadline == T0 and deadline.utcoffset() == timedelta(0)


def test_naive_times_are_refused(session_factory: sessionmaker[Session]) -> None:
    with pytest.raises(StatementError, match="naive datetime"), transaction(session_factory) as s:
        s.add(Game(name="g", variant="standard", deadline_at=datetime(2026, 3, 1, 12, 0)))
        s.flush()


def test_outbox_due_mail(session_factory: sessionmaker[Session]) -> None:
    def mail(subject: str, next_at: datetime, sent_at: datetime | None = None) -> OutboundMail:
        return OutboundMail(
            to_addr="a@example.org", subject=subject, body_text="b", kind="results",
            next_attempt_at=next_at, sent_at=sent_at,
            attachments=[{"filename": "map.png", "content_type": "image/png", "data": "iVBORw0KGgo="}],
        )  # fmt: skip

    with transaction(session_factory) as s:
        s.add_all([
            mail("due", T0 - timedelta(minutes=1)),
            mail("later", T0 + timedelta(minutes=1)),
            mail("sent", T0 - timedelta(hours=1), sent_at=T0 - timedelta(hours=1)),
        ])  # fmt: skip
    with transaction(session_factory) as s:
        due = s.scalars(
            select(OutboundMail).where(OutboundMail.sent_at.is_(None), OutboundMail.next_attempt_at <= T0)
        ).all()
    assert [m.subject for m in due] == ["due"]
    assert due[0].attachments == [{"filename": "map.png", "content_type": "image/png", "data": "iVBORw0KGgo="}]


def test_a_later_order_for_a_unit_replaces_the_earlier(session_factory: sessionmaker[Session]) -> None:
    game_id = add_game(session_factory)
    with transaction(session_factory) as s:
        player = Player(game_id=game_id, power="France", email="f@example.org", password_hash="x")
        phase = GamePhase(game_id=game_id, seq=1, label="Spring 1901, Movement", state_json={})
        mail = add_mail(s, "<1@example.org>")
        s.add_all([player, phase])
        s.flush()
        ids: dict[str, object] = {"game_id": game_id, "phase_id": phase.id, "player_id": player.id}
        ids.update(power="France", inbound_id=mail.id)
        s.add(OrderRecord(text="a par-bur", canonical="A PAR - BUR", unit="PAR", **ids))
        s.add(OrderRecord(text="f bre-mao", canonical="F BRE - MAO", unit="BRE", **ids))
        s.add(SecretAllocation(text="dp 2 a hol h", canonical="DP 2 A HOL H", unit="HOL", points=2, **ids))
    with transaction(session_factory) as s:
        s.execute(
            update(OrderRecord)
            .where(OrderRecord.phase_id == ids["phase_id"], OrderRecord.unit == "PAR", OrderRecord.current)
            .values(current=False)
        )
        s.add(OrderRecord(text="a par h", canonical="A PAR H", unit="PAR", **ids))
    with transaction(session_factory) as s:
        current = s.scalars(
            select(OrderRecord.canonical)
            .where(OrderRecord.phase_id == ids["phase_id"], OrderRecord.power == "France", OrderRecord.current)
            .order_by(OrderRecord.id)
        ).all()
        kept = s.scalar(select(func.count()).select_from(OrderRecord))
        points = s.scalars(select(SecretAllocation.points).where(SecretAllocation.current)).all()
    assert current == ["F BRE - MAO", "A PAR H"]
    assert kept == 3  # the replaced order stays, for disputes and replays
    assert points == [2]


def test_audit_and_auth_failures(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        s.add(AuditEntry(actor="system", action="adjudicate", detail={"phase": "Spring 1901, Movement", "n": 3}))
        s.add_all([AuthFailure(sender="x@example.org", at=T0 - timedelta(minutes=m)) for m in (1, 5, 90)])
    with transaction(session_factory) as s:
        entry = s.scalars(select(AuditEntry)).one()
        recent = s.scalar(
            select(func.count())
            .select_from(AuthFailure)
            .where(AuthFailure.sender == "x@example.org", AuthFailure.at > T0 - timedelta(hours=1))
        )
    assert entry.detail == {"phase": "Spring 1901, Movement", "n": 3}
    assert recent == 2
