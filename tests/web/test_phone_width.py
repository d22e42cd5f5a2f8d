"""Every page and every HTML mail of a whole game, as Chromium (Debian's, headless) lays them out
at a phone's width (360 px) and at a desktop's (1,200 px): the page never scrolls sideways, and no
order is broken over two lines ("A MAR S A BUR - SWI" on one line).

Chromium is started once: a page of the test's own loads each page and each mail in a frame of
either width, served by the judge's own HTTP server (gm.web.publish), and writes down what it
measured (the frame's document.scrollingElement, each order's lines of text, by getClientRects);
--dump-dom hands that back. A frame lays its page out as a window of its width does (its viewport, media queries
and all). The mails are the HTML bodies the judge queued (OutboundMail.body_html), each with its
cid: pictures replaced by the maps the outbox sender would attach (draw_attachments)."""
from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from html import unescape
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from gm.games import find_game
from gm.mail.outgoing.mail_maps import DrawnMaps, draw_attachments
from gm.store.db import make_engine, make_session_factory, transaction
from gm.store.models import GameStatus, OutboundMail
from gm.view import paths
from gm.web.publish import http_server
from gm.web.writer import CHART_WIDTH, _spaced, write_all
from played import GAME, Browser, play

WIDTHS = (360, 1200)
# Every kind of phase (movement, retreat, adjustment), two years in the centres' chart, and the
# game's end (the house rule last_year): its mail has the centres year by year and the final map.
PHASES = 7
LAST_YEAR = 1764
FRAMES_AT_ONCE = 6

# For each URL and width: the frame's viewport and the page's scroll width; where the page
# scrolls sideways, the outermost elements sticking out (with their width); the boxes that scroll
# sideways within the page (overflow-x: auto); each order element (class "order"; in a mail
# without any, each element set in monospace, where the mails put orders and units) and the
# most lines one order in it takes.
PROBE = """<!DOCTYPE html><html><head><meta charset="utf-8"></head><body><pre id="r"></pre><script>
const jobs = %(jobs)s;
function describe(el) {
  const cls = el.getAttribute("class");
  return el.tagName.toLowerCase() + (cls ? "." + cls.trim().split(/\\s+/).join(".") : "")
    + ' "' + (el.textContent || "").trim().replace(/\\s+/g, " ").slice(0, 40) + '"';
}
function lines(el) {
  // the most lines one order of the element takes: its text, or each item of a list of units
  // ("A ANE, A BUD"), may break after a comma, never inside
  let most = 0;
  const walker = el.ownerDocument.createTreeWalker(el, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.data;
    for (const m of text.matchAll(/[^,]+/g)) {
      const start = m.index + m[0].length - m[0].trimStart().length, end = m.index + m[0].trimEnd().length;
      if (end <= start) continue;
      const range = el.ownerDocument.createRange();
      range.setStart(node, start);
      range.setEnd(node, end);
      const tops = [];
      for (const r of range.getClientRects()) {
        if (r.width > 0 && !tops.some(t => Math.abs(t - r.top) < 3)) tops.push(r.top);
      }
      most = Math.max(most, tops.length);
    }
  }
  return most;
}
function measure(doc, url, width) {
  const win = doc.defaultView, page = doc.scrollingElement;
  const out = {url: url, width: width, viewport: win.innerWidth, client: page.clientWidth,
               scroll: page.scrollWidth, wide: [], scrollers: [], orders: 0, broken: [],
               selector: ".order"};
  if (page.scrollWidth > page.clientWidth) {
    for (const el of doc.body.querySelectorAll("*")) {
      const r = el.getBoundingClientRect(), up = el.parentElement.getBoundingClientRect();
      if (r.right > page.clientWidth + 0.5 && !(up.right > page.clientWidth + 0.5)) {
        out.wide.push(describe(el) + " " + Math.round(r.width) + "px wide, right edge at " + Math.round(r.right));
      }
    }
  }
  for (const el of doc.body.querySelectorAll("*")) {  // a box of its own that scrolls sideways
    const style = win.getComputedStyle(el);
    if (el.scrollWidth > el.clientWidth + 1 && /auto|scroll/.test(style.overflowX)) {
      out.scrollers.push(describe(el) + " " + el.scrollWidth + "px in " + el.clientWidth + "px");
    }
  }
  let orders = [...doc.querySelectorAll(".order")];
  if (!orders.length) {
    orders = [...doc.querySelectorAll("[style*=monospace]")];
    out.selector = "[style*=monospace]";
  }
  out.orders = orders.length;
  for (const el of orders) {
    const n = lines(el);
    if (n > 1) out.broken.push(describe(el) + " on " + n + " lines");
  }
  return out;
}
function load(job) {
  return new Promise(done => {
    const frame = document.createElement("iframe");
    frame.style.cssText = "border:0;height:800px;width:" + job.width + "px";
    frame.onload = () => {
      let got;
      try { got = measure(frame.contentDocument, job.url, job.width); }
      catch (e) { got = {url: job.url, width: job.width, error: String(e)}; }
      frame.remove();
      done(got);
    };
    frame.src = job.url;
    document.body.appendChild(frame);
  });
}
(async () => {
  const results = [], queue = jobs.slice();
  async function worker() { while (queue.length) results.push(await load(queue.shift())); }
  await Promise.all(Array.from({length: %(at_once)d}, worker));
  document.getElementById("r").textContent = JSON.stringify(results);
})();
</script></body></html>"""


@dataclass
class Measured:
    pages: list[dict[str, Any]]
    mails: list[dict[str, Any]]
    kinds: dict[str, str]  # mail URL -> the outbox row's kind


def _mails(session_factory: Any, folder: Path) -> dict[str, str]:
    """Each HTML mail the game queued, as a file in `folder` with its pictures beside it; file -> kind."""
    folder.mkdir()
    out: dict[str, str] = {}
    drawn = DrawnMaps()
    with transaction(session_factory) as s:
        rows = s.scalars(select(OutboundMail).where(OutboundMail.body_html.is_not(None)).order_by(OutboundMail.id))
        for row in rows:
            html = row.body_html or ""
            for attachment in draw_attachments(s, row.attachments, drawn) or []:
                cid, data = attachment.get("content_id"), attachment.get("data")
                if not cid or data is None:
                    continue
                raw = base64.b64decode(data)
                name = hashlib.sha256(raw).hexdigest()[:16] + ".png"
                if not (folder / name).exists():
                    (folder / name).write_bytes(raw)
                html = html.replace(f"cid:{cid}", name)
            assert "cid:" not in html, f"mail {row.id} ({row.kind}) shows a picture it does not carry"
            file = f"{row.id}-{row.kind}.html"
            (folder / file).write_text(html, encoding="utf-8")
            out[file] = row.kind
    return out


@pytest.fixture(scope="module")
def measured(_migrated_sqlite: Path, tmp_path_factory: pytest.TempPathFactory, browser: Browser) -> Iterator[Measured]:
    base = tmp_path_factory.mktemp("phone-width")
    shutil.copyfile(_migrated_sqlite, base / "gm.sqlite3")
    engine = make_engine(f"sqlite:///{base / 'gm.sqlite3'}")
    session_factory = make_session_factory(engine)
    try:
        played = play(session_factory, phase_count=PHASES + 1, last_year=LAST_YEAR)
        out = base / "pages"
        with transaction(session_factory) as s:
            game = find_game(s, GAME)
            assert game is not None and game.status == GameStatus.FINISHED and played.phases == PHASES, \
                "the game ends with the year LAST_YEAR"
            write_all(s, out)
        pages = sorted(str(p.relative_to(out)) for p in out.rglob("*.html"))
        kinds = {f"mails/{file}": kind for file, kind in _mails(session_factory, out / "mails").items()}
    finally:
        engine.dispose()
    assert len(pages) >= 2 * (PHASES + 1) and kinds, (pages, kinds)
    jobs = [{"url": "/" + url, "width": width} for url in [*pages, *kinds] for width in WIDTHS]
    (out / "probe.html").write_text(PROBE % {"jobs": json.dumps(jobs), "at_once": FRAMES_AT_ONCE})
    server = http_server(out, 0, "127.0.0.1")
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        dom = browser.dom(f"http://127.0.0.1:{server.server_address[1]}/probe.html", wait_ms=600_000)
    finally:
        server.shutdown()
        server.server_close()
    found = re.search(r'<pre id="r">(.*?)</pre>', dom, re.S)
    assert found is not None and found.group(1), f"the probe page measured nothing:\n{dom[-2000:]}"
    results = json.loads(unescape(found.group(1)))
    assert len(results) == len(jobs), f"{len(results)} of {len(jobs)} measured"
    assert not [r for r in results if "error" in r], [r for r in results if "error" in r]
    yield Measured(pages=[r for r in results if not r["url"].startswith("/mails/")],
                   mails=[r for r in results if r["url"].startswith("/mails/")],
                   kinds={"/" + url: kind for url, kind in kinds.items()})


def _problems(results: list[dict[str, Any]]) -> list[str]:
    out = []
    for r in results:
        assert r["viewport"] == r["width"], r  # the frame is a window of that width
        if r["scroll"] > r["client"]:
            out.append(f"{r['url']} at {r['width']} px scrolls sideways: {r['scroll']} px wide; "
                       + "; ".join(r["wide"][:4]))
        if r["broken"]:
            out.append(f"{r['url']} at {r['width']} px breaks {len(r['broken'])} of {r['orders']} orders "
                       f"({r['selector']}): " + "; ".join(r["broken"][:4]))
    return out


@pytest.mark.long
@pytest.mark.xdist_group("phone-width")
def test_every_page_fits_a_phone_and_a_desktop_and_no_order_is_broken(measured: Measured) -> None:
    pages = measured.pages
    assert {r["width"] for r in pages} == set(WIDTHS)
    # the phases' pages and the game's show the orders, each an element of class "order"
    with_orders = [r for r in pages if r["url"].startswith(f"/{paths.game_folder(GAME)}/")]
    assert with_orders and all(r["orders"] > 0 and r["selector"] == ".order" for r in with_orders)
    problems = _problems(pages)
    # nor is anything on them a box to scroll sideways: the tables stack, the chart scales
    problems += [f"{r['url']} at {r['width']} px: " + "; ".join(r["scrollers"]) for r in pages if r["scrollers"]]
    assert not problems, "\n".join(problems)


@pytest.mark.long
@pytest.mark.xdist_group("phone-width")
def test_every_html_mail_fits_a_phone_and_a_desktop_and_no_order_is_broken(measured: Measured) -> None:
    mails = measured.mails
    assert {measured.kinds[r["url"]] for r in mails} >= {"start", "results"}
    assert all(r["orders"] > 0 for r in mails if measured.kinds[r["url"]] == "results")
    problems = _problems(mails)
    assert not problems, "\n".join(problems)


def test_the_chart_leaves_out_the_year_labels_that_would_run_into_each_other() -> None:
    step = (CHART_WIDTH - 54) / 40
    ticks = [{"x": 30 + i * step, "label": "start" if i == 0 else str(1762 + i)} for i in range(41)]
    kept = _spaced(ticks)
    assert kept[0] == ticks[0] and kept[-1] == ticks[-1] and 5 < len(kept) < 15
    for a, b in zip(kept, kept[1:]):  # at 15 units a character is about 8.5 wide: the labels' halves and a gap
        assert b["x"] - a["x"] >= 8.5 * (len(a["label"]) + len(b["label"])) / 2 + 4, (a, b)
    few = [{"x": 30 + i * (CHART_WIDTH - 54) / 3, "label": label}
           for i, label in enumerate(["start", "1763", "1764", "1765"])]
    assert _spaced(few) == few  # a few years: every label
