"""The security budget: what one mail may make the judge do, and what the judge mails to whom.

A judge's address is public, and a mail's From line proves nothing. So what the judge sends is
bounded by who is to get it, never by what a sender asks:

* An address nobody proved (a stranger, or a sender writing from an address that is not the one
  registered for the power it names) gets fixed notices only, never a line of its mail back, and
  at most STRANGER_NOTICES_PER_HOUR of them an hour; the whole judge sends at most
  NOTICES_IN_ALL_PER_HOUR notices an hour. A confirmation code (gm.mail.confirm) goes to an address
  at most CONFIRMATIONS_PER_HOUR times an hour.
* A registered address (a player's or a GM's) gets the acknowledgements of the mails that signed
  on to it, up to the `replies_per_hour` setting an hour, counted apart from every other mail it
  gets (press, results, notices), so that nothing others send can use them up; past them, one
  notice an hour says answers are paused and until when (its orders are still taken). It gets at
  most REGISTERED_NOTICES_PER_HOUR notices an hour.
* Press: at most PRESS_PER_MAIL blocks in one mail and PRESS_PER_HOUR an hour from one power; the
  press one mail sends to one address goes in one mail.
* Work: at most CHECKS_PER_MAIL password checks a mail (gm.mail.auth), MAX_LINES lines read, maps
  as gm.mail.commands.map says; everything cheap is checked before anything slow (a password
  hash, a map).
"""
from __future__ import annotations

from datetime import timedelta

WINDOW = timedelta(hours=1)
MAX_LINES = 500  # lines of a mail read: more than any order mail needs; the rest are counted
STRANGER_NOTICES_PER_HOUR = 3
NOTICES_IN_ALL_PER_HOUR = 500
CONFIRMATIONS_PER_HOUR = 3
REGISTERED_NOTICES_PER_HOUR = 10
REPLIES_PER_HOUR = 60  # acknowledgements to one registered address an hour, by default (a setting)
PAUSED_PER_HOUR = 1  # notices that acknowledgements are paused
PRESS_PER_MAIL = 10
PRESS_PER_HOUR = 30
PRESS_TO_ADDRESS_PER_HOUR = 300  # a last bound: each sender's budget keeps far below it


def per_hour(kind: str, registered: bool, replies_per_hour: int) -> int:
    """The most mails of `kind` one address may get in an hour."""
    if kind == "ack":
        return replies_per_hour
    if kind == "press":
        return PRESS_TO_ADDRESS_PER_HOUR
    if kind == "confirm":
        return CONFIRMATIONS_PER_HOUR
    if kind == "paused":
        return PAUSED_PER_HOUR
    return REGISTERED_NOTICES_PER_HOUR if registered else STRANGER_NOTICES_PER_HOUR
