"""The games' web pages of an Ambition & Empire game played by mail: what they show (every phase's
public orders and results, the maps, the centres, broadcast press), what they never show (a
secret allocation, an address, press to some powers only) in any file of the folder, PNG
metadata included; listed, unlisted and private games; the results mail's link; gm serve's HTTP
server; and Chromium opening the pages as a player would."""
from __future__ import annotations

import re
import threading
import urllib.error
import urllib.request
from email.message import EmailMessage
from html import unescape
from pathlib import Path

import pytest
from PIL import Image
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import add_master, find_game
from gm.mail.ingest import ingest
from gm.store.passwords import hash_password
from gm.lifecycle.phases import history
from gm.lifecycle.rollback import last_adjudicated, roll_back
from gm.store.models import utcnow
from gm.lifecycle.timing import set_options
from gm.lifecycle.house_rules import OPTION_KEY
from gm.store.db import transaction
from gm.store.models import OutboundMail
from gm.view import paths
from gm.web.publish import Publisher, http_server
from gm.web.writer import write_all
from played import BROADCAST, GAME, MASTER, PRIVATE_PRESS, PUBLIC_URL, Browser, play

# An allocation as a page could show it: 'DP 2 A TUS H', 'DP 1 F ION S A TUN - NAP'.
ALLOCATION = re.compile(rb"\bDP\s*\d+\s+[AF?]\s+[A-Z]{3}")
SECRET_WORDS = re.compile(rb"\b(DP|IP|LOAN|CONVERT|bank(ed)?|bids?)\b", re.IGNORECASE)


def _files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()]


def _png_metadata(path: Path) -> str:
    with Image.open(path) as picture:
        return repr(picture.info) + repr(getattr(picture, "text", {}))


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", html)))


def test_no_secret_anywhere_in_the_folder_and_the_public_results_are_there(
        session_factory: sessionmaker[Session], tmp_path: Path) -> None:
    played = play(session_factory)
    assert len(played.allocations) >= 5, "the game must have DP allocations to keep secret"
    out = tmp_path / "pages"
    with transaction(session_factory) as s:
        done = write_all(s, out)
        game = find_game(s, GAME)
        assert game is not None
        rows = history(s, game)
        public = [(r.label, e["order"]) for r in rows for e in (r.results_json or {}).get("orders", [])]
        secret = [e["order"] for r in rows for e in (r.results_json or {}).get("secret", [])]
    assert done.pages and done.maps and len(rows) >= 5
    assert secret, "the stored results keep the allocations apart (the GM's copy shows them)"
    files = _files(out)
    assert any(p.suffix == ".png" for p in files)
    for path in files:
        data = path.read_bytes()
        if path.suffix == ".png":
            data += _png_metadata(path).encode()
        assert not ALLOCATION.search(data), f"{path} shows an allocation"
        for shown in played.allocations + secret:
            assert shown.encode() not in data, f"{path} shows the allocation {shown!r}"
        for address in played.addresses:
            assert address.encode() not in data, f"{path} shows the address {address}"
        assert PRIVATE_PRESS.encode() not in data, f"{path} shows press sent to one power"
        if path.suffix == ".html":
            assert not SECRET_WORDS.search(_text(data.decode()).replace(
                "Secret allocations (DP, IP, bids, banks, loans) are never shown here", "").encode()), path
    # every public order of every phase is on that phase's page (in both palettes' pages)
    folder = out / paths.game_folder(GAME)
    for label, order in public:
        for colourblind in (False, True):
            page = _text((folder / paths.phase_page(label, colourblind=colourblind)).read_text())
            assert order in page, f"{order} not on the page of {label}"
    game_page = _text((folder / paths.game_page()).read_text())
    assert BROADCAST in game_page  # the game's house rule shows broadcast press
    assert "Ambition & Empire" in game_page and "Supply centres, year by year" in game_page
    newest = rows[-1].label
    assert game_page.index(f"The newest phase: {newest}") < game_page.index("House rules")
    # the images say what they show in words, and the orders are beside them as text
    assert all(re.search(r'alt="[^"]{20,}"', p.read_text()) for p in folder.glob("*.html"))


def test_listed_unlisted_and_private_games(session_factory: sessionmaker[Session], tmp_path: Path) -> None:
    play(session_factory, phase_count=2)
    out = tmp_path / "pages"
    publisher = Publisher(session_factory, out)
    publisher.round()
    folder = out / paths.game_folder(GAME)
    assert (folder / "index.html").exists() and f'href="{paths.game_folder(GAME)}/index.html"' in (
        out / paths.INDEX).read_text()

    def house_rule(value: str) -> None:
        with transaction(session_factory) as s:
            game = find_game(s, GAME)
            assert game is not None
            set_options(game, {OPTION_KEY: {**(game.options or {})[OPTION_KEY], "pages": value}})

    house_rule("unlisted")
    publisher.round()  # the change is seen without anyone telling the publisher
    assert (folder / "index.html").exists()
    assert GAME not in _text((out / paths.INDEX).read_text())
    assert all('name="robots" content="noindex"' in page.read_text() for page in folder.glob("*.html"))
    assert not any('href="../../index.html"' in page.read_text() for page in folder.glob("*.html"))
    assert GAME not in _text((out / paths.GAMES / "index.html").read_text())  # no folder listing names it
    house_rule("private")
    publisher.round()
    assert not folder.exists()
    assert GAME not in _text((out / paths.INDEX).read_text())
    # nothing changed: nothing written
    again = publisher.round()
    assert again.pages == again.maps == 0


def test_a_phase_adds_its_pages_and_a_rollback_takes_them_away(
        session_factory: sessionmaker[Session], tmp_path: Path) -> None:
    play(session_factory, phase_count=3)
    out = tmp_path / "pages"
    publisher = Publisher(session_factory, out)
    first = publisher.round()
    assert first.pages and first.maps
    folder = out / paths.game_folder(GAME)
    with transaction(session_factory) as s:
        game = find_game(s, GAME)
        assert game is not None
        labels = [r.label for r in history(s, game)]
        roll_back(s, game, last_adjudicated(s, game), utcnow())  # type: ignore[arg-type]
    gone = paths.phase_page(labels[-1])
    assert (folder / gone).exists() and f'href="{gone}"' in (folder / paths.phase_page(labels[-2])).read_text()
    again = publisher.round()
    assert not (folder / gone).exists() and not (folder / paths.phase_page(labels[-1], colourblind=True)).exists()
    before = (folder / paths.phase_page(labels[-2])).read_text()
    assert 'rel="next"' not in before and "(the newest phase)" in before
    assert again.pages < first.pages and again.maps < first.maps  # the rest was kept, not made again
    assert f'href="{gone}"' not in (folder / paths.game_page()).read_text()


def test_the_results_mail_links_to_the_phase_page(session_factory: sessionmaker[Session]) -> None:
    play(session_factory, phase_count=1)
    with transaction(session_factory) as s:
        rows = s.scalars(select(OutboundMail).where(OutboundMail.kind == "results")).all()
        label = history(s, find_game(s, GAME))[0].label  # type: ignore[arg-type]
    url = paths.phase_url(PUBLIC_URL, GAME, label)
    assert rows and all(url in r.body_text and f'href="{url}"' in (r.body_html or "") for r in rows)
    assert any(r.to_addr == MASTER for r in rows)


def test_results_a_gm_processes_by_mail_link_to_the_phase_page(session_factory: sessionmaker[Session]) -> None:
    play(session_factory, phase_count=0)
    with transaction(session_factory) as s:
        game = find_game(s, GAME)
        assert game is not None
        add_master(s, game, MASTER, hash_password("gm-pw"))
    master = EmailMessage()
    master["From"], master["To"], master["Subject"] = MASTER, "gm@example.org", "process"
    master["Message-ID"] = "<process-1@example.org>"
    master.set_content(f"SIGNON MASTER {GAME} gm-pw\nPROCESS")
    ingest(session_factory, master.as_bytes(), gm_address="gm@example.org", public_url=PUBLIC_URL)
    with transaction(session_factory) as s:
        rows = s.scalars(select(OutboundMail).where(OutboundMail.kind == "results")).all()
        label = history(s, find_game(s, GAME))[0].label  # type: ignore[arg-type]
    url = paths.phase_url(PUBLIC_URL, GAME, label)
    assert rows and all(url in r.body_text and f'href="{url}"' in (r.body_html or "") for r in rows)


def test_the_http_server_serves_the_folder_and_nothing_else(tmp_path: Path) -> None:
    folder = tmp_path / "pages"
    (folder / "games" / "x" / "maps").mkdir(parents=True)
    (folder / "index.html").write_text("<p>the index</p>")
    (folder / "games" / "x" / "index.html").write_text("<p>game x</p>")
    (folder / "games" / "x" / ".pages.json").write_text("{}")
    server = http_server(folder, 0, "127.0.0.1")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        with urllib.request.urlopen(f"{base}/") as answer:
            assert answer.status == 200 and b"the index" in answer.read()
        with urllib.request.urlopen(f"{base}/games/x/index.html") as answer:
            assert b"game x" in answer.read()
        for hidden in ("/games/x/maps/", "/games/x/.pages.json", "/games/x/%2epages.json", "/nothing.html"):
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(base + hidden)
            assert refused.value.code == 404, hidden
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize("db_url", ["sqlite"], indirect=True)
def test_a_browser_shows_the_orders_loads_the_maps_and_follows_the_links(
        session_factory: sessionmaker[Session], tmp_path: Path, browser: Browser) -> None:
    play(session_factory, phase_count=4)
    out = tmp_path / "pages"
    with transaction(session_factory) as s:
        write_all(s, out)
        game = find_game(s, GAME)
        assert game is not None
        rows = history(s, game)
        first, second = rows[0], rows[1]
        order = (first.results_json or {})["orders"][0]["order"]
    server = http_server(out, 0, "127.0.0.1")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    base = f"http://127.0.0.1:{server.server_address[1]}"
    folder = f"{base}/{paths.game_folder(GAME)}"
    try:
        # the index leads to the game; the game's page to its phases, newest first
        index = browser.dom(f"{base}/index.html")
        assert f'href="{paths.game_folder(GAME)}/index.html"' in index
        page = browser.dom(f"{folder}/index.html")
        listed = re.findall(r'<li><a href="([^"]+)">', page)
        assert listed[0] == paths.phase_page(rows[-1].label) and listed[-1] == paths.phase_page(first.label)
        # a phase's page shows its orders; its next link leads to the next phase, whose previous link leads back
        shown = browser.dom(f"{folder}/{paths.phase_page(first.label)}")
        assert order in _text(shown)
        (nxt,) = re.findall(r'rel="next" href="([^"]+)"', shown)
        assert nxt == paths.phase_page(second.label)
        followed = browser.dom(f"{folder}/{nxt}")
        assert f"{GAME}: {second.label}" in _text(followed)
        (back,) = re.findall(r'rel="prev" href="([^"]+)"', followed)
        assert back == paths.phase_page(first.label)
        # the colour-blind choice is a link to the same page with other maps
        (other,) = re.findall(r'<a href="([^"]+)">colour-blind-safe</a>', shown)
        assert "colourblind.png" in browser.dom(f"{folder}/{other}")
        # the maps load: a page of the test's own (the game's pages have no script) opens the
        # phase's page in a frame and reports each picture's size as the browser decoded it
        (out / "probe.html").write_text(
            f'<iframe id="f" src="{paths.game_folder(GAME)}/{paths.phase_page(first.label)}"></iframe><pre id="r"></pre>'
            '<script>document.getElementById("f").onload = () => { const d = document.getElementById("f")'
            '.contentDocument; document.getElementById("r").textContent = [...d.images].map(i => '
            'i.getAttribute("src") + " " + i.naturalWidth + "x" + i.naturalHeight + " " + (i.alt ? "alt" : "")).join("\\n"); };'
            '</script>')
        report = re.search(r'<pre id="r">(.*?)</pre>', browser.dom(f"{base}/probe.html", wait_ms=8000), re.S)
        assert report is not None
        pictures = report.group(1).split("\n")
        assert len(pictures) == 2, pictures  # the phase's orders, the position after it
        for line in pictures:
            _, size, alt = line.split(" ")
            width, height = map(int, size.split("x"))
            assert width > 400 and height > 300 and alt == "alt", line
        # and a picture of the page, as a person sees it: the map is drawn, not blank
        shot = browser.screenshot(f"{folder}/{paths.phase_page(first.label)}", tmp_path / "phase.png")
        with Image.open(shot) as picture:
            colours = picture.convert("RGB").crop((0, 150, 1200, 900)).getcolors(maxcolors=1 << 16)
        assert colours is None or len(colours) > 50, "the map region of the page is blank"
    finally:
        server.shutdown()
        server.server_close()
