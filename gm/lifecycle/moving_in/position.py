"""What another judge's text says, checked against the variant: the position a game moves in with,
its players and its house rules, or every problem with it. Whatever cannot be taken as it is
refuses the whole text: the GM corrects it and tries again, and nothing is half-made."""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from gm.engine.model import RETREATS, Dislodged, GameState, Phase, PhaseKind, Season, Unit, UnitType
from gm.engine.variant import Variant
from gm.i18n import _, _n, translated
from gm.i18n import Written
from gm.lifecycle.moving_in import names, own_text
from gm.lifecycle.moving_in.found import Found, Problem, Refused, owned, said
from gm.lifecycle.phase_names import phase_name
from gm.variants import napoleonic

# Secret state a variant keeps from turn to turn, and where: Napoleonic Wars' Supply Point banks
# and loans (rule 5). The other variants keep none: their points come anew each turn.
_BANKS = {"napoleonic": (napoleonic.SP_BANK, napoleonic.SP_LOANS)}


@dataclass
class Position:
    """A game as it moves in: the position, who plays each power still in it (None: nobody), and
    what else the old judge's text gave."""

    source: str
    variant: str
    state: GameState
    players: dict[str, str | None]
    master: str | None = None
    deadline: datetime | None = None
    rules: dict[str, str] = field(default_factory=dict)  # house rules as a GM writes them
    press: str | None = None
    several_powers: bool = False  # one address played several powers on the old judge
    game: str | None = None  # the old game's name
    banks: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # read and not used

    def text(self, variant: Variant) -> str:
        """The position in gm's own lines (see own_text): what the GM is shown, and may correct."""
        return own_text.write(variant, self.state, self.players, master=self.master, banks=self.banks)


def check(variant: Variant, found: Found) -> Position:
    """The position `found` describes in `variant`; Refused with every problem when there are any."""
    problems = list(found.problems)
    phase = found.phase
    if phase is None:
        problems.append(Problem(found.phase_line, found.phase_missing))
    elif phase is not None and (why := _unplayed(variant, phase)):
        problems.append(Problem(found.phase_line, why))
    units: dict[str, Unit] = {}
    for province, (line, unit) in found.units.items():
        why = names.misplaced(variant, unit)
        if why:
            problems.append(Problem(line, why))
        units[province] = unit
    dislodged = _dislodged(variant, found, units, problems)
    if phase is not None and phase.kind in RETREATS and not dislodged and not problems:
        problems.append(Problem(found.phase_line, _("the game is in {phase}, but no unit is dislodged: the phase and "
                                                    "the position disagree", phase=phase_name(variant.phase_label(phase)))))
    if phase is not None and phase.kind not in RETREATS and dislodged:
        line = min(d[0] for d in found.dislodged.values())
        problems.append(Problem(line, _("units are dislodged, but {phase} is no retreat phase",
                                        phase=phase_name(variant.phase_label(phase)))))
    centres = _centres(variant, found, problems)
    homes = {p.name: p.home_centres for p in variant.powers.values()}
    # Without a phase the rest is still checked (as of the variant's first phase): every problem is named.
    state = GameState(phase=phase or variant.first_phase, units=units, supply_centres=centres, home_centres=homes,
                      dislodged=dislodged, extra=dict(variant.initial_state().extra))
    state = variant.rules.settle_position(variant, state)
    notes = list(found.notes)
    state = _homes(variant, found, state, problems)
    state = _secrets(variant, found, state, problems, notes)
    players, several = _players(variant, found, state, problems, notes)
    if problems or phase is None:
        raise Refused(problems)
    return Position(found.source, variant.name, state, players, found.master, found.deadline, dict(found.rules),
                    found.press, several, found.game, {p: n for p, (_line, n) in found.banks.items()
                                                       if variant.name in _BANKS}, notes)


def _unplayed(variant: Variant, phase: Phase) -> str | None:
    """Why the variant never plays `phase`; None when it does."""
    kind, season = phase.kind, phase.season
    label = phase_name(variant.phase_label(phase))
    if kind is PhaseKind.BIDDING and not variant.has_bidding:
        return _("{phase}: {variant} has no bidding phases", phase=label, variant=variant.title)
    if kind is PhaseKind.SECOND_RETREAT and not variant.rules.fleets_move_twice:
        return _("{phase}: {variant} has no second retreats", phase=label, variant=variant.title)
    if (season is Season.WINTER) != (kind in (PhaseKind.ADJUSTMENT, PhaseKind.BIDDING)):
        return _("{phase} is no phase of {variant}", phase=label, variant=variant.title)
    if variant.rules.impulses > 1 and kind is not PhaseKind.MOVEMENT:
        return _("{phase}: in {variant} a year is one turn, with its retreats and builds in it", phase=label,
                 variant=variant.title)
    return None


def _dislodged(variant: Variant, found: Found, units: dict[str, Unit], problems: list[Problem]) -> dict[str, Dislodged]:
    out = {}
    for province, (line, unit, retreats) in found.dislodged.items():
        why = names.misplaced(variant, unit)
        if why:
            problems.append(Problem(line, why))
            continue
        if not retreats:
            found.note(line, _("{unit} has nowhere to retreat: it is destroyed", unit=owned(unit)))
            continue
        reach = variant.map.army.get(province, frozenset()) if unit.type is UnitType.ARMY else \
            variant.map.fleet.get(unit.location, frozenset())
        for where in retreats:
            if (where if unit.type is UnitType.FLEET else where.split("/")[0]) not in reach:
                problems.append(Problem(line, _("{unit} cannot retreat to {place}: it is not next to it",
                                                unit=owned(unit), place=variant.map.name(where))))
            elif where.split("/")[0] in units:
                problems.append(Problem(line, _("{unit} cannot retreat to {place}: {other} stands there",
                                                unit=owned(unit), place=variant.map.name(where),
                                                other=str(units[where.split("/")[0]]))))
        if province not in units:
            problems.append(Problem(line, _("{unit} was dislodged, yet no unit took {place}", unit=owned(unit),
                                            place=variant.map.name(province))))
        out[province] = Dislodged(unit, None, tuple(retreats))
    return out


def _centres(variant: Variant, found: Found, problems: list[Problem]) -> dict[str, str]:
    if found.centres is None:
        problems.append(Problem(None, _("the text does not say who owns the supply centres: add the last 'Ownership "
                                        "of supply centers' block (a Fall's results or a LIST), or 'Centres <power>: "
                                        "<centre>, ...' lines")))
        return {}
    out = {}
    for province, (line, owner) in found.centres.items():
        if not variant.map.provinces[province].supply_centre:
            problems.append(Problem(line, _("{place} is no supply centre of {variant}", place=variant.map.name(province),
                                            variant=variant.title)))
        else:
            out[province] = owner
    return out


def _homes(variant: Variant, found: Found, state: GameState, problems: list[Problem]) -> GameState:
    """Home centres the text gives (a DPjudge HOME line, gm's 'Home' line) take the place of
    the rules' own."""
    if not found.homes:
        return state
    homes = dict(state.home_centres)
    for power, (line, centres) in found.homes.items():
        wrong = [c for c in centres if not variant.map.provinces[c].supply_centre]
        if wrong:
            problems.append(Problem(line, _("{places}: no supply centre",
                                            places=", ".join(variant.map.name(c) for c in wrong))))
        homes[power] = centres
    return state.with_(home_centres=homes)


def _secrets(variant: Variant, found: Found, state: GameState, problems: list[Problem], notes: list[str]) -> GameState:
    """Banked points and loans where the variant keeps them; control of minor powers."""
    extra = dict(state.extra)
    keys = _BANKS.get(variant.name)
    if keys is None:
        points = next((o for o in variant.rules.special_orders if o.points), None)
        why = _("{variant} keeps no points from turn to turn ({points})", variant=variant.title, points=points.what) \
            if points else _("{variant} keeps no points from turn to turn", variant=variant.title)
        if found.banks:
            lines = ", ".join(str(line) for line, _points in found.banks.values())
            banked = ", ".join(f"{power} {n}" for power, (_line, n) in found.banks.items())
            notes.append(_n("line {lines}: points banked on the old judge ({banked}), not kept: {why}",
                            "lines {lines}: points banked on the old judge ({banked}), not kept: {why}",
                            len(found.banks), lines=lines, banked=banked, why=why))
        for line, lender, borrower, n in found.loans:
            notes.append(_("line {line}: a loan of {points} from {lender} to {borrower}, not kept: {why}", line=line,
                           points=n, lender=lender, borrower=borrower, why=why))
    else:
        bank_key, loans_key = keys
        majors = variant.rules.major_powers(variant, state)
        for power, (line, n) in found.banks.items():
            if power not in majors:
                problems.append(Problem(line, _("{power} is no major power: it keeps no bank", power=power)))
        if found.banks:
            banked = dict(extra.get(bank_key, {}))  # type: ignore[call-overload]
            extra[bank_key] = {**banked, **{p: n for p, (_line, n) in found.banks.items()}}
        if found.loans:
            extra[loans_key] = [[lender, borrower, n] for _line, lender, borrower, n in found.loans]
    state = state.with_(extra=extra)
    if found.control:
        try:
            state = variant.rules.with_control(variant, state, {m: (p, years) for m, (_line, p, years)
                                                                in found.control.items()})
        except ValueError as e:
            problems.append(Problem(min(line for line, _power, _years in found.control.values()), said(e)))
    return state


def _players(variant: Variant, found: Found, state: GameState, problems: list[Problem],
             notes: list[str]) -> tuple[dict[str, str | None], bool]:
    """Who plays each great power still in the game; a power in it that the text names no player
    for (nor says nobody plays) is a problem."""
    majors = variant.rules.major_powers(variant, state)
    present = {u.power for u in state.units.values()} | set(state.supply_centres.values()) | \
        {d.unit.power for d in state.dislodged.values()}
    players: dict[str, str | None] = {}
    for power, (line, address) in found.players.items():
        if power not in majors:
            problems.append(Problem(line, _("{power} is no great power of {variant}: nobody plays it", power=power,
                                            variant=variant.title)))
        elif power not in present:
            notes.append(_("line {line}: {power} is out of the game: its player is not mailed", line=line, power=power))
        else:
            players[power] = address
    for power in majors:
        if power in present and power not in found.players:
            problems.append(Problem(None, _("no player for {power}: add 'Player {power}: <address>' (or 'Player "
                                            "{power}: none' for a power nobody plays)", power=power)))
    addresses = [a for a in players.values() if a is not None]
    several = len(addresses) != len(set(addresses))
    if several:
        shared = sorted({a for a in addresses if addresses.count(a) > 1})
        notes.append(_("{addresses} played several powers on the old judge: the game lets one address play several "
                       "powers (SET OPTION several_powers_per_address)", addresses=", ".join(shared)))
    return players, several


def summary(variant: Variant, position: Position) -> list[str]:
    """What the GM is shown before the game is made: where the text came from, the phase, each
    power's units, centres and player, and what was read and not kept (Texts, a line each)."""
    state = position.state
    phase = phase_name(variant.phase_label(state.phase))
    lines: list[str] = [
        _("{source} of {game}: {variant}, {phase}", source=position.source, game=position.game, variant=variant.title,
          phase=phase) if position.game
        else _("{source}: {variant}, {phase}", source=position.source, variant=variant.title, phase=phase)]
    if position.deadline is not None:
        deadline = position.deadline.strftime("%Y-%m-%d %H:%M %Z")
        lines.append(_("deadline on the old judge: {deadline}", deadline=deadline))
    for power in variant.rules.major_powers(variant, state):
        units, centres = len(state.units_of(power)), len(state.centres_of(power))
        if power in position.players or units or centres:
            player = position.players.get(power)
            # TRANSLATORS: a power of a game moved in: its centres, units and player
            lines.append(_indented(_("{power}: {centres} centres, {units} units; {player}", power=power,
                                     centres=centres, units=units, player=player) if player else
                                   _("{power}: {centres} centres, {units} units; nobody plays it", power=power,
                                     centres=centres, units=units)))
    minors = [p for p in variant.powers if variant.rules.is_minor(variant, state, p)]
    if minors:
        held = sum(1 for o in state.supply_centres.values() if o in minors)
        armed = sum(1 for u in state.units.values() if u.power in minors)
        lines.append(_indented(_("minor powers: {centres} centres, {units} units", centres=held, units=armed)))
    if state.dislodged:
        lines.append(_indented(_("dislodged: {units}",
                                 units=", ".join(f"{d.unit.power} {d.unit}" for d in state.dislodged.values()))))
    if position.rules or position.press:
        rules = ", ".join(f"{k} {v}" for k, v in position.rules.items())
        if rules and position.press:
            lines.append(_("house rules read: {rules}; press {press}", rules=rules, press=position.press))
        elif rules:
            lines.append(_("house rules read: {rules}", rules=rules))
        else:
            lines.append(_("house rules read: press {press}", press=position.press))
    if position.notes:
        lines.append(_("read and not kept:"))
        lines += [_indented(note) for note in position.notes]
    return lines


def _indented(text: str) -> str:
    """A line of the summary under another, in the language it is read in."""
    return Written(_indent, text)


def _indent(language: str, text: str) -> str:
    return "  " + translated(text, language)
