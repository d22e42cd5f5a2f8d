"""Settings: defaults, then the TOML file, then GM_* variables; clear errors for bad values."""
from __future__ import annotations

from pathlib import Path

import pytest

from gm.settings import MailServer, Settings, SettingsError, load_settings

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
        env = {"GM_IMAP_HOST": "mail.example.org", "GM_IMAP_TLS": tls, "GM_SMTP_TLS": tls}
        settings = load_settings(environ=env)
        assert (settings.imap_server().port, settings.smtp_server().port) == (imap, smtp)


def test_the_database_url_is_taken_as_given() -> None:
    url = "postgresql+psycopg://gm@db/gm"
    assert load_settings(environ={"GM_DATABASE_URL": url}).db_url == url


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"GM_IMAP_PORT": "imap"}, "GM_IMAP_PORT: not a whole number"),
        ({"GM_SMTP_PORT": "-1"}, "GM_SMTP_PORT: not a positive"),
        ({"GM_IMAP_TLS": "tls"}, "GM_IMAP_TLS: must be one of none, starttls, ssl"),
        ({"GM_POLL_SECONDS": "0"}, "GM_POLL_SECONDS: not a positive number"),
        ({"GM_TIMEZONE": "Mars/Olympus"}, "unknown timezone"),
        ({"GM_ADDRESS": "judge"}, "not a mail address"),
        ({"GM_CONFIG": "/nonexistent/gm.toml"}, "cannot read the settings file"),
    ],
)
def test_bad_values_are_named(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError, match=message):
        load_settings(environ=env)


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
