"""`gm map`: a variant's board built from its geography and checked against its rules, and
positions drawn (a case file's, or a stored game's)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from gm.cli.common import VARIANTS, load_settings, stored_game


def _map_build(args: argparse.Namespace) -> int:

    from gm.maps.build import debug_picture, draw_board, write_art
    from gm.maps.check import check_board
    from gm.maps.geography import GeographyError, build_board

    try:
        board = build_board(args.variant)
    except GeographyError as e:
        print(f"gm map build: {e}", file=sys.stderr)
        return 2
    report = check_board(board)
    drawn = draw_board(board)
    if args.debug_picture:
        debug_picture(drawn, Path(args.debug_picture))
        print(f"anchors drawn in {args.debug_picture}")
    if not args.dry_run:
        where = write_art(drawn)
        print(f"{args.variant}: art written to {where}")
    print(report.text())
    return 1 if report.unexplained else 0


def _map_check(args: argparse.Namespace) -> int:
    from gm.maps.check import check_board
    from gm.maps.geography import GeographyError, build_board

    try:
        report = check_board(build_board(args.variant))
    except GeographyError as e:
        print(f"gm map check: {e}", file=sys.stderr)
        return 2
    print(report.text())
    return 1 if report.unexplained else 0


def _map_render(args: argparse.Namespace) -> int:

    if bool(args.file) == bool(args.game):
        print("gm map render: give a case file or --game NAME (one of them)", file=sys.stderr)
        return 2
    if args.file:
        from gm.casefile import CaseFileError, read_cases, run_case, select_cases
        from gm.maps.render import render_run

        try:
            chosen = select_cases(read_cases(args.file), [args.case] if args.case else None)
            if not chosen:
                print(f"gm map render: no case {args.case or ''} in {args.file}".replace("  ", " "), file=sys.stderr)
                return 2
            png = render_run(run_case(chosen[0]), args.palette or "rulebook")
        except (OSError, CaseFileError) as e:
            print(f"gm map render: {e}", file=sys.stderr)
            return 2
        what = chosen[0].id
    else:
        from gm.games import variant_of
        from gm.lifecycle.phase_names import read_phase
        from gm.mail.outgoing.mail_maps import stored_map
        with stored_game(load_settings(args), args.game, "map render") as found:
            if found is None:
                return 2
            session, game = found
            phase = read_phase(variant_of(game), args.phase) if args.phase else None
            if args.phase and phase is None:
                print(f"gm map render: {args.phase!r} is no phase (e.g. 'Spring 1901', S1901, F1901R)", file=sys.stderr)
                return 2
            try:
                png, what = stored_map(session, game, phase, args.palette)
            except ValueError as e:
                print(f"gm map render: {e}", file=sys.stderr)
                return 2
    Path(args.out).write_bytes(png)
    print(f"{what}: {args.out} ({len(png) // 1000} KB)")
    return 0


def map_commands(sub: Any, config_help: str) -> None:
    """The `gm map` commands, on the command line's subparsers `sub`."""
    maps = sub.add_parser("map", help="map art: build it from geography, check it against the rules, draw positions")
    map_sub = maps.add_subparsers(dest="map_command", metavar="COMMAND", required=True)
    map_build = map_sub.add_parser(
        "build", help="draw a variant's board from maps/<variant>/geography.toml into maps/<variant>/art/ (needs the mapbuild extra)")
    map_build.add_argument("variant", help=VARIANTS)
    map_build.add_argument("--debug", dest="debug_picture", metavar="FILE.png", help="also write the board with every anchor drawn")
    map_build.add_argument("--dry-run", action="store_true", help="write no art (with --debug: only the picture)")
    map_build.set_defaults(func=_map_build)
    map_check = map_sub.add_parser(
        "check", help="list every difference between the board's art and the variant's adjacency; exit 1 if one is unexplained")
    map_check.add_argument("variant", help=VARIANTS)
    map_check.set_defaults(func=_map_check)
    map_render = map_sub.add_parser(
        "render", help="draw a case's position with its orders and results, or a stored game's, as PNG",
        description="Draw the position of a case of a case file (the format gm adjudicate reads) with its orders and "
        "their results, or, with --game, a stored game's: the position now, or an adjudicated phase with its orders.")
    map_render.add_argument("file", nargs="?", metavar="CASEFILE", help="a case file")
    map_render.add_argument("--case", metavar="ID", help="the case to draw (default: the file's first)")
    map_render.add_argument("--game", metavar="NAME", help="a game on this judge instead of a case file")
    map_render.add_argument("--phase", metavar="PHASE", help="with --game: an adjudicated phase (Spring 1901, S1901, F1901R)")
    map_render.add_argument("--palette", choices=("rulebook", "colourblind"), help="the powers' colours (default: the game's)")
    map_render.add_argument("--out", required=True, metavar="FILE.png", help="where the PNG goes")
    map_render.add_argument("--config", metavar="FILE", help=config_help)
    map_render.set_defaults(func=_map_render)
