"""MAP [phase]: the map of your game as it stands, or of a past phase with its orders and their
results, attached to the reply."""
from __future__ import annotations

import base64

from gm.games import variant_of
from gm.lifecycle.phase_names import read_phase
from gm.mail.commands import Context
from gm.mail.game_mail import reader_palette, stored_map

NAME = "MAP"
USAGE = "MAP [phase]   (e.g. MAP, MAP Spring 1901, MAP F1901M)"
HELP = "the map of the position now, or of a past phase with its orders and results, attached to the reply"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    game = ctx.game
    phase = None
    if args:
        phase = read_phase(variant_of(game), " ".join(args))
        if phase is None:
            ctx.reject(line, f"{' '.join(args)!r} is no phase: usage: {USAGE}")
            return
    try:
        png, label = stored_map(ctx.session, game, phase, reader_palette(game, ctx.player))
    except ValueError as e:
        ctx.reject(line, str(e))
        return
    name = f"{game.name}-{label.lower().replace(',', '').replace(' ', '-')}.png"
    ctx.attachments.append({"filename": name, "content_type": "image/png",
                            "data": base64.b64encode(png).decode("ascii")})
    ctx.accept(line, f"{label}: the map is attached ({name})")
