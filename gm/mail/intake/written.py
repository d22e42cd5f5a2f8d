"""When a mail was written, as far as the judge can tell: whether an order in it was meant for the
phase under way or for one already adjudicated (see gm.mail.commands.orders.too_late).

A sender's clock is not the judge's: a Date header has whole seconds where a phase opens at some
microsecond, and a phone's clock may run minutes slow. So the judge goes first by what it knows
itself: the mail of its own that the mail answers (In-Reply-To, References: the judge's mail was
sent at a known moment, and the answer was written after it), the phase the subject names (a
reply to '[g1] Spring 1901 results' was written once Spring 1901 was adjudicated), and the
judge's own lines quoted in it ('Next: Fall 1901, Movement, deadline ...'). Only where none of
these tells does the Date decide: to the second, and, for a mail that answers nothing of the
judge's, allowing for a clock a little slow (CLOCK_SKEW)."""
from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from gm.i18n import LANGUAGES, translated
from gm.view.results import phase_words, season_year
from gm.mail.intake.message import InboundMessage
from gm.store.models import Game, GamePhase, OutboundMail

# How slow a sender's clock may run, for a mail that answers no mail of the judge's: a mail dated
# this much before a phase opened still counts as written for it.
CLOCK_SKEW = timedelta(minutes=2)

MAX_REFERENCES = 20  # the Message-IDs looked up: the last ones, nearest the mail itself


@dataclass(frozen=True)
class Written:
    """What the judge knows of when a mail was written."""

    after: datetime | None  # it was written after this moment (the judge's own clock); None: unknown
    answers: bool  # it answers a mail of the judge's, or names a phase: the Date gets no allowance


def written(session: Session, message: InboundMessage, game: Game) -> Written:
    """When `message` was written, by the judge's mail it answers and the phases of `game` it
    names (see the module's docstring)."""
    moments: list[datetime] = []
    ids = list(dict.fromkeys([*message.references, *([message.in_reply_to] if message.in_reply_to else [])]))
    ids = ids[-MAX_REFERENCES:]
    answered = session.scalar(select(OutboundMail.created_at).where(OutboundMail.message_id.in_(ids))
                              .order_by(OutboundMail.created_at.desc()).limit(1)) if ids else None
    if answered:
        moments.append(answered)
    named = _named_phases(session, message, game)
    moments += named
    return Written(max(moments) if moments else None, bool(answered) or bool(named))


# The judge's own lines that name the phase under way when they were written: a results mail's
# 'Next: Fall 1901, Movement, deadline ...', an acknowledgement's 'France in g1, Fall 1901,
# Movement:', a reminder's 'g1, Fall 1901, Movement: France still owes ...', the start mail's
# 'The first phase is Spring 1901, Movement'.
def _quoted_patterns(game: Game, label: str) -> re.Pattern[str]:
    name, words = re.escape(game.name), re.escape(label)
    return re.compile(rf"(?:Next: {words}, deadline|{name}, {words}:|The first phase is {words};)")


def _named_phases(session: Session, message: InboundMessage, game: Game) -> list[datetime]:
    """The moments after which the phases `message` names were known. A subject with the game's
    tag names phases adjudicated ('[g1] Spring 1901 results': known once adjudicated) or a season
    under way ('[g1] Reminder: France, orders due for Spring 1901': known once its first phase
    opened); the judge's quoted lines name a phase under way (known once it opened)."""
    tag = f"[{game.name}]"
    subject = message.subject.partition(tag)[2] if tag in message.subject else ""
    if not subject and f"{game.name}, " not in message.body and "Next: " not in message.body \
            and "The first phase is " not in message.body:
        return []
    rows = session.execute(select(GamePhase.label, GamePhase.opened_at, GamePhase.adjudicated_at)
                           .where(GamePhase.game_id == game.id)).all()
    out = []
    seasons: dict[str, datetime] = {}
    for label, opened, adjudicated in rows:
        # the subject is in the language its reader reads: any of them
        if subject and adjudicated is not None and _names(phase_words(label), subject):
            out.append(adjudicated)
        season = label.partition(",")[0]
        if subject and _names(season_year(label), subject):
            seasons[season] = min(opened, seasons.get(season, opened))
        if _quoted_patterns(game, label).search(message.body):
            out.append(opened)
    return out + list(seasons.values())


def _names(words: str, subject: str) -> bool:
    return any(re.search(rf"\b{re.escape(translated(words, language))}\b", subject) for language in LANGUAGES)


def before(moment: datetime, opened: datetime, allowance: timedelta = timedelta(0)) -> bool:
    """Whether a Date header's `moment` (whole seconds) is before `opened`, to the second, less
    `allowance`: a mail dated in the second a phase opened may have been written after it."""
    return moment + allowance < opened.replace(microsecond=0)
