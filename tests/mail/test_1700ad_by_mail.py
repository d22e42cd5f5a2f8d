"""1700AD II by mail: `gm serve` on a real IMAP server (Dovecot), a real SMTP server and SQLite or
PostgreSQL; eight players JOIN and play two years. Sweden sends rule 6's orders for 1700 as the
rules write them (steps, double strength, a convoy by two fleets, a retreat, builds and a removal
in one mail); the acknowledgement says what the judge understood, the year is adjudicated as one
turn of two impulses, and the results show each impulse. In 1701 the Anglo-Dutch permit French
fleets in their coasts and a French fleet enters York."""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from test_game_by_mail import Table, new_game, results_of, serving, subject_has, text_of

if TYPE_CHECKING:  # fixtures' types only (see conftest.py)
    from conftest import Dovecot, ReadMailbox, SmtpFront, StartGmServe

RULE_6 = [
    "Sweden 1700",
    "CXII(Got)-hold-Den (x2);",
    "2F(Sca)-COS-C CXII(Got)-Den;",
    "A (Sca)-Hold-Got;",
    "A(Liv) S A(Fin)-Kar (x2);",
    "A(Fin)-Kar (x2);",
    "A(Dal) H;",
    "Retreats: A(Liv)-Kur;",
    "Builds: A(Fin), A(Dal).",
    "Removes: A(Got).",
]


@pytest.mark.long
async def test_two_years_of_1700ad_by_mail(
    migrated_url: str, dovecot: Dovecot, smtp_front: SmtpFront, read_mailbox: ReadMailbox, gm_serve: StartGmServe,
    tmp_path: Path,
) -> None:
    new_game(migrated_url, "ad", "1700ad", movement="1h")
    t = Table(migrated_url, smtp_front, dovecot, read_mailbox, "ad", "1700ad")
    with serving(gm_serve, migrated_url, dovecot, smtp_front, tmp_path):
        await t.join_all()
        state = await t.wait_phase("Year 1700")
        (start,) = await t.wait_mail("Swedish", subject_has("starts"))
        assert "reconstruction" in text_of(start)  # every game's first mail says the map is rebuilt

        async def hold_the_rest(state: Any, skip: str = "") -> None:
            """Every power but `skip` orders each of its units to hold."""
            for power in t.powers:
                if power != skip:
                    await t.orders(power, [f"{u} H" for u in state.units.values() if u.power == power])

        await t.orders("Swedish", RULE_6)
        (ack,) = await t.wait_mail("Swedish", lambda m: "CXII(Got)-hold-Den" in text_of(m))
        body = text_of(ack)
        assert "= A GOT H THEN A GOT - DEN (x2)" in body
        assert "= 2F SCA - COS THEN 2F COS C A GOT - DEN" in body
        assert "= A LIV R KUR" in body and "= Build A FIN" in body and "= Build A DAL" in body
        assert "REJECTED  Sweden 1700" in body and "heading" in body  # rule 6's heading is no order
        assert "= A GOT D" in body
        await hold_the_rest(state, skip="Swedish")
        state = await t.wait_phase("Year 1701")
        assert str(state.units["DEN"]) == "CXII DEN" and state.supply_centres["DEN"] == "Swedish"
        assert str(state.units["COS"]) == "2F COS" and str(state.units["KAR"]) == "A KAR"
        (results,) = await t.wait_mail("Turks", results_of("Year 1700"))
        body = text_of(results)
        assert "A GOT - DEN (x2) (impulse 2)" in body and "2F SCA - COS (impulse 1)" in body
        assert "made by the rules" in body  # Peter the Great's retreat, nobody having ordered it

        # 1701: the Anglo-Dutch let French fleets into their coasts; a French fleet enters York.
        await t.orders("Anglo-Dutch", ["PERMIT French"] + [f"{u} H" for u in state.units.values()
                                                            if u.power == "Anglo-Dutch"])
        await t.orders("French", ["2F Bre - Eng THEN 2F Eng - Wal"] + [f"{u} H" for u in state.units.values()
                                                                          if u.power == "French" and u.province != "BRE"])
        for power in t.powers:
            if power not in ("Anglo-Dutch", "French"):
                await t.orders(power, [f"{u} H" for u in state.units.values() if u.power == power])
        state = await t.wait_phase("Year 1702")
        assert str(state.units["WAL"]) == "2F WAL"
        (results,) = await t.wait_mail("French", results_of("Year 1701"))
        assert "2F ENG - WAL (impulse 2)" in text_of(results)
