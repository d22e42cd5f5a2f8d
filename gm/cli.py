"""The `gm` command: `gm adjudicate FILE` runs DATC-format case files, `gm demo` plays a short game,
`gm serve` runs the mail service, `gm db upgrade` brings the database up to date."""
from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Sequence

from gm import __version__

if TYPE_CHECKING:
    from gm.settings import Settings


def _adjudicate(args: argparse.Namespace) -> int:
    from gm.casefile import CaseFileError, check, read_cases, run_case, select_cases, text_report, to_json

    try:
        cases = read_cases(args.file)
    except (OSError, CaseFileError) as e:
        print(f"gm adjudicate: {e}", file=sys.stderr)
        return 2
    chosen = select_cases(cases, args.case)
    if not chosen:
        wanted = ", ".join(args.case or [])
        print(f"gm adjudicate: no case {wanted} in {args.file}" if wanted else f"gm adjudicate: {args.file} has no cases", file=sys.stderr)
        return 2
    passed = failed = 0
    for case in chosen:
        try:
            run = run_case(case)
        except CaseFileError as e:
            print(f"gm adjudicate: {e}", file=sys.stderr)
            return 2
        if args.json:
            print(json.dumps(to_json(run), ensure_ascii=False))
        elif not args.check:
            print(text_report(run))
            print()
        if args.check:
            problems = check(run)
            if problems:
                failed += 1
                stream = sys.stderr if args.json else sys.stdout
                print(f"FAIL {case.id}: " + "; ".join(problems), file=stream)
            else:
                passed += 1
        elif run.error is not None:
            failed += 1
    if args.check:
        stream = sys.stderr if args.json else sys.stdout
        print(f"{passed} passed, {failed} failed", file=stream)
    return 1 if failed else 0


def _demo(args: argparse.Namespace) -> int:
    from gm.demo import run_demo

    return run_demo()


def _load_settings(args: argparse.Namespace, command: str) -> Settings | None:
    from gm.settings import SettingsError, load_settings

    try:
        return load_settings(args.config)
    except SettingsError as e:
        print(f"gm {command}: {e}", file=sys.stderr)
        return None


def _serve(args: argparse.Namespace) -> int:
    import logging

    from gm.server import run

    settings = _load_settings(args, "serve")
    if settings is None:
        return 2
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    for chatty in ("mail.log", "aioimaplib"):  # aiosmtpd and aioimaplib log every command at INFO
        logging.getLogger(chatty).setLevel(logging.WARNING)
    return run(settings)


def _db_upgrade(args: argparse.Namespace) -> int:
    from sqlalchemy.engine import make_url

    from gm.store.db import upgrade

    settings = _load_settings(args, "db upgrade")
    if settings is None:
        return 2
    upgrade(settings.db_url)
    print(f"gm db upgrade: {make_url(settings.db_url).render_as_string(hide_password=True)} is up to date")
    return 0


def _game_new(args: argparse.Namespace) -> int:
    from gm.games import GameError, create_game
    from gm.store.db import make_engine, make_session_factory, transaction, upgrade
    from gm.variants import VariantError

    settings = _load_settings(args, "game new")
    if settings is None:
        return 2
    upgrade(settings.db_url)
    try:
        with transaction(make_session_factory(make_engine(settings.db_url))) as session:
            game = create_game(session, args.name, args.variant, actor="gm (command line)")
            name, variant = game.name, game.variant
    except (GameError, VariantError) as e:
        print(f"gm game new: {e}", file=sys.stderr)
        return 2
    print(f"game {name} ({variant}) is forming: players send 'JOIN {name} <power> <password>' to {settings.gm_address}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gm", description="A play-by-email game master for Diplomacy.")
    parser.add_argument("--version", action="version", version=f"gm {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    adj = sub.add_parser(
        "adjudicate",
        help="run the cases of a DATC-format case file through the adjudicator",
        description="Run the cases of a DATC-format case file (the jDip/godip format, see docs/datc.md).",
    )
    adj.add_argument("file", metavar="FILE", help="the case file")
    adj.add_argument("--case", action="append", metavar="ID", help="run only this case (may be repeated; '6.J.9' includes its parts)")
    adj.add_argument("--json", action="store_true", help="print one JSON object per case per line")
    adj.add_argument(
        "--check",
        action="store_true",
        help="compare the results with POSTSTATE/POSTSTATE_DISLODGED; exit 1 if any case differs",
    )
    adj.set_defaults(func=_adjudicate)

    demo = sub.add_parser("demo", help="play a short scripted game on the standard map")
    demo.set_defaults(func=_demo)

    config_help = "the settings file (TOML); default: $GM_CONFIG, else none (GM_* variables still apply)"
    serve = sub.add_parser(
        "serve",
        help="run the mail service: read the GM's inbox, answer, send the outbox",
        description="Run the mail service until SIGINT or SIGTERM. With no IMAP server configured, "
        "gm runs its own IMAP and SMTP servers on loopback (see gm/settings.py).",
    )
    serve.add_argument("--config", metavar="FILE", help=config_help)
    serve.set_defaults(func=_serve)

    db = sub.add_parser("db", help="database maintenance")
    db_sub = db.add_subparsers(dest="db_command", metavar="COMMAND", required=True)
    db_upgrade = db_sub.add_parser("upgrade", help="apply every migration the database lacks (making it if need be)")
    db_upgrade.add_argument("--config", metavar="FILE", help=config_help)
    db_upgrade.set_defaults(func=_db_upgrade)

    game = sub.add_parser("game", help="games on this judge")
    game_sub = game.add_subparsers(dest="game_command", required=True)
    game_new = game_sub.add_parser("new", help="create a game; players then JOIN it by mail")
    game_new.add_argument("name", help="the game's short name (letters, digits, _)")
    game_new.add_argument("--variant", default="standard", help="standard, classical, ambition, ambition-v6")
    game_new.add_argument("--config", metavar="FILE", help=config_help)
    game_new.set_defaults(func=_game_new)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
