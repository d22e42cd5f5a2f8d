"""REPLACE <power> <address>: a new player for a power. The new address alone gets the password,
with what a player needs to take over at once: the position (and its map, where the game's mail
carries maps), the last results, what the power owes now and by when, and how to sign on."""
from __future__ import annotations

import secrets

from sqlalchemy import select
from sqlalchemy.orm import Session

from gm.engine.model import GameState
from gm.engine.variant import Variant
from gm.games import GameError, active_players, current_phase, masters, variant_of
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.phases import missing, owed_table, position
from gm.lifecycle.players import great_power, replace
from gm.mail.intake.addresses import AddressError, player_address
from gm.mail.commands import Context
from gm.mail.commands.join import SEVERAL_POWERS
from gm.mail.outgoing.game_mail import deadline_text, queue_announcement, results_text, thread_id
from gm.mail.outgoing.mail_maps import map_attachment, reader_palette
from gm.mail.outgoing.reply import render_notice
from gm.maps.art import has_art
from gm.store.models import AuditEntry, Game, GamePhase, GameStatus, OutboundMail, Player, new_message_id, utcnow
from gm.store.passwords import hash_password

NAME = "REPLACE"
USAGE = "REPLACE <power> <address>"
HELP = "a new player for a power; their password, the position and what is due go to the new address only"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if len(args) < 2:
        ctx.reject(line, f"usage: {USAGE}")
        return
    game = ctx.game
    try:
        power = great_power(ctx.session, game, " ".join(args[:-1]))
        address = player_address(args[-1], ctx.gm_address)  # the rule a JOIN's sender meets
    except GameError as e:
        ctx.reject(line, str(e))
        return
    except AddressError as e:
        ctx.reject(line, f"{e}; usage: {USAGE}")
        return
    others = [p.power for p in active_players(ctx.session, game) if p.email == address and p.power != power]
    if others and not (game.options or {}).get(SEVERAL_POWERS):
        ctx.reject(line, f"{address} plays {others[0]} in {game.name}: one address plays one power "
                         f"(SET OPTION {SEVERAL_POWERS} yes allows more)")
        return
    password = secrets.token_urlsafe(9)
    now = utcnow()
    try:
        new, old = replace(ctx.session, game, power, address, hash_password(password), now)
    except GameError as e:
        ctx.reject(line, str(e))
        return
    ctx.lookups.forget()
    _mail_welcome(ctx, game, new, password)
    # Who played it before is told as the others are (the new address gets its password only).
    told = [*([old.email] if old else []), *(p.email for p in active_players(ctx.session, game) if p.id != new.id),
            *masters(ctx.session, game)]
    queue_announcement(ctx.session, game, f"{power} has a new player",
                       f"{power} has a new player, chosen by the GM.", gm_address=ctx.gm_address, now=now,
                       to=[a for a in told if a != address])
    ctx.audit("replace", {"power": power, "from": old.email if old else None, "to": address})
    was = f"in place of {old.email}" if old else "(nobody played it)"
    cd = "; in civil disorder for good, by the variant's rules" if new.civil_disorder else ""
    ctx.accept(line, f"{address} plays {power} {was}{cd}; the password, the position and what is due went to "
                     f"{address} only, and every other player is told")


def replaced(session: Session, game: Game, power: str, address: str, now_playing: Player | None) -> str | None:
    """Why `address` may not sign on as `power` in `game` because the GM gave the power to another
    player (REPLACE) or took it away (EJECT); None when that is not so, or it plays it again. Its
    later mail is told that much and nothing else (no password is checked, none counted)."""
    if now_playing is not None and now_playing.email == address:
        return None
    entries = session.execute(select(AuditEntry.action, AuditEntry.at, AuditEntry.detail).where(
        AuditEntry.game_id == game.id, AuditEntry.action.in_(("replace", "eject"))).order_by(AuditEntry.id.desc()))
    for action, at, detail in entries:
        detail = detail or {}
        if detail.get("power") == power and address in (detail.get("from"), detail.get("player")):
            how = "replaced" if action == "replace" else "taken from you by the GM"
            return f"you no longer play {power} in {game.name} ({how} on " \
                   f"{deadline_text(at, rules_of(game.options).timezone)})"
    return None


def _mail_welcome(ctx: Context, game: Game, player: Player, password: str) -> None:
    """The new player's mail, threaded with the game's other mail: with the map of the position
    where the game's mail carries maps (the outbox sender draws it)."""
    current = current_phase(ctx.session, game) if game.status == GameStatus.ACTIVE else None
    attachments = None
    if current is not None and has_art(game.variant):
        attachments = [map_attachment(current.row, "position", reader_palette(game, player),
                                      f"{game.name}-position.png")]
    text = render_notice("announcement", game=game.name, text=welcome(ctx, game, player, password))
    thread = thread_id(game, ctx.gm_address)
    ctx.session.add(OutboundMail(to_addr=player.email, subject=f"{game.name}: you play {player.power}",
                                 body_text=text, attachments=attachments, in_reply_to=thread, references=thread,
                                 game_id=game.id, kind="notice",
                                 message_id=new_message_id(ctx.gm_address.rpartition("@")[2])))


def welcome(ctx: Context, game: Game, player: Player, password: str) -> str:
    """What the new player is told: the game, the power and its password, how to sign on, the
    phase and its deadline, what the power owes, the position and the last results."""
    variant = variant_of(game)
    power = player.power or ""
    lines = [f"The GM of {game.name} ({variant.title}) has made you the player of {power}.", "",
             f"Your password: {password}",
             "SET PASSWORD <new password> changes it.", "",
             f"Send your mail to {ctx.gm_address}, with this line first (your password in place of <password>):",
             f"  SIGNON {power} {game.name} <password>",
             "and your orders after it. HELP lists every command."]
    current = current_phase(ctx.session, game) if game.status == GameStatus.ACTIVE else None
    if game.status == GameStatus.FORMING or current is None:
        return "\n".join([*lines, "", "The game has not started yet: you get a mail when it does."])
    deadline = deadline_text(current.row.deadline_at or game.deadline_at, rules_of(game.options).timezone)
    state = current.state
    on_file = ctx.lookups.on_file(owed_table(state), current.row, power)
    due = missing(variant, state, power, on_file)
    lines += ["", f"{game.name} is in {current.row.label}; the deadline is {deadline}."]
    if player.civil_disorder:
        lines.append(f"By the rules of {variant.title} {power} is in civil disorder for good: it takes no orders.")
    elif due:
        lines.append(f"Due from {power} now: {', '.join(due)}.")
    else:
        lines.append(f"{power} owes nothing more this phase.")
    if on_file:
        lines += [f"On file for {power} (its last player's; CLEAR withdraws them, a new order replaces one):",
                  *(f"  {o.canonical}" for o in on_file if o.canonical)]
    lines += ["", "Position", "--------", *_position(variant, state)]
    if has_art(game.variant):
        lines += ["", "The map of the position is attached."]
    last = ctx.session.scalar(select(GamePhase).where(GamePhase.game_id == game.id,
                                                      GamePhase.adjudicated_at.is_not(None))
                              .order_by(GamePhase.seq.desc()).limit(1))
    if last is not None and last.results_json:
        results = results_text(game, variant, last.results_json, viewer=power, before=position(last))
        if results.startswith("=== "):  # the results mail's heading: the mail it goes in has its own
            results = results.partition("\n")[2].lstrip("\n")
        lines += ["", f"The last results, as they were mailed to {power}:", "", results.rstrip()]
    return "\n".join(lines)


def _position(variant: Variant, state: GameState) -> list[str]:
    """Each power's units and centres, great powers first."""
    majors = variant.rules.major_powers(variant, state)
    out = []
    for p in [*majors, *sorted(p for p in variant.powers if p not in majors)]:
        units = sorted(str(u) for u in state.units_of(p))
        centres = [variant.map.name(c) for c in state.centres_of(p)]
        if units or centres:
            out.append(f"{p}: {', '.join(units) or 'no units'}; centres: {', '.join(centres) or 'none'}")
    return out
