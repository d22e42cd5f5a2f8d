"""MAP [phase]: the map of your game as it stands (once it is over, the position it ended in), or
of a past phase with its orders and their results, attached to the reply.

Drawing a map is the dearest thing a line can ask for, so the intake draws none: it checks that
the map can be made and names it in the reply (mail_maps.map_attachment), and the outbox sender
draws it as it sends the reply. A mail gets one map for each phase (and colours) it asks for, and
at most MAPS_PER_MAIL of them."""
from __future__ import annotations

from gm.games import variant_of
from gm.i18n import _, _n
from gm.lifecycle.phase_names import phase_name, read_phase
from gm.lifecycle.phases import EndPosition, position_at_end
from gm.lifecycle.ending import outcome_text
from gm.maps.art import has_art
from gm.mail.commands import Context, reason
from gm.mail.outgoing.mail_maps import map_attachment, map_kind, map_palette, map_phase, reader_palette
from gm.store.models import Game, GameStatus

NAME = "MAP"
USAGE = "MAP [phase]   (e.g. MAP, MAP Spring 1901, MAP F1901M)"
HELP = _("the map of the position now, or of a past phase with its orders and results, attached to the reply")
MAPS_PER_MAIL = 3  # maps one mail may ask for: each costs the sender tens of milliseconds to draw


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.signed_on(line):
        return
    game = ctx.game
    variant = variant_of(game)
    phase = None
    if args:
        phase = read_phase(variant, " ".join(args))
        if phase is None:
            ctx.reject(line, _("{phase} is no phase: usage: {usage}", phase=repr(" ".join(args)), usage=USAGE))
            return
    palette = reader_palette(game, ctx.player)
    end = position_at_end(ctx.session, game) if phase is None and game.status == GameStatus.FINISHED else None
    if end is not None:
        _final(ctx, line, end, palette)
        return
    current = ctx.phase()
    # Without a phase, the one under way as the mail is read: the map sent is of that position,
    # even if the phase has ended by the time the reply goes out.
    label = variant.phase_label(phase) if phase is not None else current.row.label if current is not None else None
    maps = [a for a in ctx.attachments_for(ctx.line_owner or "") if "map" in a]  # in this power's answer
    name = _filename(game, label, palette) if label is not None else None
    if name is None or not any(a["filename"] == name for a in maps):  # not asked for before in this mail
        if len(maps) >= MAPS_PER_MAIL:
            ctx.reject(line, _too_many())
            return
        try:
            row = map_phase(ctx.session, game, phase)
        except ValueError as e:
            ctx.reject(line, reason(e))
            return
        label, name = row.label, _filename(game, row.label, palette)
        ctx.attach(map_attachment(row, map_kind(row), palette, name))
    ctx.accept(line, _("{phase}: the map is attached ({file})", phase=phase_name(label), file=name))


def _too_many() -> str:
    return _n("at most {count} map a mail: ask for the others in another mail",
              "at most {count} maps a mail: ask for the others in another mail", MAPS_PER_MAIL)


def _final(ctx: Context, line: str, end: EndPosition, palette: str) -> None:
    """The map of the position a finished game ended in: after the results that ended it (a win),
    or of the phase it stopped in (a draw, the GM's TERMINATE)."""
    game = ctx.game
    variant = variant_of(game)
    name = f"{game.name}-final-position{'' if palette == map_palette(game) else f'-{palette}'}.png"
    maps = [a for a in ctx.attachments_for(ctx.line_owner or "") if "map" in a]
    if not any(a["filename"] == name for a in maps):
        if not has_art(variant.name):
            ctx.reject(line, _("the judge has no map of {variant}", variant=variant.title))
            return
        if len(maps) >= MAPS_PER_MAIL:
            ctx.reject(line, _too_many())
            return
        ctx.attach(map_attachment(end.row, "final" if end.after_results else "position", palette, name))
    ctx.accept(line, _("the final position ({outcome}): the map is attached ({file})",
                       outcome=outcome_text(game.outcome) or _("the game is over"), file=name))


def _filename(game: Game, label: str, palette: str) -> str:
    """'g1-fall-1901-movement.png'; in colours other than the game's, named after them too."""
    colours = "" if palette == map_palette(game) else f"-{palette}"
    return f"{game.name}-{label.lower().replace(',', '').replace(' ', '-')}{colours}.png"
