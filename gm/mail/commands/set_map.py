"""SET MAP COLOURBLIND | RULEBOOK | GAME: the colours of the maps mailed to you."""
from __future__ import annotations

from gm.i18n import _
from gm.mail.commands import Context
from gm.mail.outgoing.mail_maps import map_palette
from gm.maps.render import PALETTES
from gm.store.models import AuditEntry

NAME = "SET MAP"
USAGE = "SET MAP COLOURBLIND | RULEBOOK | GAME"
HELP = _("the colours of your maps: a colour-blind-safe set, the rulebook's, or whatever the game uses "
         "(the default)")

_WORDS = {"colourblind": "colourblind", "colorblind": "colourblind", "colour-blind": "colourblind",
          "color-blind": "colourblind", "rulebook": "rulebook", "game": None, "default": None}


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    word = " ".join(args).strip().lower()
    if word not in _WORDS:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    chosen = _WORDS[word]
    assert chosen is None or chosen in PALETTES
    if ctx.player.map_palette != chosen:
        ctx.player.map_palette = chosen
        ctx.session.add(AuditEntry(game_id=ctx.game.id, actor=ctx.message.sender, action="set map",
                                   detail={"power": ctx.player.power, "palette": chosen}))
        ctx.changed = True
    if chosen is None:
        ctx.accept(line, _("maps for {power} in the game's ({palette}) colours", power=ctx.player.power,
                           palette=map_palette(ctx.game)))
    else:
        ctx.accept(line, _("maps for {power} in {palette} colours", power=ctx.player.power, palette=chosen))
