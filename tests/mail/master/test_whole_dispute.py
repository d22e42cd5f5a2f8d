"""A whole dispute as a GM runs one, by mail on SQLite and PostgreSQL: seven players JOIN a standard
game, which starts; a mistyped order, the player's complaint to the GM, the GM's look at the orders
on file, a deadline put off; press of every kind; the phase rolled back and processed again with
the order the player meant; a player who vanishes goes into civil disorder and is replaced; the
position edited and reissued; and a draw the players propose and accept, which ends the game with
its summary. At each step: what each player and the GM get, and that nobody gets what is not his."""
from __future__ import annotations

import re
from datetime import timedelta

from sqlalchemy.orm import Session, sessionmaker

from desk import JUDGE, MASTER, STANDARD, Desk, address, new_game
from test_master_game import game_row
from test_master_views import section

from gm.games import active_players
from gm.scheduler import run_due
from gm.store.db import transaction
from gm.store.models import OutboundMail

PLAYERS = [address(p) for p in STANDARD]
EVERYONE = sorted([*PLAYERS, MASTER])
MISTYPED, MEANT = "F Bre - Gas", "F Bre - Eng"  # France's A Par - Gas bounces off its own fleet
SPRING = {
    "Austria": ["A Vie - Gal", "A Bud - Ser", "F Tri - Alb"],
    "England": ["F Lon - Nth", "F Edi - Nwg", "A Lvp - Yor"],
    "France": ["A Par - Gas", "A Mar H", MISTYPED],
    "Germany": ["A Ber - Kie", "F Kie - Den", "A Mun - Ruh"],
    "Italy": ["A Ven H", "A Rom - Apu", "F Nap - Ion"],
    "Russia": ["A Mos - Ukr", "A War - Gal", "F Sev - Bla", "F StP/SC - Bot"],
    "Turkey": ["A Con - Bul", "A Smy - Con", "F Ank - Bla"],
}
FALL = {  # Italy's player has vanished: no orders from Italy
    "Austria": ["A Vie H", "A Ser H", "F Alb - Gre"],
    "England": ["F Nth - Nwy", "F Nwg H", "A Yor H"],
    "France": ["A Gas - Spa", "A Mar H", "F Eng H"],
    "Germany": ["A Kie - Hol", "F Den H", "A Ruh H"],
    "Russia": ["A Ukr - Rum", "A War H", "F Sev H", "F Bot - Swe"],
    "Turkey": ["A Bul H", "A Con H", "F Ank H"],
}


def mails(desk: Desk, since: int, kind: str | None = None) -> dict[str, list[OutboundMail]]:
    """Address -> the mails of `kind` (all but acknowledgements when None) queued since `since`."""
    out: dict[str, list[OutboundMail]] = {}
    for m in desk.mails(since=since, kind=kind):
        if kind is None and m.kind == "ack":
            continue
        out.setdefault(m.to_addr, []).append(m)
    return out


def at_deadline(desk: Desk) -> None:
    """The scheduler's round just after the deadline of the phase under way."""
    with transaction(desk.sf) as s:
        deadline = desk.row(s).deadline_at
    assert deadline is not None
    run_due(desk.sf, gm_address=JUDGE, now=deadline + timedelta(seconds=1))


def no_other_orders(desk: Desk, since: int, orders: dict[str, list[str]]) -> None:
    """No mail to a player since `since` shows another power's orders on file, nor is a GM copy."""
    for m in desk.mails(since=since):
        if m.to_addr == MASTER or m.kind == "results":
            continue
        assert "GM copy" not in m.subject and "copy for the GM" not in m.body_text, (m.to_addr, m.subject)
        assert "Orders on file for" not in m.body_text, (m.to_addr, m.subject)
        mine = next((p for p in STANDARD if address(p) == m.to_addr), None)
        for power, lines in orders.items():
            if power != mine:
                for line in lines:
                    if " - " in line:  # a hold may be anyone's default; a move is one power's
                        assert line.upper() not in m.body_text, (m.to_addr, m.subject, line)


def test_a_whole_dispute_from_the_first_join_to_the_final_summary(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, powers=[], start=False)
    ack = desk.master("SET OPTION draw dias\nSET OPTION late_limit 1\nSET PRESS GREY")
    assert ack.count("accepted") == 4 and "REJECTED" not in ack

    # 1. Seven players JOIN, each confirming with the code mailed to it; the seventh starts the game.
    for n, power in enumerate(STANDARD, 1):
        before = desk.last_mail_id()
        out = desk.join(address(power), power)
        ack = desk.ack(out, address(power))
        if n < 7:
            assert f"you play {power} in g1 ({n} of 7 powers taken)" in ack
            assert [m.kind for m in desk.mails(since=before)] == ["confirm", "ack"]
    assert "every power is taken: the game starts with Spring 1901, Movement" in ack
    start = mails(desk, before, "start")
    assert sorted(start) == EVERYONE and all(len(m) == 1 for m in start.values())
    for power in STANDARD:
        (mail,) = start[address(power)]
        assert mail.subject == f"[g1] The game starts: you play {power}"
        assert f"You play {power}." in mail.body_text
        assert f"\n  SIGNON {power} g1 <password>\n" in mail.body_text
        assert "Civil disorder: after the first deadline missed\n" in mail.body_text and "Press: grey" in mail.body_text
        assert "a draw includes every surviving power (DIAS)" in " ".join(mail.body_text.split())
    assert start[MASTER][0].subject == "[g1] The game starts"
    assert desk.phase_label() == "Spring 1901, Movement"

    # 2. Spring 1901: everyone orders, France mistyping its fleet's order, and complaining to the GM.
    before = desk.last_mail_id()
    for power, lines in SPRING.items():
        ack = desk.player(power, "\n".join(lines))
        assert "REJECTED" not in ack and ack.count("accepted") == len(lines) + 1
        assert "Orders on file:\n" + "".join(f"  {line.upper()}\n" for line in lines) in ack + "\n"
    assert not desk.mails(since=before, kind="results")
    before = desk.last_mail_id()
    ack = desk.player("France", "PRESS TO GM\nMy fleet was to go to the English Channel, not Gascony.\nENDPRESS")
    assert "accepted  PRESS TO GM\n            = sent to the GM of g1 (1 line)" in ack
    assert sorted(mails(desk, before)) == [MASTER]  # the GM alone
    (complaint,) = mails(desk, before)[MASTER]
    assert complaint.subject == "[g1] Press to the GM from France"
    assert "sent by France (france@players.example)" in complaint.body_text
    # The GM looks at every power's orders on file: the acknowledgement of a LIST shows them.
    ack = desk.master("LIST")
    listed = ack.split("Orders on file for Spring 1901, Movement:\n", 1)[1]
    for power, lines in SPRING.items():
        assert f"  {power}:".ljust(12) + lines[0].upper() in listed
        assert all(line.upper() in listed for line in lines)
    # Put off, paused and resumed in one mail: one notice to each player and the GM.
    before = desk.last_mail_id()
    ack = desk.master("EXTEND 24h\nPAUSE\nRESUME")
    assert ack.count("accepted") == 4 and "REJECTED" not in ack
    notices = mails(desk, before)
    assert sorted(notices) == EVERYONE and all(len(m) == 1 for m in notices.values())
    for to, (notice,) in notices.items():
        assert notice.kind == "announcement" and notice.subject.startswith("[g1] Deadline moved: Spring 1901")
        text = notice.body_text
        said = [text.index(s) for s in ("The GM put it off by 1d", "The GM paused the game",
                                        "The GM resumed the game")]
        assert said == sorted(said)  # in the order the GM wrote them
        # The subject ends as the mail left the game: running again.
        assert notice.subject == "[g1] Deadline moved: Spring 1901; The game is paused; The game runs again: Spring 1901"
        assert "The GM resumed the game after a pause: the deadline stands." in text
    with transaction(desk.sf) as s:
        assert desk.row(s).paused_at is None

    # 3. Press of each kind: each reaches its addressees (and a copy the GM), nobody else.
    before = desk.last_mail_id()
    ack = desk.player("England", "PRESS TO France\nShall we share the Channel?\nENDPRESS\n"
                                 "BROADCAST\nPeace in our time.\nENDPRESS\n"
                                 "PRESS TO Germany GREY\nWatch Russia.\nENDPRESS\n"
                                 "PRESS TO GM\nFrance is whining.\nENDPRESS")
    assert "relayed to France (1 line)" in ack
    assert "relayed to Austria, France, Germany, Italy, Russia, Turkey (1 line)" in ack
    assert "relayed to Germany as anonymous press (1 line)" in ack
    assert "sent to the GM of g1 (1 line)" in ack
    press = mails(desk, before, "press")
    assert sorted(press) == sorted([*(a for a in PLAYERS if a != address("England")), MASTER])
    read = {to: "\n".join(m.body_text for m in ms) for to, ms in press.items()}
    for to, text in read.items():
        assert ("Shall we share the Channel?" in text) == (to in (address("France"), MASTER))
        assert "Peace in our time." in text and "press from England to every power" in text
        assert ("Watch Russia." in text) == (to in (address("Germany"), MASTER))
        assert ("France is whining." in text) == (to == MASTER)
        assert ("england@players.example" in text) == (to == MASTER)  # PRESS TO GM names the sender
    assert "press from anonymous to Germany" in read[address("Germany")]
    assert "England" not in read[address("Germany")].split("press from anonymous to Germany", 1)[1]
    assert "sent by England, as anonymous press" in read[MASTER]
    no_other_orders(desk, 0, SPRING)

    # 4. The deadline: results with France's mistake; the GM rolls back, enters the order France
    # meant, previews, and processes the phase by name; everyone gets the corrected results.
    before = desk.last_mail_id()
    at_deadline(desk)
    first = mails(desk, before, "results")
    assert sorted(first) == EVERYONE
    (wrong,) = first[address("France")]
    assert wrong.subject == "[g1] Spring 1901 results"
    assert re.search(r"F BRE - GAS\s+fails", wrong.body_text) and re.search(r"A PAR - GAS\s+fails", wrong.body_text)
    assert desk.phase_label() == "Fall 1901, Movement"
    before = desk.last_mail_id()
    ack = desk.master(f"ROLLBACK\nORDER France {MEANT}\nPREVIEW")
    assert "accepted  ROLLBACK" in ack and f"accepted  ORDER France {MEANT}" in ack and "accepted  PREVIEW" in ack
    assert "= France: F BRE - ENG (entered by the GM)" in ack
    told = mails(desk, before, "announcement")
    assert sorted(told) == EVERYONE and all(m[0].subject == "[g1] Game rolled back by the GM" for m in told.values())
    assert "The GM has rolled the game back to the start of Spring 1901, Movement: the results of Spring 1901, " \
           "Movement no longer stand, and new results will replace them." in told[address("Turkey")][0].body_text
    (preview,) = desk.mails(kind="preview", since=before)
    assert preview.to_addr == MASTER and preview.subject.startswith("[g1] PREVIEW, nothing kept")
    assert re.search(r"F BRE - ENG\s+succeeds \(entered by the GM\)", preview.body_text)
    assert desk.phase_label() == "Spring 1901, Movement" and not desk.mails(kind="results", since=before)
    assert "REJECTED  PROCESS Fall 1901" in desk.master("PROCESS Fall 1901")
    assert desk.phase_label() == "Spring 1901, Movement"  # the guard: only the phase under way
    before = desk.last_mail_id()
    ack = desk.master("PROCESS Spring 1901")
    assert "accepted  PROCESS Spring 1901" in ack and "now Fall 1901, Movement" in ack
    corrected = mails(desk, before, "results")
    assert sorted(corrected) == EVERYONE and all(len(m) == 1 for m in corrected.values())
    for to, (mail,) in corrected.items():
        assert mail.subject == "[g1] Correction: Spring 1901 results" + (" (GM copy)" if to == MASTER else "")
        assert mail.body_text.splitlines()[1].startswith("CORRECTION: these results replace")
        assert "CORRECTION: these results replace those mailed earlier for Spring 1901, Movement" in " ".join(
            mail.body_text.split())  # wrapped to a phone's width
        assert re.search(r"F BRE - ENG\s+succeeds \(entered by the GM\)", mail.body_text)
        assert re.search(r"A PAR - GAS\s+succeeds", mail.body_text)
    assert [e.action for e in desk.audit() if e.actor == MASTER][-4:] == ["rollback", "order", "preview", "process"]

    # 5. Italy's player vanishes: no orders in Fall 1901; at the deadline Italy goes into civil
    # disorder (the house rule: after one deadline missed).
    for power, lines in FALL.items():
        assert "REJECTED" not in desk.player(power, "\n".join(lines))
    before = desk.last_mail_id()
    at_deadline(desk)
    fall = mails(desk, before, "results")
    assert sorted(fall) == EVERYONE
    for to, (mail,) in fall.items():
        assert "Late (missed the deadline): Italy\nNow in civil disorder: Italy" in mail.body_text
        # one line for every unit that held without an order
        assert re.search(r"Held without orders: [^;]*Italy [^;]*A VEN", " ".join(mail.body_text.split()))
    assert desk.phase_label() == "Winter 1901, Adjustment"
    assert "accepted  PROCESS" in desk.master("PROCESS")  # the builds: nobody owed by then is late
    assert desk.phase_label() == "Spring 1902, Movement"
    with transaction(desk.sf) as s:
        italy = next(p for p in active_players(s, desk.row(s)) if p.power == "Italy")
        assert italy.civil_disorder

    # The GM gives Italy a new player: the new address alone gets the password, the position, what
    # is due and how to sign on; the others are told Italy has a new player.
    new = "newitaly@players.example"
    before = desk.last_mail_id()
    ack = desk.master(f"REPLACE Italy {new}")
    assert f"accepted  REPLACE Italy {new}" in ack and f"{new} plays Italy in place of {address('Italy')}" in ack
    news = mails(desk, before)
    assert sorted(news) == sorted([new, *EVERYONE])
    (welcome,) = news[new]
    assert welcome.subject == "g1: you play Italy"
    password = re.search(r"Your password: (\S+)", welcome.body_text).group(1)  # type: ignore[union-attr]
    assert "  SIGNON Italy g1 <password>\n" in welcome.body_text and f"SIGNON Italy g1 {password}" not in \
        welcome.body_text
    assert "g1 is in Spring 1902, Movement; the deadline is " in welcome.body_text
    assert "Due from Italy now: A APU, A VEN, F ION." in welcome.body_text
    assert "Italy: A APU, A VEN, F ION; centres: Naples, Rome, Venice" in welcome.body_text
    assert "Russia: A RUM, A WAR, F SEV, F SWE; centres:" in welcome.body_text
    assert "The last results, as they were mailed to Italy:" in welcome.body_text
    assert welcome.attachments and welcome.attachments[0]["map"]["kind"] == "position"
    for to in EVERYONE:
        (told,) = news[to]
        assert "Italy has a new player, chosen by the GM." in told.body_text and password not in told.body_text
        assert new not in told.body_text
    with transaction(desk.sf) as s:
        italy = next(p for p in active_players(s, desk.row(s)) if p.power == "Italy")
        assert italy.email == new and not italy.civil_disorder  # the new player is out of civil disorder
    # The player who vanished comes back too late: told he plays Italy no more, and nothing else.
    before = desk.last_mail_id()
    desk.send(address("Italy"), "SIGNON Italy g1 pw\nA Ven - Tyr")
    (answer,) = desk.mails(since=before)
    assert answer.to_addr == address("Italy") and "you no longer play Italy in g1 (replaced on " in answer.body_text
    assert "A Ven - Tyr" not in answer.body_text
    # The new player signs on with the password and orders.
    out = desk.send(new, f"SIGNON Italy g1 {password}\nA Ven H\nA Apu H")
    ack = desk.ack(out, new)
    assert "signed on as Italy in g1" in ack and "accepted  A Ven H" in ack
    assert "Units still without orders: F ION" in ack

    # 6. The GM edits the position and reissues it: every player gets the corrected position.
    ack = desk.master("REMOVE UNIT Ion\nSET UNIT Italy F Tys\nSET OWNER Tun Italy")
    assert ack.count("accepted") == 4 and "REJECTED" not in ack
    before = desk.last_mail_id()
    ack = desk.master("REISSUE")
    assert "the corrected position of Spring 1902, Movement (3 changes) went to every player and GM" in ack
    reissued = mails(desk, before)
    assert sorted(reissued) == sorted([new, *(a for a in EVERYONE if a != address("Italy"))])
    for to, (mail,) in reissued.items():
        assert mail.kind == "correction"
        copy = " (GM copy)" if to == MASTER else ""
        assert mail.subject == f"[g1] GM correction: the position in Spring 1902{copy}"
        assert mail.body_text.splitlines()[1] == ("GM CORRECTION: the GM has corrected the position of g1 (Diplomacy "
                                                  "(standard map)) at the start of Spring 1902, Movement.")
        assert "  F Ionian Sea (Italy) taken off the board\n  F Tyrrhenian Sea (Italy) set on the board\n" \
               "  Tunis now owned by Italy (was nobody's)\n" in mail.body_text
        assert "Italy:\n  units:     A APU, A VEN, F TYS\n  centres:   Naples, Rome, Tunis, Venice" in mail.body_text
        assert mail.attachments and mail.attachments[0]["map"]["kind"] == "position"

    # 7. A draw (house rule draw = dias): France proposes it, every other power accepts; the game
    # ends, and every player and the GM get the end with the centres year by year.
    before = desk.last_mail_id()
    ack = desk.player("France", "PROPOSE DRAW")
    assert "you propose a draw between Austria, England, France, Germany, Italy, Russia, Turkey and accept it; " \
           "6 other powers are asked" in ack
    asked = mails(desk, before)
    assert sorted(asked) == sorted([new, *(a for a in EVERYONE if a not in (address("France"), address("Italy")))])
    assert "France proposes a draw" in asked[MASTER][0].body_text
    assert all("France" not in m[0].body_text.replace("Austria, England, France, Germany", "")
               for to, m in asked.items() if to != MASTER)  # who proposed it: the GM's alone
    for power in ("Austria", "England", "Germany", "Russia", "Turkey"):
        assert "accepted  ACCEPT DRAW" in desk.player(power, "ACCEPT DRAW")
    assert game_row(desk)[0] == "active"
    before = desk.last_mail_id()
    out = desk.send(new, f"SIGNON Italy g1 {password}\nACCEPT DRAW")
    ack = desk.ack(out, new)
    drawn = "drawn between Austria, England, France, Germany, Italy, Russia, Turkey"
    assert f"every surviving power has accepted: g1 is {drawn}" in ack
    assert f"Italy in g1: the game is over ({drawn})." in ack and "Winter" not in ack and "Orders on file" not in ack
    assert game_row(desk)[:2] == ("finished", drawn)
    ended = mails(desk, before)
    assert sorted(ended) == sorted([new, *(a for a in EVERYONE if a != address("Italy"))])
    for to, (mail,) in ended.items():
        assert mail.subject == "[g1] The game is drawn"
        text = mail.body_text
        assert f"Every surviving power has accepted the draw a player proposed: the game is over, {drawn}." \
            in " ".join(text.split())  # its prose wrapped to a phone's width
        assert "The final position (Spring 1902):\n  Russia                6 centres,  4 units\n" in text
        assert "  Italy                 4 centres,  3 units" in text
        assert text.split("Supply centres, year by year:\n", 1)[1].splitlines()[:3] == [
            "       Austria  England  France  Germany  Italy  Russia  Turkey",
            "start        3        3       3        3      3       4       3",
            "1901         5        4       4        5      3       6       4",
        ]
        # the map of the final position, as the results mail that ends a won game has
        assert [a["map"]["kind"] for a in mail.attachments] == ["final"]
        assert "The map of the final position is attached." in text

    # Afterwards MAP and SUMMARY still answer, and an acknowledgement names no phase.
    ack = desk.player("Germany", "MAP\nSUMMARY")
    assert "REJECTED" not in ack
    assert f"accepted  MAP\n            = the final position ({drawn}): the map is attached " \
           "(g1-final-position.png)" in ack
    summary = section(ack, "Summary of g1")
    assert summary.startswith(f"The final position ({drawn}), Spring 1902, Movement")
    assert "  Italy: A APU, A VEN, F TYS; 4 centres (NAP, ROM, TUN, VEN)" in summary
    assert f"Germany in g1: the game is over ({drawn})." in ack
    assert "Spring 1902" not in ack.replace("), Spring 1902, Movement", "") and "Units still without orders" not in ack
    no_other_orders(desk, 0, {**SPRING, "France": [*SPRING["France"], MEANT]})
