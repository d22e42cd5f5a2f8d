"""A fleet is never convoyed, by mail as in `gm adjudicate` (tests/variants/standard/cases/
fleet_convoyed.txt): the real intake refuses the order with the reason and keeps nothing of it;
the mail's other orders stand."""
from __future__ import annotations

from test_ingest import Judge, game, judge, line_of  # noqa: F401 - the fixtures, with the helpers


def test_a_fleet_convoyed_over_land_is_refused_with_the_reason(game: Judge) -> None:
    ack = game.say("e@x.example", "SIGNON England g1 pw-England\nF Lon - Wal - Yor\nF Lon - Yor via convoy\n"
                                  "Lon - Nth - Yor\nA Lvp - Yor\nF Edi - Nth")
    assert line_of(ack, "F Lon - Wal - Yor") == "REJECTED : a fleet cannot be convoyed: F LON - WAL - YOR"
    assert line_of(ack, "F Lon - Yor via convoy") == "REJECTED : a fleet cannot be convoyed: F LON - YOR VIA CONVOY"
    assert line_of(ack, "Lon - Nth - Yor") == "REJECTED : a fleet cannot be convoyed: F LON - NTH - YOR"
    assert game.current_orders("England") == ["A LVP - YOR", "F EDI - NTH"]
    assert "Units still without orders: F LON" in ack

