"""Inbound mail: a mail is the same mail by Message-ID, sender and text (dedup_key), not by
Message-ID alone, which anyone who saw a mail could send first. Outbox: an index by recipient and
time, for the hourly limit of mails to one address.

Revision ID: 9c1f4b7e2d63
Revises: 7d3a9e5b1c42
Create Date: 2026-11-25 09:00:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "9c1f4b7e2d63"
down_revision: str | Sequence[str] | None = "7d3a9e5b1c42"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("inbound_mail") as batch:
        batch.add_column(sa.Column("dedup_key", sa.String(length=64), nullable=True))
    # Mails recorded before had unique Message-IDs, hence were different mails: a key of their row
    # id each (no hex digest has a '-' in it, so no new key can equal one).
    inbound = sa.table("inbound_mail", sa.column("id", sa.Integer), sa.column("dedup_key", sa.String))
    op.execute(inbound.update().values(dedup_key=sa.literal("recorded-") + sa.cast(inbound.c.id, sa.String)))
    with op.batch_alter_table("inbound_mail") as batch:
        batch.alter_column("dedup_key", existing_type=sa.String(length=64), nullable=False)
        batch.create_unique_constraint("uq_inbound_mail_dedup_key", ["dedup_key"])
        batch.drop_constraint("uq_inbound_mail_message_id", type_="unique")
        batch.create_index("ix_inbound_mail_message_id", ["message_id"])
    op.create_index("ix_outbox_to_addr_created_at", "outbox", ["to_addr", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_outbox_to_addr_created_at", table_name="outbox")
    with op.batch_alter_table("inbound_mail") as batch:
        batch.drop_index("ix_inbound_mail_message_id")
        batch.drop_constraint("uq_inbound_mail_dedup_key", type_="unique")
        batch.drop_column("dedup_key")
    # Two mails with one Message-ID cannot go back to a table where it is unique: keep the first.
    inbound = sa.table("inbound_mail", sa.column("id", sa.Integer), sa.column("message_id", sa.String))
    connection = op.get_bind()
    first = sa.select(sa.func.min(inbound.c.id)).group_by(inbound.c.message_id)
    referenced = {"orders", "secret_allocations", "outbox"}
    later = sa.select(inbound.c.id).where(inbound.c.id.not_in(first))
    for table in sorted(referenced):
        t = sa.table(table, sa.column("inbound_id", sa.Integer))
        connection.execute(t.update().where(t.c.inbound_id.in_(later)).values(inbound_id=None))
    connection.execute(inbound.delete().where(inbound.c.id.not_in(first)))
    with op.batch_alter_table("inbound_mail") as batch:
        batch.create_unique_constraint("uq_inbound_mail_message_id", ["message_id"])
