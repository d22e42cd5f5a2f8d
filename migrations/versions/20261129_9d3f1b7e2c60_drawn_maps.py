"""Maps drawn once for every channel (gm.maps.store): each picture under a digest of what it is
drawn from, kept a few hours.

Revision ID: 9d3f1b7e2c60
Revises: 7c4e9a2b5d18
Create Date: 2026-11-29 04:15:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "9d3f1b7e2c60"
down_revision: str | Sequence[str] | None = "7c4e9a2b5d18"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "drawn_maps",
        sa.Column("key", sa.String(length=64), nullable=False),
        sa.Column("png", sa.LargeBinary(), nullable=False),
        sa.Column("drawn_at", TIMESTAMP, nullable=False),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_drawn_maps")),
    )
    op.create_index(op.f("ix_drawn_maps_drawn_at"), "drawn_maps", ["drawn_at"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_drawn_maps_drawn_at"), table_name="drawn_maps")
    op.drop_table("drawn_maps")
