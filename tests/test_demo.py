"""`gm demo --variant V`, one game year of each variant: `gm serve` in a child process, a scripted
player per great power and the GM, all by mail; the variant's special orders mailed and accepted,
the game ended as real games of the variant end, and what it leaves behind (the database, the
.eml files, the summary)."""
from __future__ import annotations

import email
import email.policy
import re
import sqlite3
from pathlib import Path

import pytest

from gm.cli import VARIANTS, main
from gm.demo import DEFAULT_VARIANT, MASTER, SCRIPTS
from gm.demo.driver import make_plan
from gm.demo.players import LANGUAGES
from gm.i18n import _, language_name, translated
from gm.view.results import phase_words
from gm.demo.mailbox import DemoFailed
from gm.variants import REGISTRY, SHIPPED, load_variant

# What each variant's year must show among the orders the GM accepted, as the players wrote them.
SPECIAL = {
    "standard": [r"[AF] \S+ S "],  # no special orders: supports
    "classical": [r"[AF] \S+ S "],
    "ambition": [r"DP \d+ "],
    "ambition-v6": [r"DP \d+ "],
    "napoleonic": [r"IP \d+ ", r"LOAN \d+ ", r"F \S+ (- \S+ - |.* THEN )", r".* MERGE$"],
    "1700ad": [r".*\(x2\)", r"(CXII|MARL|EUG|VILL|PTR|BERW|SCHU) ", r"PERMIT "],
    "youngstown": [r"[AF] \S+ S "],  # imported from DPjudge's map: the standard rules
}
SEED = 8  # a year of each variant's random orders with every kind above (a loan needs Supply Points banked)


def test_every_variant_has_a_demo() -> None:
    assert set(SCRIPTS) == set(REGISTRY) == set(SPECIAL)
    assert VARIANTS == ", ".join(REGISTRY)  # what `gm demo --help` and `gm game new --help` list


def test_each_game_is_planned_to_end_as_its_variant_ends() -> None:
    ad1700, napoleonic = SCRIPTS["1700ad"], SCRIPTS["napoleonic"]
    plan = make_plan(load_variant("1700ad"), ad1700, ad1700.years)  # 1700 to 1713, as the rules end it
    assert (plan.first_year, plan.last_year, plan.jump_to, plan.stop_year) == (1700, 1713, None, None)
    plan = make_plan(load_variant("1700ad"), ad1700, 15)  # longer: Nystad, starting later
    assert (plan.first_year, plan.last_year, plan.jump_to) == (1707, 1721, 1707)
    with pytest.raises(DemoFailed, match="1700AD II ends in 1713 or 1721: at most 22 years"):
        make_plan(load_variant("1700ad"), ad1700, 23)
    plan = make_plan(load_variant("napoleonic"), napoleonic, 2)  # the bids of Winter 1800 first
    assert (plan.first_year, plan.stop_year, plan.last_year) == (1801, 1803, None)


def test_a_demo_that_cannot_be_played_says_why_in_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--variant", "1700AD-II", "--years", "23", "--out", str(tmp_path)]) == 2
    assert capsys.readouterr().err == "gm demo: 1700AD II ends in 1713 or 1721: at most 22 years\n"
    assert not any(tmp_path.iterdir())  # nothing made
    with pytest.raises(SystemExit):
        main(["demo", "--variant", "diplomacy"])
    assert "argument --variant: unknown variant 'diplomacy'; known: 1700ad, ambition," in capsys.readouterr().err


# The variants shipped with their own rules. An imported variant (Youngstown) plays the standard
# rules, which the standard demo plays; its board and its mail are tested with the imports
# (tests/variants/test_import_youngstown.py, test_import_cli.py), its art with every variant's.
@pytest.mark.parametrize("variant", list(SHIPPED))
@pytest.mark.long
def test_a_demo_year_by_mail_to_the_end(variant: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    chosen = [] if variant == DEFAULT_VARIANT else ["--variant", variant]  # scripts/demo's game by default
    assert main(["demo", *chosen, "--years", "1", "--seed", str(SEED), "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    db = sqlite3.connect(tmp_path / "data" / "gm.sqlite3")
    great = load_variant(variant).great_powers

    # Every player joined by mail and mailed orders; the variant's special orders among them, accepted.
    players = dict(db.execute("SELECT email, power FROM players WHERE power IS NOT NULL"))
    assert sorted(players.values()) == sorted(great)
    senders = {row[0] for row in db.execute("SELECT sender FROM inbound_mail")}
    assert senders == set(players) | {MASTER}
    lines = [text for (text,) in db.execute("SELECT text FROM orders UNION ALL SELECT text FROM secret_allocations")]
    for pattern in SPECIAL[variant]:
        assert any(re.match(pattern, line, re.IGNORECASE) for line in lines), pattern

    # Secrets stayed with their owners: an allocation, bid or loan is mailed to the powers that
    # wrote it and the GM, nobody else.
    secret: dict[str, set[str]] = {}
    for text, power in db.execute("SELECT canonical, power FROM secret_allocations"):
        secret.setdefault(text, set()).add(power)
    shown = 0
    for to, body in db.execute("SELECT to_addr, body_text FROM outbox WHERE kind = 'results'"):
        if to == MASTER:
            continue
        assert "GM only" not in body
        for text, owners in secret.items():
            if re.search(rf"^  {re.escape(text)} ", body, re.MULTILINE):
                assert players[to] in owners, (to, text)
                shown += 1
    assert bool(shown) == bool(secret)  # each player saw its own

    # The game ended as the variant's games end, and the end mail went to every player and the GM.
    status, outcome, finished = db.execute("SELECT status, outcome, finished_at FROM games").fetchone()
    assert status == "finished"
    end = db.execute("SELECT to_addr, kind, subject, body_text, sent_at FROM outbox WHERE created_at >= ? "
                     "AND kind IN ('announcement', 'results')", (finished,)).fetchall()
    assert {row[0] for row in end} == set(players) | {MASTER} and all(row[4] for row in end)
    if SCRIPTS[variant].ending == "draw":
        assert outcome == f"drawn between {', '.join(great)}"  # nobody is out after a year
        for to, _kind, subject, body, _sent in end:  # each in its reader's language
            language = LANGUAGES.get(players.get(to, ""), "en")
            assert subject == "[demo] " + translated(_("The game is drawn"), language)
            assert translated(_("The final position ({when}):", when=""), language).split("(")[0] in body
        # The GM paused the game and proposed the draw by mail; every player accepted it by mail.
        votes = db.execute("SELECT count(*) FROM audit_log WHERE action = 'accept draw'").fetchone()[0]
        assert votes == len(players)
        assert db.execute("SELECT count(*) FROM audit_log WHERE action IN ('pause', 'draw')").fetchone()[0] == 2
    else:  # 1700AD II: the GM's last year, 1713, with the year moved on for a one-year game
        assert re.fullmatch(r"won by \S+, ahead when the game ended in 1713|ended in 1713 with no power ahead", outcome)
        assert [label for (label,) in db.execute("SELECT label FROM phases")] == ["Year 1713"]
        assert all(": game over" in subject and "The game is over: " in body for _to, _kind, subject, body, _sent in end)
    assert db.execute("SELECT count(*) FROM outbox WHERE sent_at IS NULL").fetchone()[0] == 0

    # Every mail as an .eml file; the summary says how the game ended and where its end mail is.
    inbound = sorted((tmp_path / "mail" / "in").glob("*.eml"))
    outbound = sorted((tmp_path / "mail" / "out").glob("*.eml"))
    assert len(inbound) == db.execute("SELECT count(*) FROM inbound_mail").fetchone()[0]
    assert len(outbound) == db.execute("SELECT count(*) FROM outbox").fetchone()[0]
    summary = out.split("Summary", 1)[1]
    assert f"How the game ended: {outcome}" in summary
    named = re.search(r"one of them: (\S+\.eml)", summary)
    assert named is not None
    final = email.message_from_bytes(Path(named.group(1)).read_bytes(), policy=email.policy.default)
    assert final["To"] in players and final["Subject"] == next(row[2] for row in end if row[0] == final["To"])
    assert final["List-Id"] == '"gm game demo" <demo.games.judge.example>'  # as the outbox sent it
    assert "Special orders the GM accepted: " in summary and str(tmp_path / "mail") in summary
    # and the game's web pages beside the mail, gm serve's, their index named
    index = tmp_path / "pages" / "index.html"
    assert f"The game's web pages (every phase's orders, results and maps; no secret): {index}" in summary
    assert index.exists() and (tmp_path / "pages" / "games" / "demo" / "index.html").exists()
    # France's player read the judge in French and wrote French order words, every line taken.
    for power, language in LANGUAGES.items():
        if power not in great:
            continue
        address = next(a for a, p in players.items() if p == power)
        subjects = [s for (s,) in db.execute("SELECT subject FROM outbox WHERE to_addr = ? AND kind = 'results'",
                                             (address,))]
        labels = [label for (label,) in db.execute("SELECT label FROM phases")]
        # '[demo] Printemps 1763 : résultats': every results mail named its phases in French words
        assert subjects and all(any(translated(phase_words(label), language) in subject for label in labels)
                                for subject in subjects)
        assert f"{power}'s player reads every mail in {language_name(language, 'en')}" in summary
        assert not [r for r in re.findall(r"Order lines the GM rejected otherwise: .*", summary) if power in r]
    if variant == DEFAULT_VARIANT:
        default_demo(tmp_path, db, out)


def default_demo(tmp_path: Path, db: sqlite3.Connection, out: str) -> None:
    """The default demo's game, Ambition & Empire: phases end early and at their deadline, the GM
    greets the players, results reach every player and the GM."""
    phases = db.execute("SELECT label, opened_at, deadline_at, adjudicated_at FROM phases ORDER BY seq").fetchall()
    labels = [p[0] for p in phases]
    assert labels[:2] == ["Spring 1763, Movement", "Fall 1763, Movement"] and labels[-1] == "Spring 1764, Movement"
    played = [p for p in phases if p[3] is not None]
    # Both ways a phase ends: early, once every order is in, and at the deadline (Austria leaves
    # a unit without orders in the Fall, on purpose).
    assert any(adjudicated < deadline for _, _, deadline, adjudicated in played)
    fall = next(p for p in played if p[0] == "Fall 1763, Movement")
    assert fall[3] >= fall[2]
    assert "Fall 1763, Movement: Austria leaves" in out
    # The GM signed on by mail and greeted every player (press to all), never naming an address.
    press = db.execute("SELECT to_addr, body_text FROM outbox WHERE kind = 'press'").fetchall()
    assert len(press) == 10 and all("Welcome to the demonstration game" in text for _, text in press)
    assert not any(MASTER in text for _, text in press)
    results = db.execute("SELECT count(*) FROM outbox WHERE kind = 'results'").fetchone()[0]
    assert results >= 11 * 2
    outbound = sorted((tmp_path / "mail" / "out").glob("*.eml"))
    gm_copy = next(p for p in outbound if p.name.endswith("-to-gm-master-results.eml"))
    msg = email.message_from_bytes(gm_copy.read_bytes(), policy=email.policy.default)
    assert msg["To"] == MASTER and msg.get_content_type() == "multipart/alternative"
    assert "Spring 1763" in str(msg["Subject"])
    orders = email.message_from_bytes(next(p for p in sorted((tmp_path / "mail" / "in").glob("*.eml"))
                                           if "SIGNON" in p.read_text()).read_bytes(), policy=email.policy.default)
    assert orders.get_body(preferencelist=("plain",)).get_content().startswith("SIGNON ")  # type: ignore[union-attr]
    summary = out.split("Summary", 1)[1]
    assert "Phases played:" in summary and "Mails in:" in summary and "Mails out:" in summary
    assert "Supply centres, Spring 1764:" in summary and "Great Britain" in summary
