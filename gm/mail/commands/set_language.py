"""SET LANGUAGE <language>: the language the judge writes to the sender in, in every game."""
from __future__ import annotations

from gm.i18n import LANGUAGES, _, known_language, language_name
from gm.mail.commands import Context
from gm.view.languages import choose

NAME = "SET LANGUAGE"
USAGE = "SET LANGUAGE " + " | ".join(LANGUAGES) + " | GAME"
HELP = _("the language of the judge's mail to you, in all your games: en, fr, de, it (GAME: each game's own)")


def run(ctx: Context, args: list[str], line: str) -> None:
    word = " ".join(args).strip()
    language = None if word.casefold() in ("game", "default", "none") else known_language(word)
    if language is None and word.casefold() not in ("game", "default", "none"):
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    # Whose language: the registered address of the power or GM signed on as (their password
    # proves it), else the sender's when the mail itself proves its From address. An unproven
    # mail could otherwise set a stranger's language.
    address = ctx.line_owner if (ctx.player is not None or ctx.master is not None) else None
    if address is None and ctx.authenticated:
        address = ctx.message.sender
    if address is None:
        ctx.reject(line, _("sign on first (SIGNON <power> <game> <password>), or send it from an address whose mail "
                           "is signed (DKIM): it changes the language of the judge's mail to that address"))
        return
    choose(ctx.session, address, language)
    ctx.forget_language(address)
    ctx.changed = True
    if language is None:
        ctx.accept(line, _("the judge writes to {address} in each game's own language", address=address))
    else:
        ctx.accept(line, _("the judge writes to {address} in {language}", address=address,
                           language=language_name(language)))
