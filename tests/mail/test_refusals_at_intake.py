"""A player's mail learns at once which supports and convoys cannot work (the engine's reasons:
tests/engine/test_intake_judging.py), as it learns of an impossible move; the rest of the mail is
still carried out. On a real SQLite file and a real PostgreSQL."""
from __future__ import annotations

from test_ingest import Judge, game, judge, line_of  # noqa: F401 - the fixtures: a standard game, all joined


def test_an_impossible_support_or_convoy_is_refused_with_its_reason(game: Judge) -> None:  # noqa: F811
    ack = game.say("england@players.example", "SIGNON England g1 pw-England\n"
                                              "F Edi S F Lon - Eng\nF Lon S F Edi - Nth\nA Lvp - Yor")
    assert line_of(ack, "F Edi S F Lon - Eng") == ("REJECTED : the fleet in Edinburgh cannot reach English Channel, "
                                                   "so it cannot support a move there")
    assert line_of(ack, "F Lon S F Edi - Nth") == "accepted = F LON S F EDI - NTH"
    assert line_of(ack, "A Lvp - Yor") == "accepted = A LVP - YOR"
    ack = game.say("france@players.example", "SIGNON France g1 pw-France\nA Mar S A Par - Pic")
    assert line_of(ack, "A Mar S A Par - Pic") == ("REJECTED : the army in Marseilles cannot reach Picardy, so it "
                                                   "cannot support a move there")
