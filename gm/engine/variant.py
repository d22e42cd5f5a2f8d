"""A variant as the engine sees it: a map, its powers, a starting position, and its rules: the
hooks a variant may override (Rules; the base class plays standard Diplomacy). Each variant's
rules module in gm/variants subclasses Rules and overrides only what differs."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping, Sequence

from gm.engine.graph import GameMap
from gm.engine.model import GameState, Phase, PhaseKind, Season, Unit
from gm.engine.orders import Allocation, Bid, Blockade, Build, Convert, DeclareHome, Loan, Order, Promote
from gm.engine.results import OrderResult, Result
from gm.i18n import _

@dataclass(frozen=True, slots=True)
class Power:
    name: str  # as players write it: 'England', 'Denmark-Norway'
    adjective: str = ""
    aliases: tuple[str, ...] = ()
    home_centres: frozenset[str] = frozenset()
    minor: bool = False  # a minor power owns units but is ordered only through point allocations
    colour: str = ""  # '#rrggbb', the rulebook's colour for its units on the map
    traits: Mapping[str, object] = field(default_factory=dict)  # what a variant's rules read: religion, ...


@dataclass(frozen=True, slots=True)
class LocalName:
    """A province's or a power's name in another language, as its players write it."""

    name: str
    abbr: str = ""  # a province's abbreviation in the language ('' : none of its own)
    adjective: str = ""  # a power's: 'français'
    aliases: tuple[str, ...] = ()  # other names and abbreviations in use


@dataclass(frozen=True, slots=True)
class Language:
    """A variant's names in one language (maps/<variant>/languages/<code>.toml)."""

    code: str  # 'fr'
    provinces: Mapping[str, LocalName]  # by the map's abbreviation: 'BUR'
    powers: Mapping[str, LocalName]  # by the variant's power name: 'France'


@dataclass(frozen=True, slots=True)
class SpecialOrder:
    """An order a variant adds to Diplomacy's, as its players are told of it (the start mail, what
    a phase asks of them): data a variant's rules carry in Rules.special_orders."""

    syntax: str  # 'DP <n> <order>'
    what: str  # what it does and what it costs, in a sentence or two (a Text)
    example: str = ""  # 'DP 2 A SAV S A TUS'
    phases: tuple[PhaseKind, ...] = ()  # the phases it is given in; () in every phase
    points: str = ""  # the secret points it spends ('DP', 'IP'): so many as Rules.points_available
    fact: str = ""  # a [facts] entry naming the powers it is for ('' for every power)


@dataclass
class Variant:
    name: str  # registry key: 'standard', 'classical'
    title: str
    map: GameMap
    powers: dict[str, Power]
    starting_units: tuple[Unit, ...]
    starting_centres: dict[str, str]  # province -> power
    first_phase: Phase
    victory_centres: int
    rules: Rules
    docs: str = ""  # path of the variant's rules notes, for HELP and the README
    facts: dict[str, object] = field(default_factory=dict)  # extra data a rules module reads
    notes: tuple[str, ...] = ()  # what every player is told of the variant when a game starts
    languages: dict[str, Language] = field(default_factory=dict)  # its names in other languages, by code

    @property
    def great_powers(self) -> list[str]:
        return [p.name for p in self.powers.values() if not p.minor]

    def initial_state(self) -> GameState:
        return GameState(
            phase=self.first_phase,
            units={u.province: u for u in (*self.starting_units, *self.rules.initial_units(self))},
            supply_centres=dict(self.starting_centres),
            home_centres={p.name: p.home_centres for p in self.powers.values()},
        )

    @property
    def has_bidding(self) -> bool:
        """Do its winters end with bids for minor powers (a deadline of their own)?"""
        return self.rules.bidding(self, self.initial_state())

    def phase_label(self, phase: Phase) -> str:
        """'Spring 1901, Movement' or, in Classical, 'Spring 273 BC, Movement'; where a turn is a
        year of impulses (1700AD II), 'Year 1700'."""
        if self.rules.impulses > 1 and phase.kind is PhaseKind.MOVEMENT:
            return f"Year {self.rules.year_label(phase.year)}"
        return f"{phase.season.value} {self.rules.year_label(phase.year)}, {phase.kind.value}"


def movement(season: Season, year: int) -> Phase:
    return Phase(year, season, PhaseKind.MOVEMENT)


# --- the rules -----------------------------------------------------------------------------------

NO_CROSSINGS_CLOSED: Mapping[tuple[str, str], str] = {}
NO_PASSAGES: Mapping[frozenset[str], str] = {}
NO_GARRISONS: Mapping[str, int] = {}
NO_NAMED_UNITS: Mapping[str, str] = {}
# Orders for no unit: allocations, bids, Supply Point orders, declarations, promotions.
SIDE_ORDERS = frozenset({Allocation, Bid, Loan, Convert, DeclareHome, Promote})


def _no_side_orders(variant: Variant, order: Order) -> str:
    """Why a variant without them refuses an order for no unit."""
    kind, title = type(order), variant.title
    if kind is Allocation:
        return _("{variant} has no point allocations", variant=title)
    if kind is Bid:
        return _("{variant} has no bids for minor powers", variant=title)
    if kind is DeclareHome:
        return _("{variant} has no home declarations", variant=title)
    if kind is Promote:
        return _("{variant} has no promotions of minor powers", variant=title)
    return _("{variant} has no Supply Points", variant=title)  # LOAN, CONVERT


class Rules:
    """Standard Diplomacy. A variant's rules module subclasses this and overrides only what differs."""

    # Why games of the variant cannot be started yet ('' when they can): a map whose rules the
    # judge does not play yet is shipped for its map tools only.
    unfinished = ""

    # The orders the variant adds to Diplomacy's, as players are told of them: none in standard.
    special_orders: tuple[SpecialOrder, ...] = ()

    # Minor powers' units are ordered only through points (A&E's DPs), never directly, not even by
    # the GM; where False (Napoleonic Wars) their controller orders them, and the GM may.
    minors_ordered_by_points = True

    # --- calendar -------------------------------------------------------------------------------
    def year_label(self, year: int) -> str:
        return str(year)

    def parse_year(self, text: str) -> int | None:
        """The inverse of year_label; None when `text` is no year."""
        return int(text) if re.fullmatch(r"\d{1,5}", text.strip()) else None

    # --- powers ---------------------------------------------------------------------------------
    def is_minor(self, variant: Variant, state: GameState, power: str) -> bool:
        """A minor power owns units and centres but gives no orders of its own and never adjusts."""
        p = variant.powers.get(power)
        return p is not None and p.minor

    def major_powers(self, variant: Variant, state: GameState) -> list[str]:
        """The powers players play in this position: the variant's great powers, unless the rules
        let a minor power become major (Napoleonic Wars, rule 12)."""
        return variant.great_powers

    def power_changes(self, variant: Variant, before: GameState, after: GameState) -> dict[str, str]:
        """Major power -> the power its player plays from now on, where the phase from `before`
        to `after` changed it (a promotion); none in standard Diplomacy."""
        return {}

    def commander(self, variant: Variant, state: GameState, power: str) -> str | None:
        """The power whose player gives `power`'s unit orders: itself, or None for a minor power
        ordered only through points (A&E); in Napoleonic Wars, the major power controlling it."""
        return None if self.is_minor(variant, state, power) else power

    def controllers(self, variant: Variant, state: GameState) -> dict[str, str | None]:
        """Minor power -> the power controlling it (None: nobody), where the variant has control
        of minor powers (public, shown in every results mail); empty elsewhere."""
        return {}

    def with_control(self, variant: Variant, state: GameState, control: Mapping[str, tuple[str | None, int]]) -> GameState:
        """The position with minor powers controlled as given (minor -> (controller, years)): for
        test cases and GM edits. Only variants with control of minor powers accept it."""
        raise ValueError(_("{variant} has no control of minor powers", variant=variant.title))

    def public_notes(self, variant: Variant, before: GameState, after: GameState) -> list[str]:
        """What the rules did in this phase that every player is told, in words (a power losing
        control of a minor power, say); none in standard Diplomacy."""
        return []

    def adjusts(self, variant: Variant, state: GameState, power: str) -> bool:
        """Does `power` build and remove units in winter? Minor powers do not by default: the
        rules restore their units."""
        return not self.is_minor(variant, state, power)

    def unit_allowance(self, variant: Variant, state: GameState, power: str, centres: int) -> int:
        """How many units `power` may keep with `centres` supply centres: one each."""
        return centres

    def points_available(self, variant: Variant, state: GameState, power: str) -> int | None:
        """Secret points (DPs, IPs) `power` may allocate this turn; None where the variant has none."""
        return None

    def points_balance(self, variant: Variant, state: GameState, power: str,
                       on_file: Sequence[tuple[str, int]]) -> tuple[int | None, int]:
        """The secret points `power` may spend this phase, given its secret orders on file
        (canonical text, points), and how many of them those orders spend."""
        return self.points_available(variant, state, power), sum(n for _text, n in on_file)

    def private_status(self, variant: Variant, state: GameState, power: str) -> list[str]:
        """What only `power` (and the GM) may know of its own position, a line each (Supply
        Points banked, say): shown in its acknowledgements. None in standard Diplomacy."""
        return []

    def private_notes(self, variant: Variant, before: GameState, after: GameState) -> dict[str, list[str]]:
        """Power -> what the phase did that only it (and the GM) may know: shown with its own
        secret orders in the results."""
        return {}

    def stationary_powers(self, variant: Variant, state: GameState) -> frozenset[str]:
        """Powers whose units never leave their space: a move of theirs is a sortie that always
        bounces, though it still cuts supports and stands off other units."""
        return frozenset()

    # --- every phase ----------------------------------------------------------------------------
    def prepare(
        self, variant: Variant, state: GameState, orders: Sequence[Order]
    ) -> tuple[GameState, list[Order], list[OrderResult]]:
        """Turn what the powers sent into orders for units, before the phase is resolved.

        Returns the position to resolve, the orders for units, and the results of everything
        that is no unit's order (secret point allocations, declarations). Variants with minor
        powers turn allocations into the minor powers' orders here. Standard Diplomacy has
        nothing to turn, and no allocations or declarations to accept.
        """
        if not SIDE_ORDERS.intersection(map(type, orders)):  # the usual case, checked at C speed
            return state, list(orders), []
        unit_orders = [o for o in orders if type(o) not in SIDE_ORDERS]
        refused = [OrderResult(o, Result.VOID, _no_side_orders(variant, o)) for o in orders if type(o) in SIDE_ORDERS]
        return state, unit_orders, refused

    # --- movement -------------------------------------------------------------------------------
    def blocked_moves(self, variant: Variant, state: GameState) -> Mapping[tuple[str, str], str]:
        """Crossings (from, to) closed in this position to every power but the one named."""
        return NO_CROSSINGS_CLOSED

    # Fleets may move a second time after all first moves and their retreats (TwoPhase orders).
    fleets_move_twice = False

    # Multiple units (Multiplicity): a power's armies and fleets may stand together in one space as
    # one unit ('2A', 'A/F'), which fights with their combined strength, merges, splits, embarks
    # armies on its fleets and lands them (gm/engine/multiple.py).
    multiple_units = False
    # Convoys cross one sea only (the A/F rules' fast ferry); farther, an army embarks.
    convoy_one_sea = False
    # Armies aboard at sea at the end of this many turns in a row starve (the A/F rules' rations);
    # None: they may stay at sea for ever.
    rations: int | None = None

    # Impulses in a movement turn (1700AD II: 2). With more than one, a turn is a year: each
    # unit's order is a sequence of steps (Steps) spending impulse points, retreats, builds and
    # removals are ordered with the moves and made in the same adjudication, and centres change
    # hands every turn (gm/engine/impulses.py).
    impulses = 1
    # May a fleet take a supply centre? (1700AD II, rule 8: fleets "may not occupy a supply
    # centre for supply purposes".)
    fleets_take_centres = True

    # Fleets stand apart from land units (1700AD II, rule 8): they fight only fleets, exert no
    # influence on land units, share a coast with their power's land unit and stand only in
    # friendly coasts; each impulse is resolved for the fleets, then for the land units.
    separate_fleets = False
    # Fleets one supply centre keeps, and builds and removes at a time (1700AD II, rule 8: 2).
    fleets_per_centre = 1
    # Units out of supply at the end of a turn are disbanded (1700AD II, rule 9).
    supply_lines = False

    def fleet_stack(self, variant: Variant, province: str) -> int | None:
        """How many fleets of a power may stand in `province` (None: no limit)."""
        return 1

    def territory(self, variant: Variant) -> Mapping[str, str]:
        """Land space -> the power it belongs to when the game starts (whose fleets may stand in
        it until another power's land unit does). Only read where fleets stand apart."""
        return {}

    def impulse_points(self, variant: Variant, unit: Unit) -> int:
        """The points `unit` may spend in a turn of impulses: one for each impulse."""
        return self.impulses

    def initial_units(self, variant: Variant) -> list[Unit]:
        """Units the game starts with besides the variant's armies and fleets (leaders)."""
        return []

    def unit_names(self, variant: Variant) -> Mapping[str, str]:
        """Names players may write for a named army instead of 'A' (a leader's name or
        abbreviation, upper case) -> its abbreviation (Unit.leader). None in standard Diplomacy."""
        return NO_NAMED_UNITS

    def garrisons(self, variant: Variant) -> Mapping[str, int]:
        """Spaces that defend themselves with this strength until a unit first occupies them
        (armed neutrals); any power may support a garrison. None in standard Diplomacy."""
        return NO_GARRISONS

    def rough_spaces(self, variant: Variant) -> frozenset[str]:
        """Spaces whose border takes two impulses to cross at single strength, and where a unit
        holds with double strength (Switzerland in 1700AD II). None in standard Diplomacy."""
        return frozenset()

    def passages(self, variant: Variant) -> Mapping[frozenset[str], str]:
        """Direct passages for armies that a fleet in the sea they cross may deny (X orders):
        {the two land spaces: the sea}. None in standard Diplomacy."""
        return NO_PASSAGES

    def blockade_refusal(self, variant: Variant, state: GameState, order: Blockade) -> str:
        """Why a fleet may not blockade `order.target` now ('' when it may)."""
        return _("{variant} has no blockades", variant=variant.title)

    def after_movement(self, variant: Variant, state: GameState, results: Sequence[OrderResult]) -> GameState:
        """The position a movement phase was played from, with what its results leave behind for
        later phases (blockades that held, say); the engine moves the units."""
        return state

    def may_retreat(self, variant: Variant, state: GameState, unit: Unit) -> bool:
        """False for units that are destroyed rather than retreat when dislodged."""
        return True

    # --- end of a turn --------------------------------------------------------------------------
    def after_spring(self, variant: Variant, before: GameState, after: GameState) -> GameState:
        """Called once a Spring turn (with its retreats) is over; `before` is the position at the
        start of the Spring movement."""
        return after

    # --- end of a year --------------------------------------------------------------------------
    def after_fall(self, variant: Variant, before: GameState, after: GameState) -> GameState:
        """Called once supply-centre ownership has changed at the end of a Fall turn; `before` is
        the position at the start of the Fall movement."""
        return after

    def winter_units(self, variant: Variant, state: GameState) -> list[Unit]:
        """Units the rules place in the winter without anyone's order (minor powers' units coming
        back). A winter phase is held when there are any."""
        return []

    def winter_pending(self, variant: Variant, state: GameState) -> bool:
        """True when a power has something to declare in the winter (a winter phase is held)."""
        return bool(self.winter_choices(variant, state))

    def winter_choices(self, variant: Variant, state: GameState) -> dict[str, str]:
        """Power -> what it has to declare this winter, besides builds and removals, in words for
        a reminder ('a HOME declaration: Courland or Livonia'). Without one the rules choose."""
        return {}

    # --- adjustments ----------------------------------------------------------------------------
    def build_sites(self, variant: Variant, state: GameState, power: str, built: Sequence[str] = ()) -> set[str]:
        """Provinces where `power` may build this winter, before the vacancy check, given the
        provinces it has already built in this winter."""
        homes = state.home_centres.get(power, frozenset())
        return {p for p in homes if state.supply_centres.get(p) == power}

    def max_builds(self, variant: Variant, state: GameState, power: str) -> int | None:
        return None

    def build_refusal(self, variant: Variant, state: GameState, order: Build) -> str:
        """Why the rules bar this build at one of the power's build sites ('' when they do not):
        some sites take only one kind of unit."""
        return ""

    def bidding(self, variant: Variant, state: GameState) -> bool:
        """Does the winter end with a phase of secret bids for minor powers (after adjustments)?"""
        return False

    def after_winter(self, variant: Variant, state: GameState, results: list[OrderResult]) -> GameState:
        """Called with the position after the adjustments and their results."""
        return state

    def winner(self, variant: Variant, state: GameState) -> str | None:
        """The power that has won once centre ownership is settled, or None."""
        counts: dict[str, int] = {}
        for owner in state.supply_centres.values():
            counts[owner] = counts.get(owner, 0) + 1
        leaders = [p for p, n in counts.items() if n >= variant.victory_centres]
        return leaders[0] if len(leaders) == 1 else None

    def end_years(self, variant: Variant) -> tuple[int, ...]:
        """The only years the GM may end the game in (SET OPTION last_year); () where any."""
        return ()

    def winner_at_end(self, variant: Variant, state: GameState) -> str | None:
        """Who wins when the game ends in a year the GM fixed: the one power ahead by
        end_scores; None on a tie."""
        scores = self.end_scores(variant, state)
        best = max(scores.values(), default=0)
        leaders = [p for p, n in scores.items() if n == best]
        return leaders[0] if len(leaders) == 1 else None

    def end_scores(self, variant: Variant, state: GameState) -> dict[str, int]:
        """Power -> what ranks it when the GM ends the game: the centres it owns."""
        counts: dict[str, int] = {}
        for owner in state.supply_centres.values():
            counts[owner] = counts.get(owner, 0) + 1
        return counts

    def settle_position(self, variant: Variant, state: GameState) -> GameState:
        """Fill in what the rules derive from a position given without its history (a test case,
        a game taken over mid-way): home centres gained in play, for instance."""
        return state

    # --- game master ----------------------------------------------------------------------------
    def permanent_civil_disorder(self, variant: Variant, state: GameState, power: str) -> bool:
        """True when the rules have put `power` out of the game for good (its player can never
        come back). Standard Diplomacy has no such rule."""
        return False

    def declare_civil_disorder(self, variant: Variant, state: GameState, power: str) -> GameState:
        """The GM declares `power` in permanent civil disorder. Standard Diplomacy has no such
        rule: the power's units simply receive no orders."""
        return state
