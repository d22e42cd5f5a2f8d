"""Migrations: head matches the models, and every revision goes down and up again on both databases."""
from __future__ import annotations

import shutil
from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import inspect, select
from sqlalchemy.pool import NullPool

from gm.store.db import (
    MIGRATIONS,
    alembic_config,
    downgrade,
    make_engine,
    make_session_factory,
    transaction,
    upgrade,
)
from gm.store.models import Base, Game, Player


def schema_differences(url: str) -> list[object]:
    engine = make_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            return list(compare_metadata(MigrationContext.configure(connection), Base.metadata))
    finally:
        engine.dispose()


def table_names(url: str) -> set[str]:
    engine = make_engine(url, poolclass=NullPool)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def current_revision(url: str) -> str | None:
    engine = make_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            return MigrationContext.configure(connection).get_current_revision()
    finally:
        engine.dispose()


def revisions_base_to_head() -> list[str]:
    script = ScriptDirectory.from_config(alembic_config())
    return [r.revision for r in reversed(list(script.walk_revisions()))]


def test_one_line_of_revisions() -> None:
    script = ScriptDirectory.from_config(alembic_config())
    assert len(script.get_heads()) == 1, "migrations have branched: merge them"
    assert revisions_base_to_head()


def test_upgrade_on_an_empty_database_gives_the_models_tables(db_url: str) -> None:
    upgrade(db_url)
    assert table_names(db_url) == set(Base.metadata.tables) | {"alembic_version"}
    assert schema_differences(db_url) == []


def test_upgrade_twice_changes_nothing(db_url: str) -> None:
    upgrade(db_url)
    upgrade(db_url)
    assert current_revision(db_url) == revisions_base_to_head()[-1]


def test_every_revision_goes_down_and_up_again(db_url: str) -> None:
    revisions = revisions_base_to_head()
    # Up one revision at a time, then down one at a time to nothing, then up to head in one go.
    for revision in revisions:
        upgrade(db_url, revision)
        assert current_revision(db_url) == revision
    for below in [*reversed(revisions[:-1]), "base"]:
        downgrade(db_url, "-1")
        assert current_revision(db_url) == (None if below == "base" else below)
    assert table_names(db_url) <= {"alembic_version"}
    upgrade(db_url)
    assert schema_differences(db_url) == []


BATCH_REVISION = '''"""A later migration that rebuilds games, as SQLite's batch mode does for most changes."""
import sqlalchemy as sa
from alembic import op

revision = "rebuild_games"
down_revision = {head!r}
branch_labels = None
depends_on = None


def upgrade():
    with op.batch_alter_table("games", recreate="always") as batch:
        batch.add_column(sa.Column("note", sa.Text(), nullable=True))


def downgrade():
    with op.batch_alter_table("games", recreate="always") as batch:
        batch.drop_column("note")
'''


def test_sqlite_table_rebuilds_keep_the_rows_that_refer_to_the_table(tmp_path: Path) -> None:
    """migrations/env.py turns foreign keys off around SQLite migrations: rebuilding `games`
    drops the old table, which would otherwise fail for the players that refer to it."""
    url = f"sqlite:///{tmp_path / 'gm.sqlite3'}"
    upgrade(url)
    engine = make_engine(url, poolclass=NullPool)
    sf = make_session_factory(engine)
    with transaction(sf) as s:
        game = Game(name="g", variant="standard")
        s.add(game)
        s.flush()
        s.add(Player(game_id=game.id, power="France", email="f@example.org", password_hash="x"))
    scripts = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS, scripts, ignore=shutil.ignore_patterns("__pycache__"))
    head = revisions_base_to_head()[-1]
    (scripts / "versions" / "rebuild_games.py").write_text(BATCH_REVISION.format(head=head))
    for step, target in ((command.upgrade, "head"), (command.downgrade, head)):
        with engine.connect() as connection:
            config = alembic_config(connection)
            config.set_main_option("script_location", str(scripts))
            step(config, target)
        with transaction(sf) as s:
            assert s.scalars(select(Player.power)).all() == ["France"]
        with engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall() == []
    engine.dispose()
