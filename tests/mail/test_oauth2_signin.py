"""The judge signs in to its mailbox with OAuth2 (gm.mail.oauth2), against real servers that check
real tokens: a stand-in authorization server (tests/oauth2server.py), a Dovecot whose oauth2 passdb
asks it about each token, and a Postfix submission service that asks that Dovecot. `gm mail
authorize` obtains the grant by the device code and by a browser sent back to a loopback address;
access tokens are refreshed before they expire and when a server refuses one; a refused grant is
said once, kept, and shown by `gm status`; and a whole exchange by mail goes through with tokens
that expire on the way, no mail lost or answered twice."""
from __future__ import annotations

import asyncio
import email
import logging
import os
import re
import stat
import subprocess
import sys
import time
from email.message import EmailMessage
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from sqlalchemy import func, select

from gm.games import add_master, create_game
from gm.lifecycle.phases import start as start_game
from gm.mail.inbox import ImapError, signed_in
from gm.mail.oauth2 import grant
from gm.mail.oauth2.providers import OAuth2, provider_of
from gm.mail.oauth2.tokens import AccessTokens, GrantRefused, NoGrant
from gm.settings import MailServer
from gm.store.db import make_engine, make_session_factory, transaction
from gm.store.models import Game, InboundMail, OutboundMail, Player, utcnow
from gm.store.passwords import hash_password
from loopback import stop
from oauth2server import AuthorizationServer

if TYPE_CHECKING:  # fixtures' types only (see conftest.py)
    from conftest import ReadMailbox, SmtpFront, StartGmServe
    from oauth2_servers import OAuth2Dovecot, Submission

ROOT = Path(__file__).resolve().parents[2]
DOMAIN = "example.org"


def oauth2_of(server: AuthorizationServer, folder: Path, *, device: bool = True) -> OAuth2:
    provider = provider_of("generic", token_url=server.token_url, scopes="mail",
                           device_url=server.device_url if device else None,
                           authorize_url=None if device else server.authorize_url)
    return OAuth2(provider, server.client_id, None, folder / "oauth2-grant.json")


def keep_grant(server: AuthorizationServer, path: Path, user: str = "gm") -> None:
    """As `gm mail authorize` leaves it."""
    grant.save(path, {"provider": "generic", "client_id": server.client_id, "user": user,
                      "refresh_token": server.grant(user)["refresh_token"], "obtained_at": grant.now()})


def settings_env(server: AuthorizationServer, data: Path, *, device: bool = True) -> dict[str, str]:
    """The environment of a gm command signing in to a real server with OAuth2 at `server`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GM_")}
    env.update(GM_ADDRESS=f"gm@{DOMAIN}", GM_DATA_DIR=str(data), GM_IMAP_HOST="127.0.0.1", GM_IMAP_TLS="none",
               GM_IMAP_USER="gm", GM_OAUTH2_PROVIDER="generic", GM_OAUTH2_CLIENT_ID=server.client_id,
               GM_OAUTH2_TOKEN_URL=server.token_url, GM_OAUTH2_SCOPES="mail")
    env["GM_OAUTH2_DEVICE_URL" if device else "GM_OAUTH2_AUTHORIZE_URL"] = (
        server.device_url if device else server.authorize_url)
    return env


# --- access tokens --------------------------------------------------------------------------------


async def test_a_token_is_refreshed_before_it_expires_and_a_rotated_refresh_token_kept(
        oauth2_server: AuthorizationServer, tmp_path: Path) -> None:
    oauth2 = oauth2_of(oauth2_server, tmp_path)
    with pytest.raises(NoGrant, match=r"no OAuth2 grant in .*: run `gm mail authorize` once"):
        await AccessTokens(oauth2).current()
    keep_grant(oauth2_server, oauth2.grant_path)
    first = grant.load(oauth2.grant_path)
    tokens = AccessTokens(oauth2)
    token = await tokens.current()
    assert oauth2_server.introspect(token)["active"] and oauth2_server.refreshed == 1
    assert await tokens.current() == token and oauth2_server.refreshed == 1  # an hour left: kept
    # The provider rotated the refresh token (and refuses the old one): the new one is kept, 0600.
    kept = grant.load(oauth2.grant_path)
    assert kept is not None and first is not None and kept["refresh_token"] != first["refresh_token"]
    assert stat.S_IMODE(oauth2.grant_path.stat().st_mode) == 0o600
    # A token with less than the margin left is refreshed before it is used.
    oauth2_server.access_lifetime = 120
    tokens.refused()
    short = await tokens.current()
    assert await tokens.current() != short and oauth2_server.refreshed == 3
    # Another process (its own AccessTokens) reads the refresh token the first one left.
    assert oauth2_server.introspect(await AccessTokens(oauth2).current())["active"]


async def test_a_refused_grant_is_said_once_kept_and_not_asked_again(
        oauth2_server: AuthorizationServer, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    oauth2 = oauth2_of(oauth2_server, tmp_path)
    keep_grant(oauth2_server, oauth2.grant_path)
    oauth2_server.revoke("gm")
    tokens = AccessTokens(oauth2)
    with caplog.at_level(logging.ERROR, logger="gm.mail.oauth2.tokens"):
        for _ in range(3):
            with pytest.raises(GrantRefused, match=r"refused the OAuth2 grant \(invalid_grant: .*\): run `gm mail "
                                                   r"authorize` to sign the judge in to generic again"):
                await tokens.current()
    assert len(caplog.records) == 1 and "invalid_grant" in caplog.text
    asked = [r for r in oauth2_server.requests if r[1] == "/token"]
    assert len(asked) == 1  # the refusal is kept: the provider is not asked again
    kept = grant.load(oauth2.grant_path)
    assert kept is not None and kept["refused"]["error"] == "invalid_grant"
    assert kept["refresh_token"] not in caplog.text
    line, problem = grant.describe(oauth2.grant_path, "generic")
    assert "REFUSED by the provider" in line and problem is not None and "run gm mail authorize again" in problem


# --- gm mail authorize ----------------------------------------------------------------------------


def _authorize(env: dict[str, str], *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "gm", "mail", "authorize", *args], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_gm_mail_authorize_by_the_device_code(oauth2_server: AuthorizationServer, tmp_path: Path) -> None:
    proc = _authorize(settings_env(oauth2_server, tmp_path))
    assert proc.stdout is not None
    first = proc.stdout.readline()
    code = re.search(r"open (\S+) in any browser, sign in as gm and enter the code (\S+) \(within", first)
    assert code is not None, first
    assert code.group(1).startswith(oauth2_server.url) and code.group(2) in oauth2_server.pending_user_codes()
    oauth2_server.approve_device(code.group(2))
    out = first + proc.communicate(timeout=30)[0]
    assert proc.returncode == 0, out
    path = tmp_path / "oauth2-grant.json"
    assert f"the judge may now read and send mail as gm at generic (scope mail); the grant is kept in {path}" in out
    kept = grant.load(path)
    assert kept is not None and kept["user"] == "gm" and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert kept["refresh_token"] not in out  # never shown


def test_gm_mail_authorize_by_a_browser_sent_back_to_this_machine(
        oauth2_server: AuthorizationServer, tmp_path: Path) -> None:
    # The "browser": follows the sign-in page's redirect to the judge's loopback address.
    browser = tmp_path / "browser"
    browser.write_text(f"#!{sys.executable}\nimport sys, urllib.request\nurllib.request.urlopen(sys.argv[1]).read()\n")
    browser.chmod(0o755)
    env = {**settings_env(oauth2_server, tmp_path, device=False), "BROWSER": f"{browser} %s"}
    proc = _authorize(env)
    out = proc.communicate(timeout=60)[0]
    assert proc.returncode == 0, out
    assert "sign in as gm on the page opened in your browser" in out
    kept = grant.load(tmp_path / "oauth2-grant.json")
    assert kept is not None and kept["refresh_token"] not in out
    # The code went to the token endpoint with its PKCE verifier (the server checks it).
    assert any(r[1] == "/token" and r[2].get("grant_type") == "authorization_code" and r[2].get("code_verifier")
               for r in oauth2_server.requests)


def test_gm_mail_authorize_says_in_one_line_why_it_could_not(oauth2_server: AuthorizationServer, tmp_path: Path) -> None:
    oauth2_server.deny = True
    proc = _authorize(settings_env(oauth2_server, tmp_path))
    assert proc.stdout is not None
    proc.stdout.readline()
    oauth2_server.deny_device()
    out = proc.communicate(timeout=30)[0]
    assert proc.returncode != 0 and "the sign-in was declined at generic" in out and "Traceback" not in out
    assert not (tmp_path / "oauth2-grant.json").exists()


# --- the whole judge ------------------------------------------------------------------------------


def _setup_game(url: str) -> None:
    """Alice plays France in game 'oa'."""
    with transaction(make_session_factory(make_engine(url))) as s:
        game = create_game(s, "oa", "standard")
        s.add(Player(game_id=game.id, power="France", email=f"alice@{DOMAIN}", password_hash=hash_password("pw")))
        s.flush()
        start_game(s, game, utcnow())


def _orders(n: int) -> EmailMessage:
    msg = EmailMessage()
    msg["From"], msg["To"], msg["Subject"] = f"alice@{DOMAIN}", f"gm@{DOMAIN}", f"orders {n}"
    msg["Message-ID"] = f"<oauth2-{os.getpid()}-{n}@{DOMAIN}>"
    msg.set_content(f"SIGNON France oa pw\n{('A Par - Bur', 'A Par - Pic', 'A Par H')[n % 3]}\n")
    return msg


@pytest.mark.long
async def test_gm_serve_reads_and_sends_with_tokens_that_expire_on_the_way(
        migrated_url: str, oauth2_server: AuthorizationServer, oauth2_dovecot: OAuth2Dovecot,
        oauth2_submission: Submission, gm_serve: StartGmServe, read_mailbox: ReadMailbox, tmp_path: Path) -> None:
    keep_grant(oauth2_server, tmp_path / "oauth2-grant.json")
    await asyncio.to_thread(_setup_game, migrated_url)
    env = settings_env(oauth2_server, tmp_path)
    oauth2 = {k: v for k, v in env.items() if k.startswith("GM_OAUTH2_")}
    server = gm_serve(migrated_url, oauth2_dovecot, oauth2_submission.port, tmp_path, GM_IMAP_PASSWORD="",
                      GM_SMTP_USER=f"gm@{DOMAIN}", GM_POLL_SECONDS="0.5", **oauth2)
    factory = make_session_factory(make_engine(migrated_url))

    def answered(n: int, delivered: bool = True) -> bool:
        with transaction(factory) as s:
            inbound = s.scalar(select(func.count()).select_from(InboundMail))
            unsent = s.scalar(select(func.count()).select_from(OutboundMail).where(OutboundMail.sent_at.is_(None)))
        return inbound == n and unsent == 0 and (not delivered or len(oauth2_dovecot.stored("alice")) == n)

    async def until(n: int, within: float = 60, delivered: bool = True) -> None:
        deadline = time.monotonic() + within
        while not await asyncio.to_thread(answered, n, delivered):
            assert server.poll() is None, (tmp_path / "serve.log").read_text()
            assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
            await asyncio.sleep(0.2)

    try:
        oauth2_dovecot.deliver(_orders(1).as_bytes(), [f"gm@{DOMAIN}"], sender=f"alice@{DOMAIN}")
        await until(1)
        # Every token given so far ends early: the next logins are refused, the judge refreshes
        # and goes on. The IMAP connection is dropped to make it log in again.
        oauth2_server.expire_access_tokens()
        refreshed = oauth2_server.refreshed
        oauth2_dovecot.stop()
        oauth2_dovecot.start()
        for n in (2, 3):
            oauth2_dovecot.deliver(_orders(n).as_bytes(), [f"gm@{DOMAIN}"], sender=f"alice@{DOMAIN}")
        # Read and answered well within the IMAP timeout (30 s): a connection lost mid-command is
        # noticed at once. The answers then reach alice when Postfix's queue, which met the
        # restarting Dovecot too, delivers them.
        await until(3, within=15, delivered=False)
        await until(3)
        # The judge's tokens had an hour left by its own count: it refreshed because the servers
        # refused them, and signed in with OAUTHBEARER, which both servers offer, each time (Dovecot
        # would take a token as a password).
        assert oauth2_server.refreshed > refreshed
        imap = [m for user, m in oauth2_dovecot.logins() if user == "gm"]
        assert len(imap) >= 2 and set(imap) == {"OAUTHBEARER"}
        assert {m for _, m in oauth2_submission.logins()} == {"OAUTHBEARER"}
    finally:
        stop(server, timeout=15)
    log = (tmp_path / "serve.log").read_text()
    kept = grant.load(tmp_path / "oauth2-grant.json")
    assert kept is not None and kept["refresh_token"] not in log
    assert not any(token in log for token in oauth2_server.tokens())
    # One answer each, in alice's mailbox, no more.
    answers = [email.message_from_bytes(m.raw) for m in await read_mailbox(oauth2_dovecot.account("alice"))]
    assert sorted(a["In-Reply-To"] for a in answers) == sorted(_orders(n)["Message-ID"] for n in (1, 2, 3))


@pytest.mark.long
async def test_a_refused_grant_is_mailed_to_the_gms_where_smtp_has_a_password_of_its_own(
        migrated_url: str, oauth2_server: AuthorizationServer, oauth2_dovecot: OAuth2Dovecot,
        front_for: Callable[[int], SmtpFront], gm_serve: StartGmServe, read_mailbox: ReadMailbox,
        tmp_path: Path) -> None:
    keep_grant(oauth2_server, tmp_path / "oauth2-grant.json")
    await asyncio.to_thread(_setup_game, migrated_url)
    with transaction(make_session_factory(make_engine(migrated_url))) as s:  # bob is the game's GM
        game = s.scalars(select(Game)).one()
        add_master(s, game, f"bob@{DOMAIN}", None)
    front = front_for(oauth2_dovecot.lmtp_port)  # SMTP by another route than the grant: a relay of its own
    oauth2 = {k: v for k, v in settings_env(oauth2_server, tmp_path).items() if k.startswith("GM_OAUTH2_")}
    server = gm_serve(migrated_url, oauth2_dovecot, front, tmp_path, GM_SMTP_USER="relay", GM_SMTP_PASSWORD="pw",
                      **oauth2)
    try:
        deadline = time.monotonic() + 30
        while not any(user == "gm" for user, _ in oauth2_dovecot.logins()):
            assert time.monotonic() < deadline, (tmp_path / "serve.log").read_text()
            await asyncio.sleep(0.2)
        # The grant is revoked, the judge's connection dropped: it cannot log in again.
        oauth2_server.revoke("gm")
        oauth2_dovecot.stop()
        oauth2_dovecot.start()
        while not oauth2_dovecot.stored("bob"):
            assert time.monotonic() < deadline + 30, (tmp_path / "serve.log").read_text()
            await asyncio.sleep(0.2)
        await asyncio.sleep(3)  # the judge tries again meanwhile: no second mail
    finally:
        stop(server, timeout=15)
    told = [email.message_from_bytes(m.raw) for m in await read_mailbox(oauth2_dovecot.account("bob"))]
    assert [m["Subject"] for m in told] == [f"gm: the judge cannot read the mail sent to gm@{DOMAIN}"]
    assert "run `gm mail authorize`" in (tmp_path / "serve.log").read_text()
    kept = grant.load(tmp_path / "oauth2-grant.json")
    assert kept is not None and kept["refused"]["error"] == "invalid_grant"


@pytest.fixture
def xoauth2_only(dovecot_binary: str, oauth2_server: AuthorizationServer) -> Iterator[OAuth2Dovecot]:
    """A Dovecot taking tokens by XOAUTH2 only, as Microsoft's servers do (and a Postfix on it too)."""
    from mail.oauth2_servers import OAuth2Dovecot

    server = OAuth2Dovecot(dovecot_binary, introspection_url=oauth2_server.introspect_url, scope=oauth2_server.scope)
    conf = server.base / "dovecot.conf"
    conf.write_text(conf.read_text().replace("xoauth2 oauthbearer", "xoauth2"))
    server.start()
    yield server
    server.stop()


async def test_a_server_without_oauthbearer_gets_xoauth2(
        oauth2_server: AuthorizationServer, xoauth2_only: OAuth2Dovecot, tmp_path: Path) -> None:
    oauth2 = oauth2_of(oauth2_server, tmp_path)
    keep_grant(oauth2_server, oauth2.grant_path)
    account = MailServer("127.0.0.1", xoauth2_only.imap_port, "none", "gm", None, oauth2=True)
    session, _ = await signed_in(account, oauth2=oauth2, timeout=10)
    session.close()
    assert session.mechanism == "XOAUTH2"
    assert [m for user, m in xoauth2_only.logins() if user == "gm"] == ["XOAUTH2"]


async def test_a_refused_oauthbearer_token_is_answered_and_refused_at_once(
        oauth2_server: AuthorizationServer, oauth2_dovecot: OAuth2Dovecot, tmp_path: Path) -> None:
    """RFC 7628: the server's refusal comes as a challenge the client answers with ^A; the judge
    does, and hears NO at once instead of waiting out its timeout."""
    oauth2 = oauth2_of(oauth2_server, tmp_path)
    keep_grant(oauth2_server, oauth2.grant_path)
    oauth2_server.revoke("gm")
    keep_grant(oauth2_server, oauth2.grant_path, user="someone-else")  # a working grant, for another user
    account = MailServer("127.0.0.1", oauth2_dovecot.imap_port, "none", "gm", None, oauth2=True)
    started = time.monotonic()
    with pytest.raises(ImapError, match=r"login as 'gm' refused"):
        await signed_in(account, oauth2=oauth2, timeout=20)
    assert time.monotonic() - started < 10
