"""The outbox: an index finding an address's acknowledgements still to send, which the sender asks
of every row it claims (an address with a thousand results mails waiting read them all each time).

Revision ID: 5d1e7b3c9a42
Revises: 8e2c4d6a1f07
Create Date: 2026-11-27 15:10:00
"""
from collections.abc import Sequence

from alembic import op

revision: str = "5d1e7b3c9a42"
down_revision: str | Sequence[str] | None = "8e2c4d6a1f07"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_outbox_to_addr_kind_sent_at", "outbox", ["to_addr", "kind", "sent_at"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_outbox_to_addr_kind_sent_at", table_name="outbox")
