"""Which mail addresses may play a power or run a game: one rule for the address a player JOINs
from, the one a GM gives in REPLACE or PROMOTE, a player's SET ADDRESS and a CREATE's sender.

An address passes when the judge can mail it and read its answers: one well-formed address
(a display name around it is dropped), not the judge's own, and not one whose mail the judge
takes for a machine's (mailer-daemon, no-reply: see gm.mail.intake.message), which it never reads.
Reserved names for test and private networks (players.test) pass, as a JOIN from them does;
names that can never be mailed (.invalid, .localhost, a bare host name, an IP address) do not."""
from __future__ import annotations

from email.utils import parseaddr

from email_validator import EmailNotValidError, validate_email

from gm.mail.intake.message import machine_address


class AddressError(ValueError):
    """Why an address may not be a player's or a GM's, in the judge's words."""


def player_address(written: str, gm_address: str) -> str:
    """The address `written` names ('a@b.example' or 'Name <a@b.example>'), as the judge keeps
    it (lower case); AddressError says why it may not play or run a game."""
    spec = parseaddr(written)[1].strip() or written.strip()
    try:
        # test_environment: a name under .test is a name like any other here (a JOIN comes from it)
        address = validate_email(spec, check_deliverability=False, test_environment=True).normalized.lower()
    except EmailNotValidError as e:
        raise AddressError(f"{written!r} is not a mail address ({e})") from None
    if address == gm_address.strip().lower():
        raise AddressError(f"{address} is the judge's own address: a player needs an address of their own")
    if machine_address(address):
        raise AddressError(f"{address} is a machine's address (mailer-daemon, no-reply): the judge never reads "
                           "mail from it")
    return address


def refusal(address: str, gm_address: str) -> str | None:
    """Why `address` may not play or run a game (see player_address); None when it may."""
    try:
        player_address(address, gm_address)
    except AddressError as e:
        return str(e)
    return None
