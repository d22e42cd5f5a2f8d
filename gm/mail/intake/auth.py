"""Passwords given by mail: every one is checked, and the right one always works.

A guess is never refused unchecked, whatever strangers sent before it: a limit that refuses guesses
refuses the owner too, so that a few dozen forged guesses would lock a player or a GM out. Instead:

* Guessing teaches the guesser nothing. The answer to a sign-on goes to the address registered for
  the power (or GM) it names; a sender writing from another address is told the same whether the
  password was right or wrong (see gm.mail.commands.signon), and gets at most a few fixed notices
  an hour (gm.mail.budget). Only the owner's address is told "wrong password".
* Guessing costs the judge little. A mail may check CHECKS_PER_MAIL passwords; everything cheap
  (the game, the power, DKIM) is checked first; and 63 wrong guesses in 64 are refused by a quick
  check stored beside the slow hash (gm.store.passwords), so that a flood of guesses pays a slow
  hash for one in 64.
* The owner hears of it: each wrong password is recorded, and the player is told how many, and
  when, at their next sign-on.
"""
from __future__ import annotations

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from gm.i18n import _, _n
from gm.mail.budget import WINDOW
from gm.store.models import AuditEntry, AuthFailure, Player, utcnow
from gm.store.passwords import PasswordVerifier

CHECKS_PER_MAIL = 5  # password checks one mail may ask for (sign-ons; a mail needs one)
NEW_PER_MAIL = 1  # new passwords one mail may set (a JOIN, a SET PASSWORD): each is a slow hash
NEW_PER_SENDER = 10  # new passwords one address may set in WINDOW


class Failures:
    """Wrong passwords recorded in the database, and which powers have some their player has not
    been told of (read once per transaction: see Lookups)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._unreported: set[tuple[int | None, str | None]] | None = None

    def unreported(self, game_id: int, power: str) -> bool:
        """Are there wrong passwords for this power its player has not been told of? One query
        for every power, the first time a transaction asks."""
        if self._unreported is None:
            rows = self.session.execute(
                select(AuthFailure.game_id, AuthFailure.power).where(AuthFailure.reported_at.is_(None)).distinct()
            )
            self._unreported = {(g, p) for g, p in rows}
        return (game_id, power) in self._unreported

    def add(self, sender: str, game_id: int | None, power: str | None) -> None:
        if self._unreported is not None:
            self._unreported.add((game_id, power))
        self.session.add(AuthFailure(sender=sender, game_id=game_id, power=power))

    def reported(self, game_id: int, power: str) -> None:
        if self._unreported is not None:
            self._unreported.discard((game_id, power))

    def forget(self) -> None:
        self._unreported = None


MASTER = "(GM)"  # the `power` of wrong GM passwords, recorded apart from every power's


def check_password(
    failures: Failures, verifier: PasswordVerifier, sender: str, game_id: int, power: str, hashes: list[str],
    password: str,
) -> int | None:
    """Which of `hashes` (those of `power` in a game: one player's, or its GMs') `password`
    matches, or None (the wrong password recorded). Passwords verified before in this process are
    found first, without a slow hash; the answer is the same either way."""
    for i, password_hash in enumerate(hashes):
        if verifier.known(password_hash, password):
            return i
    for i, password_hash in enumerate(hashes):
        if verifier.check(password_hash, password):
            return i
    failures.add(sender, game_id, power)
    return None


def report_failures(session: Session, failures: Failures, player: Player) -> str | None:
    """What the player should know of wrong passwords given for their power since they were last
    told; marks them told."""
    if player.power is None or not failures.unreported(player.game_id, player.power):
        return None
    session.flush()  # failures added in this transaction count too
    failures.reported(player.game_id, player.power)
    rows = session.execute(
        select(func.count(), func.min(AuthFailure.at), func.max(AuthFailure.at)).where(
            AuthFailure.game_id == player.game_id,
            AuthFailure.power == player.power,
            AuthFailure.reported_at.is_(None),
            AuthFailure.at >= player.created_at,
        )
    ).one()
    count, first, last = rows
    if not count:
        return None
    session.execute(
        update(AuthFailure)
        .where(AuthFailure.game_id == player.game_id, AuthFailure.power == player.power, AuthFailure.reported_at.is_(None))
        .values(reported_at=utcnow())
    )
    when = first.strftime("%Y-%m-%d %H:%M UTC") if count == 1 else (
        f"{first.strftime('%Y-%m-%d %H:%M')} - {last.strftime('%Y-%m-%d %H:%M UTC')}")
    return _n("warning: {count} wrong password for {power} was sent to the judge ({when}); if that was not you, "
              "someone is guessing: keep your password long and private",
              "warning: {count} wrong passwords for {power} were sent to the judge ({when}); if that was not you, "
              "someone is guessing: keep your password long and private", count, power=player.power, when=when)


def new_password_refused(session: Session, sender: str, set_in_this_mail: int) -> str | None:
    """Why a new password (JOIN, SET PASSWORD) may not be set now, or None."""
    if set_in_this_mail >= NEW_PER_MAIL:
        return _("one new password a mail (JOIN or SET PASSWORD): send this line in a mail of its own")
    recent = session.scalar(
        select(func.count()).select_from(AuditEntry).where(
            AuditEntry.actor == sender,
            AuditEntry.action.in_(("join", "set password", "create")),
            AuditEntry.at >= utcnow() - WINDOW,
        )
    )
    if (recent or 0) >= NEW_PER_SENDER:
        return _("too many new passwords from this address: try again in an hour")
    return None
