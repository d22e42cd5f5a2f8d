"""Which judge wrote a text, which variant it is a game of, and the reader for it: the door every
text comes in by (`gm game import`, the GM's IMPORT by mail)."""
from __future__ import annotations

from gm.engine.variant import Variant
from gm.i18n import _
from gm.lifecycle.moving_in import dpjudge_status, judge_mail, own_text
from gm.lifecycle.moving_in.found import Found, Problem, Refused
from gm.lifecycle.moving_in.position import Position, check
from gm.variants import VariantError, canonical_name, load_variant


def read_position(text: str, variant: str | None = None) -> Position:
    """The position `text` gives, in `variant` (the game's, or the one the GM named) or the one the
    text names; Refused with every problem found, in the text or in the two variants' disagreeing."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    kind = _kind(text)
    game_variant = _variant(text, kind, variant)
    if game_variant.rules.unfinished:
        raise Refused([Problem(None, _("{variant} cannot be played yet: {why}", variant=game_variant.title,
                                       why=game_variant.rules.unfinished))])
    own = Found(own_text.SOURCE)
    if kind != "own":  # gm's keyed lines after another judge's text: they add to it, or correct it
        kept = []
        for i, line in enumerate(text.split("\n"), 1):
            # the GM's own, at the start of a line and unquoted: a judge indents its 'Press:' and the like
            stripped = line.rstrip()
            if stripped[:1].isalpha() and own_text.keyed_line(game_variant, own, i, stripped):
                kept.append("")
            else:
                kept.append(line)
        text = "\n".join(kept)
    reader = {"status": dpjudge_status.read, "mail": judge_mail.read, "own": own_text.read}[kind]
    found = reader(game_variant, text)
    if kind == "status" and _named(text, kind) is None and variant is not None and game_variant.name != "standard":
        found.note(None, _("the file names no MAP (DPjudge's default is standard): read as {variant}, the game's "
                           "variant", variant=game_variant.title))
    _merge(found, own)
    own_text.settle_deadline(found)
    return check(game_variant, found)


def same_board(a: str, b: str) -> bool:
    """Whether two variants are played on the same board by the same powers (Ambition & Empire's
    2006 and version 6 rules), so that a game of one may move in as a game of the other."""
    if canonical_name(a) == canonical_name(b):
        return True
    va, vb = load_variant(a), load_variant(b)
    return set(va.map.provinces) == set(vb.map.provinces) and list(va.powers) == list(vb.powers)


def _kind(text: str) -> str:
    if dpjudge_status.is_status(text):
        return "status"
    if judge_mail.is_judge_mail(text):
        return "mail"
    return "own"


def _named(text: str, kind: str) -> tuple[int, str] | None:
    if kind == "status":
        line, name = dpjudge_status.variant_named(text)
        return (line, name) if line else None
    if kind == "mail":
        return judge_mail.variant_named(text)
    return own_text.variant_named(text)


def _variant(text: str, kind: str, wanted: str | None) -> Variant:
    """The variant to read the text in; Refused when the text is a game of another."""
    named = _named(text, kind)
    if named is None and kind == "status":
        named = (0, "standard") if wanted is None else None  # DPjudge's default map
    if named is not None:
        line, name = named
        try:
            written = canonical_name(name)
        except VariantError:
            raise Refused([Problem(line or None, _("the text is a game of {variant}, a variant gm does not play",
                                                   variant=repr(name)))]) from None
        if wanted is not None and not same_board(wanted, written):
            raise Refused([Problem(line or None, _("wrong variant: the text is a game of {variant}, not {wanted}",
                                                   variant=load_variant(written).title,
                                                   wanted=load_variant(wanted).title))])
        return load_variant(wanted or written)
    if wanted is None:
        raise Refused([Problem(None, _("the text does not say which variant it is a game of: name it (--variant, or "
                                       "a 'Variant:' line)"))])
    return load_variant(wanted)


def _merge(found: Found, own: Found) -> None:
    """gm's keyed lines over another judge's text: each adds what the text lacks or takes the place
    of what it says (the GM's word), and its problems are the text's."""
    found.problems += own.problems
    for power, (line, address) in own.players.items():
        if power in found.players:
            found.note(line, _("Player {power}: the GM's line takes the place of line {line}", power=power,
                               line=found.players[power][0]))
        found.players[power] = (line, address)
    if own.centres:
        powers = {owner for _line, owner in own.centres.values()}
        kept = {p: v for p, v in (found.centres or {}).items() if v[1] not in powers and p not in own.centres}
        found.centres = {**kept, **own.centres}
    found.homes.update(own.homes)
    found.dislodged.update(own.dislodged)
    found.banks.update(own.banks)
    found.loans += own.loans
    found.control.update(own.control)
    found.rules.update(own.rules)
    if own.phase is not None:
        found.phase, found.phase_line = own.phase, own.phase_line
    for name in ("master", "press", "deadline_written", "game"):
        if getattr(own, name) is not None:
            setattr(found, name, getattr(own, name))
