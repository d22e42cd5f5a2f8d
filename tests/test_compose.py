"""docker-compose.yml, the Dockerfile and .env.example, checked without a Docker engine: what each
service runs exists, the judge gets only real settings (and with .env.example's values they load),
it waits for a healthy database, two judges run, and every secret comes from .env."""
from __future__ import annotations

import importlib.util
import json
import re
import sys
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
import yaml

from gm.settings import ENV_VARS, load_settings

ROOT = Path(__file__).resolve().parents[1]
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?+])([^}]*))?\}")


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    data = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    assert isinstance(data, dict) and isinstance(data.get("services"), dict)
    return data


@pytest.fixture(scope="module")
def env_example() -> dict[str, str]:
    values = {}
    for line in (ROOT / ".env.example").read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            key, sep, value = line.partition("=")
            assert sep, f".env.example: not KEY=VALUE: {line!r}"
            values[key.strip()] = value.strip()
    return values


def _environment(service: dict[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):  # the list form: ["KEY=value", ...]
        env = dict(item.partition("=")[::2] for item in env)
    return {str(k): "" if v is None else str(v) for k, v in env.items()}


def _interpolate(value: str, variables: dict[str, str]) -> str:
    """What docker compose makes of ${VAR}, ${VAR:-default} and the like, with `variables` set."""

    def one(match: re.Match[str]) -> str:
        name, op, arg = match.group(1), match.group(2), match.group(3)
        if op in (":-", "-"):
            return variables.get(name) or arg
        assert name in variables, f"${{{name}}} is not set"
        return variables[name]

    return _VARIABLE.sub(one, value)


def _dockerfile() -> list[tuple[str, str]]:
    """The Dockerfile's instructions as (INSTRUCTION, arguments), continuation lines joined."""
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines()]
    return [
        (word.upper(), rest.strip())
        for word, _, rest in (line.partition(" ") for line in lines if line and not line.startswith("#"))
    ]


def test_every_service_has_an_image_or_a_build_that_exists(compose: dict[str, Any]) -> None:
    assert {"judge", "db", "mail"} <= set(compose["services"])
    for name, service in compose["services"].items():
        assert "image" in service or "build" in service, name
        if "build" in service:
            build = service["build"]
            context = ROOT / (build if isinstance(build, str) else build.get("context", "."))
            dockerfile = "Dockerfile" if isinstance(build, str) else build.get("dockerfile", "Dockerfile")
            assert (context / dockerfile).is_file(), f"{name}: no {context / dockerfile}"
        elif service["image"].count(":") == 0 or service["image"].endswith(":latest"):
            pytest.fail(f"{name}: image {service['image']!r} has no pinned version")
    for volume in (compose.get("volumes") or {}):
        assert any(
            str(v).startswith(f"{volume}:") for s in compose["services"].values() for v in s.get("volumes", [])
        ), f"volume {volume} is used by no service"


def test_the_judge_gets_only_real_settings_and_they_load(compose: dict[str, Any], env_example: dict[str, str]) -> None:
    env = _environment(compose["services"]["judge"])
    gm_vars = {k for k in env if k.startswith("GM_")}
    assert gm_vars and gm_vars <= set(ENV_VARS), sorted(gm_vars - set(ENV_VARS))
    assert {"GM_ADDRESS", "GM_DATABASE_URL", "GM_IMAP_HOST", "GM_SMTP_HOST", "GM_TIMEZONE"} <= gm_vars
    settings = load_settings(environ={k: _interpolate(v, env_example) for k, v in env.items()})
    assert not settings.embedded
    assert settings.db_url.startswith("postgresql+psycopg://") and "@db:" in settings.db_url
    assert settings.imap_server().tls == "ssl" and settings.smtp_server().tls == "starttls"


def test_secrets_come_from_the_env_file(compose: dict[str, Any]) -> None:
    for name, service in compose["services"].items():
        for key, value in _environment(service).items():
            if "PASSWORD" in key and not key.startswith("POSTMASTER"):
                assert _VARIABLE.search(value), f"{name}: {key} is written in the compose file"


def test_the_judge_waits_for_a_healthy_database(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert services["judge"]["depends_on"]["db"]["condition"] == "service_healthy"
    test = services["db"]["healthcheck"]["test"]
    assert "pg_isready" in (test if isinstance(test, str) else " ".join(test))
    assert re.fullmatch(r"postgres:1[56](\.\d+)*", services["db"]["image"])


def test_two_judges_share_the_database(compose: dict[str, Any]) -> None:
    judges = [s for s in compose["services"].values() if "build" in s]
    count = sum(int((s.get("deploy") or {}).get("replicas", 1)) for s in judges)
    assert count >= 2


def test_the_image_runs_gm_serve_as_an_unprivileged_user() -> None:
    instructions = _dockerfile()
    assert instructions[0] == ("FROM", "python:3.11-slim-bookworm")
    cmd = [args for word, args in instructions if word == "CMD"][-1]
    command = " ".join(json.loads(cmd)) if cmd.startswith("[") else cmd
    assert re.search(r"\bgm db upgrade\b.*\bgm serve\b", command), command
    users = [args for word, args in instructions if word == "USER"]
    assert users and users[-1] not in ("root", "0")
    assert any(word == "RUN" and "pip install" in args for word, args in instructions)


def test_the_build_context_keeps_what_the_dockerfile_copies() -> None:
    ignored = {
        line.strip().rstrip("/")
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    for word, args in _dockerfile():
        if word == "COPY":
            *sources, _ = args.split()
            for source in sources:
                assert (ROOT / source).exists(), source
                assert source.rstrip("/") not in ignored, f"{source} is copied but .dockerignore leaves it out"


def test_env_example_lists_every_variable_the_compose_file_uses(env_example: dict[str, str]) -> None:
    used = {m.group(1) for m in _VARIABLE.finditer((ROOT / "docker-compose.yml").read_text())}
    assert used, "no ${VAR} in docker-compose.yml"
    assert used <= set(env_example), sorted(used - set(env_example))


# --- scripts/test-compose: the stack run for real (the run itself is the script; these are cheap) ---

COMPOSE_TEST = ROOT / "tests" / "compose"


@pytest.fixture(scope="module")
def override() -> dict[str, Any]:
    # `!override` replaces a list instead of adding to it; read here as a plain sequence.
    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!override", lambda loader, node: loader.construct_sequence(node))
    data = yaml.load((COMPOSE_TEST / "override.yml").read_text(), Loader=Loader)  # noqa: S506 (a SafeLoader)
    assert isinstance(data, dict)
    return data


def test_the_test_override_changes_only_test_things(compose: dict[str, Any], override: dict[str, Any]) -> None:
    """The compose file under test stays the project's own: the override only tags the judge's image,
    lets the judges trust the throwaway CA, and moves the mail server's ports and certificate."""
    assert set(override) == {"services"}
    services = override["services"]
    assert set(services) <= set(compose["services"]), "the override adds a service"
    assert set(services["judge"]) <= {"image", "build", "environment", "volumes"}
    assert services["judge"]["image"] != compose["services"]["judge"]["image"]  # an operator's image is left alone
    assert set(services["judge"]["environment"]) == {"SSL_CERT_FILE"}
    assert set(services["mail"]) <= {"ports", "volumes"}
    assert all(str(port).startswith("127.0.0.1:") for port in services["mail"]["ports"])
    # The mail server's certificate is where the compose file says (SSL_TYPE letsencrypt), from elsewhere.
    assert [v.split(":")[1] for v in services["mail"]["volumes"]] == ["/etc/letsencrypt"]
    assert "/etc/letsencrypt:/etc/letsencrypt:ro" in compose["services"]["mail"]["volumes"]


def test_every_image_the_compose_file_pulls_has_a_stand_in(compose: dict[str, Any]) -> None:
    """No registry can be reached: scripts/test-compose builds each image the compose file names,
    from tests/compose/<dir>/Dockerfile on the Debian base, and tags it with that name."""
    script = (ROOT / "scripts" / "test-compose").read_text()
    declared = re.search(r"declare -A TAG=\((.*?)\)", script, re.DOTALL)
    assert declared, "scripts/test-compose names no stand-ins"
    stand_ins = dict(re.findall(r"\[(\w+)\]=(\S+)", declared.group(1)))
    pulled = {s["image"] for s in compose["services"].values() if "build" not in s}
    base = {args for word, args in _dockerfile() if word == "FROM"}
    assert set(stand_ins.values()) == pulled | base
    for folder in stand_ins:
        dockerfile = (COMPOSE_TEST / folder / "Dockerfile").read_text()
        assert re.search(r"^FROM debian:bookworm-slim$", dockerfile, re.MULTILINE), folder


def test_the_players_script_loads_and_wants_its_ports(monkeypatch: pytest.MonkeyPatch) -> None:
    """tests/compose/play.py uses the demo's mailbox and the confirmation code's reader: a rename
    there shows here, not only in the slow run."""
    spec = importlib.util.spec_from_file_location("compose_play", COMPOSE_TEST / "play.py")
    assert spec is not None and spec.loader is not None
    play = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, play)  # its dataclasses look their module up
    spec.loader.exec_module(play)
    with pytest.raises(SystemExit) as exit_:
        play.main(["--smtp", "25", "--imap", "143"])  # no compose command after --
    assert exit_.value.code == 2
    mail = EmailMessage()
    mail["Subject"] = "[compose] Spring 1901 results"
    mail.set_content("results")
    mail.add_attachment(b"\x89PNG\r\n\x1a\n" + bytes(8), maintype="image", subtype="png", filename="now.png")
    assert len(play.png_maps(mail)) == 1 and play.results_of("Spring 1901")(mail)
    mail.add_attachment(b"GIF89a", maintype="image", subtype="png", filename="fake.png")
    with pytest.raises(play.Failed, match="no PNG"):
        play.png_maps(mail)


def test_the_judges_healthcheck_is_gm_status_for_this_host(compose: dict[str, Any]) -> None:
    from gm.cli import build_parser

    check = compose["services"]["judge"]["healthcheck"]
    assert check["test"][0] == "CMD" and check["test"][1] == "gm", check["test"]
    args = build_parser().parse_args(check["test"][2:])
    assert args.command == "status" and args.this_host
