"""DP <power> <n> <order>: secret points on a power's behalf (variants with minor powers)."""
from __future__ import annotations

from gm.i18n import _
from gm.mail.commands import Context
from gm.mail.commands.master.order import enter

NAME = "DP"
USAGE = "DP <power> <n> <order>"
HELP = _("secret points on a power's behalf (variants with minor powers)")


def run(ctx: Context, args: list[str], line: str) -> None:
    if not ctx.is_master(line):
        return
    if len(args) < 3:
        ctx.reject(line, _("usage: {usage} ({example})", usage=USAGE, example="DP France 2 A Tus - Pap"))
        return
    # <power> <n> <order> read as the power's own 'DP <n> <order>' line
    words = list(args)
    count = next((i for i, w in enumerate(words) if w.isdigit()), None)
    if count is None or count == 0:
        ctx.reject(line, _("usage: {usage}: the power, then the points ({example})", usage=USAGE,
                           example="DP France 2 A Tus - Pap"))
        return
    enter(ctx, [*words[:count], NAME, *words[count:]], line, NAME)
