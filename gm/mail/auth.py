"""Who may try a password, and when a guess is not even checked.

Wrong passwords are counted three ways over the last hour: by the address the mail claims to come
from, by the power they were given for (whatever address claims to send them: rotating the From
line gains nothing), and in all. Past a ceiling a guess is refused unchecked, which also bounds
the memory-hard hashing a flood of guesses can cost. The limits are high enough that a handful of
guesses someone sends in a player's name, even from the player's own address, never lock the
player out; and a password this process has verified before is accepted without counting (it
costs nothing to check and is the player's).
"""
from __future__ import annotations

from datetime import timedelta

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from gm.store.models import AuditEntry, AuthFailure, Game, Player, utcnow
from gm.store.passwords import PasswordVerifier

WINDOW = timedelta(hours=1)
PER_SENDER = 20  # wrong passwords from one address in WINDOW
PER_POWER = 30  # wrong passwords for one power of one game in WINDOW, from any address
IN_ALL = 500  # wrong passwords in WINDOW in all: past this no guess is checked
CHECKS_PER_MAIL = 5  # password checks one mail may ask for (sign-ons; a mail needs one)
NEW_PER_MAIL = 1  # new passwords one mail may set (a JOIN, a SET PASSWORD): each is a slow hash
NEW_PER_SENDER = 10  # new passwords one address may set in WINDOW


class Failures:
    """Wrong passwords counted in the database, read once per transaction (see Lookups)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._counts: dict[tuple[str | None, int | None, str | None], int] = {}
        self._unreported: set[tuple[int | None, str | None]] | None = None

    def count(self, sender: str | None = None, game_id: int | None = None, power: str | None = None) -> int:
        """Wrong passwords in the last WINDOW from `sender`, or for `power` of `game_id`, or in all."""
        key = (sender, game_id, power)
        if key not in self._counts:
            query = select(func.count()).select_from(AuthFailure).where(AuthFailure.at >= utcnow() - WINDOW)
            if sender is not None:
                query = query.where(AuthFailure.sender == sender)
            if game_id is not None:
                query = query.where(AuthFailure.game_id == game_id, AuthFailure.power == power)
            self._counts[key] = self.session.scalar(query) or 0
        return self._counts[key]

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
        for key in [(sender, None, None), (None, game_id, power), (None, None, None)]:
            self._counts[key] = self.count(*key) + 1
        if self._unreported is not None:
            self._unreported.add((game_id, power))
        self.session.add(AuthFailure(sender=sender, game_id=game_id, power=power))

    def reported(self, game_id: int, power: str) -> None:
        if self._unreported is not None:
            self._unreported.discard((game_id, power))

    def forget(self) -> None:
        self._counts.clear()
        self._unreported = None


MASTER = "(GM)"  # the `power` of wrong GM passwords, counted apart from every power's


def check_password(
    failures: Failures, verifier: PasswordVerifier, sender: str, game: Game, power: str, hashes: list[str],
    password: str,
) -> tuple[int | None, str | None]:
    """Which of `hashes` (those of `power` in `game`: one player's, or its GMs') `password` matches,
    and None; or None and why the sign-on is refused."""
    for i, password_hash in enumerate(hashes):
        if verifier.known(password_hash, password):
            return i, None
    if failures.count() >= IN_ALL:
        return None, "the judge takes no passwords for now (too many wrong ones were sent): try again in an hour"
    who = "the GM" if power == MASTER else power
    if failures.count(game_id=game.id, power=power) >= PER_POWER:
        return None, f"too many wrong passwords for {who} in {game.name}: try again in an hour"
    if failures.count(sender=sender) >= PER_SENDER:
        return None, "too many wrong passwords from this address: try again in an hour"
    for i, password_hash in enumerate(hashes):
        if verifier.check(password_hash, password):
            return i, None
    failures.add(sender, game.id, power)
    return None, f"wrong password for {who} in {game.name}"


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
    return (f"warning: {count} wrong password{'s' if count > 1 else ''} for {player.power} "
            f"{'was' if count == 1 else 'were'} sent to the judge ({when}); if that was not you, "
            "someone is guessing: keep your password long and private")


def new_password_refused(session: Session, sender: str, set_in_this_mail: int) -> str | None:
    """Why a new password (JOIN, SET PASSWORD) may not be set now, or None."""
    if set_in_this_mail >= NEW_PER_MAIL:
        return "one new password a mail (JOIN or SET PASSWORD): send this line in a mail of its own"
    recent = session.scalar(
        select(func.count()).select_from(AuditEntry).where(
            AuditEntry.actor == sender,
            AuditEntry.action.in_(("join", "set password", "create")),
            AuditEntry.at >= utcnow() - WINDOW,
        )
    )
    if (recent or 0) >= NEW_PER_SENDER:
        return "too many new passwords from this address: try again in an hour"
    return None
