"""Mail the judge sent that did not arrive: a delivery report (a bounce) that came back to the GM's
mailbox, or a recipient the judge's own SMTP server refused for good as it sent.

A report is matched to the mail it returns: by its return path, when the judge sends each mail
from its own (gm+b.<mail>.<check>@domain, GM_SMTP_RETURN_PATH=tagged: the check is keyed with the
judge's secret, so that nobody can name a mail of the judge's in a forged report), or by the
Message-ID of the returned mail, which the report quotes (only the mail's recipient and the
servers on its way saw it). A report matched to no mail is kept and changes nothing: anyone can
send a mail that looks like a bounce.

Each failure is recorded against the judge's recipient (`bounces`); a permanent one, or the
third temporary one since the address last worked, marks the address failing
(gm.store.failing). The GMs of the games the address plays in or runs are told once, with the
receiving server's own words; nobody else ever sees them. A bounce is never answered.
"""
from __future__ import annotations

import hmac
import logging
import re
from dataclasses import dataclass

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gm.games import active_masters
from gm.i18n import _, translated
from gm.mail.intake.bounce import Bounce
from gm.mail.outgoing.reply import render_notice
from gm.lifecycle.leaving import links_key, mac
from gm.store.failing import Mark
from gm.view.languages import language_of
from gm.store.models import Bounce as BounceRow
from gm.store.models import FailingAddress, Game, GameStatus, Master, OutboundMail, Player, new_message_id, utcnow

log = logging.getLogger(__name__)

KIND = "undelivered"  # the outbox kind of a GM's notice that an address fails
TEMPORARY_TO_MARK = 3  # temporary failures since the address last worked that mark it failing
FAILURES_A_REPORT = 10  # failures read of one report: a report naming more says nothing more
_TAG = "b"


def return_path(gm_address: str, mail_id: int, key: bytes) -> str:
    """The envelope sender of outbox mail `mail_id`: gm+b.<id>.<check>@domain (`key`: leaving.links_key())."""
    local, _at, domain = gm_address.rpartition("@")
    return f"{local}+{_TAG}.{mail_id}.{mac(key, f'{_TAG}.{mail_id}')}@{domain}"


def mail_of_return_path(gm_address: str, address: str | None) -> int | None:
    """The outbox id that `address`, a return path of return_path()'s, names; None for any other."""
    if not address:
        return None
    local, _at, domain = gm_address.lower().rpartition("@")
    found = re.fullmatch(rf"{re.escape(local)}\+{_TAG}\.(\d{{1,18}})\.([a-z2-7]+)@{re.escape(domain)}",
                         address.strip().lower())
    if found is None or not hmac.compare_digest(found.group(2), mac(links_key(), f"{_TAG}.{found.group(1)}")):
        return None
    return int(found.group(1))


@dataclass(frozen=True)
class Taken:
    """What a report did: the mail it returns (None: matched to none), and the addresses it marked failing."""

    outbox_id: int | None
    marked: tuple[str, ...]


def take_report(session: Session, gm_address: str, bounce: Bounce, inbound_id: int) -> Taken:
    """Record a delivery report taken in as mail `inbound_id`, in the session's transaction."""
    mail = _returned_mail(session, gm_address, bounce)
    failures = bounce.failures[:FAILURES_A_REPORT]
    if mail is None:
        for failure in failures:  # kept for the GM to look at; it marks nothing
            _add(session, failure.address, None, inbound_id, failure.permanent, failure.status, failure.words,
                 bounce.form)
        return Taken(None, ())
    # Every failure a report matched to a mail names is that mail's: a player's address that
    # forwards to another that fails is the player's address failing.
    own = [f for f in failures if f.address == mail.to_addr] or failures
    permanent = any(f.permanent for f in own)
    first = next((f for f in own if f.permanent == permanent), None)
    words = first.words if first is not None else ""
    if first is not None and first.address != mail.to_addr:
        words = f"(forwarded to {first.address}) {words}".strip()
    marked = record(session, gm_address, mail.to_addr, outbox_id=mail.id, inbound_id=inbound_id, permanent=permanent,
                    status=first.status if first is not None else None, words=words, form=bounce.form)
    return Taken(mail.id, (mail.to_addr,) if marked else ())


def _returned_mail(session: Session, gm_address: str, bounce: Bounce) -> OutboundMail | None:
    mail_id = mail_of_return_path(gm_address, bounce.recipient)
    if mail_id is not None:
        mail = session.get(OutboundMail, mail_id)
        if mail is not None:
            return mail
    ids = [i for i in bounce.returned_ids[:20] if len(i) <= 998]
    if not ids:
        return None
    return session.scalars(select(OutboundMail).where(OutboundMail.message_id.in_(ids), OutboundMail.sent_at.is_not(None))
                           .order_by(OutboundMail.id.desc()).limit(1)).first()


def record(session: Session, gm_address: str, address: str, *, outbox_id: int | None, inbound_id: int | None, permanent: bool,
           status: str | None, words: str, form: str) -> bool:
    """One failure of the judge's mail to `address`; whether it marked the address failing (and
    told its GMs)."""
    address = address.lower()
    row = _add(session, address, outbox_id, inbound_id, permanent, status, words, form)
    if session.get(FailingAddress, address) is not None:
        return False  # marked already: its GMs were told
    if not permanent:
        temporary = session.scalar(select(func.count()).select_from(BounceRow).where(
            BounceRow.address == address, BounceRow.cleared_at.is_(None), BounceRow.outbox_id.is_not(None),
            BounceRow.permanent.is_(False))) or 0
        if temporary < TEMPORARY_TO_MARK:
            return False
    session.add(FailingAddress(address=address, since=row.at, bounce_id=row.id))
    session.flush()
    log.warning("mail to an address is failing (%s %s): its GMs are told", form, status or "")
    _tell_masters(session, gm_address, Mark(address, row.at, permanent, status, row.words))
    return True


def _add(session: Session, address: str, outbox_id: int | None, inbound_id: int | None, permanent: bool,
         status: str | None, words: str, form: str) -> BounceRow:
    row = BounceRow(address=address.lower()[:320], outbox_id=outbox_id, inbound_id=inbound_id, permanent=permanent,
                    status=(status or None) and status[:16], words=" ".join(words.split())[:500], form=form[:32],
                    at=utcnow())
    session.add(row)
    session.flush()
    return row


def _tell_masters(session: Session, gm_address: str, mark: Mark) -> None:
    """A notice to each GM of a game `mark.address` plays in (or runs, to its fellow GMs): who, and
    what the receiving server said."""
    games: dict[int, tuple[Game, list[str]]] = {}
    for player, game in session.execute(
            select(Player, Game).join(Game, Game.id == Player.game_id)
            .where(Player.email == mark.address, Player.left_at.is_(None), Game.status != GameStatus.FINISHED)):
        games.setdefault(game.id, (game, []))[1].append(player.power or _("a player still to get a power"))
    for master, game in session.execute(
            select(Master, Game).join(Game, Game.id == Master.game_id)
            .where(Master.email == mark.address, Master.left_at.is_(None), Game.status != GameStatus.FINISHED)):
        games.setdefault(game.id, (game, []))[1].append(_("a GM"))
    now = utcnow()
    for game, roles in games.values():
        for master in active_masters(session, game):
            if master.email == mark.address:
                continue  # mail to that address does not arrive
            language = language_of(session, master.email, game)
            who = ", ".join(translated(role, language) for role in roles)
            session.add(OutboundMail(
                to_addr=master.email, game_id=game.id, kind=KIND, created_at=now, next_attempt_at=now,
                message_id=new_message_id(gm_address.rpartition("@")[2]),
                subject="[" + game.name + "] " + translated(_("Mail to {who} is not arriving", who=who), language),
                body_text=render_notice("undelivered", language, game=game.name, roles=roles, address=mark.address,
                                        said=mark.said())))
