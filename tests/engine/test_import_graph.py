"""gm.engine's modules import one another without a circle: each imports alone, and the graph of
every import they write (at the top, in a function, under TYPE_CHECKING) has no cycle."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINE = ROOT / "gm" / "engine"


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in sorted(ENGINE.rglob("*.py"))}


def _imports(path: Path) -> set[str]:
    """The gm.engine modules `path` imports, wherever the import statement stands."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)  # 'from gm.engine import multiple'
    return {name for name in found if name in MODULES and MODULES[name].name != "__init__.py"}


GRAPH = {name: _imports(path) - {name} for name, path in MODULES.items()}


def _cycle() -> list[str]:
    """One cycle of GRAPH as the modules along it, or []."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(name: str) -> list[str]:
        state[name] = 1
        path.append(name)
        for nxt in sorted(GRAPH[name]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[name] = 2
        return []

    for name in sorted(GRAPH):
        if name not in state and (found := visit(name)):
            return found
    return []


def test_the_graph_is_read() -> None:
    assert "gm.engine.multiple" in GRAPH["gm.engine.movement"]
    assert "gm.engine.resolve" in GRAPH["gm.engine.multiple"]
    assert "gm.engine.notation.reader" in GRAPH["gm.engine.notation.parser"]


def test_no_import_cycle() -> None:
    assert _cycle() == [], " -> ".join(_cycle())


def test_a_cycle_would_be_found() -> None:
    GRAPH["gm.engine.variant"].add("gm.engine.rules")
    try:
        assert _cycle()
    finally:
        GRAPH["gm.engine.variant"].discard("gm.engine.rules")


@pytest.mark.parametrize("name", sorted(MODULES))
def test_each_module_imports_alone(name: str) -> None:
    proc = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
