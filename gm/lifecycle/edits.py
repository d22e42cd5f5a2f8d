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
from gm.i18n import _
from gm.lifecycle.phase_names import phase_name, read_phase
from gm.lifecycle.timing import under_way
from gm.store.db import state_to_json
from gm.store.models import AuditEntry, Game, GamePhase, OrderRecord, SecretAllocation

# The audit actions of the edits, and those after which REISSUE has nothing left to tell: the
# players learnt the position from the results, the rollback notice or the last correction.
EDIT_ACTIONS = ("set unit", "remove unit", "set owner", "set home", "set phase", "set centre", "set control")
ISSUED_ACTIONS = ("adjudicate", "rollback", "reissue")
NONE_WORDS = ("NONE", "NOBODY", "NEUTRAL")
# TRANSLATORS: the owner of a centre, or the controller of a minor power, when there is none
_NOBODY = _("nobody")


@dataclass
class Edit:
    """One edit made to the position of `phase`: what it changed, in words for everyone (a Text),
    before and after, for the audit log, and the orders on file it withdrew (power, order) because
    they no longer fit."""

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
        raise GameError(_("{variant} has no power {name}; its great powers are {powers}", variant=variant.title,
                          name=repr(named), powers=_powers_of(variant)))
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
        raise GameError(_("{variant} has no power {name} (NONE: nobody); its great powers are {powers}",
                          variant=variant.title, name=repr(named), powers=_powers_of(variant)))
    return words[:-1], power


def read_unit(variant: Variant, text: str) -> Unit:
    """'A Par', 'F Stp/nc', 'F Spa nc', 'Fleet Spain north coast', and where the variant has
    multiple units '2A Bur', 'A/F MAO' (stacks of fleets '2F Lon', leaders 'CXII Got', 'CXII/2F
    Got' in 1700AD II) -> a unit (its power left empty), refused where no such
    unit can stand: a fleet inland, an army at sea (unless aboard a fleet of its own), a fleet's
    coast missing or wrong, an army on a coast."""
    kind, _space, where = text.strip().partition(" ")
    named, _slash, fleet_part = kind.partition("/")
    leader = variant.rules.unit_names(variant).get(named.upper(), "")  # 'CXII Got', 'CXII/2F Got' (1700AD II)
    counts = (1, (parse_designation(fleet_part) or (0, 0))[1] if fleet_part else 0) if leader else parse_designation(kind)
    if counts is None or not where.strip():
        raise GameError(_("{text} is no unit: write it as A Par, F Stp/nc or F Spa nc", text=repr(text.strip())))
    if counts not in ((1, 0), (0, 1)) and not (variant.rules.multiple_units or variant.rules.separate_fleets):
        raise GameError(_("{variant} has no multiple units: each unit is one army or one fleet", variant=variant.title))
    unit_type = UnitType.FLEET if counts[1] else UnitType.ARMY
    location, why = lookup_location(variant, where)
    if location is None:
        raise GameError(why or _("unknown place {place}", place=repr(where.strip())))
    province = variant.map.provinces[province_of(location)]
    name = variant.map.name(location)
    if province.terrain is Terrain.IMPASSABLE:
        raise GameError(_("no unit can stand in {place}: it is impassable", place=name))
    if province.terrain is Terrain.SEA and counts[0] > counts[1]:
        raise GameError(_("an army cannot stand at sea ({place})", place=name) if not counts[1] else
                        _("{unit} cannot stand at sea ({place}): each army needs a fleet to carry it",
                          unit=designation(*counts), place=name))
    if unit_type is UnitType.ARMY:
        if location != province.abbr:
            raise GameError(_("an army stands in {place}, not on one of its coasts: A {abbr}", place=province.name,
                              abbr=province.abbr))
    else:
        places = variant.map.fleet_locations(province.abbr)
        if not places:
            raise GameError(_("a fleet cannot stand inland ({place})", place=name))
        if location not in places:
            # TRANSLATORS: {coasts} is a list of fleets on each coast: 'F Spa/nc or F Spa/sc'
            raise GameError(_("{place} has {count} coasts: say which a fleet is on ({coasts})", place=province.name,
                              count=len(places), coasts=" or ".join(f"F {p}" for p in places)))
    return Unit.of("", location, *counts, leader=leader)


def _province(variant: Variant, text: str) -> str:
    location, why = lookup_location(variant, text)
    if location is None:
        raise GameError(why or _("unknown place {place}", place=repr(text.strip())))
    return province_of(location)


def _centre(variant: Variant, text: str, state: GameState | None = None) -> str:
    province = _province(variant, text)
    if not (variant.map.provinces[province].supply_centre if state is None
            else state.is_centre(variant.map.provinces, province)):
        raise GameError(_("{place} is no supply centre", place=variant.map.name(province)))
    return province


def _unit_words(variant: Variant, unit: Unit) -> str:
    return f"{unit.designation} {variant.map.name(unit.location)} ({unit.power})"


# --- the edits ----------------------------------------------------------------------------------


def set_unit(session: Session, game: Game, args: list[str]) -> Edit:
    """SET UNIT <power> <unit>: the unit on the board, replacing whatever stood in its province."""
    variant, current = variant_of(game), under_way(session, game)
    if len(args) < 3:
        raise GameError(_("name the power and the unit: SET UNIT <power> <unit> (SET UNIT France A Par)"))
    power, rest = leading_power(variant, args)
    unit = read_unit(variant, " ".join(rest))
    unit = Unit.of(power, unit.location, unit.n_armies, unit.n_fleets, leader=unit.leader)
    state = current.state
    there = state.units.get(unit.province)
    if there == unit:
        raise GameError(_("{unit} is there already", unit=_unit_words(variant, unit)))
    if there is None:
        change = _("{unit} set on the board", unit=_unit_words(variant, unit))
    else:
        change = _("{unit} set on the board, in place of {other}", unit=_unit_words(variant, unit),
                   other=_unit_words(variant, there))
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
        raise GameError(_("name the place: REMOVE UNIT <location> (REMOVE UNIT Par; REMOVE UNIT DISLODGED Bur)"))
    province = _province(variant, " ".join(where))
    state = current.state
    name = variant.map.name(province)
    if dislodged:
        if province not in state.dislodged:
            raise GameError(_("no unit was dislodged from {place}", place=name))
        unit = state.dislodged[province].unit
        after = state.with_(dislodged={k: v for k, v in state.dislodged.items() if k != province})
        change = _("the dislodged {unit} taken off the board", unit=_unit_words(variant, unit))
    else:
        unit = state.units.get(province)
        if unit is None:
            if province in state.dislodged:
                raise GameError(_("there is no unit in {place} (REMOVE UNIT DISLODGED {abbr} for the unit dislodged "
                                  "from it)", place=name, abbr=province))
            raise GameError(_("there is no unit in {place}", place=name))
        after = state.with_(units={k: v for k, v in state.units.items() if k != province})
        change = _("{unit} taken off the board", unit=_unit_words(variant, unit))
    return _apply(session, game, variant, current, after, change, f"{unit} ({unit.power})", None)


def set_owner(session: Session, game: Game, args: list[str]) -> Edit:
    """SET OWNER <centre> <power>|NONE: who owns a supply centre."""
    variant, current = variant_of(game), under_way(session, game)
    if len(args) < 2:
        raise GameError(_("name the centre and its owner: SET OWNER <centre> <power>|NONE (SET OWNER Bel France)"))
    place, power = _trailing_power(variant, args)
    state = current.state
    centre = _centre(variant, " ".join(place), state)
    before = state.supply_centres.get(centre)
    name = variant.map.name(centre)
    if before == power:
        raise GameError(_("{place} is owned by {power} already", place=name, power=power or _NOBODY))
    centres = {k: v for k, v in state.supply_centres.items() if k != centre}
    if power is not None:
        centres[centre] = power
    # TRANSLATORS: a correction of the position: 'Belgium now owned by France (was Germany's)'
    change = _("{place} now owned by {power} (was {before}'s)", place=name, power=power or _NOBODY,
               before=before or _NOBODY)
    return _apply(session, game, variant, current, state.with_(supply_centres=centres), change, before, power)


def set_home(session: Session, game: Game, args: list[str]) -> Edit:
    """SET HOME <power> <centre>: a home centre more for the power (where it may build)."""
    variant, current = variant_of(game), under_way(session, game)
    if len(args) < 2:
        raise GameError(_("name the power and the centre: SET HOME <power> <centre> (SET HOME France Bel)"))
    power, rest = leading_power(variant, args)
    centre = _centre(variant, " ".join(rest))
    state = current.state
    homes = state.home_centres.get(power, frozenset())
    name = variant.map.name(centre)
    if centre in homes:
        raise GameError(_("{place} is a home centre of {power} already", place=name, power=power))
    after = state.with_(home_centres={**state.home_centres, power: homes | {centre}})
    return _apply(session, game, variant, current, after, _("{place} now a home centre of {power}", place=name,
                                                            power=power),
                  sorted(homes), sorted(homes | {centre}))


def set_centre(session: Session, game: Game, args: list[str]) -> Edit:
    """SET CENTRE <province> [<power>|NONE]: the province is a supply centre from now on, in this
    game (for a board that lacks some of its rules' centres), owned by the power named or by
    nobody."""
    variant, current = variant_of(game), under_way(session, game)
    if not args:
        raise GameError(_("name the province: SET CENTRE <province> [<power>|NONE] (SET CENTRE Rum NONE)"))
    place, power = (_trailing_power(variant, args) if len(args) > 1 else (args, None))
    province = _province(variant, " ".join(place))
    state = current.state
    name = variant.map.name(province)
    terrain = variant.map.provinces[province].terrain
    if terrain in (Terrain.SEA, Terrain.IMPASSABLE):
        raise GameError(_("{place} cannot be a supply centre: it is a sea", place=name) if terrain is Terrain.SEA
                        else _("{place} cannot be a supply centre: it is impassable", place=name))
    if state.is_centre(variant.map.provinces, province):
        raise GameError(_("{place} is a supply centre already (SET OWNER changes its owner)", place=name))
    extra = dict(state.extra)
    extra[ADDED_CENTRES] = sorted({*state.extra.get(ADDED_CENTRES, ()), province})  # type: ignore[misc]
    centres = dict(state.supply_centres)
    if power is not None:
        centres[province] = power
    change = _("{place} is now a supply centre, owned by {power}", place=name, power=power or _NOBODY)
    return _apply(session, game, variant, current, state.with_(extra=extra, supply_centres=centres), change,
                  None, {"centre": province, "owner": power})


def set_control(session: Session, game: Game, args: list[str]) -> Edit:
    """SET CONTROL <minor power> <power>|NONE: who controls a minor power (Napoleonic Wars: the
    GM's choice after a power lost control, or when an uncontrolled minor power is attacked)."""
    variant, current = variant_of(game), under_way(session, game)
    state = current.state
    if not variant.rules.controllers(variant, state):
        raise GameError(_("{variant} has no control of minor powers", variant=variant.title))
    if len(args) < 2:
        raise GameError(_("name the minor power and its controller: SET CONTROL <minor power> <power>|NONE "
                          "(SET CONTROL Spain France)"))
    place, power = _trailing_power(variant, args)
    minor = _exact_power(variant, " ".join(place)) or resolve_power(variant, " ".join(place))
    controllers = variant.rules.controllers(variant, state)  # the minor powers as they are now
    if minor is None or minor not in controllers:
        raise GameError(_("{name} is no minor power; they are {powers}", name=repr(" ".join(place)),
                          powers=", ".join(controllers)))
    if power is not None and power in controllers:
        raise GameError(_("{power} is a minor power: only a major power controls one", power=power))
    before = controllers.get(minor)
    if before == power:
        raise GameError(_("{minor} is controlled by {power} already", minor=minor, power=power or _NOBODY))
    after = variant.rules.with_control(variant, state, {minor: (power, 1)})
    change = _("{minor} is now controlled by {power} (was {before})", minor=minor, power=power or _NOBODY,
               before=before or _NOBODY)
    return _apply(session, game, variant, current, after, change, before, power)


def set_phase(session: Session, game: Game, args: list[str]) -> Edit:
    """SET PHASE <phase>: the season, year and kind of the current phase, the position kept. A
    retreat phase needs dislodged units; out of one, the dislodged units are gone (disbanded)."""
    variant, current = variant_of(game), under_way(session, game)
    text = " ".join(args)
    phase = read_phase(variant, text) if text.strip() else None
    if phase is None:
        raise GameError(_("{text} is no phase: write it like Fall 1901, F1901M, Fall 1901 retreats or W1901",
                          text=repr(text.strip())))
    state = current.state
    winter = phase.season is Season.WINTER
    bids = variant.rules.bidding(variant, state)
    if winter != (phase.kind is PhaseKind.ADJUSTMENT or bids and phase.kind is PhaseKind.BIDDING):
        raise GameError(_("adjustments and bids are in the winter, and the winter has nothing else") if bids
                        else _("adjustments are in the winter, and the winter has only adjustments"))
    label = variant.phase_label(phase)
    if phase == state.phase:
        raise GameError(_("the current phase is {phase} already", phase=phase_name(label)))
    if phase.kind in RETREATS and not state.dislodged:
        raise GameError(_("{phase}: a retreat phase needs dislodged units, and there are none (SET UNIT cannot "
                          "dislodge one: adjudicate the movement, or ROLLBACK to it)", phase=phase_name(label)))
    taken = session.scalar(select(GamePhase.id).where(GamePhase.game_id == game.id, GamePhase.label == label,
                                                      GamePhase.id != current.row.id))
    if taken is not None:
        raise GameError(_("{game} has had a phase {phase} already (ROLLBACK returns to it)", game=game.name,
                          phase=phase_name(label)))
    after = state.with_(phase=phase)
    change = _("the phase is now {phase} (was {before})", phase=phase_name(label), before=phase_name(current.row.label))
    if phase.kind not in RETREATS and state.dislodged:
        gone = ", ".join(_unit_words(variant, d.unit) for _province, d in sorted(state.dislodged.items()))
        after = after.with_(dislodged={}, contested=frozenset())
        change = _("the phase is now {phase} (was {before}); the dislodged units are disbanded: {units}",
                   phase=phase_name(label), before=phase_name(current.row.label), units=gone)
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
            edit.withdrawn += [(power, canonical) for _row, power, canonical in unfit]
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
