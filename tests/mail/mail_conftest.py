"""tests/mail/conftest.py as pytest (or bench/suite.py) loaded it, for the server modules it imports
at its end (oauth2_servers, cyrus_server): they build on its Dovecot, its users and its password,
and cannot import it by name (tests/conftest.py shares the module name)."""
from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType


def loaded(importer: str) -> ModuleType:
    """The mail tests' conftest module; `importer` names the module asking, for the error."""
    here = Path(__file__).resolve().with_name("conftest.py")
    for module in list(sys.modules.values()):
        where = getattr(module, "__file__", None)
        if where and Path(where).resolve() == here and hasattr(module, "Dovecot"):
            return module
    raise ImportError(f"{importer} is imported by tests/mail/conftest.py (its last line), not on its own")
