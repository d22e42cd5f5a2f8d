"""Napoleonic Wars (James Nelson; Variants & Uncles 28, 1991, revised 1993): what differs from
standard Diplomacy.

The map, the five major powers, the nine minor powers and the special build centres are data
(maps/napoleonic/). This module holds the rules that need code:

* Influence Points (rule 4): each winter, after the adjustments, a bidding phase. A major power
  has 3 IPs per centre it holds and 2 for each minor power it controls. `IP <n> <minor>` bids for
  control, `IP <n> <minor> FOR <power>` backs another power's bid. The highest total controls the
  minor power for the coming year; a tie, or no bid, leaves control where it was. The controller
  of the year before gets +1 IP per consecutive year of control and +2 per centre the minor power
  holds beyond its own. A power that bids more IPs than it has loses all its bids that winter.
* A major power orders the units of the minor powers it controls, in every phase; nobody orders
  an uncontrolled minor power's units, which hold (rule 4: the GM may enter their retreats and
  builds with ORDER). Two units in a friendly minor power's home centres, or one in its centre
  after an Autumn turn, lose its control for good; the GM then gives it (SET CONTROL).
* Supply Points (rule 5): counted each winter in the bidding phase; banked, lent for a year
  (LOAN), turned into IPs (CONVERT); every 3 banked keep one unit more.
* Direct passages (rule 10) a fleet may deny (X), blockades (rule 8, B), and the fleets' second
  move (rule 6, gm/engine/second.py does the moving).
* Builds (rules 9 and 11): fleets only in home centres, armies in any centre the power holds;
  Arkangel is a build site for Russian fleets and Sardinia for English units, though neither is
  a centre; England keeps one unit more than it has centres while it has any.
* Victory (rule 14): 20 centres (England 19), counting the centres of the minor powers the power
  controls, and more than any other power.
* Multiple units and army/fleet combinations (rules 6 to 8: Multiplicity II, the Full
  Abstraction A/F rules) are switched on here and played by gm/engine/multiple.py: merges,
  splits, boarding and landing, the fast ferry, rations, multiple-fleet blockades.
* Promotion (rule 12): PROMOTE makes a minor power with 4 centres its controller's major power;
  the old major power becomes a minor power it controls (MAJORS, HELD_SINCE).

Variant-specific facts kept in GameState.extra (keys below) travel with the position.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Mapping, Sequence

from gm.engine.graph import Terrain
from gm.engine.model import RETREATS, GameState, PhaseKind, Season, UnitType
from gm.engine.multiple import acting_part, carried
from gm.engine.orders import Bid, Blockade, Build, Convert, Disband, Loan, Order, Promote, TwoPhase
from gm.engine.results import OrderResult, Result
from gm.engine.rules import SIDE_ORDERS, Rules
from gm.engine.variant import SpecialOrder
from gm.i18n import _, _n

if TYPE_CHECKING:
    from gm.engine.variant import Variant

# GameState.extra keys
CONTROL = "control"  # minor power -> the major power controlling it (absent: nobody)
CONTROL_YEARS = "control_years"  # minor power -> consecutive years under its controller
ALIENATED = "alienated"  # minor power -> major powers that lost its control for good (sorted list)
SP_BANK = "sp_bank"  # major power -> Supply Points banked (negative: in debt)
SP_LOANS = "sp_loans"  # [lender, borrower, SPs] lent last winter, repaid this winter
BLOCKADED = "blockaded"  # coastal home centres blockaded in the Autumn: no fleet is built there this winter
MAJORS = "majors"  # the major powers, once a minor power has been promoted (rule 12); absent: the five of rule 2
HELD_SINCE = "held_since"  # centre -> the year its owner took it (absent: held since the game began)

IP_PER_CENTRE = 3
IP_PER_MINOR = 2
BONUS_PER_YEAR = 1
BONUS_PER_EXTRA_CENTRE = 2
SP_PER_CENTRE = SP_PER_UNIT = 3
IP_PER_SP = 2
ENGLAND = "England"
PROMOTION_CENTRES = 4  # rule 12: a minor power with at least 4 centres may be promoted, and gets 4 home centres

_MOVEMENT, _BIDDING = (PhaseKind.MOVEMENT,), (PhaseKind.BIDDING,)
# What a player is told of the orders the rules add (the start mail, what a phase asks).
SPECIAL_ORDERS = (
    SpecialOrder("IP <n> <minor power> [FOR <power>]",
                 _("Influence Points, secret, each winter: a bid for control of a minor power for a year, "
                   "or IPs behind another power's bid. 3 IPs per centre you hold, 2 per minor power you "
                   "control; bidding more than you have loses every bid that winter (rule 4)."),
                 "", _BIDDING, points="IP"),
    SpecialOrder("LOAN <n> <power> / CONVERT <n>",
                 _("Supply Points banked, secret: lent to another major power for a year, or turned into "
                   "twice as many IPs; every 3 banked keep a unit more (rule 5)."),
                 "CONVERT 2", _BIDDING),
    SpecialOrder("F <sea> - <sea> - <sea> / <order> THEN <order>",
                 _("a fleet's second move in the same turn (rule 6)."), "F IRI H THEN S F ENG - MAO", _MOVEMENT),
    SpecialOrder("F <sea> X <land>-<land> / F <sea> B <centre>",
                 _("deny other powers' armies a direct passage across your sea (rule 10); blockade a "
                   "coastal home centre in the Autumn: no fleet is built there that winter (rule 8)."),
                 "F SKA X Den-Swe", _MOVEMENT),
    SpecialOrder("<move> MERGE / 1A <from> - <to>",
                 _("multiple units (rule 7): your armies and fleets in one space are one unit (2A, A/F); "
                   "merge into your unit there, or split one army off."), "1A BUR - PIC", _MOVEMENT),
    SpecialOrder("A <coast> E <sea> / A <sea> D <coast>",
                 _("an army boards a fleet of yours at sea and lands from it; a convoy crosses one sea "
                   "only, and an army at sea a fourth turn running starves (rule 6)."), "A WAL E ENG", _MOVEMENT),
    SpecialOrder("PROMOTE <minor power>",
                 _("make a minor power you control, with 4 centres or more, your major power (rule 12)."),
                 "PROMOTE Spain"),
)


class VariantRules(Rules):
    special_orders = SPECIAL_ORDERS
    minors_ordered_by_points = False  # their controller orders them; the GM may too (ORDER)
    fleets_move_twice = True  # rule 6: a second move after all first moves and their retreats
    multiple_units = True  # rule 7: Multiplicity II, with the A/F rules of rule 6
    convoy_one_sea = True  # rule 6, Full Abstraction A/F: a convoy is a fast ferry across one sea
    rations = 4  # Full Abstraction A/F: an army still at sea at the end of its fourth turn there starves
    _passages: Mapping[frozenset[str], str] | None = None

    # --- powers and control ---------------------------------------------------------------------
    def major_powers(self, variant: Variant, state: GameState) -> list[str]:
        return list(state.extra.get(MAJORS) or variant.great_powers)  # type: ignore[call-overload]

    def is_minor(self, variant: Variant, state: GameState, power: str) -> bool:
        return power in variant.powers and power not in self.major_powers(variant, state)

    def control(self, state: GameState) -> dict[str, str]:
        return state.extra.get(CONTROL, {})  # type: ignore[return-value]

    def controllers(self, variant: Variant, state: GameState) -> dict[str, str | None]:
        control = self.control(state)
        return {p: control.get(p) for p in variant.powers if self.is_minor(variant, state, p)}

    def with_control(self, variant: Variant, state: GameState,
                     control: Mapping[str, tuple[str | None, int]]) -> GameState:
        extra = dict(state.extra)
        now = dict(self.control(state))
        years = dict(state.extra.get(CONTROL_YEARS, {}))  # type: ignore[call-overload]
        for minor, (controller, held) in control.items():
            if controller is None:
                now.pop(minor, None)
                years.pop(minor, None)
            else:
                now[minor], years[minor] = controller, held
        extra[CONTROL], extra[CONTROL_YEARS] = now, years
        return state.with_(extra=extra)

    def alienated(self, state: GameState, minor: str) -> list[str]:
        return state.extra.get(ALIENATED, {}).get(minor, [])  # type: ignore[union-attr, no-any-return]

    # --- losing control (rule 4) ----------------------------------------------------------------
    def after_spring(self, variant: Variant, before: GameState, after: GameState) -> GameState:
        return self._lose_control(variant, before, after, autumn=False)

    def after_fall(self, variant: Variant, before: GameState, after: GameState) -> GameState:
        after = self._lose_control(variant, before, after, autumn=True)
        taken = {c: after.phase.year for c, owner in after.supply_centres.items() if before.supply_centres.get(c) != owner}
        if not taken:
            return after
        held = {c: y for c, y in after.extra.get(HELD_SINCE, {}).items() if c not in taken}  # type: ignore[attr-defined]
        return after.with_(extra={**after.extra, HELD_SINCE: {**held, **taken}})

    def _lose_control(self, variant: Variant, before: GameState, after: GameState, autumn: bool) -> GameState:
        """A major power loses control of a minor power for good when two of its units stand in
        the minor power's home centres, or (in an Autumn turn) one of them occupies a centre the
        minor power held. Nobody controls it then until the GM gives it to a power (SET CONTROL)."""
        control = self.control(after)
        lost: dict[str, str] = {}
        for minor, major in control.items():
            homes = after.home_centres.get(minor, frozenset())
            # A 2A is two units (rule 7): it alone is "more than one unit" inside.
            inside = sum(u.size for p in homes if (u := after.units.get(p)) is not None and u.power == major)
            taken = [p for p, u in sorted(after.units.items())
                     if autumn and u.power == major and before.supply_centres.get(p) == minor]
            if inside > 1 or taken:
                lost[minor] = major
        if not lost:
            return after
        extra = dict(after.extra)
        extra[CONTROL] = {m: p for m, p in control.items() if m not in lost}
        extra[CONTROL_YEARS] = {m: n for m, n in extra.get(CONTROL_YEARS, {}).items() if m not in lost}  # type: ignore[attr-defined]
        alienated = {m: list(ps) for m, ps in extra.get(ALIENATED, {}).items()}  # type: ignore[attr-defined]
        for minor, major in lost.items():
            alienated[minor] = sorted({*alienated.get(minor, []), major})
        extra[ALIENATED] = alienated
        return after.with_(extra=extra)

    def public_notes(self, variant: Variant, before: GameState, after: GameState) -> list[str]:
        notes = []
        changes = self.power_changes(variant, before, after)
        for old, new in sorted(changes.items()):
            homes = ", ".join(variant.map.name(c) for c in sorted(after.home_centres.get(new, ())))
            # TRANSLATORS: {old} and {new} are powers; {homes}, the names of {new}'s home centres
            notes.append(_("{old} makes {new} its major power (rule 12): {new}'s home centres are now {homes}; "
                           "{old} is a minor power, controlled by {new}", old=old, new=new, homes=homes))
        for minor, lost in sorted(after.extra.get(ALIENATED, {}).items()):  # type: ignore[union-attr]
            for major in sorted(set(lost) - {changes.get(p, p) for p in self.alienated(before, minor)}):
                notes.append(_("{major} has lost control of {minor} for good (rule 4: its units entered {minor}'s "
                               "centres); the GM gives {minor} to the power it judges most concerned to protect it",
                               major=major, minor=minor))
        return notes

    def commander(self, variant: Variant, state: GameState, power: str) -> str | None:
        if self.is_minor(variant, state, power):
            return self.control(state).get(power)
        return power

    def adjusts(self, variant: Variant, state: GameState, power: str) -> bool:
        return True  # minor powers build and remove too: their controller orders it, or the GM

    def controlled_by(self, state: GameState, power: str) -> list[str]:
        return sorted(m for m, p in self.control(state).items() if p == power)

    # --- Influence Points -----------------------------------------------------------------------
    def bidding(self, variant: Variant, state: GameState) -> bool:
        return True  # every winter ends with bids (rule 4, sequence (c)-(e))

    def ip_entitlement(self, variant: Variant, state: GameState) -> dict[str, int]:
        """IPs each major power has this winter: 3 per centre it holds, 2 per minor it controls."""
        out = {p: 0 for p in self.major_powers(variant, state)}
        for owner in state.supply_centres.values():
            if owner in out:
                out[owner] += IP_PER_CENTRE
        for controller in self.control(state).values():
            if controller in out:
                out[controller] += IP_PER_MINOR
        return out

    def points_available(self, variant: Variant, state: GameState, power: str) -> int | None:
        if state.phase.kind is not PhaseKind.BIDDING:
            return None
        return self.ip_entitlement(variant, state).get(power, 0)

    def continuity_bonus(self, variant: Variant, state: GameState, minor: str) -> int:
        """The automatic IPs the present controller of `minor` has towards keeping it."""
        if minor not in self.control(state):
            return 0
        years = int(state.extra.get(CONTROL_YEARS, {}).get(minor, 1))  # type: ignore[union-attr]
        held = sum(1 for owner in state.supply_centres.values() if owner == minor)
        extra = max(0, held - len(state.home_centres.get(minor, ())))
        return BONUS_PER_YEAR * years + BONUS_PER_EXTRA_CENTRE * extra

    def prepare(
        self, variant: Variant, state: GameState, orders: Sequence[Order]
    ) -> tuple[GameState, list[Order], list[OrderResult]]:
        promotions = [o for o in orders if type(o) is Promote]
        if promotions:
            orders = [o for o in orders if type(o) is not Promote]
        if state.phase.kind is PhaseKind.BIDDING:
            state, unit_orders, side = self._bids(variant, state, orders)
        else:
            unit_orders, side = [], []
            for o in orders:
                if type(o) is Bid:
                    side.append(OrderResult(o, Result.VOID, _("IP bids are made in the winter bidding phase")))
                elif type(o) in SIDE_ORDERS:
                    side.append(OrderResult(o, Result.VOID, _("{variant} has no such order", variant=variant.title)))
                else:
                    unit_orders.append(self._for_minor(variant, state, o))
            if state.phase.kind is PhaseKind.MOVEMENT:
                # Rule 6 writes the fleet's moves in the army's boarding: 'A(Tun) E F(BOT)-ION'.
                unit_orders = carried(state, unit_orders)
        # Promotions last: the phase's orders were given by the powers as they stood.
        for o in promotions:
            why = self._promotion_refusal(variant, state, o)  # type: ignore[arg-type]
            if not why:
                state = self._promote(variant, state, o.power, o.location)
            side.append(OrderResult(o, Result.VOID if why else Result.SUCCEEDS, why))
        return state, unit_orders, side

    # --- promotion of a minor power (rule 12) -----------------------------------------------------
    def _promotion_refusal(self, variant: Variant, state: GameState, order: Promote) -> str:
        majors = self.major_powers(variant, state)
        held = sum(1 for owner in state.supply_centres.values() if owner == order.minor)
        if order.power not in majors:
            return _("{power} is not a major power", power=order.power)
        if not self.is_minor(variant, state, order.minor):
            return _("{power} is not a minor power", power=order.minor)
        if self.control(state).get(order.minor) != order.power:
            return _("{power} does not control {minor}", power=order.power, minor=order.minor)
        if held < PROMOTION_CENTRES:
            return _n("{minor} holds {count} supply centres; a minor power is promoted with at least {least} (rule 12)",
                      "{minor} holds {count} supply centres; a minor power is promoted with at least {least} (rule 12)",
                      held, minor=order.minor, least=PROMOTION_CENTRES)
        return ""

    def _promote(self, variant: Variant, state: GameState, major: str, minor: str) -> GameState:
        """`major`'s player plays `minor` from now on; `major` becomes a minor power controlled by
        it. The new major power's home centres are its own and, to make 4, the other centres it
        has held longest (alphabetically among equals); its player keeps its bank, its loans and
        the other minor powers it controls."""
        held_since: Mapping[str, int] = state.extra.get(HELD_SINCE, {})  # type: ignore[assignment]
        homes = set(state.home_centres.get(minor, ()))
        others = sorted((c for c, owner in state.supply_centres.items() if owner == minor and c not in homes),
                        key=lambda c: (held_since.get(c, 0), c))
        homes |= set(others[:max(0, PROMOTION_CENTRES - len(homes))])

        def renamed(power: str) -> str:
            return minor if power == major else power

        extra = dict(state.extra)
        extra[MAJORS] = [renamed(p) for p in self.major_powers(variant, state)]
        control = {m: renamed(p) for m, p in self.control(state).items() if m != minor}
        control[major] = minor
        years = {m: n for m, n in state.extra.get(CONTROL_YEARS, {}).items() if m != minor}  # type: ignore[attr-defined]
        years[major] = 1
        extra[CONTROL], extra[CONTROL_YEARS] = control, years
        extra[ALIENATED] = {m: sorted({renamed(p) for p in ps})
                            for m, ps in state.extra.get(ALIENATED, {}).items() if m != minor}  # type: ignore[attr-defined]
        extra[SP_BANK] = {renamed(p): n for p, n in self.bank(state).items()}
        extra[SP_LOANS] = [[renamed(a), renamed(b), n] for a, b, n in state.extra.get(SP_LOANS, [])]  # type: ignore[attr-defined]
        return state.with_(extra=extra, home_centres={**state.home_centres, minor: frozenset(homes)})

    def power_changes(self, variant: Variant, before: GameState, after: GameState) -> dict[str, str]:
        was, now = self.major_powers(variant, before), self.major_powers(variant, after)
        return {old: new for old, new in zip(was, now) if old != new}

    def _for_minor(self, variant: Variant, state: GameState, order: Order) -> Order:
        """An order a major power gives for a unit (or, in winter, a centre) of a minor power it
        controls becomes that minor power's order."""
        kind = state.phase.kind
        if kind is PhaseKind.MOVEMENT:
            unit = state.units.get(order.province)
            owner = unit.power if unit is not None else None
        elif kind in RETREATS:
            d = state.dislodged.get(order.province)
            owner = d.unit.power if d is not None else None
        elif type(order) is Build:
            owner = state.supply_centres.get(order.province)
        elif type(order) is Disband:
            unit = state.units.get(order.province)
            owner = unit.power if unit is not None else None
        else:
            owner = None
        if owner is not None and owner != order.power and self.control(state).get(owner) == order.power:
            if type(order) is TwoPhase:
                return replace(order, power=owner, first=replace(order.first, power=owner),
                               second=replace(order.second, power=owner))
            return replace(order, power=owner)  # type: ignore[type-var]
        return order

    def _bids(
        self, variant: Variant, state: GameState, orders: Sequence[Order]
    ) -> tuple[GameState, list[Order], list[OrderResult]]:
        side: list[OrderResult] = []
        unit_orders: list[Order] = []
        latest: dict[tuple[str, str], Bid] = {}  # (bidder, minor) -> its bid: a later one replaces
        money: dict[tuple[str, str], Order] = {}  # (power, CONVERT or borrower) -> its SP order
        for o in orders:
            if type(o) is Loan or type(o) is Convert:
                earlier_order = money.pop((o.power, o.location), None)
                if earlier_order is not None:
                    side.append(OrderResult(earlier_order, Result.VOID, _("replaced by a later order of the same kind")))
                money[(o.power, o.location)] = o
                continue
            if type(o) is not Bid:
                if type(o) in SIDE_ORDERS:
                    side.append(OrderResult(o, Result.VOID, _("{variant} has no such order", variant=variant.title)))
                else:
                    unit_orders.append(o)
                continue
            why = self._bid_refusal(variant, state, o)
            if why:
                side.append(OrderResult(o, Result.VOID, why))
                continue
            earlier = latest.pop((o.power, o.minor), None)
            if earlier is not None:
                side.append(OrderResult(earlier, Result.VOID, _("replaced by a later bid for the same minor power")))
            latest[(o.power, o.minor)] = o
        bank, loans, converted = self._supply_points(variant, state, list(money.values()), side)
        entitled = self.ip_entitlement(variant, state)
        for power, n in converted.items():
            entitled[power] += IP_PER_SP * n
        spent: dict[str, int] = {}
        for b in latest.values():
            spent[b.power] = spent.get(b.power, 0) + b.points
        tally: dict[str, dict[str, int]] = {}
        counted: list[Bid] = []
        for b in latest.values():
            if spent[b.power] > entitled.get(b.power, 0):
                reason = _n("all of {power}'s bids are lost this winter: it bid {count} IPs and has {entitled}",
                            "all of {power}'s bids are lost this winter: it bid {count} IPs and has {entitled}",
                            spent[b.power], power=b.power, entitled=entitled.get(b.power, 0))
                side.append(OrderResult(b, Result.FAILS, reason))
                continue
            tally.setdefault(b.minor, {})
            tally[b.minor][b.bidder_for] = tally[b.minor].get(b.bidder_for, 0) + b.points
            counted.append(b)
        control = dict(self.control(state))
        years = dict(state.extra.get(CONTROL_YEARS, {}))  # type: ignore[call-overload]
        for minor in sorted(p for p in variant.powers if self.is_minor(variant, state, p)):
            previous = control.get(minor)
            totals = dict(tally.get(minor, {}))
            if previous is not None:
                totals[previous] = totals.get(previous, 0) + self.continuity_bonus(variant, state, minor)
            best = max(totals.values(), default=0)
            leaders = [p for p, n in totals.items() if n == best]
            winner = leaders[0] if best > 0 and len(leaders) == 1 else previous
            if winner is None:
                continue
            years[minor] = years.get(minor, 1) + 1 if winner == previous else 1
            control[minor] = winner
        for b in counted:
            holder = control.get(b.minor)
            if holder == b.bidder_for:
                side.append(OrderResult(b, Result.SUCCEEDS))
            elif holder is None:
                side.append(OrderResult(b, Result.FAILS, _("no power won {minor}: it stays uncontrolled", minor=b.minor)))
            else:
                side.append(OrderResult(b, Result.FAILS, _("{power} controls {minor}", power=holder, minor=b.minor)))
        extra = dict(state.extra)
        extra[CONTROL] = control
        extra[CONTROL_YEARS] = {m: n for m, n in years.items() if m in control}
        extra[SP_BANK], extra[SP_LOANS] = bank, loans
        extra.pop(BLOCKADED, None)  # the winter is over
        return state.with_(extra=extra), unit_orders, side

    # --- Supply Points (rule 5) -----------------------------------------------------------------
    def unit_base(self, variant: Variant, state: GameState, power: str) -> int:
        """The units `power`'s centres keep: one a centre, and England one more while it has any."""
        centres = sum(1 for owner in state.supply_centres.values() if owner == power)
        return centres + 1 if self._extra_unit(variant, state, power) and centres > 0 else centres

    def _extra_unit(self, variant: Variant, state: GameState, power: str) -> bool:
        """Rule 11's extra unit is England's while England is a major power."""
        return power == ENGLAND and not self.is_minor(variant, state, power)

    def bank(self, state: GameState) -> dict[str, int]:
        return state.extra.get(SP_BANK, {})  # type: ignore[return-value]

    def accounts(self, variant: Variant, state: GameState) -> dict[str, int]:
        """Each major power's bank once this winter's income and upkeep are counted and last
        winter's loans repaid: what it may convert or lend in the bidding phase of `state`."""
        units: dict[str, int] = {}
        for unit in state.units.values():
            units[unit.power] = units.get(unit.power, 0) + unit.size  # each army and fleet of a multiple unit
        bank = dict(self.bank(state))
        for power in self.major_powers(variant, state):
            bank[power] = bank.get(power, 0) + SP_PER_CENTRE * self.unit_base(variant, state, power) - SP_PER_UNIT * units.get(power, 0)
        for lender, borrower, n in state.extra.get(SP_LOANS, []):  # type: ignore[attr-defined]
            bank[borrower] -= n
            bank[lender] += n
        return bank

    def _supply_points(
        self, variant: Variant, state: GameState, orders: list[Order], side: list[OrderResult]
    ) -> tuple[dict[str, int], list[list[object]], dict[str, int]]:
        """The year's accounts, once the winter's adjustments are made: each major power banks 3
        SPs per centre (England's extra unit is free) less 3 per unit it keeps; last winter's
        loans are repaid; then this winter's conversions to IPs and loans, each from what is in
        the bank. Returns the banks, the new loans and the SPs each power converted."""
        bank = self.accounts(variant, state)
        majors = self.major_powers(variant, state)
        converted: dict[str, int] = {}
        loans: list[list[object]] = []
        for o in sorted(orders, key=lambda o: (type(o) is Loan, o.power, o.location)):  # conversions first
            n = o.points  # type: ignore[attr-defined]
            why: str = ""
            if o.power not in majors:
                why = _("{power} has no Supply Points: only major powers bank them", power=o.power)
            elif type(o) is Loan and (o.location not in majors or o.location == o.power):
                why = _("SPs are lent to another major power, not to {power}", power=o.location)
            elif n < 1:
                why = _("name at least 1 SP")
            elif n > bank[o.power]:
                banked = max(bank[o.power], 0)
                why = _n("{power} has {count} SPs in the bank", "{power} has {count} SPs in the bank", banked,
                         power=o.power)
            if why:
                side.append(OrderResult(o, Result.VOID, why))
                continue
            bank[o.power] -= n
            if type(o) is Convert:
                converted[o.power] = n
            else:
                bank[o.location] += n
                loans.append([o.power, o.location, n])
            side.append(OrderResult(o, Result.SUCCEEDS))
        return bank, loans, converted

    def points_balance(self, variant: Variant, state: GameState, power: str,
                       on_file: Sequence[tuple[str, int]]) -> tuple[int | None, int]:
        available = self.points_available(variant, state, power)
        if available is None:
            return None, 0
        converted = sum(n for text, n in on_file if text.startswith("CONVERT "))
        return available + IP_PER_SP * converted, sum(n for text, n in on_file if text.startswith("IP "))

    def private_status(self, variant: Variant, state: GameState, power: str) -> list[str]:
        if power not in self.major_powers(variant, state):
            return []
        lines = [_("Supply Points in the bank: {points}", points=self.bank(state).get(power, 0))]
        for lender, borrower, n in state.extra.get(SP_LOANS, []):  # type: ignore[attr-defined]
            if borrower == power:
                lines.append(_n("you owe {power} {count} SPs, repaid from your bank this winter",
                                "you owe {power} {count} SPs, repaid from your bank this winter", n, power=lender))
            elif lender == power:
                lines.append(_n("{power} owes you {count} SPs, repaid to your bank this winter",
                                "{power} owes you {count} SPs, repaid to your bank this winter", n, power=borrower))
        return lines

    def private_notes(self, variant: Variant, before: GameState, after: GameState) -> dict[str, list[str]]:
        if before.phase.kind is not PhaseKind.BIDDING:
            return {}
        loans = after.extra.get(SP_LOANS, [])
        return {p: [_("Supply Points in the bank after the winter: {points}", points=self.bank(after).get(p, 0))]
                + [_n("{power} owes you {count} SPs next winter", "{power} owes you {count} SPs next winter", n, power=b)
                   for lender, b, n in loans if lender == p]  # type: ignore[attr-defined]
                + [_n("you owe {power} {count} SPs next winter", "you owe {power} {count} SPs next winter", n,
                      power=lender) for lender, b, n in loans if b == p]  # type: ignore[attr-defined]
                for p in self.major_powers(variant, after)}

    def _bid_refusal(self, variant: Variant, state: GameState, bid: Bid) -> str:
        majors = self.major_powers(variant, state)
        if bid.power not in majors:
            return _("{power} is not a major power and has no IPs", power=bid.power)
        if not self.is_minor(variant, state, bid.minor):
            return _("{power} is not a minor power", power=bid.minor)
        if bid.bidder_for not in majors:
            return _("{power} is not a major power: only a major power's bid can be backed", power=bid.bidder_for)
        if bid.points < 0:
            return _("a bid cannot be negative")
        if bid.bidder_for in self.alienated(state, bid.minor):
            return _("{power} has lost control of {minor} for good and cannot win it back", power=bid.bidder_for,
                     minor=bid.minor)
        return ""

    # --- direct passages (rule 10) -------------------------------------------------------------
    def passages(self, variant: Variant) -> Mapping[frozenset[str], str]:
        if self._passages is None:  # read once: every movement and every X order asks
            found = variant.facts.get("direct_passages", ())
            self._passages = {frozenset((a, b)): sea for a, b, sea in found}  # type: ignore[union-attr, misc]
        return self._passages

    # --- blockades (rule 8) ----------------------------------------------------------------------
    def blockade_refusal(self, variant: Variant, state: GameState, order: Blockade) -> str:
        name = variant.map.name
        fleet_at = state.units[order.province].location
        target = order.target
        if state.phase.season is not Season.FALL:
            return _("a blockade is ordered in an Autumn (Fall) turn")
        if variant.map.provinces[order.province].terrain is not Terrain.SEA:
            return _("only a fleet at sea blockades, not one in {province}", province=name(fleet_at))
        if target not in variant.map.fleet_provinces.get(fleet_at, ()):
            return _("{province} is not next to {other}", province=name(target), other=name(fleet_at))
        unit = state.units[order.province]
        part = acting_part(variant, unit, order)
        if isinstance(part, tuple) and part[0]:
            # "provided it is not carrying an army": the fleets of an A/F may, the rest stands.
            spare = unit.n_fleets - unit.n_armies
            if spare > 0:
                fleets = f"{spare if spare > 1 else 1}F {fleet_at} B {target}"
                # TRANSLATORS: {order} is the order as written: '2F MAO B BRE'
                return _("a fleet carrying an army does not blockade (rule 8): name the fleets that blockade, as "
                         "'{order}'", order=fleets)
            return _("a fleet carrying an army does not blockade (rule 8)")
        if isinstance(part, tuple) and unit.n_armies > unit.n_fleets - part[1]:
            return _("the armies in {province} would be left without fleets to carry them", province=name(fleet_at))
        owners = [p for p, homes in state.home_centres.items() if target in homes and p != order.power]
        if not owners or not state.is_centre(variant.map.provinces, target):
            return _("{province} is no coastal home centre of another power", province=name(target))
        return ""

    def after_movement(self, variant: Variant, state: GameState, results: Sequence[OrderResult]) -> GameState:
        """The Autumn's blockades that held: no fleet is built in those centres this winter."""
        if state.phase.season is not Season.FALL:
            return state
        held = sorted({r.order.target for r in results  # type: ignore[attr-defined]
                       if type(r.order) is Blockade and r.result is Result.SUCCEEDS})
        if not held and BLOCKADED not in state.extra:
            return state
        return state.with_(extra={**state.extra, BLOCKADED: held})

    # --- builds ---------------------------------------------------------------------------------
    def special_build_centres(self, variant: Variant) -> dict[str, dict[str, object]]:
        return variant.facts.get("build_centres", {})  # type: ignore[return-value]

    def build_sites(self, variant: Variant, state: GameState, power: str, built: Sequence[str] = ()) -> set[str]:
        """Home centres and (armies only) every other centre the power holds; Arkangel and
        Sardinia for the power they serve."""
        sites = {p for p, owner in state.supply_centres.items() if owner == power}
        sites |= {p for p, c in self.special_build_centres(variant).items() if c.get("power") == power}
        return sites

    def build_refusal(self, variant: Variant, state: GameState, order: Build) -> str:
        name = variant.map.name(order.province)
        special = self.special_build_centres(variant).get(order.province)
        if special is not None:
            kinds = special.get("units", ["A", "F"])
            if order.unit_type is not None and order.unit_type.value not in kinds:  # type: ignore[operator]
                if kinds == ["F"]:
                    return _("only fleets are built in {province}", province=name)
                return _("only armies are built in {province}", province=name)
            return ""
        homes = state.home_centres.get(order.power, frozenset())
        if order.unit_type is UnitType.FLEET and order.province in state.extra.get(BLOCKADED, ()):  # type: ignore[operator]
            return _("{province} is blockaded: no fleet is built there this winter (rule 8)", province=name)
        if order.unit_type is UnitType.FLEET and order.province not in homes:
            return _("a fleet is built only in a home centre, and {province} is none of {power}'s (rule 9)",
                     province=name, power=order.power)
        return ""

    def unit_allowance(self, variant: Variant, state: GameState, power: str, centres: int) -> int:
        """Rule 11: England keeps one unit more than its centres while it has any. Rule 5: a
        major power keeps one unit more for every 3 SPs in its bank (a debt costs units)."""
        base = centres + 1 if self._extra_unit(variant, state, power) and centres > 0 else centres
        if power not in self.major_powers(variant, state) or centres == 0:
            return base  # a power with no centre keeps no unit, whatever its bank
        return max(0, base + self.bank(state).get(power, 0) // SP_PER_UNIT)

    # --- victory --------------------------------------------------------------------------------
    def strength(self, variant: Variant, state: GameState) -> dict[str, int]:
        """Centres each major power counts for victory: its own and its minor powers'."""
        control = self.control(state)
        counts = {p: 0 for p in self.major_powers(variant, state)}
        for owner in state.supply_centres.values():
            counts_for = control.get(owner, owner)
            if counts_for in counts:
                counts[counts_for] += 1
        return counts

    def winner(self, variant: Variant, state: GameState) -> str | None:
        counts = self.strength(variant, state)
        exceptions: dict[str, int] = variant.facts.get("victory_exceptions", {})  # type: ignore[assignment]
        best = max(counts.values())
        leaders = [p for p, n in counts.items() if n == best]
        if len(leaders) != 1:
            return None
        leader = leaders[0]
        return leader if best >= exceptions.get(leader, variant.victory_centres) else None
