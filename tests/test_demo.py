"""`gm demo`, one game year of it: `gm serve` in a child process, ten players by mail, and what
it leaves behind (the database, the .eml files, the summary)."""
from __future__ import annotations

import email
import email.policy
import sqlite3
from pathlib import Path

import pytest

from gm.cli import main
from gm.demo import MASTER


def test_demo_plays_a_year_by_mail(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--years", "1", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out

    db = sqlite3.connect(tmp_path / "data" / "gm.sqlite3")
    phases = db.execute("SELECT label, opened_at, deadline_at, adjudicated_at FROM phases ORDER BY seq").fetchall()
    labels = [p[0] for p in phases]
    assert labels[0] == "Spring 1763, Movement" and "Fall 1763, Movement" in labels
    played = [p for p in phases if p[3] is not None]
    assert labels[len(played)] == "Spring 1764, Movement"  # open when the demo stopped
    # Both ways a phase ends: early, once every order is in, and at the deadline (Austria leaves
    # a unit without orders in the Fall, on purpose).
    assert any(adjudicated < deadline for _, _, deadline, adjudicated in played)
    fall = next(p for p in played if p[0] == "Fall 1763, Movement")
    assert fall[3] >= fall[2]
    assert "Fall 1763, Movement: Austria leaves" in out

    # Every player joined by mail and mailed orders, secret allocations among them.
    senders = {row[0] for row in db.execute("SELECT sender FROM inbound_mail")}
    assert len(senders - {MASTER}) == 10
    # The GM signed on by mail and greeted every player (press to all), never naming an address.
    press = db.execute("SELECT to_addr, body_text FROM outbox WHERE kind = 'press'").fetchall()
    assert len(press) == 10 and all("Welcome to the demonstration game" in text for _, text in press)
    assert not any(MASTER in text for _, text in press)
    assert db.execute("SELECT count(*) FROM secret_allocations").fetchone()[0] > 0
    # Results of every phase to each player and to the GM, all sent.
    results = db.execute("SELECT count(*) FROM outbox WHERE kind = 'results'").fetchone()[0]
    assert results >= 11 * 2
    assert db.execute("SELECT count(*) FROM outbox WHERE sent_at IS NULL").fetchone()[0] == 0

    # Every mail as an .eml file.
    inbound = sorted((tmp_path / "mail" / "in").glob("*.eml"))
    outbound = sorted((tmp_path / "mail" / "out").glob("*.eml"))
    assert len(inbound) == db.execute("SELECT count(*) FROM inbound_mail").fetchone()[0]
    assert len(outbound) == db.execute("SELECT count(*) FROM outbox").fetchone()[0]
    assert inbound[0].name.endswith(".eml") and "-from-" in inbound[0].name
    gm_copy = next(p for p in outbound if p.name.endswith("-to-gm-master-results.eml"))
    msg = email.message_from_bytes(gm_copy.read_bytes(), policy=email.policy.default)
    assert msg["To"] == MASTER and msg.get_content_type() == "multipart/alternative"
    assert "Spring 1763" in str(msg["Subject"])
    orders = email.message_from_bytes(next(p for p in inbound if "SIGNON" in p.read_text()).read_bytes(),
                                      policy=email.policy.default)
    assert orders.get_body(preferencelist=("plain",)).get_content().startswith("SIGNON ")  # type: ignore[union-attr]

    # The summary.
    summary = out.split("Summary", 1)[1]
    assert "Phases played:" in summary and "Mails in:" in summary and "Mails out:" in summary
    assert "Supply centres, Spring 1764:" in summary and "Great Britain" in summary
    assert str(tmp_path / "mail") in summary
