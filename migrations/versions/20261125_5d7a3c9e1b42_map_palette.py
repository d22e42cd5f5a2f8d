"""A player's choice of map colours (SET MAP): the rulebook's or a colour-blind-safe set; none
means the game's.

Revision ID: 5d7a3c9e1b42
Revises: b2e8d4a61f30
Create Date: 2026-11-25 13:15:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "5d7a3c9e1b42"
down_revision: str | Sequence[str] | None = "b2e8d4a61f30"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("map_palette", sa.String(length=16), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("players") as batch:
        batch.drop_column("map_palette")
