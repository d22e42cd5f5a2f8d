"""IMPORT [YES]: a game under way on another judge moves in to a forming game of the GM's. The old
judge's text follows the line in the same mail (pasted, quoted with '>' or forwarded inline) up to
an ENDIMPORT line or the mail's end: a DPjudge status file, njudge's or DPjudge's results or LIST
mail, or gm's own position text (gm.lifecycle.moving_in).

IMPORT alone shows what was read (a summary, the position in gm's own lines, its map: drawn as
the mail is read, for it belongs to no stored phase the outbox could draw it from; a GM's IMPORT is
rare) and makes nothing; IMPORT YES with the same text makes it: the game is under way in the old judge's phase,
paused, and each player's address is mailed a code, as a JOIN's is (a From line proves nothing; a
password of the old judge is never used). A player confirms with the code and chooses a password
in the same mail, and then gets the position, its map, the deadline and how to send orders. The
GM's RESUME starts the clock. `gm game import` does the same from the command line."""
from __future__ import annotations

import base64

from sqlalchemy import select
from sqlalchemy.orm import Session

from gm.engine.variant import Variant
from gm.games import CurrentPhase, GameError, active_players, current_phase, masters, variant_of
from gm.i18n import _, _n, translated
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.moving_in import Position, Problem, Refused, move_in, read_position, summary
from gm.lifecycle.moving_in.own_text import write as position_text
from gm.lifecycle.overview import status_word
from gm.lifecycle.phase_names import phase_name
from gm.lifecycle.phases import missing, owed_table
from gm.lifecycle.timing import set_options
from gm.mail.commands import NO_SUCH_GAME, Block, Context, Lines, Lookups, command_for, confirmations, reason
from gm.mail.commands.join import SEVERAL_POWERS
from gm.mail.commands.master import OPERATOR, heading, mail_welcome
from gm.mail.intake.addresses import AddressError, player_address
from gm.mail.intake.auth import new_password_refused
from gm.mail.intake.message import InboundMessage, command_lines
from gm.mail.outgoing import press
from gm.mail.outgoing.mail_maps import map_attachment, map_palette
from gm.mail.outgoing.reply import render_notice
from gm.maps.art import has_art
from gm.maps.render import position_scene, render
from gm.store.models import Confirmation, Game, GameStatus, Master, Player, utcnow
from gm.store.passwords import PasswordVerifier
from gm.view.results import moment_text

NAME = "IMPORT"
USAGE = "IMPORT [YES], then the other judge's text to the end of the mail (or to an ENDIMPORT line)"
HELP = _("move a game in from another judge into this forming game: IMPORT shows what is read, IMPORT YES with "
         "the same text makes it (paused; each player confirms by a code mailed to them; RESUME starts it)")
CONFIRMS = confirmations.MOVED  # the confirmations it carries out (gm.mail.commands.confirm)
END = "ENDIMPORT"
# A player of a game moved in has no password until the SET PASSWORD line after its CONFIRM sets
# one, in the same mail: no password matches this.
UNSET = "!moved in: set by the SET PASSWORD line of the confirming mail"


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if args and [a.upper() for a in args] != ["YES"]:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    ctx.block = _Text(line, bool(args))


class _Text(Block):
    """The lines after IMPORT are the other judge's text, not commands: the text itself is read
    from the whole mail (its quoted and forwarded parts too) once it ends."""

    def __init__(self, line: str, yes: bool) -> None:
        self.line, self.yes = line, yes

    def take(self, ctx: Context, line: str) -> bool:
        if line.strip().upper() == END:
            carry_out(ctx, self.line, self.yes, text_after(ctx.message.body, self.line))
            return False
        return True

    def unclosed(self, ctx: Context) -> None:
        carry_out(ctx, self.line, self.yes, text_after(ctx.message.body, self.line))


def text_after(body: str, line: str) -> str:
    """The mail's text after the IMPORT line, up to an ENDIMPORT line; '' when the line is not found."""
    lines = body.replace("\r\n", "\n").split("\n")
    wanted = " ".join(line.split()).upper()
    start = next((i for i, text in enumerate(lines) if " ".join(text.split()).upper() == wanted), None)
    if start is None:
        return ""
    after = lines[start + 1:]
    end = next((i for i, text in enumerate(after) if text.strip().lstrip(">").strip().upper() == END), len(after))
    return "\n".join(after[:end])


def carry_out(ctx: Context, line: str, yes: bool, text: str) -> None:
    """Read the text; show it (IMPORT) or make the game of it (IMPORT YES)."""
    game = ctx.game
    assert game is not None
    if game.status != GameStatus.FORMING:
        ctx.reject(line, _("{game} is {status}: a game moves in to a forming game of yours (CREATE one, or gm game "
                           "new), before anyone joins it", game=game.name, status=status_word(game.status)))
        return
    if not text.strip():
        ctx.reject(line, _("no text after the {command} line: paste the other judge's text after it (or forward "
                           "its mail)", command=NAME))
        return
    variant = variant_of(game)
    try:
        position = read_position(text, game.variant)
        address_problems(position, ctx.gm_address, set(masters(ctx.session, game)))
    except Refused as e:
        ctx.reject(line, _n("the text cannot move in: {count} problem (below); nothing was made",
                            "the text cannot move in: {count} problems (below); nothing was made", len(e.problems)))
        ctx.add_section(_("What cannot be read"), Lines([str(p) for p in e.problems]))
        return
    shown = Lines([*summary(variant, position), "", position.text(variant)])
    if not yes:
        ctx.accept(line, _("read: {source}, {phase}; nothing is made yet: send this mail again with {command} YES in "
                           "place of {command} to make the game", source=position.source,
                           phase=phase_name(variant.phase_label(position.state.phase)), command=NAME))
        ctx.add_section(_("The game read"), shown)
        if has_art(variant.name):
            png = render(variant, position_scene(variant, position.state, game.name), map_palette(game))
            ctx.attach({"filename": f"{game.name}-read.png", "content_type": "image/png",
                        "data": base64.b64encode(png).decode("ascii")})
        return
    try:
        current, invited = take_in(ctx, game, position)
    except GameError as e:
        ctx.reject(line, reason(e))
        return
    ctx.lookups.forget()
    ctx.accept(line, made(game, current, invited, position))
    ctx.add_section(_("The game moved in"), shown)
    if has_art(variant.name):
        ctx.attach(map_attachment(current.row, "position", map_palette(game), f"{game.name}-position.png"))


def made(game: Game, current: CurrentPhase, invited: list[str], position: Position) -> str:
    """What the GM is told once the game is made."""
    unplayed = [p for p, a in position.players.items() if not a]
    powers = ", ".join(invited) or _("none")
    values = {"game": game.name, "phase": phase_name(current.row.label), "powers": powers}
    if unplayed:
        return _n("{game} is under way in {phase}, paused: {count} player ({powers}) were mailed a code to confirm "
                  "their address and choose a password; nobody plays {unplayed}. RESUME starts the clock once you "
                  "are ready (the deadline then moves on by the time paused); a player whose code expired gets the "
                  "power again by REPLACE",
                  "{game} is under way in {phase}, paused: {count} players ({powers}) were mailed a code to confirm "
                  "their address and choose a password; nobody plays {unplayed}. RESUME starts the clock once you "
                  "are ready (the deadline then moves on by the time paused); a player whose code expired gets the "
                  "power again by REPLACE", len(invited), unplayed=", ".join(unplayed), **values)
    return _n("{game} is under way in {phase}, paused: {count} player ({powers}) were mailed a code to confirm their "
              "address and choose a password. RESUME starts the clock once you are ready (the deadline then moves on "
              "by the time paused); a player whose code expired gets the power again by REPLACE",
              "{game} is under way in {phase}, paused: {count} players ({powers}) were mailed a code to confirm their "
              "address and choose a password. RESUME starts the clock once you are ready (the deadline then moves on "
              "by the time paused); a player whose code expired gets the power again by REPLACE",
              len(invited), **values)


def address_problems(position: Position, gm_address: str, gms: set[str]) -> None:
    """Refused when a player's address is one no player may have here (see
    gm.mail.intake.addresses), or a GM's."""
    problems = []
    for power, address in position.players.items():
        if address is None:
            continue
        try:
            player_address(address, gm_address)
        except AddressError as e:
            problems.append(Problem(None, _("{power}: {error} (write 'Player {power}: <address>' after the text to "
                                            "give another)", power=power, error=reason(e))))
        if address in gms:
            problems.append(Problem(None, _("{power}: {address} is a GM of the game: a GM plays no power",
                                            power=power, address=address)))
    if problems:
        raise Refused(problems)


def take_in(ctx: Context, game: Game, position: Position) -> tuple[CurrentPhase, list[str]]:
    """The game made of `position`, and each player named mailed a code: the powers mailed."""
    current = move_in(ctx.session, game, position, utcnow(), actor=ctx.actor, inbound_id=ctx.record_mail())
    if position.press:
        press.set_press_kind(game, position.press)
    if position.several_powers:
        set_options(game, {SEVERAL_POWERS: True})
    variant = variant_of(game)
    invited = [power for power, address in position.players.items() if address]
    for power in invited:
        confirmations.request(
            ctx, confirmations.JOIN, position.players[power] or "",
            subject=_("gm: confirm you play {power} in {game}", power=power, game=game.name),
            template="confirm_moved", values={"game": game.name, "power": power, "variant": variant.title,
                                              "source": position.source},
            game=game, power=power, detail={"as": confirmations.MOVED, "source": position.source,
                                            "invited": len(invited)},
            vouched=True)  # the GM, signed on with their password, answers for the addresses
    return current, invited


def take_in_as_operator(session: Session, game: Game, position: Position, *, gm_address: str
                        ) -> tuple[CurrentPhase, list[str]]:
    """take_in for `gm game import`, as a GM who needs no password: the codes go to the outbox."""
    message = InboundMessage(message_id="<operator@localhost>", sender=OPERATOR, reply_to=OPERATOR, subject="",
                             text="", automatic=None, soft_automatic=False, size=0, in_reply_to=None, references=())
    ctx = Context(session=session, message=message, record_mail=lambda: None, verifier=PasswordVerifier(),
                  lookups=Lookups(session), gm_address=gm_address)
    ctx.sign_on_master(Master(game_id=game.id, email=OPERATOR), game)
    current, invited = take_in(ctx, game, position)
    from gm.mail.commands.master import queue_operator_mail  # the package's, which loads this module

    queue_operator_mail(session, ctx, game)
    return current, invited


# --- a player confirms ------------------------------------------------------------------------------


def confirmed(ctx: Context, confirmation: Confirmation, shown: str, password: str | None = None) -> bool:
    """CONFIRM of a player of a game moved in: the address plays the power, with the password the
    SET PASSWORD line after the CONFIRM sets (without one the code is not used up)."""
    name = ctx.session.scalar(select(Game.name).where(Game.id == confirmation.game_id))
    game = ctx.lookups.game(name) if name is not None else None
    power, address = confirmation.power or "", confirmation.address
    why = NO_SUCH_GAME if game is None else _refusal(ctx, game, power, address)
    if why is None and not _chooses_password(ctx):
        why = _("choose your password in the same mail: CONFIRM <code> and, on the line after it, SET PASSWORD "
                "<password> (the code still serves)")
    why = why or new_password_refused(ctx.session, ctx.message.sender, ctx.new_passwords)
    if why is not None:
        ctx.refuse_sign_on(shown, why)
        return False
    assert game is not None
    player = Player(game_id=game.id, power=power, email=address, password_hash=UNSET)
    ctx.session.add(player)
    ctx.session.flush()
    ctx.sign_on(player, game)
    ctx.lookups.forget()
    ctx.audit("join", {"power": power, "moved in": True})
    _welcome(ctx, game, player, str((confirmation.detail or {}).get("source", "another judge")))
    playing = len(active_players(ctx.session, game))
    invited = int((confirmation.detail or {}).get("invited", playing))
    told = _n("{address} confirmed they play {power} in {game} ({playing} of {count} players named have confirmed). "
              "RESUME starts the clock once you are ready.",
              "{address} confirmed they play {power} in {game} ({playing} of {count} players named have confirmed). "
              "RESUME starts the clock once you are ready.", invited, address=address, power=power, game=game.name,
              playing=playing)
    for gm in masters(ctx.session, game):
        lang = ctx.language(gm)
        ctx.notify(gm, translated(_("[{game}] {power} confirmed", game=game.name, power=power), lang),
                   render_notice("announcement", lang, game=game.name, text=told))
    ctx.accept(shown, _("you play {power} in {game}; the SET PASSWORD line sets your password; the position, its "
                        "map and the deadline come in a mail of their own", power=power, game=game.name))
    return True


def _refusal(ctx: Context, game: Game, power: str, address: str) -> str | None:
    """Why `address` may not take `power` now (the game over, the power played by someone the GM
    chose meanwhile, the address a GM's or another power's player)."""
    if game.status != GameStatus.ACTIVE:
        return _("{game} is {status}", game=game.name, status=status_word(game.status))
    players = active_players(ctx.session, game)
    if any(p.power == power for p in players):
        return _("{power} has a player in {game} already", power=power, game=game.name)
    if address in masters(ctx.session, game):
        return _("{address} is a GM of {game}: a GM plays no power", address=address, game=game.name)
    mine = [p.power for p in players if p.email == address]
    if mine and not (game.options or {}).get(SEVERAL_POWERS):
        return _("this address plays {power} in {game} already: one address plays one power", power=mine[0],
                 game=game.name)
    return None


def _chooses_password(ctx: Context) -> bool:
    """Whether a SET PASSWORD line of one word follows the CONFIRM line in the mail (or, in a
    plain reply to the code's mail, stands anywhere in it)."""
    lines = command_lines(ctx.message.text)
    confirm_at = next((i for i, line in enumerate(lines) if line.split()[0].upper() == "CONFIRM"), -1)
    for line in lines[confirm_at + 1:]:
        command, args = command_for(line)
        if command is not None and command.NAME == "SET PASSWORD":
            return len(args) == 1
    return False


def _welcome(ctx: Context, game: Game, player: Player, source: str) -> None:
    """The player's mail: how to play here, the phase and deadline, what is due, the position and
    its map."""
    current = current_phase(ctx.session, game)
    assert current is not None
    variant = variant_of(game)
    mail_welcome(ctx, game, player, current, lambda lang: welcome(ctx, game, variant, player, current, source, lang))


def welcome(ctx: Context, game: Game, variant: Variant, player: Player, current: CurrentPhase, source: str,
            language: str) -> str:
    """The player's mail, written in `language`."""
    power = player.power or ""
    state = current.state
    deadline = moment_text(current.row.deadline_at or game.deadline_at, rules_of(game.options).timezone)
    texts: list[str] = [
        _("The GM of {game} ({variant}) moved the game here from {source}: you play {power}.", game=game.name,
          variant=variant.title, source=source, power=power), "",
        _("Send your mail to {address}, with this line first (your password in place of <password>):",
          address=ctx.gm_address),
        _("  SIGNON {power} {game} <password>", power=power, game=game.name),
        _("and your orders after it. HELP lists every command; SET PASSWORD changes your password."), "",
        _("{game} is in {phase}; the deadline is {deadline}.", game=game.name, phase=phase_name(current.row.label),
          deadline=deadline)]
    if game.paused_at is not None:
        texts.append(_("The GM has paused the game while its players confirm their addresses: orders are taken "
                       "meanwhile, and once the GM starts the clock again the deadline moves on by the time paused."))
    due = missing(variant, state, power, ctx.lookups.on_file(owed_table(state), current.row, power))
    texts.append(_("Due from {power} now: {due}.", power=power, due=", ".join(translated(d, language) for d in due))
                 if due else _("{power} owes nothing this phase.", power=power))
    texts += ["", *heading(_("Position"), language), position_text(variant, state, {}, heading=False)]
    if has_art(game.variant):
        texts += ["", _("The map of the position is attached.")]
    rules = rules_of(game.options).describe(bidding=variant.has_bidding)
    texts += ["", *heading(_("House rules"), language), *rules]
    return "\n".join(translated(text, language) for text in texts)
