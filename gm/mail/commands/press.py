"""PRESS TO <power>[,<power>...] [GREY]  ...text...  ENDPRESS: send press to those powers: the lines
up to ENDPRESS, relayed without your address; PRESS TO GM: to the game's GM only, always allowed
(see gm.mail.outgoing.press). After a SIGNON that failed, PRESS TO GM still reaches the GMs of the
game it named, marked as from an unverified sender: the GM hears from a player who cannot sign on."""
from __future__ import annotations

from dataclasses import dataclass, field

from gm.games import masters
from gm.i18n import _, _n, translated
from gm.mail.budget import PRESS_PER_MAIL, UNVERIFIED_PRESS, UNVERIFIED_PRESS_PER_HOUR
from gm.mail.commands import Block, Context
from gm.mail.intake.provenance import Proof
from gm.mail.outgoing import press
from gm.mail.outgoing.reply import PRESS_HEADING, render
from gm.view.languages import language_of
from gm.store.models import AuditEntry, Game

NAME = "PRESS"
USAGE = "PRESS TO <power>[,<power>...] [GREY]  ...text...  ENDPRESS   (or PRESS TO GM)"
HELP = _("send press to those powers: the lines up to ENDPRESS, relayed without your address; PRESS TO GM "
         "(or MASTER) reaches the GM only, with your address, whatever the game's press setting")


def run(ctx: Context, args: list[str], line: str) -> None:
    if ctx.game is None and ctx.tried_game is not None and _to_gm(args):
        ctx.block = _unverified(ctx, ctx.tried_game, line)
        return
    ctx.block = press.start(ctx, args, line, broadcast=False)


def _to_gm(args: list[str]) -> bool:
    words = [w.upper().strip(",.:;") for w in args]
    return words[1:] in (["GM"], ["MASTER"], ["M"]) if words[:1] == ["TO"] else words in (["GM"], ["MASTER"], ["M"])


@dataclass
class UnverifiedPress(Block):
    """A PRESS TO GM from a mail whose sign-on failed: its text, up to ENDPRESS, for the GMs of the
    game the sign-on named, with the From address and why the sign-on failed; nothing proves who
    sent it, so each GM gets at most UNVERIFIED_PRESS_PER_HOUR of it an hour (gm.mail.budget)."""

    line: str
    game: Game
    refused: str | None = None
    text: list[str] = field(default_factory=list)
    lines: int = 0
    chars: int = 0

    def take(self, ctx: Context, line: str) -> bool:
        if " ".join(line.split()).upper() in press.CLOSING:
            self._close(ctx)
            return False
        self.lines += 1
        self.chars += len(line)
        if self.lines <= press.MAX_LINES and self.chars <= press.MAX_CHARS:
            self.text.append(line)
        return True

    def unclosed(self, ctx: Context) -> None:
        ctx.reject(self.line, _("{reason}; every line after this one was read as press, not orders",
                                reason=self.refused or _("the mail ended before ENDPRESS: nothing was sent")))

    def _close(self, ctx: Context) -> None:
        if self.refused:
            ctx.reject(self.line, self.refused)
        elif not self.text:
            ctx.reject(self.line, _("no text between this line and ENDPRESS: nothing was sent"))
        elif self.lines > press.MAX_LINES or self.chars > press.MAX_CHARS:
            ctx.reject(self.line, _("press is at most {max_lines} lines and {max_characters} characters, "
                                    "this one has {lines} and {characters}: nothing was sent",
                                    max_lines=press.MAX_LINES, max_characters=format(press.MAX_CHARS, ","),
                                    lines=self.lines, characters=format(self.chars, ",")))
        else:
            _relay(ctx, self)


def _unverified(ctx: Context, game: Game, line: str) -> UnverifiedPress:
    block = UnverifiedPress(line=line, game=game)
    ctx.press_sent += 1
    if ctx.press_sent > PRESS_PER_MAIL:
        block.refused = _("at most {count} press a mail: nothing was sent", count=PRESS_PER_MAIL)
    elif ctx.provenance is not None and ctx.provenance.proof is Proof.FORGED:
        block.refused = _("the mail's own domain disowns it: nothing was sent")
    elif not ctx.message.sender:
        block.refused = _("the mail names no sender: nothing was sent")
    return block


def _relay(ctx: Context, block: UnverifiedPress) -> None:
    game, sender = block.game, ctx.message.sender
    addresses = masters(ctx.session, game)
    if not addresses:
        ctx.reject(block.line, _("{game} has no GM to write to: nothing was sent", game=game.name))
        return
    # Why the sign-on failed, as its line's answer says (a wrong password too: the GM may know it)
    why = next((r.detail for r in reversed(ctx.results) if r.accepted is False
                and r.text.upper().split()[:1] == ["SIGNON"]), _("it failed"))
    really = _("{address}, UNVERIFIED: the mail's sign-on to {game} failed ({reason}), "
               "so nothing proves it came from that address", address=sender, game=game.name, reason=why)
    for address in addresses:
        lang = language_of(ctx.session, address, game)
        text = render("press.txt.j2", lang, marker=PRESS_HEADING, game=game.name, sender=_("an unverified sender"),
                      to=_("the GM"), text="\n".join(block.text), really=really)
        subject = _("[{game}] Press to the GM from an unverified sender ({address})", game=game.name, address=sender)
        ctx.notify(address, translated(subject, lang), text, kind=UNVERIFIED_PRESS)
    ctx.session.add(AuditEntry(game_id=game.id, actor=sender, action="press from an unverified sender",
                               detail={"to": ["GM"], "lines": block.lines, "characters": block.chars},
                               inbound_id=ctx.record_mail()))
    ctx.changed = True
    ctx.accept(block.line, _("sent to the GM of {game}, marked as from an unverified sender", game=game.name))
    ctx.sections.append((_("Press to the GM"), _n(
        "Signing on failed, so your PRESS TO GM goes to the GM of {game} marked as from an unverified "
        "sender, with this address (at most {count} such mail an hour reaches a GM).",
        "Signing on failed, so your PRESS TO GM goes to the GM of {game} marked as from an unverified "
        "sender, with this address (at most {count} such mails an hour reach a GM).",
        UNVERIFIED_PRESS_PER_HOUR, game=game.name)))
