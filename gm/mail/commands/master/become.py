"""BECOME <power>: for the rest of this mail the GM acts as a power: its orders, WAIT and NOWAIT,
CLEAR, press as the power, and what a player may read. Each line is recorded in the audit log as
the GM's, an order is shown in the results as entered by the GM, and the GM's acknowledgement
says of each line that it was done as the power. The power's own player keeps their password and
address (those commands stay theirs). SIGNON, SIGNOFF or another BECOME ends it."""
from __future__ import annotations

import logging
from dataclasses import dataclass

from gm.games import GameError
from gm.i18n import _
from gm.lifecycle.players import great_power
from gm.mail.commands import Block, Context, command_for, masked, orders, reason
from gm.store.models import AuditEntry, Master, Player

NAME = "BECOME"
USAGE = "BECOME <power>"
HELP = _("act as a power for the rest of this mail: its orders, WAIT, NOWAIT, CLEAR and press, recorded as the GM's")

log = logging.getLogger(__name__)

# What the GM may do as a power: its orders (no command), these, and reading.
AS_POWER = ("WAIT", "NOWAIT", "CLEAR", "PRESS", "BROADCAST", "LIST", "HISTORY", "RESULTS", "MAP", "SUMMARY", "HELP")
ENDS = ("SIGNON", "SIGNOFF", NAME)  # lines that end it, carried out as usual


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if not args:
        ctx.reject(line, _("usage: {usage}", usage=USAGE))
        return
    game, master = ctx.game, ctx.master
    assert game is not None and master is not None
    try:
        power = great_power(ctx.session, game, " ".join(args))
    except GameError as e:
        ctx.reject(line, reason(e))
        return
    player = ctx.lookups.player(game, power)
    if player is None:
        ctx.reject(line, _("nobody plays {power} in {game}: ORDER {power} <order> gives its orders", power=power,
                           game=game.name))
        return
    ctx.accept(line, _("for the rest of this mail you act as {power}: its orders, WAIT, NOWAIT, CLEAR and press, "
                       "each recorded as the GM's", power=power))
    _act_as(ctx, player)
    ctx.block = AsPower(master=master, player=player)


def _act_as(ctx: Context, player: Player) -> None:
    # Not ctx.sign_on: the player's address is not answered; the lines stay the GM's (line_owner).
    ctx.player, ctx.master = player, None


@dataclass
class AsPower(Block):
    """The lines after BECOME, each carried out as the power, until the mail ends or a line ends it."""

    master: Master
    player: Player
    inner: Block | None = None  # a block opened as the power (PRESS ... ENDPRESS)
    ACTS_FOR_A_POWER = True

    def take(self, ctx: Context, line: str) -> bool:
        before = len(ctx.results)
        if self.inner is not None:
            if not self.inner.take(ctx, line):
                self.inner = None
            self._mark(ctx, before)
            return True
        ending, ending_args = command_for(line, master=True)
        if ending is not None and ending.NAME in ENDS:
            self._end(ctx)
            ctx.block = None  # what the line opens (BECOME again) is the mail's block from now on
            ending.run(ctx, ending_args, line)
            if ctx.signed_off:  # SIGNOFF: the rest of the mail is ignored, here too
                ctx.block = _Ignored()
            return True
        command, args = command_for(line)
        if command is not None and command.NAME not in AS_POWER:
            ctx.reject(masked(line), _("the GM acting as {power} gives its orders, WAIT, NOWAIT, CLEAR and press "
                                       "only: {command} is its player's", power=self.player.power,
                                       command=command.NAME))
            return True
        pending = len(ctx.lookups.pending_orders)
        self._run(ctx, command, args, line)
        for _key, row in ctx.lookups.pending_orders[pending:]:
            row["entered_by"] = self.master.email  # shown in the results as entered by the GM
        if ctx.block is not self:  # the line opened a block of its own (PRESS)
            self.inner, ctx.block = ctx.block, self
        self._mark(ctx, before)
        return True

    def unclosed(self, ctx: Context) -> None:
        before = len(ctx.results)
        if self.inner is not None:
            self.inner.unclosed(ctx)
            self._mark(ctx, before)
        self._end(ctx)

    def _run(self, ctx: Context, command: object, args: list[str], line: str) -> None:
        """The line as its player's would be, in a savepoint of its own (see gm.mail.ingest)."""
        try:
            with ctx.session.begin_nested():
                if command is None:
                    orders.run(ctx, line)
                else:
                    orders.write_orders(ctx.session, ctx.lookups)
                    command.run(ctx, args, line)  # type: ignore[attr-defined]
        except Exception:  # a bug must not lose the rest of the mail
            log.exception("command failed as a power: %r", line)
            ctx.lookups.forget()
            ctx.reject(line, _("the judge could not carry this out (the GM has been told)"))

    def _mark(self, ctx: Context, before: int) -> None:
        """The GM's answer says what was done as the power; the audit log records it as the GM's."""
        power = self.player.power
        for result in ctx.results[before:]:
            result.detail = _("{detail} (as {power}, by the GM)", detail=result.detail, power=power)
            if result.accepted:
                ctx.session.add(AuditEntry(game_id=self.player.game_id, actor=self.master.email, action="as power",
                                           detail={"power": power, "line": result.text},
                                           inbound_id=ctx.record_mail()))
                ctx.changed = True

    def _end(self, ctx: Context) -> None:
        """The GM is the GM again."""
        ctx.player, ctx.master = None, self.master


class _Ignored(Block):
    """The lines after a SIGNOFF: ignored."""

    def take(self, ctx: Context, line: str) -> bool:
        return True

    def unclosed(self, ctx: Context) -> None:
        return None
