"""Replies as real mail programs write them (tests/mail/replies/*.eml), each read for the command
lines the player wrote: in many programs and languages, posted on top, at the bottom or inline,
with the mail replied to quoted with '>' or '|' marks, or without any, below an attribution or an
Outlook-style header block, in plain text, HTML or both.

The mail quoted in each is the judge's acknowledgement or the player's own orders of last turn,
which differ from the new ones: a quote read as commands shows as a failure."""
from __future__ import annotations

import email
import email.policy
import tomllib
from pathlib import Path

import pytest

from gm.mail.intake.message import command_lines, read_message

REPLIES = Path(__file__).parent / "replies"
INDEX = tomllib.loads((REPLIES / "index.toml").read_text(encoding="utf-8"))


def raw(name: str) -> bytes:
    return (REPLIES / f"{name}.eml").read_bytes()


def html_alternative(name: str) -> bytes | None:
    """The mail with only its HTML part, as a program that sends no plain text would send it."""
    msg = email.message_from_bytes(raw(name), policy=email.policy.compat32)
    if not msg.is_multipart():
        return None
    for part in msg.walk():
        if part.get_content_type() == "text/html":
            return b"From: player.one@example.org\r\nMIME-Version: 1.0\r\n" + part.as_bytes()
    return None


def test_the_index_and_the_folder_agree():
    assert sorted(INDEX) == sorted(path.stem for path in REPLIES.glob("*.eml"))
    assert len(INDEX) >= 80


@pytest.mark.parametrize("name", sorted(INDEX))
def test_reply(name: str) -> None:
    msg = read_message(raw(name))
    assert msg.automatic is None
    assert msg.sender
    lines = command_lines(msg.text)
    assert lines == INDEX[name]["commands"], INDEX[name]["about"]
    assert command_lines("\n".join(lines)) == lines


@pytest.mark.parametrize("name", [name for name in sorted(INDEX) if html_alternative(name)])
def test_the_html_alternative_of_a_reply_reads_the_same(name: str) -> None:
    html_only = html_alternative(name)
    assert html_only is not None
    assert command_lines(read_message(html_only).text) == INDEX[name]["commands"], INDEX[name]["about"]
