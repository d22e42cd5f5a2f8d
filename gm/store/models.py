"""The database tables as SQLAlchemy models: games, players, phases, orders, mail in and out, audit,
confirmations, the running servers."""
from __future__ import annotations

import hashlib
import socket
from datetime import UTC, datetime
from email.utils import make_msgid
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    CheckConstraint,
    DateTime,
    ForeignKey,
    Index,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    false,
    text,
    true,
)
from sqlalchemy.engine import Dialect
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column
from sqlalchemy.types import TypeDecorator

# Constraint names fixed by convention, so that migrations name them alike on every database
# (SQLite's batch mode needs names to drop or alter a constraint).
NAMING_CONVENTION = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}

EMAIL = 320  # the longest addr-spec RFC 5321 allows
MESSAGE_ID = 998  # the longest header line RFC 5322 allows


def utcnow() -> datetime:
    return datetime.now(UTC)


def new_message_id(domain: str | None = None) -> str:
    """A fresh Message-ID, angle brackets included; the mail layer passes its own domain."""
    return make_msgid(domain=domain or socket.gethostname())


class UtcDateTime(TypeDecorator[datetime]):
    """A point in time, stored in UTC and always read back timezone-aware.

    PostgreSQL keeps the zone (timestamptz); SQLite keeps none, so values are turned to UTC
    before they are written and marked UTC when read, and both databases give the same answers.
    """

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"naive datetime {value!r}: give times with a timezone (UTC)")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: UtcDateTime(), dict[str, Any]: JSON(), list[Any]: JSON()}


class GameStatus(StrEnum):
    FORMING = "forming"
    ACTIVE = "active"
    FINISHED = "finished"


class Game(Base):
    __tablename__ = "games"
    __table_args__ = (CheckConstraint("status IN ('forming', 'active', 'finished')", name="status"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    name: Mapped[str] = mapped_column(String(64), unique=True)  # the short name players type
    variant: Mapped[str] = mapped_column(String(64))  # a name in gm.variants.REGISTRY
    status: Mapped[str] = mapped_column(String(16), default=GameStatus.FORMING)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    deadline_at: Mapped[datetime | None]  # the current phase's deadline, as announced
    options: Mapped[dict[str, Any] | None]  # house rules (gm.lifecycle.house_rules) and other settings
    require_dkim: Mapped[bool] = mapped_column(default=False, server_default=false())
    # When the scheduler must next look at the game (a reminder, the deadline, the end of grace).
    next_check_at: Mapped[datetime | None] = mapped_column(index=True)
    # Set by mail that changed orders or WAIT: the scheduler sees whether the phase may end early.
    orders_changed: Mapped[bool] = mapped_column(default=False, server_default=false())
    finished_at: Mapped[datetime | None]
    outcome: Mapped[str | None] = mapped_column(String(255))  # how it ended: 'won by France', ...
    # The Message-ID every mail about the game refers to, so that mail programs thread them.
    thread_id: Mapped[str | None] = mapped_column(String(MESSAGE_ID))
    # PAUSE: when the GM stopped the clock; the deadline is kept and moved on by RESUME.
    paused_at: Mapped[datetime | None]


class Master(Base):
    """A game master of one game: gets a copy of every results mail with the secret allocations
    and, with a password (SIGNON MASTER <game> <password>), runs the game by mail. Rows are never
    deleted: a GM who leaves gets `left_at`."""

    __tablename__ = "masters"
    __table_args__ = (
        Index(
            "uq_masters_game_id_email_active",
            "game_id",
            "email",
            unique=True,
            sqlite_where=text("left_at IS NULL"),
            postgresql_where=text("left_at IS NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    email: Mapped[str] = mapped_column(String(EMAIL))  # lower-case addr-spec
    password_hash: Mapped[str | None] = mapped_column(String(255))  # None: copies only, no sign-on
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    left_at: Mapped[datetime | None]


class Player(Base):
    """A person playing (or about to play) one power in one game. Rows are never deleted: a player
    who signs off or is replaced gets `left_at`, and the replacement is a new row."""

    __tablename__ = "players"
    __table_args__ = (
        # One active player per power; NULL powers (still forming) are never equal to each other.
        Index(
            "uq_players_game_id_power_active",
            "game_id",
            "power",
            unique=True,
            sqlite_where=text("left_at IS NULL"),
            postgresql_where=text("left_at IS NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    power: Mapped[str | None] = mapped_column(String(64))
    email: Mapped[str] = mapped_column(String(EMAIL), index=True)  # lower-case addr-spec
    password_hash: Mapped[str] = mapped_column(String(255))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    left_at: Mapped[datetime | None]
    late_streak: Mapped[int] = mapped_column(default=0, server_default=text("0"))  # deadlines missed in a row
    civil_disorder: Mapped[bool] = mapped_column(default=False, server_default=false())
    waiting: Mapped[bool] = mapped_column(default=False, server_default=false())  # WAIT, this phase
    absent_from: Mapped[datetime | None]  # SET ABSENCE: no deadline falls in [from, until)
    absent_until: Mapped[datetime | None]
    map_palette: Mapped[str | None] = mapped_column(String(16))  # SET MAP: the player's map colours; None: the game's


class GamePhase(Base):
    """One phase of a game: the position at its start and, once adjudicated, what happened."""

    __tablename__ = "phases"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"))
    seq: Mapped[int]  # 1, 2, ... within the game
    label: Mapped[str] = mapped_column(String(64))  # 'Spring 1901, Movement': Variant.phase_label
    state_json: Mapped[dict[str, Any]]  # gm.store.db.state_to_json of the position
    results_json: Mapped[dict[str, Any] | None]
    opened_at: Mapped[datetime] = mapped_column(default=utcnow)
    adjudicated_at: Mapped[datetime | None]
    deadline_at: Mapped[datetime | None]  # the deadline it had when it was adjudicated (or has now)
    reminded_at: Mapped[datetime | None]  # when reminders went out
    # The GM put the deadline off (EXTEND, a later SET DEADLINE): the phase runs to it even once
    # every order is in, until PROCESS or the deadline ends it (gm.lifecycle.timing).
    held_to_deadline: Mapped[bool] = mapped_column(default=False, server_default=false())


class InboundMail(Base):
    """Every mail taken in, kept whole, with what became of it."""

    __tablename__ = "inbound_mail"
    __table_args__ = (UniqueConstraint("imap_uidvalidity", "imap_uid"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[str] = mapped_column(String(MESSAGE_ID), index=True)
    # What makes two mails the same mail (see dedup_key): not the Message-ID alone, which anyone
    # who saw a mail can send first.
    dedup_key: Mapped[str] = mapped_column(String(64), unique=True)
    # Where the mail sits on the IMAP server; NULL for mail that came another way.
    imap_uidvalidity: Mapped[int | None] = mapped_column(BigInteger)
    imap_uid: Mapped[int | None] = mapped_column(BigInteger)
    sender: Mapped[str] = mapped_column(String(EMAIL))
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    size: Mapped[int]
    received_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)
    processed_at: Mapped[datetime | None] = mapped_column(index=True)
    outcome: Mapped[str | None] = mapped_column(String(255))  # 'processed', 'automatic: ...', 'too large'


def dedup_key(message_id: str, sender: str, text: str) -> str:
    """The key of a mail taken in: its Message-ID, its sender and what it says. A mail delivered
    twice has the same key; another mail sent first with its Message-ID does not."""
    digest = hashlib.sha256()
    for part in (message_id, sender, text):
        digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()


class _OrderColumns:
    """What public orders and secret allocations share."""

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"))
    phase_id: Mapped[int] = mapped_column(ForeignKey("phases.id"))
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))  # None: a power nobody plays (GM's ORDER)
    power: Mapped[str] = mapped_column(String(64))
    text: Mapped[str] = mapped_column(Text)  # the line as the player typed it
    canonical: Mapped[str] = mapped_column(Text)  # str(order): the order as understood
    unit: Mapped[str] = mapped_column(String(16))  # province the order is for ('' for a waive)
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_mail.id"))
    received_at: Mapped[datetime] = mapped_column(default=utcnow)
    # False once a later order for the same unit replaced this one. Rows are never deleted.
    current: Mapped[bool] = mapped_column(default=True, server_default=true())
    entered_by: Mapped[str | None] = mapped_column(String(EMAIL))  # the GM who entered it (ORDER, DP); None: the player


class OrderRecord(_OrderColumns, Base):
    """An order a player gave, public once the phase is adjudicated."""

    __tablename__ = "orders"
    __table_args__ = (Index("ix_orders_phase_id_power_current", "phase_id", "power", "current"),)


class SecretAllocation(_OrderColumns, Base):
    """Secret points (DP/IP lines) behind an order for another power's unit. Kept apart from
    `orders` so that no public view can join them in by mistake."""

    __tablename__ = "secret_allocations"
    __table_args__ = (Index("ix_secret_allocations_phase_id_power_current", "phase_id", "power", "current"),)

    points: Mapped[int]


class OutboundMail(Base):
    """A mail to send. The sender retries with back-off until `sent_at` is set, or until the
    SMTP server refuses the mail for good (`gave_up_at`)."""

    __tablename__ = "outbox"
    __table_args__ = (
        Index(
            "ix_outbox_due",
            "next_attempt_at",
            sqlite_where=text("sent_at IS NULL"),
            postgresql_where=text("sent_at IS NULL"),
        ),
        Index("ix_outbox_to_addr_created_at", "to_addr", "created_at"),  # mails to an address an hour
        # an address's acknowledgements still to send (outbox._AFTER_ACKS asks it of every row it
        # claims): without it, each asking reads all the address's mail
        Index("ix_outbox_to_addr_kind_sent_at", "to_addr", "kind", "sent_at"),
        # the mail of the last hour to addresses that proved nothing (gm.mail.budget): a few rows
        Index("ix_outbox_unproven_created_at", "created_at", sqlite_where=text("unproven"),
              postgresql_where=text("unproven")),
        # what the mailbox sent in the last hour and day, against the provider's limits (gm.mail.outgoing.pacing)
        Index("ix_outbox_claimed_at", "claimed_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    # Made with the row, so that a retried send carries the same Message-ID.
    message_id: Mapped[str] = mapped_column(String(MESSAGE_ID), unique=True, default=new_message_id)
    to_addr: Mapped[str] = mapped_column(String(EMAIL))
    subject: Mapped[str] = mapped_column(Text)
    body_text: Mapped[str] = mapped_column(Text)
    body_html: Mapped[str | None] = mapped_column(Text)  # with body_text: multipart/alternative
    # [{"filename": ..., "content_type": ..., "data": <base64>}, ...]
    attachments: Mapped[list[Any] | None]
    in_reply_to: Mapped[str | None] = mapped_column(String(MESSAGE_ID))
    references: Mapped[str | None] = mapped_column(Text)  # default: in_reply_to
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"), index=True)
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_mail.id"))
    kind: Mapped[str] = mapped_column(String(32))  # 'ack', 'notice', 'start', 'results', 'reminder', ...
    # To an address that has proved nothing (not a player's, a GM's or an observer's, nor the
    # authenticated sender of the mail answered): counted by gm.mail.budget.
    unproven: Mapped[bool] = mapped_column(default=False, server_default=false())
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    attempts: Mapped[int] = mapped_column(default=0, server_default=text("0"))
    next_attempt_at: Mapped[datetime] = mapped_column(default=utcnow)
    sent_at: Mapped[datetime | None]
    gave_up_at: Mapped[datetime | None]  # a permanent (5xx) refusal: never tried again
    claimed_at: Mapped[datetime | None]  # when a sender last took it to send: its place in the provider's limits
    last_error: Mapped[str | None] = mapped_column(Text)

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("message_id", new_message_id())
        super().__init__(**kwargs)


class Bounce(Base):
    """Mail the judge sent that did not arrive: a delivery report (a bounce) that came back to the
    judge's mailbox, or a refusal of the recipient by the judge's own SMTP server as it sent. Its
    words are the receiving server's, shown to the GM alone."""

    __tablename__ = "bounces"
    __table_args__ = (Index("ix_bounces_address_at", "address", "at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    address: Mapped[str] = mapped_column(String(EMAIL))  # the judge's recipient whose mail came back
    # The mail it returns; None: a report matched to no mail the judge sent (kept, never acted on).
    outbox_id: Mapped[int | None] = mapped_column(ForeignKey("outbox.id"))
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_mail.id"))  # the report; None: refused at sending
    permanent: Mapped[bool]
    status: Mapped[str | None] = mapped_column(String(16))  # RFC 3463: '5.1.1'
    words: Mapped[str] = mapped_column(Text)
    form: Mapped[str] = mapped_column(String(32))  # 'dsn', 'exim', ..., 'smtp' (refused at sending)
    at: Mapped[datetime] = mapped_column(default=utcnow)
    # Set when mail from the address arrived again, or the mark it made was cleared: it counts no more.
    cleared_at: Mapped[datetime | None]


class FailingAddress(Base):
    """An address the judge's mail no longer reaches (gm.mail.outgoing.undelivered): marked after a
    permanent failure or repeated temporary ones, cleared when mail from it arrives again or the GM
    clears it. The row is the mark."""

    __tablename__ = "failing_addresses"

    address: Mapped[str] = mapped_column(String(EMAIL), primary_key=True)
    since: Mapped[datetime] = mapped_column(default=utcnow)
    bounce_id: Mapped[int] = mapped_column(ForeignKey("bounces.id"))  # what marked it: its words


class QuietAddress(Base):
    """An address that asked, by the one-click link in a notice, for no more notices about mail
    sent in its name (gm.lifecycle.leaving); heard again once mail proven its own arrives."""

    __tablename__ = "quiet_addresses"

    address: Mapped[str] = mapped_column(String(EMAIL), primary_key=True)
    since: Mapped[datetime] = mapped_column(default=utcnow)


class ReaderLanguage(Base):
    """The language an address reads the judge's mail in (SET LANGUAGE): in every game it plays,
    runs or watches, over the game's own language (gm.view.languages)."""

    __tablename__ = "reader_languages"

    address: Mapped[str] = mapped_column(String(EMAIL), primary_key=True)
    language: Mapped[str] = mapped_column(String(16))
    since: Mapped[datetime] = mapped_column(default=utcnow)


class DrawnMap(Base):
    """A map drawn once for every channel (gm.maps.store): the PNG, under a digest of what it is
    drawn from. Kept a few hours after it was drawn."""

    __tablename__ = "drawn_maps"

    key: Mapped[str] = mapped_column(String(64), primary_key=True)
    png: Mapped[bytes] = mapped_column(LargeBinary)
    drawn_at: Mapped[datetime] = mapped_column(default=utcnow, index=True)


class AuditEntry(Base):
    """Who did what, when: every change a command or the scheduler makes."""

    __tablename__ = "audit_log"
    __table_args__ = (Index("ix_audit_log_game_id_at", "game_id", "at"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    at: Mapped[datetime] = mapped_column(default=utcnow)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"))
    actor: Mapped[str] = mapped_column(String(EMAIL))  # an address, or 'system'
    action: Mapped[str] = mapped_column(String(64))
    detail: Mapped[dict[str, Any] | None]
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound_mail.id"))  # the mail that asked for it


class Confirmation(Base):
    """A change asked for in the name of an address (JOIN, SET ADDRESS, CREATE), waiting for that
    address to send back the code mailed to it: a From line proves nothing, the code does. Only
    the code's hash is kept."""

    __tablename__ = "confirmations"
    __table_args__ = (
        CheckConstraint("kind IN ('join', 'address', 'create', 'observe')", name="kind"),
        Index("ix_confirmations_address_kind_expires_at", "address", "kind", "expires_at"),  # pending per address
        Index("ix_confirmations_game_id_kind_expires_at", "game_id", "kind", "expires_at"),  # pending per game
        Index("ix_confirmations_player_id_created_at", "player_id", "created_at"),  # asked by a player an hour
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  # 'join', 'address', 'create', 'observe'
    address: Mapped[str] = mapped_column(String(EMAIL))  # the address to prove, lower-case
    code_hash: Mapped[str] = mapped_column(String(64), unique=True)  # SHA-256 of the code, hex
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"))  # JOIN's (or OBSERVE's) game
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id"))  # SET ADDRESS's player
    power: Mapped[str | None] = mapped_column(String(64))  # JOIN's power
    password_hash: Mapped[str | None] = mapped_column(String(255))  # a new password hashed (rows of older releases)
    # JOIN's or CREATE's new password, sealed with a key made from the code and the judge's secret
    # (gm.mail.commands.confirmations): hashed only once the code comes back, so that a forged request costs no hash.
    sealed_password: Mapped[str | None] = mapped_column(Text)
    detail: Mapped[dict[str, Any] | None]  # CREATE: {"name": ..., "variant": ...}
    requested_by: Mapped[str] = mapped_column(String(EMAIL))  # the sender of the mail that asked
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    expires_at: Mapped[datetime]
    confirmed_at: Mapped[datetime | None]


class Observer(Base):
    """An address that follows a game (OBSERVE, once the address confirmed it): it gets the game's
    results mails and broadcast press, as a reader of no power, never a secret. Rows are never
    deleted: UNOBSERVE sets `left_at`."""

    __tablename__ = "observers"
    __table_args__ = (
        Index(
            "uq_observers_game_id_email_active",
            "game_id",
            "email",
            unique=True,
            sqlite_where=text("left_at IS NULL"),
            postgresql_where=text("left_at IS NULL"),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id"), index=True)
    email: Mapped[str] = mapped_column(String(EMAIL))  # lower-case addr-spec, proven by a code
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    left_at: Mapped[datetime | None]


class AuthFailure(Base):
    """A wrong password, kept to limit guessing by sender, by target (a power of a game, whoever
    claims to send) and in all, and to tell the player at the next sign-on."""

    __tablename__ = "auth_failures"
    __table_args__ = (
        Index("ix_auth_failures_sender_at", "sender", "at"),
        Index("ix_auth_failures_game_id_power_at", "game_id", "power", "at"),
        Index("ix_auth_failures_at", "at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    sender: Mapped[str] = mapped_column(String(EMAIL))
    at: Mapped[datetime] = mapped_column(default=utcnow)
    # The power the password was given for; NULL when the game or power named does not exist.
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id"))
    power: Mapped[str | None] = mapped_column(String(64))
    reported_at: Mapped[datetime | None]  # when the player was told of it


class ServerBeat(Base):
    """A running `gm serve`: written at its start, its heartbeat renewed every few seconds
    (gm.heartbeat), deleted when it stops cleanly. `gm status` tells a live server from a dead one
    by the heartbeat's age, and on its own host by whether the process still runs."""

    __tablename__ = "servers"
    __table_args__ = (Index("ix_servers_host_pid", "host", "pid"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    host: Mapped[str] = mapped_column(String(255))  # socket.gethostname(): a container's own name
    pid: Mapped[int]
    started_at: Mapped[datetime] = mapped_column(default=utcnow)
    seen_at: Mapped[datetime] = mapped_column(default=utcnow)  # its last heartbeat
    holds_mailbox: Mapped[bool] = mapped_column(default=False, server_default=false())
