"""The game loop: when the scheduler next looks at a game, how it ended and its mail thread;
players' lateness, civil disorder, WAIT and absences; each phase's deadline and reminder; results
mail with an HTML part and a References header, tied to its game; an index on when mail came in
(the hourly purge of old mail bodies reads it).

Revision ID: b2e8d4a61f30
Revises: 9c1f4b7e2d63
Create Date: 2026-11-25 10:10:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# Written out here rather than imported from gm.store.models: a migration is frozen in time.
TIMESTAMP = sa.DateTime(timezone=True)

revision: str = "b2e8d4a61f30"
down_revision: str | Sequence[str] | None = "9c1f4b7e2d63"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("next_check_at", TIMESTAMP, nullable=True))
        batch.add_column(sa.Column("orders_changed", sa.Boolean(), server_default=sa.false(), nullable=False))
        batch.add_column(sa.Column("finished_at", TIMESTAMP, nullable=True))
        batch.add_column(sa.Column("outcome", sa.String(length=255), nullable=True))
        batch.add_column(sa.Column("thread_id", sa.String(length=998), nullable=True))
        batch.create_index("ix_games_next_check_at", ["next_check_at"])
    with op.batch_alter_table("players") as batch:
        batch.add_column(sa.Column("late_streak", sa.Integer(), server_default=sa.text("0"), nullable=False))
        batch.add_column(sa.Column("civil_disorder", sa.Boolean(), server_default=sa.false(), nullable=False))
        batch.add_column(sa.Column("waiting", sa.Boolean(), server_default=sa.false(), nullable=False))
        batch.add_column(sa.Column("absent_from", TIMESTAMP, nullable=True))
        batch.add_column(sa.Column("absent_until", TIMESTAMP, nullable=True))
    with op.batch_alter_table("phases") as batch:
        batch.add_column(sa.Column("deadline_at", TIMESTAMP, nullable=True))
        batch.add_column(sa.Column("reminded_at", TIMESTAMP, nullable=True))
    with op.batch_alter_table("outbox") as batch:
        batch.add_column(sa.Column("body_html", sa.Text(), nullable=True))
        batch.add_column(sa.Column("references", sa.Text(), nullable=True))
        batch.add_column(sa.Column("game_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_outbox_game_id_games", "games", ["game_id"], ["id"])
        batch.create_index("ix_outbox_game_id", ["game_id"])
    op.create_index("ix_inbound_mail_received_at", "inbound_mail", ["received_at"])


def downgrade() -> None:
    op.drop_index("ix_inbound_mail_received_at", table_name="inbound_mail")
    with op.batch_alter_table("outbox") as batch:
        batch.drop_index("ix_outbox_game_id")
        batch.drop_constraint("fk_outbox_game_id_games", type_="foreignkey")
        batch.drop_column("game_id")
        batch.drop_column("references")
        batch.drop_column("body_html")
    with op.batch_alter_table("phases") as batch:
        batch.drop_column("reminded_at")
        batch.drop_column("deadline_at")
    with op.batch_alter_table("players") as batch:
        for column in ("absent_until", "absent_from", "waiting", "civil_disorder", "late_streak"):
            batch.drop_column(column)
    with op.batch_alter_table("games") as batch:
        batch.drop_index("ix_games_next_check_at")
        for column in ("thread_id", "outcome", "finished_at", "orders_changed", "next_check_at"):
            batch.drop_column(column)
