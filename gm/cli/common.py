"""What the commands of gm's command line share: their settings, the GM password of a new game, a
stored game found by name."""
from __future__ import annotations

import argparse
import getpass
import os
import sys
from pathlib import Path
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from gm.settings import Settings
    from gm.store.models import Game


VARIANTS = "standard, classical, ambition, ambition-v6, napoleonic, 1700ad, youngstown"  # gm.variants.REGISTRY, without importing it


def load_settings(args: argparse.Namespace) -> Settings:
    """The settings, kept in `args` too: main() names the database in what it says of a failure."""
    from gm.settings import load_settings

    args.settings = load_settings(args.config)
    # The judge's secret key (gm.store.judge_key), for the passwords a command hashes: the server's,
    # or made now where the data folder is. With neither, a hash made here is checked in full until
    # its next sign-on rehashes it.
    if args.settings.secret_key_path.exists() or args.settings.data_dir.is_dir():
        from gm.store import judge_key

        judge_key.load(args.settings.secret_key_path)
    return args.settings


def master_password(args: argparse.Namespace) -> str | None:
    """The GM password of a game made on the command line (gm game new, gm game import): from
    --master-password-file (- for standard input), else $GM_MASTER_PASSWORD, else asked for on a
    terminal; None when there is none."""
    if args.master_password_file:
        if args.master_password_file == "-":
            return sys.stdin.readline().strip() or None
        return Path(args.master_password_file).read_text(encoding="utf-8").strip() or None
    if os.environ.get("GM_MASTER_PASSWORD"):
        return os.environ["GM_MASTER_PASSWORD"]
    if sys.stdin.isatty():
        return getpass.getpass("GM password for the game (empty: none): ").strip() or None
    return None


@contextmanager
def stored_game(settings: Settings, name: str, command: str) -> Iterator[tuple[Session, Game] | None]:
    """The game called `name`, in a transaction; None when no game can have that name or none
    has it, `gm COMMAND` having said which (a bad name before any database work)."""
    from gm.games import GameError, find_game, game_name
    from gm.store.db import make_engine, make_session_factory, require_database, transaction

    try:
        game_name(name)
    except GameError as e:
        print(f"gm {command}: {e}", file=sys.stderr)
        yield None
        return
    require_database(settings.db_url)
    with transaction(make_session_factory(make_engine(settings.db_url))) as session:
        game = find_game(session, name)
        if game is None:
            print(f"gm {command}: there is no game called {name.strip().lower()}: gm game list shows them",
                  file=sys.stderr)
        yield (session, game) if game is not None else None
