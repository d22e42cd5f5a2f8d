"""Passwords: slow salted hashes (Argon2id), never the passwords themselves.

A stored password is its Argon2id hash followed by a six-bit check ('$argon2id$...#1f2e3d4c:2a'):
a fast digest of the password, keyed with the judge's secret key (gm.store.judge_key, which never
lives in the database) and cut to six bits, read before the slow hash. A right password always
passes it and then pays the slow hash; 63 wrong guesses in 64 fail it at once. That is what lets
the judge check every guess it is sent, whoever sends it and however many (the right password
always works), at a cost a flood of guesses cannot make large.

Someone who steals the database gains nothing from the check: without the key its six bits are
noise. The key's short name goes with the check, so that a check made under another key (the key
file lost or replaced) is skipped, never trusted: the password is then checked by the slow hash
alone, and rehashed with a new check at its next sign-on. So is a hash stored with no check, or
with an unkeyed one of an older release.
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
from collections import OrderedDict

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from gm.store import judge_key

# argon2-cffi's defaults follow RFC 9106's second recommended option (Argon2id, 64 MiB, t=3).
# The hasher holds only those parameters, no state, so one instance serves every caller.
_HASHER = PasswordHasher()
_CHECK = "#"  # between the Argon2id hash and the quick check; no Argon2 encoding has one
CHECK_BITS = 6


def _quick(argon2_hash: str, password: str) -> int:
    """The quick check of `password`: keyed with the judge's secret, salted by the whole encoded
    hash (its parameters and salt)."""
    digest = judge_key.derive("quick check", f"{argon2_hash}\0{password}".encode("utf-8", "surrogatepass"))
    return digest[0] >> (8 - CHECK_BITS)


def hash_password(password: str) -> str:
    """What to store for `password`: an encoded Argon2id hash with its own random salt and
    parameters, then the key's name and the quick check ('$argon2id$v=19$...#1f2e3d4c:2a')."""
    argon2_hash = _HASHER.hash(password)
    return f"{argon2_hash}{_CHECK}{judge_key.key_id()}:{_quick(argon2_hash, password):02x}"


def _parts(stored: str) -> tuple[str, int | None]:
    """The Argon2 hash, and the quick check when it was made under the key this process uses."""
    argon2_hash, found, check = stored.partition(_CHECK)
    key, colon, bits = check.partition(":")
    if not found or not colon or key != judge_key.key_id():
        return argon2_hash, None
    try:
        return argon2_hash, int(bits, 16)
    except ValueError:
        return argon2_hash, None


def quick_refusal(stored: str, password: str) -> bool:
    """True when `password` is certainly not the one `stored` was made from, found without the
    slow hash (63 wrong passwords in 64); False when only the slow hash can tell."""
    argon2_hash, check = _parts(stored)
    return check is not None and check != _quick(argon2_hash, password)


def check_password(stored: str, password: str) -> bool:
    """Whether `password` is the one `stored` was made from. A malformed hash is no match."""
    if quick_refusal(stored, password):
        return False
    try:
        return _HASHER.verify(_parts(stored)[0], password)
    except (VerificationError, InvalidHashError):
        # The exceptions name neither the password nor the hash: nothing to log from here.
        return False


def needs_rehash(stored: str) -> bool:
    """True when the hash was made with weaker parameters than today's, or has no quick check
    under the judge's key: rehash at the next login."""
    argon2_hash, check = _parts(stored)
    try:
        return check is None or _HASHER.check_needs_rehash(argon2_hash)
    except InvalidHashError:
        return True


class PasswordVerifier:
    """check_password with a memory of passwords already verified in this process.

    The slow hash is what makes stolen hashes useless; paying it for every mail of a player who
    sends many would cap the judge at a few mails a second. A password that verified once is
    remembered as an HMAC under a key that lives only in this process (never the password), so
    later mails with the same password check in microseconds. The memory changes only how fast an
    answer comes, never what it is: a process that has just started answers the same.
    """

    def __init__(self, capacity: int = 10_000) -> None:
        self._key = secrets.token_bytes(32)
        self._known: OrderedDict[bytes, None] = OrderedDict()
        self._capacity = capacity

    def _tag(self, password_hash: str, password: str) -> bytes:
        return hmac.new(self._key, f"{password_hash}\0{password}".encode("utf-8", "surrogatepass"),
                        hashlib.sha256).digest()

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
        if not check_password(password_hash, password):
            return False
        self.remember(password_hash, password)
        return True

    def remember(self, password_hash: str, password: str) -> None:
        """`password_hash` was made from `password` (just now, by a rehash): known from now on."""
        self._known[self._tag(password_hash, password)] = None
        if len(self._known) > self._capacity:
            self._known.popitem(last=False)
