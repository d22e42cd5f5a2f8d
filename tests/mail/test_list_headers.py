"""The judge's mail says which game's list it is on (List-Id), and where the reader may leave it,
how (List-Unsubscribe, one click by RFC 8058): an observer's results mail carries a link that ends
the observing when POSTed to gm serve's web server (a GET only shows a button: scanners open every
link), and a mailto: UNOBSERVE; a stranger's notice carries a link after which mail in that
address's name that proves nothing gets no more notices, until the address's own proven mail
arrives. A player's mail has no such link. Its own Message-IDs are on the judge's domain. On a
real SQLite file and a real PostgreSQL, and a real HTTP server on loopback."""
from __future__ import annotations

import email
import functools
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from gm.games import create_game
from gm.lifecycle.leaving import links_key, quiet_token
from gm.mail.outgoing.list_headers import MailLinks
from gm.mail.outgoing.outbox import OutboxSender, build_message
from gm.server import _leave
from gm.settings import MailServer
from gm.store.db import transaction
from gm.store.models import Game, Observer, OutboundMail, Player, QuietAddress
from gm.store.passwords import hash_password
from gm.web.publish import http_server
from test_ingest import GM, Judge, mail

MX = "mx.judge.example"


@pytest.fixture
def web(tmp_path: Path, session_factory: sessionmaker[Session]) -> Iterator[str]:
    """gm serve's web server (the pages' folder, and the one-click links) on a free loopback port."""
    server: ThreadingHTTPServer = http_server(tmp_path / "pages", 0, "127.0.0.1",
                                              leave=functools.partial(_leave, session_factory))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def claimed(session_factory: sessionmaker[Session], links: MailLinks) -> dict[str, email.message.Message]:
    """Every outbox row as the outbox would send it, by recipient."""
    sender = OutboxSender(MailServer("127.0.0.1", 1), session_factory, gm_address=GM, links=links)
    mails, _ = sender._claim(100, {})
    return {m.to_addr: email.message_from_bytes(build_message(m, GM)) for m in mails}


def post(url: str) -> tuple[int, str]:
    request = urllib.request.Request(url, data=b"List-Unsubscribe=One-Click", method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_an_observer_leaves_in_one_click_and_a_player_has_no_link(session_factory: sessionmaker[Session],
                                                                   web: str) -> None:
    with transaction(session_factory) as s:
        game = create_game(s, "g1", "standard")
        s.add(Player(game_id=game.id, power="England", email="england@players.example", password_hash=hash_password("x")))
        s.add(Observer(game_id=game.id, email="watcher@players.example"))
        for to in ("england@players.example", "watcher@players.example"):
            s.add(OutboundMail(to_addr=to, subject="g1 results", body_text="...", kind="results", game_id=game.id))
    found = claimed(session_factory, MailLinks(links_key(), unsubscribe_url=f"{web}/unsubscribe"))
    player, watcher = found["england@players.example"], found["watcher@players.example"]
    assert player["List-Id"] == watcher["List-Id"] == '"gm game g1" <g1.games.judge.example>'
    assert player["List-Unsubscribe"] is None and player["List-Unsubscribe-Post"] is None
    assert watcher["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    link, mailto = [part.strip(" <>") for part in " ".join(watcher["List-Unsubscribe"].split()).split(",")]
    assert link.startswith(f"{web}/unsubscribe?t=o.")
    assert mailto == f"mailto:{GM}?subject=UNOBSERVE%20g1&body=UNOBSERVE%20g1"
    # A GET (a scanner following the link) changes nothing: it shows a button.
    with urllib.request.urlopen(link, timeout=10) as page:
        assert 'method="post"' in page.read().decode()
    with transaction(session_factory) as s:
        assert s.scalars(select(Observer)).one().left_at is None
    assert post(link) == (200, post(link)[1]) and "watcher@players.example no longer observes g1." in post(link)[1]
    with transaction(session_factory) as s:
        assert s.scalars(select(Observer)).one().left_at is not None
    # A link the judge did not make does nothing.
    forged = link[:-3] + ("aaa" if not link.endswith("aaa") else "bbb")
    assert post(forged)[0] == 404


def test_without_a_web_server_an_observer_leaves_by_mail(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        game = create_game(s, "g1", "standard")
        s.add(Observer(game_id=game.id, email="watcher@players.example"))
        s.add(OutboundMail(to_addr="watcher@players.example", subject="g1", body_text=".", kind="results",
                           game_id=game.id))
    watcher = claimed(session_factory, MailLinks(links_key()))["watcher@players.example"]
    assert "".join(watcher["List-Unsubscribe"].split()) == f"<mailto:{GM}?subject=UNOBSERVE%20g1&body=UNOBSERVE%20g1>"
    assert watcher["List-Unsubscribe-Post"] is None


def test_a_stranger_leaves_the_notices_of_mail_sent_in_its_name(session_factory: sessionmaker[Session],
                                                                 web: str) -> None:
    judge = Judge(session_factory)
    victim = "victim@players.example"
    judge.send(mail(victim, "SIGNON England g1 guess"))  # in the victim's name: a notice to it
    found = claimed(session_factory, MailLinks(links_key(), unsubscribe_url=f"{web}/unsubscribe"))
    notice = found[victim]
    assert notice["List-Id"] is None
    assert notice["Message-ID"].endswith("@judge.example>")  # the judge's own domain
    link = "".join(notice["List-Unsubscribe"].split()).strip("<>")
    assert link == f"{web}/unsubscribe?t={quiet_token(links_key(), victim)}"
    status, page = post(link)
    assert status == 200 and f"sends {victim} no more notices" in page
    before = judge.count(OutboundMail)
    out = judge.send(mail(victim, "SIGNON England g1 guess-again"))
    assert out.replies == 0 and judge.count(OutboundMail) == before
    # The address's own mail, proven by the receiving server's verdict: heard again.
    proven = mail(victim, "LIST", Authentication_Results=f"{MX}; dmarc=pass header.from=players.example")
    assert judge.send(proven, authserv_id=MX).replies == 1
    with transaction(session_factory) as s:
        assert s.scalars(select(QuietAddress)).all() == []
    assert judge.send(mail(victim, "SIGNON England g1 guess-3")).replies == 1
    with transaction(session_factory) as s:
        assert s.scalar(select(Game.id)) is None  # no game: the sign-ons were all to nothing
