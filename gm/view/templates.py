"""Where the texts every channel renders live (templates/mail/ and templates/web/, or the folder
GM_TEMPLATES names), the environment that renders them in a reader's language, and the heading each text the judge writes starts with, by which a reader (and a channel
showing it again) knows what it is."""
from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, pass_context, pass_eval_context
from markupsafe import Markup, escape
from jinja2.filters import do_format, do_join

from gm.i18n import Text, catalogue, translated

_TEMPLATES = Path(__file__).resolve().parents[2] / "templates"

RESULTS_HEADING = "=== gm results ==="
NOTICE_HEADING = "=== gm notice ==="
PRESS_HEADING = "=== gm press ==="


def templates_dir() -> Path:
    """templates/ of the project, or the folder GM_TEMPLATES names."""
    folder = os.environ.get("GM_TEMPLATES")
    return Path(folder) if folder else _TEMPLATES


def environment(channel: str, language: str, filters: Mapping[str, Callable[..., Any]] | None = None,
                **options: Any) -> Environment:
    """The Jinja environment of `channel` ('mail' or 'web', a folder of templates_dir()) writing
    in `language`: its `{% trans %}` blocks and `_()` calls come from the language's catalogue,
    and every sentence of the judge's (a gm.i18n.Text) it prints, joins or filters is written in
    the language too. `filters` are text filters: they get the value already translated."""
    return _environment(str(templates_dir() / channel), language, tuple(sorted((filters or {}).items())),
                        tuple(sorted(options.items())))


@cache
def _environment(folder: str, language: str, filters: tuple[tuple[str, Callable[..., Any]], ...],
                 options: tuple[tuple[str, Any], ...]) -> Environment:
    env = Environment(loader=FileSystemLoader(folder), undefined=StrictUndefined, trim_blocks=True,
                      lstrip_blocks=True, extensions=["jinja2.ext.i18n"],
                      finalize=lambda value: _in(value, language), **dict(options))
    _install_gettext(env, language)

    def text_filter(f: Callable[..., Any]) -> Callable[..., Any]:
        return lambda value, *args, **kwargs: f(_in(value, language), *args, **kwargs)

    @pass_eval_context
    def join(ctx: Any, value: Any, d: str = "", attribute: Any = None) -> str:
        items = [_in(v, language) for v in value] if attribute is None else value
        return do_join(ctx, items, d, attribute)

    def format_(value: Any, *args: Any, **kwargs: Any) -> str:
        return do_format(_in(value, language), *(_in(a, language) for a in args),
                         **{k: _in(v, language) for k, v in kwargs.items()})

    env.filters.update({name: text_filter(f) for name, f in filters}, join=join, format=format_,
                       tr=lambda value: _in(value, language))  # a Text as the reader reads it: its |length
    env.globals["language"] = language
    return env


def _install_gettext(env: Environment, language: str) -> None:
    """gettext for `{% trans %}` and `_()` in templates, in `language`: jinja's newstyle gettext
    (the values formatted in after translation, escaped where the template escapes), with a
    value that is a Text written in `language` too."""
    t = catalogue(language)

    def formatted(context: Any, text: str, variables: dict[str, Any]) -> str:
        autoescape = context.eval_ctx.autoescape
        if autoescape:
            text = Markup(text)
        values = {k: _in(v, language) for k, v in variables.items()}
        if autoescape:
            values = {k: escape(v) if isinstance(v, str) else v for k, v in values.items()}
        return text % values if values or "%%" in text else text

    @pass_context
    def gettext(context: Any, message: str, **variables: Any) -> str:
        return formatted(context, t.gettext(message), variables)

    @pass_context
    def ngettext(context: Any, singular: str, plural: str, num: int, **variables: Any) -> str:
        variables.setdefault("num", num)
        return formatted(context, t.ngettext(singular, plural, num), variables)

    @pass_context
    def pgettext(context: Any, ctx: str, message: str, **variables: Any) -> str:
        return formatted(context, t.pgettext(ctx, message), variables)

    @pass_context
    def npgettext(context: Any, ctx: str, singular: str, plural: str, num: int, **variables: Any) -> str:
        variables.setdefault("num", num)
        return formatted(context, t.npgettext(ctx, singular, plural, num), variables)

    env.newstyle_gettext = True  # type: ignore[attr-defined]  # the i18n extension's flag
    env.globals.update(gettext=gettext, _=gettext, ngettext=ngettext, pgettext=pgettext, npgettext=npgettext)


def _in(value: Any, language: str) -> Any:
    """A Text (or a list of them) in `language`; anything else as it is (Markup stays Markup)."""
    return translated(value, language) if isinstance(value, (Text, list, tuple)) and _has_text(value) else value


def _has_text(value: Any) -> bool:
    return isinstance(value, Text) or any(isinstance(v, Text) for v in value)
