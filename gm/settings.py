"""The server's settings: defaults, overridden by a TOML file, overridden by GM_* environment variables.

gm.example.toml at the top of the repository lists every setting with its default. The TOML file
(path from `gm serve --config FILE` or GM_CONFIG) looks like::

    gm_address = "judge@example.org"
    database_url = "postgresql+psycopg://gm@localhost/gm"
    timezone = "Europe/London"
    data_dir = "/var/lib/gm"
    max_mail_size = 1000000
    poll_seconds = 60
    raw_mail_days = 30
    replies_per_hour = 60
    dns_server = "127.0.0.1:5353"
    authserv_id = "mx.example.org"

    [imap]
    host = "imap.example.org"
    port = 993
    tls = "ssl"              # none | starttls | ssl
    user = "judge"
    password = "..."

    [smtp]
    host = "smtp.example.org"
    port = 587
    tls = "starttls"
    user = "judge"
    password = "..."

Every key has an environment variable: GM_ADDRESS, GM_DATABASE_URL, GM_TIMEZONE, GM_DATA_DIR,
GM_MAX_MAIL_SIZE, GM_POLL_SECONDS, GM_RAW_MAIL_DAYS, GM_OUTBOX_SENDERS, GM_PAGES_DIR, GM_HTTP_PORT, GM_PUBLIC_URL, GM_IMAP_HOST, GM_IMAP_PORT, GM_IMAP_TLS,
GM_IMAP_USER, GM_IMAP_PASSWORD, and the same for SMTP; GM_DNS_SERVER, GM_AUTHSERV_ID. With no IMAP
host at all, the server runs its own embedded mail servers on loopback (see gm.mail.embedded).
Settings that cannot work together (an IMAP host without a login, say) are refused when loaded, not
found out by a retrying server.

To tell forged mail from real, the judge trusts the Authentication-Results header (RFC 8601) of the
operator's own receiving mail server, whose authserv-id is `authserv_id` (with embedded mail, by
default EMBEDDED_AUTHSERV_ID, which gm's own SMTP server writes), and otherwise looks DKIM keys, SPF
and DMARC records up in DNS, at `dns_server` ("host", "host:port" or "[IPv6]:port", an IP address;
by default the system's resolver).
"""
from __future__ import annotations

import ipaddress
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal, cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

TlsMode = Literal["none", "starttls", "ssl"]
TLS_MODES: tuple[TlsMode, ...] = ("none", "starttls", "ssl")
OAUTH2_PROVIDERS = ("microsoft", "google", "generic")  # gm.mail.oauth2.providers
RETURN_PATHS = ("gm", "tagged")  # Settings.smtp_return_path

IMAP_PORTS: dict[TlsMode, int] = {"none": 143, "starttls": 143, "ssl": 993}
SMTP_PORTS: dict[TlsMode, int] = {"none": 25, "starttls": 587, "ssl": 465}
# The authserv-id the embedded SMTP server (gm.mail.embedded) writes its Authentication-Results with.
EMBEDDED_AUTHSERV_ID = "gm-embedded"
DNS_PORT = 53


class SettingsError(ValueError):
    """A setting is missing, unknown or malformed; the message names it, where it came from, and
    what to do about it."""


@dataclass(frozen=True)
class MailServer:
    """Where and how to reach one mail server: what the inbox watcher and the outbox sender need."""

    host: str
    port: int
    tls: TlsMode = "none"
    user: str | None = None
    password: str | None = None
    oauth2: bool = False  # log in with XOAUTH2 and an access token (gm.mail.oauth2), not the password

    def __repr__(self) -> str:  # never print the password in logs
        return f"MailServer({self.host}:{self.port}, tls={self.tls}, user={self.user!r})"


@dataclass(frozen=True)
class Settings:
    gm_address: str = "gm@localhost"  # the GM's own mail address
    database_url: str | None = None  # default: a SQLite file in data_dir
    timezone: str = "UTC"  # for deadlines shown to players
    data_dir: Path = Path("data")
    max_mail_size: int = 1_000_000  # larger inbound mail is refused (with a reply)
    poll_seconds: float = 60.0  # IMAP polling interval, and the safety net while in IDLE
    raw_mail_days: int = 30  # inbound mail is kept whole this long, then only its headers
    replies_per_hour: int = 60  # acknowledgements to one player's address an hour at most (gm.mail.budget)
    scheduler_seconds: float = 1.0  # the longest between two looks at the games' deadlines
    outbox_senders: int | None = None  # outbox sender processes; default one a core, at most 4
    # Addresses that may make a game by mail (CREATE <game> <variant> <password>) and run it as its GM.
    trusted_masters: tuple[str, ...] = ()
    # The games' web pages (gm.web): the folder gm serve writes them to after each adjudication
    # (None: no pages), the port it serves that folder on (None: none; any web server may publish
    # the folder instead), and the address they are published at (the results mail links to it).
    pages_dir: Path | None = None
    http_port: int | None = None
    public_url: str | None = None
    dns_server: str | None = None  # "host", "host:port" or "[IPv6]:port" (gm.mail.intake.dns); default: the system's resolver
    # The authserv-id of the operator's own receiving mail server, whose Authentication-Results the judge trusts.
    authserv_id: str | None = None

    imap_host: str | None = None
    imap_port: int | None = None  # default by TLS mode: 993 for ssl, else 143
    imap_tls: TlsMode = "ssl"
    imap_user: str | None = None
    imap_password: str | None = field(default=None, repr=False)

    smtp_host: str | None = None  # default: the IMAP host
    smtp_port: int | None = None  # default by TLS mode: 465 for ssl, 587 for starttls, 25 for none
    smtp_tls: TlsMode = "starttls"
    smtp_user: str | None = None  # default: the IMAP login; used only where the server offers AUTH
    smtp_password: str | None = field(default=None, repr=False)
    # What the provider lets the mailbox send (each mail has one recipient, so messages and
    # recipients alike); None: no limit. The outbox keeps under them (gm.mail.outgoing.pacing).
    smtp_per_hour: int | None = None
    smtp_per_day: int | None = None
    # The envelope sender of each mail, where bounces go: "gm", the GM address itself; or "tagged",
    # gm+b.<mail>.<check>@domain, which names the mail a bounce returns even when the report quotes
    # nothing of it (gm.mail.outgoing.undelivered). Tagged needs a server that takes the GM address
    # with a +tag into the GM's mailbox and lets the judge send from it (most of one's own do;
    # Gmail and Microsoft 365 rewrite or refuse it).
    smtp_return_path: str = "gm"
    # DKIM signatures on what the judge sends (gm.mail.outgoing.signing): the selector (none: no
    # signature) and the key file (default: data_dir/dkim-<selector>.key, as gm mail dkim-key writes it).
    dkim_selector: str | None = None
    dkim_key: Path | None = None

    # OAuth2 sign-in (gm.mail.oauth2) for IMAP, and for SMTP unless it has a password of its own:
    # the provider ('microsoft', 'google', 'generic'), the judge's client registration there, and
    # for a generic provider (or to override a known one) its endpoints and scopes.
    oauth2_provider: str | None = None
    oauth2_client_id: str | None = None
    oauth2_client_secret: str | None = field(default=None, repr=False)
    oauth2_tenant: str | None = None  # Microsoft: common, consumers, organizations or a tenant id
    oauth2_authorize_url: str | None = None
    oauth2_token_url: str | None = None
    oauth2_device_url: str | None = None
    oauth2_scopes: str | None = None  # space-separated

    @property
    def embedded(self) -> bool:
        """True when no IMAP server is configured: gm then runs its own on loopback."""
        return not self.imap_host

    @property
    def trusted_authserv_id(self) -> str | None:
        """The authserv-id whose Authentication-Results header the judge trusts: the one set, else with
        embedded mail that of gm's own SMTP server (which writes one on every mail to the GM), else none."""
        if self.authserv_id:
            return self.authserv_id
        return EMBEDDED_AUTHSERV_ID if self.embedded else None

    @property
    def db_url(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir / 'gm.sqlite3'}"

    @property
    def dkim_key_path(self) -> Path | None:
        """The DKIM key file, when a selector is set."""
        if self.dkim_selector is None:
            return None
        return self.dkim_key or self.data_dir / f"dkim-{self.dkim_selector}.key"

    @property
    def secret_key_path(self) -> Path:
        """The judge's secret key (gm.store.judge_key): a file of its own, never in the database."""
        return self.data_dir / "secret.key"

    def imap_server(self) -> MailServer:
        if not self.imap_host:
            raise SettingsError("no IMAP host configured (GM_IMAP_HOST or [imap] host)")
        port = self.imap_port or IMAP_PORTS[self.imap_tls]
        return MailServer(self.imap_host, port, self.imap_tls, self.imap_user, self.imap_password,
                          oauth2=self.oauth2_provider is not None)

    def smtp_server(self) -> MailServer:
        host = self.smtp_host or self.imap_host
        if not host:
            raise SettingsError("no SMTP host configured (GM_SMTP_HOST or [smtp] host)")
        port = self.smtp_port or SMTP_PORTS[self.smtp_tls]
        if self.oauth2_provider is not None and not self.smtp_password:  # OAuth2, as IMAP
            return MailServer(host, port, self.smtp_tls, self.smtp_user or self.imap_user, None, oauth2=True)
        user, password = self.smtp_user, self.smtp_password
        if user is None and password is None:
            user, password = self.imap_user, self.imap_password
        return MailServer(host, port, self.smtp_tls, user, password)


# --- loading -------------------------------------------------------------------------------------

_SECTIONS = ("imap", "smtp", "oauth2")
OAUTH2_KEYS = ("provider", "client_id", "client_secret", "tenant", "authorize_url", "token_url", "device_url", "scopes")
ENV_VARS: dict[str, str] = {  # environment variable -> setting
    "GM_ADDRESS": "gm_address",
    "GM_DATABASE_URL": "database_url",
    "GM_TIMEZONE": "timezone",
    "GM_DATA_DIR": "data_dir",
    "GM_MAX_MAIL_SIZE": "max_mail_size",
    "GM_POLL_SECONDS": "poll_seconds",
    "GM_RAW_MAIL_DAYS": "raw_mail_days",
    "GM_REPLIES_PER_HOUR": "replies_per_hour",
    "GM_SCHEDULER_SECONDS": "scheduler_seconds",
    "GM_OUTBOX_SENDERS": "outbox_senders",
    "GM_TRUSTED_MASTERS": "trusted_masters",
    "GM_PAGES_DIR": "pages_dir",
    "GM_HTTP_PORT": "http_port",
    "GM_PUBLIC_URL": "public_url",
    "GM_DNS_SERVER": "dns_server",
    "GM_AUTHSERV_ID": "authserv_id",
    **{
        f"GM_{section.upper()}_{key.upper()}": f"{section}_{key}"
        for section in ("imap", "smtp")
        for key in ("host", "port", "tls", "user", "password")
    },
    "GM_SMTP_PER_HOUR": "smtp_per_hour",
    "GM_SMTP_PER_DAY": "smtp_per_day",
    "GM_SMTP_RETURN_PATH": "smtp_return_path",
    "GM_DKIM_SELECTOR": "dkim_selector",
    "GM_DKIM_KEY": "dkim_key",
    **{f"GM_OAUTH2_{key.upper()}": f"oauth2_{key}" for key in OAUTH2_KEYS},
}


def load_settings(config: str | os.PathLike[str] | None = None, environ: Mapping[str, str] | None = None) -> Settings:
    """Settings from the defaults, then the TOML file `config` (else GM_CONFIG, else none), then
    the GM_* variables of `environ` (os.environ by default). Raises SettingsError."""
    env = os.environ if environ is None else environ
    path = config if config is not None else env.get("GM_CONFIG") or None
    values: dict[str, tuple[object, str]] = {}  # field -> (value, where it came from)
    if path is not None:
        for name, value in _read_toml(Path(path)).items():
            values[name] = (value, f"{path}: {name}")
    for var, name in ENV_VARS.items():
        if var in env:
            values[name] = (env[var], var)
    settings = Settings()
    changes = {name: _convert(name, value, where) for name, (value, where) in values.items()}
    settings = replace(settings, **changes)
    _check(settings)
    return settings


def _read_toml(path: Path) -> dict[str, object]:
    try:
        with path.open("rb") as f:
            data = tomllib.load(f)
    except OSError as e:
        raise SettingsError(
            f"cannot read the settings file {path}: {e.strerror or e}: give an existing file with --config or GM_CONFIG"
        ) from e
    except tomllib.TOMLDecodeError as e:
        raise SettingsError(f"{path}: not valid TOML: {e}") from e
    flat: dict[str, object] = {}
    for key, value in data.items():
        if key in _SECTIONS and isinstance(value, dict):
            for sub, subvalue in value.items():
                flat[f"{key}_{sub}"] = subvalue
        else:
            flat[key] = value
    known = {f.name for f in fields(Settings)}
    unknown = sorted(set(flat) - known)
    if unknown:
        raise SettingsError(f"{path}: unknown setting(s): {', '.join(unknown)}: gm.example.toml lists every setting")
    return flat


_PORTS = {"imap_port", "smtp_port", "http_port"}
_INTS = {"max_mail_size", "replies_per_hour", "outbox_senders", "smtp_per_hour", "smtp_per_day"}
_DAYS = {"raw_mail_days"}
_FLOATS = {"poll_seconds", "scheduler_seconds"}
_TLS = {"imap_tls", "smtp_tls"}


def _whole_number(value: object) -> int | None:
    if isinstance(value, (bool, float)):
        return None
    try:
        return int(cast(Any, value))
    except (TypeError, ValueError):
        return None


def _convert(name: str, value: object, where: str) -> Any:
    if name in _PORTS:
        if isinstance(value, str) and value.strip() == "":
            return None
        port = _whole_number(value)
        if port is None or not 0 < port < 65536:
            raise SettingsError(f"{where}: not a port number: {value!r}: give a whole number from 1 to 65535")
        return port
    if name in _INTS:
        number = _whole_number(value)
        if number is None or number <= 0:
            example = "a size in bytes, such as 1000000" if name == "max_mail_size" else "a number, such as 60"
            raise SettingsError(f"{where}: not a positive whole number: {value!r}: give {example}")
        return number
    if name in _DAYS:
        days = _whole_number(value)
        if days is None or days <= 0:
            raise SettingsError(
                f"{where}: not a positive whole number of days: {value!r}: give how many days a mail is kept "
                "whole before only its headers are kept, such as 30"
            )
        return days
    if name in _FLOATS:
        try:
            seconds = float(cast(Any, value))
        except (TypeError, ValueError):
            seconds = 0.0
        if isinstance(value, bool) or not 0 < seconds < float("inf"):
            raise SettingsError(f"{where}: not a positive number: {value!r}: give the seconds between checks, such as 60")
        return seconds
    if name == "trusted_masters":  # a TOML list, or a comma-separated string (the environment)
        items = value.split(",") if isinstance(value, str) else value
        if not isinstance(items, list) or not all(isinstance(item, str) for item in items):
            raise SettingsError(f"{where}: expected addresses, not {value!r}: write [\"gm@example.org\", ...]")
        addresses = tuple(dict.fromkeys(item.strip().lower() for item in items if item.strip()))
        bad = [a for a in addresses if not _is_address(a)]
        if bad:
            raise SettingsError(f"{where}: not a mail address: {bad[0]!r}")
        return addresses
    if not isinstance(value, str):
        raise SettingsError(f"{where}: expected a string, not {value!r}: write it in quotes")
    if name in _TLS:
        mode = value.strip().lower()
        if mode not in TLS_MODES:
            raise SettingsError(f"{where}: must be one of {', '.join(TLS_MODES)}, not {value!r}")
        return mode
    if name == "smtp_return_path":
        mode = value.strip().lower()
        if mode not in RETURN_PATHS:
            raise SettingsError(f"{where}: must be one of {', '.join(RETURN_PATHS)}, not {value!r}")
        return mode
    if name == "data_dir":
        return Path(value)
    if name == "dkim_key":
        return Path(value) if value.strip() else None
    if name == "dkim_selector":  # a DNS label, or labels
        selector = value.strip().lower()
        if selector and not re.fullmatch(r"[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*",
                                         selector):
            raise SettingsError(f"{where}: not a DKIM selector: {value!r}: give a DNS name such as gm1 or 2026-11")
        return selector or None
    if name == "pages_dir":
        return Path(value) if value.strip() else None
    if name == "public_url":
        url = value.strip().rstrip("/")
        if url and not re.fullmatch(r"https?://[^\s/]+(/\S*)?", url):
            raise SettingsError(f"{where}: not a web address: {value!r}: give it as https://example.org/games")
        return url or None
    if name == "dns_server":
        if not value.strip():
            return None
        try:
            dns_server_address(value)
        except ValueError:
            raise SettingsError(
                f"{where}: not a DNS server address: {value!r}: give an IP address, such as 127.0.0.1, "
                "127.0.0.1:5353 or [::1]:5353"
            ) from None
        return value.strip()
    if name == "authserv_id":  # RFC 8601: a token, in practice the receiving server's host name
        if re.search(r'[\s;()"]', value.strip()):
            raise SettingsError(
                f"{where}: not an authserv-id: {value!r}: give the name the mail server writes first in its "
                "Authentication-Results header, such as mx.example.org"
            )
        return value.strip() or None
    if name in ("imap_host", "smtp_host", "imap_user", "smtp_user", "database_url"):
        return value.strip() or None
    if name == "oauth2_provider":
        provider = value.strip().lower() or None
        if provider not in (None, *OAUTH2_PROVIDERS):
            raise SettingsError(f"{where}: unknown OAuth2 provider {value!r}: one of {', '.join(OAUTH2_PROVIDERS)}")
        return provider
    if name in ("oauth2_authorize_url", "oauth2_token_url", "oauth2_device_url"):
        url = value.strip()
        # https, or http on the machine itself (a provider's stand-in, a local proxy)
        if url and not re.fullmatch(r"(https://\S+|http://(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(/\S*)?)", url):
            raise SettingsError(f"{where}: not an https address: {value!r}: give the provider's endpoint, such as "
                                "https://login.example.org/oauth2/token")
        return url or None
    if name.startswith("oauth2_"):
        return value.strip() or None
    return value


def _check(settings: Settings) -> None:
    try:
        ZoneInfo(settings.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise SettingsError(
            f"unknown timezone {settings.timezone!r} (GM_TIMEZONE or timezone): "
            "give a name from the tz database, such as UTC or Europe/London"
        ) from None
    if settings.database_url is not None:
        _check_database_url(settings.database_url)
    if settings.http_port is not None and settings.pages_dir is None:
        raise SettingsError(
            "GM_HTTP_PORT (or http_port) is set but no folder of pages to serve: set GM_PAGES_DIR (or pages_dir) too"
        )
    if not _is_address(settings.gm_address):
        raise SettingsError(
            f"the GM address {settings.gm_address!r} is not a mail address (GM_ADDRESS or gm_address): "
            "give it as name@domain"
        )
    if settings.embedded:
        if settings.smtp_host:
            raise SettingsError(
                "an SMTP host is set (GM_SMTP_HOST or [smtp] host) but no IMAP host: gm reads the GM's mail "
                "over IMAP, so set GM_IMAP_HOST too, or neither to run gm's own mail servers"
            )
        return
    if settings.gm_address == Settings.gm_address:
        raise SettingsError(
            f"no GM address for the mail server {settings.imap_host}: set GM_ADDRESS (or gm_address) "
            "to the address of the mailbox gm reads"
        )
    if settings.oauth2_provider is not None:
        _check_oauth2(settings)
    for what, user, password in (
        ("IMAP", settings.imap_user, settings.imap_password),
        ("SMTP", settings.smtp_user, settings.smtp_password),
    ):
        if settings.oauth2_provider is not None and (what == "IMAP" or not password):
            continue  # signed in with OAuth2 (the IMAP user checked above)
        if what == "SMTP" and user is None and not password:
            continue  # no SMTP login given: the IMAP one, or none if the password is set empty
        prefix, section = f"GM_{what}_", what.lower()
        if user is None:
            raise SettingsError(
                f"no {what} user ({prefix}USER or [{section}] user): "
                f"set it{'' if password else ' and ' + prefix + 'PASSWORD'} to the login of the GM's mailbox"
            )
        if not password:
            raise SettingsError(
                f"no {what} password for {user} ({prefix}PASSWORD or [{section}] password): set it "
                "(with providers that have two-step login, an app password; see docs/mail-account.md)"
            )


def _check_oauth2(settings: Settings) -> None:
    name = settings.oauth2_provider
    if not settings.imap_user:
        raise SettingsError(f"OAuth2 sign-in to {name} needs the mailbox's login: set GM_IMAP_USER (or [imap] user), "
                            "usually the GM's address")
    if not settings.oauth2_client_id:
        raise SettingsError(f"no OAuth2 client id (GM_OAUTH2_CLIENT_ID or [oauth2] client_id): register the judge "
                            f"as an application at {name} and give its id (see docs/mail-account.md)")
    if name == "generic" and not settings.oauth2_token_url:
        raise SettingsError("a generic OAuth2 provider needs its token endpoint: set GM_OAUTH2_TOKEN_URL "
                            "(or [oauth2] token_url)")
    if name == "generic" and not (settings.oauth2_device_url or settings.oauth2_authorize_url):
        raise SettingsError("a generic OAuth2 provider needs its device authorization endpoint (GM_OAUTH2_DEVICE_URL) "
                            "or its authorization endpoint (GM_OAUTH2_AUTHORIZE_URL)")
    if name == "generic" and not settings.oauth2_scopes:
        raise SettingsError("a generic OAuth2 provider needs the scopes that reach its mail: set GM_OAUTH2_SCOPES "
                            "(or [oauth2] scopes), space-separated")


def dns_server_address(server: str) -> tuple[str, int]:
    """The IP address and port of a DNS server written "host", "host:port", "IPv6" or "[IPv6]:port";
    raises ValueError. An IP address only: the server that resolves names cannot be found by name."""
    text = server.strip()
    host, port = text, str(DNS_PORT)
    if text.startswith("["):
        host, bracket, rest = text[1:].partition("]")
        if not bracket or rest[:1] not in ("", ":"):
            raise ValueError(f"not [IPv6]:port: {server!r}")
        port = rest[1:] or port
    elif text.count(":") == 1:
        host, port = text.split(":")
    number = _whole_number(port) if port.isdigit() else None
    if number is None or not 0 < number < 65536:
        raise ValueError(f"not a port: {port!r}")
    return str(ipaddress.ip_address(host)), number


def _is_address(address: str) -> bool:
    local, at, domain = address.partition("@")
    return bool(at and local and domain) and "@" not in domain and not any(c.isspace() for c in address)


URL_FORMS = "sqlite:///path/to/gm.sqlite3 or postgresql+psycopg://user@host/dbname"


def _check_database_url(url: str) -> None:
    try:
        parsed = make_url(url)
    except (ArgumentError, ValueError):  # ValueError: a port that is not a number
        # Not echoed: the URL may hold a password.
        raise SettingsError(f"the database URL (GM_DATABASE_URL or database_url) is not a URL: write {URL_FORMS}") from None
    if parsed.get_backend_name() == "sqlite" and parsed.database in (None, "", ":memory:"):
        raise SettingsError(
            "the database URL (GM_DATABASE_URL or database_url) names no SQLite file, and a database in memory "
            "is gone when gm stops: write sqlite:///path/to/gm.sqlite3"
        )
    try:
        parsed.get_dialect().import_dbapi()
    except NoSuchModuleError:
        raise SettingsError(
            f"unknown kind of database {parsed.drivername!r} (GM_DATABASE_URL or database_url): write {URL_FORMS}"
        ) from None
    except ImportError as e:
        raise SettingsError(
            f"the database URL asks for {parsed.drivername!r}, whose driver is not installed ({e.name}): write {URL_FORMS}"
        ) from None
