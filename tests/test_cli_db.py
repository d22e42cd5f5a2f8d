"""`gm db upgrade` says what it did: created the database, upgraded it from one revision to
another, or found it up to date."""
from __future__ import annotations

import subprocess
import sys

from alembic.script import ScriptDirectory

from gm.store.db import alembic_config, downgrade


def gm_db_upgrade(url: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "gm", "db", "upgrade"],
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "GM_DATABASE_URL": url},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_gm_db_upgrade_says_created_upgraded_or_up_to_date(db_url: str) -> None:
    scripts = ScriptDirectory.from_config(alembic_config())
    head = scripts.get_current_head()
    assert head is not None
    earlier = scripts.get_revision(head).down_revision
    assert isinstance(earlier, str)
    assert gm_db_upgrade(db_url) == f"gm db upgrade: created {db_url} at revision {head} (up to date)"
    assert gm_db_upgrade(db_url) == f"gm db upgrade: {db_url} was already up to date (revision {head})"
    downgrade(db_url, earlier)
    assert gm_db_upgrade(db_url) == f"gm db upgrade: upgraded {db_url} from revision {earlier} to {head} (up to date)"
    assert gm_db_upgrade(db_url) == f"gm db upgrade: {db_url} was already up to date (revision {head})"
