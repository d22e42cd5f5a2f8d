"""Telling forged mail from real mail: a request waiting for its code keeps its password sealed
(no slow hash until the address answers), and the outbox marks the mail it sends to addresses
that have not proved themselves, whose hourly count (gm.mail.budget) must stay small.

Revision ID: 7c4e9a2b5d18
Revises: 5d1e7b3c9a42
Create Date: 2026-11-29 03:00:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "7c4e9a2b5d18"
down_revision: str | Sequence[str] | None = "5d1e7b3c9a42"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("confirmations") as batch:
        batch.add_column(sa.Column("sealed_password", sa.Text(), nullable=True))
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("unproven", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_index("ix_outbox_unproven_created_at", "outbox", ["created_at"], unique=False,
                    sqlite_where=sa.text("unproven"), postgresql_where=sa.text("unproven"))


def downgrade() -> None:
    op.drop_index("ix_outbox_unproven_created_at", table_name="outbox")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("unproven")
    with op.batch_alter_table("confirmations") as batch:
        batch.drop_column("sealed_password")
