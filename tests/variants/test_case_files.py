"""Every variant's case files (tests/variants/<variant>/cases/*.txt) pass through the command line,
as `gm adjudicate FILE --check`, as they pass through gm.casefile in each variant's own tests."""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
FILES = sorted(HERE.glob("*/cases/*.txt"))


def test_every_variant_has_case_files() -> None:
    assert {p.parent.parent.name for p in FILES} >= {"ambition", "classical"}


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.parent.name}/{p.name}")
def test_cli_check(path: Path) -> None:
    blocks = len(re.findall(r"^CASE ", path.read_text(), flags=re.M))
    proc = subprocess.run(
        [sys.executable, "-m", "gm", "adjudicate", str(path), "--check"],
        capture_output=True, text=True, cwd=HERE.parents[1],
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"{blocks} passed, 0 failed" in proc.stdout
