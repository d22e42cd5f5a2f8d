"""`gm mail ...`: the judge's mailbox: `authorize` signs the judge in at an OAuth2 provider once,
`check` tries the mail settings as gm serve would."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from gm.cli.common import load_settings


def mail_commands(sub: Any, config_help: str) -> None:
    """The `gm mail` commands, on the command line's subparsers `sub`."""
    mail = sub.add_parser("mail", help="the judge's mailbox")
    mail_sub = mail.add_subparsers(dest="mail_command", metavar="COMMAND", required=True)
    mail_authorize = mail_sub.add_parser(
        "authorize", help="sign the judge in to its mailbox at an OAuth2 provider, once (Microsoft 365, Google)")
    mail_authorize.add_argument("--no-browser", action="store_true",
                                help="print the sign-in page's address instead of opening a browser (Google)")
    mail_authorize.add_argument("--config", metavar="FILE", help=config_help)
    mail_authorize.set_defaults(func=_authorize)
    mail_check = mail_sub.add_parser(
        "check", help="log in to IMAP and SMTP as gm serve would, say what each offers, and mail the GM's address "
                      "and read it back (gm serve stopped); exit 1 on a problem")
    mail_check.add_argument("--no-send", action="store_true", help="log in only: send no test mail")
    mail_check.add_argument("--wait", type=float, default=60.0, metavar="SECONDS",
                            help="how long the test mail may take to come back (default 60)")
    mail_check.add_argument("--config", metavar="FILE", help=config_help)
    mail_check.set_defaults(func=_check)
    dkim_key = mail_sub.add_parser(
        "dkim-key", help="make the judge's DKIM key (RSA 2048, or Ed25519) and print the DNS record to publish; "
                         "--show: the record of the key in use")
    dkim_key.add_argument("--selector", help="the selector (default: GM_DKIM_SELECTOR, else gm1)")
    dkim_kind = dkim_key.add_mutually_exclusive_group()
    dkim_kind.add_argument("--ed25519", action="store_true",
                           help="an Ed25519 key (RFC 8463): short, but not every receiver checks it yet")
    dkim_kind.add_argument("--show", action="store_true",
                           help="make nothing: print the DNS record of the key in use (exit 2 if there is none)")
    dkim_key.add_argument("--config", metavar="FILE", help=config_help)
    dkim_key.set_defaults(func=_dkim_key)
    dns = mail_sub.add_parser(
        "dns", help="what the GM address's domain publishes (MX, SPF, DKIM, DMARC, reverse DNS) and what is "
                    "missing or wrong; exit 1 if any")
    dns.add_argument("--config", metavar="FILE", help=config_help)
    dns.set_defaults(func=_dns)


def _authorize(args: argparse.Namespace) -> int:
    from gm.mail.oauth2.authorize import authorize
    from gm.mail.oauth2.providers import from_settings

    settings = load_settings(args)
    oauth2 = from_settings(settings)
    if oauth2 is None or settings.imap_user is None:
        print("gm mail authorize: no OAuth2 sign-in is set: set GM_OAUTH2_PROVIDER and GM_OAUTH2_CLIENT_ID "
              "(see docs/mail-account.md)", file=sys.stderr)
        return 2
    kept = authorize(oauth2, settings.imap_user, browser=not args.no_browser)
    print(f"gm mail authorize: the judge may now read and send mail as {kept['user']} at {kept['provider']} "
          f"(scope {kept['scope']}); the grant is kept in {oauth2.grant_path}, readable by this user only")
    return 0


def _check(args: argparse.Namespace) -> int:
    import asyncio

    from gm.mail.check import check

    settings = load_settings(args)
    problems = asyncio.run(check(settings, send=not args.no_send, wait=args.wait))
    print("gm mail check: the mail settings work" if not problems else
          f"gm mail check: {len(problems)} problem{'s' if len(problems) != 1 else ''} (PROBLEM lines above)")
    return 1 if problems else 0


def _dkim_key(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from gm.mail.outgoing.signing import load_key, new_key

    settings = load_settings(args)
    selector = (args.selector or settings.dkim_selector or "gm1").lower()
    path = replace(settings, dkim_selector=selector).dkim_key_path
    assert path is not None
    domain = settings.gm_address.rpartition("@")[2].lower()
    if args.show:
        return _show_dkim_key(path, selector, domain)
    if path.exists():
        print(f"gm mail dkim-key: {path} exists already (a key in use): move it away first, or name another selector",
              file=sys.stderr)
        return 2
    new_key(path, "ed25519" if args.ed25519 else "rsa")
    key = load_key(path, selector, domain)
    print(f"gm mail dkim-key: a new {key.algorithm} key in {path} (readable by this user only). Publish this TXT "
          f"record, then set GM_DKIM_SELECTOR={selector}" + (f" and GM_DKIM_KEY={path}" if settings.dkim_key else "")
          + " and restart gm serve; gm mail dns checks it:")
    print(f"{key.record_name}. IN TXT \"{key.record()}\"")
    return 0


def _show_dkim_key(path: Path, selector: str, domain: str) -> int:
    """The record of the key in `path`, as gm mail dkim-key printed it when it made it: on the last line."""
    from gm.mail.outgoing.signing import load_key

    if not path.exists():
        print(f"gm mail dkim-key: no DKIM key at {path} for the selector {selector}: gm serve makes it at its first "
              "start when GM_DKIM_SELECTOR is set, or make one with gm mail dkim-key", file=sys.stderr)
        return 2
    try:
        key = load_key(path, selector, domain)
    except ValueError as e:
        print(f"gm mail dkim-key: {e}", file=sys.stderr)
        return 2
    print(f"gm mail dkim-key: the {key.algorithm} key in {path}; its TXT record, which gm mail dns checks:")
    print(f"{key.record_name}. IN TXT \"{key.record()}\"")
    return 0


def _dns(args: argparse.Namespace) -> int:
    import gm.mail.intake.dns
    from gm.mail.published import check
    from gm.server import judge_dkim_key

    settings = load_settings(args)
    gm.mail.intake.dns.configure(settings.dns_server)
    problems = check(settings, judge_dkim_key(settings))
    print("gm mail dns: the records a receiver looks at are in place" if not problems else
          f"gm mail dns: {len(problems)} to publish or put right (MISSING and WRONG lines above)")
    return 1 if problems else 0
