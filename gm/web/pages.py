"""What a game's web pages show, read from the database: the game (variant, house rules, the
powers and whether somebody plays each, never an address; status and next deadline), each
adjudicated phase's public results, the centres year by year, and broadcast press where the
game's house rules put it on the pages.

The secrecy filter is the results mail's own: each phase is shown as game_mail.public_results
gives it to a reader of no power (an observer), so that the pages never show more than a player
who does not own an allocation sees; DP, IP, bids, banks and loans stay in the mail of their
power and of the GM. Reading only: nothing here writes the database."""
from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from gm.engine.model import GameState
from gm.engine.variant import Variant
from gm.games import active_players, current_phase, major_powers, variant_of
from gm.i18n import ENGLISH, LANGUAGES, _, _p, catalogue, translated
from gm.lifecycle.ending import outcome_text
from gm.lifecycle.house_rules import HouseRules, rules_of
from gm.lifecycle.phase_names import phase_name, year_name
from gm.lifecycle.phases import FINAL_KEY
from gm.view.press import describe as describe_press
from gm.view.press import press_kind
from gm.store.db import state_from_json
from gm.view.languages import game_language
from gm.store.models import Game, GamePhase, GameStatus, OutboundMail
from gm.view import paths
from gm.view.reader import PUBLIC
from gm.view.results import moment_text, public_results
from gm.view.templates import PRESS_HEADING, templates_dir

# TRANSLATORS: whom a broadcast is to: 'press from France to every power'
_EVERY_POWER = _("every power")  # as gm.mail.outgoing.press names a broadcast's readers
_BATCHED = f"\n{'-' * 72}\n"  # between the press blocks of one mail


@dataclass(frozen=True)
class StoredPhase:
    """A stored phase as the pages read it (the columns of gm.store.models.GamePhase they use)."""

    id: int
    seq: int
    label: str
    opened_at: datetime | None
    adjudicated_at: datetime | None
    deadline_at: datetime | None
    state_json: dict[str, Any]
    results_json: dict[str, Any] | None


# What an adjudicated phase holds, by (id, opened_at, adjudicated_at), kept between two writings of
# a game's pages (Publisher): it never changes, and decoding every phase's JSON again after each
# phase would cost more than the rest of the writing.
PhaseCache = dict[tuple[Any, ...], tuple[dict[str, Any], dict[str, Any] | None]]


def stored_phases(session: Session, game: Game, cache: PhaseCache | None = None) -> list[StoredPhase]:
    """Every stored phase of `game`, oldest first; the adjudicated ones from `cache` when there."""
    light = session.execute(select(GamePhase.id, GamePhase.seq, GamePhase.label, GamePhase.opened_at,
                                   GamePhase.adjudicated_at, GamePhase.deadline_at)
                            .where(GamePhase.game_id == game.id).order_by(GamePhase.seq)).all()
    cache = {} if cache is None else cache
    keys = {row.id: (row.id, row.opened_at, row.adjudicated_at) for row in light}
    wanted = [row.id for row in light if row.adjudicated_at is None or keys[row.id] not in cache]
    fresh = {}
    if wanted:
        fresh = {i: (state, results) for i, state, results in session.execute(
            select(GamePhase.id, GamePhase.state_json, GamePhase.results_json).where(GamePhase.id.in_(wanted)))}
    out = []
    for row in light:
        state, results = fresh[row.id] if row.id in fresh else cache[keys[row.id]]
        if row.adjudicated_at is not None:
            cache[keys[row.id]] = (state, results)
        out.append(StoredPhase(row.id, row.seq, row.label, row.opened_at, row.adjudicated_at, row.deadline_at,
                               state, results))
    return out


def _stamp(row: StoredPhase, what: str) -> str:
    """What a stored phase's page or map is made of, in short. An adjudicated phase never changes
    but by a rollback, which makes it another row (or opens it again); the phase under way may be
    corrected in place (REISSUE, civil disorder): its position is part of it."""
    if row.adjudicated_at is not None:
        return f"{row.id}|{row.opened_at}|{row.adjudicated_at}|{what}"
    return _position_stamp(row)


_POSITIONS: dict[tuple[Any, ...], str] = {}  # (id, opened_at, adjudicated_at) -> _position_stamp
_POSITIONS_KEPT = 5000


def _position_stamp(row: StoredPhase) -> str:
    """The position a phase started from, in short: the same before and after its adjudication,
    so that the map of the position under way is the map of the position after the phase before."""
    key = (row.id, row.opened_at, row.adjudicated_at)
    if key in _POSITIONS:
        return _POSITIONS[key]
    digest = hashlib.sha256(json.dumps(row.state_json, sort_keys=True).encode()).hexdigest()
    stamp = f"{row.id}|{row.opened_at}|{digest}|position"
    if row.adjudicated_at is not None:  # it changes no more
        if len(_POSITIONS) > _POSITIONS_KEPT:
            _POSITIONS.clear()
        _POSITIONS[key] = stamp
    return stamp


@cache
def _templates_stamp() -> str:
    """The page templates as they are: a page written by other templates is written again."""
    folder = templates_dir() / "web"
    digest = hashlib.sha256()
    for path in sorted(folder.iterdir()):
        digest.update(path.name.encode() + path.read_bytes())
    return digest.hexdigest()[:16]


@dataclass
class MapSource:
    """A map a page shows: what it is drawn from (a stored phase's position, with its results or
    not), and the file it is kept in (per palette). The position is decoded only to be drawn."""

    name: str  # 'spring-1901-movement-orders': the file is maps/<name>.<palette>.png
    stored: dict[str, Any]  # the position, as stored (gm.store.db.state_to_json)
    report: dict[str, Any] | None  # the public results drawn on it; None: the position alone
    alt: str  # the text alternative (a Text); the page gives the orders as text beside it
    key: str  # what it is drawn from, in short (_stamp), and its words' language: the same key, the same picture

    @property
    def state(self) -> GameState:
        return state_from_json(self.stored)


@dataclass
class PhasePage:
    label: str
    page: str  # the file, relative to the game's folder
    # game_mail.public_results: the public results; None when the page need not be written again
    results: dict[str, Any] | None
    orders_map: MapSource
    after_map: MapSource | None  # the position the phase left
    fingerprint: str  # what the page is made of: unchanged, it is not written again

    @property
    def name(self) -> str:
        """The phase as the page's reader reads it (a Text; `label` names its file)."""
        return phase_name(self.label)


@dataclass
class GamePages:
    """Everything the pages of one game show."""

    name: str
    variant_name: str  # gm.variants.REGISTRY's
    variant: str  # its title
    rules: HouseRules
    listed: bool
    lines: list[str]  # the house rules, press, as the start mail and INFO say them (Texts)
    status: str
    deadline: str | None
    powers: list[tuple[str, str]]  # (power, 'played' | 'open' | 'civil disorder'), the words Texts
    phases: list[PhasePage]  # oldest first
    now_map: MapSource | None  # the position now (or the one the game ended in)
    now_label: str  # the phase under way (a Text), or 'the end'
    chart: dict[str, Any]
    press: list[dict[str, str]] = field(default_factory=list)
    language: str = ENGLISH  # the game's: its pages and the words on their maps are written in it


def game_pages(session: Session, game: Game, known: Collection[str] = (), cache: PhaseCache | None = None
               ) -> GamePages | None:
    """What `game`'s pages show; None when the game has none (house rule pages = private). The
    results of a phase whose page is `known` (by its fingerprint: written already) are not read
    but for the newest phase, which the game's page shows."""
    rules = rules_of(game.options)
    if rules.pages == "private":
        return None
    variant = variant_of(game)
    language = game_language(game)
    rows = stored_phases(session, game, cache)
    done = [r for r in rows if r.adjudicated_at is not None and r.results_json is not None]
    current = next((r for r in reversed(rows) if r.adjudicated_at is None), None)
    pages = []
    for i, row in enumerate(done):
        neighbours = [done[j].label if 0 <= j < len(done) else "" for j in (i - 1, i + 1)]
        # the house rule too: a page of a listed game links to the index, an unlisted one asks not to be indexed
        fingerprint = "|".join([_templates_stamp(), rules.pages, language, _stamp(row, "page"), *neighbours])
        newest = i == len(done) - 1
        pages.append(_phase(game, variant, row, rows, fingerprint, language, read=newest or fingerprint not in known))
    now_map, now_label = _now_map(variant, current, done, language)
    if game.status == GameStatus.FINISHED:  # ended while a phase was under way (a draw): its position
        now_label = "the end"
    taken = {p.power: p for p in active_players(session, game) if p.power}
    powers = [(p, _OPEN if p not in taken else _IN_DISORDER if taken[p].civil_disorder else _PLAYED)
              for p in major_powers(session, game)]
    # TRANSLATORS: a line of the house rules: which press the game has
    lines = rules.describe(bidding=variant.has_bidding) + [_("Press: {press}", press=describe_press(press_kind(game)))]
    return GamePages(
        name=game.name, variant_name=variant.name, variant=variant.title, rules=rules, listed=rules.pages == "listed",
        lines=lines, status=_status(game, current), deadline=_deadline(game, current, rules), powers=powers,
        phases=pages, now_map=now_map, now_label=now_label, chart=centre_chart(variant, rows),
        press=broadcast_press(session, game) if rules.pages_press == "broadcast" else [], language=language)


# How the game's page says whether somebody plays a power.
# TRANSLATORS: a power nobody plays (the game's page: Power, Player)
_OPEN = _p("player", "open")
# TRANSLATORS: a power whose player stopped ordering (the game's page: Power, Player)
_IN_DISORDER = _p("player", "civil disorder")
# TRANSLATORS: a power somebody plays (the game's page: Power, Player)
_PLAYED = _p("player", "played")


def index_entry(session: Session, game: Game) -> dict[str, Any] | None:
    """A listed game's line in the index of games (None: unlisted or private)."""
    if rules_of(game.options).pages != "listed":
        return None
    current = current_phase(session, game)
    return {"name": game.name, "variant": variant_of(game).title,
            "status": _status(game, current.row if current is not None else None),
            "page": f"{paths.game_folder(game.name)}/{paths.game_page()}"}


def _in(key: str, language: str) -> str:
    """A map's key with the language of the words drawn on it."""
    return key if language == ENGLISH else f"{key}|{language}"


def _phase(game: Game, variant: Variant, row: StoredPhase, rows: list[StoredPhase], fingerprint: str,
           language: str = ENGLISH, *, read: bool) -> PhasePage:
    report = PUBLIC.report(row.results_json or {})  # no secret allocation, not even on a map
    name = paths.slug(row.label)
    orders_map = MapSource(f"{name}-orders", row.state_json, report,
                           _("The map of {phase}: every order drawn with its result (the orders are listed as text "
                             "below)", phase=phase_name(row.label)), _in(_stamp(row, "orders"), language))
    after_map = None
    later = next((r for r in rows if r.seq > row.seq), None)
    final = report.get(FINAL_KEY)
    if final is not None:
        after_map = MapSource(f"{name}-final", final, None,
                              _("The map of the position the game ended in (the centres are listed as text below)"),
                              _in(_stamp(row, "final"), language))
    elif later is not None:
        # the same picture as the position map of the phase under way was: drawn once, one name
        after_map = MapSource(f"{paths.slug(later.label)}-position", later.state_json, None,
                              _("The map of the position after {phase}: {next} (the centres are listed as text below)",
                                phase=phase_name(row.label), next=phase_name(later.label)),
                              _in(_position_stamp(later), language))
    results = public_results(game, variant, report, state_from_json(row.state_json)) if read else None
    return PhasePage(label=row.label, page=paths.phase_page(row.label), results=results,
                     orders_map=orders_map, after_map=after_map, fingerprint=fingerprint)


def _now_map(variant: Variant, current: StoredPhase | None, done: list[StoredPhase], language: str = ENGLISH
             ) -> tuple[MapSource | None, str]:
    if current is not None:
        return MapSource(f"{paths.slug(current.label)}-position", current.state_json, None,
                         _("The map of the position now, {phase}", phase=phase_name(current.label)),
                         _in(_position_stamp(current), language)), phase_name(current.label)
    if done:
        last = done[-1]
        final = (last.results_json or {}).get(FINAL_KEY)
        name, what = (f"{paths.slug(last.label)}-final", "final") if final is not None else \
            (f"{paths.slug(last.label)}-position", "position")
        return MapSource(name, final if final is not None else last.state_json, None,
                         _("The map of the position the game ended in"),
                         _in(_stamp(last, what) if final is not None else _position_stamp(last), language)), "the end"
    return None, ""


def _status(game: Game, current: StoredPhase | None) -> str:
    """Where the game stands, as its page and the index say it (a Text)."""
    if game.status == GameStatus.FORMING:
        return _("forming: taking players")
    if game.status == GameStatus.FINISHED:
        return _("over: {outcome}", outcome=outcome_text(game.outcome)) if game.outcome else _("over")
    paused = game.paused_at is not None
    if current is None:
        return _("under way, paused by the GM") if paused else _("under way")
    phase = phase_name(current.label)
    return _("under way: {phase}, paused by the GM", phase=phase) if paused else _("under way: {phase}", phase=phase)


def _deadline(game: Game, current: StoredPhase | None, rules: HouseRules) -> str | None:
    if game.status != GameStatus.ACTIVE or current is None or game.paused_at is not None:
        return None
    moment = current.deadline_at or game.deadline_at
    return moment_text(moment, rules.timezone) if moment is not None else None


# TRANSLATORS: the first row of the table of centres year by year: before the first year
_START = _p("centre table", "start")


def centre_chart(variant: Variant, rows: list[StoredPhase]) -> dict[str, Any]:
    """Every great power's centres at the start and at the end of each year played (as the
    year's last adjudicated phase left them), for the chart and the table beside it."""
    if not rows:
        return {"years": [], "powers": []}
    years: list[str] = [_START]
    counts: list[dict[str, int]] = [dict(Counter(rows[0].state_json["supply_centres"].values()))]
    by_year: dict[int, dict[str, int]] = {}
    for row in rows:
        centres = (row.results_json or {}).get("centres") if row.adjudicated_at is not None else None
        if centres is not None:
            by_year[row.state_json["phase"]["year"]] = centres
    for year, centres in by_year.items():
        years.append(year_name(variant.rules.year_label(year)))
        counts.append(centres)
    powers = [{"name": p, "counts": [c.get(p, 0) for c in counts]} for p in variant.great_powers]
    return {"years": years, "powers": powers}


def broadcast_press(session: Session, game: Game) -> list[dict[str, str]]:
    """The press broadcast to every power, oldest first, as the players read it (signed with the
    sender's power, 'the GM', or 'anonymous'): never press to some powers only, nor the GM's
    copies. Press is kept only as the mail that relayed it: read from the players' copies, in
    whichever language each reads (templates/mail/press.txt.j2), each press of a mail with
    several (gm.mail.outgoing.press.batched) apart."""
    rows = session.scalars(select(OutboundMail).where(OutboundMail.kind == "press",
                                                      OutboundMail.subject.startswith(f"[{game.name}] "))
                           .order_by(OutboundMail.id))
    seen: set[tuple[str, str]] = set()
    out = []
    for row in rows:
        at = f"{row.created_at:%Y-%m-%d %H:%M} UTC"
        stamp = f"{row.created_at:%Y%m%d%H%M%S}"
        for block in row.body_text.split(_BATCHED):
            if not block.startswith(PRESS_HEADING):
                continue
            head, _gap, rest = block.partition("\n\n")
            lines = head.splitlines()
            read = _broadcast_head(game.name, lines[1]) if len(lines) == 2 else None
            if read is None:
                continue
            sender, end = read
            text = rest.partition(end)[0]
            if (sender, text, stamp) in seen:  # each player got the same press at once: one of them
                continue
            seen.add((sender, text, stamp))
            out.append({"sender": sender, "text": text, "at": at})
    return out


@cache
def _press_heads(game: str) -> list[tuple[re.Pattern[str], str]]:
    """For each language: the head line of a broadcast's copy to a player, and the line its text ends at."""
    heads = []
    for language in LANGUAGES:
        t = catalogue(language)
        line = t.gettext("%(game)s: press from %(sender)s to %(to)s")
        pattern = re.escape(line).replace(re.escape("%(game)s"), re.escape(game)).replace(
            re.escape("%(sender)s"), "(?P<sender>.+)").replace(re.escape("%(to)s"), re.escape(translated(_EVERY_POWER, language)))
        heads.append((re.compile(f"^{pattern}$"), "\n\n" + t.gettext("-- end of press --")))
    return heads


def _broadcast_head(game: str, line: str) -> tuple[str, str] | None:
    """(the sender, the end line) of a broadcast's head line to a player; None for any other line
    (press to some powers, the GM's copy)."""
    for pattern, end in _press_heads(game):
        m = pattern.match(line)
        if m:
            return m["sender"], end
    return None
