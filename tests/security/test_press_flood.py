"""Press has a budget of its own: one mail's press to one player is one mail, a power sends a
bounded number of press an hour, and the rival's own acknowledgements are never withheld."""
from __future__ import annotations

from desk import Desk, address
from gm.mail import budget


def press(n: int, to: str = "England") -> str:
    return "\n".join(f"PRESS TO {to}\nmessage {i}: an alliance?\nENDPRESS" for i in range(n))


def test_a_flood_of_press_to_one_rival_is_one_mail_and_bounded(desk: Desk) -> None:
    ack = desk.player("France", press(70))
    assert ack.count("relayed to England") == budget.PRESS_PER_MAIL
    assert ack.count(f"at most {budget.PRESS_PER_MAIL} press a mail") == 70 - budget.PRESS_PER_MAIL
    (mail,) = desk.mails(to=address("England"), kind="press")
    assert all(f"message {i}:" in mail.body_text for i in range(budget.PRESS_PER_MAIL))
    assert f"message {budget.PRESS_PER_MAIL}:" not in mail.body_text
    # England's own mail is answered as ever.
    assert "accepted  F Lon - Nth" in desk.player("England", "F Lon - Nth")


def test_a_power_sends_a_bounded_number_of_press_an_hour(desk: Desk) -> None:
    sent = 0
    while sent < budget.PRESS_PER_HOUR:
        desk.player("France", press(budget.PRESS_PER_MAIL, to="Germany"))
        sent += budget.PRESS_PER_MAIL
    ack = desk.player("France", press(1, to="Italy"))
    assert f"France has sent {budget.PRESS_PER_HOUR} press in the last hour" in ack
    assert not desk.mails(to=address("Italy"), kind="press")
    assert "relayed to Italy" in desk.player("Germany", press(1, to="Italy"))  # others are not held up
    # The GM's press is never counted.
    assert "relayed to" in desk.master(press(1, to="France"))
