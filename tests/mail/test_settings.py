"""Settings: defaults, then the TOML file, then GM_* variables; clear errors for bad values."""
from __future__ import annotations

import re
import tomllib
from dataclasses import fields
from pathlib import Path

import pytest

from gm.settings import ENV_VARS, MailServer, Settings, SettingsError, load_settings

EXAMPLE = Path(__file__).resolve().parents[2] / "gm.example.toml"
# The least a real mail server needs; the tests below change one thing at a time.
REAL = {
    "GM_ADDRESS": "judge@example.org",
    "GM_IMAP_HOST": "mail.example.org",
    "GM_IMAP_USER": "judge",
    "GM_IMAP_PASSWORD": "pw",
}

TOML = """\
gm_address = "judge@example.org"
timezone = "Europe/Paris"
max_mail_size = 2000
poll_seconds = 30

[imap]
host = "imap.example.org"
user = "judge"
password = "from-file"
tls = "starttls"

[smtp]
port = 2525
tls = "none"
"""


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "gm.toml"
    path.write_text(TOML)
    return path


def test_defaults_mean_embedded_mail_and_sqlite_in_the_data_folder() -> None:
    settings = load_settings(environ={})
    assert settings == Settings()
    assert settings.embedded
    assert settings.db_url == "sqlite:///data/gm.sqlite3"
    assert settings.gm_address == "gm@localhost"


def test_the_file_overrides_the_defaults(config: Path) -> None:
    settings = load_settings(config, environ={})
    assert not settings.embedded
    assert settings.gm_address == "judge@example.org"
    assert settings.timezone == "Europe/Paris"
    assert settings.max_mail_size == 2000
    assert settings.poll_seconds == 30.0
    assert settings.imap_server() == MailServer("imap.example.org", 143, "starttls", "judge", "from-file")
    # SMTP: the IMAP host and login unless given; the port given; TLS as given.
    assert settings.smtp_server() == MailServer("imap.example.org", 2525, "none", "judge", "from-file")


def test_the_environment_overrides_the_file(config: Path) -> None:
    env = {
        "GM_IMAP_PASSWORD": "from-env",
        "GM_IMAP_PORT": "10993",
        "GM_IMAP_TLS": "SSL",
        "GM_SMTP_HOST": "smtp.example.org",
        "GM_SMTP_USER": "sender",
        "GM_SMTP_PASSWORD": "pw",
        "GM_ADDRESS": "gm@example.net",
        "GM_DATA_DIR": "/srv/gm",
        "GM_MAX_MAIL_SIZE": "5000",
        "GM_POLL_SECONDS": "2.5",
        "GM_TIMEZONE": "America/New_York",
    }
    settings = load_settings(config, environ=env)
    assert settings.imap_server() == MailServer("imap.example.org", 10993, "ssl", "judge", "from-env")
    assert settings.smtp_server() == MailServer("smtp.example.org", 2525, "none", "sender", "pw")
    assert settings.gm_address == "gm@example.net"
    assert settings.data_dir == Path("/srv/gm")
    assert settings.db_url == "sqlite:////srv/gm/gm.sqlite3"
    assert (settings.max_mail_size, settings.poll_seconds, settings.timezone) == (5000, 2.5, "America/New_York")


def test_gm_config_names_the_file_and_config_argument_wins(config: Path, tmp_path: Path) -> None:
    assert load_settings(environ={"GM_CONFIG": str(config)}).gm_address == "judge@example.org"
    other = tmp_path / "other.toml"
    other.write_text('gm_address = "other@example.org"\n')
    assert load_settings(other, environ={"GM_CONFIG": str(config)}).gm_address == "other@example.org"


def test_an_empty_imap_host_in_the_environment_means_embedded(config: Path) -> None:
    assert load_settings(config, environ={"GM_IMAP_HOST": ""}).embedded


def test_default_ports_follow_the_tls_mode() -> None:
    for tls, imap, smtp in (("ssl", 993, 465), ("starttls", 143, 587), ("none", 143, 25)):
        env = {**REAL, "GM_IMAP_TLS": tls, "GM_SMTP_TLS": tls}
        settings = load_settings(environ=env)
        assert (settings.imap_server().port, settings.smtp_server().port) == (imap, smtp)


def test_replies_per_hour(tmp_path: Path) -> None:
    assert Settings().replies_per_hour == 60
    assert load_settings(None, environ={"GM_REPLIES_PER_HOUR": "5"}).replies_per_hour == 5
    with pytest.raises(SettingsError, match=r"GM_REPLIES_PER_HOUR: not a positive whole number: '0'"):
        load_settings(None, environ={"GM_REPLIES_PER_HOUR": "0"})


def test_raw_mail_days_from_the_file_and_the_environment(tmp_path: Path) -> None:
    assert Settings().raw_mail_days == 30
    path = tmp_path / "gm.toml"
    path.write_text("raw_mail_days = 7\n")
    assert load_settings(path, environ={}).raw_mail_days == 7
    assert load_settings(path, environ={"GM_RAW_MAIL_DAYS": "90"}).raw_mail_days == 90
    path.write_text("raw_mail_days = 0\n")
    with pytest.raises(SettingsError, match=r"gm.toml: raw_mail_days: not a positive whole number of days"):
        load_settings(path, environ={})


def test_the_database_url_is_taken_as_given() -> None:
    url = "postgresql+psycopg://gm@db/gm"
    assert load_settings(environ={"GM_DATABASE_URL": url}).db_url == url


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"GM_IMAP_PORT": "imap"}, "GM_IMAP_PORT: not a port number: 'imap': give a whole number from 1 to 65535"),
        ({"GM_SMTP_PORT": "-1"}, "GM_SMTP_PORT: not a port number"),
        ({"GM_SMTP_PORT": "65536"}, "GM_SMTP_PORT: not a port number"),
        ({"GM_IMAP_PORT": "99.5"}, "GM_IMAP_PORT: not a port number"),
        ({"GM_IMAP_TLS": "tls"}, "GM_IMAP_TLS: must be one of none, starttls, ssl"),
        ({"GM_SMTP_TLS": "yes"}, "GM_SMTP_TLS: must be one of none, starttls, ssl"),
        ({"GM_POLL_SECONDS": "0"}, "GM_POLL_SECONDS: not a positive number"),
        ({"GM_POLL_SECONDS": "-5"}, "GM_POLL_SECONDS: not a positive number"),
        ({"GM_POLL_SECONDS": "soon"}, "GM_POLL_SECONDS: not a positive number"),
        ({"GM_MAX_MAIL_SIZE": "0"}, "GM_MAX_MAIL_SIZE: not a positive whole number"),
        ({"GM_RAW_MAIL_DAYS": "0"}, "GM_RAW_MAIL_DAYS: not a positive whole number of days: '0'.*such as 30"),
        ({"GM_RAW_MAIL_DAYS": "-7"}, "GM_RAW_MAIL_DAYS: not a positive whole number of days"),
        ({"GM_RAW_MAIL_DAYS": "1.5"}, "GM_RAW_MAIL_DAYS: not a positive whole number of days"),
        ({"GM_RAW_MAIL_DAYS": "forever"}, "GM_RAW_MAIL_DAYS: not a positive whole number of days"),
        ({"GM_TIMEZONE": "Mars/Olympus"}, "unknown timezone 'Mars/Olympus'.*such as UTC"),
        ({"GM_ADDRESS": "judge"}, "not a mail address.*name@domain"),
        ({"GM_ADDRESS": "a b@example.org"}, "not a mail address"),
        ({"GM_CONFIG": "/nonexistent/gm.toml"}, "cannot read the settings file.*--config or GM_CONFIG"),
        ({"GM_DATABASE_URL": "postgresql+psycopg://::::"}, r"the database URL \(GM_DATABASE_URL or database_url\) is not a URL"),
        ({"GM_DATABASE_URL": "nosuchdb://x"}, "unknown kind of database 'nosuchdb'"),
        ({"GM_DATABASE_URL": "sqlite://"}, "names no SQLite file"),
        ({"GM_SMTP_HOST": "smtp.example.org"}, "an SMTP host is set .* but no IMAP host"),
    ],
)
def test_bad_values_are_named(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        load_settings(environ=env)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"GM_IMAP_USER": ""}, r"no IMAP user \(GM_IMAP_USER or \[imap\] user\)"),
        ({"GM_IMAP_PASSWORD": ""}, r"no IMAP password for judge \(GM_IMAP_PASSWORD"),
        ({"GM_ADDRESS": None}, r"no GM address for the mail server mail.example.org: set GM_ADDRESS"),
        ({"GM_SMTP_USER": "sender"}, r"no SMTP password for sender \(GM_SMTP_PASSWORD"),
        ({"GM_SMTP_PASSWORD": "pw2"}, r"no SMTP user \(GM_SMTP_USER"),
    ],
)
def test_a_real_mail_server_needs_a_login_and_an_address(change: dict[str, str | None], message: str) -> None:
    assert not load_settings(environ=REAL).embedded
    env = {var: value for var, value in {**REAL, **change}.items() if value is not None}  # None: not given
    with pytest.raises(SettingsError, match=message):
        load_settings(environ=env)


def test_an_smtp_login_is_both_or_neither() -> None:
    both = load_settings(environ={**REAL, "GM_SMTP_USER": "sender", "GM_SMTP_PASSWORD": "pw2"})
    assert (both.smtp_server().user, both.smtp_server().password) == ("sender", "pw2")
    neither = load_settings(environ=REAL)
    assert (neither.smtp_server().user, neither.smtp_server().password) == ("judge", "pw")
    # Both set empty: no SMTP login at all (a relay that takes mail without one).
    none = load_settings(environ={**REAL, "GM_SMTP_USER": "", "GM_SMTP_PASSWORD": ""})
    assert not none.smtp_server().user and not none.smtp_server().password


def _uncomment(text: str) -> str:
    """gm.example.toml with every commented-out setting put back."""
    return re.sub(r"(?m)^# (?=[a-z_]+ = )", "", text)


def test_the_example_file_lists_every_setting_and_loads(tmp_path: Path) -> None:
    text = EXAMPLE.read_text()
    # As shipped every setting is commented out: the file loads, to the defaults.
    assert load_settings(EXAMPLE, environ={}) == Settings()
    data = tomllib.loads(_uncomment(text))
    keys = {key for key, value in data.items() if not isinstance(value, dict)}
    keys |= {f"{section}_{key}" for section in ("imap", "smtp", "oauth2") for key in data[section]}
    assert keys == {f.name for f in fields(Settings)}
    missing = [var for var in [*ENV_VARS, "GM_CONFIG"] if var not in text]
    assert not missing, f"gm.example.toml does not name {missing}"
    # Every setting given at once is a working configuration for a real mail account.
    full = tmp_path / "full.toml"
    full.write_text(_uncomment(text))
    settings = load_settings(full, environ={})
    # (IMAP signs in with OAuth2, its password unused; SMTP, with a password of its own, uses it.)
    assert settings.imap_server() == MailServer("imap.example.org", 993, "ssl", "judge@example.org", "app-password",
                                                oauth2=True)
    assert settings.smtp_server() == MailServer("smtp.example.org", 587, "starttls", "judge@example.org", "app-password")


def test_unknown_keys_and_bad_toml_in_the_file(tmp_path: Path) -> None:
    typo = tmp_path / "typo.toml"
    typo.write_text('[imap]\nhots = "x"\n')
    with pytest.raises(SettingsError, match="unknown setting.*imap_hots"):
        load_settings(typo, environ={})
    broken = tmp_path / "broken.toml"
    broken.write_text("gm_address = \n")
    with pytest.raises(SettingsError, match="not valid TOML"):
        load_settings(broken, environ={})
    wrong_type = tmp_path / "wrong.toml"
    wrong_type.write_text("gm_address = 3\n")
    with pytest.raises(SettingsError, match="expected a string"):
        load_settings(wrong_type, environ={})


def test_the_password_stays_out_of_repr() -> None:
    assert "secret" not in repr(MailServer("h", 1, "ssl", "u", "secret"))


def test_outbox_senders() -> None:
    assert Settings().outbox_senders is None  # one a core (gm.mail.outgoing.outbox_process.default_processes)
    assert load_settings(None, environ={"GM_OUTBOX_SENDERS": "1"}).outbox_senders == 1
    with pytest.raises(SettingsError, match="GM_OUTBOX_SENDERS: not a positive whole number"):
        load_settings(None, environ={"GM_OUTBOX_SENDERS": "0"})


OAUTH2 = {**{k: v for k, v in REAL.items() if k != "GM_IMAP_PASSWORD"}, "GM_OAUTH2_PROVIDER": "microsoft",
          "GM_OAUTH2_CLIENT_ID": "client-1"}


def test_oauth2_signs_in_to_imap_and_to_smtp_without_a_password() -> None:
    settings = load_settings(environ=OAUTH2)
    assert settings.imap_server().oauth2 and settings.imap_server().password is None
    assert settings.smtp_server().oauth2 and settings.smtp_server().user == settings.imap_user
    # An SMTP server with a password of its own (a relay) keeps it.
    relay = load_settings(environ={**OAUTH2, "GM_SMTP_USER": "relay", "GM_SMTP_PASSWORD": "pw"})
    assert relay.imap_server().oauth2 and not relay.smtp_server().oauth2 and relay.smtp_server().password == "pw"
    assert "s3cret" not in repr(load_settings(environ={**OAUTH2, "GM_OAUTH2_CLIENT_SECRET": "s3cret"}))


@pytest.mark.parametrize("change, message", [
    ({"GM_OAUTH2_PROVIDER": "yahoo"}, r"GM_OAUTH2_PROVIDER: unknown OAuth2 provider 'yahoo': one of microsoft, google"),
    ({"GM_OAUTH2_CLIENT_ID": None}, r"no OAuth2 client id \(GM_OAUTH2_CLIENT_ID"),
    ({"GM_IMAP_USER": None}, r"OAuth2 sign-in to microsoft needs the mailbox's login: set GM_IMAP_USER"),
    ({"GM_OAUTH2_TOKEN_URL": "http://login.example.org/token"}, r"GM_OAUTH2_TOKEN_URL: not an https address"),
    ({"GM_OAUTH2_PROVIDER": "generic"}, r"a generic OAuth2 provider needs its token endpoint"),
    ({"GM_OAUTH2_PROVIDER": "generic", "GM_OAUTH2_TOKEN_URL": "https://as.example.org/token"},
     r"needs its device authorization endpoint \(GM_OAUTH2_DEVICE_URL\) or its authorization endpoint"),
    ({"GM_OAUTH2_PROVIDER": "generic", "GM_OAUTH2_TOKEN_URL": "https://as.example.org/token",
      "GM_OAUTH2_DEVICE_URL": "http://127.0.0.1:8080/device"}, r"needs the scopes that reach its mail"),
])
def test_an_oauth2_setting_that_cannot_work_is_named(change: dict[str, str | None], message: str) -> None:
    env = {k: v for k, v in {**OAUTH2, **change}.items() if v is not None}
    with pytest.raises(SettingsError, match=message):
        load_settings(environ=env)
