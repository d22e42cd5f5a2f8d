"""Failures the operator can fix (bad settings, a database that cannot be reached or written), told
in one line: what is wrong, then what to do. The command line prints that instead of a traceback."""
from __future__ import annotations

import os
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError

from gm.mail.embedded import PortUnavailable
from gm.mail.oauth2.tokens import SignInError
from gm.settings import URL_FORMS, Settings, SettingsError
from gm.store.db import DatabaseBehind, NoDatabase

DATA_DIR = "GM_DATA_DIR (or data_dir)"
DATABASE_URL = "GM_DATABASE_URL (or database_url)"


def explain(error: BaseException, settings: Settings | None) -> str | None:
    """'what is wrong: what to do' for `error`, or None if it is not one of the known failures
    (a bug, whose traceback is wanted). `settings` are those the command ran with, if loaded."""
    if isinstance(error, BaseExceptionGroup):  # gm serve's task group wraps what its tasks raise
        return next(filter(None, (explain(e, settings) for e in error.exceptions)), None)
    if isinstance(error, (SettingsError, PortUnavailable, SignInError)):
        return str(error)
    if isinstance(error, (ArgumentError, NoSuchModuleError)):
        return f"the database URL ({DATABASE_URL}) is not one gm can use: write {URL_FORMS}"
    if settings is None:
        return None
    url = make_url(settings.db_url)
    sqlite = url.get_backend_name() == "sqlite"
    db_setting = DATABASE_URL if settings.database_url else DATA_DIR  # what placed the SQLite file
    if isinstance(error, NoDatabase):
        what = f"is no gm database at {error.where}" if sqlite else f"are no gm tables in the database {error.where}"
        return f"there {what}: make it with gm db upgrade, or set {db_setting} to where yours is"
    if isinstance(error, DatabaseBehind):
        if not error.known:
            return (f"the database {error.where} is at revision {error.revision}, which this gm does not know "
                    f"(its latest is {error.head}): run the gm that made it, or a newer one")
        return (f"the database {error.where} is at revision {error.revision}, older than this gm's "
                f"{error.head}: bring it up to date with gm db upgrade (gm serve does it at start)")
    if isinstance(error, OperationalError):
        reason = str(error.orig).strip().splitlines()[0] if error.orig is not None else str(error)
        if sqlite and "unable to open" in reason:
            return (
                f"cannot open the database {url.database}: {reason}: "
                f"make its folder writable, or set {db_setting} to a place gm may write"
            )
        if sqlite:
            return f"the database {url.database} failed: {reason}: check that file, or set {DATABASE_URL} to another"
        where = url.render_as_string(hide_password=True)
        return (
            f"cannot use the database {where}: {reason}: check that PostgreSQL runs there "
            f"and that the user and database in {DATABASE_URL} exist"
        )
    if isinstance(error, OSError) and isinstance(error.filename, str):
        places = [(DATA_DIR, settings.data_dir)]
        if sqlite and url.database:
            places.append((db_setting, Path(url.database).parent))
        for setting, place in places:
            if _related(Path(error.filename), place):
                return (
                    f"cannot make or write {error.filename}: {error.strerror}: "
                    f"fix that, or set {setting} to a place gm may write"
                )
    return None


def _related(path: Path, place: Path) -> bool:
    """Whether `path` is `place`, or in or above it: an error there is about the place gm writes."""
    path, place = Path(os.path.abspath(path)), Path(os.path.abspath(place))
    return path == place or path in place.parents or place in path.parents
