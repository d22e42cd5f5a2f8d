"""Orders of secret points: Diplomacy Points behind an order for a minor power's unit ('DP 2 A
Swi S F Mar - Pie'), Influence Point bids for a minor power ('IP 3 Denmark', 'IP 2 Denmark FOR
France'), Supply Points lent or turned into IPs ('LOAN 3 France', 'CONVERT 2'). Whether a
variant takes them is its rules' to say: the reader reads them everywhere."""
from __future__ import annotations

import re

from gm.engine.model import GameState, PhaseKind
from gm.engine.notation.names import resolve_power
from gm.engine.notation.reader import ParsedOrder, Reader
from gm.engine.orders import Allocation, Bid, Loan, convert
from gm.engine.variant import Variant
from gm.i18n import _

_ALLOCATION = re.compile(r"\s*(DP|IP)\b\s*:?\s*(\d+)?\s*(?:points?\b|dps?\b)?\s*:?\s*(.*)$", re.IGNORECASE | re.DOTALL)
_BID = re.compile(r"\s*(?:IPs?|BIDS?)\b\s*:?\s*(.*)$", re.IGNORECASE | re.DOTALL)
# 'LOAN 3 France', 'LOAN 3 SPs to France', 'CONVERT 2', 'CONVERT 2 SP to IP': Supply Points.
_MONEY = re.compile(r"\s*(LOAN|LEND|CONVERT)\b\s*:?\s*(.*)$", re.IGNORECASE | re.DOTALL)
_BID_POINTS = re.compile(r"(?<![\w-])(\d+)\s*(?:IPs?\b|points?\b)?", re.IGNORECASE)
_BID_ON = re.compile(r"^(?:on|for|to|in)\s+", re.IGNORECASE)
_BID_BEHIND = re.compile(r"\s+(?:for|supporting|backing|behind|in\s+support\s+of)\s+", re.IGNORECASE)


def match(words: str) -> re.Match[str] | None:
    """A bid, an allocation or a Supply Point order, by its first word."""
    return _BID.match(words) or _ALLOCATION.match(words) or _MONEY.match(words)


def parse(variant: Variant, text: str, found: re.Match[str], power: str, phase_kind: PhaseKind,
          state: GameState | None, read: Reader) -> ParsedOrder:
    """The order `match` found; `read` reads the order an allocation stands behind."""
    if found.re is _BID:
        bid, why = _read_bid(variant, found.group(1), power)
        if bid is not None and phase_kind is not PhaseKind.BIDDING:
            return ParsedOrder(text, None, _("IP bids for minor powers are made in the winter bidding phase"))
        if bid is None and phase_kind is PhaseKind.BIDDING:
            return ParsedOrder(text, None, why)
        if bid is not None:
            return ParsedOrder(text, bid, None)
        allocation = _ALLOCATION.match(found.string)  # not a bid: a DP/IP allocation behind an order
        if allocation is None:
            return ParsedOrder(text, None, why)
        found = allocation
    if found.re is _MONEY:
        return _parse_money(variant, text, found, power, phase_kind)
    return _parse_allocation(variant, text, found, power, phase_kind, state, read)


def _read_bid(variant: Variant, rest: str, power: str) -> tuple[Bid | None, str]:
    """'3 Denmark', '3 IPs on Denmark', 'Denmark 3', '2 Denmark FOR France' -> the bid, or why not."""
    found = _BID_POINTS.search(rest)
    if found is None:
        return None, _("a bid names its IPs and the minor power: IP 3 Denmark (or IP 2 Denmark FOR France)")
    words = re.sub(r"[(),;:]", " ", rest[:found.start()] + " " + rest[found.end():]).strip()
    minor_text, _sep, backed_text = _BID_BEHIND.sub("\0", " " + _BID_ON.sub("", words) + " ", count=1).strip().partition("\0")
    minor = resolve_power(variant, minor_text.strip()) if minor_text.strip() else None
    if minor is None:  # whether it is a minor power now is the rules' to judge (rule 12 promotions)
        named, minors = minor_text.strip(), ", ".join(p.name for p in variant.powers.values() if p.minor)
        if named and minors:
            # TRANSLATORS: {name} is the player's word, quoted; {minors} the minor powers' names
            return None, _("{name} is no minor power; the minor powers are {minors}", name=repr(named), minors=minors)
        if named:
            return None, _("{name} is no minor power", name=repr(named))
        if minors:
            return None, _("the bid names no minor power; the minor powers are {minors}", minors=minors)
        return None, _("the bid names no minor power")
    backed = power
    if backed_text.strip():
        found_power = resolve_power(variant, backed_text.strip())
        if found_power is None:
            return None, _("{name} is no power to back", name=repr(backed_text.strip()))
        backed = found_power
    return Bid(power, None, minor, int(found.group(1)), "" if backed == power else backed), ""


def _parse_money(variant: Variant, text: str, match: re.Match[str], power: str, phase_kind: PhaseKind) -> ParsedOrder:
    """LOAN <n> <power> and CONVERT <n>: Supply Points lent for a year, or turned into IPs."""
    if phase_kind is not PhaseKind.BIDDING:
        return ParsedOrder(text, None, _("Supply Points are lent and converted in the winter bidding phase"))
    kind, rest = match.group(1).upper(), match.group(2)
    found = re.search(r"(?<![\w-])(\d+)\s*(?:SPs?\b|supply\s+points?\b)?", rest, re.IGNORECASE)
    if found is None:
        return ParsedOrder(text, None, _("name the Supply Points: LOAN 3 France, CONVERT 2"))
    n = int(found.group(1))
    words = (rest[:found.start()] + " " + rest[found.end():]).strip()
    if kind == "CONVERT":
        if words and not re.fullmatch(r"(?:(?:to|into)\s+)?(?:IPs?|influence\s+points?)?", words, re.IGNORECASE):
            return ParsedOrder(text, None, _("CONVERT takes only a number of SPs, not {words}", words=repr(words)))
        return ParsedOrder(text, convert(power, n), None)
    words = re.sub(r"^(?:to|for)\s+", "", words, flags=re.IGNORECASE)
    borrower = resolve_power(variant, words) if words else None
    if borrower is None:
        return ParsedOrder(text, None, _("name the power the SPs are lent to: LOAN {number} <power>", number=n))
    return ParsedOrder(text, Loan(power, None, borrower, n), None)


def _parse_allocation(variant: Variant, text: str, found: re.Match[str], power: str, phase_kind: PhaseKind,
                      state: GameState | None, read: Reader) -> ParsedOrder:
    """'DP 2 A Swi S F Mar - Pie': points behind an order for a minor power's unit."""
    kind, count, rest = found.group(1).upper(), found.group(2), found.group(3)
    if phase_kind is not PhaseKind.MOVEMENT:
        # TRANSLATORS: {points} is DP or IP (Diplomacy or Influence Points)
        return ParsedOrder(text, None, _("{points} allocations are only accepted in a movement phase", points=kind))
    points = int(count) if count else 1
    if points < 1:
        return ParsedOrder(text, None, _("an allocation needs at least 1 {points}", points=kind))
    if not rest.strip():
        return ParsedOrder(text, None, _("missing the order after {points} {number}", points=kind, number=points))
    inner = read(variant, rest, rest, power, PhaseKind.MOVEMENT, state)
    if inner.order is None:
        return ParsedOrder(text, None, _("in the {points} allocation: {reason}", points=kind, reason=inner.error))
    o = inner.order
    return ParsedOrder(text, Allocation(power, o.unit_type, o.location, points, o), None)
