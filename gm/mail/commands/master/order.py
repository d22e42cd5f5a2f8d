"""ORDER <power> <order>: an order on a power's behalf, shown in the results as entered by the GM."""
from __future__ import annotations

from gm.engine.adjudicator import check_order
from gm.engine.orders import Allocation
from gm.engine.parse import parse_order
from gm.games import GameError, variant_of
from gm.i18n import _
from gm.lifecycle.edits import leading_power
from gm.lifecycle.timing import under_way
from gm.mail.commands import Context, orders, reason

NAME = "ORDER"
USAGE = "ORDER <power> <order>"
HELP = _("an order on a power's behalf, shown in the results as entered by the GM")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if len(args) < 2:
        ctx.reject(line, _("usage: {usage} ({example})", usage=USAGE, example="ORDER France A Par - Bur"))
        return
    enter(ctx, args, line, NAME)


def enter(ctx: Context, args: list[str], line: str, name: str) -> None:
    """Read `args` as <power> <order> (DP: <power> DP <n> <order>) and put the order on file for
    the power, checked as the player's own would be (see orders.run)."""
    game = ctx.game
    variant = variant_of(game)
    try:
        current = under_way(ctx.session, game)
        power, rest = leading_power(variant, args)
    except GameError as e:
        ctx.reject(line, reason(e))
        return
    if variant.rules.is_minor(variant, current.state, power) and variant.rules.minors_ordered_by_points:
        ctx.reject(line, _("{power} is a minor power: its units are ordered through the great powers' allocations "
                           "(DP <power> <n> <order>)", power=power))
        return
    text = " ".join(rest)
    is_dp = name != NAME
    if is_dp and variant.rules.points_available(variant, current.state, power) is None:
        ctx.reject(line, _("{variant} has no point allocations: ORDER <power> <order> gives an order",
                           variant=variant.title))
        return
    parsed = parse_order(variant, text, power, current.state.phase.kind, current.state)
    if parsed.order is None:
        ctx.reject(line, _("{power}: {error}", power=power, error=parsed.error or _("not understood")))
        return
    order = parsed.order
    if isinstance(order, Allocation) != is_dp:
        ctx.reject(line, _("an allocation: use {usage}", usage="DP <power> <n> <order>") if not is_dp else
                   _("not an allocation: use {usage}", usage="ORDER <power> <order>"))
        return
    why = check_order(variant, current.state, order)
    if why:
        ctx.reject(line, _("{power}: {error}", power=power, error=why))
        return
    orders.store(ctx, current.row.id, order, line)
    ctx.audit(name.lower(), {"phase": current.row.label, "power": power, "order": str(order)})
    ctx.accept(line, _("{power}: {order} (entered by the GM)", power=power, order=str(order)))
