"""SET OPTION <name> <value>: a game option (see the list the command gives)."""
from __future__ import annotations

from dataclasses import fields
from typing import Any

from gm.games import GameError, variant_of
from gm.i18n import _
from gm.lifecycle.house_rules import HouseRules
from gm.lifecycle.timing import change_rules, set_options
from gm.mail.commands import Context, Lines, reason
from gm.mail.commands.join import SEVERAL_POWERS
from gm.mail.commands.whogame import ANONYMOUS
from gm.mail.outgoing.game_mail import queue_announcement
from gm.maps.render import PALETTES
from gm.store.models import GameStatus, utcnow

NAME = "SET OPTION"
USAGE = "SET OPTION <name> <value>"
HELP = _("a game option (see the list the command gives)")

MAP_PALETTE = "map_palette"
HOUSE_RULES = tuple(f.name for f in fields(HouseRules))
# No variant declares options of its own (Ambition & Empire's version 6 is a variant of its own,
# ambition-v6): a game's options are its house rules and these.
OPTIONS = (*HOUSE_RULES, MAP_PALETTE, SEVERAL_POWERS, ANONYMOUS)
_YES, _NO = ("yes", "on", "true"), ("no", "off", "false")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if len(args) < 2:
        ctx.reject(line, _("usage: {usage}; the options are {options}", usage=USAGE, options=", ".join(OPTIONS)))
        return
    game = ctx.game
    name, value = args[0].lower().replace("-", "_"), " ".join(args[1:])
    if name not in OPTIONS:
        ctx.reject(line, _("no game option {name}; the options are {options}", name=repr(args[0]),
                           options=", ".join(OPTIONS)))
        return
    if name == "last_year":
        allowed = variant_of(game).rules.end_years(variant_of(game))
        if allowed and value.strip().lower() not in ("none", "no") and value.strip() not in map(str, allowed):
            years = str(allowed[0])
            for year in allowed[1:]:
                years = _("{years} or {year}", years=years, year=str(year))
            ctx.reject(line, _("{variant} ends only in {years} (or none)", variant=variant_of(game).title,
                               years=years))
            return
    if name in HOUSE_RULES:
        change_house_rules(ctx, line, "set option", {name: value if name == "timezone" else value.lower()})
        return
    if game.status == GameStatus.FINISHED:
        ctx.reject(line, _("{game} is over: its options no longer matter", game=game.name))
        return
    chosen: str | bool
    if name == MAP_PALETTE:
        chosen = value.lower()
        if chosen not in PALETTES:
            ctx.reject(line, _("map_palette is one of {palettes}, not {value}", palettes=", ".join(PALETTES),
                               value=repr(value)))
            return
        said = _("the maps are drawn in the {palette} colours, for every player who did not choose others (SET MAP)",
                 palette=chosen)
    else:
        if value.lower() not in _YES + _NO:
            # TRANSLATORS: 'yes' and 'no' are the words the GM writes (SET OPTION anonymous yes)
            ctx.reject(line, _("{name} is yes or no, not {value}", name=name, value=repr(value)))
            return
        chosen = value.lower() in _YES
        if name == ANONYMOUS:
            said = _("WHOGAME shows which powers are taken, not who plays them") if chosen else \
                _("WHOGAME shows every player's address")
        else:
            said = _("one address may play several powers") if chosen else \
                _("one address plays one power (those who play several already keep them)")
    set_options(game, {name: chosen})
    shown = chosen if isinstance(chosen, str) else _("yes") if chosen else _("no")
    announce(ctx, line, _("Game option set"), _("The GM set {name} to {value}: {said}.", name=name, value=shown,
                                                said=said),
             "set option", {name: chosen}, _("{name} is {value}", name=name, value=shown))


def change_house_rules(ctx: Context, line: str, action: str, changes: dict[str, Any]) -> None:
    """The game's house rules changed (SET OPTION, SET GRACE, SET NMR), every player told."""
    game = ctx.game
    try:
        rules = change_rules(ctx.session, game, changes, utcnow())
    except GameError as e:
        ctx.reject(line, reason(e))
        return
    written = rules.to_options()
    said = ", ".join(f"{name} {written[name] or 'none'}" for name in changes)  # as the GM writes them
    text = Lines([_("The GM changed the house rules: {changes}.", changes=said), "", _("The house rules now:"),
                  *(Lines(["  ", rule], "") for rule in rules.describe(bidding=variant_of(ctx.game).has_bidding))])
    announce(ctx, line, _("House rules changed"), text, action, {name: written[name] for name in changes},
             _("house rules: {changes}", changes=said))


def announce(ctx: Context, line: str, subject: str, text: str, action: str, detail: dict[str, Any],
             done: str) -> None:
    """Every player and GM told `text`; the audit entry; the line accepted, saying what was `done`."""
    queue_announcement(ctx.session, ctx.game, subject, text, gm_address=ctx.gm_address, now=utcnow())
    ctx.audit(action, detail)
    ctx.accept(line, _("{done}; every player is told", done=done))
