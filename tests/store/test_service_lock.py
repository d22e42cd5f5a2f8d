"""One `gm serve` per database: the lock, on SQLite and PostgreSQL."""
from __future__ import annotations

import pytest

from gm.store.db import AlreadyServing, service_lock


def test_a_second_service_on_the_same_database_is_refused_until_the_first_ends(db_url: str) -> None:
    with service_lock(db_url):
        with pytest.raises(AlreadyServing, match="another gm serve is running"):
            with service_lock(db_url):
                pass
    with service_lock(db_url):  # the first has ended: free again
        pass


def test_services_on_different_databases_do_not_meet(tmp_path: object, db_url: str) -> None:
    other = f"sqlite:///{tmp_path}/other.sqlite3"
    with service_lock(db_url), service_lock(other):
        pass
