"""Player passwords: slow salted hashes (Argon2id), never the passwords themselves."""
from __future__ import annotations

import hashlib
import hmac
import secrets
from collections import OrderedDict

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

# argon2-cffi's defaults follow RFC 9106's second recommended option (Argon2id, 64 MiB, t=3).
# The hasher holds only those parameters, no state, so one instance serves every caller.
_HASHER = PasswordHasher()


def hash_password(password: str) -> str:
    """An encoded Argon2id hash with its own random salt and parameters ('$argon2id$v=19$...')."""
    return _HASHER.hash(password)


def check_password(password_hash: str, password: str) -> bool:
    """Whether `password` is the one `password_hash` was made from. A malformed hash is no match."""
    try:
        return _HASHER.verify(password_hash, password)
    except (VerificationError, InvalidHashError):
        # The exceptions name neither the password nor the hash: nothing to log from here.
        return False


def needs_rehash(password_hash: str) -> bool:
    """True when the hash was made with weaker parameters than today's: rehash at the next login."""
    try:
        return _HASHER.check_needs_rehash(password_hash)
    except InvalidHashError:
        return True


class PasswordVerifier:
    """check_password with a memory of passwords already verified in this process.

    The slow hash is what makes stolen hashes useless; paying it for every mail of a player who
    sends many would cap the judge at a few mails a second. A password that verified once is
    remembered as an HMAC under a key that lives only in this process (never the password), so
    later mails with the same password check in microseconds. A wrong password always pays.
    """

    def __init__(self, capacity: int = 10_000) -> None:
        self._key = secrets.token_bytes(32)
        self._known: OrderedDict[bytes, None] = OrderedDict()
        self._capacity = capacity

    def _tag(self, password_hash: str, password: str) -> bytes:
        return hmac.new(self._key, f"{password_hash}\0{password}".encode(), hashlib.sha256).digest()

    def known(self, password_hash: str, password: str) -> bool:
        """Whether this pair verified before: a check that costs no hashing."""
        tag = self._tag(password_hash, password)
        if tag in self._known:
            self._known.move_to_end(tag)
            return True
        return False

    def check(self, password_hash: str, password: str) -> bool:
        if self.known(password_hash, password):
            return True
        tag = self._tag(password_hash, password)
        if not check_password(password_hash, password):
            return False
        self._known[tag] = None
        if len(self._known) > self._capacity:
            self._known.popitem(last=False)
        return True
