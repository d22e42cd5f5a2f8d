"""Outbox: gave_up_at, for a mail the SMTP server refused for good (a 5xx reply).

Revision ID: 4b7e1c2d9a01
Revises: cd5998f7af2f
Create Date: 2026-11-22 10:20:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "4b7e1c2d9a01"
down_revision: str | Sequence[str] | None = "cd5998f7af2f"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("gave_up_at", TIMESTAMP, nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox") as batch:
        batch.drop_column("gave_up_at")
