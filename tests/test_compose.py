"""docker-compose.yml, the Dockerfile and .env.example, checked without a Docker engine: what each
service runs exists, the judge gets only real settings (and with .env.example's values they load),
it waits for a healthy database, two judges run, and every secret comes from .env."""
from __future__ import annotations

import json
import re
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
