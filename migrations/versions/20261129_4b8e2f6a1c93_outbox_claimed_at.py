"""Sending within the provider's limits: each outbox row keeps when a sender last took it to send,
so that what the mailbox sent (and is sending) in the last hour and day can be counted.

Revision ID: 4b8e2f6a1c93
Revises: 9d3f1b7e2c60
Create Date: 2026-11-29 06:10:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "4b8e2f6a1c93"
down_revision: str | Sequence[str] | None = "9d3f1b7e2c60"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True))
    op.create_index("ix_outbox_claimed_at", "outbox", ["claimed_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_outbox_claimed_at", table_name="outbox")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("claimed_at")
