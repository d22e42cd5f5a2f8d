"""The games' pages inside `gm serve`: after each adjudication (by the scheduler, a GM's PROCESS,
a rollback, ...) the game's pages are written again, and the folder is served over HTTP when
GM_HTTP_PORT asks for it.

Which games changed is seen in one query a round, from what the pages show of them (status,
deadline, house rules, phases, broadcast press): the pages follow every path that changes a game
without any of them knowing of pages, and the game's life stays free of files. What the pages
show is read in one transaction; the maps are drawn and the files written after it."""
from __future__ import annotations

import asyncio
import functools
import hashlib
import html
import json
import logging
import os
import threading
from http import HTTPStatus
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from gm.i18n import ENGLISH, LANGUAGES, _, translated
from gm.lifecycle.house_rules import OPTION_KEY
from gm.maps.store import MapStore
from gm.settings import SettingsError
from gm.store.db import transaction
from gm.store.models import Game, GamePhase, OutboundMail
from gm.web.pages import PhaseCache, game_pages
from gm.web.writer import Written, index_entries, kept_pages, write_index, write_pages

log = logging.getLogger(__name__)

CACHED_PHASES = 2000  # adjudicated phases kept decoded between rounds (a few MB), then read again
TICK_SECONDS = 2.0  # the longest between two looks at the games for a change


def _fingerprints(session: Session) -> dict[int, str]:
    """Game id -> what its pages are made of, in short: it changes whenever a page would."""
    phases = (select(GamePhase.game_id, func.count(GamePhase.id), func.max(GamePhase.adjudicated_at),
                     func.max(GamePhase.opened_at), func.max(GamePhase.deadline_at))
              .group_by(GamePhase.game_id))
    by_phase = {game_id: rest for game_id, *rest in session.execute(phases)}
    # Press is kept as the mail that relayed it, under no game: any press may be new broadcast press.
    press = session.scalar(select(func.max(OutboundMail.id)).where(OutboundMail.kind == "press"))
    out = {}
    for game_id, name, status, deadline, paused, options, outcome in session.execute(
            select(Game.id, Game.name, Game.status, Game.deadline_at, Game.paused_at, Game.options, Game.outcome)):
        shows_press = ((options or {}).get(OPTION_KEY) or {}).get("pages_press") == "broadcast"
        made_of = [name, status, deadline, paused, options, outcome, by_phase.get(game_id), shows_press and press]
        out[game_id] = hashlib.sha256(json.dumps(made_of, sort_keys=True, default=str).encode()).hexdigest()
    return out


class Publisher:
    """Keeps a folder of pages up to date with the database: `round()` writes the pages of every
    game changed since the last round (all of them at the first), and the index."""

    def __init__(self, session_factory: sessionmaker[Session], out: Path) -> None:
        self.session_factory = session_factory
        self.out = out
        self.seen: dict[int, str] = {}
        self.phases: PhaseCache = {}  # the adjudicated phases read before (gm.web.pages.stored_phases)
        self.maps = MapStore(session_factory)  # the maps the mail drew too (gm.maps.store)

    def round(self) -> Written:
        done = Written()
        with transaction(self.session_factory) as session:
            now = _fingerprints(session)
            changed = [game_id for game_id, made_of in now.items() if self.seen.get(game_id) != made_of]
            if not changed and now.keys() == self.seen.keys():
                return done
            shown: list[tuple[str, Any]] = []
            for game_id in changed:
                game = session.get(Game, game_id)
                if game is not None:
                    shown.append((game.name, game_pages(session, game, kept_pages(self.out, game.name), self.phases)))
            index = index_entries(session)
        for name, pages in shown:  # after the transaction: drawing maps takes a while
            done.add(write_pages(self.out, name, pages, self.maps))
        done.files.append(write_index(self.out, index))
        self.seen = now
        if len(self.phases) > CACHED_PHASES:
            self.phases.clear()
        return done


async def keep_pages(session_factory: sessionmaker[Session], out: Path, *, tick: float = TICK_SECONDS) -> None:
    """Write the pages of every game that changed, at least every `tick` seconds, until cancelled."""
    publisher = Publisher(session_factory, out)
    log.info("writing the games' pages to %s", out)
    while True:
        try:
            done = await asyncio.to_thread(publisher.round)
            if done.pages or done.maps or done.removed:
                log.info("pages: %d pages and %d maps written, %d files removed", done.pages, done.maps, done.removed)
        except asyncio.CancelledError:
            raise
        except Exception:  # a page that cannot be written must not stop the judge: tried again next round
            log.exception("pages: could not write the games' pages to %s; trying again", out)
        await asyncio.sleep(tick)


UNSUBSCRIBE_PATH = "unsubscribe"  # the one-click links of the judge's mail (gm.lifecycle.leaving)
Leave = Callable[[str], "str | None"]  # carries out a link's token: what was done, None for a bad token
_MAX_POST = 4096  # bytes of a one-click POST's body read at most (RFC 8058's is 26)
_NOT_OURS = _("This link is not one of the judge's.")


class _Handler(SimpleHTTPRequestHandler):
    """The folder's files, and nothing else: no folder listing (it would name the unlisted
    games), no hidden files; and the one-click links of the judge's mail (RFC 8058): a POST to
    /unsubscribe?t=TOKEN does what the link says, a GET only shows a button that POSTs, since
    mail scanners open every link they find."""

    leave: Leave | None = None

    def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
        token = self._token()
        if token is None:
            super().do_GET()
            return
        button = self._said(_("Stop this mail"))
        form = (f'<form method="post" action="/{UNSUBSCRIBE_PATH}?t={html.escape(token)}">'
                '<input type="hidden" name="List-Unsubscribe" value="One-Click">'
                f'<button type="submit">{button}</button></form>')
        self._page(HTTPStatus.OK, _("Stop the judge's mail"), form)

    def do_POST(self) -> None:  # noqa: N802 (the standard library's name)
        token = self._token()
        if token is None or self.leave is None:
            self.send_error(HTTPStatus.NOT_FOUND, "No such page")
            return
        length = min(int(self.headers.get("Content-Length") or 0), _MAX_POST) if (
            self.headers.get("Content-Length") or "0").isdigit() else 0
        self.rfile.read(length)
        try:
            done = self.leave(token)
        except Exception:
            log.exception("http: a one-click link could not be carried out")
            self._page(HTTPStatus.SERVICE_UNAVAILABLE, _("Not done"),
                       "<p>" + self._said(_("The judge could not do it just now: try again later.")) + "</p>")
            return
        if done is None:
            self._page(HTTPStatus.NOT_FOUND, _("No such link"), f"<p>{self._said(_NOT_OURS)}</p>")
            return
        self._page(HTTPStatus.OK, _("Done"), f"<p>{self._said(done)}</p>")

    def _token(self) -> str | None:
        """The token of a one-click link (/unsubscribe?t=...), or None for any other path."""
        parts = urlsplit(self.path)
        if parts.path.rstrip("/") != f"/{UNSUBSCRIBE_PATH}":
            return None
        values = parse_qs(parts.query).get("t") or [""]
        return values[0][:600]

    def _language(self) -> str:
        """The reader's language, as their browser asks for it (Accept-Language), among the judge's."""
        asked = []
        for i, part in enumerate((self.headers.get("Accept-Language") or "").split(",")):
            tag, _semi, q = part.strip().partition(";")
            try:
                weight = float(q.strip().removeprefix("q=")) if q else 1.0
            except ValueError:
                weight = 0.0
            asked.append((-weight, i, tag.strip().lower().replace("_", "-").split("-")[0]))
        return next((tag for weight, _i, tag in sorted(asked) if weight < 0 and tag in LANGUAGES), ENGLISH)

    def _said(self, text: str) -> str:
        """A sentence of the judge's in the reader's language, escaped for the page."""
        return html.escape(translated(text, self._language()), quote=False)

    def _page(self, status: HTTPStatus, title: str, body: str) -> None:
        heading = self._said(title)
        page = (f"<!doctype html><html lang=\"{self._language()}\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
                f"content=\"width=device-width\"><title>{heading}</title></head><body><h1>{heading}</h1>{body}"
                "</body></html>").encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(page)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(page)

    def list_directory(self, path: Any) -> None:  # type: ignore[override]
        self.send_error(HTTPStatus.NOT_FOUND, "No such page")
        return None

    def send_head(self) -> Any:
        if not self._may_name_a_page():
            self.send_error(HTTPStatus.NOT_FOUND, "No such page")
            return None
        return super().send_head()

    def _may_name_a_page(self) -> bool:
        """Not a hidden file, and a name the file system can take: a NUL byte or a lone surrogate
        (from `%00`, `%ed%a0%80`) makes `open` raise, which would drop the connection unanswered."""
        if any(part.startswith(".") for part in unquote(self.path.split("?")[0]).split("/")):
            return False
        local = self.translate_path(self.path)
        try:
            os.fsencode(local)
        except UnicodeEncodeError:
            return False
        return "\x00" not in local

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the standard library's name)
        log.debug("http: %s " + format, self.address_string(), *args)


def http_server(folder: Path, port: int, host: str = "", *, leave: Leave | None = None) -> ThreadingHTTPServer:
    """An HTTP server of the folder's pages on `port` (0: any free one), not yet serving; with
    `leave`, it carries out the one-click links of the judge's mail too."""
    folder.mkdir(parents=True, exist_ok=True)
    handler = type("Handler", (_Handler,), {"leave": staticmethod(leave)}) if leave is not None else _Handler
    try:
        return ThreadingHTTPServer((host, port), functools.partial(handler, directory=str(folder)))
    except OSError as e:
        raise SettingsError(f"GM_HTTP_PORT (or http_port) {port}: cannot serve the games' pages on it: "
                            f"{e.strerror or e}: stop what uses that port, or set another") from None


async def serve_pages(server: ThreadingHTTPServer) -> None:
    """Serve (http_server's folder) over HTTP until cancelled."""
    folder = getattr(server.RequestHandlerClass, "keywords", {}).get("directory", "")
    host, port = server.server_address[:2]
    thread = threading.Thread(target=server.serve_forever, name="pages http", daemon=True)
    thread.start()
    log.info("serving the games' pages from %s on http://%s:%d/", folder, host or "0.0.0.0", port)
    try:
        await asyncio.Event().wait()
    finally:
        await asyncio.to_thread(server.shutdown)
        server.server_close()
