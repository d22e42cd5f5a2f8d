"""Where the texts every channel renders live (templates/<lang>/, or the folder GM_TEMPLATES
names), and the heading each text the judge writes starts with, by which a reader (and a channel
showing it again) knows what it is."""
from __future__ import annotations

import os
from pathlib import Path

_TEMPLATES = Path(__file__).resolve().parents[2] / "templates"

RESULTS_HEADING = "=== gm results ==="
NOTICE_HEADING = "=== gm notice ==="
PRESS_HEADING = "=== gm press ==="


def templates_dir() -> Path:
    """templates/ of the project, or the folder GM_TEMPLATES names."""
    folder = os.environ.get("GM_TEMPLATES")
    return Path(folder) if folder else _TEMPLATES
