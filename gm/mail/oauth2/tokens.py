"""Access tokens for XOAUTH2, one process's: refreshed with the kept grant a few minutes before
they expire, and at once when a server refuses one (a provider may end a token early)."""
from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

from requests_oauth2client import OAuth2Client
from requests_oauth2client.exceptions import InvalidClient, InvalidGrant, OAuth2Error, UnauthorizedClient

from gm.mail.oauth2 import grant
from gm.mail.oauth2.providers import OAuth2

log = logging.getLogger(__name__)

MARGIN_SECONDS = 300  # a token this close to its end is refreshed first
DEFAULT_LIFETIME = 3600  # a token response that says no expires_in
TIMEOUT_SECONDS = 30  # one request to the token endpoint


class SignInError(Exception):
    """No access token can be had; the message says what the operator does about it."""


class NoGrant(SignInError):
    pass


class GrantRefused(SignInError):
    pass


def client(oauth2: OAuth2) -> OAuth2Client:
    p = oauth2.provider
    # The library takes https endpoints only, unless told otherwise; the settings allow plain http
    # on the machine itself alone (a provider's stand-in, a local proxy), so that is allowed here.
    on_this_machine = any(url and url.startswith("http://") for url in (p.token_url, p.authorize_url, p.device_url))
    return OAuth2Client(p.token_url, client_id=oauth2.client_id, client_secret=oauth2.client_secret or None,
                        authorization_endpoint=p.authorize_url, device_authorization_endpoint=p.device_url,
                        testing=on_this_machine)


class AccessTokens:
    """`await current()` is a valid access token; `refused()` when a server refused it. With
    `on_refused`, called (in a worker thread) with the reason when this process finds the provider
    refusing the grant: once, whichever process finds it first."""

    def __init__(self, oauth2: OAuth2, on_refused: Callable[[str], None] | None = None) -> None:
        self.oauth2 = oauth2
        self.on_refused = on_refused
        self._token: str | None = None
        self._expires = 0.0  # time.time()
        self._told: str | None = None  # the refusal logged already: one line, not one a login

    async def current(self) -> str:
        if self._token is None or time.time() > self._expires - MARGIN_SECONDS:
            self._token, self._expires = await asyncio.to_thread(self._refresh)
        return self._token

    def refused(self) -> None:
        self._token = None

    def _refresh(self) -> tuple[str, float]:
        path = self.oauth2.grant_path
        again = f"run `gm mail authorize` to sign the judge in to {self.oauth2.provider.name} again"
        with grant.locked(path):
            kept = grant.load(path)
            if kept is None:
                raise NoGrant(f"no OAuth2 grant in {path}: run `gm mail authorize` once")
            why = grant.refused(kept)
            if why is not None:
                self._tell(why, again)
                raise GrantRefused(f"the provider refused the OAuth2 grant ({why}): {again}")
            try:
                token = client(self.oauth2).refresh_token(kept["refresh_token"],
                                                          requests_kwargs={"timeout": TIMEOUT_SECONDS})
            except (InvalidGrant, InvalidClient, UnauthorizedClient) as e:
                kept["refused"] = {"at": grant.now(), "error": e.error, "description": e.description}
                grant.save(path, kept)
                why = grant.refused(kept) or e.error
                self._tell(why, again)
                if self.on_refused is not None:
                    try:
                        self.on_refused(why)
                    except Exception:  # telling is a courtesy: the refusal is logged and kept anyway
                        log.exception("could not tell of the refused OAuth2 grant")
                raise GrantRefused(f"the provider refused the OAuth2 grant ({why}): {again}") from None
            except OAuth2Error as e:  # the provider's trouble, not the grant's: tried again later
                answer = getattr(e, "error", None) or type(e).__name__
                raise SignInError(f"the OAuth2 token endpoint answered {answer}") from None
            except OSError as e:  # requests' connection errors and timeouts are OSErrors
                raise SignInError(f"the OAuth2 token endpoint cannot be reached: {type(e).__name__}") from None
            if token.refresh_token and token.refresh_token != kept["refresh_token"]:  # rotated
                kept["refresh_token"] = token.refresh_token
            kept["refreshed_at"] = grant.now()
            grant.save(path, kept)
        self._told = None
        lifetime = token.expires_in if token.expires_in is not None else DEFAULT_LIFETIME
        return token.access_token, time.time() + lifetime

    def _tell(self, why: str, again: str) -> None:
        if self._told != why:
            log.error("the mail provider refused the judge's OAuth2 grant (%s): %s", why, again)
            self._told = why
