"""`gm variant import FILE`: a variant from another judge's map files, written as a maps/<name>/
folder the registry finds (gm.variants.importing reads the texts; here the files are read from
disk and the folder written, all of it or nothing)."""
from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gm.variants.importing import Imported

NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")


def variant_commands(sub: Any) -> None:
    """The `gm variant` commands, on the command line's subparsers `sub`."""
    variant = sub.add_parser("variant", help="variants: import one from a DPjudge or njudge map file")
    variant_sub = variant.add_subparsers(dest="variant_command", metavar="COMMAND", required=True)
    imp = variant_sub.add_parser(
        "import", help="read a DPjudge .map (and the files it USEs) or an njudge map.<v> and seed.<v>, and write "
                       "maps/<name>/: variant.toml, README.md, a geography.toml to fill in",
        description="Import a variant whose rules gm already plays (standard Diplomacy on another board) from a "
                    "DPjudge .map file, the files it USEs read from beside it, or an njudge map.<variant> file, its "
                    "seed.<variant> beside it. A map gm cannot read, or whose directives need rules gm lacks, is "
                    "refused with every problem named (file:line), and nothing is written.")
    imp.add_argument("file", help="the map file")
    imp.add_argument("--name", help="the variant's name: lower-case letters, digits and '-' (default: the file's)")
    imp.add_argument("--out", metavar="DIR", help="the folder of variants to write it into (default: gm's maps/)")
    imp.add_argument("--power", action="append", default=[], metavar="L=NAME[:ADJECTIVE]",
                     help="njudge: the name (and adjective) of the power with letter L; njudge keeps them in its "
                          "C code, not the map files (may be repeated)")
    imp.add_argument("--victory", type=int, metavar="N",
                     help="centres to win (default: the files' count, else one more than half of the centres)")
    imp.add_argument("--replace", action="store_true",
                     help="rewrite variant.toml and README.md of a variant imported before; its geography.toml is kept")
    imp.set_defaults(func=_import)


class FilesBeside(Mapping[str, str]):
    """The texts of the files in one folder, read when a reader asks for them by the name the map
    files write (`USE standard.geography`): the import's only reading from disk. Names that leave
    the folder are not there; a file that is not UTF-8 is read as Latin-1, as older maps are."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _path(self, name: str) -> Path | None:
        if not name or "/" in name or "\\" in name or name.startswith("."):
            return None
        path = self.folder / name
        return path if path.is_file() else None

    def __getitem__(self, name: str) -> str:
        path = self._path(name)
        if path is None:
            raise KeyError(name)
        raw = path.read_bytes()
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw.decode("latin-1")

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._path(name) is not None

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(p.name for p in self.folder.iterdir() if p.is_file()))

    def __len__(self) -> int:
        return sum(1 for _ in self)


def read_map(path: Path, *, powers: Mapping[str, tuple[str, str]] | None = None, victory: int | None = None,
             title: str = "") -> Imported:
    """The import of the map file at `path`: njudge's for a file named map.<v>, DPjudge's
    otherwise. ImportRefused says why not."""
    from gm.variants.importing.dpjudge import read_dpjudge
    from gm.variants.importing.njudge import read_njudge

    files = FilesBeside(path.parent)
    if path.name.startswith("map."):
        return read_njudge(path.name, "seed." + path.name[4:], files, powers=powers, victory=victory, title=title)
    return read_dpjudge(path.name, files, victory=victory, title=title)


def default_name(path: Path) -> str:
    stem = path.name[4:] if path.name.startswith("map.") else path.name.removesuffix(".map")
    return re.sub(r"[^a-z0-9-]+", "-", stem.lower()).strip("-")


def _powers(given: list[str]) -> dict[str, tuple[str, str]]:
    out = {}
    for text in given:
        letter, eq, rest = text.partition("=")
        name, _, adjective = rest.partition(":")
        if not eq or len(letter.strip()) != 1 or not name.strip():
            raise ValueError(f"--power {text!r}: write L=Name or L=Name:Adjective")
        out[letter.strip()] = (name.strip(), adjective.strip())
    return out


def _import(args: argparse.Namespace) -> int:
    from gm.variants import ALIASES, SHIPPED, maps_dir
    from gm.variants.importing import ImportRefused
    from gm.variants.importing.write import geography_scaffold, readme, summary, variant_toml

    path = Path(args.file)
    if not path.is_file():
        print(f"gm variant import: no such file {path}", file=sys.stderr)
        return 2
    name = args.name or default_name(path)
    if not NAME.match(name) or name in SHIPPED or name in ALIASES:
        why = "is a variant gm ships" if name in SHIPPED or name in ALIASES else \
            "is no name: 1 to 40 lower-case letters, digits and '-', starting with a letter or digit"
        print(f"gm variant import: {name!r} {why}: choose another with --name", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else maps_dir()
    folder = out / name
    if (folder / "variant.toml").exists() and not args.replace:
        print(f"gm variant import: {folder} exists: --replace rewrites its variant.toml and README.md "
              "(its geography.toml is kept)", file=sys.stderr)
        return 2
    try:
        imported = read_map(path, powers=_powers(args.power), victory=args.victory)
    except ValueError as e:
        if not isinstance(e, ImportRefused):
            print(f"gm variant import: {e}", file=sys.stderr)
            return 2
        print(f"gm variant import: {path.name} cannot be imported ({len(e.problems)} "
              f"problem{'s' if len(e.problems) != 1 else ''}); nothing written:", file=sys.stderr)
        for problem in e.problems:
            print(f"  {problem}", file=sys.stderr)
        if e.rules:
            print(f"needs rules gm lacks: {', '.join(e.rules)}", file=sys.stderr)
        return 1
    texts = {"variant.toml": variant_toml(imported), "README.md": readme(imported, name)}
    if not (folder / "geography.toml").exists():
        texts["geography.toml"] = geography_scaffold(imported.data, name)
    _write(folder, texts)
    print(f"{name}: imported from {imported.source}'s {path.name}: {summary(imported.data)}")
    print(f"  wrote {', '.join(str(folder / f) for f in texts)}")
    for note in imported.notes:
        print(f"  note: {note}")
    print(f"  games may start now: gm game new NAME --variant {name}; to draw its board, fill in the anchors of "
          f"{folder / 'geography.toml'}, then gm map build {name} (docs/variants.md)")
    return 0


def _write(folder: Path, texts: dict[str, str]) -> None:
    """Every file or none: written beside the folder first, then moved into place."""
    folder.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{folder.name}-", dir=folder.parent))
    umask = os.umask(0)
    os.umask(umask)
    staging.chmod(0o777 & ~umask)  # a folder of maps/ as any other, not mkdtemp's private one
    try:
        for name, text in texts.items():
            (staging / name).write_text(text, encoding="utf-8")
        if not folder.exists():
            os.replace(staging, folder)
            return
        for name in texts:
            os.replace(staging / name, folder / name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
