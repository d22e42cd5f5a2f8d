"""The catalogues: every message of the code and the templates translated in every language, none
stale, each translation with the message's own fields; and the glossary names every language."""
from __future__ import annotations

import pytest

from gm.i18n import CATALOGUES, ENGLISH, LANGUAGES, Text, _n, translated
from gm.i18n.catalogues import FIELDS, extracted, problems, read

OTHERS = [language for language in LANGUAGES if language != ENGLISH]


@pytest.fixture(scope="module")
def template():  # type: ignore[no-untyped-def]
    return extracted()


def test_there_are_the_four_languages() -> None:
    assert set(LANGUAGES) >= {"en", "fr", "de", "it"}


def test_the_code_marks_its_texts(template) -> None:  # type: ignore[no-untyped-def]
    # the mail's words, the pages', the commands' answers: hundreds of messages
    assert len(template) > 300
    places = {where.split("/")[0] for message in template for where, _line in message.locations}
    assert {"gm", "templates"} <= places


@pytest.mark.parametrize("language", OTHERS)
def test_every_message_is_translated_and_none_is_stale(template, language: str) -> None:  # type: ignore[no-untyped-def]
    found = problems(language, template)
    assert not found, f"{len(found)} problem(s); `python -m gm.i18n.catalogues` then translate:\n" + "\n".join(found[:60])


@pytest.mark.parametrize("language", OTHERS)
def test_each_translation_formats_with_the_messages_fields(language: str) -> None:
    for message in read(language):
        if not message.id or not message.string:
            continue
        ids = message.id if isinstance(message.id, (list, tuple)) else [message.id]
        strings = message.string if isinstance(message.string, (list, tuple)) else [message.string]
        values = {a or b: "x" for i in ids for a, b in FIELDS.findall(i)} | {"count": 2, "num": 2}
        for s in strings:
            if "%(" in s:
                s % values  # the templates' fields
            else:
                s.format(**values)


def test_plural_forms_follow_each_language() -> None:
    one = _n("{count} centre", "{count} centres", 1)
    assert translated(one, "en") == "1 centre"
    for language in OTHERS:
        plurals = [m for m in read(language) if isinstance(m.id, (list, tuple)) and m.string and all(m.string)]
        assert plurals, language
        message = plurals[0]
        forms = [Text(message.id[0], message.id[1], n).in_language(language) for n in (0, 1, 2)]
        # French counts 0 as one; German and Italian count only 1
        assert forms[0] == (message.string[0] if language == "fr" else message.string[1]), language
        assert forms[1] == message.string[0] and forms[2] == message.string[1], language


def test_a_text_in_a_text_is_translated_with_it() -> None:
    inner = Text("hold")
    outer = Text("{order} fails", params={"order": inner})
    assert outer == "hold fails" and outer.in_language("en") == "hold fails"
    assert isinstance(outer, str) and str(outer) == "hold fails"


@pytest.mark.parametrize("language", OTHERS)
def test_each_language_has_its_glossary(language: str) -> None:
    glossary = (CATALOGUES / f"{language}-glossary.md").read_text(encoding="utf-8")
    assert glossary.count("\n|") > 30  # a table of the game's terms


def test_every_mark_in_the_code_reaches_the_catalogues(template) -> None:  # type: ignore[no-untyped-def]
    # Babel reads no mark inside an f-string's braces: such a text would stay English everywhere.
    import ast

    known = {m.id if isinstance(m.id, str) else m.id[0] for m in template if m.id}
    unseen = []
    for path in (CATALOGUES.parents[1] / "gm").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_", "_n", "_p"):
                at = 1 if node.func.id == "_p" else 0
                if len(node.args) > at and isinstance(node.args[at], ast.Constant) and node.args[at].value not in known:
                    unseen.append(f"{path.name}:{node.lineno}: {node.args[at].value!r}")
    assert not unseen, "\n".join(unseen)
