"""What the commands of gm's command line share: their settings."""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gm.settings import Settings


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
