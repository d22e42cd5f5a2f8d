"""Press: messages between the powers of a game (PRESS TO ..., BROADCAST), relayed by the judge.

The lines after the PRESS (or BROADCAST) line, up to ENDPRESS, are the text: never commands or
orders, whatever they say, so that press inside an order mail leaves the orders around it alone.
Each recipient power's player gets the text at their registered address, headed with who it is
from (the sender's power, "the GM", or "anonymous" for grey press) and to whom it went; no address
of anyone is in it. The GMs get a copy of every press saying who really sent it.

A game's press (games.options["press"], SET PRESS): white (signed by the sender's power, the
default), grey (a player may also send it unsigned: PRESS TO France GREY) or none (players send
none; the GM always may).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from gm.engine.parse import resolve_power
from gm.engine.variant import Variant
from sqlalchemy import select

from gm.games import major_powers, masters, observers, variant_of
from gm.i18n import ENGLISH, _, _n, translated
from gm.mail.budget import PRESS_PER_HOUR, PRESS_PER_MAIL, WINDOW
from gm.mail.commands.context import Block, Context
from gm.mail.outgoing.reply import PRESS_HEADING, render
from gm.store.models import AuditEntry, Game, GameStatus, utcnow
from gm.view.press import KINDS, OPTION, describe, press_kind  # noqa: F401 - the commands' names for them

MAX_LINES = 100  # lines of one press
MAX_CHARS = 10_000  # characters of one press
CLOSING = ("ENDPRESS", "END PRESS")
GREY_WORDS = ("GREY", "GRAY")
NAME_WORDS = 4  # words in a power's name at most ('Great Britain': two)
GM_WORDS = ("GM", "MASTER", "M")  # PRESS TO GM: to the game's GMs only


def set_press_kind(game: Game, kind: str) -> None:
    assert kind in KINDS
    game.options = {**(game.options or {}), OPTION: kind}  # a new dict: the JSON column sees the change


@dataclass
class PressBlock(Block):
    """The text of one PRESS or BROADCAST, taken up to ENDPRESS, then relayed (or, if the line was
    refused, dropped: its text is still no orders)."""

    line: str  # the PRESS or BROADCAST line, as the acknowledgement shows it
    refused: str | None = None  # why nothing is to be sent, found on that line
    game: Game | None = None
    sender: str | None = None  # the sender's power; None: the GM
    to: list[str] = field(default_factory=list)  # the powers named (every other power: BROADCAST)
    broadcast: bool = False
    to_gm: bool = False  # PRESS TO GM: to the game's GMs only
    grey: bool = False
    text: list[str] = field(default_factory=list)  # kept up to just past the bounds
    lines: int = 0
    chars: int = 0

    def take(self, ctx: Context, line: str) -> bool:
        if " ".join(line.split()).upper() in CLOSING:
            self._close(ctx)
            return False
        self.lines += 1
        self.chars += len(line)
        if self.lines <= MAX_LINES and self.chars <= MAX_CHARS:  # past a bound only counted
            self.text.append(line)
        return True

    def unclosed(self, ctx: Context) -> None:
        if self.refused:
            ctx.reject(self.line, _("{reason}; and the mail ended before ENDPRESS: every line after this one was "
                                    "read as press, not orders", reason=self.refused))
        else:
            ctx.reject(self.line, _("the mail ended before ENDPRESS: nothing was sent, and every line after this one "
                                    "was read as press, not orders"))

    def _close(self, ctx: Context) -> None:
        if self.refused:
            ctx.reject(self.line, self.refused)
        elif not self.text:
            ctx.reject(self.line, _("no text between this line and ENDPRESS: nothing was sent"))
        elif self.lines > MAX_LINES or self.chars > MAX_CHARS:
            ctx.reject(self.line, _("press is at most {max_lines} lines and {max_chars} characters, this one has "
                                    "{lines} and {chars}: nothing was sent", max_lines=MAX_LINES,
                                    max_chars=format(MAX_CHARS, ","), lines=self.lines, chars=format(self.chars, ",")))
        else:
            why = _over_budget(ctx, self)
            if why is not None:
                ctx.reject(self.line, why)
            elif self.to_gm:
                _relay_to_gm(ctx, self)
            else:
                _relay(ctx, self)


def _over_budget(ctx: Context, block: PressBlock) -> str | None:
    """Why this press may not be sent (its power's hourly budget: gm.mail.budget), or None. The
    GM's press is not counted."""
    if block.sender is None:
        return None
    assert block.game is not None
    details = ctx.session.scalars(select(AuditEntry.detail).where(
        AuditEntry.game_id == block.game.id, AuditEntry.action == "press", AuditEntry.at >= utcnow() - WINDOW))
    if sum(1 for d in details if (d or {}).get("from") == block.sender) >= PRESS_PER_HOUR:
        return _("{power} has sent {count} press in the last hour, the most a power may: nothing was sent",
                 power=block.sender, count=PRESS_PER_HOUR)
    return None


def batched(notices: list[tuple[str, str, str, str]],
            language: Callable[[str], str] = lambda address: ENGLISH) -> list[tuple[str, str, str, str]]:
    """The mails to send for a mail's notices (to, subject, text, kind): the press it sends to one
    address in one mail, in the order written ('[g1] Press from France (+2 more)'), so that many
    press blocks to one player make one mail; every other notice as it is. Each subject is in its
    reader's language, `language(address)`."""
    out: list[tuple[str, str, str, str]] = []
    press: dict[str, tuple[int, str, int]] = {}  # address -> (index in out of its press, its subject, blocks in it)
    for to, subject, text, kind in notices:
        subject = translated(subject, language(to))
        if kind != "press":
            out.append((to, subject, text, kind))
        elif to not in press:
            press[to] = (len(out), subject, 1)
            out.append((to, subject, text, kind))
        else:
            at, first, blocks = press[to]
            texts = out[at][2]
            press[to] = (at, first, blocks + 1)
            # TRANSLATORS: the subject of a mail with several press: '[g1] Press from France (+2 more)'
            more = _n("{subject} (+{count} more)", "{subject} (+{count} more)", blocks, subject=first)
            out[at] = (to, translated(more, language(to)), f"{texts}\n{'-' * 72}\n{text}", kind)
    return out


def start(ctx: Context, args: list[str], line: str, *, broadcast: bool) -> PressBlock:
    """The block that takes the text after a PRESS (`broadcast` False) or BROADCAST line. A line
    that cannot be sent still opens one (refused): the text after it must not be read as orders."""
    block = PressBlock(line=line, broadcast=broadcast, game=ctx.game)
    if ctx.master is None:  # a player's: at most PRESS_PER_MAIL a mail, refused before anything is read
        ctx.press_sent += 1
        if ctx.press_sent > PRESS_PER_MAIL:
            block.refused = _("at most {count} press a mail: nothing was sent", count=PRESS_PER_MAIL)
            return block
    block.refused = _header(ctx, block, args)
    return block


def _header(ctx: Context, block: PressBlock, args: list[str]) -> str | None:
    """Read the PRESS or BROADCAST line into `block`; why it cannot be sent, or None."""
    usage = _("usage: {usage}", usage="BROADCAST [GREY]" if block.broadcast else
              "PRESS TO <power>[,<power>...] [GREY]")
    game = ctx.game
    if game is None or (ctx.player is None and ctx.master is None):
        return _("sign on first (SIGNON <power> <game> <password>, or SIGNON MASTER as the GM): nothing was sent")
    block.sender = None if ctx.master is not None else ctx.player.power
    if ctx.master is None and block.sender is None:  # a player with no power yet: nobody to sign as
        return _("you play no power in {game} yet: nothing was sent", game=game.name)
    words = list(args)
    block.grey = bool(words) and words[-1].upper() in GREY_WORDS
    if block.grey:
        words.pop()
    if not block.broadcast and _to_gm(words):  # always allowed: no press setting, nor the game's end, stops it
        if block.sender is None:
            return _("you are the GM: PRESS TO <power> or BROADCAST reaches the players")
        if block.grey:
            return _("press to the GM is always signed: GREY is for press to powers")
        block.to_gm = True
        return None
    if game.status == GameStatus.FINISHED:
        return _("{game} is over: press is closed (PRESS TO GM still reaches the GM)", game=game.name)
    kind = press_kind(game)
    if block.sender is not None and kind == "none":
        return _("{game} has no press between players (the GM's setting): nothing was sent "
                 "(PRESS TO GM still reaches the GM)", game=game.name)
    if block.grey and block.sender is None:
        return _("the GM's press is always signed as the GM: GREY is for players")
    if block.grey and kind != "grey":
        return _("press in {game} is signed (white press): it cannot be sent GREY", game=game.name)
    variant = variant_of(game)
    majors = major_powers(ctx.session, game)  # the powers players play now
    if block.broadcast:
        if words:
            return usage
        block.to = [p for p in majors if p != block.sender]
        return None
    if words and words[0].upper() == "TO":
        words.pop(0)
    names = [part.split() for part in " ".join(words).split(",")]
    if not any(names):
        return usage
    to: list[str] = []
    for part in names:
        found, why = _powers(variant, part, game.name)
        if why is not None:
            return why
        to.extend(p for p in found if p not in to)
    minor = [p for p in to if p not in majors]
    if minor:
        return _("nobody plays {powers} (minor powers): nothing was sent", powers=_names(minor))
    if block.sender in to:
        return _("{power} is your own power: nothing was sent", power=block.sender)
    block.to = to
    return None


def _to_gm(words: list[str]) -> bool:
    """Whether the words after PRESS name the GM alone ('TO GM', 'to master', 'TO M')."""
    if words and words[0].upper() == "TO":
        words = words[1:]
    return len(words) == 1 and words[0].upper().strip(",.:;") in GM_WORDS


def _powers(variant: Variant, words: list[str], game: str) -> tuple[list[str], str | None]:
    """The powers a run of words names ('Great Britain France': two), or why not. At each word the
    longest run that names one power is read, unless it splits into two runs naming two different
    powers (power names are read loosely: 'Great Britain France' alone reads as Great Britain)."""
    found: list[str] = []
    i = 0
    while i < len(words):
        for j in range(min(len(words), i + NAME_WORDS), i, -1):
            power = resolve_power(variant, " ".join(words[i:j]))
            if power is not None and not _two_powers(variant, words[i:j]):
                found.append(power)
                i = j
                break
        else:
            return [], _("{game} has no power {word}: nothing was sent", game=game, word=repr(words[i]))
    return found, None


def _two_powers(variant: Variant, words: list[str]) -> bool:
    for k in range(1, len(words)):
        first, second = resolve_power(variant, " ".join(words[:k])), resolve_power(variant, " ".join(words[k:]))
        if first is not None and second is not None and first != second:
            return True
    return False


def _names(powers: list[str]) -> str:
    return ", ".join(powers)


def _relay(ctx: Context, block: PressBlock) -> None:
    """Mail the text to the players of the powers it is for, and a copy to the GMs."""
    game = block.game
    assert game is not None
    players = {power: ctx.lookups.player(game, power) for power in block.to}
    readers = {power: player.email for power, player in players.items() if player is not None}
    sent = list(readers)
    unplayed = [power for power in block.to if power not in readers]
    if not sent:
        ctx.reject(block.line, _("nobody plays {powers}: nothing was sent", powers=_names(unplayed)))
        return
    # TRANSLATORS: who press is from: 'press from anonymous to France'
    shown_from = _("anonymous") if block.grey else block.sender or _("the GM")
    # TRANSLATORS: whom a broadcast is to: 'press from France to every power'
    shown_to = _("every power") if block.broadcast else _names(block.to)
    if block.grey:
        subject = _("Anonymous press")
    elif block.broadcast:
        subject = _("Broadcast from {sender}", sender=shown_from)
    else:
        subject = _("Press from {sender}", sender=shown_from)
    values = {"marker": PRESS_HEADING, "game": game.name, "sender": shown_from, "to": shown_to,
              "text": "\n".join(block.text)}
    addresses = list(dict.fromkeys(readers.values()))  # a player of two powers gets it once
    # observers read broadcast press, never press to some powers only
    watching = [a for a in observers(ctx.session, game) if a not in addresses] if block.broadcast else []
    _tell(ctx, game.name, addresses + watching, subject,
          lambda language: render("press.txt.j2", language, **values, really=None))
    really = block.sender or _("the GM")
    if block.grey:
        copy_subject = _("Copy: anonymous broadcast from {sender} to {to}", sender=really, to=shown_to) \
            if block.broadcast else _("Copy: anonymous press from {sender} to {to}", sender=really, to=shown_to)
        really = _("{sender}, as anonymous press", sender=really)
    else:
        copy_subject = _("Copy: broadcast from {sender} to {to}", sender=really, to=shown_to) if block.broadcast \
            else _("Copy: press from {sender} to {to}", sender=really, to=shown_to)
    own = ctx.master.email if ctx.master is not None else None
    copies = [a for a in masters(ctx.session, game) if a != own and a not in addresses]
    _tell(ctx, game.name, copies, copy_subject, lambda language: render("press.txt.j2", language, **values,
                                                                        really=really))
    ctx.audit("press", {"from": block.sender or "GM", "to": sent, "broadcast": block.broadcast, "grey": block.grey,
                        "lines": block.lines, "characters": block.chars})
    detail = _("relayed to {powers} as anonymous press", powers=_names(sent)) if block.grey else \
        _("relayed to {powers}", powers=_names(sent))
    if unplayed:
        detail = _n("{relayed}; not to {powers} (nobody plays it)", "{relayed}; not to {powers} (nobody plays them)",
                    len(unplayed), relayed=detail, powers=_names(unplayed))
    # TRANSLATORS: what became of a PRESS line: 'relayed to France (3 lines)'
    ctx.accept(block.line, _n("{detail} ({count} line)", "{detail} ({count} lines)", block.lines, detail=detail))


def _tell(ctx: Context, game: str, addresses: list[str], subject: str, text: Callable[[str], str]) -> None:
    """Mail `text(language)` to each of `addresses` in its language, under '[game] <subject>'."""
    made: dict[str, str] = {}
    for address in addresses:
        language = ctx.language(address)
        if language not in made:
            made[language] = text(language)
        ctx.notify(address, f"[{game}] {translated(subject, language)}", made[language], kind="press")


def _relay_to_gm(ctx: Context, block: PressBlock) -> None:
    """PRESS TO GM: the text to the game's GMs only, saying who sent it (power and address)."""
    game = block.game
    assert game is not None and ctx.player is not None and block.sender is not None
    addresses = masters(ctx.session, game)
    if not addresses:
        ctx.reject(block.line, _("{game} has no GM to write to: nothing was sent", game=game.name))
        return
    really = f"{block.sender} ({ctx.player.email})"
    _tell(ctx, game.name, addresses, _("Press to the GM from {power}", power=block.sender),
          lambda language: render("press.txt.j2", language, marker=PRESS_HEADING, game=game.name, sender=block.sender,
                                  to=_("the GM"), text="\n".join(block.text), really=really))
    ctx.audit("press", {"from": block.sender, "to": ["GM"], "broadcast": False, "grey": False,
                        "lines": block.lines, "characters": block.chars})
    ctx.accept(block.line, _n("sent to the GM of {game} ({count} line)", "sent to the GM of {game} ({count} lines)",
                              block.lines, game=game.name))
