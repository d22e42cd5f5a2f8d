"""A stand-in OAuth2 authorization server for the tests of the judge's OAuth2 sign-in to IMAP and
SMTP: a real HTTP server on loopback (stdlib http.server, a thread a request) speaking the standard
wire formats, form-encoded requests and JSON answers:

- POST /device: the device authorization request (RFC 8628 §3.1);
- POST /token: the authorization code grant with PKCE (RFC 6749 §4.1, RFC 7636, S256 only and
  required), the refresh grant (§6) and the device grant (RFC 8628 §3.4), with RFC 6749 §5.2 error
  bodies (HTTP 400, or 401 invalid_client) and RFC 8628's authorization_pending, slow_down,
  expired_token and access_denied;
- GET /authorize: the authorization endpoint, which approves (as `approve_as`) or denies at once,
  redirecting to a loopback http redirect_uri (RFC 8252 §7.3);
- POST /introspect: token introspection (RFC 7662), token=... as a form field (what Dovecot's oauth2
  passdb sends with `introspection_mode = post`). GET /introspect with an `Authorization: Bearer`
  header (Dovecot's `auth` mode) and GET /introspect/<token> or ?token= (its `get` mode) answer
  the same. Open to any caller: no client authentication.

Only access tokens introspect as active: a refresh token is no bearer credential for IMAP or SMTP,
so a test that used one by mistake fails. Tokens are random (secrets.token_urlsafe)."""
from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, unquote, unquote_plus, urlencode, urlsplit

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"
SLOW_DOWN_STEP = 5  # seconds the polling interval grows by after a slow_down (RFC 8628 §3.5)
POLL_TOLERANCE = 0.1  # seconds a poll may come early (timer jitter) before it is answered slow_down


class OAuthError(Exception):
    """An RFC 6749 §5.2 error answer: {"error": code, "error_description": ...} with `status`."""

    def __init__(self, error: str, description: str = "", status: int = 400) -> None:
        super().__init__(f"{error}: {description}")
        self.error, self.description, self.status = error, description, status


@dataclass
class _Access:
    user: str
    scope: str
    client_id: str
    expires_at: float
    issued_at: float
    active: bool = True


@dataclass
class _Refresh:
    user: str
    scope: str
    client_id: str
    valid: bool = True


@dataclass
class _Device:
    user_code: str
    scope: str
    client_id: str
    expires_at: float
    interval: float
    user: str | None = None  # approved as
    denied: bool = False
    last_poll: float = 0.0


@dataclass
class _Code:
    user: str
    scope: str
    client_id: str
    redirect_uri: str
    challenge: str
    expires_at: float


@dataclass
class AuthorizationServer:
    """The authorization server, its settings (change them before or while it runs) and what it
    saw. A request's scope is granted as asked (so that a test can obtain a token of a wrong
    scope); without one, `scope`. `revoke(user)` and `expire_access_tokens()` act on the tokens
    issued so far: tokens issued afterwards work. With `deny`, GET /authorize redirects with
    error=access_denied and pending device authorizations answer access_denied."""

    client_id: str = "gm-test-client"
    client_secret: str | None = None  # when set, required (client_secret_post or client_secret_basic)
    scope: str = "mail"
    access_lifetime: int = 3600  # expires_in of an access token, seconds
    rotate: bool = True  # a refresh grant returns a new refresh token and refuses the old one; else none (keep the old)
    approve_as: str = "gm"
    deny: bool = False
    device_interval: int = 1  # the polling interval a device authorization asks for, seconds
    device_lifetime: int = 600  # seconds a device code may be polled
    code_lifetime: int = 60  # seconds an authorization code may be redeemed
    # what the tests read
    refreshed: int = field(default=0, init=False)  # refresh grants answered with a token
    introspected: int = field(default=0, init=False)  # introspection requests
    issued: int = field(default=0, init=False)  # token sets issued, by any grant or grant()
    requests: list[tuple[str, str, dict[str, str]]] = field(default_factory=list, init=False)  # (method, path, fields)
    url: str = field(default="", init=False)  # http://127.0.0.1:PORT once started

    def __post_init__(self) -> None:
        self._lock = threading.RLock()
        self._access: dict[str, _Access] = {}
        self._refresh: dict[str, _Refresh] = {}
        self._devices: dict[str, _Device] = {}  # by device_code
        self._codes: dict[str, _Code] = {}
        self._http: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # --- running ---------------------------------------------------------------------------

    def start(self) -> None:
        server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        server.daemon_threads = True
        server.block_on_close = False  # type: ignore[attr-defined]
        self._http = server
        self.url = f"http://127.0.0.1:{server.server_address[1]}"
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="oauth2-server", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        if self._http is not None:
            self._http.shutdown()
            self._http.server_close()
            self._http = None
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None

    def __enter__(self) -> AuthorizationServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    @property
    def token_url(self) -> str:
        return self.url + "/token"

    @property
    def device_url(self) -> str:
        return self.url + "/device"

    @property
    def authorize_url(self) -> str:
        return self.url + "/authorize"

    @property
    def introspect_url(self) -> str:
        return self.url + "/introspect"

    # --- what a test does directly --------------------------------------------------------

    def grant(self, user: str = "gm", scope: str | None = None) -> dict[str, Any]:
        """A token set as a finished authorization would issue it (the token endpoint's answer)."""
        with self._lock:
            return self._issue(user, self.scope if scope is None else scope, self.client_id)

    def approve_device(self, user_code: str | None = None, user: str = "gm") -> None:
        """The user approves a pending device authorization (the latest when `user_code` is None)."""
        with self._lock:
            self._find_device(user_code).user = user

    def deny_device(self, user_code: str | None = None) -> None:
        """The user refuses a pending device authorization: its polls answer access_denied."""
        with self._lock:
            self._find_device(user_code).denied = True

    def revoke(self, user: str) -> None:
        """Every token issued to `user` so far refused: refresh -> invalid_grant, introspection -> inactive."""
        with self._lock:
            for access in self._access.values():
                if access.user == user:
                    access.active = False
            for refresh in self._refresh.values():
                if refresh.user == user:
                    refresh.valid = False

    def expire_access_tokens(self) -> None:
        """Every access token issued so far is past its expiry (their refresh tokens still work)."""
        with self._lock:
            now = time.time()
            for access in self._access.values():
                access.expires_at = min(access.expires_at, now - 1)

    def tokens(self) -> list[str]:
        """Every access and refresh token issued so far (for tests that look for them in logs)."""
        with self._lock:
            return [*self._access, *self._refresh]

    def pending_user_codes(self) -> list[str]:
        """The user codes of the device authorizations neither approved nor denied, oldest first."""
        with self._lock:
            return [d.user_code for d in self._devices.values() if d.user is None and not d.denied]

    def introspect(self, token: str) -> dict[str, Any]:
        """What POST /introspect answers for `token` (not counted in `introspected`)."""
        with self._lock:
            access = self._access.get(token)
            if access is None or not access.active or access.expires_at <= time.time():
                return {"active": False}
            return {"active": True, "username": access.user, "sub": access.user, "scope": access.scope,
                    "client_id": access.client_id, "token_type": "Bearer", "exp": int(access.expires_at),
                    "iat": int(access.issued_at)}

    # --- the grants -----------------------------------------------------------------------

    def _issue(self, user: str, scope: str, client_id: str) -> dict[str, Any]:
        now = time.time()
        access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        self._access[access] = _Access(user, scope, client_id, now + self.access_lifetime, now)
        self._refresh[refresh] = _Refresh(user, scope, client_id)
        self.issued += 1
        return {"access_token": access, "refresh_token": refresh, "expires_in": self.access_lifetime,
                "token_type": "Bearer", "scope": scope}

    def _find_device(self, user_code: str | None) -> _Device:
        pending = [d for d in self._devices.values() if d.user is None and not d.denied]
        if user_code is not None:
            pending = [d for d in pending if d.user_code == user_code]
        if not pending:
            raise LookupError(f"no pending device authorization{'' if user_code is None else ' ' + user_code}")
        return pending[-1]

    def _client(self, form: dict[str, str], authorization: str | None) -> str:
        """The authenticated client's id (RFC 6749 §2.3.1), or OAuthError invalid_client (401)."""
        client_id, secret = form.get("client_id"), form.get("client_secret")
        if authorization and authorization.lower().startswith("basic "):
            if secret is not None:
                raise OAuthError("invalid_request", "more than one client authentication method")
            try:
                pair = base64.b64decode(authorization[6:].strip(), validate=True).decode()
            except ValueError:
                raise OAuthError("invalid_client", "malformed Basic credentials", 401) from None
            basic_id, _, basic_secret = pair.partition(":")
            basic_id, secret = unquote_plus(basic_id), unquote_plus(basic_secret)
            if client_id is not None and client_id != basic_id:
                raise OAuthError("invalid_client", "client_id differs from the Basic credentials", 401)
            client_id = basic_id
        if client_id != self.client_id:
            raise OAuthError("invalid_client", "unknown client", 401)
        if self.client_secret is not None and not (
            secret is not None and secrets.compare_digest(secret.encode(), self.client_secret.encode())
        ):
            raise OAuthError("invalid_client", "client authentication failed", 401)
        return client_id

    def _device_authorization(self, form: dict[str, str], authorization: str | None) -> dict[str, Any]:
        client_id = self._client(form, authorization)
        device_code = secrets.token_urlsafe(32)
        letters = "BCDFGHJKLMNPQRSTVWXZ"  # RFC 8628 §6.1: no vowels, no look-alikes
        user_code = "".join(secrets.choice(letters) for _ in range(8))
        user_code = f"{user_code[:4]}-{user_code[4:]}"
        self._devices[device_code] = _Device(user_code, form.get("scope") or self.scope, client_id,
                                             time.time() + self.device_lifetime, self.device_interval)
        verification = self.url + "/device/verify"
        return {"device_code": device_code, "user_code": user_code, "verification_uri": verification,
                "verification_uri_complete": f"{verification}?{urlencode({'user_code': user_code})}",
                "expires_in": self.device_lifetime, "interval": self.device_interval}

    def _token(self, form: dict[str, str], authorization: str | None) -> dict[str, Any]:
        grant_type = form.get("grant_type")
        if grant_type not in ("authorization_code", "refresh_token", DEVICE_GRANT):
            if not grant_type:
                raise OAuthError("invalid_request", "grant_type missing")
            raise OAuthError("unsupported_grant_type", f"grant_type {grant_type} not supported")
        client_id = self._client(form, authorization)
        if grant_type == "authorization_code":
            return self._code_grant(form, client_id)
        if grant_type == "refresh_token":
            return self._refresh_grant(form, client_id)
        return self._device_grant(form, client_id)

    def _code_grant(self, form: dict[str, str], client_id: str) -> dict[str, Any]:
        code = self._codes.pop(form.get("code", ""), None)  # once only
        if code is None or code.expires_at <= time.time():
            raise OAuthError("invalid_grant", "unknown, used or expired authorization code")
        if code.client_id != client_id:
            raise OAuthError("invalid_grant", "the code was issued to another client")
        if form.get("redirect_uri") != code.redirect_uri:
            raise OAuthError("invalid_grant", "redirect_uri differs from the authorization request's")
        verifier = form.get("code_verifier")
        if not verifier:
            raise OAuthError("invalid_request", "code_verifier missing (PKCE is required)")
        if not secrets.compare_digest(_s256(verifier), code.challenge):
            raise OAuthError("invalid_grant", "code_verifier does not match the code_challenge")
        return self._issue(code.user, code.scope, client_id)

    def _refresh_grant(self, form: dict[str, str], client_id: str) -> dict[str, Any]:
        token = form.get("refresh_token", "")
        refresh = self._refresh.get(token)
        if refresh is None or not refresh.valid:
            raise OAuthError("invalid_grant", "unknown, revoked or rotated refresh token")
        if refresh.client_id != client_id:
            raise OAuthError("invalid_grant", "the refresh token was issued to another client")
        scope = refresh.scope
        if form.get("scope"):
            if not set(form["scope"].split()) <= set(refresh.scope.split()):
                raise OAuthError("invalid_scope", "more scope than originally granted")
            scope = form["scope"]
        issued = self._issue(refresh.user, scope, client_id)
        if self.rotate:
            refresh.valid = False
        else:  # the client keeps its refresh token (RFC 6749 §6: a new one is optional)
            del self._refresh[issued.pop("refresh_token")]
        self.refreshed += 1
        return issued

    def _device_grant(self, form: dict[str, str], client_id: str) -> dict[str, Any]:
        code = form.get("device_code", "")
        device = self._devices.get(code)
        if device is None or device.client_id != client_id:
            raise OAuthError("invalid_grant", "unknown or used device code")
        now = time.time()
        if device.expires_at <= now:
            raise OAuthError("expired_token", "the device code has expired")
        if device.denied or (self.deny and device.user is None):
            del self._devices[code]
            raise OAuthError("access_denied", "the user refused")
        early = now - device.last_poll < device.interval - POLL_TOLERANCE
        device.last_poll = now
        if early:
            device.interval += SLOW_DOWN_STEP
            raise OAuthError("slow_down", f"poll every {device.interval} s at most")
        if device.user is None:
            raise OAuthError("authorization_pending", "the user has not answered yet")
        del self._devices[code]
        return self._issue(device.user, device.scope, client_id)

    def _authorize(self, query: dict[str, str]) -> tuple[int, str]:
        """GET /authorize: (302, Location) or (400, an error page's text) when there is nowhere safe
        to redirect to (RFC 6749 §4.1.2.1)."""
        redirect_uri = query.get("redirect_uri", "")
        if query.get("client_id") != self.client_id:
            return 400, "unknown client_id"
        target = urlsplit(redirect_uri)
        if target.scheme != "http" or target.hostname not in LOOPBACK_HOSTS or target.fragment:
            return 400, "redirect_uri must be a loopback http URL"
        answer: dict[str, str]
        if query.get("response_type") != "code":
            answer = {"error": "unsupported_response_type"}
        elif not query.get("code_challenge") or query.get("code_challenge_method") != "S256":
            answer = {"error": "invalid_request", "error_description": "PKCE with S256 is required"}
        elif self.deny:
            answer = {"error": "access_denied", "error_description": "the user refused"}
        else:
            code = secrets.token_urlsafe(32)
            self._codes[code] = _Code(self.approve_as, query.get("scope") or self.scope, self.client_id,
                                      redirect_uri, query["code_challenge"], time.time() + self.code_lifetime)
            answer = {"code": code}
        if "state" in query:
            answer["state"] = query["state"]
        return 302, redirect_uri + ("&" if target.query else "?") + urlencode(answer)


def _s256(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode("ascii")).digest()).rstrip(b"=").decode()


def _handler(server: AuthorizationServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        # HTTP/1.0: one request a connection, so that stop() waits for no client's idle connection
        protocol_version = "HTTP/1.0"

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

        def do_GET(self) -> None:
            parts = urlsplit(self.path)
            query = dict(parse_qsl(parts.query, keep_blank_values=True))
            self._record("GET", parts.path, query)
            if parts.path == "/authorize":
                with server._lock:
                    status, text = server._authorize(query)
                if status == 302:
                    self._send(302, b"", "text/plain", {"Location": text})
                else:
                    self._send(status, text.encode(), "text/plain; charset=utf-8")
            elif parts.path == "/introspect" or parts.path.startswith("/introspect/"):
                bearer = self.headers.get("Authorization", "")
                token = (parts.path[len("/introspect/"):] or query.get("token")
                         or (bearer[7:].strip() if bearer.lower().startswith("bearer ") else ""))
                self._introspect(unquote(token))
            elif parts.path == "/device/verify":
                self._send(200, b"<p>Enter the code shown on your device.</p>", "text/html; charset=utf-8")
            else:
                self._send(404, b"not found", "text/plain")

        def do_POST(self) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length).decode("utf-8", "replace")
            kind = (self.headers.get("Content-Type") or "").split(";")[0].strip().lower()
            form = dict(parse_qsl(body, keep_blank_values=True))
            self._record("POST", parts.path, form)
            if parts.path == "/introspect":
                bearer = self.headers.get("Authorization", "")
                self._introspect(form.get("token") or (bearer[7:].strip() if bearer.lower().startswith("bearer ") else ""))
                return
            if parts.path not in ("/token", "/device"):
                self._send(404, b"not found", "text/plain")
                return
            try:
                if kind != "application/x-www-form-urlencoded":
                    raise OAuthError("invalid_request", "the body must be application/x-www-form-urlencoded")
                with server._lock:
                    if parts.path == "/token":
                        answer = server._token(form, self.headers.get("Authorization"))
                    else:
                        answer = server._device_authorization(form, self.headers.get("Authorization"))
            except OAuthError as e:
                error: dict[str, Any] = {"error": e.error}
                if e.description:
                    error["error_description"] = e.description
                extra = {"WWW-Authenticate": 'Basic realm="gm-test"'} if e.status == 401 else {}
                self._json(e.status, error, extra)
                return
            self._json(200, answer)

        def _introspect(self, token: str) -> None:
            with server._lock:
                server.introspected += 1
            self._json(200, server.introspect(token))

        def _record(self, method: str, path: str, fields: dict[str, str]) -> None:
            with server._lock:
                server.requests.append((method, path, fields))

        def _json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
            self._send(status, json.dumps(payload).encode(), "application/json",
                       {"Cache-Control": "no-store", "Pragma": "no-cache", **(headers or {})})

        def _send(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
            self.send_response(status, HTTPStatus(status).phrase)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

    return Handler
