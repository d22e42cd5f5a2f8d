"""A game run by its GM by mail, end to end: `gm serve` on a real IMAP server (Dovecot), a real
SMTP server and SQLite or PostgreSQL. A results mail is wrong because of a mistyped order; the GM
rolls back, enters the right order, previews and processes; every player gets the corrected
results. Press goes between players without their addresses, a copy to the GM; someone posing as
the GM changes nothing."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from gm.games import add_master, find_game
from gm.store.db import make_engine, make_session_factory, transaction
from gm.store.passwords import hash_password
from test_game_by_mail import Table, new_game, results_of, serving, subject_has, text_of

if TYPE_CHECKING:  # fixtures' types only (see conftest.py)
    from conftest import Dovecot, ReadMailbox, SmtpFront, StartGmServe

REFEREE = "alice"  # the GM's mailbox on the test's Dovecot


@pytest.mark.long
async def test_the_gm_puts_a_mistyped_order_right_by_mail_and_every_player_gets_the_correction(
    migrated_url: str, dovecot: Dovecot, smtp_front: SmtpFront, read_mailbox: ReadMailbox, gm_serve: StartGmServe,
    tmp_path: Path,
) -> None:
    new_game(migrated_url, "dispute", "standard", movement="1h", retreat="1h", adjustment="1h", remind_before="0")
    with transaction(make_session_factory(make_engine(migrated_url))) as s:
        game = find_game(s, "dispute")
        assert game is not None
        add_master(s, game, dovecot.address(REFEREE), hash_password("ref-pw"))
    t = Table(migrated_url, smtp_front, dovecot, read_mailbox, "dispute", "standard")
    t.users["GM"] = REFEREE

    async def as_gm(*lines: str) -> None:
        await t.mail("GM", "\n".join(["SIGNON MASTER dispute ref-pw", *lines]))

    with serving(gm_serve, migrated_url, dovecot, smtp_front, tmp_path):
        await t.join_all()
        state = await t.wait_phase("Spring 1901, Movement")
        orders = {power: [f"{u} H" for u in state.units_of(power)] for power in t.powers}
        orders["France"] = ["A Par - Pic", "A Mar H", "F Bre H"]  # France meant A Par - Bur
        for power in t.powers:
            await t.orders(power, orders[power])
        await t.wait_phase("Fall 1901, Movement")
        (wrong,) = await t.wait_mail("France", results_of("Spring 1901"))
        assert "A PAR - PIC" in text_of(wrong)

        # Someone posing as the GM changes nothing, and gets a fixed notice, never their text back.
        t.users["Poser"] = "bob"
        await t.mail("Poser", "SIGNON MASTER dispute guess\nROLLBACK")
        (notice,) = await t.wait_mail("Poser", subject_has("how to send orders"))
        # Told only where the GM's answers go, as with the right password: nothing to learn from it.
        told = text_of(notice)
        assert "the GM of dispute" in told and "wrong password for" not in told and "ROLLBACK" not in told
        assert (await t.wait_phase("Fall 1901, Movement")) is not None

        await as_gm("ROLLBACK Spring 1901", "ORDER France A Par - Bur", "PREVIEW")
        await t.wait_phase("Spring 1901, Movement")
        (preview,) = await t.wait_mail("GM", subject_has("PREVIEW"))
        assert "A PAR - BUR" in text_of(preview)
        for power in t.powers:  # every player is told of the rollback; nobody but the GM sees the preview
            await t.wait_mail(power, subject_has("rolled back"))
            assert not [m for m in await t.inbox(power) if "PREVIEW" in str(m["Subject"])]

        await as_gm("PROCESS")
        state = await t.wait_phase("Fall 1901, Movement")
        assert state.units["BUR"].power == "France"
        for power in t.powers:
            first, corrected = await t.wait_mail(power, results_of("Spring 1901"), count=2)
            body = text_of(corrected)
            assert "A PAR - BUR" in body and "A PAR - PIC" not in body
            assert "replaces" in body.lower() or "correction" in body.lower()
        # The rollback paused the game (lest the phase end at once with every order on file);
        # PROCESS ended that pause: the next phase runs on a fresh deadline, as the players were told.
        acks = await t.wait_mail("GM", subject_has("Re:"), count=2)
        assert all("REJECTED" not in text_of(a) for a in acks)
        with transaction(make_session_factory(make_engine(migrated_url))) as s:
            game = find_game(s, "dispute")
            assert game is not None and game.paused_at is None and game.deadline_at is not None

        # Press: relayed to France without Germany's address; the GM gets a copy naming its sender.
        await t.orders("Germany", ["PRESS TO France", "Shall we share Belgium?", "ENDPRESS", "A Mun H"])
        (press,) = await t.wait_mail("France", lambda m: "Shall we share Belgium?" in text_of(m))
        germany = dovecot.address(t.users["Germany"])
        assert germany not in press.as_string() and "Germany" in text_of(press)
        (copy,) = await t.wait_mail("GM", lambda m: "Shall we share Belgium?" in text_of(m))
        assert "Germany" in text_of(copy)
