"""Servers: each running `gm serve` with its heartbeat and whether it holds the mailbox, for `gm status`.

Revision ID: 3f6b2a9d7c10
Revises: a9d60c6c0c93
Create Date: 2026-11-27 08:00:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "3f6b2a9d7c10"
down_revision: str | Sequence[str] | None = "a9d60c6c0c93"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "servers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("host", sa.String(length=255), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("started_at", TIMESTAMP, nullable=False),
        sa.Column("seen_at", TIMESTAMP, nullable=False),
        sa.Column("holds_mailbox", sa.Boolean(), server_default=sa.false(), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_servers")),
    )
    op.create_index("ix_servers_host_pid", "servers", ["host", "pid"])


def downgrade() -> None:
    op.drop_index("ix_servers_host_pid", table_name="servers")
    op.drop_table("servers")
