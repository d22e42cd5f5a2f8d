"""SIGNON <power> <game> <password>: act for a power in a game for the rest of this mail. njudge's
SIGNON <letter><game> <password> too, its letter M the GM's (SIGNON Mae1 is SIGNON MASTER ae1)."""
from __future__ import annotations

import difflib

from sqlalchemy import select

from gm.engine.parse import resolve_power
from gm.engine.variant import Variant
from gm.games import MASTER_LETTER, active_masters, power_letters, variant_of
from gm.i18n import _, _n
from gm.mail.intake.auth import CHECKS_PER_MAIL, MASTER, check_password, report_failures
from gm.mail.commands import NO_SUCH_GAME, Context, LineResult, Lines, masked
from gm.mail.commands.master.replace import replaced
from gm.mail.commands.resign import resigned
from gm.mail.commands.unknown_command import did_you_mean
from gm.mail.intake.dkim import refusal as dkim_refusal
from gm.store import failing
from gm.store.models import Game, Master, Player
from gm.store.passwords import hash_password, needs_rehash

NAME = "SIGNON"
USAGE = ("SIGNON <power> <game> <password>   (also njudge's SIGNON <letter><game> <password>; "
         "a GM: SIGNON MASTER <game> <password>)")
HELP = _("sign on to a game as a power (or as its GM, also as njudge's SIGNON M<game> <password>); the lines "
         "after it act for that power")
TAKES_PASSWORD = True
NEEDS_DKIM = True  # ingest verifies the DKIM signatures of mail with this command (see gm.mail.intake.dkim)
NOBODY = "(nobody)"  # the owner of lines no address is shown (a wrong GM password from a stranger)




def run(ctx: Context, args: list[str], line: str) -> None:
    # Whatever this line signs on to, the lines after it must not act for an earlier sign-on.
    ctx.player = ctx.game = ctx.tried_game = None
    ctx.line_owner = None
    shown = masked(line)
    if len(args) < 2:
        ctx.refuse_sign_on(shown, _("usage: {usage}", usage=USAGE))
        return
    password = args[-1]
    if len(args) == 3 and args[0].upper() in ("MASTER", MASTER_LETTER):
        _sign_on_master(ctx, args[1], password, shown)
        return
    if len(args) == 2 and args[0].upper() == "MASTER":
        ctx.refuse_sign_on(shown, _("usage: {usage}", usage="SIGNON MASTER <game> <password>"))
        return
    if len(args) == 2:  # njudge: 'SIGNON Fgame password', 'SIGNON Mgame password' for the GM
        code, game_name = args[0][:1].upper(), args[0][1:]
        game = ctx.lookups.game(game_name) if game_name else None
        if game is None:
            ctx.refuse_sign_on(shown, _no_game_for_letter(ctx, args))
            return
        if code == MASTER_LETTER:
            _sign_on_master(ctx, game_name, password, shown)
            return
        ctx.tried_game = game
        power = power_letters(variant_of(game)).get(code)
        if power is None:
            ctx.refuse_sign_on(shown, _("{game} has no power of that letter: {letters}", game=game.name,
                                        letters=letters_text(variant_of(game))))
            return
    else:
        game = ctx.lookups.game(args[-2])
        if game is None:
            ctx.refuse_sign_on(shown, _no_game(ctx, args[-2], args[:-2]))
            return
        ctx.tried_game = game
        named = " ".join(args[:-2])
        variant = variant_of(game)
        power = resolve_power(variant, named)
        if power is None and len(named) == 1:  # 'SIGNON F ae1 password': a letter
            power = power_letters(variant).get(named.upper())
        if power is None:
            ctx.refuse_sign_on(shown, _("{game} has no such power: {nearest}", game=game.name,
                                        nearest=_nearest_powers(variant, named)))
            return
    player = ctx.lookups.player(game, power)
    left = resigned(ctx.session, game, power, ctx.message.sender, player) or replaced(
        ctx.session, game, power, ctx.message.sender, player)
    if left is not None:
        ctx.refuse_sign_on(shown, left)
        return
    if not _may_check_password(ctx, game, shown):
        return
    owner = player.email if player is not None else None
    found = check_password(ctx.lookups.auth_failures, ctx.verifier, ctx.message.sender, game.id, power,
                           [player.password_hash] if player is not None else [], password)
    target = _("{power} in {game}", power=power, game=game.name)
    if found is None or player is None:
        _refused(ctx, shown, target, owner, _("wrong password for {power} in {game}", power=power, game=game.name))
        return
    ctx.sign_on(player, game)
    ctx.tried_game = None
    _rehash(ctx, player, password)
    _signed_on(ctx, shown, target, owner, _("signed on as {power} in {game}", power=power, game=game.name))
    warning = report_failures(ctx.session, ctx.lookups.auth_failures, player)
    if warning:
        ctx.private_sections.append((player.email, _("Warning"), warning))
    _tell_failing(ctx, player.email)


def _tell_failing(ctx: Context, address: str) -> None:
    """A signed-on player whose address the judge's mail no longer reaches hears of it (not the
    receiving server's words: those are the GM's)."""
    mark = failing.marks(ctx.session, [address]).get(address)
    if mark is None:
        return
    undelivered = _("The judge's mail to {address} has been coming back undelivered since {since} UTC.",
                    address=address, since=mark.since.strftime("%Y-%m-%d %H:%M"))
    if address == ctx.message.sender:
        then = _("Your mail from that address arrived, so the judge takes it that it works again.")
    else:
        then = _("To have your mail sent to another address, sign on and send SET ADDRESS <address>: a code "
                 "goes to the new address to confirm it.")
    ctx.private_sections.append((address, _("Your mail is not arriving"), Lines([undelivered, then], " ")))


def _rehash(ctx: Context, holder: Player | Master, password: str) -> None:
    """A hash made with weaker parameters than today's, or stored before its quick check (under
    the judge's key), is made again from the right password while it is at hand: once, at the
    holder's first sign-on; the process knows the new one, so the next sign-on costs no slow check."""
    if holder.password_hash and needs_rehash(holder.password_hash):
        holder.password_hash = hash_password(password)
        ctx.verifier.remember(holder.password_hash, password)


def _refused(ctx: Context, shown: str, target: str, owner: str | None, why: str) -> None:
    """A wrong password for `target`, whose answers go to `owner`: said to the owner's own
    address; any other sender is told what it would be told of the right password."""
    ctx.line_owner = owner
    if owner is None or owner == ctx.message.sender:
        ctx.refuse_sign_on(shown, why)
    else:
        _answered_elsewhere(ctx, LineResult(shown, False, why, owner), target)


def _signed_on(ctx: Context, shown: str, target: str, owner: str, done: str) -> None:
    ctx.line_owner = owner
    if owner == ctx.message.sender:
        ctx.accept(shown, done)
    else:
        _answered_elsewhere(ctx, LineResult(shown, True, _("{done} (from {address})", done=done,
                                                           address=ctx.message.sender), owner), target)


def _answered_elsewhere(ctx: Context, result: LineResult, target: str) -> None:
    """A sign-on from an address that is not its owner's: the owner's answer says what became of
    it; the sender, and any other address the mail is answered at, only where the answer went, and
    whether mail to that address comes back (the same whether the password was right or not)."""
    result.elsewhere = _("answered at the address registered for {target}", target=target)
    ctx.results.append(result)
    ctx.elsewhere.append(target)
    if result.owner and result.owner != NOBODY and failing.marks(ctx.session, [result.owner]):
        ctx.elsewhere_failing.append(target)


def letters_text(variant: Variant) -> str:
    """'Austria (A), England (E), ...; the GM M': every power's letter, in the variant's order."""
    by_power = {power: letter for letter, power in power_letters(variant).items()}
    shown = ", ".join(f"{power} ({by_power[power]})" for power in variant.great_powers if power in by_power)
    return _("{letters}; the GM {letter}", letters=shown, letter=MASTER_LETTER)


def _nearest_powers(variant: Variant, written: str) -> str:
    """The powers a misspelt name may have meant, else all of them (names of the variant only:
    never what was written)."""
    near = difflib.get_close_matches(written.lower(), [p.lower() for p in variant.great_powers], n=3, cutoff=0.5)
    named = [p for p in variant.great_powers if p.lower() in near]
    if not named:
        return _("its powers are {powers}", powers=", ".join(variant.great_powers))
    return did_you_mean(named)


def _no_game(ctx: Context, written: str, before: list[str]) -> str:
    """Why no game was found, with what the sign-on may have meant: a game whose name is near,
    or the power and the game the other way round (names from the database only)."""
    swapped = ctx.lookups.game(before[0]) if len(before) == 1 else None
    if swapped is not None:
        return _("{no_such_game}; {game} is a game: write SIGNON <power> {game} <password>", no_such_game=NO_SUCH_GAME,
                 game=swapped.name)
    return _nearest_games(ctx, written)


def _no_game_for_letter(ctx: Context, args: list[str]) -> str:
    """njudge's form named no game: the game named without a letter ('SIGNON ae1 password'), the
    password left out ('SIGNON France ae1'), or a game whose name is near."""
    for written in args:
        game = ctx.lookups.game(written)
        if game is not None:
            return _("{no_such_game}; {game} is a game: write SIGNON <power> {game} <password>, or "
                     "SIGNON <letter>{game} <password> with a letter of {letters}", no_such_game=NO_SUCH_GAME,
                     game=game.name, letters=letters_text(variant_of(game)))
    return _nearest_games(ctx, args[0][1:])


def _nearest_games(ctx: Context, written: str) -> str:
    """NO_SUCH_GAME, with the games whose names are near `written`."""
    names = list(ctx.session.scalars(select(Game.name)))
    near = difflib.get_close_matches(written.lower(), names, n=3, cutoff=0.5)
    if not near:
        return NO_SUCH_GAME
    return _("{no_such_game}; the nearest: {games}", no_such_game=NO_SUCH_GAME, games=", ".join(near))


def _sign_on_master(ctx: Context, game_name: str, password: str, shown: str) -> None:
    """SIGNON MASTER <game> <password>: the lines after it are a GM's; the acknowledgement goes to
    the address of the GM whose password it is, whatever address the mail came from."""
    game = ctx.lookups.game(game_name)
    if game is None:
        ctx.refuse_sign_on(shown, _nearest_games(ctx, game_name))
        return
    ctx.tried_game = game
    if not _may_check_password(ctx, game, shown):
        return
    masters = [m for m in active_masters(ctx.session, game) if m.password_hash]
    target = _("the GM of {game}", game=game.name)
    found = check_password(ctx.lookups.auth_failures, ctx.verifier, ctx.message.sender, game.id, MASTER,
                           [m.password_hash or "" for m in masters], password)
    if found is None:
        # The GMs' answers go to their own addresses: a sender that is none of them learns nothing.
        own = ctx.message.sender if any(m.email == ctx.message.sender for m in masters) else NOBODY
        _refused(ctx, shown, target, own if masters else None,
                 _("wrong password for the GM in {game}", game=game.name))
        return
    ctx.sign_on_master(masters[found], game)
    ctx.tried_game = None
    _rehash(ctx, masters[found], password)
    _signed_on(ctx, shown, target, masters[found].email, _("signed on as GM of {game}", game=game.name))


def _may_check_password(ctx: Context, game: Game, shown: str) -> bool:
    """Whether a sign-on's password is to be checked (and counted); False (the sign-on refused)
    when `game` requires DKIM and the mail is not signed by the sender's domain, checked first so
    that a forged mail costs the player no failed try, or when the mail has had its checks."""
    why = dkim_refusal(game.name, game.require_dkim, ctx.dkim)
    if why is None and ctx.password_checks >= CHECKS_PER_MAIL:
        why = _n("at most {count} sign-on is read in one mail", "at most {count} sign-ons are read in one mail",
                 CHECKS_PER_MAIL)
    if why is not None:
        ctx.refuse_sign_on(shown, why)
        return False
    ctx.password_checks += 1
    return True
