"""Mail that came back: each bounce (or refusal at sending) of the judge's mail, and the addresses
marked failing (gm.mail.outgoing.undelivered); and the addresses that left the judge's notices
by a one-click link (gm.lifecycle.leaving).

Revision ID: 2a6c8e4f1b37
Revises: 4b8e2f6a1c93
Create Date: 2026-11-29 08:30:00
"""
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "2a6c8e4f1b37"
down_revision: str | Sequence[str] | None = "4b8e2f6a1c93"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TIMESTAMP = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "bounces",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("outbox_id", sa.Integer(), nullable=True),
        sa.Column("inbound_id", sa.Integer(), nullable=True),
        sa.Column("permanent", sa.Boolean(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=True),
        sa.Column("words", sa.Text(), nullable=False),
        sa.Column("form", sa.String(length=32), nullable=False),
        sa.Column("at", TIMESTAMP, nullable=False),
        sa.Column("cleared_at", TIMESTAMP, nullable=True),
        sa.ForeignKeyConstraint(["outbox_id"], ["outbox.id"], name=op.f("fk_bounces_outbox_id_outbox")),
        sa.ForeignKeyConstraint(["inbound_id"], ["inbound_mail.id"], name=op.f("fk_bounces_inbound_id_inbound_mail")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_bounces")),
    )
    op.create_index("ix_bounces_address_at", "bounces", ["address", "at"], unique=False)
    op.create_table(
        "failing_addresses",
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("since", TIMESTAMP, nullable=False),
        sa.Column("bounce_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["bounce_id"], ["bounces.id"], name=op.f("fk_failing_addresses_bounce_id_bounces")),
        sa.PrimaryKeyConstraint("address", name=op.f("pk_failing_addresses")),
    )


    op.create_table(
        "quiet_addresses",
        sa.Column("address", sa.String(length=320), nullable=False),
        sa.Column("since", TIMESTAMP, nullable=False),
        sa.PrimaryKeyConstraint("address", name=op.f("pk_quiet_addresses")),
    )


def downgrade() -> None:
    op.drop_table("quiet_addresses")
    op.drop_table("failing_addresses")
    op.drop_index("ix_bounces_address_at", table_name="bounces")
    op.drop_table("bounces")
