"""The maps a mail of the judge's carries: which stored phase a map shows and in whose colours,
the attachment that names it when the mail is queued, and the drawing of it when the outbox sends
the mail (once for every reader that names the same picture, and kept in the map store,
gm.maps.store, for the pages and every other sender). Adjudication at a deadline never waits for a
picture, and a picture that cannot be drawn leaves the mail without it, never unsent."""
from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import logging
from collections.abc import Callable
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session

from gm.engine.model import Phase
from gm.engine.variant import Variant
from gm.games import current_phase, variant_of
from gm.i18n import _
from gm.lifecycle.phase_names import find_phase, phase_name
from gm.lifecycle.phases import FINAL_KEY, position
from gm.maps.art import has_art
from gm.maps.render import Scene, position_scene, results_scene
from gm.maps.render import render as draw_scene
from gm.maps.store import MapStore
from gm.store.db import state_from_json
from gm.store.models import Game, GamePhase, Player
from gm.view.reader import PUBLIC
from gm.view.languages import game_language
from gm.view.results import season_year

log = logging.getLogger(__name__)


def map_palette(game: Game) -> str:
    return str((game.options or {}).get("map_palette", "rulebook"))


def map_phase(session: Session, game: Game, phase: Phase | None = None) -> GamePhase:
    """The stored phase whose map is asked for: the phase `phase`, or without one the phase under
    way. ValueError says why there is none (its first argument a Text: the reader's words). No
    drawing: MAP checks this as the mail is read, and the outbox sender draws the map when it sends
    the reply."""
    variant = variant_of(game)
    if not has_art(variant.name):
        raise ValueError(_("the judge has no map of {variant}", variant=variant.title))
    if phase is None:
        current = current_phase(session, game)
        if current is None:
            raise ValueError(_("{game} has not started", game=game.name))
        return current.row
    found = find_phase(session, game, phase, variant)
    if found is None:
        raise ValueError(_("{game} has had no phase {phase}", game=game.name,
                           phase=phase_name(variant.phase_label(phase))))
    return found


def map_kind(row: GamePhase) -> str:
    """What the map of a stored phase shows: 'results' (its orders and their results) once it is
    adjudicated; else 'position', since the phase under way has no results yet."""
    return "results" if row.adjudicated_at is not None else "position"


def stored_map(session: Session, game: Game, phase: Phase | None = None, palette: str | None = None
               ) -> tuple[bytes, str]:
    """The map of a stored game (see map_phase), in `palette` (default: the game's); with the
    phase's label. ValueError says why there is none."""
    row = map_phase(session, game, phase)
    variant = variant_of(game)
    scene = _stored_scene(game, variant, row, results=map_kind(row) == "results")
    return draw_scene(variant, scene, palette or map_palette(game)), row.label


def _stored_scene(game: Game, variant: Variant, row: GamePhase, *, results: bool, final: bool = False) -> Scene:
    """A stored phase's map: its orders and their results, or the position it started from; with
    `final`, the position the game ended in (its legend the final count of centres): after the
    phase whose results ended it, or, where a draw, a concession or the GM ended it, the position
    of the phase then under way. Its words are in the game's language."""
    language = game_language(game)
    if final:
        final_state = (row.results_json or {}).get(FINAL_KEY)
        state = state_from_json(final_state) if final_state is not None else position(row)
        scene = position_scene(variant, state, game.name, language=language)
        # One picture for every reader: its words are drawn in the game's language, as its pages'.
        return dataclasses.replace(scene, title=_("{game}: the end ({season})", game=game.name,
                                                  season=season_year(row.label)),
                                   subtitle=_("final position"))
    if results and row.results_json:  # one map for all
        return results_scene(variant, position(row), PUBLIC.report(row.results_json), game.name, language=language)
    return position_scene(variant, position(row), game.name, language=language)


def reader_palette(game: Game, player: Player | None) -> str:
    """The map colours a reader gets: the player's own choice (SET MAP), else the game's."""
    return (player.map_palette if player is not None else None) or map_palette(game)


def map_attachment(row: GamePhase, kind: str, palette: str, filename: str, content_id: str | None = None
                   ) -> dict[str, Any]:
    """An attachment that names a map rather than carries it: the map of the stored phase `row`
    ('results' or 'position', see map_kind) in `palette`, which the outbox sender draws when it
    sends the mail (draw_attachments). With `content_id`, the HTML of the mail shows it inline."""
    # When the phase opened, too: a rollback removes phases, and their ids may be used again.
    opened = row.opened_at.isoformat() if row.opened_at is not None else None
    attachment: dict[str, Any] = {"filename": filename, "content_type": "image/png"}
    if content_id is not None:
        attachment["content_id"] = content_id
    attachment["map"] = {"phase": row.id, "opened": opened, "kind": kind, "palette": palette}
    return attachment


# The sender keeps the last maps it drew (see OutboxSender.drawn_maps): the readers of one results
# mail, and the addresses of one acknowledgement, name the same picture, and each costs tens of
# milliseconds to draw; a few dozen cover a batch of results in several colours.
DRAWN_KEPT = 48


class DrawnMaps(dict[tuple[str, ...], "str | None"]):
    """What a map is drawn from -> the map, base64 (None: not drawable): the last ones this sender
    drew; with a `store` (gm.maps.store), a map it has not is looked for there before it is drawn,
    and kept there once drawn, for the pages and every other sender."""

    store: MapStore | None = None


def draw_attachments(session: Session, attachments: list[dict[str, Any]] | None, drawn: DrawnMaps | None = None
                     ) -> list[dict[str, Any]] | None:
    """The attachments of an outbox row as sent: a map named by its phase and kind is drawn now,
    once for all the rows that name it while it is in `drawn` (the same picture for each: maps
    hold no secret). A picture that cannot be drawn is left out, logged."""
    drawn = DrawnMaps() if drawn is None else drawn
    return draw_planned(plan_attachments(session, attachments, drawn), drawn)


def plan_attachments(session: Session, attachments: list[dict[str, Any]] | None, drawn: DrawnMaps,
                     plans: dict[str, Any] | None = None) -> list[dict[str, Any]] | None:
    """What draw_attachments reads in `session`: each map an attachment names, as the picture
    drawn before (in `drawn`) or as what to draw it from. draw_planned draws them after the
    session's transaction: on SQLite a transaction holds the whole database, and drawing takes
    tens of milliseconds a map. `plans` keeps what was read for the other rows of the same
    transaction (a results mail's readers name the same maps): one look at a phase for them all."""
    if plans is None:
        return _replace_key(attachments, "map", lambda spec: _plan_stored(session, spec, drawn))

    def planned(spec: dict[str, Any]) -> dict[str, Any] | None:
        known = json.dumps(spec, sort_keys=True, default=str)
        if known not in plans:
            plans[known] = _plan_stored(session, spec, drawn)
        return plans[known]

    return _replace_key(attachments, "map", planned)


def draw_planned(attachments: list[dict[str, Any]] | None, drawn: DrawnMaps) -> list[dict[str, Any]] | None:
    """The attachments plan_attachments planned, each map drawn (once for all that name it)."""
    return _replace_key(attachments, "drawing", lambda plan: _data(_draw(drawn, *plan)))


def _data(data: str | None) -> dict[str, Any] | None:
    return None if data is None else {"data": data}


def _replace_key(attachments: list[dict[str, Any]] | None, key: str,
                 replacement: Callable[[Any], dict[str, Any] | None]) -> list[dict[str, Any]] | None:
    """`attachments`, each that has `key` with it replaced by what `replacement` makes of its
    value; left out when that is None (a picture that cannot be drawn)."""
    if not attachments or not any(key in a for a in attachments):
        return attachments
    out = []
    for attachment in attachments:
        if key not in attachment:
            out.append(attachment)
            continue
        replaced = replacement(attachment[key])
        if replaced is not None:
            out.append({k: v for k, v in attachment.items() if k != key} | replaced)
    return out


def _plan_stored(session: Session, spec: dict[str, Any], drawn: DrawnMaps) -> dict[str, Any] | None:
    """{'data': the picture} when `drawn` holds it, {'drawing': what to draw it from} else; None
    when it cannot be drawn: its phase is gone, or is another now (a GM rolled the game back
    after the mail was queued)."""
    phase_id = int(spec["phase"])
    row = session.get(GamePhase, phase_id)
    opened = spec.get("opened")
    if row is None or opened is not None and row.opened_at != datetime.fromisoformat(opened):
        log.error("phase %s is no longer the one to draw (rolled back?): the mail goes without its map", phase_id)
        return None
    game = session.get(Game, row.game_id)
    variant = variant_of(game)
    kind, palette = str(spec["kind"]), str(spec.get("palette") or "rulebook")
    results = kind in ("results", "final")
    # Known by what it is drawn from, not by the phase's id: a GM's correction (REISSUE) or civil
    # disorder changes the position of the phase under way in place.
    source = json.dumps([row.state_json, row.results_json if results else None], sort_keys=True, default=str)
    key = (variant.name, game.name, kind, palette, game_language(game), hashlib.sha256(source.encode()).hexdigest())
    if key in drawn:
        drawn[key] = drawn.pop(key)  # used last: dropped last
        return _data(drawn[key])
    try:
        scene = _stored_scene(game, variant, row, results=results, final=kind == "final")
    except Exception:  # a stored phase that makes no picture: the mail goes without it, not never
        log.exception("could not make the map of %s (phase %s)", game.name, phase_id)
        return None
    return {"drawing": (key, variant, scene, palette)}


def _draw(drawn: DrawnMaps, key: tuple[Any, ...], variant: Variant, scene: Scene, palette: str) -> str | None:
    """The picture, base64, drawn and kept in `drawn` (or found there: drawn for an earlier row)."""
    if key in drawn:
        return drawn[key]
    try:
        store = getattr(drawn, "store", None)
        png = (store.picture(variant, scene, palette, draw=draw_scene) if store is not None
               else draw_scene(variant, scene, palette))
        data: str | None = base64.b64encode(png).decode("ascii")
    except Exception:  # the mail goes without the picture rather than not at all
        log.exception("could not draw the map of %s", scene.title)
        data = None
    drawn[key] = data
    while len(drawn) > DRAWN_KEPT:
        del drawn[next(iter(drawn))]  # the least recently used
    return data
