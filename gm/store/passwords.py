"""Player passwords: slow salted hashes (Argon2id), never the passwords themselves."""
from __future__ import annotations

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
