"""The fixtures of the web pages' tests: Debian's Chromium, installed as the mail tests install
Dovecot (scripts/setup test does), or the tests skipped saying why (failed, in CI)."""
from __future__ import annotations

import os
from collections.abc import Callable

import pytest

from played import Browser, find_chromium


@pytest.fixture(scope="session")
def browser(apt_installer: Callable[[list[str], Callable[[], bool]], str],
            tmp_path_factory: pytest.TempPathFactory) -> Browser:
    found = find_chromium()
    if found is None:
        why = apt_installer(["chromium"], lambda: find_chromium() is not None)
        found = find_chromium()
        if found is None:
            message = f"Chromium is not installed and could not be installed: {why or 'none after installing'}. " \
                      "Run scripts/setup test."
            if os.environ.get("CI"):
                pytest.fail(message)  # scripts/setup installs it: in CI its absence is a bug
            pytest.skip(message)
    return Browser(found, tmp_path_factory.mktemp("chromium-profile"))
