"""`gm game import FILE --name NAME`: a game under way on another judge moves in to continue here.
The file is a DPjudge status file, njudge's or DPjudge's results or LIST mail as the GM has it, or
gm's own position text (README, "Moving a game in"). What is read is shown (a summary, the position
in gm's own lines, its map with --map) and made only once the GM says yes: the game is under way,
paused, each player named mailed a code (the IMPORT mail command does the same by mail)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gm.cli.common import load_settings, master_password

if TYPE_CHECKING:
    from gm.lifecycle.moving_in import Position
    from gm.settings import Settings


def import_command(game_sub: argparse._SubParsersAction, config_help: str) -> None:  # type: ignore[type-arg]
    """The `gm game import` parser."""
    parser = game_sub.add_parser(
        "import", help="move a game under way on another judge in: a DPjudge status file, njudge's or DPjudge's "
        "results mail, or gm's own position text",
        description="Read a game under way on another judge (a DPjudge status file; njudge's or DPjudge's results "
        "or LIST mail as you have it, quoted or forwarded; gm's own position text), show what was read, and once "
        "you confirm make the game of it here: under way, paused, each player named mailed a code to confirm "
        "their address and choose a password. RESUME (gm game master NAME RESUME) starts its clock.")
    parser.add_argument("file", metavar="FILE", help="the other judge's text (- for standard input)")
    parser.add_argument("--name", required=True,
                        help="the game's name here (1 to 64 ASCII letters, digits, '-' and '_')")
    parser.add_argument("--variant", help="the variant, where the text does not name it (it must agree where it does)")
    parser.add_argument("--master", action="append", metavar="ADDRESS",
                        help="a GM's address (may be repeated; default: the GM the text names, if any)")
    parser.add_argument("--master-password-file", dest="master_password_file", metavar="FILE",
                        help="the GM password, read from FILE (- for standard input); default $GM_MASTER_PASSWORD, "
                        "else asked for on a terminal")
    parser.add_argument("--map", metavar="FILE.png", help="write the map of the position read to FILE.png")
    parser.add_argument("--yes", action="store_true", help="make the game without asking (for scripts)")
    parser.add_argument("--config", metavar="FILE", help=config_help)
    parser.set_defaults(func=game_import)


def game_import(args: argparse.Namespace) -> int:
    from gm.games import GameError, game_name
    from gm.lifecycle.moving_in import Refused, read_position, summary
    from gm.mail.commands.master.import_game import address_problems
    from gm.variants import load_variant

    settings = load_settings(args)
    try:
        name = game_name(args.name)
    except GameError as e:
        print(f"gm game import: {e}", file=sys.stderr)
        return 2
    try:
        text = _read(args.file)
    except OSError as e:
        print(f"gm game import: cannot read {args.file}: {e.strerror or e}", file=sys.stderr)
        return 2
    masters = [m.strip().lower() for m in args.master or []]
    try:
        position = read_position(text, args.variant)
        masters = masters or ([position.master] if position.master else [])
        address_problems(position, settings.gm_address, set(masters))
    except Refused as e:
        print(f"gm game import: {args.file} cannot move in ({len(e.problems)} problem"
              f"{'s' if len(e.problems) > 1 else ''}); nothing was made:", file=sys.stderr)
        for problem in e.problems:
            print(f"  {problem}", file=sys.stderr)
        return 2
    variant = load_variant(position.variant)
    print("\n".join(summary(variant, position)))
    print()
    print(position.text(variant))
    if args.map:
        from gm.maps.art import has_art
        from gm.maps.render import position_scene, render

        if has_art(variant.name):
            Path(args.map).write_bytes(render(variant, position_scene(variant, position.state, name)))
            print(f"\nthe map of the position read: {args.map}")
        else:
            print(f"\ngm game import: the judge has no map of {variant.title} yet: no {args.map}", file=sys.stderr)
    if not args.yes:
        answered = sys.stdin.isatty()
        if not _confirmed(name):
            print("gm game import: nothing was made", file=sys.stderr)
            return 1 if answered else 2
    return _make(args, settings, name, position, masters)


def _make(args: argparse.Namespace, settings: Settings, name: str, position: Position, masters: list[str]) -> int:
    """The game made, in one transaction: all of it or nothing."""
    from gm.games import GameError, add_master, create_game
    from gm.lifecycle.house_rules import OPTION_KEY, rules_of, with_changes
    from gm.mail.commands.master import OPERATOR
    from gm.mail.commands.master.import_game import made, take_in_as_operator
    from gm.store.db import make_engine, make_session_factory, require_database, transaction
    from gm.store.passwords import hash_password

    password_hash = None
    if masters:
        password = master_password(args)
        password_hash = hash_password(password) if password else None
    require_database(settings.db_url)
    try:
        with transaction(make_session_factory(make_engine(settings.db_url))) as session:
            game = create_game(session, name, position.variant, actor=OPERATOR)
            rules = with_changes(rules_of(None), {"timezone": settings.timezone})
            game.options = {OPTION_KEY: rules.to_options()}
            for address in masters:
                add_master(session, game, address, password_hash, actor=OPERATOR)
            current, invited = take_in_as_operator(session, game, position, gm_address=settings.gm_address)
            said = made(game, current, invited, position)
    except GameError as e:
        print(f"gm game import: {e}", file=sys.stderr)
        return 2
    print(f"\n{said.replace('RESUME starts', f'gm game master {name} RESUME starts')} (gm serve sends the mail)")
    if masters:
        how = (f"sign on by mail with 'SIGNON MASTER {name} <password>'" if password_hash else
               "no GM password was given: they get the copies, and cannot run the game by mail")
        print(f"  GM{'s' if len(masters) > 1 else ''}: {', '.join(masters)}; {how}")
    return 0


def _read(file: str) -> str:
    """The text of FILE (- for standard input): UTF-8, else Latin-1 (DPjudge's own)."""
    data = sys.stdin.buffer.read() if file == "-" else Path(file).read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _confirmed(name: str) -> bool:
    """The GM's yes, asked on a terminal; without one (a script), no: --yes says it."""
    if not sys.stdin.isatty():
        print(f"gm game import: make the game {name} with this position? Not on a terminal: add --yes to make it",
              file=sys.stderr)
        return False
    answer = input(f"\nMake the game {name} with this position, paused, and mail each player a code? [y/N] ")
    return answer.strip().lower() in ("y", "yes")
