"""The test suite's conftest files as modules, for the benchmarks that start its real servers
(tests/conftest.py: PostgreSQL; tests/mail/conftest.py: Dovecot and an SMTP front). They are
loaded by path: two conftest.py files share one module name."""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # what the conftest files import beside them (loopback.py), as under pytest


def load(name: str, relative: str) -> ModuleType:
    """The file ROOT/`relative` as a module called `name`."""
    spec = importlib.util.spec_from_file_location(name, ROOT / relative)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module
