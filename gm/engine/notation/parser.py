"""parse_order: one line of a player's orders -> a typed Order, or a precise reason why not.

It reads the order language every variant shares (reader.py) and the notations of orders for no
unit, which the variant's rules accept or refuse: secret points (points.py), declarations
(declarations.py); and those the variant's rules switch on: a fleet's orders at sea where there
are passages (fleet_orders.py), a fleet's two moves (two_moves.py), turns of impulses (turns.py).
"""
from __future__ import annotations

import re
from functools import partial

from gm.engine.adjudicator import check_order
from gm.engine.model import RETREATS, GameState, PhaseKind, Unit, UnitType, designation
from gm.engine.notation import declarations, fleet_orders, points, two_moves
from gm.engine.notation.names import resolve_power
from gm.engine.notation.reader import Fail, ParsedOrder, Raw, is_fleet, read_order, readings
from gm.engine.notation.turns import named_units, parse_turn, route_steps
from gm.engine.notation.words import ACCEPTS, THEN, WRONG_PHASE, tokens
from gm.engine.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold, SupportMove, waive
from gm.engine.variant import Variant
from gm.i18n import _

_QUOTE_MARK = re.compile(r"\s*[>|]")
_LIST_MARK = re.compile(r"^\s*(?:\d{1,3}[.)]|[-*\u2022\u00b7\u2013])\s+")
_UNIT_PARENS = re.compile(r"(?<![\w/])(\d{0,2}[AF](?:/\d{0,2}[AF])?|army|fleet)\s*\(\s*([^()]*?)\s*\)", re.IGNORECASE)


def parse_order(
    variant: Variant, text: str, power: str, phase_kind: PhaseKind, state: GameState | None = None,
    *, language: str = "en",
) -> ParsedOrder:
    """Read one order of `power`. Never raises: what cannot be understood comes back with a reason.

    `power` may be written loosely ('english'); the order carries the variant's name for it.
    With `state`, an order for a fleet on a split coast gets the coast ('F StP S ...' -> 'STP/SC').
    `language` is the reader's ('en', 'fr', 'de', 'it'): their order words and the variant's names
    in their language are read first, then English's ('A Par - Bou' in French).
    """
    if power not in variant.powers:
        power = resolve_power(variant, power, language) or power
    if _QUOTE_MARK.match(text):
        return ParsedOrder(text, None, _("a line that starts with a quote mark ('>' or '|') is quoted "
                                         "text, not an order"))
    words = _LIST_MARK.sub("", text, count=1)  # '1. A Par-Bur', '- A Par-Bur', '* A Par-Bur'
    names = variant.rules.unit_names(variant)
    if names:  # 'CXII(Got)', 'Charles XII Got': a leader is ordered as the army he is
        words = named_units(tuple(names)).sub("A", words)
    words = _UNIT_PARENS.sub(r"\1 \2", words)  # 'A(Tun)', 'F(SKA)': the place in brackets after the unit
    read = _parse_words if language == "en" else partial(_parse_words, language=language)
    if variant.rules.impulses > 1 and phase_kind is PhaseKind.MOVEMENT:
        return parse_turn(variant, text, words, power, state, read)
    return read(variant, text, words, power, phase_kind, state)


def _parse_words(
    variant: Variant, text: str, words: str, power: str, phase_kind: PhaseKind, state: GameState | None,
    language: str = "en",
) -> ParsedOrder:
    """One order's words, once the line's marks and a unit's brackets are read: the notations the
    variant's rules switch on first, then the order language every variant shares."""
    rules = variant.rules
    read = _parse_words if language == "en" else partial(_parse_words, language=language)
    if rules.fleets_move_twice and phase_kind is PhaseKind.MOVEMENT and THEN.search(words):
        return two_moves.parse_then(variant, text, words, power, state, read)
    found = points.match(words)
    if found:
        return points.parse(variant, text, found, power, phase_kind, state, read)
    found = declarations.match(words)
    if found:
        return declarations.parse(variant, text, found, power, phase_kind)
    found = fleet_orders.match(variant, words, phase_kind)
    if found:
        return fleet_orders.parse(variant, text, found, power, phase_kind, state)
    raws, why = readings(variant, tokens(words), read_order, language)
    orders: list[Order] = []
    for raw in raws:
        try:
            stacks = rules.multiple_units or rules.separate_fleets  # '2F', 'A/2F'
            if (raw.merge and not rules.multiple_units) or (raw.part is not None and not stacks):
                raise Fail(_("{variant} has no multiple units: no unit merges", variant=variant.title) if raw.merge else
                           _("{variant} has no multiple units: each unit is one army or one fleet",
                             variant=variant.title))
            if len(raw.carrier) > (2 if rules.fleets_move_twice else 1):
                raise Fail(_("the fleet boarded moves at most twice a turn") if rules.fleets_move_twice else
                           _("the fleet boarded moves at most once a turn"))
            order = _make(raw, power, phase_kind, state)
            if type(order) is Move and (raw.route or raw.via_convoy) and is_fleet(variant, state, raw):
                order = _fleet_route(variant, phase_kind, raw, order, state)
            elif raw.route and type(order) is Move and rules.impulses > 1 and phase_kind is PhaseKind.MOVEMENT:
                order = route_steps(variant, state, raw, order)
        except Fail as fail:
            why = why or fail.reason
            continue
        if order not in orders:
            orders.append(order)
    if len(orders) > 1 and state is not None:
        orders = [o for o in orders if _legal(variant, state, o)] or orders
    if len(orders) > 1:
        return ParsedOrder(text, None, _("this can be read as {readings}: write it so that only one is meant (full "
                                         "names, or 'to' for the move)", readings=_readings(orders)))
    if not orders:
        return ParsedOrder(text, None, why)
    return ParsedOrder(text, orders[0], None)


def _readings(orders: list[Order]) -> str:
    """'A MAR S A PAR - BUR or as A MAR S A PAR-BUR H': the orders a line can be read as."""
    said: str = str(orders[0])
    for order in orders[1:]:
        # TRANSLATORS: the orders a line can be read as: {readings} (one or more) 'or as' {order}
        said = _("{readings} or as {order}", readings=said, order=str(order))
    return said


def _fleet_route(variant: Variant, phase_kind: PhaseKind, raw: Raw, order: Move, state: GameState | None) -> Order:
    """A fleet's move through other spaces: its two moves ('F NTH - ENG - MAO') where the
    variant's rules move fleets twice, its steps in a turn of impulses; never a convoy, which
    carries armies only (so not 'F LON - WAL - YOR', nor 'F LON - YOR VIA CONVOY')."""
    rules = variant.rules
    if phase_kind is PhaseKind.MOVEMENT and raw.route and not raw.via_convoy_written:
        if rules.impulses > 1:
            return route_steps(variant, state, raw, order)
        if rules.fleets_move_twice:
            if len(raw.route) == 1:
                return two_moves.route(raw, order)
            raise Fail(_("a fleet moves at most twice a turn: {move}", move=_written(raw)))
    raise Fail(_("a fleet cannot be convoyed: {move}", move=_written(raw)))


def _written(raw: Raw) -> str:
    """The move as read: 'F LON - WAL - YOR', 'F LON - YOR VIA CONVOY'."""
    unit = designation(*raw.part) if raw.part else "F"
    text = " - ".join((f"{unit} {raw.location}", *raw.route, raw.dest))
    return text + (" VIA CONVOY" if raw.via_convoy_written else "")


def _legal(variant: Variant, state: GameState, order: Order) -> bool:
    """Could the unit standing where `order` says carry it out? Whoever owns it: a point
    allocation orders another power's unit, so the unit is lent to the ordering power."""
    unit = state.units.get(order.province)
    if unit is not None and unit.power != order.power and state.phase.kind is PhaseKind.MOVEMENT:
        lent = Unit(order.power, unit.type, unit.location)
        state = state.with_(units={**state.units, order.province: lent})
    return check_order(variant, state, order) is None


def _unit_location(state: GameState | None, phase_kind: PhaseKind, raw: Raw) -> str:
    """Where the unit ordered stands: 'STP' becomes 'STP/SC' when a fleet is on that coast."""
    if state is None or "/" in raw.location or raw.unit_type is UnitType.ARMY:
        return raw.location
    unit = state.units.get(raw.location)
    if phase_kind in RETREATS and raw.location in state.dislodged:
        unit = state.dislodged[raw.location].unit
    if unit is not None and unit.type is UnitType.FLEET and unit.province == raw.location:
        return unit.location
    return raw.location


def _make(raw: Raw, power: str, phase_kind: PhaseKind, state: GameState | None) -> Order:
    if raw.kind not in ACCEPTS[phase_kind]:
        raise Fail(WRONG_PHASE[raw.kind])
    if raw.kind == "waive":
        return waive(power)
    if raw.kind == "build":
        if raw.unit_type is None:
            raise Fail(_("a build must name the kind of unit: A (army) or F (fleet)"))
        return Build(power, raw.unit_type, raw.location, part=raw.part)
    head = (power, raw.unit_type, _unit_location(state, phase_kind, raw))
    part = raw.part
    if raw.kind in ("disband", "remove"):
        return Disband(*head, part=part)
    if raw.kind == "hold":
        return Hold(*head, part=part)
    if raw.kind == "support":
        if raw.dest:
            return SupportMove(*head, raw.target, raw.dest, raw.target_type, part=part)
        return SupportHold(*head, raw.target, raw.target_type, part=part)
    if raw.kind == "convoy":
        return Convoy(*head, raw.target, raw.dest, part=part)
    if phase_kind in RETREATS:
        if raw.via_convoy or raw.merge:
            raise Fail(_("a retreat cannot go by convoy") if raw.via_convoy else _("a retreat cannot merge"))
        return Retreat(*head, raw.dest, part=part)
    return Move(*head, raw.dest, raw.via_convoy, raw.merge, part=part, carrier=raw.carrier)


