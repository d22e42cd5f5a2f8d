"""njudge's sign-on habits: SIGNON M<game> is the GM's; every power's letter named when a letter
names none; what a sign-on naming no game or power may have meant; and a PRESS TO GM after a
sign-on that failed still reaches the GM, marked unverified and within its hourly budget."""
from __future__ import annotations

from sqlalchemy.orm import Session, sessionmaker

from desk import MASTER, Desk, address, new_game

from gm.mail.budget import UNVERIFIED_PRESS, UNVERIFIED_PRESS_PER_HOUR
from gm.games import power_letters
from gm.mail.commands.signon import letters_text
from gm.store.models import OutboundMail
from gm.variants import load_variant

AMBITION = ["Austria", "France", "Poland-Saxony", "Prussia", "Spain", "Sweden"]
AE_LETTERS = ("Austria (A), Denmark-Norway (D), France (F), Great Britain (G), Poland-Saxony (O), Prussia (U), "
              "Russia (R), Spain (I), Sweden (W), Turkey (T); the GM M")


def said(mail: OutboundMail) -> str:
    """A mail's text with its lines joined: what it says, however the text is wrapped."""
    return " ".join(mail.body_text.split())


def notice_to(desk: Desk, sender: str, body: str) -> str:
    """Mail `body` from `sender`; what the one mail the sender gets back says (a sign-on that failed: a notice)."""
    before = desk.last_mail_id()
    desk.send(sender, body)
    (mail,) = desk.mails(to=sender, since=before)
    return said(mail)


def test_signon_m_game_is_the_gms_sign_on(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory)
    out = desk.send(MASTER, "SIGNON Mg1 gm-pw\nPAUSE")
    ack = desk.ack(out, MASTER)
    assert "accepted  SIGNON Mg1 ********" in ack and "signed on as GM of g1" in ack and "accepted  PAUSE" in ack
    assert desk.audit("pause")[0].actor == MASTER
    ack = desk.ack(desk.send(MASTER, "SIGNON M g1 gm-pw\nRESUME"), MASTER)
    assert "signed on as GM of g1" in ack and "accepted  RESUME" in ack
    notice = notice_to(desk, MASTER, "SIGNON Mg1 wrong\nPROCESS")
    assert "wrong password for the GM in g1" in notice
    assert not desk.audit("process")


def test_m_is_the_gm_in_every_variant_and_each_power_has_a_letter_of_its_own() -> None:
    from gm.variants import REGISTRY

    for name in REGISTRY:
        variant = load_variant(name)
        letters = power_letters(variant)
        assert sorted(letters.values()) == sorted(variant.great_powers), name
        assert "M" not in letters, name
    # Classical: Macedon takes A; Ambition & Empire: the powers sharing P and S take letters of their own.
    assert power_letters(load_variant("classical"))["A"] == "Macedon"
    assert letters_text(load_variant("ambition")) == AE_LETTERS
    assert power_letters(load_variant("standard")) == {p[0]: p for p in load_variant("standard").great_powers}


def test_a_classical_game_signs_macedon_on_with_a_and_the_gm_with_m(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, "cl1", "classical", ["Carthage", "Macedon", "Rome"], start=False)
    out = desk.send(address("Macedon"), "SIGNON Acl1 pw\nHELP")
    assert "signed on as Macedon in cl1" in desk.ack(out, address("Macedon"))
    out = desk.send(MASTER, "SIGNON Mcl1 gm-pw\nHELP")
    assert "signed on as GM of cl1" in desk.ack(out, MASTER)


def test_a_letter_no_power_has_lists_the_letters(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, "ae1", "ambition", AMBITION, start=False)
    notice = notice_to(desk, address("Prussia"), "SIGNON Pae1 pw\nA Ber H")
    assert f"ae1 has no power of that letter: {AE_LETTERS}" in notice
    out = desk.send(address("Prussia"), "SIGNON Uae1 pw\nHELP")
    assert "signed on as Prussia in ae1" in desk.ack(out, address("Prussia"))
    out = desk.send(address("Poland-Saxony"), "SIGNON oae1 pw\nHELP")
    assert "signed on as Poland-Saxony in ae1" in desk.ack(out, address("Poland-Saxony"))
    out = desk.send(address("Sweden"), "SIGNON W ae1 pw\nHELP")  # the letter apart from the game
    assert "signed on as Sweden in ae1" in desk.ack(out, address("Sweden"))


def test_a_sign_on_to_no_game_or_power_names_what_it_may_have_meant(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, start=False)
    strangers = (f"someone{i}@else{i}.example" for i in range(10))  # each gets 3 notices an hour at most

    def told(body: str) -> str:
        return notice_to(desk, next(strangers), body)

    assert "there is no such game (LIST shows the games); the nearest: g1" in told("SIGNON France g2 pw")
    assert "g1 is a game: write SIGNON <power> g1 <password>" in told("SIGNON g1 France pw")
    said = told("SIGNON g1 pw")  # the power left out of njudge's form
    assert "g1 is a game: write SIGNON <power> g1 <password>, or SIGNON <letter>g1 <password> with a letter of " \
           "Austria (A), England (E), France (F)" in said
    said = told("SIGNON Atlantis g1 pw")
    assert "g1 has no such power: its powers are Austria, England, France, Germany, Italy, Russia, Turkey" in said
    assert "Atlantis" not in said  # nothing of what the mail said comes back to a sender who signed on to nothing
    assert "g1 has no such power: did you mean France?" in told("SIGNON Frankreich g1 pw")
    assert "usage: SIGNON MASTER <game> <password>" in told("SIGNON MASTER g1")


def test_press_to_gm_after_a_failed_sign_on_reaches_the_gm_marked_unverified(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, "ae1", "ambition", AMBITION, start=False)
    sender = address("Prussia")
    before = desk.last_mail_id()
    desk.send(sender, "SIGNON Pae1 pw\nPRESS TO GM\nI cannot sign on: what is my letter?\nENDPRESS\nA Ber H")
    (to_gm,) = desk.mails(kind=UNVERIFIED_PRESS, since=before)
    assert to_gm.to_addr == MASTER and to_gm.subject == f"[ae1] Press to the GM from an unverified sender ({sender})"
    body = said(to_gm)
    assert "ae1: press from an unverified sender to the GM" in body
    assert f"{sender}, UNVERIFIED: the mail's sign-on to ae1 failed (ae1 has no power of that letter:" in body
    assert "I cannot sign on: what is my letter?" in body and "A Ber H" not in body
    (notice,) = desk.mails(to=sender, since=before)  # the sender: the fixed notice, and where the press went
    assert "Press to the GM" in said(notice) and "goes to the GM of ae1 marked as from an unverified sender" \
        in said(notice)
    assert "what is my letter" not in said(notice)
    (entry,) = desk.audit("press from an unverified sender")
    assert entry.actor == sender and entry.detail == {"to": ["GM"], "lines": 1, "characters": 36}
    # Without any sign-on, PRESS TO GM names no game: nothing is sent.
    before = desk.last_mail_id()
    desk.send(sender, "PRESS TO GM\nhello\nENDPRESS")
    assert [m.to_addr for m in desk.mails(since=before)] == [sender]


def test_forged_press_to_gm_cannot_flood_the_gm(session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, start=False)
    before = desk.last_mail_id()
    for i in range(UNVERIFIED_PRESS_PER_HOUR + 4):
        desk.send(f"forger{i}@evil{i}.example", f"SIGNON France g1 guess{i}\nPRESS TO GM\nlet me in {i}\nENDPRESS")
    assert len(desk.mails(kind=UNVERIFIED_PRESS, to=MASTER, since=before)) == UNVERIFIED_PRESS_PER_HOUR


def test_a_wrong_password_and_the_right_one_look_the_same_to_a_sender_elsewhere(
        session_factory: sessionmaker[Session]) -> None:
    desk = new_game(session_factory, start=False)
    stranger = "someone@else.example"
    body = "SIGNON France g1 {}\nPRESS TO GM\nit is me, from another address\nENDPRESS"
    wrong = notice_to(desk, stranger, body.format("wrong"))
    right = notice_to(desk, stranger, body.format("pw"))
    assert wrong == right and "Press to the GM" not in wrong
    press = desk.mails(to=MASTER)
    assert [m.kind for m in press] == [UNVERIFIED_PRESS, "press"]
    assert "wrong password for France in g1" in said(press[0])
    assert f"France ({address('France')})" in said(press[1])
