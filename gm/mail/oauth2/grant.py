"""The grant `gm mail authorize` obtained: its refresh token and what it was given for, in one
JSON file beside the judge's secret key (providers.GRANT_FILE in the data folder), readable by the judge's
user alone, written whole or not at all. A provider that refuses the grant (revoked, expired, a
changed password) is written down in it, so that every process and `gm status` know, and nobody
asks the provider again until the grant is renewed."""
from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

def load(path: Path) -> dict[str, Any] | None:
    """The grant kept at `path`, or None when there is none (or it is not one)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("refresh_token"), str) else None


def save(path: Path, grant: dict[str, Any]) -> None:
    """Write the grant, mode 0600 from its first byte, replacing the one before at once."""
    path.parent.mkdir(parents=True, exist_ok=True)
    new = path.with_name(f".{path.name}.{os.getpid()}")
    fd = os.open(new, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(grant, f, indent=1, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    os.replace(new, path)


@contextmanager
def locked(path: Path) -> Iterator[None]:
    """Held while one process refreshes: another waits, then reads the refresh token it left (a
    provider that rotates refresh tokens refuses the old one)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path.with_name(f".{path.name}.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # lets the lock go


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def refused(grant: dict[str, Any]) -> str | None:
    """Why the provider refused this grant ('invalid_grant: ...'), or None."""
    why = grant.get("refused")
    return f"{why.get('error')}: {why.get('description') or 'no reason given'}" if isinstance(why, dict) else None


def describe(path: Path, provider: str) -> tuple[str, str | None]:
    """`gm status`'s line on the mailbox's OAuth2 sign-in, and the problem in it (None: none)."""
    kept = load(path)
    if kept is None:
        return f"mail sign-in: OAuth2 at {provider}, no grant yet", \
            f"the judge has no OAuth2 grant ({path}): run gm mail authorize"
    since = f"granted {kept.get('obtained_at', '?')}, last refreshed {kept.get('refreshed_at') or 'never'}"
    why = refused(kept)
    if why is not None:
        at = kept["refused"].get("at", "?")
        return (f"mail sign-in: OAuth2 at {provider} as {kept.get('user')}, REFUSED by the provider at {at} ({why})",
                f"the provider refused the judge's OAuth2 grant at {at} ({why}): run gm mail authorize again")
    return f"mail sign-in: OAuth2 at {provider} as {kept.get('user')}, {since}", None
