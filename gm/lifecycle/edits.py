"""The GM's corrections of a position (SET UNIT, REMOVE UNIT, SET OWNER, SET HOME, SET PHASE): the
position at the start of the current phase changed, checked against the variant, and the orders on
file that no longer fit it withdrawn. Pure of mail: REISSUE tells the players what changed.

Every function works in the caller's transaction, on a game under way, and raises GameError (the
reason, for the GM) changing nothing when it cannot be done. Each edit says what changed in words
every player may read: no order, no allocation."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.orm import Session

from gm.engine.adjudicator import check_order
from gm.engine.graph import Terrain
from gm.engine.model import RETREATS, ADDED_CENTRES, GameState, PhaseKind, Season, Unit, UnitType, designation, parse_designation, province_of
from gm.engine.parse import lookup_location, parse_order, resolve_power
from gm.engine.variant import Variant
from gm.games import CurrentPhase, GameError, variant_of
from gm.lifecycle.phase_names import read_phase
from gm.lifecycle.timing import under_way
from gm.store.db import state_to_json
from gm.store.models import AuditEntry, Game, GamePhase, OrderRecord, SecretAllocation

# The audit actions of the edits, and those after which REISSUE has nothing left to tell: the
# players learnt the position from the results, the rollback notice or the last correction.
EDIT_ACTIONS = ("set unit", "remove unit", "set owner", "set home", "set phase", "set centre", "set control")
ISSUED_ACTIONS = ("adjudicate", "rollback", "reissue")
NONE_WORDS = ("NONE", "NOBODY", "NEUTRAL")


@dataclass
class Edit:
    """One edit made to the position of `phase`: what it changed, in words for everyone, before
    and after, for the audit log, and the orders on file it withdrew (power, order) because they
    no longer fit."""

    phase: str
    change: str
    before: Any
    after: Any
    withdrawn: list[tuple[str, str]] = field(default_factory=list)

    def audit_detail(self) -> dict[str, Any]:
        return {"phase": self.phase, "change": self.change, "before": self.before, "after": self.after,
                "withdrawn": [{"power": p, "order": o} for p, o in self.withdrawn]}


# --- reading what the GM wrote ------------------------------------------------------------------


def _key(text: str) -> str:
    return re.sub(r"[^0-9a-z]+", " ", text.casefold()).strip()


def _exact_power(variant: Variant, text: str) -> str | None:
    """The power `text` names exactly (its name, adjective or an alias, any case): no guessing,
    so that a power's name is never taken to run on into the words after it."""
    key = _key(text)
    for power in variant.powers.values():
        for name in filter(None, (power.name, power.adjective, *power.aliases)):
            if key in (_key(name), _key(name).replace(" ", "")):
                return power.name
    return None


def _powers_of(variant: Variant) -> str:
    return ", ".join(variant.great_powers)


def leading_power(variant: Variant, words: list[str]) -> tuple[str, list[str]]:
    """The power the first words name ('Great Britain F Lon - Nth' -> Great Britain) and the words
    after it: an exact name of up to three words first, else the first word as players spell it."""
    for n in range(min(3, len(words) - 1), 0, -1):
        power = _exact_power(variant, " ".join(words[:n]).rstrip(":"))
        if power is not None:
            return power, words[n:]
    power = resolve_power(variant, words[0].rstrip(":")) if words else None
    if power is None:
        named = words[0] if words else ""
        raise GameError(f"{variant.title} has no power {named!r}; its great powers are {_powers_of(variant)}")
    return power, words[1:]


def _trailing_power(variant: Variant, words: list[str]) -> tuple[list[str], str | None]:
    """The words before a power (or NONE) the last words name, and that power (None for NONE)."""
    if words and words[-1].upper() in NONE_WORDS:
        return words[:-1], None
    for n in range(min(3, len(words) - 1), 0, -1):
        power = _exact_power(variant, " ".join(words[-n:]))
        if power is not None:
            return words[:-n], power
    power = resolve_power(variant, words[-1]) if words else None
    if power is None:
        named = words[-1] if words else ""
        raise GameError(f"{variant.title} has no power {named!r} (NONE: nobody); its great powers are "
                        f"{_powers_of(variant)}")
    return words[:-1], power


def read_unit(variant: Variant, text: str) -> Unit:
    """'A Par', 'F Stp/nc', 'F Spa nc', 'Fleet Spain north coast', and where the variant has
    multiple units '2A Bur', 'A/F MAO' (stacks of fleets '2F Lon', leaders 'CXII Got', 'CXII/2F
    Got' in 1700AD II) -> a unit (its power left empty), refused where no such
    unit can stand: a fleet inland, an army at sea (unless aboard a fleet of its own), a fleet's
    coast missing or wrong, an army on a coast."""
    kind, _, where = text.strip().partition(" ")
    named, _, fleet_part = kind.partition("/")
    leader = variant.rules.unit_names(variant).get(named.upper(), "")  # 'CXII Got', 'CXII/2F Got' (1700AD II)
    counts = (1, (parse_designation(fleet_part) or (0, 0))[1] if fleet_part else 0) if leader else parse_designation(kind)
    if counts is None or not where.strip():
        raise GameError(f"{text.strip()!r} is no unit: write it as A Par, F Stp/nc or F Spa nc")
    if counts not in ((1, 0), (0, 1)) and not (variant.rules.multiple_units or variant.rules.separate_fleets):
        raise GameError(f"{variant.title} has no multiple units: each unit is one army or one fleet")
    unit_type = UnitType.FLEET if counts[1] else UnitType.ARMY
    location, why = lookup_location(variant, where)
    if location is None:
        raise GameError(why or f"unknown place {where.strip()!r}")
    province = variant.map.provinces[province_of(location)]
    name = variant.map.name(location)
    if province.terrain is Terrain.IMPASSABLE:
        raise GameError(f"no unit can stand in {name}: it is impassable")
    if province.terrain is Terrain.SEA and counts[0] > counts[1]:
        raise GameError(f"an army cannot stand at sea ({name})" if not counts[1] else
                        f"{designation(*counts)} cannot stand at sea ({name}): each army needs a fleet to carry it")
    if unit_type is UnitType.ARMY:
        if location != province.abbr:
            raise GameError(f"an army stands in {province.name}, not on one of its coasts: A {province.abbr}")
    else:
        places = variant.map.fleet_locations(province.abbr)
        if not places:
            raise GameError(f"a fleet cannot stand inland ({name})")
        if location not in places:
            coasts = " or ".join(f"F {p}" for p in places)
            raise GameError(f"{province.name} has {len(places)} coasts: say which a fleet is on ({coasts})")
    return Unit.of("", location, *counts, leader=leader)


def _province(variant: Variant, text: str) -> str:
    location, why = lookup_location(variant, text)
    if location is None:
        raise GameError(why or f"unknown place {text.strip()!r}")
    return province_of(location)


def _centre(variant: Variant, text: str, state: GameState | None = None) -> str:
    province = _province(variant, text)
    if not (variant.map.provinces[province].supply_centre if state is None
            else state.is_centre(variant.map.provinces, province)):
        raise GameError(f"{variant.map.name(province)} is no supply centre")
    return province


def _unit_words(variant: Variant, unit: Unit) -> str:
    return f"{unit.designation} {variant.map.name(unit.location)} ({unit.power})"


# --- the edits ----------------------------------------------------------------------------------


def set_unit(session: Session, game: Game, args: list[str]) -> Edit:
    """SET UNIT <power> <unit>: the unit on the board, replacing whatever stood in its province."""
    variant, current = variant_of(game), under_way(session, game)
    if len(args) < 3:
        raise GameError("name the power and the unit: SET UNIT <power> <unit> (SET UNIT France A Par)")
    power, rest = leading_power(variant, args)
    unit = read_unit(variant, " ".join(rest))
    unit = Unit.of(power, unit.location, unit.n_armies, unit.n_fleets, leader=unit.leader)
    state = current.state
    there = state.units.get(unit.province)
    if there == unit:
        raise GameError(f"{_unit_words(variant, unit)} is there already")
    change = f"{_unit_words(variant, unit)} set on the board"
    if there is not None:
        change += f", in place of {_unit_words(variant, there)}"
    after = state.with_(units={**state.units, unit.province: unit})
    before = f"{there} ({there.power})" if there is not None else None
    return _apply(session, game, variant, current, after, change, before, f"{unit} ({power})")


def remove_unit(session: Session, game: Game, args: list[str]) -> Edit:
    """REMOVE UNIT <location>: the unit there taken off the board; REMOVE UNIT DISLODGED <location>:
    the unit dislodged from there, in a retreat phase (its province holds the unit that
    dislodged it)."""
    variant, current = variant_of(game), under_way(session, game)
    dislodged = bool(args) and args[0].upper() == "DISLODGED"
    where = args[1:] if dislodged else args
    if not where:
        raise GameError("name the place: REMOVE UNIT <location> (REMOVE UNIT Par; REMOVE UNIT DISLODGED Bur)")
    province = _province(variant, " ".join(where))
    state = current.state
    name = variant.map.name(province)
    if dislodged:
        if province not in state.dislodged:
            raise GameError(f"no unit was dislodged from {name}")
        unit = state.dislodged[province].unit
        after = state.with_(dislodged={k: v for k, v in state.dislodged.items() if k != province})
        change = f"the dislodged {_unit_words(variant, unit)} taken off the board"
    else:
        unit = state.units.get(province)
        if unit is None:
            hint = f" (REMOVE UNIT DISLODGED {province} for the unit dislodged from it)" \
                if province in state.dislodged else ""
            raise GameError(f"there is no unit in {name}{hint}")
        after = state.with_(units={k: v for k, v in state.units.items() if k != province})
        change = f"{_unit_words(variant, unit)} taken off the board"
    return _apply(session, game, variant, current, after, change, f"{unit} ({unit.power})", None)


def set_owner(session: Session, game: Game, args: list[str]) -> Edit:
    """SET OWNER <centre> <power>|NONE: who owns a supply centre."""
    variant, current = variant_of(game), under_way(session, game)
    if len(args) < 2:
        raise GameError("name the centre and its owner: SET OWNER <centre> <power>|NONE (SET OWNER Bel France)")
    place, power = _trailing_power(variant, args)
    state = current.state
    centre = _centre(variant, " ".join(place), state)
    before = state.supply_centres.get(centre)
    name = variant.map.name(centre)
    if before == power:
        raise GameError(f"{name} is owned by {power or 'nobody'} already")
    centres = {k: v for k, v in state.supply_centres.items() if k != centre}
    if power is not None:
        centres[centre] = power
    change = f"{name} now owned by {power or 'nobody'} (was {before or 'nobody'}'s)"
    return _apply(session, game, variant, current, state.with_(supply_centres=centres), change, before, power)


def set_home(session: Session, game: Game, args: list[str]) -> Edit:
    """SET HOME <power> <centre>: a home centre more for the power (where it may build)."""
    variant, current = variant_of(game), under_way(session, game)
    if len(args) < 2:
        raise GameError("name the power and the centre: SET HOME <power> <centre> (SET HOME France Bel)")
    power, rest = leading_power(variant, args)
    centre = _centre(variant, " ".join(rest))
    state = current.state
    homes = state.home_centres.get(power, frozenset())
    name = variant.map.name(centre)
    if centre in homes:
        raise GameError(f"{name} is a home centre of {power} already")
    after = state.with_(home_centres={**state.home_centres, power: homes | {centre}})
    return _apply(session, game, variant, current, after, f"{name} now a home centre of {power}",
                  sorted(homes), sorted(homes | {centre}))


def set_centre(session: Session, game: Game, args: list[str]) -> Edit:
    """SET CENTRE <province> [<power>|NONE]: the province is a supply centre from now on, in this
    game (for a board that lacks some of its rules' centres), owned by the power named or by
    nobody."""
    variant, current = variant_of(game), under_way(session, game)
    if not args:
        raise GameError("name the province: SET CENTRE <province> [<power>|NONE] (SET CENTRE Rum NONE)")
    place, power = (_trailing_power(variant, args) if len(args) > 1 else (args, None))
    province = _province(variant, " ".join(place))
    state = current.state
    name = variant.map.name(province)
    terrain = variant.map.provinces[province].terrain
    if terrain in (Terrain.SEA, Terrain.IMPASSABLE):
        raise GameError(f"{name} cannot be a supply centre: it is {'a sea' if terrain is Terrain.SEA else 'impassable'}")
    if state.is_centre(variant.map.provinces, province):
        raise GameError(f"{name} is a supply centre already (SET OWNER changes its owner)")
    extra = dict(state.extra)
    extra[ADDED_CENTRES] = sorted({*state.extra.get(ADDED_CENTRES, ()), province})  # type: ignore[misc]
    centres = dict(state.supply_centres)
    if power is not None:
        centres[province] = power
    change = f"{name} is now a supply centre, owned by {power or 'nobody'}"
    return _apply(session, game, variant, current, state.with_(extra=extra, supply_centres=centres), change,
                  None, {"centre": province, "owner": power})


def set_control(session: Session, game: Game, args: list[str]) -> Edit:
    """SET CONTROL <minor power> <power>|NONE: who controls a minor power (Napoleonic Wars: the
    GM's choice after a power lost control, or when an uncontrolled minor power is attacked)."""
    variant, current = variant_of(game), under_way(session, game)
    state = current.state
    if not variant.rules.controllers(variant, state):
        raise GameError(f"{variant.title} has no control of minor powers")
    if len(args) < 2:
        raise GameError("name the minor power and its controller: SET CONTROL <minor power> <power>|NONE "
                        "(SET CONTROL Spain France)")
    place, power = _trailing_power(variant, args)
    minor = _exact_power(variant, " ".join(place)) or resolve_power(variant, " ".join(place))
    controllers = variant.rules.controllers(variant, state)  # the minor powers as they are now
    if minor is None or minor not in controllers:
        raise GameError(f"{' '.join(place)!r} is no minor power; they are {', '.join(controllers)}")
    if power is not None and power in controllers:
        raise GameError(f"{power} is a minor power: only a major power controls one")
    before = controllers.get(minor)
    if before == power:
        raise GameError(f"{minor} is controlled by {power or 'nobody'} already")
    after = variant.rules.with_control(variant, state, {minor: (power, 1)})
    change = f"{minor} is now controlled by {power or 'nobody'} (was {before or 'nobody'})"
    return _apply(session, game, variant, current, after, change, before, power)


def set_phase(session: Session, game: Game, args: list[str]) -> Edit:
    """SET PHASE <phase>: the season, year and kind of the current phase, the position kept. A
    retreat phase needs dislodged units; out of one, the dislodged units are gone (disbanded)."""
    variant, current = variant_of(game), under_way(session, game)
    text = " ".join(args)
    phase = read_phase(variant, text) if text.strip() else None
    if phase is None:
        raise GameError(f"{text.strip()!r} is no phase: write it like Fall 1901, F1901M, Fall 1901 retreats or W1901")
    state = current.state
    winter = phase.season is Season.WINTER
    bids = variant.rules.bidding(variant, state)
    if winter != (phase.kind is PhaseKind.ADJUSTMENT or bids and phase.kind is PhaseKind.BIDDING):
        raise GameError("adjustments and bids are in the winter, and the winter has nothing else" if bids
                        else "adjustments are in the winter, and the winter has only adjustments")
    label = variant.phase_label(phase)
    if phase == state.phase:
        raise GameError(f"the current phase is {label} already")
    if phase.kind in RETREATS and not state.dislodged:
        raise GameError(f"{label}: a retreat phase needs dislodged units, and there are none (SET UNIT cannot "
                        "dislodge one: adjudicate the movement, or ROLLBACK to it)")
    taken = session.scalar(select(GamePhase.id).where(GamePhase.game_id == game.id, GamePhase.label == label,
                                                      GamePhase.id != current.row.id))
    if taken is not None:
        raise GameError(f"{game.name} has had a phase {label} already (ROLLBACK returns to it)")
    after = state.with_(phase=phase)
    change = f"the phase is now {label} (was {current.row.label})"
    if phase.kind not in RETREATS and state.dislodged:
        gone = ", ".join(_unit_words(variant, d.unit) for _, d in sorted(state.dislodged.items()))
        after = after.with_(dislodged={}, contested=frozenset())
        change += f"; the dislodged units are disbanded: {gone}"
    before_label = current.row.label
    current.row.label = label
    return _apply(session, game, variant, current, after, change, before_label, label)


# --- writing an edit ----------------------------------------------------------------------------


def _apply(session: Session, game: Game, variant: Variant, current: CurrentPhase, state: GameState, change: str,
           before: Any, after: Any) -> Edit:
    """Store the edited position (a new dict: the JSON column is not watched in place) and
    withdraw the orders on file that no longer fit it."""
    current.row.state_json = state_to_json(state)
    edit = Edit(current.row.label, change, before, after)
    for table in (OrderRecord, SecretAllocation):
        t = table.__table__
        rows = session.execute(select(t.c.id, t.c.power, t.c.canonical)
                               .where(t.c.phase_id == current.row.id, t.c.current.is_(True)).order_by(t.c.id)).all()
        unfit = [(row_id, power, canonical) for row_id, power, canonical in rows
                 if not _fits(variant, state, power, canonical)]
        if unfit:
            session.execute(update(t).where(t.c.id.in_([u[0] for u in unfit])).values(current=False))
            edit.withdrawn += [(power, canonical) for _, power, canonical in unfit]
    return edit


def _fits(variant: Variant, state: GameState, power: str, canonical: str) -> bool:
    """Would this order be taken, as it stands, in the position `state`?"""
    parsed = parse_order(variant, canonical, power, state.phase.kind, state)
    return parsed.order is not None and check_order(variant, state, parsed.order) is None


def unissued_edits(session: Session, game: Game) -> list[AuditEntry]:
    """The edits audited since the players last learnt the position (an adjudication, a rollback,
    a REISSUE), oldest first."""
    issued = session.scalar(select(AuditEntry.id).where(AuditEntry.game_id == game.id,
                                                        AuditEntry.action.in_(ISSUED_ACTIONS))
                            .order_by(AuditEntry.id.desc()).limit(1))
    query = select(AuditEntry).where(AuditEntry.game_id == game.id, AuditEntry.action.in_(EDIT_ACTIONS))
    if issued is not None:
        query = query.where(AuditEntry.id > issued)
    return list(session.scalars(query.order_by(AuditEntry.id)))
