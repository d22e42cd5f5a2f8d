"""The catalogues kept up to date with the code: every sentence the code and the templates mark
for translation (`_`, `_n`, `_p`; `{% trans %}` and `_()` in templates) is a message of each
catalogue, and no catalogue keeps one the code no longer has.

    python -m gm.i18n.catalogues [fr ...]  adds new messages to the catalogues (every one, or
                                           those named) untranslated, and drops the ones gone
    python -m gm.i18n.catalogues --check   says what is missing, untranslated or stale (exit 1)
"""
from __future__ import annotations

import re
import sys

from babel.messages.catalog import Catalog
from babel.messages.extract import DEFAULT_KEYWORDS, extract_from_dir
from babel.messages.pofile import read_po, write_po

from gm.i18n import CATALOGUES, ENGLISH, LANGUAGES

ROOT = CATALOGUES.parents[1]
KEYWORDS = {**DEFAULT_KEYWORDS, "_n": (1, 2), "_p": ((1, "c"), 2)}
_SOURCES = (("gm", [("**.py", "python")]),
            ("templates", [("**.j2", "jinja2")]))
_JINJA = {"extensions": "jinja2.ext.i18n", "trim_blocks": "true", "lstrip_blocks": "true"}
FIELDS = re.compile(r"\{(\w+)\}|%\((\w+)\)s")


def extracted() -> Catalog:
    """Every message the code and templates mark, with where it is used."""
    catalog = Catalog(project="gm", locale=None)
    for folder, methods in _SOURCES:
        options = {"**.j2": _JINJA}
        for filename, lineno, message, comments, context in extract_from_dir(
                str(ROOT / folder), methods, options, KEYWORDS, comment_tags=("TRANSLATORS:",), strip_comment_tags=True):
            if filename.startswith("i18n/catalogues"):
                continue
            catalog.add(message, None, [(f"{folder}/{filename}", lineno)], auto_comments=comments, context=context)
    return catalog


def read(language: str) -> Catalog:
    with (CATALOGUES / f"{language}.po").open("rb") as f:
        return read_po(f, locale=language)


def update(languages: list[str] | None = None) -> None:
    template = extracted()
    for language in languages or LANGUAGES:
        if language == ENGLISH:
            continue
        catalog = read(language)
        catalog.update(template, no_fuzzy_matching=True, update_header_comment=False)
        catalog.obsolete.clear()  # the translations of messages gone stay in git's history
        with (CATALOGUES / f"{language}.po").open("wb") as f:
            write_po(f, catalog, width=100, sort_output=False, include_previous=False)


def problems(language: str, template: Catalog | None = None) -> list[str]:
    """What is wrong with the catalogue of `language`: messages missing or untranslated, fuzzy,
    stale (the code has them no more), or whose {fields} differ from the English ones."""
    template = template or extracted()
    catalog = read(language)
    found = []
    for message in template:
        if not message.id:
            continue
        mine = catalog.get(message.id, message.context)
        key = message.id if isinstance(message.id, str) else message.id[0]
        if mine is None:
            found.append(f"{language}: missing: {key!r}")
            continue
        strings = mine.string if isinstance(mine.string, (list, tuple)) else [mine.string]
        if not all(strings):
            found.append(f"{language}: untranslated: {key!r}")
        elif mine.fuzzy:
            found.append(f"{language}: fuzzy (check the translation): {key!r}")
        else:
            ids = message.id if isinstance(message.id, (list, tuple)) else [message.id]
            wanted = {f for i in ids for f in _fields(i)}
            for s in strings:
                if _fields(s) - wanted - {"count"}:
                    found.append(f"{language}: fields {sorted(_fields(s) - wanted)} not in the message: {key!r}")
    for mine in catalog:
        if mine.id and template.get(mine.id, mine.context) is None:
            key = mine.id if isinstance(mine.id, str) else mine.id[0]
            found.append(f"{language}: stale (no longer in the code): {key!r}")
    return found


def _fields(text: str) -> set[str]:
    return {a or b for a, b in FIELDS.findall(text)}


def main(argv: list[str]) -> int:
    if "--check" in argv:
        template = extracted()
        found = [p for language in LANGUAGES if language != ENGLISH for p in problems(language, template)]
        print("\n".join(found) or f"{len(template)} messages, translated in every catalogue")
        return 1 if found else 0
    update([a for a in argv if not a.startswith("-")] or None)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
