"""CONFIRM <code>: carry out the JOIN, SET ADDRESS, CREATE, OBSERVE or PROMOTE that waits for the
code the judge mailed to its address (see gm.mail.commands.confirmations). Each is carried out by the command that
asked for it: the one whose CONFIRMS names its kind, found in the registries, so that the
confirmations below the commands never import them."""
from __future__ import annotations

from types import ModuleType

from gm.i18n import _
from gm.mail.commands import confirmations
from gm.mail.commands import Context, masked, master_registry, registry
from gm.mail.intake.provenance import Proof, Provenance
from gm.store.models import utcnow

NAME = "CONFIRM"
USAGE = "CONFIRM <code>"
HELP = _("confirm with the code the judge mailed you that the address is yours (JOIN, SET ADDRESS, CREATE)")
TAKES_PASSWORD = True  # the code is as secret as a password until it is used: never shown back or stored


def run(ctx: Context, args: list[str], line: str) -> None:
    """One a mail, so that one mail is one guess. Refused as a failed sign-on: a sender who signed
    on to nothing is told why."""
    shown = masked(line)
    if not args:
        ctx.refuse_sign_on(shown, _("usage: {usage}", usage=USAGE))
        return
    if ctx.confirmations:
        ctx.refuse_sign_on(shown, confirmations.ONE_A_MAIL)
        return
    ctx.confirmations += 1
    code = confirmations.read_code("".join(args))
    found = confirmations.pending(ctx.session, code) if code is not None else None
    if found is None or code is None:
        ctx.refuse_sign_on(shown, confirmations.NO_SUCH_CODE)
        return
    password = confirmations.unseal(found, code)
    if found.sealed_password is not None and password is None:
        ctx.refuse_sign_on(shown, confirmations.SEALED_UNDER_ANOTHER_KEY)
        return
    kind = confirmations.kind_of(found)
    if kind != confirmations.MASTER and found.address == ctx.message.sender and not ctx.authenticated:
        # The code proves the sender (a co-GM's is another's request: it signs on as GM alone).
        ctx.provenance = Provenance(Proof.AUTHENTICATED, "its confirmation code", ctx.dkim)
    if _carrying_out()[kind].confirmed(ctx, found, shown, password):
        found.confirmed_at = utcnow()
        found.sealed_password = None  # hashed where it belongs now: nothing of it stays here


def _carrying_out() -> dict[str, ModuleType]:
    """Kind of confirmation -> the command module that carries it out (its CONFIRMS)."""
    modules = [*registry().values(), *master_registry().values()]
    return {module.CONFIRMS: module for module in modules if hasattr(module, "CONFIRMS")}
