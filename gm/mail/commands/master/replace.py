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
from gm.i18n import _, translated
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.phases import missing, owed_table, position
from gm.lifecycle.players import great_power, replace
from gm.mail.intake.addresses import AddressError, player_address
from gm.mail.commands import Context, reason
from gm.mail.commands.join import SEVERAL_POWERS
from gm.mail.commands.master import heading, mail_welcome
from gm.mail.outgoing.game_mail import queue_announcement, results_text
from gm.maps.art import has_art
from gm.store.models import AuditEntry, Game, GamePhase, GameStatus, Player, utcnow
from gm.store.passwords import hash_password
from gm.view.results import moment_text

NAME = "REPLACE"
USAGE = "REPLACE <power> <address>"
HELP = _("a new player for a power; their password, the position and what is due go to the new address only")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if len(args) < 2:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    game = ctx.game
    try:
        power = great_power(ctx.session, game, " ".join(args[:-1]))
        address = player_address(args[-1], ctx.gm_address)  # the rule a JOIN's sender meets
    except GameError as e:
        ctx.reject(line, reason(e))
        return
    except AddressError as e:
        ctx.reject(line, _("{error}; usage: {usage}", error=reason(e), usage=USAGE))
        return
    others = [p.power for p in active_players(ctx.session, game) if p.email == address and p.power != power]
    if others and not (game.options or {}).get(SEVERAL_POWERS):
        ctx.reject(line, _("{address} plays {power} in {game}: one address plays one power (SET OPTION {option} yes "
                           "allows more)", address=address, power=others[0], game=game.name, option=SEVERAL_POWERS))
        return
    password = secrets.token_urlsafe(9)
    now = utcnow()
    try:
        new, old = replace(ctx.session, game, power, address, hash_password(password), now)
    except GameError as e:
        ctx.reject(line, reason(e))
        return
    ctx.lookups.forget()
    _mail_welcome(ctx, game, new, password)
    # Who played it before is told as the others are (the new address gets its password only).
    told = [*([old.email] if old else []), *(p.email for p in active_players(ctx.session, game) if p.id != new.id),
            *masters(ctx.session, game)]
    queue_announcement(ctx.session, game, _("{power} has a new player", power=power),
                       _("{power} has a new player, chosen by the GM.", power=power), gm_address=ctx.gm_address,
                       now=now, to=[a for a in told if a != address])
    ctx.audit("replace", {"power": power, "from": old.email if old else None, "to": address})
    if old:
        said = _("{address} plays {power} in place of {old}", address=address, power=power, old=old.email)
    else:
        said = _("{address} plays {power} (nobody played it)", address=address, power=power)
    if new.civil_disorder:
        said = _("{text}; in civil disorder for good, by the variant's rules", text=said)
    ctx.accept(line, _("{text}; the password, the position and what is due went to {address} only, and every other "
                       "player is told", text=said, address=address))


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
            when = moment_text(at, rules_of(game.options).timezone)
            if action == "replace":
                return _("you no longer play {power} in {game} (replaced on {when})", power=power, game=game.name,
                         when=when)
            return _("you no longer play {power} in {game} (taken from you by the GM on {when})", power=power,
                     game=game.name, when=when)
    return None


def _mail_welcome(ctx: Context, game: Game, player: Player, password: str) -> None:
    """The new player's mail, with the map of the position once the game is under way."""
    current = current_phase(ctx.session, game) if game.status == GameStatus.ACTIVE else None
    mail_welcome(ctx, game, player, current, lambda lang: welcome(ctx, game, player, password, lang))


def welcome(ctx: Context, game: Game, player: Player, password: str, language: str) -> str:
    """What the new player is told, in `language`: the game, the power and its password, how to
    sign on, the phase and its deadline, what the power owes, the position and the last results."""
    variant = variant_of(game)
    power = player.power or ""
    lines: list[str] = [
        _("The GM of {game} ({variant}) has made you the player of {power}.", game=game.name, variant=variant.title,
          power=power), "",
        _("Your password: {password}", password=password),
        _("SET PASSWORD <new password> changes it."), "",
        _("Send your mail to {address}, with this line first (your password in place of <password>):",
          address=ctx.gm_address),
        _("  SIGNON {power} {game} <password>", power=power, game=game.name),
        _("and your orders after it. HELP lists every command.")]
    current = current_phase(ctx.session, game) if game.status == GameStatus.ACTIVE else None
    if game.status == GameStatus.FORMING or current is None:
        lines += ["", _("The game has not started yet: you get a mail when it does.")]
        return "\n".join(translated(line, language) for line in lines)
    deadline = moment_text(current.row.deadline_at or game.deadline_at, rules_of(game.options).timezone)
    state = current.state
    on_file = ctx.lookups.on_file(owed_table(state), current.row, power)
    due = missing(variant, state, power, on_file)
    lines += ["", _("{game} is in {phase}; the deadline is {deadline}.", game=game.name,
                    phase=phase_name(current.row.label), deadline=deadline)]
    if player.civil_disorder:
        lines.append(_("By the rules of {variant} {power} is in civil disorder for good: it takes no orders.",
                       variant=variant.title, power=power))
    elif due:
        lines.append(_("Due from {power} now: {due}.", power=power,
                       due=", ".join(translated(d, language) for d in due)))
    else:
        lines.append(_("{power} owes nothing more this phase.", power=power))
    if on_file:
        lines += [_("On file for {power} (its last player's; CLEAR withdraws them, a new order replaces one):",
                    power=power),
                  *(f"  {o.canonical}" for o in on_file if o.canonical)]
    lines += ["", *heading(_("Position"), language), *_position(variant, state, language)]
    if has_art(game.variant):
        lines += ["", _("The map of the position is attached.")]
    last = ctx.session.scalar(select(GamePhase).where(GamePhase.game_id == game.id,
                                                      GamePhase.adjudicated_at.is_not(None))
                              .order_by(GamePhase.seq.desc()).limit(1))
    if last is not None and last.results_json:
        results = results_text(game, variant, last.results_json, viewer=power, before=position(last),
                               language=language)
        if results.startswith("=== "):  # the results mail's heading: the mail it goes in has its own
            results = results.partition("\n")[2].lstrip("\n")
        lines += ["", _("The last results, as they were mailed to {power}:", power=power), "", results.rstrip()]
    return "\n".join(translated(line, language) for line in lines)


def _position(variant: Variant, state: GameState, language: str) -> list[str]:
    """Each power's units and centres, great powers first, in `language`."""
    majors = variant.rules.major_powers(variant, state)
    out = []
    for p in [*majors, *sorted(p for p in variant.powers if p not in majors)]:
        units = sorted(str(u) for u in state.units_of(p))
        centres = [variant.map.name(c) for c in state.centres_of(p)]
        if units or centres:
            out.append(translated(_("{power}: {units}; centres: {centres}", power=p,
                                    units=", ".join(units) or _("no units"), centres=", ".join(centres) or _("none")),
                                  language))
    return out
