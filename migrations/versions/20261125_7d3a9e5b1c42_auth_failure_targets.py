"""Auth failures: the power a wrong password was given for, and when its player was told.

Revision ID: 7d3a9e5b1c42
Revises: 4b7e1c2d9a01
Create Date: 2026-11-25 08:00:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "7d3a9e5b1c42"
down_revision: str | Sequence[str] | None = "4b7e1c2d9a01"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    with op.batch_alter_table("auth_failures") as batch:
        batch.add_column(sa.Column("game_id", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("power", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("reported_at", TIMESTAMP, nullable=True))
        batch.create_foreign_key("fk_auth_failures_game_id_games", "games", ["game_id"], ["id"])
        batch.create_index("ix_auth_failures_game_id_power_at", ["game_id", "power", "at"])
        batch.create_index("ix_auth_failures_at", ["at"])


def downgrade() -> None:
    with op.batch_alter_table("auth_failures") as batch:
        batch.drop_index("ix_auth_failures_at")
        batch.drop_index("ix_auth_failures_game_id_power_at")
        batch.drop_constraint("fk_auth_failures_game_id_games", type_="foreignkey")
        batch.drop_column("reported_at")
        batch.drop_column("power")
        batch.drop_column("game_id")
