"""Napoleonic Wars by mail: `gm serve` on a real IMAP server (Dovecot), a real SMTP server and
SQLite or PostgreSQL; five players JOIN, bid for the minor powers in Winter 1800, order their own
and their minor powers' units through 1801, bid again in Winter 1801, and in Spring 1802 an army
boards a fleet (rule 6). The results mails show who controls each minor power, and no mail shows a
player another power's bid."""
from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from test_game_by_mail import Table, new_game, results_of, serving, subject_has, text_of

if TYPE_CHECKING:  # fixtures' types only (see conftest.py)
    from conftest import Dovecot, ReadMailbox, SmtpFront, StartGmServe

BIDS_1800 = {
    "England": ["IP 5 Denmark"],
    "Russia": ["IP 4 Denmark", "IP 8 Sweden"],
    "France": ["IP 6 Spain", "IP 2 Naples"],
    "Austria": ["IP 3 Bavaria", "IP 2 Naples FOR Russia"],  # 2 for Russia against France's 2: a tie
    "Prussia": ["IP 2 Hanover"],
}
BIDS_1801 = {
    "England": ["IP 0 Denmark"],
    "Russia": ["IP 12 Denmark"],  # England's automatic 1 IP is not enough
    "France": ["IP 0 Spain"],
    "Austria": ["bid 1 Wurzburg"],
    "Prussia": ["IP 3 Hanover FOR Prussia"],
}
BID = re.compile(r"\bIP \d+ [A-Z][a-z]+(?: FOR [A-Z][a-z]+)?")


@pytest.mark.long
async def test_two_winters_of_bids_by_mail(
    migrated_url: str, dovecot: Dovecot, smtp_front: SmtpFront, read_mailbox: ReadMailbox, gm_serve: StartGmServe,
    tmp_path: Path,
) -> None:
    new_game(migrated_url, "nap", "napoleonic", movement="1h", retreat="1h", adjustment="1h", bidding="1h")
    t = Table(migrated_url, smtp_front, dovecot, read_mailbox, "nap", "napoleonic")
    rules = t.variant.rules
    with serving(gm_serve, migrated_url, dovecot, smtp_front, tmp_path):
        await t.join_all()
        state = await t.wait_phase("Winter 1800, Bidding")
        (start,) = await t.wait_mail("England", subject_has("starts"))
        body = text_of(start)
        assert "Due from England: its IP bids" in body  # what the first phase asks, first
        assert "IP <n> <minor power> [FOR <power>]" in body  # and how to bid
        assert "48 of the 50 supply centres" in body  # the board's missing centres, said in the first mail

        for power, lines in BIDS_1800.items():
            await t.orders(power, lines)
        (ack,) = await t.wait_mail("Russia", lambda m: "accepted  IP 8 Sweden" in text_of(m))
        assert "IP bids (secret: only you and the GM see them):\n  IP 4 Denmark\n  IP 8 Sweden\n" in \
            text_of(ack).replace("\r\n", "\n")
        assert "IPs used: 12 of 12, left: 0" in text_of(ack)
        state = await t.wait_phase("Spring 1801, Movement")  # early: every power had bid
        assert rules.controllers(t.variant, state) == {
            "Bavaria": "Austria", "Denmark": "England", "Hanover": "Prussia", "Naples": None, "Portugal": None,
            "Spain": "France", "Sweden": "Russia", "Turkey": None, "Wurzburg": None}
        (results,) = await t.wait_mail("Prussia", results_of("Winter 1800"))
        body = text_of(results)
        assert "Control of the minor powers" in body
        assert "bids 1h" in body  # the house rules at the foot name the bidding deadline
        assert re.search(r"Denmark\s+England \(was nobody\)", body) and re.search(r"Turkey\s+nobody", body)
        assert "IP 2 Hanover" in body  # Prussia's own bid, with its result
        assert not BID.search(body.replace("IP 2 Hanover", ""))

        async def hold_everything(state: Any, instead: dict[str, str] | None = None) -> None:
            """Every power orders each unit it commands, its minor powers' included, to hold
            (or as `instead` says: unit -> order)."""
            for power in t.powers:
                lines = [(instead or {}).get(str(u), f"{u} H") for u in state.units.values()
                         if rules.commander(t.variant, state, u.power) == power]
                await t.orders(power, lines)

        # The London fleet moves twice: to the North Sea, then on to the Norwegian Sea.
        await hold_everything(state, {"F LON": "F LON - NTH - NWG"})
        state = await t.wait_phase("Fall 1801, Movement")
        assert state.units["NWG"].power == "England"
        spring = text_of((await t.wait_mail("Austria", results_of("Spring 1801")))[0])
        assert "F DEN H" in spring and "Minor powers" in spring  # England ordered Denmark's fleet
        assert "F LON - NTH" in spring and "F NTH - NWG (second move)" in spring
        await hold_everything(state)
        state = await t.wait_phase("Winter 1801, Bidding")  # nobody had an adjustment to make
        for power, lines in BIDS_1801.items():
            await t.orders(power, lines)
        state = await t.wait_phase("Spring 1802, Movement")
        assert rules.controllers(t.variant, state)["Denmark"] == "Russia"
        assert rules.controllers(t.variant, state)["Wurzburg"] == "Austria"
        (results,) = await t.wait_mail("England", results_of("Winter 1801"))
        body = text_of(results)
        assert re.search(r"Denmark\s+Russia \(was England\)", body)
        assert "IP 0 Denmark" in body and "IP 12" not in body

        # Rule 6 by mail: the army in Liverpool boards the fleet arriving in the Irish Sea.
        await hold_everything(state, {"F SCO": "F SCO - IRI", "A LVP": "A(Lvp) E IRI"})
        (ack,) = await t.wait_mail("England", lambda m: "accepted  A(Lvp) E IRI" in text_of(m))
        assert "= A LVP - IRI MERGE" in text_of(ack)  # what the judge understood
        state = await t.wait_phase("Fall 1802, Movement")
        assert str(state.units["IRI"]) == "A/F IRI" and "LVP" not in state.units
        spring = text_of((await t.wait_mail("France", results_of("Spring 1802")))[0])
        assert "A LVP - IRI MERGE" in spring

        # No mail to a player shows a bid that is not that player's own.
        for power in t.powers:
            own = {line.replace("bid", "IP") for line in BIDS_1800[power] + BIDS_1801[power]}
            mails = await t.inbox(power)
            assert len(mails) >= 8
            for mail in mails:
                for part in mail.walk():
                    if part.get_content_maintype() != "text":
                        continue
                    for shown in BID.findall(str(part.get_content())):
                        assert any(shown.startswith(mine.split(" FOR ")[0]) for mine in own), (power, mail["Subject"], shown)
