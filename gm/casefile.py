"""The DATC case-file format of jDip and godip: read cases, run them through the engine, report.

A case file is line oriented; `#` starts a comment anywhere. Sections:

    VARIANT_ALL <name>                      variant for the cases that follow ('Standard')
    CASE <id> [title]
    PRESTATE_SETPHASE <Season> <year>, <Movement|Retreat|Adjustment|Bidding>
    PRESTATE_SUPPLYCENTER_OWNERS            <Power>: [A|F] <prov>   (replaces the whole ownership)
    PRESTATE_HOME_CENTERS                   <Power>: <prov> <prov> ...  (else the variant's, plus what its rules derive)
    PRESTATE_CIVIL_DISORDER                 <Power>  (declared in permanent civil disorder before the phase)
    PRESTATE_CONTROL                        <Minor power>: <Power> [<years>]  (who controls it, for how long)
    PRESTATE                                <Power>: <A|F> <location>
    PRESTATE_DISLODGED                      <Power>: <A|F> <location>
    PRESTATE_RESULTS                        SUCCESS:|FAILURE: <Power>: <order>
    ORDERS                                  <Power>: <order text>
    POSTSTATE | POSTSTATE_SAME              expected units after the phase
    POSTSTATE_DISLODGED                     expected dislodged units (those that may retreat at least)
    POSTSTATE_CONTROL                       <Minor power>: <Power>|nobody  (expected control after the phase)
    POSTSTATE_SUPPLYCENTER_OWNERS           <Power>|nobody: <prov> ...  (expected owners of the centres listed)
    END

Conventions (those of the jDip test suite the format comes from):
- Without PRESTATE_SETPHASE a case starts in the variant's first phase.
- "Fall 1901, Adjustment" is the adjustment phase after Fall 1901 (the engine calls it Winter).
- PRESTATE_SUPPLYCENTER_OWNERS, when present, is the whole ownership: centres not listed are
  unowned (DATC 6.I and 6.J rely on this). Without it the variant's starting ownership is used.
- POSTSTATE_DISLODGED lists the dislodged units. Every unit that may retreat must be listed; a
  unit destroyed for want of a retreat may be (the project's files list it, as the DATC counts it
  dislodged; the jDip and godip files leave it out). Without the section nothing is expected.
- In a retreat phase, PRESTATE_RESULTS (the previous movement's results) give each dislodged
  unit's attacker (the successful move into its province, unless made by convoy) and the
  contested provinces (empty provinces two or more failed moves tried to enter).
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable

from gm.engine.adjudicator import Adjudication, adjudicate
from gm.engine.model import RETREATS, Dislodged, GameState, Phase, PhaseKind, Season, Unit, UnitType, parse_designation, province_of
from gm.engine.orders import Convoy, Move, Order, Step, Steps, TwoPhase
from gm.engine.parse import order_texts, parse_order, resolve_location, resolve_power
from gm.engine.retreat import retreat_options
from gm.engine.results import OrderResult
from gm.engine.variant import Variant
from gm.variants import VariantError, canonical_name, load_variant


SECTIONS = (
    "PRESTATE_SETPHASE",
    "PRESTATE_SUPPLYCENTER_OWNERS",
    "PRESTATE_HOME_CENTERS",
    "PRESTATE_CIVIL_DISORDER",
    "PRESTATE_CONTROL",
    "PRESTATE_DISLODGED",
    "PRESTATE_RESULTS",
    "PRESTATE",
    "ORDERS",
    "POSTSTATE_SAME",
    "POSTSTATE_DISLODGED",
    "POSTSTATE_CONTROL",
    "POSTSTATE_SUPPLYCENTER_OWNERS",
    "POSTSTATE",
)
_COAST_PARENS = re.compile(r"\s*\(\s*([a-z]{1,2})\s*\)\s*$", re.IGNORECASE)
DATC_NUMBER = re.compile(r"^(6\.[A-Z]\.\d+)(?:\.part\d+)?$", re.IGNORECASE)


class CaseFileError(ValueError):
    """A case file that cannot be read: names the file and line."""


# --------------------------------------------------------------------------------------- the data
@dataclass
class Case:
    id: str
    title: str
    variant: Variant
    source: str  # 'file:line' of the CASE line
    phase: Phase
    prestate: list[Unit] = field(default_factory=list)
    prestate_dislodged: list[Unit] = field(default_factory=list)
    centre_owners: dict[str, str] | None = None  # province -> power, when stated
    home_centres: dict[str, frozenset[str]] | None = None  # power -> provinces, when stated
    civil_disorder: list[str] = field(default_factory=list)  # powers the GM has declared in permanent civil disorder
    control: dict[str, tuple[str, int]] = field(default_factory=dict)  # minor power -> (controller, years)
    poststate_control: dict[str, str | None] | None = None  # None: not stated
    results: list[tuple[bool, Order]] = field(default_factory=list)  # (succeeded, order)
    orders: list[tuple[str, str]] = field(default_factory=list)  # (power, order text) as written
    poststate: list[Unit] | None = None  # None: not stated
    poststate_same: bool = False
    poststate_dislodged: list[Unit] | None = None  # None: section absent (nothing expected)
    poststate_owners: dict[str, str | None] | None = None  # centre -> expected owner (None: nobody)

    @property
    def expected_units(self) -> list[Unit] | None:
        return list(self.prestate) if self.poststate_same else self.poststate

    @property
    def datc_number(self) -> str | None:
        """'6.J.9' for '6.J.9.part1'; None for ids that are no DATC section-6 number."""
        m = DATC_NUMBER.match(self.id)
        return m.group(1).upper() if m else None


@dataclass
class OrderEntry:
    """One line of ORDERS: the parsed order, or why it could not be parsed."""

    power: str
    text: str
    order: Order | None
    error: str | None


@dataclass
class CaseRun:
    case: Case
    state: GameState
    entries: list[OrderEntry]
    adjudication: Adjudication | None = None
    error: str | None = None  # the engine raised: the exception, as text

    @property
    def variant(self) -> Variant:
        return self.case.variant


# ------------------------------------------------------------------------------------------ reading
def read_cases(path: str | Path) -> list[Case]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        text = path.read_text(encoding="latin-1")
    return parse_cases(text, str(path))


def parse_cases(text: str, filename: str = "<text>") -> list[Case]:
    return _Reader(filename).read(text)


def _strip_comment(line: str) -> str:
    hash_at = line.find("#")
    return (line if hash_at < 0 else line[:hash_at]).strip()


class _Reader:
    def __init__(self, filename: str):
        self.filename = filename
        self.variant_name = "standard"
        self.cases: list[Case] = []
        self.lineno = 0
        self.section: str | None = None  # the section being read

    def fail(self, message: str) -> CaseFileError:
        return CaseFileError(f"{self.filename}:{self.lineno}: {message}")

    def read(self, text: str) -> list[Case]:
        case: Case | None = None
        section: str | None = None
        for self.lineno, raw in enumerate(text.splitlines(), start=1):
            line = _strip_comment(raw)
            if not line:
                continue
            word, _, rest = line.partition(" ")
            keyword = word.upper()
            if keyword == "VARIANT_ALL":
                if case is not None:
                    raise self.fail("VARIANT_ALL inside a case")
                try:
                    self.variant_name = canonical_name(rest.strip() or "?")
                except VariantError as e:
                    raise self.fail(str(e)) from None
                continue
            if keyword == "CASE":
                if case is not None:
                    raise self.fail(f"CASE {rest.strip()} begins before case {case.id} has its END")
                case = self.begin(rest.strip())
                section = None
                continue
            if case is None:
                raise self.fail(f"{line!r} is outside a case (CASE ... END)")
            if keyword == "END":
                self.finish(case)
                case, section = None, None
                continue
            if keyword in SECTIONS:
                section = keyword
                if keyword == "PRESTATE_SETPHASE":
                    case.phase = self.phase(case.variant, rest)
                    section = None
                elif keyword == "POSTSTATE_SAME":
                    case.poststate_same = True
                    section = None
                elif keyword == "POSTSTATE":
                    case.poststate = []
                elif keyword == "POSTSTATE_DISLODGED":
                    case.poststate_dislodged = []
                elif keyword == "POSTSTATE_CONTROL":
                    case.poststate_control = {}
                elif keyword == "POSTSTATE_SUPPLYCENTER_OWNERS":
                    case.poststate_owners = {}
                elif keyword == "PRESTATE_SUPPLYCENTER_OWNERS":
                    case.centre_owners = {}
                elif keyword == "PRESTATE_HOME_CENTERS":
                    case.home_centres = {}
                if rest.strip() and section is not None:
                    raise self.fail(f"unexpected text after {keyword}: {rest.strip()!r}")
                continue
            if section is None:
                raise self.fail(f"{line!r} is in no section (expected one of {', '.join(SECTIONS)} or END)")
            self.section = section
            self.section_line(case, section, line)
        if case is not None:
            raise self.fail(f"case {case.id} has no END")
        return self.cases

    def begin(self, rest: str) -> Case:
        if not rest:
            raise self.fail("CASE needs an id")
        ident, _, title = rest.partition(" ")
        ident = ident.rstrip(".:")
        title = title.strip()
        if title.startswith("(") and title.endswith(")"):
            title = title[1:-1].strip()
        try:
            variant = load_variant(self.variant_name)
        except (VariantError, OSError) as e:
            raise self.fail(f"cannot load variant {self.variant_name!r}: {e}") from None
        return Case(
            id=ident,
            title=title,
            variant=variant,
            source=f"{self.filename}:{self.lineno}",
            phase=variant.first_phase,
        )

    def finish(self, case: Case) -> None:
        if case.poststate is not None and case.poststate_same:
            raise self.fail(f"case {case.id} has both POSTSTATE and POSTSTATE_SAME")
        self.cases.append(case)

    # ------------------------------------------------------------------ lines of the sections
    def phase(self, variant: Variant, text: str) -> Phase:
        m = re.fullmatch(r"\s*([A-Za-z]+)\s+(.+?)\s*,\s*([A-Za-z]+)\s*", text)
        if not m:
            raise self.fail(f"phase {text.strip()!r} is not '<Season> <year>, <Movement|Retreat|Adjustment>'")
        season_text, year_text, kind_text = m.groups()
        seasons = {s.value.lower(): s for s in Season} | {"autumn": Season.FALL}
        kinds = {k.value.lower(): k for k in PhaseKind} | {"build": PhaseKind.ADJUSTMENT, "builds": PhaseKind.ADJUSTMENT}
        season = seasons.get(season_text.lower())
        kind = kinds.get(kind_text.lower())
        year = variant.rules.parse_year(year_text)
        if season is None:
            raise self.fail(f"unknown season {season_text!r}")
        if kind is None:
            raise self.fail(f"unknown phase kind {kind_text!r}")
        if year is None:
            raise self.fail(f"{year_text!r} is no year of {variant.name}")
        if kind in (PhaseKind.ADJUSTMENT, PhaseKind.BIDDING):
            season = Season.WINTER  # 'Fall 1901, Adjustment' in jDip's words
        elif season is Season.WINTER:
            raise self.fail("only adjustment and bidding phases are in winter")
        return Phase(year, season, kind)

    def power_and_rest(self, variant: Variant, line: str) -> tuple[str, str]:

        head, colon, rest = line.partition(":")
        if not colon:  # tolerate 'Italy F gol'
            head, _, rest = line.partition(" ")
        power = resolve_power(variant, head.strip())
        if power is None and self.section in ("POSTSTATE", "POSTSTATE_DISLODGED") and head.strip():
            # A power the game made (a new minor power after civil disorder), by its exact name.
            return head.strip(), rest.strip()
        if power is None:
            known = ", ".join(variant.powers)
            raise self.fail(f"unknown power {head.strip()!r} (known: {known})")
        return power, rest.strip()

    def location(self, variant: Variant, text: str) -> str:

        text = text.strip()
        loc = resolve_location(variant, text)
        if loc is None:
            fixed = _COAST_PARENS.sub(lambda m: "/" + m.group(1), text)
            loc = resolve_location(variant, fixed) if fixed != text else None
        if loc is None:
            raise self.fail(f"unknown province {text!r}")
        return loc

    def unit(self, variant: Variant, line: str) -> Unit:
        power, rest = self.power_and_rest(variant, line)
        kind, _, where = rest.partition(" ")
        named, _, fleet_part = kind.partition("/")
        leader = variant.rules.unit_names(variant).get(named.upper())
        if leader is not None:  # 'CXII GOT': a leader; 'CXII/2F GOT' beside two fleets
            fleets = (parse_designation(fleet_part) or (0, 0))[1] if fleet_part else 0
            loc = self.location(variant, where)
            return Unit.of(power, loc if fleets else province_of(loc), 1, fleets, leader=leader)
        # 'A', 'F', and where the variant has multiple units '2A', 'A/F', 'A/2F'.
        counts = parse_designation(kind)
        if counts is None or not where.strip():
            raise self.fail(f"{rest!r} is not a unit ('A <province>' or 'F <location>')")
        loc = self.location(variant, where)
        if not counts[1]:
            loc = province_of(loc)  # armies ignore coasts
        unit = Unit.of(power, loc, *counts)
        if not unit.single and not (variant.rules.multiple_units or variant.rules.separate_fleets):
            raise self.fail(f"{variant.title} has no multiple units: {rest!r}")
        return unit

    def section_line(self, case: Case, section: str, line: str) -> None:

        v = case.variant
        if section == "PRESTATE":
            case.prestate.append(self.unit(v, line))
        elif section == "PRESTATE_DISLODGED":
            case.prestate_dislodged.append(self.unit(v, line))
        elif section == "POSTSTATE":
            assert case.poststate is not None
            case.poststate.append(self.unit(v, line))
        elif section == "POSTSTATE_DISLODGED":
            assert case.poststate_dislodged is not None
            case.poststate_dislodged.append(self.unit(v, line))
        elif section == "PRESTATE_SUPPLYCENTER_OWNERS":
            power, rest = self.power_and_rest(v, line)
            words = rest.split(None, 1)
            if len(words) == 2 and words[0].lower() in ("a", "f", "army", "fleet"):
                rest = words[1]
            prov = province_of(self.location(v, rest))
            if not v.map.provinces[prov].supply_centre:
                raise self.fail(f"{prov} is no supply centre")
            assert case.centre_owners is not None
            case.centre_owners[prov] = power
        elif section == "POSTSTATE_SUPPLYCENTER_OWNERS":
            head, _, rest = line.partition(":")
            owner = None if head.strip().lower() == "nobody" else self.power_and_rest(v, line)[0]
            assert case.poststate_owners is not None
            for word in re.split(r"[\s,]+", rest.strip()):
                if word:
                    case.poststate_owners[province_of(self.location(v, word))] = owner
        elif section == "PRESTATE_CIVIL_DISORDER":
            power = resolve_power(v, line.rstrip(":").strip())
            if power is None:
                raise self.fail(f"unknown power {line!r}")
            case.civil_disorder.append(power)
        elif section == "PRESTATE_HOME_CENTERS":
            power, rest = self.power_and_rest(v, line)
            provs = {province_of(self.location(v, w)) for w in re.split(r"[\s,]+", rest) if w}
            assert case.home_centres is not None
            case.home_centres[power] = case.home_centres.get(power, frozenset()) | frozenset(provs)
        elif section == "PRESTATE_RESULTS":
            flag, colon, rest = line.partition(":")
            if not colon or flag.strip().upper() not in ("SUCCESS", "FAILURE"):
                raise self.fail(f"{line!r} is not 'SUCCESS: <Power>: <order>' or 'FAILURE: ...'")
            power, text = self.power_and_rest(v, rest.strip())
            parsed = parse_order(v, text, power, PhaseKind.MOVEMENT, None)
            if parsed.order is None:
                raise self.fail(f"cannot read the result order {text!r}: {parsed.error}")
            case.results.append((flag.strip().upper() == "SUCCESS", parsed.order))
        elif section == "ORDERS":
            power, text = self.power_and_rest(v, line)
            case.orders.append((power, text))
        elif section in ("PRESTATE_CONTROL", "POSTSTATE_CONTROL"):
            minor, rest = self.power_and_rest(v, line)
            words = rest.split()
            years = int(words.pop()) if len(words) > 1 and words[-1].isdigit() else 1
            named = " ".join(words)
            controller = resolve_power(v, named) if named and named.lower() != "nobody" else None
            if named and named.lower() != "nobody" and controller is None:
                raise self.fail(f"unknown power {named!r}")
            if section == "POSTSTATE_CONTROL":
                assert case.poststate_control is not None
                case.poststate_control[minor] = controller
            elif controller is not None:
                case.control[minor] = (controller, years)
        else:  # pragma: no cover - every section is handled above
            raise self.fail(f"unhandled section {section}")


# ----------------------------------------------------------------------------------- the position
def _adjacent(variant: Variant, move: Move) -> bool:
    """Could the moving unit reach its destination without a convoy?"""
    dest = province_of(move.dest)
    if move.unit_type is UnitType.FLEET:
        return True  # fleets are never convoyed
    if move.unit_type is None and move.province not in variant.map.army:
        return True  # no army can stand there: the unit is a fleet
    return dest in variant.map.army.get(move.province, frozenset())


def attacker_from(variant: Variant, case: Case, province: str) -> str | None:
    """Where the successful attack on `province` came from, per PRESTATE_RESULTS.

    None when no successful move into `province` is stated, or when that move was made by convoy:
    ordered 'via convoy', or matched by a successful convoy order, or between provinces that are
    not adjacent.
    """
    for ok, order in case.results:
        if not ok or not isinstance(order, Move) or province_of(order.dest) != province:
            continue
        by_convoy = order.via_convoy or not _adjacent(variant, order) or any(
            ok2 and isinstance(o, Convoy) and o.target == order.province and province_of(o.dest) == province
            for ok2, o in case.results
        )
        return None if by_convoy else order.province
    return None


def contested_provinces(variant: Variant, case: Case, occupied: Iterable[str]) -> frozenset[str]:
    """Empty provinces where a standoff happened, per PRESTATE_RESULTS.

    A standoff leaves a province empty with two or more failed moves into it. The failed move of a
    dislodged unit into the province its attacker came from does not count (DATC 6.H.9), and a
    lone failed move (a broken convoy, an illegal move) is no standoff (DATC 6.F.7, 6.H.12).
    """
    occupied = set(occupied)
    dislodged = {u.province for u in case.prestate_dislodged}
    tries: dict[str, int] = {}
    for ok, order in case.results:
        if ok or not isinstance(order, Move):
            continue
        dest = province_of(order.dest)
        if dest in occupied or dest == order.province:
            continue
        if order.province in dislodged and attacker_from(variant, case, order.province) == dest:
            continue
        tries[dest] = tries.get(dest, 0) + 1
    return frozenset(p for p, n in tries.items() if n >= 2)


def build_state(case: Case) -> GameState:
    """The GameState a case starts from."""
    v = case.variant
    units: dict[str, Unit] = {}
    for u in case.prestate:
        if u.province in units:
            raise CaseFileError(f"{case.source}: case {case.id}: two units in {u.province}")
        units[u.province] = u
    centres = dict(v.starting_centres) if case.centre_owners is None else dict(case.centre_owners)
    homes = {p.name: p.home_centres for p in v.powers.values()}
    if case.home_centres:
        homes.update(case.home_centres)
    state = GameState(phase=case.phase, units=units, supply_centres=centres, home_centres=homes)
    if case.home_centres is None:
        state = v.rules.settle_position(v, state)
    for power in case.civil_disorder:
        state = v.rules.declare_civil_disorder(v, state, power)
    if case.control:
        state = v.rules.with_control(v, state, case.control)
    if case.phase.kind not in RETREATS:
        if case.prestate_dislodged:
            raise CaseFileError(f"{case.source}: case {case.id}: PRESTATE_DISLODGED outside a retreat phase")
        return state
    contested = contested_provinces(v, case, units)
    state = state.with_(contested=contested)
    dislodged: dict[str, Dislodged] = {}
    for u in case.prestate_dislodged:
        d = Dislodged(u, attacker_from(v, case, u.province), ())
        dislodged[u.province] = Dislodged(u, d.attacker_from, _retreats(v, state, d))
    return state.with_(dislodged=dislodged)


def _retreats(variant: Variant, state: GameState, d: Dislodged) -> tuple[str, ...]:
    return retreat_options(variant, state, state.units, state.contested, d)


# -------------------------------------------------------------------------------------- running
def parse_case_orders(case: Case, state: GameState) -> list[OrderEntry]:
    entries = []
    for power, line in case.orders:
        for text in order_texts(case.variant, line):
            parsed = parse_order(case.variant, text, power, case.phase.kind, state)
            entries.append(OrderEntry(power, text, parsed.order, parsed.error))
    return entries


def run_case(case: Case) -> CaseRun:

    state = build_state(case)
    entries = parse_case_orders(case, state)
    run = CaseRun(case, state, entries)
    try:
        run.adjudication = adjudicate(case.variant, state, [e.order for e in entries if e.order is not None])
    except Exception as e:  # noqa: BLE001 - reported per case, the run goes on
        run.error = f"{type(e).__name__}: {e}"
    return run


def select_cases(cases: list[Case], wanted: Iterable[str] | None) -> list[Case]:
    """Cases whose id is one of `wanted` (case-insensitive); '6.J.9' also selects '6.J.9.part1'."""
    if not wanted:
        return list(cases)
    keys = [w.strip().rstrip(".").lower() for w in wanted]
    return [c for c in cases if any(c.id.lower() == k or c.id.lower().startswith(k + ".") for k in keys)]


# ------------------------------------------------------------------------------------- reporting
def _by_power(variant: Variant, units: Iterable[Unit]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {p: [] for p in variant.great_powers}
    for u in units:
        out.setdefault(u.power, []).append(str(u))
    return {p: sorted(us) for p, us in out.items()}


def _shown(run: CaseRun, order: Order) -> str:
    """The canonical text of an order; a unit type left out is filled in from the position."""
    if order.unit_type is None and order.location:
        unit = run.state.units.get(order.province)
        d = run.state.dislodged.get(order.province)
        if run.state.phase.kind in RETREATS and d is not None:
            unit = d.unit
        if unit is not None and unit.power == order.power:
            order = replace(order, unit_type=unit.type)
    return str(order)


def order_results(run: CaseRun) -> list[dict[str, str]]:
    """The ORDERS lines with their results, in file order; then the orders the rules made for
    units (a minor power's order that point allocations decided), under that power's name."""
    results = list(run.adjudication.results) if run.adjudication is not None else []
    by_order = {id(r.order): r for r in results}
    by_step = {id(r.order.order): r for r in results if type(r.order) is Step}
    out = []
    for e in run.entries:
        if e.order is None:
            out.append({"power": e.power, "order": e.text, "result": "void", "reason": e.error or ""})
            continue
        r = by_order.pop(id(e.order), None)
        if r is None and type(e.order) is TwoPhase:  # a fleet's two moves: the first's result here
            r = by_order.pop(id(e.order.first), None)
        if r is None and id(e.order) in by_step:  # a turn of impulses: the step's result
            r = by_order.pop(id(by_step[id(e.order)].order), None)
        if r is None and type(e.order) is Steps:  # a unit's steps: the last step's result, every reason
            found = [by_order.pop(id(by_step[id(s)].order)) for s in e.order.steps if id(s) in by_step]
            if found:
                reason = "; ".join(f"impulse {x.order.impulse}: {x.result.value}" + (f" ({x.reason})" if x.reason else "")
                                   for x in found)
                r = OrderResult(e.order, found[-1].result, reason)
        if r is None:  # an order for a minor power's unit, carried out under the minor power's name
            key = (type(e.order), e.order.location, str(e.order))
            found = next((k for k, x in by_order.items()
                          if (type(x.order), x.order.location, str(x.order)) == key and x.order.power != e.order.power), None)
            r = by_order.pop(found) if found is not None else None
        out.append(
            {
                "power": e.order.power,
                "order": _shown(run, e.order),
                "result": r.result.value if r is not None else "unknown",
                "reason": r.reason if r is not None else (run.error or ""),
            }
        )
    given = {id(e.order) for e in run.entries if e.order is not None}
    for r in results:
        if id(r.order) in by_order and id(r.order) not in given:
            out.append({"power": r.order.power, "order": str(r.order), "result": r.result.value, "reason": r.reason})
    return out


def retreating(run: CaseRun) -> list[Unit]:
    """Dislodged units that may retreat (those POSTSTATE_DISLODGED lists)."""
    adj = run.adjudication
    if adj is None:
        return []
    return [d.unit for d in adj.dislodged.values() if d.retreats]


def to_json(run: CaseRun) -> dict[str, object]:
    v = run.variant
    adj = run.adjudication
    out: dict[str, object] = {
        "case": run.case.id,
        "variant": v.name,
        "phase": v.phase_label(run.state.phase),
        "orders": order_results(run),
    }
    if adj is None:
        out.update(units={}, dislodged={}, retreats={}, supply_centers={}, next_phase=None, winner=None)
        out["error"] = run.error
        return out
    dislodged = list(adj.dislodged.values())
    nxt: GameState = adj.state
    centres: dict[str, list[str]] = {p: [] for p in v.great_powers}
    for prov, owner in nxt.supply_centres.items():
        centres.setdefault(owner, []).append(prov)
    out["units"] = _by_power(v, adj.units.values())
    out["dislodged"] = _by_power(v, (d.unit for d in dislodged))
    out["retreats"] = {str(d.unit): sorted(d.retreats) for d in sorted(dislodged, key=lambda d: str(d.unit))}
    out["supply_centers"] = {p: sorted(cs) for p, cs in centres.items()}
    out["next_phase"] = v.phase_label(nxt.phase)
    out["winner"] = adj.winner
    control = v.rules.controllers(v, nxt)
    if control:
        out["control"] = control
    return out


def _unit_key(u: Unit) -> tuple[str, str, str]:
    return (u.power, u.designation, u.location)


def _compare(expected: list[Unit], actual: list[Unit]) -> tuple[list[Unit], list[Unit]]:
    """(missing, unexpected). An expected fleet without a coast matches one on any coast there."""
    actual_left = {_unit_key(u): u for u in actual}
    missing = []
    for u in expected:
        key = _unit_key(u)
        if key in actual_left:
            del actual_left[key]
            continue
        loose = [k for k in actual_left if k[:2] == key[:2] and "/" not in u.location and province_of(k[2]) == u.location]
        if loose:
            del actual_left[loose[0]]
            continue
        missing.append(u)
    return missing, list(actual_left.values())


def _units_text(units: list[Unit]) -> str:
    return ", ".join(f"{u.power} {u}" for u in sorted(units, key=lambda u: (u.power, str(u))))


def check(run: CaseRun) -> list[str]:
    """What differs from the case's expectations; [] when the case passes."""
    if run.adjudication is None:
        return [f"the engine failed: {run.error}"]
    problems = []
    expected = run.case.expected_units
    if expected is None:
        problems.append("the case states no POSTSTATE")
    else:
        missing, extra = _compare(expected, list(run.adjudication.units.values()))
        if missing or extra:
            problems.append(
                "units: expected but missing: " + (_units_text(missing) or "-") + "; not expected: " + (_units_text(extra) or "-")
            )
    # POSTSTATE_DISLODGED must name every unit that may retreat; it may also name units destroyed
    # for want of a retreat (the DATC counts them as dislodged; the jDip and godip files omit them).
    if run.case.poststate_control is not None:
        control = run.variant.rules.controllers(run.variant, run.adjudication.state)
        wrong = [f"{m}: expected {c or 'nobody'}, is {control.get(m) or 'nobody'}"
                 for m, c in sorted(run.case.poststate_control.items()) if control.get(m) != c]
        if wrong:
            problems.append("control: " + "; ".join(wrong))
    if run.case.poststate_owners is not None:
        owners = run.adjudication.state.supply_centres
        wrong = [f"{c}: expected {o or 'nobody'}, is {owners.get(c) or 'nobody'}"
                 for c, o in sorted(run.case.poststate_owners.items()) if owners.get(c) != o]
        if wrong:
            problems.append("centres: " + "; ".join(wrong))
    expected_dislodged = run.case.poststate_dislodged or []
    missing, _ = _compare(expected_dislodged, [d.unit for d in run.adjudication.dislodged.values()])
    _, extra = _compare(expected_dislodged, retreating(run))
    if missing or extra:
        problems.append(
            "dislodged: expected but missing: " + (_units_text(missing) or "-") + "; not expected: " + (_units_text(extra) or "-")
        )
    return problems


def text_report(run: CaseRun) -> str:
    case, v = run.case, run.variant
    lines = [f"CASE {case.id}" + (f"  {case.title}" if case.title else ""), f"  phase: {v.phase_label(run.state.phase)}"]
    if run.state.dislodged:
        lines.append("  dislodged at the start:")
        for d in run.state.dislodged.values():
            lines.append(f"    {d.unit.power}: {d.unit}  (retreats: {', '.join(d.retreats) or 'none'})")
    lines.append("  orders:")
    for o in order_results(run):
        why = f" ({o['reason']})" if o["reason"] else ""
        lines.append(f"    {o['power']}: {o['order']}  -> {o['result']}{why}")
    if not run.entries:
        lines.append("    (none)")
    if run.adjudication is None:
        lines.append(f"  ENGINE ERROR: {run.error}")
        return "\n".join(lines)
    data = to_json(run)
    lines.append("  units:")
    for power, units in data["units"].items():
        if units:
            lines.append(f"    {power}: {', '.join(units)}")
    retreats = data["retreats"]
    if retreats:
        lines.append("  dislodged:")
        for unit, dests in retreats.items():
            lines.append(f"    {unit}: " + (f"may retreat to {', '.join(dests)}" if dests else "no retreat, destroyed"))
    disbanded = getattr(run.adjudication, "disbanded", [])
    if disbanded:
        lines.append("  disbanded: " + ", ".join(f"{u.power} {u}" for u in disbanded))
    if data.get("control"):
        lines.append("  control: " + ", ".join(f"{m}: {c or 'nobody'}" for m, c in data["control"].items()))  # type: ignore[attr-defined]
    lines.append(f"  next phase: {data['next_phase']}" + (f"; winner: {data['winner']}" if data["winner"] else ""))
    if case.expected_units is not None:
        problems = check(run)
        lines.append("  check: " + ("as expected" if not problems else "DIFFERS: " + " | ".join(problems)))
    return "\n".join(lines)
