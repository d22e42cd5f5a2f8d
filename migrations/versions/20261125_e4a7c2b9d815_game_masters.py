"""Game masters by mail: the masters of each game (with their own password), the mail behind
each audit entry, a game's pause, and orders a GM enters for a power (who entered them; a power
nobody plays has no player).

The GM addresses of games made before (games.options["masters"]) become masters without a
password: they keep getting their copies, and sign on by mail once the operator sets one.

Revision ID: e4a7c2b9d815
Revises: 5d7a3c9e1b42
Create Date: 2026-11-25 14:00:00
"""
import json
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "e4a7c2b9d815"
down_revision: str | Sequence[str] | None = "5d7a3c9e1b42"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    masters = op.create_table(
        "masters",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("email", sa.String(length=320), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("left_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_masters_game_id_games")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_masters")),
    )
    op.create_index(op.f("ix_masters_game_id"), "masters", ["game_id"], unique=False)
    op.create_index("uq_masters_game_id_email_active", "masters", ["game_id", "email"], unique=True,
                    sqlite_where=sa.text("left_at IS NULL"), postgresql_where=sa.text("left_at IS NULL"))
    with op.batch_alter_table("audit_log") as batch:
        batch.add_column(sa.Column("inbound_id", sa.Integer(), nullable=True))
        batch.create_foreign_key(op.f("fk_audit_log_inbound_id_inbound_mail"), "inbound_mail", ["inbound_id"], ["id"])
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("paused_at", sa.DateTime(timezone=True), nullable=True))
    for table in ("orders", "secret_allocations"):  # orders a GM enters, for any power
        with op.batch_alter_table(table) as batch:
            batch.add_column(sa.Column("entered_by", sa.String(length=320), nullable=True))
            batch.alter_column("player_id", existing_type=sa.Integer(), nullable=True)
    connection = op.get_bind()
    now = datetime.now(UTC)
    if connection.dialect.name == "sqlite":
        now = now.replace(tzinfo=None)
    rows = []
    for game_id, options in connection.execute(sa.text("SELECT id, options FROM games")):
        if isinstance(options, str):
            options = json.loads(options)
        for email in dict.fromkeys((options or {}).get("masters", [])):
            rows.append({"game_id": game_id, "email": email, "password_hash": None, "created_at": now})
    if rows:
        op.bulk_insert(masters, rows)


def downgrade() -> None:
    for table in ("orders", "secret_allocations"):
        with op.batch_alter_table(table) as batch:
            batch.drop_column("entered_by")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("paused_at")
    with op.batch_alter_table("audit_log") as batch:
        batch.drop_constraint(op.f("fk_audit_log_inbound_id_inbound_mail"), type_="foreignkey")
        batch.drop_column("inbound_id")
    op.drop_index("uq_masters_game_id_email_active", table_name="masters")
    op.drop_index(op.f("ix_masters_game_id"), table_name="masters")
    op.drop_table("masters")
