"""Mail the judge sends about a game of its own accord (not in answer to a player's mail): the
start of the game, the results of each adjudication, reminders before a deadline; and for the GM's
commands, announcements, a PREVIEW's would-be results (to the GMs only) and REISSUE's correction.

Every such mail is threaded under one Message-ID per game (`thread_id`), so that a player's mail
program shows a game as one conversation. A player's copy of the results holds the public results
and that player's own secret allocations only; the GM's copy adds every allocation. Rows go to the
outbox in the caller's transaction, so that a phase is adjudicated and announced together or not
at all. Each reader reads its mail in their own language (gm.view.languages): what every reader
of a mail shares is rendered once for each language among them."""
from __future__ import annotations

import logging
import re
import socket
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from markupsafe import Markup, escape
from sqlalchemy import insert
from sqlalchemy.orm import Session

from gm.engine.model import RETREATS, GameState, PhaseKind
from gm.engine.variant import Variant
from gm.games import active_players, current_phase, masters, observers, power_letters, variant_of
from gm.i18n import ENGLISH, _, _n, translated
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.ending import FINAL_POSITION, centre_table
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.phases import FINAL_KEY, PhaseEnd, Progress, owed, position, position_at_end
from gm.lifecycle.report import annotated, stored
from gm.lifecycle.rollback import rolled_back_labels
from gm.maps.art import has_art
from gm.mail.outgoing.mail_maps import map_attachment, map_palette, reader_palette
from gm.view.press import describe as describe_press
from gm.view.press import press_kind
from gm.mail.outgoing.reply import NOTICE_HEADING, RESULTS_HEADING, render, without_heading
from gm.store import failing
from gm.view.languages import languages_of
from gm.store.models import Game, GamePhase, GameStatus, OutboundMail, Player, new_message_id
from gm.view.reader import GM, PUBLIC, Reader
from gm.view.results import deadline_text, due, order_entry, phase_words, season_year, section, special_orders
from gm.view.paths import phase_url

log = logging.getLogger(__name__)

_INSERT_OUTBOX = insert(OutboundMail.__table__)

# --- threading -----------------------------------------------------------------------------------


def _domain(gm_address: str) -> str:
    return gm_address.rpartition("@")[2] or socket.gethostname()


def thread_id(game: Game, gm_address: str) -> str:
    """The Message-ID every mail about `game` refers to (made once, kept in games.thread_id): the
    mails of a game thread together, apart from those of the player's other games."""
    if not game.thread_id:
        game.thread_id = f"<game.{game.name}.{game.id}@{_domain(gm_address)}>"
    return game.thread_id


# --- words -----------------------------------------------------------------------------------------


def game_subject(game: Game, words: str, language: str = ENGLISH) -> str:
    """'[game] <words>': the subject of a mail about `game`, its words (a Text) in `language`."""
    return f"[{game.name}] {translated(words, language)}"


def _results_words(reports: Sequence[dict[str, Any]]) -> str:
    first, *rest = (phase_words(r["phase"]) for r in reports)
    words = _("{results}: game over", results=first) if any(r.get("ended") for r in reports) else first
    if any(r.get("correction") for r in reports):
        words = _("Correction: {results}", results=words)
    # TRANSLATORS: a mail's subject: the results of a phase, then of those ended with it
    return _("{results} (and {others})", results=words, others=rest) if rest else words


def results_subject(game: Game, reports: Sequence[dict[str, Any]], language: str = ENGLISH) -> str:
    """'[game] Spring 1901 results'; for several phases at once, the first with the others after:
    '[game] Fall 1901 results (and Fall 1901 retreats, Winter 1901 adjustments)'; results that
    replace those of a phase rolled back: '[game] Correction: Spring 1901 results'. In `language`."""
    return game_subject(game, _results_words(reports), language)


# --- the results of a phase ------------------------------------------------------------------------


_READER = "\x00reader\x00"  # slots in the shared render; no report can hold a NUL
_LEAD = "\x00lead\x00"


def _secret_slot(i: int) -> str:
    return f"\x00secret {i}\x00"


class _Results:
    """The results of the phases ended in one go, rendered once for every reader: the text and
    the HTML of the public results, with slots for what is the reader's own, filled per reader:
    the lead (what the reader must act on: the next deadline; for a player what is due from
    them in `now`, the position of the phase under way, and their own results and secret
    allocations; for the GM what needs `attention`) and, for the GM, every secret allocation.
    Rendering the whole mail for each of ten readers would cost ten times as much, and nine
    tenths of it would be the same: it is rendered once for each language its readers read."""

    def __init__(self, game: Game, variant: Variant, reports: Sequence[dict[str, Any]],
                 befores: Sequence[GameState | None], map_cids: Sequence[str | None],
                 position_cid: str | None = None, summary: str = "",
                 page_links: Sequence[tuple[str, str]] = (), now: GameState | None = None,
                 attention: Sequence[str] | None = None) -> None:
        self.reports = reports
        self.variant, self.now = variant, now
        self.attention = None if attention is None else list(attention)  # None: not looked at (a preview)
        self.sections = [section(game, variant, r, b, c) for r, b, c in zip(reports, befores, map_cids, strict=True)]
        self.values: dict[str, Any] = {
            "marker": RESULTS_HEADING, "game": game.name, "variant": variant.title,
            "corrections": [phase_name(r["phase"]) for r in reports if r.get("correction")],
            "has_map": any(map_cids) or bool(position_cid), "position_cid": position_cid, "summary": summary,
            "final": any(r.get(FINAL_KEY) is not None for r in reports), "page_links": list(page_links),
            "house_rules": rules_of(game.options).summary(bidding=variant.has_bidding)}
        self._shared: dict[str, tuple[str, str]] = {}

    def shared(self, language: str) -> tuple[str, str]:
        """(text, HTML) of what every reader in `language` reads, with the slots; rendered once."""
        if language not in self._shared:
            sections, values = self.sections, self.values
            text = render("results.txt.j2", language, reader=_READER, lead=_LEAD, **values,
                          sections=[{**s, "secret_block": _secret_slot(i)} for i, s in enumerate(sections)])
            html = render("results.html.j2", language, reader=Markup(_READER), lead=Markup(_LEAD), **values,
                          sections=[{**s, "secret_block": Markup(_secret_slot(i))} for i, s in enumerate(sections)])
            self._shared[language] = (text, html)
        return self._shared[language]

    def _lead(self, reader: Reader) -> dict[str, Any]:
        """What `reader` must act on, for results_lead.*.j2."""
        last = self.sections[-1] if self.sections else {}
        ended = next((s["ended"] for s in self.sections if s.get("ended")), None)
        power = reader.power if not reader.gm else None
        values: dict[str, Any] = {"ended": ended, "next": None if ended else last.get("next"), "gm": reader.gm,
                                  "attention": self.attention if reader.gm else None, "power": power,
                                  "due": None, "mine": []}
        if power is None:
            return values
        now = self.now
        if now is not None and not ended and power in self.variant.rules.major_powers(self.variant, now):
            values["due"] = due(self.variant, now, power)
        for s, report in zip(self.sections, self.reports, strict=True):
            # the minor powers whose units the reader ordered in this phase (Napoleonic Wars)
            ordered = {power} | {c["minor"] for c in s["control"] if c["was"] == power}
            mine = {
                "phase": s["phase"],
                "orders": [e for p, entries in s["orders"] + s["minor_orders"] if p in ordered for e in entries],
                "secret": sorted((order_entry(e) for e in reader.secrets(report)), key=lambda e: e["order"]),
                "dislodged": [d for d in s["dislodged"] if d["power"] in ordered],
                "centres": _own_centres(s, power),
            }
            if any(mine[k] for k in ("orders", "secret", "dislodged", "centres")):
                values["mine"].append(mine)
        return values

    def for_reader(self, reader: Reader, language: str = ENGLISH) -> tuple[str, str]:
        """(text, HTML) as `reader` reads them, in `language`: its own part first, its own secret
        allocations; the GM's, every one."""
        text, html = self.shared(language)
        if reader.gm:
            # TRANSLATORS: after the game and variant at the head of the GM's copy of the results
            copy = translated(_("GM copy"), language)
            text, html = text.replace(_READER, f", {copy}"), html.replace(_READER, f", <strong>{escape(copy)}</strong>")
        else:
            # TRANSLATORS: after the game and variant at the head of a player's copy of the results
            name = ", " + translated(_("for {power}", power=reader.power), language) if reader.power else ""
            text, html = text.replace(_READER, name), html.replace(_READER, str(escape(name)))
        lead = self._lead(reader)
        text = text.replace(_LEAD, render("results_lead.txt.j2", language, **lead))
        html = html.replace(_LEAD, render("results_lead.html.j2", language, **lead))
        for i, report in enumerate(self.reports):
            slot = _secret_slot(i)
            # a player's own are in the lead; the GM reads every one with the orders
            secret = sorted((order_entry(e) for e in reader.secrets(report)),
                            key=lambda e: (e["power"], e["order"])) if reader.gm else []
            if secret:
                text = text.replace(slot, render("results_secret.txt.j2", language, secret=secret, gm=True))
                html = html.replace(slot, render("results_secret.html.j2", language, secret=secret, gm=True))
            else:
                text, html = text.replace(slot, ""), html.replace(slot, "")
        return text, html


def _own_centres(s: dict[str, Any], power: str) -> str:
    """'France: 4 centres; gained Belgium; lost Spain' where the phase changed the power's
    centres (a Text); '' where it did not."""
    gained = ", ".join(c["name"] for c in s["changes"] if c["to"] == power)
    lost = ", ".join(c["name"] for c in s["changes"] if c["from"] == power)
    if not gained and not lost:
        return ""
    count = next((c["count"] for c in s["centres"] if c["power"] == power), 0)
    if gained and lost:
        changes = _("gained {gained}; lost {lost}", gained=gained, lost=lost)
    else:
        changes = _("gained {centres}", centres=gained) if gained else _("lost {centres}", centres=lost)
    return _n("{power}: {count} centre; {changes}", "{power}: {count} centres; {changes}", count, power=power,
              changes=changes)


def results_text(game: Game, variant: Variant, report: dict[str, Any], viewer: str | None, *, gm: bool = False,
                 before: GameState | None = None, map_cid: str | None = None, language: str = ENGLISH) -> str:
    """The plain text of one phase's results as `viewer` (a power; None: no power) reads them, or
    with `gm` as the GM does (every secret allocation too), in `language`. With `before`, the
    position the phase was played from, every power's centres are named, not only counted."""
    results = _Results(game, variant, [report], [before], [map_cid])
    return results.for_reader(GM if gm else Reader.player(viewer), language)[0]


def results_html(game: Game, variant: Variant, report: dict[str, Any], viewer: str | None, *, gm: bool = False,
                 before: GameState | None = None, map_cid: str | None = None, language: str = ENGLISH) -> str:
    """The HTML of what results_text says; `map_cid` (a Content-ID) shows the map inline."""
    results = _Results(game, variant, [report], [before], [map_cid])
    return results.for_reader(GM if gm else Reader.player(viewer), language)[1]


# --- queueing ------------------------------------------------------------------------------------


def _row(game: Game, thread: str, domain: str, to: str, subject: str, kind: str, now: datetime, text: str,
         html: str | None = None, attachments: list[dict[str, str]] | None = None) -> dict[str, Any]:
    return {
        "message_id": new_message_id(domain),
        "to_addr": to,
        "subject": subject,
        "body_text": text,
        "body_html": html,
        "attachments": attachments,
        "in_reply_to": thread,
        "references": thread,
        "game_id": game.id,
        "inbound_id": None,
        "kind": kind,
        "created_at": now,
        "next_attempt_at": now,
    }


def _insert(session: Session, rows: list[dict[str, Any]]) -> int:
    if rows:
        session.connection().execute(_INSERT_OUTBOX, rows)
    return len(rows)


def _maps(game: Game, variant: Variant, reports: Sequence[dict[str, Any]], phases: Sequence[GamePhase],
          now: GamePhase | None, domain: str, palette: str
          ) -> tuple[list[str | None], str | None, list[dict[str, Any]]]:
    """The Content-ID of each phase's map (its orders and their results; None: no map), that of
    the map of the position the game is in now, and the inline attachments that carry them, in
    `palette`. The attachments name the pictures (phase and kind); the sender draws them
    (draw_attachments), so that adjudication at a deadline does not wait for pictures, nor stores
    one per reader."""
    if not has_art(variant.name):
        return [None] * len(reports), None, []
    attachments: list[dict[str, Any]] = []

    def attach(row: GamePhase, kind: str, name: str) -> str:
        cid = new_message_id(domain).strip("<>")
        attachments.append(map_attachment(row, kind, palette, f"{game.name}-{name}.png", cid))
        return cid

    cids: list[str | None] = []
    for report, row in zip(reports, phases, strict=True):  # file names in English, as the labels are
        name = season_year(report["phase"]).lower().replace(" ", "-")
        kind = report["phase"].partition(", ")[2].lower() or "map"
        cids.append(attach(row, "results", f"{name}-{kind}"))
    position_cid = None
    if now is not None:
        position_cid = attach(now, "position", f"{season_year(now.label).lower().replace(' ', '-')}-position")
    elif reports and reports[-1].get(FINAL_KEY) is not None:  # the game ended: the position it ended in
        position_cid = attach(phases[-1], "final", "final-position")
    return cids, position_cid, attachments


def queue_progress(session: Session, game: Game, progress: Progress, *, gm_address: str,
                   gm_addresses: Sequence[str] = (), now: datetime, public_url: str | None = None) -> int:
    """Queue the mail of what the scheduler did to `game`: one results mail per active player
    covering every phase ended this time, a copy with every secret allocation to each address in
    `gm_addresses`; and a reminder to each late power's player. With `public_url` (where the
    games' web pages are published) the results link to each phase's page, unless the game's
    pages are private. Returns the rows queued."""
    rows: list[dict[str, Any]] = []
    domain = _domain(gm_address)
    thread = thread_id(game, gm_address)
    players = list(progress.players.values())
    if progress.ended:
        annotate(session, game, progress.ended)
        variant = variant_of(game)
        reports = [end.report for end in progress.ended]
        befores: list[GameState | None] = [position(end.row) for end in progress.ended]
        current = current_phase(session, game)
        maps: dict[str, tuple[list[str | None], str | None, list[dict[str, Any]]]] = {}

        def maps_in(palette: str) -> tuple[list[str | None], str | None, list[dict[str, Any]]]:
            if palette not in maps:  # one set of pictures for each palette the readers chose
                maps[palette] = _maps(game, variant, reports, [end.row for end in progress.ended],
                                      current.row if current is not None else None, domain, palette)
            return maps[palette]

        cids, position_cid, _attachments = maps_in(map_palette(game))
        words = _results_words(reports)
        readers: list[tuple[str, Reader, str]] = [
            (p.email, Reader.player(p.power), reader_palette(game, p)) for p in players]
        readers += [(address, GM, map_palette(game)) for address in gm_addresses]
        # Observers (OBSERVE) read them as a player of no power: no secret allocation.
        readers += [(address, PUBLIC, map_palette(game)) for address in observers(session, game)
                    if address not in {r[0] for r in readers}]
        summary = centre_table(session, game, variant) if any(r.get("ended") for r in reports) else ""
        links = [(phase_name(r["phase"]), phase_url(public_url, game.name, r["phase"])) for r in reports
                 if public_url and rules_of(game.options).pages != "private"]
        now_state = current.state if current is not None else None
        results = _Results(game, variant, reports, befores, cids, position_cid, summary, links, now=now_state,
                           attention=_attention(session, variant, reports, now_state, players))
        languages = languages_of(session, [to for to, _reader, _palette in readers], game)
        for to, reader, palette in readers:
            language = languages[to]
            text, html = results.for_reader(reader, language)
            own_cids, own_position_cid, attachments = maps_in(palette)
            for cid, own in zip([*cids, position_cid], [*own_cids, own_position_cid]):
                if cid and own and own != cid:  # Content-IDs are unique: the reader's pictures in place
                    html = html.replace(f"cid:{cid}", f"cid:{own}")
            subject = game_subject(game, _gm_copy(words) if reader.gm else words, language)
            rows.append(_row(game, thread, domain, to, subject, "results", now, text, html, attachments or None))
    if progress.reminders:
        rows += _reminders(session, game, progress.reminders, players, thread, domain, now)
    return _insert(session, rows)


def _gm_copy(words: str) -> str:
    # TRANSLATORS: the subject of the GM's copy of a mail every player gets too
    return _("{subject} (GM copy)", subject=words)


_ATTENTION = (
    ("late", lambda powers: _("Late (missed the deadline): {powers}", powers=powers)),
    ("civil_disorder", lambda powers: _("Now in civil disorder: {powers}", powers=powers)),
    ("returned", lambda powers: _("Back from civil disorder: {powers}", powers=powers)),
)


def _attention(session: Session, variant: Variant, reports: Sequence[dict[str, Any]], now: GameState | None,
               players: Sequence[Player]) -> list[str]:
    """What the GM's copy of the results puts first, after the deadline: the powers late, those
    now in civil disorder or back from it, the players the judge's mail no longer reaches, and
    the powers that owe orders with nobody to give them."""
    out = []
    for key, words in _ATTENTION:
        powers = sorted({p for r in reports for p in r.get(key) or []})
        if powers:
            out.append(words(", ".join(powers)))
    playing = {p.power: p for p in players if p.power}
    marks = failing.marks(session, [p.email for p in playing.values()])
    out += [_("Mail to {power}'s player: {failure}", power=power, failure=marks[p.email.lower()].said())
            for power, p in sorted(playing.items()) if p.email.lower() in marks]
    if now is not None:
        unplayed = sorted(p for p in owed(variant, now) if p not in playing)
        if unplayed:
            out.append(_("Nobody plays {powers}: their units take the rules' defaults", powers=", ".join(unplayed)))
    return out


def _reminders(session: Session, game: Game, owing: dict[str, list[str]], players: list[Player], thread: str,
               domain: str, now: datetime) -> list[dict[str, Any]]:
    current = current_phase(session, game)
    label = current.row.label if current is not None else ""
    deadline = (current.row.deadline_at if current is not None else None) or game.deadline_at
    zone = rules_of(game.options).timezone
    languages = languages_of(session, [p.email for p in players], game)
    rows = []
    for player in players:
        owed = owing.get(player.power or "")
        if not owed:
            continue
        language = languages[player.email]
        text = render("reminder.txt.j2", language, marker=NOTICE_HEADING, game=game.name, power=player.power,
                      phase=phase_name(label), owed=owed,
                      units=current is not None and (current.state.phase.kind is PhaseKind.MOVEMENT
                                                     or current.state.phase.kind in RETREATS),
                      deadline=deadline_text(deadline, zone, language=language),
                      passed=deadline is not None and deadline <= now)
        subject = _("Reminder: {power}, orders due for {phase}", power=player.power,
                    phase=season_year(label) or _("this phase"))
        rows.append(_row(game, thread, domain, player.email, game_subject(game, subject, language), "reminder", now,
                         text))
    return rows


def _position(variant: Variant, state: GameState) -> list[dict[str, Any]]:
    """Each power's units (and dislodged units) and centres, great powers first, as mail shows them."""
    majors = variant.rules.major_powers(variant, state)
    powers = majors + sorted(p for p in variant.powers if p not in majors)
    dislodged: dict[str, list[str]] = {}
    for _space, d in sorted(state.dislodged.items()):
        dislodged.setdefault(d.unit.power, []).append(str(d.unit))
    return [
        {"power": p, "minor": p not in majors and p in variant.powers,
         "units": sorted(str(u) for u in state.units_of(p)),
         "dislodged": dislodged.get(p, []),
         "centres": [variant.map.name(c) for c in state.centres_of(p)]}
        for p in powers if state.units_of(p) or state.centres_of(p) or p in dislodged
    ]


def _game_rules(game: Game) -> list[str]:
    """What the start mail says of how the game is run: the house rules, press, DKIM (Texts)."""
    lines = [*rules_of(game.options).describe(bidding=variant_of(game).has_bidding),
             _("Press: {press}", press=describe_press(press_kind(game)))]
    if game.require_dkim:
        lines.append(_("Sign-ons are read only in mail signed with DKIM by the sender's own domain"))
    return lines


# TRANSLATORS: when a variant's own order is given: '(with the moves and in the winter adjustments)'
_WHEN = {PhaseKind.MOVEMENT: _("with the moves"), PhaseKind.RETREAT: _("with retreats"),
         PhaseKind.ADJUSTMENT: _("in the winter adjustments"), PhaseKind.BIDDING: _("in the winter bidding")}


def _and(words: Sequence[str]) -> str:
    """'a and b': the words in one phrase (a Text where there are several)."""
    out = words[0] if words else ""
    for word in words[1:]:
        out = _("{first} and {second}", first=out, second=word)
    return out


def _starting_part(variant: Variant, state: GameState, power: str, game_name: str, label: str,
                   language: str = ENGLISH) -> dict[str, Any]:
    """What the start mail tells `power`'s player first (in `language`): what is due, its units
    and home centres, the variant's own orders with their syntax and budget, and njudge's short
    sign-on with the power's letter (gm.games.power_letters: Prussia's is U in Ambition & Empire)."""
    homes = sorted(state.home_centres.get(power, ()))
    special = []
    for order in special_orders(variant, power):
        budget: str = ""
        if order.points and (not order.phases or state.phase.kind in order.phases):
            points = variant.rules.points_available(variant, state, power)
            if points is not None:
                budget = _n("You have {count} {points} to spend in {phase}.",
                            "You have {count} {points}s to spend in {phase}.", points, points=order.points,
                            phase=phase_name(label))
        what = translated(order.what, language)  # capitalized as the reader reads it
        special.append({"syntax": order.syntax, "what": what[:1].upper() + what[1:],
                        "example": order.example, "budget": budget,
                        "when": _and([_WHEN.get(k, k.value.lower()) for k in order.phases])})
    letter = next((c for c, named in power_letters(variant).items() if named == power), None)
    return {
        "due": due(variant, state, power),
        "units": sorted(str(u) for u in state.units_of(power)),
        "homes": [variant.map.name(c) for c in homes],
        "others": [variant.map.name(c) for c in state.centres_of(power) if c not in homes],
        "special": special,
        "short": _("SIGNON {letter}{game} <password>", letter=letter, game=game_name) if letter else "",
    }


def queue_start(session: Session, game: Game, *, gm_address: str, gm_addresses: Sequence[str] = (),
                now: datetime) -> int:
    """Queue the mail that opens a game: to every active player, the power they play and what is
    due from it, its units and home centres, the variant's own orders and how to sign on, then
    the other powers (with the map), the house rules and the first deadline; to each address in
    `gm_addresses`, the deadline and every power. Returns the rows queued."""
    domain = _domain(gm_address)
    thread = thread_id(game, gm_address)
    variant = variant_of(game)
    current = current_phase(session, game)
    state = current.state if current is not None else variant.initial_state()
    label = current.row.label if current is not None else variant.phase_label(state.phase)
    rules = rules_of(game.options)
    position = _position(variant, state)
    values: dict[str, Any] = {
        "marker": NOTICE_HEADING, "game": game.name, "variant": variant.title, "phase": phase_name(label),
        "rules": _game_rules(game), "notes": list(variant.notes),
    }
    readers = [(p.email, p.power, reader_palette(game, p)) for p in active_players(session, game)]
    readers += [(a, None, map_palette(game)) for a in gm_addresses]
    maps = {palette: _maps(game, variant, [], [], current.row if current else None, domain, palette)
            for palette in sorted({palette for *_reader, palette in readers})}
    languages = languages_of(session, [to for to, *_rest in readers], game)
    rows = []
    for to, power, palette in readers:
        _cids, map_cid, attachments = maps[palette]
        language = languages[to]
        subject = _("The game starts: you play {power}", power=power) if power else _("The game starts")
        each = {**values, "power": power, "map_cid": map_cid,
                "deadline": deadline_text(game.deadline_at, rules.timezone, language=language),
                "mine": _starting_part(variant, state, power, game.name, label, language) if power else None,
                # a player reads the other great powers, then the minor ones in a line; the GM every power
                "others": [p for p in position if p["power"] != power and not (power and p["minor"])],
                "minors": [p for p in position if p["minor"]] if power else []}
        rows.append(_row(game, thread, domain, to, game_subject(game, subject, language), "start", now,
                         render("start.txt.j2", language, **each), render("start.html.j2", language, **each),
                         attachments or None))
    return _insert(session, rows)


def queue_deadline_moved(session: Session, game: Game, *, why: str, gm_address: str,
                         gm_addresses: Sequence[str] = (), now: datetime, headline: str | None = None) -> int:
    """Tell every player (and the GM) that the current deadline has moved, and why, in words of
    the judge's own (Texts, written in each reader's language): a player's absence is announced
    without saying whose. `headline` begins the subject (RESUME's says the game runs again;
    None: 'Deadline moved')."""
    current = current_phase(session, game)
    if current is None or game.deadline_at is None:
        return 0
    label, zone = current.row.label, rules_of(game.options).timezone
    # TRANSLATORS: the subject of the notice that the deadline moved: 'Deadline moved: Spring 1901'
    subject = _("{headline}: {season}", headline=headline or _("Deadline moved"), season=season_year(label))

    def mail(language: str) -> tuple[str, str]:
        text = render("deadline_moved.txt.j2", language, marker=NOTICE_HEADING, game=game.name,
                      phase=phase_name(label), deadline=deadline_text(game.deadline_at, zone, language=language),
                      why=why)
        return game_subject(game, subject, language), text

    readers = [p.email for p in active_players(session, game)] + list(gm_addresses)
    return _queue_text(session, game, readers, "deadline", mail, gm_address=gm_address, now=now)


def queue_announcement(session: Session, game: Game, subject: str, text: str, *, gm_address: str, now: datetime,
                       to: Sequence[str] | None = None, kind: str = "announcement") -> int:
    """Queue a GM's announcement about `game` (a rollback, a replacement, a pause, ...): `subject`
    and `text`, in the judge's words (Texts, written in each reader's language), to every active
    player, every GM and every observer (what every player is told is no secret), or to the
    registered addresses `to`; threaded with the game's other mail. Returns the rows queued."""
    if to is None:
        to = [p.email for p in active_players(session, game)] + masters(session, game) + observers(session, game)
    to = list(dict.fromkeys(to))
    # The mail that ends a game by a draw, a concession or TERMINATE shows its final position: it
    # carries the final map, as the results that end a game do, and fits a phone's width as they do.
    ending = game.status == GameStatus.FINISHED and FINAL_POSITION in text
    maps = _end_maps(session, game, to) if ending else {}

    def mail(language: str) -> tuple[str, str]:
        body = render("announcement.txt.j2", language, marker=NOTICE_HEADING, game=game.name, text=text, end=ending,
                      final_map=bool(maps))
        return game_subject(game, subject, language), body

    return _queue_text(session, game, to, kind, mail, gm_address=gm_address, now=now, attachments=maps)


def _end_maps(session: Session, game: Game, to: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    """The map of the position a game ended in, in each reader's colours, for the mail that ends
    it by a draw, a concession or the GM's TERMINATE (as the results that end a game by victory
    carry it): address -> the attachment that names it, drawn when the mail is sent."""
    end = position_at_end(session, game)
    if end is None or not has_art(variant_of(game).name):
        return {}
    palettes = {p.email: reader_palette(game, p) for p in active_players(session, game)}
    return {address: [map_attachment(end.row, "final", palettes.get(address, map_palette(game)),
                                     f"{game.name}-final-position.png")] for address in to}


def _queue_text(session: Session, game: Game, readers: Sequence[str], kind: str,
                mail: Callable[[str], tuple[str, str]], *, gm_address: str, now: datetime,
                attachments: dict[str, list[dict[str, Any]]] | None = None) -> int:
    """Queue one plain-text mail about `game` to each of `readers` (with the `attachments` of its
    address, if any), threaded with its other mail: `mail(language)` is its (subject, text) in a
    language, made once for each language the readers read. While a mail is carried out, a
    notice is gathered with its others (see one_notice_each)."""
    domain, thread = _domain(gm_address), thread_id(game, gm_address)
    languages = languages_of(session, readers, game)
    made: dict[str, tuple[str, str]] = {}
    rows = []
    for to in readers:
        language = languages[to]
        if language not in made:
            made[language] = mail(language)
        subject, text = made[language]
        rows.append(_row(game, thread, domain, to, subject, kind, now, text, attachments=(attachments or {}).get(to)))
    gathering = session.info.get(_GATHERED)
    if gathering is not None and kind != "preview":
        gathering.extend(rows)
        return len(rows)
    return _insert(session, rows)


# --- one notice a mail -----------------------------------------------------------------------------

_GATHERED = "gm.notices"  # session.info: the notices the mail being carried out has queued so far


@contextmanager
def one_notice_each(session: Session) -> Iterator[None]:
    """While one mail is carried out, the notices its commands queue about a game (a deadline
    moved, the GM's announcements) are gathered; once it is done, each reader gets one mail a
    game with them all, in the order queued, under one subject: a GM's mail with RESUME, EXTEND,
    SET DEADLINE and PAUSE is one notice to each player, not four. Nothing is queued if the mail
    raises (its transaction or savepoint is undone); see gathered() for a command undone alone."""
    gathering: list[dict[str, Any]] = []
    session.info[_GATHERED] = gathering
    try:
        yield
        del session.info[_GATHERED]
        _insert(session, _merged(gathering))
    finally:
        session.info.pop(_GATHERED, None)


def gathered(session: Session) -> list[dict[str, Any]]:
    """The notices gathered so far (see one_notice_each): a command whose savepoint is undone
    takes its own back out of the list (`del gathered(session)[before:]`)."""
    return session.info.get(_GATHERED, [])


_GAME_TAG = re.compile(r"\[[^\]]*\] ")


def _merged(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row for each reader and game of `rows`, its texts in order under one heading and one subject."""
    groups: dict[tuple[Any, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["game_id"], row["to_addr"]), []).append(row)
    merged = []
    for group in groups.values():
        if len(group) == 1:
            merged.append(group[0])
            continue
        tag = _GAME_TAG.match(group[0]["subject"])
        prefix = tag.group(0) if tag else ""
        subjects = dict.fromkeys(r["subject"].removeprefix(prefix) for r in group)
        text = "\n\n".join(without_heading(r["body_text"]).strip("\n") for r in group)
        kinds = {r["kind"] for r in group}
        attached = [a for r in group for a in r["attachments"] or []]  # the end's map, say
        merged.append({**group[0], "subject": prefix + "; ".join(subjects), "body_text": f"{NOTICE_HEADING}\n{text}\n",
                       "kind": group[0]["kind"] if len(kinds) == 1 else "announcement",
                       "attachments": attached or None})
    return merged


# --- the GM's corrections ------------------------------------------------------------------------


def annotate(session: Session, game: Game, ended: Sequence[PhaseEnd]) -> None:
    """Mark in the results of the phases just ended (as stored and as mailed) those that replace
    the results of a phase rolled back. (The orders a GM entered are marked by the adjudication.)"""
    if not ended:
        return
    corrected = rolled_back_labels(session, game)
    for end in ended:
        if end.row.label in corrected:
            end.report = annotated(end.report, correction=True)
            end.row.results_json = stored(end.report)


def preview_mail(session: Session, game: Game, label: str, ended: Sequence[PhaseEnd],
                 language: str = ENGLISH) -> tuple[str, str]:
    """(subject, text) of PREVIEW's mail to the GMs, in `language`: the results the phases `ended`
    would have, as the GM's copy (every allocation), marked as a preview of which nothing was
    kept. Made while the trial adjudication is still in the session; no maps (their phases will
    not exist)."""
    return preview_mails(session, game, label, ended, [language])[language]


def preview_mails(session: Session, game: Game, label: str, ended: Sequence[PhaseEnd],
                  languages: Iterable[str]) -> dict[str, tuple[str, str]]:
    """preview_mail in each of `languages` (those the GMs read: languages_of), by language; the
    results are adjudicated and rendered once."""
    annotate(session, game, ended)
    variant = variant_of(game)
    reports = [end.report for end in ended]
    results = _Results(game, variant, reports, [position(end.row) for end in ended], [None] * len(ended))
    # TRANSLATORS: the subject of PREVIEW's mail: 'PREVIEW, nothing kept: Spring 1901 results'
    subject = _("PREVIEW, nothing kept: {results}", results=_results_words(reports))
    out = {}
    for language in dict.fromkeys(languages):
        text = without_heading(results.for_reader(GM, language)[0])
        body = render("preview.txt.j2", language, marker=NOTICE_HEADING, game=game.name, phase=phase_name(label),
                      results=text)
        out[language] = (game_subject(game, subject, language), body)
    return out


def queue_preview(session: Session, game: Game, subject: str, text: str, *, gm_address: str,
                  now: datetime, translations: Mapping[str, tuple[str, str]] | None = None) -> int:
    """Queue PREVIEW's mail (see preview_mail) to the game's GMs, and to nobody else: to each in
    their language where `translations` (preview_mails: language -> (subject, text)) has it,
    else `subject` and `text`."""
    return _queue_text(session, game, masters(session, game), "preview",
                       lambda language: (translations or {}).get(language, (subject, text)),
                       gm_address=gm_address, now=now)


def queue_correction(session: Session, game: Game, changes: Sequence[str], withdrawn: Sequence[tuple[str, str]],
                     *, gm_address: str, now: datetime) -> int:
    """REISSUE: tell every player and GM that the GM corrected the position of the current phase,
    marked as a GM correction: what changed (`changes`, in words for everyone), the position now
    with its map, and to each player the orders of theirs withdrawn as no longer fitting
    (`withdrawn`, (power, order): the GM sees them all). Returns the rows queued."""
    current = current_phase(session, game)
    if current is None:
        return 0
    domain, thread = _domain(gm_address), thread_id(game, gm_address)
    variant = variant_of(game)
    rules = rules_of(game.options)
    label = current.row.label
    values: dict[str, Any] = {
        "marker": NOTICE_HEADING, "game": game.name, "variant": variant.title, "phase": phase_name(label),
        "changes": list(changes), "position": _position(variant, current.state),
    }
    readers = [(p.email, Reader.player(p.power), reader_palette(game, p)) for p in active_players(session, game)]
    readers += [(a, GM, map_palette(game)) for a in masters(session, game)]
    maps = {palette: _maps(game, variant, [], [], current.row, domain, palette)
            for palette in sorted({palette for *_reader, palette in readers})}
    languages = languages_of(session, [to for to, *_rest in readers], game)
    subject = _("GM correction: the position in {season}", season=season_year(label))
    rows = []
    for to, reader, palette in readers:
        _cids, map_cid, attachments = maps[palette]
        language = languages[to]
        own = [f"{p}: {o}" if reader.gm else o for p, o in withdrawn if reader.owns({"power": p})]
        each = {**values, "map_cid": map_cid, "withdrawn": own, "gm": reader.gm,
                "deadline": deadline_text(game.deadline_at, rules.timezone, language=language)}
        rows.append(_row(game, thread, domain, to, game_subject(game, _gm_copy(subject) if reader.gm else subject,
                                                                language), "correction", now,
                         render("correction.txt.j2", language, **each), render("correction.html.j2", language, **each),
                         attachments or None))
    return _insert(session, rows)
