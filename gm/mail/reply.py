"""Acknowledgements: what the judge understood of a mail, rendered from templates/<lang>/ack.txt.j2."""
from __future__ import annotations

import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined

from gm.mail.commands import LineResult
from gm.mail.message import ACK_MARKER


@dataclass
class PowerStatus:
    """What is on file for the signed-on power, shown after the lines of the mail."""

    power: str
    game: str
    phase: str
    orders: list[str]
    missing: list[str]
    allocations: list[str]
    points: int | None  # None: the variant has no secret points
    used: int
    points_name: str = "DP"


_TEMPLATES = Path(__file__).resolve().parents[2] / "templates"


def templates_dir() -> Path:
    """templates/ of the project, or the folder GM_TEMPLATES names."""
    folder = os.environ.get("GM_TEMPLATES")
    return Path(folder) if folder else _TEMPLATES


@cache
def _environment(folder: str) -> Environment:
    return Environment(
        loader=FileSystemLoader(folder),
        undefined=StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def render_ack(
    subject: str,
    results: list[LineResult],
    status: PowerStatus | None,
    sections: list[tuple[str, str]],
    refused: str = "",
    lang: str = "en",
) -> str:
    template = _environment(os.path.join(templates_dir(), lang)).get_template("ack.txt.j2")
    return template.render(
        marker=ACK_MARKER, subject=subject, results=results, status=status, sections=sections, refused=refused
    )
