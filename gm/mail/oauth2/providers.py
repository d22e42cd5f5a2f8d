"""Where a provider's OAuth2 endpoints are, which scopes reach its mail, and how a program gets its
first grant (the facts from each provider's documentation for IMAP, POP and SMTP with OAuth2)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from gm.settings import OAUTH2_PROVIDERS, Settings

GRANT_FILE = "oauth2-grant.json"  # in the data folder, beside the judge's secret key

Grant = Literal["device", "loopback"]  # RFC 8628 device code; authorization code to a loopback redirect


@dataclass(frozen=True)
class Provider:
    name: str
    token_url: str
    scopes: tuple[str, ...]
    grant: Grant
    authorize_url: str | None = None  # the loopback grant's
    device_url: str | None = None  # the device grant's


def microsoft(tenant: str = "common") -> Provider:
    """Microsoft 365 and Outlook.com: `tenant` is 'common', 'consumers' (Outlook.com only),
    'organizations' or the organisation's tenant id. A program without a browser uses the device
    code; offline_access gives the refresh token."""
    base = f"https://login.microsoftonline.com/{tenant}/oauth2/v2.0"
    return Provider("microsoft", f"{base}/token", (
        "https://outlook.office.com/IMAP.AccessAsUser.All", "https://outlook.office.com/SMTP.Send", "offline_access"),
        "device", authorize_url=f"{base}/authorize", device_url=f"{base}/devicecode")


GOOGLE = Provider("google", "https://oauth2.googleapis.com/token", ("https://mail.google.com/",), "loopback",
                  authorize_url="https://accounts.google.com/o/oauth2/v2/auth")  # Gmail's scope has no device grant


@dataclass(frozen=True)
class OAuth2:
    """What one process needs to sign in: the provider, the judge's client registration at it, and
    where the grant is kept. Picklable: each outbox process gets a copy and refreshes on its own."""

    provider: Provider
    client_id: str
    client_secret: str | None
    grant_path: Path

    def __repr__(self) -> str:  # never the client secret in a log
        return f"OAuth2({self.provider.name}, client {self.client_id!r}, grant in {self.grant_path})"


def provider_of(name: str, *, tenant: str | None = None, authorize_url: str | None = None, token_url: str | None = None,
                device_url: str | None = None, scopes: str | None = None) -> Provider:
    """The provider the settings name, its endpoints and scopes as set where they are (a generic
    provider has only those); raises ValueError saying what is missing."""
    if name == "microsoft":
        found = microsoft(tenant or "common")
    elif name == "google":
        found = GOOGLE
    elif name == "generic":
        if not token_url:
            raise ValueError("a generic OAuth2 provider needs its token_url")
        if not device_url and not authorize_url:
            raise ValueError("a generic OAuth2 provider needs its device_url or its authorize_url")
        found = Provider("generic", token_url, (), "device" if device_url else "loopback")
    else:
        raise ValueError(f"unknown OAuth2 provider {name!r}: one of {', '.join(OAUTH2_PROVIDERS)}")
    changed = {k: v for k, v in (("authorize_url", authorize_url), ("token_url", token_url),
                                 ("device_url", device_url)) if v}
    if scopes:
        changed["scopes"] = tuple(scopes.split())
    found = replace(found, **changed)
    if name == "generic" and device_url:
        found = replace(found, grant="device")
    return found


def from_settings(settings: Settings) -> OAuth2 | None:
    """The OAuth2 sign-in the settings ask for (None: passwords), its grant kept in the data folder."""
    if settings.oauth2_provider is None:
        return None
    provider = provider_of(settings.oauth2_provider, tenant=settings.oauth2_tenant,
                           authorize_url=settings.oauth2_authorize_url, token_url=settings.oauth2_token_url,
                           device_url=settings.oauth2_device_url, scopes=settings.oauth2_scopes)
    return OAuth2(provider, settings.oauth2_client_id or "", settings.oauth2_client_secret,
                  settings.data_dir / GRANT_FILE)
