"""Active games with no time to look at them are due now.

The game loop (b2e8d4a61f30) added games.next_check_at, the time the scheduler next looks at a
game, and left it empty for the games already running: the scheduler looks only at games due a
look, so such a game's deadline passed unnoticed until a mail changed its orders. Today's code
never leaves an active game without that time; here every one is due at once, and the scheduler's
first look works out its deadline, grace and reminders as for any game.

Revision ID: f6be3a69a69b
Revises: 3f6b2a9d7c10
Create Date: 2026-11-27 08:30:00
"""
from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision: str = "f6be3a69a69b"
down_revision: str | Sequence[str] | None = "3f6b2a9d7c10"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    games = sa.table("games", sa.column("status", sa.String), sa.column("next_check_at", sa.DateTime(timezone=True)))
    now = datetime.now(UTC)
    if op.get_bind().dialect.name == "sqlite":  # stored as naive UTC there (gm.store.models.UtcDateTime)
        now = now.replace(tzinfo=None)
    op.execute(games.update().where(games.c.status == "active", games.c.next_check_at.is_(None))
               .values(next_check_at=now))


def downgrade() -> None:
    pass  # the times set are the right ones at any revision
