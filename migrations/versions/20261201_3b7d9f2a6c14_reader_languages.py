"""The language each address reads the judge's mail in (SET LANGUAGE).

Revision ID: 3b7d9f2a6c14
Revises: 6f2b8d4e1a95
Create Date: 2026-12-01 09:00:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "3b7d9f2a6c14"
down_revision: str | Sequence[str] | None = "6f2b8d4e1a95"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "reader_languages",
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("language", sa.String(length=16), nullable=False),
        sa.Column("since", TIMESTAMP, nullable=False),
        sa.PrimaryKeyConstraint("address", name=op.f("pk_reader_languages")),
    )


def downgrade() -> None:
    op.drop_table("reader_languages")
