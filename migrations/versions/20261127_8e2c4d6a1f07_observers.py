"""Observers: addresses that follow a game (OBSERVE, proven by a code as a JOIN is), getting its
results mails and broadcast press; confirmations of kind 'observe'.

Revision ID: 8e2c4d6a1f07
Revises: f6be3a69a69b
Create Date: 2026-11-27 12:30:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "8e2c4d6a1f07"
down_revision: str | Sequence[str] | None = "f6be3a69a69b"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KINDS_BEFORE = "kind IN ('join', 'address', 'create')"
KINDS_AFTER = "kind IN ('join', 'address', 'create', 'observe')"


def upgrade() -> None:
    op.create_table(
        "observers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("left_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_observers_game_id_games")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_observers")),
    )
    op.create_index(op.f("ix_observers_game_id"), "observers", ["game_id"], unique=False)
    op.create_index("uq_observers_game_id_email_active", "observers", ["game_id", "email"], unique=True,
                    sqlite_where=sa.text("left_at IS NULL"), postgresql_where=sa.text("left_at IS NULL"))
    _kinds(KINDS_AFTER)


def downgrade() -> None:
    op.execute(sa.text("DELETE FROM confirmations WHERE kind = 'observe'"))
    _kinds(KINDS_BEFORE)
    op.drop_index("uq_observers_game_id_email_active", table_name="observers")
    op.drop_index(op.f("ix_observers_game_id"), table_name="observers")
    op.drop_table("observers")


def _kinds(check: str) -> None:
    """The kinds of confirmation allowed (SQLite rebuilds the table to change a CHECK)."""
    with op.batch_alter_table("confirmations") as batch:
        batch.drop_constraint(op.f("ck_confirmations_kind"), type_="check")
        batch.create_check_constraint("kind", check)
