"""Reading the judge's acknowledgements in the mail tests."""
from __future__ import annotations

VERDICTS = ("accepted", "REJECTED")


def verdict(ack: str, text: str, verdicts: tuple[str, ...] = VERDICTS) -> str:
    """The acknowledgement's verdict on the line of the mail ending in `text`: 'accepted = ...' or
    'REJECTED : ...' (the verdict's word, then the line under it)."""
    lines = ack.splitlines()
    for i, line in enumerate(lines):
        if line.strip().endswith(text) and line.strip().split()[0] in verdicts:
            return f"{line.split()[0]} {lines[i + 1].strip()}"
    raise AssertionError(f"{text!r} not in {ack}")
