"""Quoted lines: the mail replied to, marked line by line."""
from __future__ import annotations

import re

# '>' (mail programs) or '|' (some webmails) after spaces at most; or the initials of the one
# quoted before the '>' (The Bat!'s ' JS> text', Supercite's 'C>'), which no order starts with.
QUOTED = re.compile(r"\s*([>|]|[A-Za-z]{1,3}>+(\s|$))")


def is_quoted(line: str) -> bool:
    return QUOTED.match(line) is not None
