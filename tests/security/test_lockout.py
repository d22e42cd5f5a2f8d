"""Guessing passwords: the right password always works, whatever strangers sent before it, after a
restart as before; a guesser learns nothing from the answers; and a guess of no game costs no hash."""
from __future__ import annotations

import itertools

import pytest

from sqlalchemy import func, select

from desk import JUDGE, MASTER, Desk, address, mail
from gm.mail import prepared
from gm.mail.ingest import Fetched, ingest_batch
from gm.mail.intake.message import ACK_MARKER
from gm.store.db import transaction
from gm.store.models import AuthFailure, OrderRecord
from gm.store.passwords import PasswordVerifier

_uids = itertools.count(1)


def flood(desk: Desk, bodies: list[tuple[str, str]], batch: int = 100) -> None:
    """Mails (sender, body) taken in as the IMAP watcher takes a burst: in batches."""
    for start in range(0, len(bodies), batch):
        mails = [Fetched(next(_uids), mail(sender, body)) for sender, body in bodies[start:start + batch]]
        for outcome in ingest_batch(desk.sf, mails, gm_address=JUDGE, uidvalidity=1, verifier=desk.verifier):
            assert not outcome.failed, outcome


def orders(desk: Desk, power: str) -> list[str]:
    with transaction(desk.sf) as s:
        return list(s.scalars(select(OrderRecord.canonical).where(OrderRecord.power == power,
                                                                  OrderRecord.current.is_(True))))


def test_the_gm_is_never_locked_out_by_guesses_from_rotating_addresses(desk: Desk) -> None:
    flood(desk, [(f"guess{i}@evil.example", f"SIGNON MASTER g1 guess{i}") for i in range(120)])
    ack = desk.master("PAUSE")  # from the GM's own address
    assert "signed on as GM of g1" in ack and "accepted  PAUSE" in ack
    out = desk.send("gm-on-holiday@elsewhere.example", "SIGNON MASTER g1 gm-pw\nRESUME")  # from anywhere
    assert "accepted  RESUME" in desk.ack(out, MASTER)


def test_a_power_is_never_locked_out_by_guesses_even_from_its_own_address(desk: Desk) -> None:
    flood(desk, [(address("France") if i % 2 else f"x{i}@evil.example", f"SIGNON France g1 guess{i}")
                 for i in range(150)])
    ack = desk.player("France", "A Par - Bur")
    assert "accepted  A Par - Bur" in ack
    assert "warning: 150 wrong passwords for France were sent to the judge" in ack  # the owner hears of it


def test_hundreds_of_guesses_in_all_stop_no_sign_on_on_the_judge(desk: Desk) -> None:
    powers = ["Austria", "England", "Germany", "Italy", "Russia", "Turkey"]
    flood(desk, [(f"bot{i}@evil.example", f"SIGNON {powers[i % 6]} g1 guess{i}\nSIGNON MASTER g1 guess{i}")
                 for i in range(400)])
    with transaction(desk.sf) as s:
        assert s.scalar(select(func.count()).select_from(AuthFailure)) == 800
    assert "accepted  A Par - Bur" in desk.player("France", "A Par - Bur")
    assert "accepted  A Vie - Gal" in desk.player("Austria", "A Vie - Gal")


def test_the_answer_is_the_same_after_a_restart(desk: Desk) -> None:
    """What the judge answers does not depend on what this process has seen: a judge just started
    (a new password memory) takes the right password past the same guesses."""
    desk.player("France", "A Par - Bur")  # this process has seen France's password
    flood(desk, [(f"g{i}@evil.example", f"SIGNON France g1 guess{i}") for i in range(60)])
    desk.verifier = PasswordVerifier()  # a restart
    assert "accepted  A Par - Pic" in desk.player("France", "A Par - Pic")
    assert orders(desk, "France") == ["A PAR - PIC"]


def _notice(desk: Desk, sender: str, body: str) -> str:
    """The one mail a sender got for `body`, its Message-ID lines left out."""
    out = desk.send(sender, body)
    rows = [m for m in desk.mails(to=sender) if m.inbound_id == out.inbound_id]
    assert len(rows) == 1, rows
    return rows[0].body_text


def test_a_guesser_from_another_address_is_told_the_same_for_a_right_and_a_wrong_password(desk: Desk) -> None:
    wrong = _notice(desk, "eve1@evil.example", "SIGNON France g1 guess\nA Par - Bur")
    right = _notice(desk, "eve2@evil.example", "SIGNON France g1 pw\nA Par - Pic")
    assert wrong == right
    assert wrong.startswith(ACK_MARKER) and "A Par - " not in wrong and "guess" not in wrong
    assert orders(desk, "France") == ["A PAR - PIC"]  # the right one was carried out, answered at France's address
    assert "accepted  A Par - Pic" in desk.mails(to=address("France"))[-1].body_text


def test_a_player_guessing_a_rivals_password_learns_nothing_from_their_own_answer(desk: Desk) -> None:
    """France signs on, then tries England's password: France's acknowledgement reads the same
    whether it was right or wrong (England's own answer, at England's address, says what was done)."""
    for i in range(3):  # wrong guesses first: England has failures to be warned of
        desk.send(address("France"), f"SIGNON England g1 guess{i}")
    answers, files = [], []
    for password in ("guess", "pw"):
        out = desk.send(address("France"), f"SIGNON France g1 pw\nA Par - Bur\nSIGNON England g1 {password}\n"
                                           "F Lon - Nth\nSUMMARY\nMAP")
        answers.append(desk.ack(out, address("France")))
        (row,) = [m for m in desk.mails(to=address("France"), kind="ack") if m.inbound_id == out.inbound_id]
        files.append(row.attachments)
    assert answers[0] == answers[1] and files == [None, None]
    assert "answered at the address registered for England in g1" in answers[0]
    assert "F Lon" not in answers[0] and "Summary" not in answers[0] and "attached" not in answers[0]
    assert orders(desk, "England") == ["F LON - NTH"]
    england = desk.mails(to=address("England"))[-1].body_text
    assert "signed on as England in g1 (from france@players.example)" in england
    assert "warning: 4 wrong passwords for England" in england


def test_a_join_costs_a_password_hash_only_once_its_address_is_proven(desk: Desk, forming: Desk) -> None:
    """A JOIN of no game, of a game under way, or too short costs no hash; nor does a JOIN of a
    forming game whose address proved nothing (its password waits sealed for the code). The same
    JOIN in authenticated mail is hashed before the transaction."""
    bodies = ["JOIN nosuchgame France pw", "JOIN g1 France pw",  # no game; a game under way
              "JOIN g2 France", "JOIN", "JOIN g2 France pw"]  # too short; too short; a forming game
    raws = [mail(f"s{i}@evil.example", body) for i, body in enumerate(bodies)]
    from gm.mail.intake.message import command_lines, read_message
    from gm.mail.intake.provenance import UNPROVEN, Proof, Provenance
    messages = [read_message(raw) for raw in raws]
    signed = Provenance(Proof.AUTHENTICATED, "a test's")
    for proof, hashed_last in ((UNPROVEN, False), (signed, True)):
        hashed = prepared.prehash(desk.sf, [Fetched(None, raw) for raw in raws], messages,
                                        [command_lines(m.text) for m in messages], 1_000_000, frozenset(),
                                        [proof] * len(raws))
        assert [bool(h) for h in hashed] == [False, False, False, False, hashed_last]


def test_a_hash_stored_before_the_quick_check_is_made_again_at_its_owners_sign_on(desk: Desk) -> None:
    """A player whose hash predates the quick check (every wrong guess a slow hash) gets one at
    their first sign-on with the right password, and only then; the GM's likewise."""
    from argon2 import PasswordHasher

    from gm.store.models import Master, Player
    from gm.store.passwords import needs_rehash, quick_refusal

    old = PasswordHasher().hash("pw")
    with transaction(desk.sf) as s:
        s.execute(Player.__table__.update().where(Player.power == "France").values(password_hash=old))
        s.execute(Master.__table__.update().values(password_hash=PasswordHasher().hash("gm-pw")))

    def stored() -> tuple[str, str]:
        with transaction(desk.sf) as s:
            return (s.scalar(select(Player.password_hash).where(Player.power == "France")),
                    s.scalar(select(Master.password_hash)))

    flood(desk, [("eve@evil.example", "SIGNON France g1 guess\nSIGNON MASTER g1 guess")])
    assert stored() == (old, stored()[1]) and all(needs_rehash(h) for h in stored())  # a wrong guess changes nothing
    assert "accepted  A Par - Bur" in desk.player("France", "A Par - Bur")
    assert "accepted  PAUSE" in desk.master("PAUSE")
    france, master = stored()
    assert not needs_rehash(france) and not needs_rehash(master)
    assert not quick_refusal(france, "pw") and sum(quick_refusal(france, f"guess {i}") for i in range(200)) > 150
    assert "accepted  A Par - Pic" in desk.player("France", "A Par - Pic")  # the right password still works


def test_after_a_rehash_the_next_sign_on_costs_no_slow_check(desk: Desk, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hash made again at a sign-on (an older release's, or one under another key) is known to
    the process at once: the player's next mail is checked without Argon2."""
    from argon2 import PasswordHasher

    from gm.store import passwords
    from gm.store.models import Player

    with transaction(desk.sf) as s:
        s.execute(Player.__table__.update().where(Player.power == "France").values(
            password_hash=PasswordHasher().hash("pw")))
    assert "accepted  A Par - Bur" in desk.player("France", "A Par - Bur")  # rehashed here
    verified: list[str] = []
    real = passwords.check_password

    def counting(stored: str, password: str) -> bool:
        verified.append(stored)
        return real(stored, password)

    monkeypatch.setattr(passwords, "check_password", counting)
    assert "accepted  A Par - Gas" in desk.player("France", "A Par - Gas")
    assert verified == []
