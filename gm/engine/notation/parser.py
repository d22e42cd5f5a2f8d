"""parse_order: one line of a player's orders -> a typed Order, or a precise reason why not.

It reads the order language every variant shares (reader.py) and the notations of orders for no
unit, which the variant's rules accept or refuse: secret points (points.py), declarations
(declarations.py); and those the variant's rules switch on: a fleet's orders at sea where there
are passages (fleet_orders.py), a fleet's two moves (two_moves.py), turns of impulses (turns.py).
"""
from __future__ import annotations

import re

from gm.engine.adjudicator import check_order
from gm.engine.model import RETREATS, GameState, PhaseKind, Unit, UnitType, designation
from gm.engine.notation import declarations, fleet_orders, points, two_moves
from gm.engine.notation.names import resolve_power
from gm.engine.notation.reader import Fail, ParsedOrder, Raw, is_fleet, read_order, readings
from gm.engine.notation.turns import named_units, parse_turn, route_steps
from gm.engine.notation.words import ACCEPTS, THEN, WHEN, tokens
from gm.engine.orders import Build, Convoy, Disband, Hold, Move, Order, Retreat, SupportHold, SupportMove, waive
from gm.engine.resolve import FLEET_CONVOYED
from gm.engine.variant import Variant

_QUOTE_MARK = re.compile(r"\s*[>|]")
_LIST_MARK = re.compile(r"^\s*(?:\d{1,3}[.)]|[-*\u2022\u00b7\u2013])\s+")
_UNIT_PARENS = re.compile(r"(?<![\w/])(\d{0,2}[AF](?:/\d{0,2}[AF])?|army|fleet)\s*\(\s*([^()]*?)\s*\)", re.IGNORECASE)


def parse_order(
    variant: Variant, text: str, power: str, phase_kind: PhaseKind, state: GameState | None = None
) -> ParsedOrder:
    """Read one order of `power`. Never raises: what cannot be understood comes back with a reason.

    `power` may be written loosely ('english'); the order carries the variant's name for it.
    With `state`, an order for a fleet on a split coast gets the coast ('F StP S ...' -> 'STP/SC').
    """
    if power not in variant.powers:
        power = resolve_power(variant, power) or power
    if _QUOTE_MARK.match(text):
        return ParsedOrder(text, None, "a line that starts with a quote mark ('>' or '|') is quoted "
                                       "text, not an order")
    words = _LIST_MARK.sub("", text, count=1)  # '1. A Par-Bur', '- A Par-Bur', '* A Par-Bur'
    names = variant.rules.unit_names(variant)
    if names:  # 'CXII(Got)', 'Charles XII Got': a leader is ordered as the army he is
        words = named_units(tuple(names)).sub("A", words)
    words = _UNIT_PARENS.sub(r"\1 \2", words)  # 'A(Tun)', 'F(SKA)': the place in brackets after the unit
    if variant.rules.impulses > 1 and phase_kind is PhaseKind.MOVEMENT:
        return parse_turn(variant, text, words, power, state, _parse_words)
    return _parse_words(variant, text, words, power, phase_kind, state)


def _parse_words(
    variant: Variant, text: str, words: str, power: str, phase_kind: PhaseKind, state: GameState | None
) -> ParsedOrder:
    """One order's words, once the line's marks and a unit's brackets are read: the notations the
    variant's rules switch on first, then the order language every variant shares."""
    rules = variant.rules
    if rules.fleets_move_twice and phase_kind is PhaseKind.MOVEMENT and THEN.search(words):
        return two_moves.parse_then(variant, text, words, power, state, _parse_words)
    found = points.match(words)
    if found:
        return points.parse(variant, text, found, power, phase_kind, state, _parse_words)
    found = declarations.match(words)
    if found:
        return declarations.parse(variant, text, found, power, phase_kind)
    found = fleet_orders.match(variant, words, phase_kind)
    if found:
        return fleet_orders.parse(variant, text, found, power, phase_kind, state)
    raws, why = readings(variant, tokens(words), read_order)
    orders: list[Order] = []
    for raw in raws:
        try:
            stacks = rules.multiple_units or rules.separate_fleets  # '2F', 'A/2F'
            if (raw.merge and not rules.multiple_units) or (raw.part is not None and not stacks):
                raise Fail(f"{variant.title} has no multiple units: "
                           + ("no unit merges" if raw.merge else "each unit is one army or one fleet"))
            if len(raw.carrier) > (2 if rules.fleets_move_twice else 1):
                raise Fail(f"the fleet boarded moves at most {'twice' if rules.fleets_move_twice else 'once'} a turn")
            order = _make(raw, power, phase_kind, state)
            if type(order) is Move and (raw.route or raw.via_convoy) and is_fleet(variant, state, raw):
                order = _fleet_route(variant, phase_kind, raw, order, state)
            elif raw.route and type(order) is Move and rules.impulses > 1 and phase_kind is PhaseKind.MOVEMENT:
                order = route_steps(variant, state, raw, order)
        except Fail as fail:
            why = why or str(fail)
            continue
        if order not in orders:
            orders.append(order)
    if len(orders) > 1 and state is not None:
        orders = [o for o in orders if _legal(variant, state, o)] or orders
    if len(orders) > 1:
        read = " or as ".join(str(o) for o in orders)
        return ParsedOrder(text, None, f"this can be read as {read}: write it so that only one "
                                       "is meant (full names, or 'to' for the move)")
    if not orders:
        return ParsedOrder(text, None, why)
    return ParsedOrder(text, orders[0], None)


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
            raise Fail(f"a fleet moves at most twice a turn: {_written(raw)}")
    raise Fail(f"{FLEET_CONVOYED}: {_written(raw)}")


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
        raise Fail(f"{raw.kind} orders are only accepted in {WHEN[raw.kind]}")
    if raw.kind == "waive":
        return waive(power)
    if raw.kind == "build":
        if raw.unit_type is None:
            raise Fail("a build must name the kind of unit: A (army) or F (fleet)")
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
            raise Fail("a retreat cannot go by convoy" if raw.via_convoy else "a retreat cannot merge")
        return Retreat(*head, raw.dest, part=part)
    return Move(*head, raw.dest, raw.via_convoy, raw.merge, part=part, carrier=raw.carrier)


