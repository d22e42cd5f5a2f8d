"""The languages the judge writes in, and its sentences in each.

A sentence is written once, in English, as `_("...{name}...", name=value)` (or `_n` when it
counts something, `_p` when a short word needs its context to be translated right). What that
gives is a `Text`: a str that reads as the English sentence, so that code and logs that know no
language keep working, and that carries its message id and values, so that whatever renders it
for a reader (a mail, a page) writes it in the reader's language with `translated`. A value that
is itself a Text is translated with it: sentences nest.

The translations are gettext catalogues, one per language beside this file (fr.po, ...), read
as they are (no compiled files to go stale). A translator adds a language with a catalogue and
the language's order words (gm/engine/notation) without touching code; see the README.
"""
from __future__ import annotations

import gettext
import io
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from babel import Locale
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

ENGLISH = "en"
# The catalogues there are, English (the messages' own language) first.
LANGUAGES: tuple[str, ...] = (ENGLISH, *sorted(p.stem for p in Path(__file__).parent.glob("*.po")))
CATALOGUES = Path(__file__).parent


def language_name(language: str, written_in: str | None = None) -> str:
    """The language's name in itself ('français'), or in `written_in` ('French')."""
    return Locale.parse(language).get_display_name(written_in or language) or language


def known_language(word: str) -> str | None:
    """The code of the language `word` names: a code ('fr', 'FR', 'fr_CH'), or its name in
    English or in itself ('French', 'français', 'francais', 'Deutsch')."""
    key = word.strip().casefold().replace("-", "_")
    if key in LANGUAGES:  # as the house rules keep it: read on every look at a game
        return key
    names = _language_names()
    return names.get(key.split("_")[0]) or names.get(_unaccented(key))


@cache
def _language_names() -> dict[str, str]:
    """Every code and name (in English and in itself, without accents too) -> its code."""
    out = {}
    for language in LANGUAGES:
        for name in (language, language_name(language, ENGLISH), language_name(language)):
            out[name.casefold()] = out[_unaccented(name.casefold())] = language
    return out


def _unaccented(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


class Text(str):
    """A sentence of the judge's: the English text, and what it takes to write it in another
    language (message id, plural, context and values)."""

    msgid: str
    plural: str | None
    count: int | None
    context: str | None
    params: Mapping[str, Any]

    def __new__(cls, msgid: str, plural: str | None = None, count: int | None = None,
                context: str | None = None, params: Mapping[str, Any] | None = None) -> Text:
        params = dict(params or {})
        english = plural if plural is not None and count != 1 else msgid
        self = super().__new__(cls, _format(english, params, ENGLISH))
        self.msgid, self.plural, self.count, self.context, self.params = msgid, plural, count, context, params
        return self

    def in_language(self, language: str) -> str:
        if language == ENGLISH:
            return str.__str__(self)
        t = catalogue(language)
        if self.plural is not None:
            count = self.count or 0
            form = t.npgettext(self.context, self.msgid, self.plural, count) if self.context else \
                t.ngettext(self.msgid, self.plural, count)
        else:
            form = t.pgettext(self.context, self.msgid) if self.context else t.gettext(self.msgid)
        return _format(form, self.params, language)

    def __reduce__(self) -> Any:  # copied and pickled as what it is
        return (Text, (self.msgid, self.plural, self.count, self.context, self.params))


def _format(form: str, params: Mapping[str, Any], language: str) -> str:
    if not params:
        return form
    return form.format(**{k: translated(v, language) for k, v in params.items()})


def _(msgid: str, /, **params: Any) -> Text:
    """A sentence, in English with `{name}` fields for `params`."""
    return Text(msgid, params=params)


def _n(singular: str, plural: str, count: int, /, **params: Any) -> Text:
    """A sentence that counts `count` things ({count} in it is the number)."""
    return Text(singular, plural, count, params={"count": count, **params})


def _p(context: str, msgid: str, /, **params: Any) -> Text:
    """A short word or phrase whose translation depends on `context` ('season', 'order word')."""
    return Text(msgid, context=context, params=params)


def to_json(value: object) -> Any:
    """A Text as JSON (its message, values and all), to be kept and written later in any
    language; anything else as its text. A text laid out by code (Written, Lines) is kept as
    the English it reads as."""
    if type(value) is Text:
        return {"text": value.msgid, "plural": value.plural, "count": value.count, "context": value.context,
                "params": {k: to_json(v) for k, v in value.params.items()}}
    return value if isinstance(value, (int, float)) or value is None else str(value)


def from_json(value: Any) -> Any:
    """What to_json kept: a Text again (or the value as it was)."""
    if isinstance(value, dict) and "text" in value:
        return Text(value["text"], value.get("plural"), value.get("count"), value.get("context"),
                    {k: from_json(v) for k, v in (value.get("params") or {}).items()})
    return value


def translated(value: object, language: str) -> str:
    """`value` as a reader of `language` reads it: a Text in that language, a list of Texts
    joined by ', ', anything else as it is."""
    if isinstance(value, Text):
        return value.in_language(language)
    if isinstance(value, (list, tuple)) and any(isinstance(v, Text) for v in value):
        return ", ".join(translated(v, language) for v in value)
    return str(value)


class Written(Text):
    """A text laid out for the language it is read in (a table whose columns fit its words):
    `write(language, *args)` writes it; it reads as the English."""

    write: Callable[..., str]
    args: tuple[Any, ...]

    def __new__(cls, write: Callable[..., str], *args: Any) -> Written:
        english = write(ENGLISH, *args)
        self = str.__new__(cls, english)
        self.msgid, self.plural, self.count, self.context, self.params = english, None, None, None, {}
        self.write, self.args = write, args
        return self

    def in_language(self, language: str) -> str:
        return self.write(language, *self.args)

    def __reduce__(self) -> Any:
        return (Written, (self.write, *self.args))


class Lines(Text):
    """Lines shown one under another, `sep` between them (a section of LIST, INFO, HELP): each a
    sentence (a Text) or a plain line, written in the reader's language when the whole is. The
    lines are the messages; this is none, only their layout."""

    lines: tuple[object, ...]
    sep: str

    def __new__(cls, lines: Iterable[object], sep: str = "\n") -> Lines:
        items = tuple(lines)
        self = str.__new__(cls, sep.join(str(line) for line in items))
        self.msgid, self.plural, self.count, self.context, self.params = str(self), None, None, None, {}
        self.lines, self.sep = items, sep
        return self

    def in_language(self, language: str) -> str:
        return self.sep.join(translated(line, language) for line in self.lines)

    def __reduce__(self) -> tuple[type, tuple[tuple[object, ...], str]]:
        return (Lines, (self.lines, self.sep))


def reason(error: Exception) -> str:
    """Why `error` was raised, for a reader: its message, a Text as it is (str() of an exception
    gives the English only)."""
    return error.args[0] if len(error.args) == 1 and isinstance(error.args[0], Text) else str(error)


@cache
def catalogue(language: str) -> gettext.NullTranslations:
    """The translations into `language` (none for English or a language without a catalogue)."""
    path = CATALOGUES / f"{language}.po"
    if language == ENGLISH or not path.exists():
        return gettext.NullTranslations()
    with path.open("rb") as f:
        po = read_po(f, locale=language)
    buffer = io.BytesIO()
    write_mo(buffer, po)  # fuzzy entries are left out: they await a translator
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)
