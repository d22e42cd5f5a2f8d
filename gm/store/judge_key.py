"""The judge's secret key: 32 random bytes kept in a file of the judge's own, never in the database.

Two things stored in the database would help someone who steals it if they were made from what
the database holds alone, so both are keyed with this secret (see `derive`):

* the quick check beside each password hash (gm.store.passwords), which rules out most wrong
  passwords without the slow hash;
* the password of a request waiting for its confirmation code (gm.mail.commands.confirmations), which is sealed
  until the code comes back, so that a request no address has proved costs no slow hash.

The file is DATA_DIR/secret.key, made at the first start, readable by the judge's user only. Every
`gm serve` of one database must read the same file (a shared data folder, as the compose stack
has): a request sealed by one is opened by another. Lose it and nothing breaks for good: the quick checks made under the old
key are skipped (every password is then checked by its slow hash, and rehashed at its next
sign-on), and requests waiting for their codes must be asked again.
"""
from __future__ import annotations

import hashlib
import hmac
import logging
import os
import secrets
from pathlib import Path

log = logging.getLogger(__name__)

KEY_BYTES = 32
FILE_NAME = "secret.key"

_key: bytes | None = None


def load(path: Path) -> bytes:
    """The key in `path` (hex), made there first if there is none (mode 0600); the process uses it
    from now on."""
    global _key
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        text = secrets.token_hex(KEY_BYTES)
        # O_EXCL: two processes starting at once keep the first one's key.
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            text = path.read_text(encoding="ascii").strip()
        else:
            with os.fdopen(fd, "w", encoding="ascii") as f:
                f.write(text + "\n")
            log.info("made the judge's secret key in %s", path)
    try:
        key = bytes.fromhex(text)
    except ValueError:
        key = b""
    if len(key) < 16:
        raise ValueError(f"{path} holds no key (64 hex digits): remove it to have a new one made")
    _key = key
    return key


def use(key: bytes | None) -> None:
    """Use `key` in this process (tests, tools that were given one); None: none loaded."""
    global _key
    _key = key


def current() -> bytes:
    """The key this process uses: the one loaded, else one made for this process alone (a tool run
    once with no data folder; a server always loads its file)."""
    global _key
    if _key is None:
        log.debug("no secret key loaded: one for this process only")
        _key = secrets.token_bytes(KEY_BYTES)
    return _key


def derive(purpose: str, data: bytes) -> bytes:
    """HMAC-SHA256 of `data` under the key, apart for each `purpose`: one key serves several uses."""
    return hmac.new(current(), purpose.encode("ascii") + b"\0" + data, hashlib.sha256).digest()


def key_id() -> str:
    """A short public name of the key (8 hex digits): tells a check made under another key apart."""
    return derive("key id", b"").hex()[:8]
