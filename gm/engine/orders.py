"""Orders as typed values. Text lives only in parse.py; str() gives the canonical form."""
from __future__ import annotations

from dataclasses import dataclass, field

from gm.engine.model import UnitType, designation, province_of
from gm.i18n import _p


@dataclass(frozen=True, slots=True)
class Order:
    """An order for the unit a power believes is at `location`.

    `unit_type` is None when the player left it out; the engine then takes whatever unit is there.
    """

    power: str
    unit_type: UnitType | None
    location: str
    province: str = field(init=False, repr=False, compare=False)  # the location without coast
    # Where the variant plays multiple units: the exact part of the unit that carries the order
    # out, (armies, fleets), when the player wrote one ('A/F MAO', '2A BUR'); None: the unit as
    # `unit_type` names it (all of its armies, all of its fleets, or the whole unit).
    part: tuple[int, int] | None = field(default=None, kw_only=True)

    def __post_init__(self) -> None:
        object.__setattr__(self, "province", province_of(self.location))

    def _unit(self) -> str:
        if self.part is not None:
            # '1A': one army of a multiple unit; a plain 'A' names all of its armies.
            written = designation(*self.part)
            return f"{'1' + written if written in ('A', 'F') else written} {self.location}"
        return f"{self.unit_type.value if self.unit_type else '?'} {self.location}"


@dataclass(frozen=True, slots=True)
class Hold(Order):
    def __str__(self) -> str:
        return f"{self._unit()} H"


@dataclass(frozen=True, slots=True)
class Move(Order):
    dest: str  # location; may name a coast
    via_convoy: bool = False
    # Multiple units: the unit joins the power's unit in `dest`, or its other units merging there,
    # rather than standing them off (MERGE; an army's E(mbark) onto its fleet at sea).
    merge: bool = False
    # An army boarding its fleet, with the fleet's moves written beside it ('A TUN E F BOT - ION -
    # AEG'): the fleet's order where it has no other.
    carrier: tuple[str, ...] = field(default=(), kw_only=True)

    def __str__(self) -> str:
        if self.carrier:
            return f"{self._unit()} E F {' - '.join((self.dest, *self.carrier))}"
        return f"{self._unit()} - {self.dest}" + (" VIA CONVOY" if self.via_convoy else "") + (" MERGE" if self.merge else "")


@dataclass(frozen=True, slots=True)
class SupportHold(Order):
    target: str  # province of the supported unit
    target_type: UnitType | None = None

    def __str__(self) -> str:
        t = f"{self.target_type.value} " if self.target_type else ""
        return f"{self._unit()} S {t}{self.target}"


@dataclass(frozen=True, slots=True)
class SupportMove(Order):
    target: str  # province the supported unit moves from; '': the units merging into `dest`
    dest: str  # province it moves to, with a coast only when the player named one
    target_type: UnitType | None = None

    def __str__(self) -> str:
        if not self.target:
            return f"{self._unit()} S MERGE {self.dest}"  # Multiplicity II: 'A(Par) S MERGE (Bur)'
        t = f"{self.target_type.value} " if self.target_type else ""
        return f"{self._unit()} S {t}{self.target} - {self.dest}"


@dataclass(frozen=True, slots=True)
class Convoy(Order):
    target: str  # province of the convoyed army
    dest: str  # province it goes to

    def __str__(self) -> str:
        return f"{self._unit()} C A {self.target} - {self.dest}"


@dataclass(frozen=True, slots=True)
class Deny(Order):
    """A fleet closes the direct passage between two land spaces across its sea to other powers'
    armies this turn (Napoleonic Wars' X order). It stays where it is, as a hold would."""

    side: str  # one end of the passage
    other_side: str  # the other end

    @property
    def passage(self) -> frozenset[str]:
        return frozenset((self.side, self.other_side))

    def __str__(self) -> str:
        return f"{self._unit()} X {self.side}-{self.other_side}"


@dataclass(frozen=True, slots=True)
class Blockade(Order):
    """A fleet at sea blockades a coastal home centre next to it for the season (Napoleonic
    Wars' B order): it stays where it is, as a hold would."""

    target: str  # the province blockaded

    def __str__(self) -> str:
        return f"{self._unit()} B {self.target}"


@dataclass(frozen=True, slots=True)
class Retreat(Order):
    dest: str

    def __str__(self) -> str:
        return f"{self._unit()} R {self.dest}"


@dataclass(frozen=True, slots=True)
class Disband(Order):
    """Disband a dislodged unit in a retreat phase, or remove a unit in an adjustment phase."""

    def __str__(self) -> str:
        return f"{self._unit()} D"


@dataclass(frozen=True, slots=True)
class Build(Order):
    def __str__(self) -> str:
        return f"Build {self._unit()}"


@dataclass(frozen=True, slots=True)
class Waive(Order):
    """Decline one build. `unit_type` and `location` are unused."""

    def __str__(self) -> str:
        return "Waive"


def waive(power: str) -> Waive:
    return Waive(power, None, "")


@dataclass(frozen=True, slots=True)
class Allocation(Order):
    """Secret points (Diplomacy Points in A&E) that `power` puts behind an order for a minor
    power's unit. `location` is that unit's; `order` is the order as written (its `power` is the
    allocating power until the variant's rules make it the minor power's order)."""

    points: int = 1
    order: Order | None = None

    def __str__(self) -> str:
        return f"DP {self.points} {self.order}"


@dataclass(frozen=True, slots=True)
class Bid(Order):
    """Secret points (Influence Points in Napoleonic Wars) that `power` bids for control of the
    minor power named in `location`, for itself or in support of `beneficiary`'s bid."""

    points: int = 0
    beneficiary: str = ""  # the power the bid is for; '' or `power`: its own bid

    @property
    def minor(self) -> str:
        return self.location

    @property
    def bidder_for(self) -> str:
        return self.beneficiary or self.power

    def __str__(self) -> str:
        behind = f" FOR {self.beneficiary}" if self.beneficiary and self.beneficiary != self.power else ""
        return f"IP {self.points} {self.location}{behind}"


@dataclass(frozen=True, slots=True)
class Loan(Order):
    """Secret: `power` lends `points` of its banked Supply Points to the power named in
    `location` for a year (Napoleonic Wars)."""

    points: int = 0

    @property
    def borrower(self) -> str:
        return self.location

    def __str__(self) -> str:
        return f"LOAN {self.points} {self.location}"


@dataclass(frozen=True, slots=True)
class Convert(Order):
    """Secret: `power` turns `points` of its banked Supply Points into twice as many Influence
    Points this winter (Napoleonic Wars). `location` is always CONVERT: a later one replaces it."""

    points: int = 0

    def __str__(self) -> str:
        return f"CONVERT {self.points}"


def convert(power: str, points: int) -> Convert:
    return Convert(power, None, "CONVERT", points)


@dataclass(frozen=True, slots=True)
class Promote(Order):
    """`power` makes the minor power named in `location`, which it controls, its major power,
    and becomes a minor power itself (Napoleonic Wars, rule 12). Public once adjudicated."""

    @property
    def minor(self) -> str:
        return self.location

    def __str__(self) -> str:
        return f"PROMOTE {self.location}"


@dataclass(frozen=True, slots=True)
class TwoPhase(Order):
    """A fleet's orders for both of its moves in a turn (Napoleonic Wars): `first` with every
    unit's orders, `second` after all first moves and their retreats, written for the fleet
    where the first leaves it ('F NTH - ENG - MAO'; 'F IRI H THEN F IRI S F ENG - MAO')."""

    first: Order
    second: Order

    def __str__(self) -> str:
        if type(self.first) is Move and type(self.second) is Move:
            return f"{self.first} - {self.second.dest}"  # type: ignore[attr-defined]
        return f"{self.first} THEN {self.second}"


@dataclass(frozen=True, slots=True)
class SecondPhase(Order):
    """The second move (or support of one) of a fleet, as its result is reported."""

    order: Order

    def __str__(self) -> str:
        return f"{self.order} (second move)"


@dataclass(frozen=True, slots=True)
class Steps(Order):
    """A unit's orders for a turn of impulses (1700AD II, rules 4 and 6): its steps in the order
    they are made, each written for the unit where the step before leaves it, and the impulse
    points each step spends: more than one makes it an action at that strength
    ('A FIN - KAR (x2)'; 'A SCA H THEN A SCA - GOT'; 'CXII GOT H THEN CXII GOT - DEN (x2)')."""

    steps: tuple[Order, ...]
    points: tuple[int, ...]

    def __str__(self) -> str:
        return " THEN ".join(_with_points(step, n) for step, n in zip(self.steps, self.points))


def _with_points(order: Order, points: int) -> str:
    return f"{order} (x{points})" if points > 1 else str(order)


@dataclass(frozen=True, slots=True)
class Step(Order):
    """One step of a unit's Steps, as its result is reported: made in `impulse` with `points`.
    `location` is where the unit stood when the turn began."""

    order: Order
    impulse: int
    points: int = 1

    def __str__(self) -> str:
        return f"{_with_points(self.order, self.points)} (impulse {self.impulse})"

    @property
    def sort_key(self) -> str:
        """Sorts a unit's steps together, in their impulses: '2F SCA', then the impulse."""
        return f"{str(self.order).split()[0]} {self.location}\x00{self.impulse}"


@dataclass(frozen=True, slots=True)
class Permit(Order):
    """`power` lets the power named in `location` stand its fleets in its provinces and trace
    supply through its units, from now on (1700AD II, rules 8 and 9); with `revoke`, no longer."""

    revoke: bool = False

    def __str__(self) -> str:
        return f"{'REVOKE' if self.revoke else 'PERMIT'} {self.location}"


# Orders only their power and the GM ever see.
SECRET_ORDERS = frozenset({Allocation, Bid, Loan, Convert})


@dataclass(frozen=True, slots=True)
class DeclareHome(Order):
    """A power names a centre as its new home centre, where the variant's rules let it choose."""

    def __str__(self) -> str:
        return f"HOME {self.location}"


# What a reader calls each kind of order, where a reason names the kind ('retreat orders are not
# given in a movement phase'): the class's name is no word of the reader's.
_KIND_NAMES = {
    Hold: _p("kind of order", "hold"), Move: _p("kind of order", "move"),
    SupportHold: _p("kind of order", "support"), SupportMove: _p("kind of order", "support"),
    Convoy: _p("kind of order", "convoy"), Deny: _p("kind of order", "deny"),
    Blockade: _p("kind of order", "blockade"), Retreat: _p("kind of order", "retreat"),
    Disband: _p("kind of order", "disband"), Build: _p("kind of order", "build"),
    Waive: _p("kind of order", "waive"), Allocation: _p("kind of order", "allocation"),
    Bid: _p("kind of order", "bid"), Loan: _p("kind of order", "loan"), Convert: _p("kind of order", "convert"),
    Promote: _p("kind of order", "promote"), Permit: _p("kind of order", "permit"),
    DeclareHome: _p("kind of order", "declarehome"),
}


def kind_name(order: Order) -> str:
    """The kind of `order` as a reader names it (a Text; the class's name in lower case in English)."""
    return _KIND_NAMES.get(type(order), type(order).__name__.lower())
