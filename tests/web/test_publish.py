"""The games' pages at the edges: `gm game pages NAME --out DIR`, and what `gm serve` runs (the
task that writes the pages after each phase, the HTTP server of the folder)."""
from __future__ import annotations

import asyncio
import time
import urllib.request
from pathlib import Path

import pytest
from sqlalchemy.orm import Session, sessionmaker

from gm.cli import main
from gm.games import find_game
from gm.lifecycle.house_rules import OPTION_KEY
from gm.lifecycle.timing import set_options
from gm.settings import SettingsError, load_settings
from gm.store.db import transaction
from gm.view import paths
from gm.web.publish import http_server, keep_pages, serve_pages
from played import BROADCAST, GAME, play


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_gm_game_pages_writes_one_games_pages(session_factory: sessionmaker[Session], migrated_url: str,
                                              tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    play(session_factory, phase_count=2)
    monkeypatch.setenv("GM_DATABASE_URL", migrated_url)
    out = tmp_path / "site"
    assert main(["game", "pages", GAME.upper(), "--out", str(out)]) == 0
    said = capsys.readouterr().out
    page = out / paths.game_folder(GAME) / paths.game_page()
    assert f"open {page}" in said and page.exists() and BROADCAST in page.read_text()
    assert (out / paths.INDEX).exists()
    assert main(["game", "pages", "nosuchgame", "--out", str(out)]) == 2
    assert "there is no game called nosuchgame" in capsys.readouterr().err
    with transaction(session_factory) as s:
        game = find_game(s, GAME)
        assert game is not None
        set_options(game, {OPTION_KEY: {**(game.options or {})[OPTION_KEY], "pages": "private"}})
    assert main(["game", "pages", GAME, "--out", str(out)]) == 2
    assert "is private (house rule pages): it has no pages" in capsys.readouterr().err


def test_the_settings_of_the_pages() -> None:
    settings = load_settings(environ={"GM_PAGES_DIR": "/srv/pages", "GM_HTTP_PORT": "8080",
                                      "GM_PUBLIC_URL": "https://example.org/games/"})
    assert (settings.pages_dir, settings.http_port, settings.public_url) == (
        Path("/srv/pages"), 8080, "https://example.org/games")
    assert load_settings(environ={}).pages_dir is None  # off by default
    with pytest.raises(SettingsError, match="no folder of pages to serve"):
        load_settings(environ={"GM_HTTP_PORT": "8080"})
    with pytest.raises(SettingsError, match="not a web address"):
        load_settings(environ={"GM_PAGES_DIR": "/srv/pages", "GM_PUBLIC_URL": "example.org"})


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_gm_serve_writes_the_pages_after_a_phase_and_serves_them(
        session_factory: sessionmaker[Session], tmp_path: Path) -> None:
    asyncio.run(_serving(session_factory, tmp_path / "pages"))


async def _serving(session_factory: sessionmaker[Session], out: Path) -> None:
    busy = http_server(out, 0, "127.0.0.1")  # a port taken: gm serve says so at start, in one line
    with pytest.raises(SettingsError, match="cannot serve the games' pages on it"):
        http_server(out, busy.server_address[1], "127.0.0.1")
    busy.server_close()
    server = http_server(out, 0, "127.0.0.1")
    port = server.server_address[1]
    tasks = [asyncio.create_task(keep_pages(session_factory, out, tick=0.1)),
             asyncio.create_task(serve_pages(server))]
    try:
        await asyncio.to_thread(play, session_factory, phase_count=2)
        url = f"http://127.0.0.1:{port}/{paths.game_folder(GAME)}/{paths.game_page()}"
        deadline = time.monotonic() + 60
        while True:  # the pages follow the game with nobody telling them
            try:
                page = await asyncio.to_thread(lambda: urllib.request.urlopen(url).read().decode())
                if "Fall 1763, Movement" in page:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "the pages did not follow the game"
            await asyncio.sleep(0.2)
        assert "Spring 1763, Movement" in page
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
