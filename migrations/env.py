"""Alembic's entry point: runs gm's migrations on the database gm is configured for."""
from __future__ import annotations

import os
from logging.config import fileConfig

from alembic import context
from sqlalchemy import Connection
from sqlalchemy.pool import NullPool

from gm.store.db import DEFAULT_URL, make_engine
from gm.store.models import Base

config = context.config
if config.config_file_name is not None and config.attributes.get("configure_logger", True):
    fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = Base.metadata


def database_url() -> str:
    """GM_DATABASE_URL, else sqlalchemy.url from alembic.ini, else gm's default SQLite file."""
    return os.environ.get("GM_DATABASE_URL") or config.get_main_option("sqlalchemy.url") or DEFAULT_URL


def run_migrations_offline() -> None:
    """`alembic upgrade --sql`: print the SQL instead of running it."""
    url = database_url()
    context.configure(
        url=url,
        target_metadata=target_metadata,
        literal_binds=True,
        dialect_opts={"paramstyle": "named"},
        render_as_batch=url.startswith("sqlite"),
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_on(connection: Connection) -> None:
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:
        # SQLite alters a table by copying it and dropping the old one (alembic's batch mode);
        # with foreign keys on, that drop would break or cascade to the rows referring to it.
        # The pragma only takes effect outside a transaction, hence on the driver's connection
        # before alembic begins one; the keys are checked before the migration commits.
        _sqlite_foreign_keys(connection, False)
    try:
        # gm.store.db.make_engine makes SQLite begin real transactions, so DDL there is
        # transactional as on PostgreSQL: all the migrations of a run commit together or not at all.
        context.configure(
            connection=connection,
            target_metadata=target_metadata,
            render_as_batch=sqlite,
            transactional_ddl=True,
        )
        with context.begin_transaction():
            context.run_migrations()
            if sqlite:
                broken = connection.exec_driver_sql("PRAGMA foreign_key_check").fetchall()
                if broken:
                    raise RuntimeError(f"migration leaves rows with dangling foreign keys: {broken[:10]}")
    finally:
        if sqlite:
            if connection.in_transaction():
                connection.rollback()  # reads alone (autogenerate): alembic has ended its own
            _sqlite_foreign_keys(connection, True)


def _sqlite_foreign_keys(connection: Connection, on: bool) -> None:
    if connection.in_transaction():
        raise RuntimeError("give the migrations a SQLite connection that is not in a transaction")
    driver = connection.connection.driver_connection
    driver.execute(f"PRAGMA foreign_keys = {'ON' if on else 'OFF'}")  # type: ignore[union-attr]


def run_migrations_online() -> None:
    given = config.attributes.get("connection")
    if given is not None:  # gm.store.db.upgrade and the tests pass their own
        run_migrations_on(given)
        return
    engine = make_engine(database_url(), poolclass=NullPool)
    try:
        with engine.connect() as connection:
            run_migrations_on(connection)
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
