"""The server's settings: defaults, overridden by a TOML file, overridden by GM_* environment variables.

The TOML file (path from `gm serve --config FILE` or GM_CONFIG) looks like::

    gm_address = "judge@example.org"
    database_url = "postgresql+psycopg://gm@localhost/gm"
    timezone = "Europe/London"
    data_dir = "/var/lib/gm"
    max_mail_size = 1000000
    poll_seconds = 60

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
GM_MAX_MAIL_SIZE, GM_POLL_SECONDS, GM_IMAP_HOST, GM_IMAP_PORT, GM_IMAP_TLS, GM_IMAP_USER,
GM_IMAP_PASSWORD, and the same for SMTP. With no IMAP host at all, the server runs its own
embedded mail servers on loopback (see gm.mail.embedded).
"""
from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal, cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

TlsMode = Literal["none", "starttls", "ssl"]
TLS_MODES: tuple[TlsMode, ...] = ("none", "starttls", "ssl")

IMAP_PORTS: dict[TlsMode, int] = {"none": 143, "starttls": 143, "ssl": 993}
SMTP_PORTS: dict[TlsMode, int] = {"none": 25, "starttls": 587, "ssl": 465}


class SettingsError(ValueError):
    """A setting is missing, unknown or malformed; the message names it and where it came from."""


@dataclass(frozen=True)
class MailServer:
    """Where and how to reach one mail server: what the inbox watcher and the outbox sender need."""

    host: str
    port: int
    tls: TlsMode = "none"
    user: str | None = None
    password: str | None = None

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

    @property
    def embedded(self) -> bool:
        """True when no IMAP server is configured: gm then runs its own on loopback."""
        return not self.imap_host

    @property
    def db_url(self) -> str:
        return self.database_url or f"sqlite:///{self.data_dir / 'gm.sqlite3'}"

    def imap_server(self) -> MailServer:
        if not self.imap_host:
            raise SettingsError("no IMAP host configured (GM_IMAP_HOST or [imap] host)")
        port = self.imap_port or IMAP_PORTS[self.imap_tls]
        return MailServer(self.imap_host, port, self.imap_tls, self.imap_user, self.imap_password)

    def smtp_server(self) -> MailServer:
        host = self.smtp_host or self.imap_host
        if not host:
            raise SettingsError("no SMTP host configured (GM_SMTP_HOST or [smtp] host)")
        port = self.smtp_port or SMTP_PORTS[self.smtp_tls]
        user, password = self.smtp_user, self.smtp_password
        if user is None and password is None:
            user, password = self.imap_user, self.imap_password
        return MailServer(host, port, self.smtp_tls, user, password)


# --- loading -------------------------------------------------------------------------------------

_SECTIONS = ("imap", "smtp")
_ENV: dict[str, str] = {
    "GM_ADDRESS": "gm_address",
    "GM_DATABASE_URL": "database_url",
    "GM_TIMEZONE": "timezone",
    "GM_DATA_DIR": "data_dir",
    "GM_MAX_MAIL_SIZE": "max_mail_size",
    "GM_POLL_SECONDS": "poll_seconds",
    **{
        f"GM_{section.upper()}_{key.upper()}": f"{section}_{key}"
        for section in _SECTIONS
        for key in ("host", "port", "tls", "user", "password")
    },
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
    for var, name in _ENV.items():
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
        raise SettingsError(f"cannot read the settings file {path}: {e.strerror or e}") from e
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
        raise SettingsError(f"{path}: unknown setting(s): {', '.join(unknown)}")
    return flat


_INTS = {"imap_port", "smtp_port", "max_mail_size"}
_FLOATS = {"poll_seconds"}
_TLS = {"imap_tls", "smtp_tls"}


def _convert(name: str, value: object, where: str) -> Any:
    if name in _INTS:
        if isinstance(value, str) and value.strip() == "" and name.endswith("_port"):
            return None
        try:
            number = int(cast(Any, value))
        except (TypeError, ValueError):
            raise SettingsError(f"{where}: not a whole number: {value!r}") from None
        if isinstance(value, (bool, float)) or number <= 0:
            raise SettingsError(f"{where}: not a positive whole number: {value!r}")
        return number
    if name in _FLOATS:
        try:
            seconds = float(cast(Any, value))
        except (TypeError, ValueError):
            raise SettingsError(f"{where}: not a number: {value!r}") from None
        if isinstance(value, bool) or not seconds > 0:
            raise SettingsError(f"{where}: not a positive number: {value!r}")
        return seconds
    if not isinstance(value, str):
        raise SettingsError(f"{where}: expected a string, not {value!r}")
    if name in _TLS:
        mode = value.strip().lower()
        if mode not in TLS_MODES:
            raise SettingsError(f"{where}: must be one of {', '.join(TLS_MODES)}, not {value!r}")
        return mode
    if name == "data_dir":
        return Path(value)
    if name in ("imap_host", "smtp_host", "imap_user", "smtp_user", "database_url"):
        return value.strip() or None
    return value


def _check(settings: Settings) -> None:
    try:
        ZoneInfo(settings.timezone)
    except (ZoneInfoNotFoundError, ValueError):
        raise SettingsError(f"unknown timezone {settings.timezone!r} (GM_TIMEZONE or timezone)") from None
    if "@" not in settings.gm_address:
        raise SettingsError(f"the GM address {settings.gm_address!r} is not a mail address (GM_ADDRESS or gm_address)")
