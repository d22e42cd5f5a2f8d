"""A game moves in from another judge, by mail through real servers (`gm serve`, Dovecot, an SMTP
front; SQLite and PostgreSQL): the GM mails IMPORT YES with the old judge's status file; each
player gets a code at the address the file names, answers it with a password of their own choosing,
gets the position, its map and the deadline, and signs on with that password to order; the GM's
RESUME starts the clock, and the phase moved in is played here."""
from __future__ import annotations

import asyncio
from email.message import EmailMessage
from email.utils import make_msgid
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from sqlalchemy import select

from gm.games import add_master, create_game
from gm.mail.commands.confirmations import code_in_subject
from gm.store.db import transaction
from gm.store.models import InboundMail, Player
from gm.store.passwords import check_password, hash_password
from test_game_by_mail import DOMAIN, GM, Table, results_of, serving, subject_has, text_of

if TYPE_CHECKING:  # fixtures' types only (see conftest.py)
    from conftest import Dovecot, ReadMailbox, SmtpFront, StartGmServe

MASTER = f"alice@{DOMAIN}"
STATUS = Path(__file__).resolve().parents[1] / "lifecycle" / "moving_in" / "texts" / "dpjudge-standard-status.txt"


async def send(t: Table, sender: str, subject: str, body: str) -> None:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = sender, GM, subject
    msg["Message-ID"] = make_msgid(domain=DOMAIN)
    msg.set_content(body)
    await asyncio.to_thread(t.front.send, msg)


@pytest.mark.long
async def test_a_game_moves_in_and_its_players_confirm_choose_passwords_and_order(
    migrated_url: str, dovecot: Dovecot, smtp_front: SmtpFront, read_mailbox: ReadMailbox, gm_serve: StartGmServe,
    tmp_path: Path,
) -> None:
    t = Table(migrated_url, smtp_front, dovecot, read_mailbox, "moved", "standard")
    status = STATUS.read_text(encoding="utf-8")
    for power, user in t.users.items():  # the old judge's addresses are this test's mailboxes
        status = status.replace(f"{power.lower()}@players.test", f"{user}@{DOMAIN}")
    with transaction(t.factory) as s:
        game = create_game(s, "moved", "standard")
        add_master(s, game, MASTER, hash_password("gm-pw"))
    with serving(gm_serve, migrated_url, dovecot, smtp_front, tmp_path):
        await send(t, MASTER, "moving oldgame in", f"SIGNON MASTER moved gm-pw\nIMPORT YES\n{status}")
        for power in t.powers:  # each player answers the code with a password of their own
            (asked,) = await t.wait_mail(power, lambda m: code_in_subject(str(m["Subject"])) is not None)
            assert f"you play {power} in moved" in str(asked["Subject"])
            assert "password on the other judge is not used here" in " ".join(text_of(asked).split())
            await send(t, f"{t.users[power]}@{DOMAIN}", f"Re: {asked['Subject']}", f"SET PASSWORD pw-{t.users[power]}")
        for power in t.powers:
            (welcome,) = await t.wait_mail(power, subject_has(f"moved: you play {power}"))
            body = text_of(welcome)
            assert f"SIGNON {power} moved <password>" in body and "Fall 1901, Movement; the deadline is" in body
            assert "paused the game while its players confirm" in body
            (picture,) = [p for p in welcome.walk() if p.get_content_type() == "image/png"]
            assert picture.get_content()[:8] == b"\x89PNG\r\n\x1a\n"
        # The first orders here, signed on with the new passwords (Table.orders: pw-<user>).
        fall = {"Turkey": ["A BUL - RUM", "F BLA S A BUL - RUM", "A ARM H"], "Austria": ["A SER S A BUL - RUM",
                                                                                         "A GAL H", "F ALB H"]}
        state = (await asyncio.to_thread(t.phase))[1]
        sent = {}
        for power in t.powers:
            sent[power] = await t.orders(power, fall.get(power) or [f"{u} H" for u in state.units_of(power)])
        (ack,) = await t.wait_mail("Turkey", lambda m: m["In-Reply-To"] == sent["Turkey"]["Message-ID"])
        assert "accepted  A BUL - RUM" in text_of(ack) and "accepted  F BLA S A BUL - RUM" in text_of(ack)
        await asyncio.sleep(1.5)
        assert (await asyncio.to_thread(t.phase))[0] == "Fall 1901, Movement"  # paused: nothing ends
        await send(t, MASTER, "go", "SIGNON MASTER moved gm-pw\nRESUME")
        state = await t.wait_phase("Fall 1901, Retreat")
        assert state.units["RUM"].power == "Turkey" and state.dislodged["RUM"].retreats == ("SEV",)
        fall_results = results_of("Fall 1901")
        (results,) = await t.wait_mail("Russia", lambda m: fall_results(m) and "results" in str(m["Subject"]))
        assert "A BUL - RUM" in text_of(results)
    with transaction(t.factory) as s:
        players = {p.power: p for p in s.scalars(select(Player))}
        assert sorted(players) == sorted(t.powers)
        assert all(check_password(p.password_hash, f"pw-{t.users[p.power or '']}") for p in players.values())
        kept = b"".join(s.scalars(select(InboundMail.raw)))
    assert b"gmsecret" not in kept and b"pw1" not in kept  # the old judge's passwords: never kept
