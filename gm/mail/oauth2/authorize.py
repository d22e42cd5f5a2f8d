"""`gm mail authorize`: the one-time grant of the judge's mailbox to the judge, by the grant the
provider allows a program: the device code (the operator opens a page anywhere and types a short
code), or the authorization code sent back to a loopback address (a browser on the judge's own
machine; PKCE, so that no other program can use the code). The refresh token is kept (grant.py),
never shown."""
from __future__ import annotations

import threading
import time
import webbrowser
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

from requests_oauth2client import BearerToken, DeviceAuthorizationPollingJob
from requests_oauth2client.exceptions import AccessDenied, ExpiredToken, OAuth2Error

from gm.mail.oauth2 import grant
from gm.mail.oauth2.providers import OAuth2
from gm.mail.oauth2.tokens import TIMEOUT_SECONDS, SignInError, client

LOOPBACK_WAIT_SECONDS = 300  # for the operator to sign in in the browser


def authorize(oauth2: OAuth2, user: str, say: Callable[[str], None] = print, *, browser: bool = True) -> dict[str, Any]:
    """Obtain a grant for `user`'s mailbox and keep it; returns what was kept but the token."""
    token = _device(oauth2, user, say) if oauth2.provider.grant == "device" else _loopback(oauth2, user, say, browser)
    if not token.refresh_token:
        raise SignInError("the provider gave no refresh token: the judge could not sign in again by itself "
                          "(Microsoft needs the offline_access scope; Google gives one on consent)")
    kept = {"provider": oauth2.provider.name, "client_id": oauth2.client_id, "user": user,
            "refresh_token": token.refresh_token, "scope": token.scope or " ".join(oauth2.provider.scopes),
            "obtained_at": grant.now()}
    grant.save(oauth2.grant_path, kept)
    return {k: v for k, v in kept.items() if k != "refresh_token"}


def _device(oauth2: OAuth2, user: str, say: Callable[[str], None]) -> BearerToken:
    c = client(oauth2)
    try:
        asked = c.authorize_device(scope=" ".join(oauth2.provider.scopes), requests_kwargs={"timeout": TIMEOUT_SECONDS})
    except (OAuth2Error, OSError) as e:
        raise SignInError(f"the provider's device authorization endpoint refused: {_why(e)}") from None
    minutes = max(1, round((asked.expires_at.timestamp() - time.time()) / 60)) if asked.expires_at else 15
    say(f"To let the judge read and send mail as {user}: open {asked.verification_uri} in any browser, "
        f"sign in as {user} and enter the code {asked.user_code} (within {minutes} minutes).")
    job = DeviceAuthorizationPollingJob(c, asked, requests_kwargs={"timeout": TIMEOUT_SECONDS})
    try:
        while (token := job()) is None:
            pass
    except ExpiredToken:
        raise SignInError("the code expired before it was entered: run `gm mail authorize` again") from None
    except AccessDenied:
        raise SignInError(f"the sign-in was declined at {oauth2.provider.name}") from None
    except (OAuth2Error, OSError) as e:
        raise SignInError(f"the provider's token endpoint refused: {_why(e)}") from None
    return token


def _loopback(oauth2: OAuth2, user: str, say: Callable[[str], None], browser: bool) -> BearerToken:
    came: list[str] = []

    class Back(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            came.append(f"http://127.0.0.1:{server.server_port}{self.path}")
            self.send_response(200)
            self.send_header("Content-Type", "text/plain; charset=utf-8")
            self.end_headers()
            self.wfile.write(b"gm: you may close this page and go back to the terminal.\n")

        def log_message(self, *args: object) -> None:  # the code is in the path: never printed
            pass

    server = HTTPServer(("127.0.0.1", 0), Back)
    c = client(oauth2)
    request = c.authorization_request(scope=" ".join(oauth2.provider.scopes), nonce=None,
                                      redirect_uri=f"http://127.0.0.1:{server.server_port}/",
                                      login_hint=user, access_type="offline", prompt="consent")
    say(f"To let the judge read and send mail as {user}: sign in as {user} on the page "
        f"{'opened in your browser' if browser else 'at this address, in a browser on this machine'}:\n{request.uri}")
    waiting = threading.Thread(target=_serve_until, args=(server, came), daemon=True)
    waiting.start()  # before the browser: one that is waited for must find the judge answering
    if browser:
        webbrowser.open(request.uri)
    waiting.join(LOOPBACK_WAIT_SECONDS)
    server.server_close()
    if not came:
        raise SignInError(f"no answer from the browser in {LOOPBACK_WAIT_SECONDS // 60} minutes: "
                          "run `gm mail authorize` again")
    try:
        answer = request.validate_callback(came[0])
        return c.authorization_code(answer, requests_kwargs={"timeout": TIMEOUT_SECONDS})
    except Exception as e:  # a refusal, a state that does not match, a dead endpoint: said in one line
        raise SignInError(f"the sign-in did not complete: {_why(e)}") from None


def _serve_until(server: HTTPServer, came: list[str]) -> None:
    server.timeout = 1
    end = time.monotonic() + LOOPBACK_WAIT_SECONDS
    while not came and time.monotonic() < end:
        server.handle_request()


def _why(e: BaseException) -> str:
    error = getattr(e, "error", None)
    description = getattr(e, "description", None)
    if error:
        return f"{error}" + (f" ({description})" if description else "")
    return type(e).__name__ if isinstance(e, OSError) else str(e) or type(e).__name__
