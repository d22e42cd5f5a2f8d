"""Password hashes: salted, slow, verifiable, and never holding the password."""
from __future__ import annotations

import base64
from pathlib import Path

import pytest
from argon2 import PasswordHasher

from gm.store import judge_key, passwords
from gm.store.passwords import check_password, hash_password, needs_rehash, quick_refusal

pytestmark = pytest.mark.production_argon2  # the judge's own cost, not the tests' small one


def test_the_judges_cost_is_rfc_9106s_second_recommendation() -> None:
    h = hash_password("x")
    assert "$argon2id$v=19$m=65536,t=3,p=4$" in h
    assert passwords._HASHER.time_cost == 3 and passwords._HASHER.memory_cost == 65536


def test_a_hash_verifies_its_password_and_no_other() -> None:
    h = hash_password("sekrit-Ω")
    assert check_password(h, "sekrit-Ω")
    assert not check_password(h, "sekrit-ω")
    assert not check_password(h, "")


def test_the_hash_never_holds_the_password() -> None:
    for password in ("sekrit-42", "correct horse battery staple"):
        h = hash_password(password)
        assert password not in h
        assert password.encode().hex() not in h
        assert base64.b64encode(password.encode()).decode().rstrip("=") not in h
        assert h.startswith("$argon2id$")


def test_each_hash_has_its_own_salt() -> None:
    assert hash_password("same") != hash_password("same")


def test_a_malformed_hash_matches_nothing() -> None:
    assert not check_password("", "x")
    assert not check_password("not a hash", "not a hash")
    assert not check_password("$argon2id$v=19$broken", "x")


def test_weaker_hashes_ask_to_be_rehashed() -> None:
    assert not needs_rehash(hash_password("x"))
    assert needs_rehash(PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1).hash("x"))
    assert needs_rehash("not a hash")


def test_the_quick_check_never_refuses_the_right_password_and_refuses_most_wrong_ones() -> None:
    stored = hash_password("the right one")
    assert not quick_refusal(stored, "the right one")
    refused = sum(quick_refusal(stored, f"guess {i}") for i in range(2000))
    assert 1800 < refused < 2000  # 63 in 64 expected (1969)


def test_a_hash_stored_without_its_quick_check_is_checked_in_full() -> None:
    plain = PasswordHasher().hash("older")
    assert check_password(plain, "older") and not check_password(plain, "newer")
    assert not quick_refusal(plain, "newer")
    assert needs_rehash(plain)


def test_the_quick_check_is_keyed_with_the_judges_secret_which_is_not_in_the_database() -> None:
    """Without the key its six bits are noise: under another key (a thief's guess, or the key file
    replaced) the check is skipped, never trusted, and the right password still works; an
    unkeyed check of an older release is skipped too. Either asks to be rehashed."""
    stored = hash_password("the right one")
    key = judge_key.current()
    judge_key.use(bytes(32))
    try:
        assert not any(quick_refusal(stored, f"guess {i}") for i in range(200))
        assert check_password(stored, "the right one") and not check_password(stored, "guess")
        assert needs_rehash(stored)
    finally:
        judge_key.use(key)
    argon2_hash = stored.partition("#")[0]
    unkeyed = f"{argon2_hash}#{int(quick_refusal(stored, 'x')):02x}"  # the check as an older release stored it
    assert not quick_refusal(unkeyed, "guess 1") and check_password(unkeyed, "the right one") and needs_rehash(unkeyed)


def test_the_key_file_is_made_once_readable_by_its_owner_only(tmp_path: Path) -> None:
    key = judge_key.current()
    try:
        path = tmp_path / "data" / "secret.key"
        made = judge_key.load(path)
        assert path.stat().st_mode & 0o777 == 0o600 and len(made) == judge_key.KEY_BYTES
        assert judge_key.load(path) == made  # read again, not made again
        path.write_text("not hex\n")
        with pytest.raises(ValueError, match="remove it to have a new one made"):
            judge_key.load(path)
    finally:
        judge_key.use(key)
