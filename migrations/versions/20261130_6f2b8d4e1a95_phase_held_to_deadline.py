"""A phase held to its deadline: once the GM puts the deadline off (EXTEND, a later SET DEADLINE)
the phase no longer ends early when every order is in.

Revision ID: 6f2b8d4e1a95
Revises: 2a6c8e4f1b37
Create Date: 2026-11-30 09:00:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "6f2b8d4e1a95"
down_revision: str | Sequence[str] | None = "2a6c8e4f1b37"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("phases") as batch:
        batch.add_column(sa.Column("held_to_deadline", sa.Boolean(), server_default=sa.false(), nullable=False))


def downgrade() -> None:
    with op.batch_alter_table("phases") as batch:
        batch.drop_column("held_to_deadline")
