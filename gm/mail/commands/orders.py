"""Any line that is no command: an order, or a secret point allocation, for the signed-on power."""
from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

from sqlalchemy import Update, bindparam, insert, tuple_, update
from sqlalchemy.orm import Session

from gm.engine.adjudicator import check_order, order_warning
from gm.engine.model import PhaseKind, Unit, UnitType, parse_designation, province_of
from gm.engine.multiple import parts_stand_together
from gm.engine.orders import SECRET_ORDERS, Allocation, Build, Disband, Order, Permit, Retreat, Waive
from gm.engine.parse import order_texts, parse_order, spell_order
from gm.engine.variant import Variant
from gm.games import CurrentPhase, GameError, OnFile, add_on_file, variant_of
from gm.i18n import ENGLISH, _
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.phases import mark_orders_changed
from gm.lifecycle.players import undo_civil_disorder
from gm.mail.commands import (
    MASTERS_ONLY,
    Context,
    Lines,
    Lookups,
    command_for,
    command_words,
    is_master_command,
    masked,
    password_in,
)
from gm.mail.outgoing.game_mail import queue_announcement
from gm.mail.intake.reply_text import no_order_meant
from gm.mail.commands.unknown_command import order_words, unknown_command, unknown_word
from gm.mail.intake.written import CLOCK_SKEW, Written, before, written
from gm.variants import load_variant
from gm.store.models import Game, GamePhase, GameStatus, OrderRecord, Player, SecretAllocation, utcnow
from gm.view.results import moment_text

NAME = "<order>"


def run(ctx: Context, line: str) -> None:
    if password_in(line) is not None:  # a misspelt SIGNON, JOIN or SET PASSWORD
        ctx.reject(masked(line), _("not a command: did you mean SIGNON, JOIN or SET PASSWORD? (see HELP)"))
        return
    if ctx.master is None and _masters_command(line):  # 'PAUSE' from a player: say whose command it is
        ctx.reject(line, MASTERS_ONLY)
        return
    names = command_words(master=ctx.master is not None)
    unknown = unknown_command(line, names)
    if unknown is None and no_order_meant(line, order_words()):
        return  # prose, a link, a phone number: no order was meant, so none is answered as wrong
    unknown = unknown or unknown_word(line, names)  # 'FROBNICATE': a command, not an unknown province
    if unknown is not None and not _reads_as_order(ctx, line):
        ctx.reject(line, unknown)
        return
    if ctx.master is not None:
        ctx.reject(line, _("not a GM command (HELP lists them); the GM gives an order for a power with "
                           "ORDER <power> <order>"))
        return
    if ctx.player is None or ctx.game is None:
        ctx.reject(line, _("not a command, and not an order: sign on first (SIGNON <power> <game> <password>)"))
        return
    if ctx.game.status != GameStatus.ACTIVE:
        ctx.reject(line, _("{game} is not under way: it takes no orders", game=ctx.game.name))
        return
    phase = ctx.phase()
    if phase is None:
        ctx.reject(line, _("{game} takes no orders now", game=ctx.game.name))
        return
    late = too_late(ctx, phase.row)
    if late:
        ctx.reject(line, late)
        return
    variant = variant_of(ctx.game)
    power = ctx.player.power
    assert power is not None
    language = ctx.language()  # the reader's order words are read first, then English's
    for text in order_texts(variant, line):  # 'Builds: A(Fin), A(Dal).' is two orders (1700AD II)
        parsed = parse_order(variant, text, power, phase.state.phase.kind, phase.state, language=language)
        if parsed.order is None:
            ctx.reject(text, parsed.error or _("not understood"))
            continue
        order = parsed.order
        if order.power != power:
            ctx.reject(text, _("you are signed on as {power}", power=power))
            continue
        why = check_order(variant, phase.state, order)
        if why:
            ctx.reject(text, why)
            continue
        warning = order_warning(variant, phase.state, order)
        order, shown = _secret_echo(ctx, phase, order)
        store(ctx, phase.row.id, order, text)
        notes = _named_otherwise(variant, order)
        own = spell_order(variant, shown, language) if language != ENGLISH else shown
        if own != shown:  # the order in the reader's words, and in the judge's
            shown = _("{own} ({order})", own=own, order=shown)
        if notes:
            shown = _("{order} ({notes})", order=shown, notes=notes)
        ctx.accept(text, _("{order} (warning: {warning})", order=shown, warning=warning) if warning else shown)


def _masters_command(line: str) -> bool:
    """Whether `line` is a GM's command (read as one only after SIGNON MASTER) that is neither an
    order ('DP 1 ...' is a player's allocation too) nor near a player's command ('DRAW': PROPOSE
    DRAW is the player's, and the nearest commands say so better)."""
    command, _ = command_for(line, master=True)
    if command is None or not is_master_command(command):
        return False
    first = line.split()[0].upper().strip(".:")
    players_words = {word for name in command_words() for word in name.split()}
    return first.lower() not in order_words() and first not in players_words


def _reads_as_order(ctx: Context, line: str) -> bool:
    """Whether `line` reads as an order of the signed-on power now (a line that also looks like a
    misspelt command is an order if it reads as one)."""
    if ctx.master is not None or ctx.player is None or ctx.game is None or ctx.game.status != GameStatus.ACTIVE:
        return False
    phase = ctx.phase()
    if phase is None or ctx.player.power is None:
        return False
    variant = variant_of(ctx.game)
    language = ctx.language()
    return any(parse_order(variant, text, ctx.player.power, phase.state.phase.kind, phase.state,
                           language=language).order is not None for text in order_texts(variant, line))


def _secret_echo(ctx: Context, phase: CurrentPhase, order: Order) -> tuple[Order, str]:
    """A secret allocation as it is kept and acknowledged: with the kind of the unit it is behind
    (the one standing there, where the line left it out: 'DP 1 HEW H' is 'DP 1 A HEW H'), and
    the allocation on the same unit that it replaces named. Any other order: as it is."""
    if type(order) not in SECRET_ORDERS:
        return order, str(order)
    unit = phase.state.units.get(order.province)
    inner = getattr(order, "order", None)
    if type(order) is Allocation and order.unit_type is None and unit is not None and inner is not None:
        order = replace(order, unit_type=unit.type, order=replace(inner, unit_type=unit.type))
    assert ctx.game is not None
    key = unit_key(order, variant_of(ctx.game).rules.impulses > 1 and phase.state.phase.kind is PhaseKind.MOVEMENT)
    earlier = [o.canonical for o in ctx.lookups.on_file(SecretAllocation, phase.row, order.power) if key and o.unit == key]
    if earlier:
        return order, _("{order} (replaces {earlier})", order=str(order), earlier=earlier[-1])
    return order, str(order)


def _named_otherwise(variant: Variant, order: Order) -> str | None:
    """'HOL is Holstein here' for each abbreviation in the order that names another place on
    the standard map, which players know by heart: 'A Han-Hol' on a map where HOL is Holstein."""
    if variant.name == "standard":
        return None
    standard = _standard_provinces()
    notes = []
    for abbr in dict.fromkeys(_places(order)):
        here, there = variant.map.provinces.get(abbr), standard.get(abbr)
        if here is not None and there is not None and _plain(here.name) != _plain(there.name):
            notes.append(_("{abbreviation} is {province} here", abbreviation=abbr, province=here.name))
    return Lines(notes, "; ") if notes else None


@functools.cache
def _standard_provinces() -> dict[str, Any]:
    return load_variant("standard").map.provinces


def _places(order: Order) -> list[str]:
    """The provinces an order names, the unit's first, those of an order inside it too."""
    found = [province_of(getattr(order, name)) for name in ("location", "target", "dest") if getattr(order, name, "")]
    inner = getattr(order, "order", None)
    return found + (_places(inner) if isinstance(inner, Order) else [])


def _plain(name: str) -> str:
    return "".join(c for c in name.lower() if c.isalpha())


def too_late(ctx: Context, phase: GamePhase) -> str | None:
    """Why an order of this mail cannot go to `phase`: the mail was written before the phase
    opened, so its orders were meant for the phase before, which is adjudicated. None when it may.
    What the judge knows decides first (the mail of its own the mail answers, the phase it names:
    gm.mail.intake.written), the Date header only where that tells nothing, to the second; a mail without
    a Date counts as written now."""
    dated = ctx.message.date
    if dated is None or phase.seq <= 1 or not before(dated, phase.opened_at):
        return None
    assert ctx.game is not None
    known = _written(ctx, ctx.game)
    if known.after is not None and known.after >= phase.opened_at:
        return None  # it answers mail the judge sent once the phase was open: the Date's clock is wrong
    if not known.answers and not before(dated, phase.opened_at, CLOCK_SKEW):
        return None  # nothing else tells: a clock a little slow is given the benefit of the doubt
    previous = ctx.lookups.previous_phase(phase)
    label = phase_name(previous.label) if previous is not None else _("the previous phase")
    when = previous.adjudicated_at if previous is not None and previous.adjudicated_at else phase.opened_at
    at = moment_text(when, rules_of(ctx.game.options).timezone)
    return _("too late: {phase} was adjudicated at {at}; this order was not applied to {next}", phase=label, at=at,
             next=phase_name(phase.label))


def _written(ctx: Context, game: Game) -> Written:
    """gm.mail.intake.written.written, once a mail and game: too_late asks for each order line."""
    cache = ctx.session.info.setdefault(_WRITTEN, {})
    key = (id(ctx.message), game.id)
    found = cache.get(key)
    if found is None or found[0] is not ctx.message:
        if len(cache) > 64:
            cache.clear()
        found = cache[key] = (ctx.message, written(ctx.session, ctx.message, game))
    return found[1]


_WRITTEN = "gm.written"  # session.info: what gm.mail.intake.written found of the mails read in the session


def unit_key(order: Order, turn: bool = False) -> str:
    """Which earlier order a new one replaces: the one for the same unit (waives never replace).
    Orders for parts of a multiple unit are keyed apart: see _part_keys. In a `turn` whose orders
    hold its retreats, builds and removals too (1700AD II), each kind is keyed apart, and a
    province's fleets apart from its land unit."""
    kind = type(order)
    if kind is Waive:
        return ""
    if turn and kind in _TURN_KINDS:
        return f"{_TURN_KINDS[kind]} {order.location if kind is Permit else order.province}"
    if turn and (order.part[1] if order.part else order.unit_type is UnitType.FLEET):
        return f"{order.province} F"
    return order.province


_TURN_KINDS = {Retreat: "retreat", Build: "build", Disband: "remove", Permit: "permit"}


def _part_keys(order: Order, key: str, view: list[OnFile], unit: Unit | None) -> tuple[str, set[str]]:
    """Multiple units: the new order's key, and the keys of the orders on file it replaces. An
    order for a whole unit replaces its parts' orders; an order for a part ('1A BUR S ...') is
    kept beside the other parts' (keys 'BUR 1', 'BUR 2'), replacing the whole unit's order, and
    the earliest part orders go while the parts on file add up to more than the unit or hold
    two moves: what the resolver lets stand together (gm.engine.multiple)."""
    mine = [o for o in view if o.unit == key or o.unit.startswith(key + " ")]
    if order.part is None:
        return key, {o.unit for o in mine}
    kept = [(o.unit, o.canonical) for o in mine if o.unit != key] + [("", str(order))]
    while len(kept) > 1 and not _fit(unit, [text for _, text in kept]):
        kept.pop(0)
    used = {k for k, _ in kept}
    new_key = next(f"{key} {n}" for n in range(1, len(view) + 2) if f"{key} {n}" not in used)
    return new_key, {o.unit for o in mine} - used


def _fit(unit: Unit | None, texts: list[str]) -> bool:
    """Can orders for parts of `unit` (canonical texts, '1A BUR S A PAR - PIC') stand together?"""
    return parts_stand_together(unit, [(parse_designation(text.split()[0]) or (0, 0), text.split()[2:3] == ["-"])
                                       for text in texts])


def store(ctx: Context, phase_id: int, order: Order, line: str) -> None:
    """Keep the order for write_orders (one statement per table for a whole batch of mails, not
    two per line), and show it on file at once. An order of the signed-on player, or one the GM
    enters for a power (ORDER, DP): then entered_by names the GM, and the player is the power's
    own (None when nobody plays it)."""
    table = SecretAllocation if type(order) in SECRET_ORDERS else OrderRecord
    assert ctx.game is not None and (ctx.player is not None or ctx.master is not None)
    current = ctx.phase()
    assert current is not None and current.row.id == phase_id
    key = unit_key(order, variant_of(ctx.game).rules.impulses > 1 and current.state.phase.kind is PhaseKind.MOVEMENT)
    view = ctx.lookups.on_file(table, current.row, order.power)  # before the row joins the pending ones
    retire = {key}
    if key and variant_of(ctx.game).rules.multiple_units:
        key, retire = _part_keys(order, key, view, current.state.units.get(order.province))
    if ctx.master is not None:
        player, entered_by = ctx.lookups.player(ctx.game, order.power), ctx.actor
    else:
        player, entered_by = ctx.player, None
        if player is not None and player.civil_disorder:  # back, as after UNCD
            ordered_again(ctx, player)
    row = {
        "game_id": ctx.game.id,
        "phase_id": phase_id,
        "player_id": player.id if player is not None else None,
        "entered_by": entered_by,  # in every row: the rows of a batch are inserted together
        "power": order.power,
        "text": line,
        "canonical": str(order),
        "unit": key,
        "current": True,
        "inbound_id": ctx.record_mail(),
        "received_at": utcnow(),
    }
    if table is SecretAllocation:
        row["points"] = order.points  # type: ignore[attr-defined]
    pending = ctx.lookups.pending_orders
    for earlier_table, earlier in pending:
        if key and earlier_table is table and earlier["phase_id"] == phase_id and earlier["power"] == order.power \
                and earlier["unit"] in retire:
            earlier["current"] = False  # replaced within the same batch
    row["replaces"] = sorted(retire - {key})  # on file under other keys: a multiple unit's parts
    pending.append((table, row))
    ctx.lookups.orders_changed.add(ctx.game.id)
    view[:] = [o for o in view if o.unit not in retire]
    add_on_file(view, OnFile(key, row["canonical"], row.get("points", 0), row.get("entered_by")))
    ctx.changed = True


def withdraw(ctx: Context, phase: GamePhase, power: str) -> None:
    """Withdraw every order and allocation `power` has on file for `phase` (CLEAR)."""
    _write_rows(ctx.session, ctx.lookups)
    for table in (OrderRecord, SecretAllocation):
        t = table.__table__
        ctx.session.connection().execute(
            update(t).where(t.c.phase_id == phase.id, t.c.power == power, t.c.current.is_(True)).values(current=False)
        )
        ctx.lookups.on_file(table, phase, power).clear()
    ctx.lookups.orders_changed.add(phase.game_id)
    ctx.changed = True


def _retire(table: type[OrderRecord] | type[SecretAllocation]) -> Update:
    t = table.__table__
    return (
        update(t)
        .where(
            tuple_(t.c.phase_id, t.c.power, t.c.unit).in_(bindparam("units", expanding=True)),
            t.c.current.is_(True),
        )
        .values(current=False)
    )


# Built once: a statement built afresh for every mail costs more than running it.
_RETIRE = {table: _retire(table) for table in (OrderRecord, SecretAllocation)}
_INSERT = {table: insert(table.__table__) for table in (OrderRecord, SecretAllocation)}


def write_orders(session: Session, lookups: Lookups) -> None:
    """Write the orders stored since the last call, and mark every game whose orders (or WAIT)
    changed, so that the scheduler sees whether its phase may end early: one UPDATE for all of
    them (see gm.lifecycle.phases.mark_orders_changed)."""
    _write_rows(session, lookups)
    if lookups.orders_changed:
        mark_orders_changed(session, lookups.orders_changed)
        lookups.orders_changed.clear()


def _write_rows(session: Session, lookups: Lookups) -> None:
    """Retire the earlier orders the stored ones replace, then insert them all, one statement
    each per table. SQLAlchemy Core, not the ORM: a busy judge writes orders for every mail, and
    the rows are not needed as objects afterwards."""
    if not lookups.pending_orders:
        return
    connection = session.connection()
    retired: dict[type, set[tuple[int, str, str]]] = {}
    rows: dict[type, list[dict[str, Any]]] = {}
    for table, row in lookups.pending_orders:
        also = row.pop("replaces", ())  # not a column: the other keys the order replaces
        if row["unit"]:
            retired.setdefault(table, set()).update((row["phase_id"], row["power"], unit) for unit in [row["unit"], *also])
        rows.setdefault(table, []).append(row)
    for table, units in retired.items():
        connection.execute(_RETIRE[table], {"units": sorted(units)})
    for table, new in rows.items():
        connection.execute(_INSERT[table], new)
    lookups.pending_orders.clear()


def ordered_again(ctx: Context, player: Player) -> None:
    """`player`'s power was in civil disorder and they just gave a valid order: it is out of it, as
    after UNCD (unless the variant's civil disorder is for good), every player and the GM are told,
    and the player's answer says so."""
    game, power = ctx.game, player.power
    assert game is not None and power is not None
    if ctx.block is not None and ctx.block.ACTS_FOR_A_POWER:  # the GM acting as the power (BECOME): not its player
        return
    try:
        undo_civil_disorder(ctx.session, game, power)
    except GameError:  # for good, by the variant's rules: its orders take no effect anyway
        return
    queue_announcement(ctx.session, game, _("{power} out of civil disorder", power=power),
                       _("{power}'s player has ordered again: {power} is out of civil disorder, and the game waits "
                         "for its orders as for everyone's.", power=power), gm_address=ctx.gm_address, now=utcnow())
    ctx.audit("back from civil disorder", {"power": power})
    ctx.add_section(_("Civil disorder"), _("{power} was in civil disorder: with your orders it is out of it, and the "
                                           "game waits for your orders again, as for everyone's.", power=power))
