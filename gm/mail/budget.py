"""The security budget: what one mail may make the judge do, and what the judge mails to whom.

A judge's address is public, and a mail's From line proves nothing by itself (see
gm.mail.intake.provenance for what does). So what the judge sends is bounded by who is to get it, never
by what a sender asks:

* An address is proven when it is a player's, a GM's or an observer's (each proved it once, by a
  code or a signature), or when it sent the mail being answered and that mail is authenticated.
  Mail to any other address is mail to a possible third party, whose address anyone may have
  written on a From line. It gets fixed texts only, never a line of the mail that caused it, and
  all of it comes out of small hourly budgets that no proven address ever needs: at most
  UNPROVEN_PER_HOUR such mails an hour from the whole judge (of them UNPROVEN_CODES_PER_HOUR codes
  and the rest notices, so that junk's notices never spend newcomers' codes), UNPROVEN_PER_DOMAIN
  to the addresses of one domain, UNPROVEN_PER_GAME codes for one game's JOINs and OBSERVEs, and per address
  STRANGER_NOTICES_PER_HOUR notices and CONFIRMATIONS_PER_HOUR codes. Past a budget nothing is sent
  at all, not a code, not a notice: whatever arrives, the judge mails third parties at most
  UNPROVEN_PER_HOUR messages an hour. (A code a player or a GM asks for a new address, signed on
  with their password, is theirs to answer for: it is bounded per player instead, see
  gm.mail.commands.confirmations, and counted here without being refused.)
* Authenticated mail never waits for what unauthenticated mail spent: its JOIN, OBSERVE or CREATE
  is carried out at once (its signature proved the address), and its answers go to the address
  that proved itself, outside the budgets above.
* Mail whose own domain disowns it (a trusted verdict of dmarc=fail under a policy of reject or
  quarantine) is never answered and never acts on a request: it costs nothing.
* A registered address (a player's or a GM's) gets the acknowledgements of the mails that signed
  on to it, up to the `replies_per_hour` setting an hour, counted apart from every other mail it
  gets (press, results, notices), so that nothing others send can use them up; past them, one
  notice an hour says answers are paused and until when (its orders are still taken). It gets at
  most REGISTERED_NOTICES_PER_HOUR notices an hour.
* Press: at most PRESS_PER_MAIL blocks in one mail and PRESS_PER_HOUR an hour from one power; the
  press one mail sends to one address goes in one mail. A PRESS TO GM after a sign-on that failed
  reaches the game's GMs marked as from an unverified sender: anyone may send it, so each GM gets
  at most UNVERIFIED_PRESS_PER_HOUR of it an hour, whoever sends it.
* Work: at most CHECKS_PER_MAIL password checks a mail (gm.mail.intake.auth), MAX_LINES lines read, maps
  as gm.mail.commands.map says; everything cheap is checked before anything slow (a password
  hash, a map).
"""
from __future__ import annotations

from datetime import timedelta

WINDOW = timedelta(hours=1)
MAX_LINES = 500  # lines of a mail read: more than any order mail needs; the rest are counted
STRANGER_NOTICES_PER_HOUR = 3
CONFIRMATIONS_PER_HOUR = 3
UNPROVEN_PER_HOUR = 60  # mails to addresses that proved nothing, from the whole judge: the sum of its two shares
# Its shares: the codes that let a newcomer prove an address, and the notices (how to play, why a
# sign-on failed), so that a flood of junk, each mail of which earns a notice, never spends the codes.
UNPROVEN_CODES_PER_HOUR = 45
UNPROVEN_NOTICES_PER_HOUR = UNPROVEN_PER_HOUR - UNPROVEN_CODES_PER_HOUR
# Of them, to the addresses of one domain: a flood forging one domain's addresses spends its own share.
UNPROVEN_PER_DOMAIN = 20
# Of them, codes for one game's requests: three times the most powers a game has, and more than one
# domain's share, so that a flood on one game leaves the others theirs, and one domain alone cannot fill it.
UNPROVEN_PER_GAME = 30
REGISTERED_NOTICES_PER_HOUR = 10
REPLIES_PER_HOUR = 60  # acknowledgements to one registered address an hour, by default (a setting)
PAUSED_PER_HOUR = 1  # notices that acknowledgements are paused
FLOODED_PER_HOUR = 1  # notices to a game's GM that requests to join it went unanswered past the budgets
PRESS_PER_MAIL = 10
PRESS_PER_HOUR = 30
PRESS_TO_ADDRESS_PER_HOUR = 300  # a last bound: each sender's budget keeps far below it
UNVERIFIED_PRESS = "unverified press"  # the outbox kind of a PRESS TO GM whose sender could not sign on
UNVERIFIED_PRESS_PER_HOUR = 5  # of it, to one GM's address: forged mail cannot flood a GM


def per_hour(kind: str, registered: bool, replies_per_hour: int) -> int:
    """The most mails of `kind` one address may get in an hour."""
    if kind == "ack":
        return replies_per_hour
    if kind == "press":
        return PRESS_TO_ADDRESS_PER_HOUR
    if kind == UNVERIFIED_PRESS:
        return UNVERIFIED_PRESS_PER_HOUR
    if kind == "confirm":
        return CONFIRMATIONS_PER_HOUR
    if kind == "paused":
        return PAUSED_PER_HOUR
    if kind == "flooded":
        return FLOODED_PER_HOUR
    if kind == "answer":  # a notice to the authenticated sender of the mail it answers
        return REGISTERED_NOTICES_PER_HOUR
    return REGISTERED_NOTICES_PER_HOUR if registered else STRANGER_NOTICES_PER_HOUR


def unproven_refusal(sent: list[tuple[str, int | None, bool]], to: str, game_id: int | None, code: bool) -> str | None:
    """Which budget of mail to addresses that proved nothing a mail to `to` (a `code`, or a notice;
    about game `game_id`) would exceed, given `sent`, the (address, game, whether a code) of each
    such mail of the last hour; None when it may go. The words are for the log."""
    if len(sent) >= UNPROVEN_PER_HOUR:
        return f"the judge's {UNPROVEN_PER_HOUR} an hour"
    share, name = (UNPROVEN_CODES_PER_HOUR, "codes") if code else (UNPROVEN_NOTICES_PER_HOUR, "notices")
    if sum(1 for _, _, was_code in sent if was_code == code) >= share:
        return f"the judge's {share} {name} an hour"
    domain = to.rpartition("@")[2]
    if sum(1 for address, _, _ in sent if address.rpartition("@")[2] == domain) >= UNPROVEN_PER_DOMAIN:
        return f"{UNPROVEN_PER_DOMAIN} an hour to one domain"
    if game_id is not None and sum(1 for _, game, _ in sent if game == game_id) >= UNPROVEN_PER_GAME:
        return f"{UNPROVEN_PER_GAME} an hour for one game"
    return None
