"""The OAuth2 servers the judge's OAuth2 sign-in is tested against are real: the stand-in
authorization server speaks the standard grants and errors over HTTP, Dovecot takes a token only
while that server says it is active, the user's and of the scope "mail" (its own oauth2 passdb,
asking the introspection endpoint at every login), and Postfix takes a submission only with such
a token (Dovecot's SASL) and delivers it to the players' mailboxes. No mocks anywhere."""
from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import secrets
import urllib.error
import urllib.request
from email.message import EmailMessage
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlencode, urlsplit

import aioimaplib
import aiosmtplib
import pytest

if TYPE_CHECKING:  # fixtures' types only (see conftest.py)
    from conftest import ReadMailbox, WaitUntil
    from mail.oauth2_servers import OAuth2Dovecot, Submission
    from oauth2server import AuthorizationServer

DOMAIN = "example.org"  # the test Dovecot's domain and players' password (tests/mail/conftest.py)
PASSWORD = "secret"
REDIRECT = "http://127.0.0.1:8765/callback"  # loopback: nothing needs to listen, the test reads the Location


# --- speaking to the servers -----------------------------------------------------------------


def post(url: str, fields: dict[str, str], basic: tuple[str, str] | None = None) -> tuple[int, dict[str, Any]]:
    """A form-encoded POST: the HTTP status and the JSON answer, errors included."""
    request = urllib.request.Request(url, data=urlencode(fields).encode(), method="POST",
                                     headers={"Content-Type": "application/x-www-form-urlencoded"})
    if basic is not None:
        request.add_header("Authorization", "Basic " + base64.b64encode(":".join(basic).encode()).decode())
    try:
        with urllib.request.urlopen(request, timeout=5) as answer:
            return answer.status, json.load(answer)
    except urllib.error.HTTPError as e:
        with e:
            return e.code, json.load(e)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def authorize(server: AuthorizationServer, **params: str) -> tuple[int, str]:
    """GET /authorize as a browser would, without following the redirect: (status, Location or body)."""
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(f"{server.authorize_url}?{urlencode(params)}", timeout=5) as answer:
            return answer.status, answer.read().decode()
    except urllib.error.HTTPError as e:
        with e:
            return e.code, e.headers.get("Location") or e.read().decode()


def pkce() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
    return verifier, challenge


async def imap_xoauth2(port: int, user: str, token: str) -> str:
    """aioimaplib's XOAUTH2 sign-in: the tagged result ('OK', 'NO')."""
    client = aioimaplib.IMAP4("127.0.0.1", port, timeout=5)
    await client.wait_hello_from_server()
    response = await client.xoauth2(user, token)
    if response.result == "OK":
        assert (await client.select("INBOX")).result == "OK"  # signed in indeed
        await client.logout()
    return response.result


async def imap_authenticate(port: int, mechanism: str, user: str, token: str) -> str:
    """AUTHENTICATE XOAUTH2 or OAUTHBEARER (RFC 7628) over a plain socket: the tagged result.
    Not aioimaplib's xoauth2() for refusals: Dovecot refuses with an error challenge ('+ <JSON>')
    the client must answer, which aioimaplib never does (it waits until its timeout)."""
    if mechanism == "XOAUTH2":
        message, answer = f"user={user}\1auth=Bearer {token}\1\1", b""
    else:
        message, answer = f"n,a={user},\1host=127.0.0.1\1port={port}\1auth=Bearer {token}\1\1", b"AQ=="  # '\1'
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    try:
        assert (await reader.readline()).startswith(b"* OK")
        writer.write(f"a1 AUTHENTICATE {mechanism} {base64.b64encode(message.encode()).decode()}\r\n".encode())
        while True:
            line = await asyncio.wait_for(reader.readline(), 5)
            if line.startswith(b"+"):
                writer.write(answer + b"\r\n")  # acknowledging the error challenge
            elif line.startswith(b"a1 "):
                return line.split()[1].decode()
            elif not line:
                raise ConnectionError("the server closed the connection")
    finally:
        writer.close()


def smtp(submission: Submission, token: str, user: str = "gm") -> aiosmtplib.SMTP:
    async def token_generator() -> str:
        return token

    return aiosmtplib.SMTP(hostname="127.0.0.1", port=submission.port, username=f"{user}@{DOMAIN}",
                           oauth_token_generator=token_generator, start_tls=False, use_tls=False, timeout=10)


def mail(subject: str, to: str = f"alice@{DOMAIN}") -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = f"gm@{DOMAIN}"
    msg["To"] = to
    msg["Subject"] = subject
    msg.set_content("Spring 1901 results\n")
    return msg


# --- IMAP ------------------------------------------------------------------------------------


async def test_a_granted_token_signs_in_to_imap(oauth2_server: AuthorizationServer,
                                                oauth2_dovecot: OAuth2Dovecot, wait_until: WaitUntil) -> None:
    """Dovecot asks the authorization server about the token at each login, and lets gm in
    with XOAUTH2 (aioimaplib's, as the judge would) and OAUTHBEARER, by name or by address."""
    token = oauth2_server.grant()["access_token"]
    assert await imap_xoauth2(oauth2_dovecot.imap_port, "gm", token) == "OK"
    assert oauth2_server.introspected == 1
    assert await imap_xoauth2(oauth2_dovecot.imap_port, f"gm@{DOMAIN}", token) == "OK"
    assert await imap_authenticate(oauth2_dovecot.imap_port, "OAUTHBEARER", "gm", token) == "OK"
    assert await imap_authenticate(oauth2_dovecot.imap_port, "XOAUTH2", "gm", token) == "OK"
    assert oauth2_server.introspected == 4  # no cache: a token revoked meanwhile would be refused
    methods = [("gm", "XOAUTH2"), ("gm", "XOAUTH2"), ("gm", "OAUTHBEARER"), ("gm", "XOAUTH2")]
    await wait_until(lambda: oauth2_dovecot.logins() == methods, state=oauth2_dovecot.logins)


@pytest.mark.parametrize("mechanism", ["XOAUTH2", "OAUTHBEARER"])
async def test_imap_refuses_what_is_not_a_valid_token_of_gm(
    mechanism: str, oauth2_server: AuthorizationServer, oauth2_dovecot: OAuth2Dovecot
) -> None:
    """Each way a token can be wrong is refused by Dovecot itself, for the reason it logs."""
    port = oauth2_dovecot.imap_port
    revoked = oauth2_server.grant()
    oauth2_server.revoke("gm")
    expired = oauth2_server.grant()
    oauth2_server.expire_access_tokens()
    alices, wrong_scope = oauth2_server.grant("alice"), oauth2_server.grant(scope="calendar")
    assert await imap_authenticate(port, mechanism, "gm", revoked["access_token"]) == "NO"
    assert await imap_authenticate(port, mechanism, "gm", expired["access_token"]) == "NO"
    assert await imap_authenticate(port, mechanism, "gm", alices["access_token"]) == "NO"
    assert await imap_authenticate(port, mechanism, "gm", wrong_scope["access_token"]) == "NO"
    assert await imap_authenticate(port, mechanism, "gm", revoked["refresh_token"]) == "NO"
    assert await imap_authenticate(port, mechanism, "gm", "not-a-token") == "NO"
    log = oauth2_dovecot.log()
    assert "Token is not valid for scope 'mail'" in log
    assert "Provided token is not valid" in log  # inactive: revoked, expired, unknown
    # alice's token is good, for alice (players keep their passwords, and may use tokens too)
    assert await imap_authenticate(port, mechanism, "alice", alices["access_token"]) == "OK"
    # and a token granted after the revocation works
    assert await imap_authenticate(port, mechanism, "gm", oauth2_server.grant()["access_token"]) == "OK"


async def test_gm_has_no_password_but_players_do(oauth2_dovecot: OAuth2Dovecot, read_mailbox: ReadMailbox) -> None:
    """A judge that fell back to a password would fail against this Dovecot: only the players
    sign in with one."""
    client = aioimaplib.IMAP4("127.0.0.1", oauth2_dovecot.imap_port, timeout=5)
    await client.wait_hello_from_server()
    assert (await client.login("gm", PASSWORD)).result == "NO"
    await client.logout()
    assert oauth2_dovecot.account("gm").password is None
    assert await read_mailbox(oauth2_dovecot.account("alice")) == []


async def test_lmtp_delivers_as_in_the_plain_dovecot(oauth2_server: AuthorizationServer,
                                                     oauth2_dovecot: OAuth2Dovecot) -> None:
    """Mail delivered over LMTP reaches gm's mailbox, which gm then reads with a token."""
    oauth2_dovecot.deliver(mail("orders", to=f"gm@{DOMAIN}").as_bytes(), [f"gm@{DOMAIN}"])
    assert len(oauth2_dovecot.stored("gm")) == 1
    client = aioimaplib.IMAP4("127.0.0.1", oauth2_dovecot.imap_port, timeout=5)
    await client.wait_hello_from_server()
    assert (await client.xoauth2("gm", oauth2_server.grant()["access_token"])).result == "OK"
    assert aioimaplib.extract_exists(await client.select("INBOX")) == 1
    await client.logout()


# --- the grants ------------------------------------------------------------------------------


async def test_refresh_gives_a_new_token_and_rotates(oauth2_server: AuthorizationServer,
                                                     oauth2_dovecot: OAuth2Dovecot) -> None:
    """An expired access token is refused; the refresh grant gives one that works, and a new
    refresh token: the old one is then refused (invalid_grant)."""
    first = oauth2_server.grant()
    oauth2_server.expire_access_tokens()
    assert await imap_authenticate(oauth2_dovecot.imap_port, "XOAUTH2", "gm", first["access_token"]) == "NO"
    client = {"client_id": oauth2_server.client_id}
    status, second = post(oauth2_server.token_url,
                          {"grant_type": "refresh_token", "refresh_token": first["refresh_token"], **client})
    assert status == 200 and second["token_type"] == "Bearer" and second["scope"] == "mail"
    assert second["expires_in"] == oauth2_server.access_lifetime
    assert second["refresh_token"] != first["refresh_token"]
    assert oauth2_server.refreshed == 1
    assert await imap_xoauth2(oauth2_dovecot.imap_port, "gm", second["access_token"]) == "OK"
    status, error = post(oauth2_server.token_url,
                         {"grant_type": "refresh_token", "refresh_token": first["refresh_token"], **client})
    assert (status, error["error"]) == (400, "invalid_grant")
    assert oauth2_server.refreshed == 1

    oauth2_server.rotate = False  # as Google: no new refresh token, the old one keeps working
    for _ in range(2):
        status, third = post(oauth2_server.token_url,
                             {"grant_type": "refresh_token", "refresh_token": second["refresh_token"], **client})
        assert status == 200 and "refresh_token" not in third
    oauth2_server.revoke("gm")
    status, error = post(oauth2_server.token_url,
                         {"grant_type": "refresh_token", "refresh_token": second["refresh_token"], **client})
    assert (status, error["error"]) == (400, "invalid_grant")


def test_the_token_endpoint_authenticates_the_client(oauth2_server: AuthorizationServer) -> None:
    """A wrong client_id, or a missing or wrong secret when there is one, is invalid_client
    (401); the secret is taken in the form or as HTTP Basic."""
    refresh = oauth2_server.grant()["refresh_token"]
    grant = {"grant_type": "refresh_token", "refresh_token": refresh}
    status, error = post(oauth2_server.token_url, {**grant, "client_id": "someone-else"})
    assert (status, error["error"]) == (401, "invalid_client")
    oauth2_server.client_secret = "s3cret"
    oauth2_server.rotate = False
    status, error = post(oauth2_server.token_url, {**grant, "client_id": oauth2_server.client_id})
    assert (status, error["error"]) == (401, "invalid_client")
    status, error = post(oauth2_server.token_url, grant, basic=(oauth2_server.client_id, "wrong"))
    assert (status, error["error"]) == (401, "invalid_client")
    assert post(oauth2_server.token_url, {**grant, "client_id": oauth2_server.client_id,
                                          "client_secret": "s3cret"})[0] == 200
    assert post(oauth2_server.token_url, grant, basic=(oauth2_server.client_id, "s3cret"))[0] == 200
    status, error = post(oauth2_server.token_url, {"grant_type": "password", "client_id": oauth2_server.client_id,
                                                   "client_secret": "s3cret"})
    assert (status, error["error"]) == (400, "unsupported_grant_type")


async def test_device_grant_pending_then_approved(oauth2_server: AuthorizationServer,
                                                  oauth2_dovecot: OAuth2Dovecot) -> None:
    """RFC 8628: authorization_pending until the user approves, then a token that works, once."""
    status, device = post(oauth2_server.device_url, {"client_id": oauth2_server.client_id, "scope": "mail"})
    assert status == 200 and device["interval"] == 1 and device["verification_uri"].startswith(oauth2_server.url)
    poll = {"grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": device["device_code"],
            "client_id": oauth2_server.client_id}
    status, error = post(oauth2_server.token_url, poll)
    assert (status, error["error"]) == (400, "authorization_pending")
    assert oauth2_server.pending_user_codes() == [device["user_code"]]
    oauth2_server.approve_device(device["user_code"])
    await asyncio.sleep(device["interval"])
    status, tokens = post(oauth2_server.token_url, poll)
    assert status == 200 and tokens["scope"] == "mail"
    assert await imap_xoauth2(oauth2_dovecot.imap_port, "gm", tokens["access_token"]) == "OK"
    await asyncio.sleep(device["interval"])
    status, error = post(oauth2_server.token_url, poll)
    assert (status, error["error"]) == (400, "invalid_grant")  # a device code gives one token set


def test_device_grant_errors(oauth2_server: AuthorizationServer) -> None:
    """Polling faster than the interval is slow_down; a refusal is access_denied; an old device
    code is expired_token."""
    def start() -> dict[str, str]:
        status, device = post(oauth2_server.device_url, {"client_id": oauth2_server.client_id})
        assert status == 200
        return {"grant_type": "urn:ietf:params:oauth:grant-type:device_code", "device_code": device["device_code"],
                "client_id": oauth2_server.client_id}

    fast = start()
    assert post(oauth2_server.token_url, fast)[1]["error"] == "authorization_pending"
    assert post(oauth2_server.token_url, fast)[1]["error"] == "slow_down"
    refused = start()
    oauth2_server.deny_device()
    assert post(oauth2_server.token_url, refused)[1]["error"] == "access_denied"
    oauth2_server.device_lifetime = 0
    assert post(oauth2_server.token_url, start())[1]["error"] == "expired_token"


async def test_authorization_code_with_pkce(oauth2_server: AuthorizationServer,
                                            oauth2_dovecot: OAuth2Dovecot) -> None:
    """GET /authorize redirects to the loopback redirect_uri with a code and the state; the code,
    with the right code_verifier and redirect_uri, gives a token that works, once."""
    verifier, challenge = pkce()
    status, location = authorize(oauth2_server, response_type="code", client_id=oauth2_server.client_id,
                                 redirect_uri=REDIRECT, state="xyz", code_challenge=challenge,
                                 code_challenge_method="S256", scope="mail")
    assert status == 302 and location.startswith(REDIRECT + "?")
    query = parse_qs(urlsplit(location).query)
    assert query["state"] == ["xyz"]
    exchange = {"grant_type": "authorization_code", "code": query["code"][0], "redirect_uri": REDIRECT,
                "client_id": oauth2_server.client_id}
    status, error = post(oauth2_server.token_url, {**exchange, "code_verifier": "wrong" * 10})
    assert (status, error["error"]) == (400, "invalid_grant")  # and the code is spent

    status, location = authorize(oauth2_server, response_type="code", client_id=oauth2_server.client_id,
                                 redirect_uri=REDIRECT, state="abc", code_challenge=challenge,
                                 code_challenge_method="S256", scope="mail")
    exchange["code"] = parse_qs(urlsplit(location).query)["code"][0]
    status, error = post(oauth2_server.token_url, {**exchange, "redirect_uri": REDIRECT + "x", "code_verifier": verifier})
    assert (status, error["error"]) == (400, "invalid_grant")

    status, location = authorize(oauth2_server, response_type="code", client_id=oauth2_server.client_id,
                                 redirect_uri=REDIRECT, code_challenge=challenge, code_challenge_method="S256")
    exchange["code"] = parse_qs(urlsplit(location).query)["code"][0]
    status, tokens = post(oauth2_server.token_url, {**exchange, "code_verifier": verifier})
    assert status == 200 and tokens["scope"] == "mail"
    assert await imap_xoauth2(oauth2_dovecot.imap_port, "gm", tokens["access_token"]) == "OK"
    status, error = post(oauth2_server.token_url, {**exchange, "code_verifier": verifier})
    assert (status, error["error"]) == (400, "invalid_grant")


def test_authorize_refusals(oauth2_server: AuthorizationServer) -> None:
    """No PKCE is invalid_request, a user's refusal access_denied (both redirected, with the
    state); a redirect_uri that is not loopback http is not redirected to at all."""
    _, challenge = pkce()
    base = {"response_type": "code", "client_id": oauth2_server.client_id, "redirect_uri": REDIRECT, "state": "s"}
    status, location = authorize(oauth2_server, **base)
    assert status == 302 and parse_qs(urlsplit(location).query) == {
        "error": ["invalid_request"], "error_description": ["PKCE with S256 is required"], "state": ["s"]}
    oauth2_server.deny = True
    status, location = authorize(oauth2_server, **base, code_challenge=challenge, code_challenge_method="S256")
    assert status == 302 and parse_qs(urlsplit(location).query)["error"] == ["access_denied"]
    status, _ = authorize(oauth2_server, **{**base, "redirect_uri": "https://evil.example/cb"},
                          code_challenge=challenge, code_challenge_method="S256")
    assert status == 400


# --- SMTP submission -------------------------------------------------------------------------


async def test_submission_with_a_token_reaches_the_players(
    oauth2_server: AuthorizationServer, oauth2_dovecot: OAuth2Dovecot, oauth2_submission: Submission,
    read_mailbox: ReadMailbox, wait_until: WaitUntil,
) -> None:
    """Postfix signs the judge in through Dovecot's SASL (XOAUTH2, the token checked at the
    authorization server) and delivers over LMTP into the player's mailbox."""
    client = smtp(oauth2_submission, oauth2_server.grant()["access_token"])
    async with client:
        assert "xoauth2" in client.server_auth_methods and "oauthbearer" in client.server_auth_methods
        await client.send_message(mail("Spring 1901"), recipients=[f"alice@{DOMAIN}", f"bob@{DOMAIN}"])
    await wait_until(lambda: len(oauth2_dovecot.stored("alice")) == 1 and len(oauth2_dovecot.stored("bob")) == 1,
                     timeout=10, state=oauth2_submission.log)
    [stored] = await read_mailbox(oauth2_dovecot.account("alice"))
    assert b"Subject: Spring 1901" in stored.raw
    await wait_until(lambda: oauth2_submission.logins() == [("gm", "XOAUTH2")], state=oauth2_submission.log)


async def test_submission_refuses_a_revoked_token_and_no_auth(
    oauth2_server: AuthorizationServer, oauth2_dovecot: OAuth2Dovecot, oauth2_submission: Submission,
) -> None:
    """A revoked token's AUTH is refused (535); without AUTH no mail is taken at all."""
    token = oauth2_server.grant()["access_token"]
    oauth2_server.revoke("gm")
    with pytest.raises(aiosmtplib.SMTPAuthenticationError) as refused:
        async with smtp(oauth2_submission, token):
            pass
    assert refused.value.code == 535
    async with aiosmtplib.SMTP(hostname="127.0.0.1", port=oauth2_submission.port, start_tls=False,
                               use_tls=False, timeout=10) as anonymous:
        with pytest.raises(aiosmtplib.SMTPRecipientsRefused):
            await anonymous.send_message(mail("unsigned"))
    await asyncio.sleep(0.2)
    assert oauth2_dovecot.stored("alice") == []
