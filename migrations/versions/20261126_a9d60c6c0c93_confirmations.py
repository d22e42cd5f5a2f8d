"""Confirmations: a JOIN, SET ADDRESS or CREATE made in the name of an address waits for the code
mailed to that address (CONFIRM <code>); the hash of the code, never the code.

Revision ID: a9d60c6c0c93
Revises: e4a7c2b9d815
Create Date: 2026-11-26 09:00:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "a9d60c6c0c93"
down_revision: str | Sequence[str] | None = "e4a7c2b9d815"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIMESTAMP = sa.DateTime(timezone=True)
EMAIL = 320


def upgrade() -> None:
    op.create_table(
        "confirmations",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("address", sa.String(length=EMAIL), nullable=False),
        sa.Column("code_hash", sa.String(length=64), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("power", sa.String(length=64), nullable=True),
        sa.Column("password_hash", sa.String(length=255), nullable=True),
        sa.Column("detail", sa.JSON(), nullable=True),
        sa.Column("requested_by", sa.String(length=EMAIL), nullable=False),
        sa.Column("created_at", TIMESTAMP, nullable=False),
        sa.Column("expires_at", TIMESTAMP, nullable=False),
        sa.Column("confirmed_at", TIMESTAMP, nullable=True),
        sa.CheckConstraint("kind IN ('join', 'address', 'create')", name=op.f("ck_confirmations_kind")),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_confirmations_game_id_games")),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"], name=op.f("fk_confirmations_player_id_players")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_confirmations")),
        sa.UniqueConstraint("code_hash", name=op.f("uq_confirmations_code_hash")),
    )
    op.create_index("ix_confirmations_address_kind_expires_at", "confirmations", ["address", "kind", "expires_at"])
    op.create_index("ix_confirmations_game_id_kind_expires_at", "confirmations", ["game_id", "kind", "expires_at"])
    op.create_index("ix_confirmations_player_id_created_at", "confirmations", ["player_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_confirmations_player_id_created_at", table_name="confirmations")
    op.drop_index("ix_confirmations_game_id_kind_expires_at", table_name="confirmations")
    op.drop_index("ix_confirmations_address_kind_expires_at", table_name="confirmations")
    op.drop_table("confirmations")
