"""Games in the database: creating them, their current phase, the orders on file. (Starting a game
and ending its phases: gm.lifecycle.phases.)"""
from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import NamedTuple

from sqlalchemy import Select, bindparam, literal, select
from sqlalchemy.orm import Session

from gm.engine.adjust import adjustment_counts
from gm.engine.model import RETREATS, GameState, PhaseKind, parse_designation
from gm.engine.variant import Variant
from gm.i18n import Text, _, _n
from gm.store.db import state_from_json
from gm.store.models import (AuditEntry, Game, GamePhase, GameStatus, Master, Observer, OrderRecord, Player,
                             SecretAllocation)
from gm.variants import canonical_name, load_variant


class GameError(ValueError):
    """Something a command asked of a game that cannot be done; the message goes to the sender."""

    def __str__(self) -> str:
        # A Text message stays one (str() of it is the reader's sentence, written in their language)
        message = self.args[0] if len(self.args) == 1 else None
        return message if isinstance(message, Text) else super().__str__()


GAME_NAME_MAX = 64  # the width of games.name
# ASCII only: a Cyrillic 'а' or a Kelvin sign would make a name that looks like another game's.
_GAME_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
GAME_NAME_RULE = _(
    "a game name is 1 to {count} ASCII letters, digits, '-' and '_', starting with a letter or digit; "
    "case does not matter (AE1 is ae1)", count=GAME_NAME_MAX)


def game_name(name: str) -> str:
    """The name as stored (lower case); raises GameError if it breaks GAME_NAME_RULE."""
    name = name.strip()
    if len(name) > GAME_NAME_MAX or not _GAME_NAME.fullmatch(name):
        raise GameError(_why_not(name))
    return name.lower()


def _why_not(name: str) -> str:
    # Name the first non-ASCII character: on screen it may be indistinguishable from an ASCII one.
    odd = next((c for c in name if not c.isascii()), None)
    if odd is not None:
        return _("{rule}; {name} is not ({character} is {character_name})", rule=GAME_NAME_RULE, name=repr(name),
                 character=repr(odd), character_name=unicodedata.name(odd, f"U+{ord(odd):04X}"))
    if len(name) > GAME_NAME_MAX:
        return _n("{rule}; {name} is not ({count} character)", "{rule}; {name} is not ({count} characters)",
                  len(name), rule=GAME_NAME_RULE, name=repr(name))
    return _("{rule}; {name} is not", rule=GAME_NAME_RULE, name=repr(name))


@dataclass
class CurrentPhase:
    row: GamePhase
    state: GameState


def create_game(session: Session, name: str, variant: str, actor: str = "system") -> Game:
    """A new game, forming: players JOIN it until every power is taken."""
    name = game_name(name)
    if session.scalar(select(Game).where(Game.name == name)) is not None:
        raise GameError(_("there is already a game called {game}", game=name))
    unfinished = load_variant(variant).rules.unfinished
    if unfinished:
        raise GameError(_("{variant} cannot be played yet: {why}", variant=load_variant(variant).title,
                          why=unfinished))
    game = Game(name=name, variant=canonical_name(variant), status=GameStatus.FORMING)
    session.add(game)
    session.flush()
    session.add(AuditEntry(game_id=game.id, actor=actor, action="create game", detail={"variant": game.variant}))
    return game


def find_game(session: Session, name: str, *, share_lock: bool = False) -> Game | None:
    """The game called `name`; with `share_lock`, its row locked FOR SHARE to the end of the
    transaction (see gm.mail.commands.Lookups)."""
    try:
        name = game_name(name)
    except GameError:
        return None  # no game can have such a name
    query = select(Game).where(Game.name == name)
    return session.scalar(query.with_for_update(read=True) if share_lock else query)


def variant_of(game: Game) -> Variant:
    return load_variant(game.variant)


def masters(session: Session, game: Game) -> list[str]:
    """The addresses the GM's copies of the game's mail go to (`gm game new --master`)."""
    return [m.email for m in active_masters(session, game)]


def active_masters(session: Session, game: Game) -> list[Master]:
    return list(session.scalars(
        select(Master).where(Master.game_id == game.id, Master.left_at.is_(None)).order_by(Master.id)))


def add_master(session: Session, game: Game, email: str, password_hash: str | None, actor: str = "system") -> Master:
    """A new GM of `game` (an address already a GM of it gets the new password)."""
    email = email.strip().lower()
    master = next((m for m in active_masters(session, game) if m.email == email), None)
    if master is None:
        master = Master(game_id=game.id, email=email)
        session.add(master)
    if password_hash is not None or master.password_hash is None:
        master.password_hash = password_hash
    session.flush()
    session.add(AuditEntry(game_id=game.id, actor=actor, action="add master", detail={"master": email}))
    return master


def observers(session: Session, game: Game) -> list[str]:
    """The addresses that observe `game` (OBSERVE): they get its results mails and broadcast press."""
    return list(session.scalars(select(Observer.email).where(Observer.game_id == game.id, Observer.left_at.is_(None))
                                .order_by(Observer.id)))


def active_players(session: Session, game: Game) -> list[Player]:
    return list(
        session.scalars(
            select(Player).where(Player.game_id == game.id, Player.left_at.is_(None)).order_by(Player.power)
        )
    )


def current_phase(session: Session, game: Game) -> CurrentPhase | None:
    """The phase taking orders: the latest one not yet adjudicated."""
    row = session.scalar(
        select(GamePhase)
        .where(GamePhase.game_id == game.id, GamePhase.adjudicated_at.is_(None))
        .order_by(GamePhase.seq.desc())
        .limit(1)
    )
    return None if row is None else CurrentPhase(row, state_from_json(row.state_json))


def major_powers(session: Session, game: Game) -> list[str]:
    """The powers players play in the game now: the variant's great powers, unless its rules
    made a minor power major in play (Napoleonic Wars, rule 12)."""
    variant = variant_of(game)
    current = current_phase(session, game)
    return variant.great_powers if current is None else variant.rules.major_powers(variant, current.state)


class OnFile(NamedTuple):
    """One order (or allocation) on file, as the acknowledgement shows it."""

    unit: str
    canonical: str
    points: int  # of an allocation; 0 for an order
    entered_by: str | None = None  # the GM who entered it (ORDER, DP); None: the power's player


def on_file_by_power(session: Session, table: type[OrderRecord] | type[SecretAllocation],
                     phase: GamePhase) -> dict[str, list[OnFile]]:
    """What each power has on file for `phase` in `table` (orders or allocations), oldest first:
    one query for the whole phase, whose players send their mail together. Plain rows, not
    objects: they are read for every batch of acknowledgements."""
    out: dict[str, list[OnFile]] = {}
    for power, *entry in session.connection().execute(_SELECT_ON_FILE[table], {"for_phase": phase.id}):
        out.setdefault(power, []).append(OnFile(*entry))
    return out


def _select_on_file(
        table: type[OrderRecord] | type[SecretAllocation]) -> Select[tuple[str, str, str, int, str | None]]:
    t = table.__table__
    points = t.c.points if table is SecretAllocation else literal(0)
    return (
        select(t.c.power, t.c.unit, t.c.canonical, points, t.c.entered_by)
        .where(t.c.phase_id == bindparam("for_phase"), t.c.current.is_(True))
        .order_by(t.c.id)
    )


_SELECT_ON_FILE = {table: _select_on_file(table) for table in (OrderRecord, SecretAllocation)}  # built once


def add_on_file(view: list[OnFile], entry: OnFile) -> None:
    """A new entry on file: it replaces the one for the same unit (a waive, unit '', never does)."""
    if entry.unit:
        view[:] = [o for o in view if o.unit != entry.unit]
    view.append(entry)


def adjustments_in(canonical: str) -> int:
    """How many builds or removals an order on file makes: one, or with multiple units as many as
    the armies and fleets it names ('Build 2A PAR', '2A/F BUR D')."""
    words = canonical.split()
    word = words[1] if words[0] == "Build" and len(words) > 1 else words[0]
    parts = parse_designation(word) if canonical.startswith("Build ") or canonical.endswith(" D") else None
    return sum(parts) if parts else 1


def orders_on_file(session: Session, phase: GamePhase, power: str) -> list[OnFile]:
    """The orders `power` has on file for `phase`, oldest first."""
    return on_file_by_power(session, OrderRecord, phase).get(power, [])


_BOARDED_WITH_MOVES = re.compile(r" E F (\S+) - ")  # 'A TUN E F BOT - ION': the fleet in BOT is ordered


def units_without_orders(variant: Variant, state: GameState, power: str, on_file: list[OnFile]) -> list[str]:
    """Units `power` commands (its own; in Napoleonic Wars, also its minor powers') that still
    have no order (movement and retreat phases: dislodged units that may retreat)."""
    ordered = {r.unit.partition(" ")[0] for r in on_file}  # 'BUR 1': an order for a part of the unit in BUR
    # a boarding with the fleet's moves written beside it orders the fleet too (engine.multiple.carried)
    ordered |= {m[1].partition("/")[0] for r in on_file if (m := _BOARDED_WITH_MOVES.search(r.canonical))}
    if state.phase.kind in RETREATS:
        units = [d.unit for d in state.dislodged.values() if d.retreats]
    elif state.phase.kind is PhaseKind.MOVEMENT:
        units = list(state.units.values())
    else:
        return []
    commander = variant.rules.commander
    return sorted(str(u) for u in units
                  if u.province not in ordered and commander(variant, state, u.power) == power)


def orders_due(session: Session, variant: Variant, current: CurrentPhase, power: str) -> tuple[int, int]:
    """How many orders `power` has on file in the current phase, and how many it is due: one per
    unit it commands in movement and retreat phases, one per build or removal in adjustment phases,
    and its bids in a bidding phase."""
    state = current.state
    commander = variant.rules.commander
    if state.phase.kind is PhaseKind.BIDDING:  # its bids, secret: any one (IP 0 included) will do
        bids = on_file_by_power(session, SecretAllocation, current.row).get(power, [])
        due = 1 if variant.rules.points_available(variant, state, power) else 0
        return min(len(bids), due), due
    given = orders_on_file(session, current.row, power)
    if state.phase.kind is PhaseKind.ADJUSTMENT:  # its own and its minor powers' builds and removals
        due = sum(abs(n) for p, n in adjustment_counts(variant, state).items() if commander(variant, state, p) == power)
        return min(sum(adjustments_in(o.canonical) for o in given), due), due
    due = len(units_without_orders(variant, state, power, []))  # every unit it commands
    return due - len(units_without_orders(variant, state, power, given)), due


MASTER_LETTER = "M"  # njudge's letter for the GM, in every variant: no power has it (see power_letters)


def power_letters(variant: Variant) -> dict[str, str]:
    """Letter -> great power, for njudge's SIGNON <letter><game>: a power's letter is the first of
    its name when no other great power's name begins with it; powers that share a first letter
    (and a power whose name begins with M, njudge's GM) take, in the variant's order, the first
    letter of their name that begins no other power's name and is not taken: Ambition & Empire's
    Poland-Saxony O, Prussia U, Spain I, Sweden W; Classical's Macedon A."""
    powers = variant.great_powers
    firsts = [power[:1].upper() for power in powers]
    shared = {c for c in firsts if firsts.count(c) > 1} | {MASTER_LETTER}
    letters = {c: power for power, c in zip(powers, firsts, strict=True) if c not in shared}
    for power, c in zip(powers, firsts, strict=True):
        if c in shared:
            taken = {*firsts, *letters, MASTER_LETTER}
            letter = next((ch for ch in power.upper() if ch.isalpha() and ch.isascii() and ch not in taken), None)
            if letter is not None:
                letters[letter] = power
    return letters
