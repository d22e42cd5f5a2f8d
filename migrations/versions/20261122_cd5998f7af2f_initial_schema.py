"""Initial schema: games, players, phases, orders, secret allocations, mail in and out, audit.

Revision ID: cd5998f7af2f
Revises:
Create Date: 2026-11-22 07:47:17.976859
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "cd5998f7af2f"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Written out here rather than imported from gm.store.models: a migration is frozen in time.
# Stored in UTC; gm.store.models.UtcDateTime does the converting.
TIMESTAMP = sa.DateTime(timezone=True)
EMAIL = 320
MESSAGE_ID = 998


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=64), nullable=False),
        sa.Column("variant", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("deadline_at", TIMESTAMP, nullable=True),
        sa.Column("options", sa.JSON(), nullable=True),
        sa.Column("require_dkim", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.CheckConstraint("status IN ('forming', 'active', 'finished')", name=op.f("ck_games_status")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_games")),
        sa.UniqueConstraint("name", name=op.f("uq_games_name")),
    )

    op.create_table(
        "players",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("power", sa.String(length=64), nullable=True),
        sa.Column("email", sa.String(length=EMAIL), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("left_at", TIMESTAMP, nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_players_game_id_games")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_players")),
    )
    op.create_index(op.f("ix_players_game_id"), "players", ["game_id"])
    op.create_index(op.f("ix_players_email"), "players", ["email"])
    op.create_index(
        "uq_players_game_id_power_active",
        "players",
        ["game_id", "power"],
        unique=True,
        sqlite_where=sa.text("left_at IS NULL"),
        postgresql_where=sa.text("left_at IS NULL"),
    )

    op.create_table(
        "phases",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("label", sa.String(length=64), nullable=False),
        sa.Column("state_json", sa.JSON(), nullable=False),
        sa.Column("results_json", sa.JSON(), nullable=True),
        sa.Column("opened_at", TIMESTAMP, nullable=False),
        sa.Column("adjudicated_at", TIMESTAMP, nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_phases_game_id_games")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_phases")),
        sa.UniqueConstraint("game_id", "seq", name=op.f("uq_phases_game_id_seq")),
    )

    op.create_table(
        "inbound_mail",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.String(length=MESSAGE_ID), nullable=False),
        sa.Column("imap_uidvalidity", sa.BigInteger(), nullable=True),
        sa.Column("imap_uid", sa.BigInteger(), nullable=True),
        sa.Column("sender", sa.String(length=EMAIL), nullable=False),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        sa.Column("size", sa.Integer(), nullable=False),
        sa.Column("received_at", TIMESTAMP, nullable=False),
        sa.Column("processed_at", TIMESTAMP, nullable=True),
        sa.Column("outcome", sa.String(length=255), nullable=True),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inbound_mail")),
        sa.UniqueConstraint("message_id", name=op.f("uq_inbound_mail_message_id")),
        sa.UniqueConstraint(
            "imap_uidvalidity", "imap_uid", name=op.f("uq_inbound_mail_imap_uidvalidity_imap_uid")
        ),
    )
    op.create_index(op.f("ix_inbound_mail_processed_at"), "inbound_mail", ["processed_at"])

    for table in ("orders", "secret_allocations"):
        points = [sa.Column("points", sa.Integer(), nullable=False)] if table == "secret_allocations" else []
        op.create_table(
            table,
            sa.Column("id", sa.Integer(), nullable=False),
            sa.Column("game_id", sa.Integer(), nullable=False),
            sa.Column("phase_id", sa.Integer(), nullable=False),
            sa.Column("player_id", sa.Integer(), nullable=False),
            sa.Column("power", sa.String(length=64), nullable=False),
            *points,
            sa.Column("text", sa.Text(), nullable=False),
            sa.Column("canonical", sa.Text(), nullable=False),
            sa.Column("unit", sa.String(length=16), nullable=False),
            sa.Column("inbound_id", sa.Integer(), nullable=True),
            sa.Column("received_at", TIMESTAMP, nullable=False),
            sa.Column("current", sa.Boolean(), server_default=sa.true(), nullable=False),
            sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f(f"fk_{table}_game_id_games")),
            sa.ForeignKeyConstraint(["phase_id"], ["phases.id"], name=op.f(f"fk_{table}_phase_id_phases")),
            sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f(f"fk_{table}_player_id_players")),
            sa.ForeignKeyConstraint(
                ["inbound_id"], ["inbound_mail.id"], name=op.f(f"fk_{table}_inbound_id_inbound_mail")
            ),
            sa.PrimaryKeyConstraint("id", name=op.f(f"pk_{table}")),
        )
        op.create_index(f"ix_{table}_phase_id_power_current", table, ["phase_id", "power", "current"])

    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.String(length=MESSAGE_ID), nullable=False),
        sa.Column("to_addr", sa.String(length=EMAIL), nullable=False),
        sa.Column("subject", sa.Text(), nullable=False),
        sa.Column("body_text", sa.Text(), nullable=False),
        sa.Column("attachments", sa.JSON(), nullable=True),
        sa.Column("in_reply_to", sa.String(length=MESSAGE_ID), nullable=True),
        sa.Column("inbound_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("attempts", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("next_attempt_at", TIMESTAMP, nullable=False),
        sa.Column("sent_at", TIMESTAMP, nullable=True),
        sa.Column("last_error", sa.Text(), nullable=True),
        sa.ForeignKeyConstraint(["inbound_id"], ["inbound_mail.id"], name=op.f("fk_outbox_inbound_id_inbound_mail")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
        sa.UniqueConstraint("message_id", name=op.f("uq_outbox_message_id")),
    )
    # The sender's query: unsent mail whose next attempt is due.
    op.create_index(
        "ix_outbox_due",
        "outbox",
        ["next_attempt_at"],
        sqlite_where=sa.text("sent_at IS NULL"),
        postgresql_where=sa.text("sent_at IS NULL"),
    )

    op.create_table(
        "audit_log",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("at", TIMESTAMP, nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("actor", sa.String(length=EMAIL), nullable=False),
        sa.Column("action", sa.String(length=64), nullable=False),
        sa.Column("detail", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_audit_log_game_id_games")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_audit_log")),
    )
    op.create_index("ix_audit_log_game_id_at", "audit_log", ["game_id", "at"])

    op.create_table(
        "auth_failures",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("sender", sa.String(length=EMAIL), nullable=False),
        sa.Column("at", TIMESTAMP, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_auth_failures")),
    )
    op.create_index("ix_auth_failures_sender_at", "auth_failures", ["sender", "at"])


def downgrade() -> None:
    # Dropping a table drops its indexes with it; the order undoes the foreign keys.
    for table in (
        "auth_failures",
        "audit_log",
        "outbox",
        "secret_allocations",
        "orders",
        "inbound_mail",
        "phases",
        "players",
        "games",
    ):
        op.drop_table(table)
