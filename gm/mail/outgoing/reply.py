"""Acknowledgements: what the judge understood of a mail, rendered from templates/mail/ack.txt.j2 in the reader's language."""
from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

from jinja2 import select_autoescape

from gm.i18n import ENGLISH, _, translated

from gm.mail.commands.context import LineResult
from gm.mail.intake.message import ACK_MARKER
from gm.view.templates import NOTICE_HEADING, PRESS_HEADING, RESULTS_HEADING, environment  # noqa: F401 - and for mail


@dataclass
class PowerStatus:
    """What is on file for the signed-on power, shown after the lines of the mail."""

    power: str
    game: str
    phase: str
    orders: list[str]
    missing: list[str]
    allocations: list[str]
    points: int | None  # None: the variant has no secret points
    used: int
    points_name: str = "DP"
    points_use: str = _("allocations")  # what the points are spent on: allocations, bids
    private: list[str] = field(default_factory=list)  # the power's own secrets (Supply Points banked)
    ended: str | None = None  # how the game ended, once it is over: then nothing else is shown


# The first line of every mail the judge sends says what it is (gm.view.templates). Only an answer
# to the reader's own mail is headed as an acknowledgement; a pasted copy of any heading ends a
# player's text (see gm.mail.intake.message, which knows them by their form: '=== gm <word> ===').
# The notices that answer the reader's own mail (a code for the JOIN, CREATE or OBSERVE it sent, ...).
_ANSWERS = frozenset({"stranger", "failed", "paused", "confirm_join", "confirm_create", "confirm_observe", "observer"})


def heading_of(text: str) -> str | None:
    """The judge's heading that `text` starts with, if any."""
    return next((h for h in (ACK_MARKER, RESULTS_HEADING, NOTICE_HEADING, PRESS_HEADING) if text.startswith(h)), None)


def without_heading(text: str) -> str:
    """`text` without the judge's heading it starts with (to quote it inside another mail)."""
    heading = heading_of(text)
    return text[len(heading):].lstrip("\n") if heading else text


# Where a reader's mail program wraps plain text: a line longer than this is broken by the judge
# (at spaces, never inside what `keep` joined: an order, a unit, a phase's name).
WIDTH = 78
_KEEP = "\u00a0"  # joins words that must stay on one line; textwrap does not break at it


def keep(text: object) -> str:
    """`text` with its spaces made unbreakable, for `hang`: an order is never split over lines."""
    return str(text).replace(" ", _KEEP)


def hang(text: str, indent: int = 2, width: int = WIDTH) -> str:
    """Each line of `text` longer than `width` broken at spaces, its continuation lines indented
    by `indent`; a line that starts with a space keeps its own indentation on the first line
    only. What `keep` joined stays whole, even past `width` (a long order)."""
    out = []
    for line in text.split("\n"):
        if len(line) > width:
            line = textwrap.fill(line, width, subsequent_indent=" " * indent, break_long_words=False,
                                 break_on_hyphens=False)
        out.append(line)
    return "\n".join(out).replace(_KEEP, " ")


def fill(text: str, width: int = WIDTH) -> str:
    """Prose reflowed to `width`: each long line broken at spaces; lines that start with a space
    (tables, orders) are left as they are."""
    lines = str(text).split("\n")
    return "\n".join(line if line[:1] == " " else hang(line, 0, width) for line in lines).replace(_KEEP, " ")


_MAIL_FILTERS = {"keep": keep, "hang": hang, "fill": fill}
_HTML_MAIL = select_autoescape(("html.j2",), default_for_string=False, default=False)  # HTML mail only escapes


MAX_SHOWN_LINES = 100  # lines of a mail shown back in its acknowledgement; the rest are counted
MAX_SHOWN_CHARS = 200  # characters of one line (or of the reason for it) shown back
MAX_SUBJECT = 120  # characters of the subject of a mail repeated in the reply's subject


def _cut(text: str, limit: int = MAX_SHOWN_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def render_ack(
    subject: str,
    results: list[LineResult],
    status: PowerStatus | None,
    sections: list[tuple[str, str]],
    refused: str = "",
    unread: int = 0,
    lang: str = ENGLISH,
    reader: str | None = None,
) -> str:
    """The acknowledgement of a player's mail, as `reader` (the address it goes to; None: the
    sender, who sees every line) is to see it: lines that acted for another address's power are
    left out, or shown as answered there (see LineResult.seen_by). What it shows of the mail is
    bounded: at most MAX_SHOWN_LINES lines of MAX_SHOWN_CHARS each; `unread` lines past what the
    judge reads are counted, not shown."""
    seen = results if reader is None else [r.seen_by(reader) for r in results]
    visible = [r for r in seen if r is not None]
    # a detail in the reader's words before it is cut (a cut Text would be English)
    shown = [LineResult(_cut(r.text), r.accepted, _cut(translated(r.detail, lang), 2 * MAX_SHOWN_CHARS))
             for r in visible[:MAX_SHOWN_LINES]]
    return render(
        "ack.txt.j2", lang, marker=ACK_MARKER, subject=_cut(subject, MAX_SUBJECT), results=shown, status=status,
        sections=sections, refused=refused, not_shown=len(visible) - len(shown), unread=unread,
        others=len(seen) - len(visible),
    )


def render_notice(name: str, lang: str = ENGLISH, **values: object) -> str:
    """A fixed notice, templates/mail/<name>.txt.j2: nothing in it comes from the mail that
    caused it but what `values` give (the judge's own words, names from the database). Headed as
    an acknowledgement when it answers the reader's own mail, else as a notice."""
    return render(f"{name}.txt.j2", lang, marker=ACK_MARKER if name in _ANSWERS else NOTICE_HEADING, **values)


def render(template: str, lang: str = ENGLISH, **values: object) -> str:
    """templates/mail/<template> with `values`, written in `lang`; a .html.j2 template escapes
    what it is given."""
    env = environment("mail", lang, _MAIL_FILTERS, keep_trailing_newline=True, autoescape=_HTML_MAIL)
    return env.get_template(template).render(**values)


def reply_subject(subject: str, lang: str = ENGLISH) -> str:
    """'Re: <subject>' of a player's mail, bounded; the judge's own words in `lang`."""
    if not subject:
        return translated(_("gm: your orders"), lang)
    subject = _cut(subject, MAX_SUBJECT)
    return subject if subject.lower().startswith("re:") else f"Re: {subject}"
