"""gm's modules import one another without a circle, and its packages in layers: each imports only
what lies below it, or beside it in its own package. The graph is of every import the modules
write (at the top, in a function, under TYPE_CHECKING); the engine's modules each import alone.

The layers, from the bottom (LAYERS): the languages; the engine; the variants; the store; the games and the
settings; the game's life; the view of a game and the maps; the two channels, mail and pages,
siblings that never import each other; what runs them (the scheduler, the server, the demo);
the command line.

Inside the mail channel the rooms follow the path a mail takes (MAIL_ROOMS): what every room
shares (the security budget, the back-off); intake, which reads a raw mail; the module of what the
commands share (Context, Block, LineResult); outgoing, what the judge sends; the commands; and on
top what runs them all (ingest, then the IMAP watcher that feeds it, and the embedded servers)."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
GM = ROOT / "gm"

# Bottom first. A module may import from its own layer only within its own package.
LAYERS = (
    ("gm",),  # the version
    ("gm.i18n",),  # the judge's sentences and their catalogues: below all that writes one
    ("gm.engine",),  # pure adjudication: knows no variant
    ("gm.variants", "gm.randomgame"),
    ("gm.store", "gm.casefile"),
    ("gm.games", "gm.settings", "gm.logs"),
    ("gm.lifecycle", "gm.heartbeat"),  # a game's life, pure of mail
    ("gm.view", "gm.maps", "gm.status"),  # what a reader may see; the pictures
    ("gm.mail", "gm.web"),  # the channels: siblings
    ("gm.scheduler", "gm.failures"),
    ("gm.server", "gm.demo"),
    ("gm.cli",),
    ("gm.__main__",),  # python -m gm
)


# gm.mail's rooms, bottom first: a module imports only from rooms below its own, or its own room.
MAIL_ROOMS = (
    ("gm.mail", "gm.mail.budget", "gm.mail.backoff", "gm.mail.oauth2"),  # and signing in to the mailbox
    ("gm.mail.intake",),  # a raw mail read: MIME, reply text, redaction, DKIM, who sent it
    ("gm.mail.commands.context",),  # what the commands share, below all that uses it
    ("gm.mail.outgoing",),  # what the judge sends, and the outbox that sends it
    ("gm.mail.commands",),  # the language: one module a command
    ("gm.mail.prepared",),  # what a batch of mails needs found before its transaction
    ("gm.mail.ingest", "gm.mail.retention"),  # a mail taken in, from end to end; how long mail is kept
    ("gm.mail.inbox", "gm.mail.embedded"),  # the IMAP watcher that feeds ingest; the embedded servers
    ("gm.mail.check", "gm.mail.published"),  # gm mail check (signs in as gm serve does), gm mail dns
)


def _module(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module(p): p for p in sorted(GM.rglob("*.py"))}


def _imports(path: Path) -> set[str]:
    """The gm modules `path` imports, wherever the import statement stands ('from gm.x import y'
    is gm.x.y when that is a module, else gm.x)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.update(f"{node.module}.{alias.name}" if f"{node.module}.{alias.name}" in MODULES else node.module
                         for alias in node.names)
    out = set()
    for name in found:
        while name and name not in MODULES:
            name = name.rpartition(".")[0]
        if name.startswith("gm"):
            out.add(name)
    return out


GRAPH = {name: _imports(path) - {name} for name, path in MODULES.items()}


def _package(name: str) -> str:
    """The top-level part of gm a module belongs to: 'gm.mail.ingest' -> 'gm.mail'."""
    return ".".join(name.split(".")[:2])


LAYER_OF = {package: i for i, layer in enumerate(LAYERS) for package in layer}


def _cycle() -> list[str]:
    """One cycle of GRAPH as the modules along it, or []."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(name: str) -> list[str]:
        state[name] = 1
        path.append(name)
        for nxt in sorted(GRAPH[name]):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[name] = 2
        return []

    for name in sorted(GRAPH):
        if name not in state and (found := visit(name)):
            return found
    return []


def _against_the_layers() -> list[str]:
    """Each import that reaches up a layer, or across to another package of its own layer."""
    wrong = []
    for name, imported in GRAPH.items():
        here = _package(name)
        for other in imported:
            there = _package(other)
            if there == here:
                continue
            if LAYER_OF[there] > LAYER_OF[here] or (LAYER_OF[there] == LAYER_OF[here] and there != "gm"):
                wrong.append(f"{name} imports {other}")
    return sorted(wrong)


ROOM_OF = {room: i for i, rooms in enumerate(MAIL_ROOMS) for room in rooms}


def _room(name: str) -> str:
    """The longest room of MAIL_ROOMS a gm.mail module is in: 'gm.mail.commands.join' -> 'gm.mail.commands'."""
    parts = name.split(".")
    return next(".".join(parts[:n]) for n in range(len(parts), 1, -1) if ".".join(parts[:n]) in ROOM_OF)


def _against_the_rooms() -> list[str]:
    """Each import inside gm.mail that reaches up a room, or across to another room of its floor."""
    wrong = []
    for name, imported in GRAPH.items():
        if _package(name) != "gm.mail":
            continue
        here = _room(name)
        for other in imported:
            if _package(other) != "gm.mail" or (there := _room(other)) == here:
                continue
            if ROOM_OF[there] >= ROOM_OF[here] and there != "gm.mail":
                wrong.append(f"{name} imports {other}")
    return sorted(wrong)


def test_the_graph_is_read() -> None:
    assert "gm.engine.multiple" in GRAPH["gm.engine.movement"]
    assert "gm.engine.resolve" in GRAPH["gm.engine.multiple"]
    assert "gm.engine.notation.reader" in GRAPH["gm.engine.notation.parser"]
    assert "gm.mail.commands.context" in GRAPH["gm.mail.outgoing.press"]
    assert "gm.view.results" in GRAPH["gm.web.pages"]


def test_every_package_has_its_layer() -> None:
    assert {_package(name) for name in MODULES} == set(LAYER_OF)


def test_no_import_cycle() -> None:
    assert _cycle() == [], " -> ".join(_cycle())


def test_every_import_points_down_the_layers() -> None:
    assert _against_the_layers() == []


def test_every_mail_module_is_in_a_room() -> None:
    assert all(_room(name) for name in MODULES if _package(name) == "gm.mail")
    assert _room("gm.mail.commands.master.become") == "gm.mail.commands"
    assert _room("gm.mail.intake.reply_text.quotes") == "gm.mail.intake"


def test_every_mail_import_points_down_the_path_a_mail_takes() -> None:
    assert _against_the_rooms() == []


def test_an_import_up_the_mail_rooms_would_be_found() -> None:
    GRAPH["gm.mail.intake.message"].add("gm.mail.outgoing.reply")
    GRAPH["gm.mail.outgoing.press"].add("gm.mail.commands.press")
    try:
        assert _against_the_rooms() == ["gm.mail.intake.message imports gm.mail.outgoing.reply",
                                        "gm.mail.outgoing.press imports gm.mail.commands.press"]
    finally:
        GRAPH["gm.mail.intake.message"].discard("gm.mail.outgoing.reply")
        GRAPH["gm.mail.outgoing.press"].discard("gm.mail.commands.press")


def test_a_cycle_or_an_import_up_would_be_found() -> None:
    GRAPH["gm.engine.variant"].add("gm.engine.rules")
    GRAPH["gm.web.pages"].add("gm.mail.outgoing.game_mail")  # the channels are siblings
    GRAPH["gm.engine.model"].add("gm.variants")
    try:
        assert _cycle()
        assert _against_the_layers() == ["gm.engine.model imports gm.variants",
                                         "gm.web.pages imports gm.mail.outgoing.game_mail"]
    finally:
        GRAPH["gm.engine.variant"].discard("gm.engine.rules")
        GRAPH["gm.web.pages"].discard("gm.mail.outgoing.game_mail")
        GRAPH["gm.engine.model"].discard("gm.variants")


@pytest.mark.parametrize("name", sorted(name for name in MODULES if name.startswith("gm.engine")))
def test_each_engine_module_imports_alone(name: str) -> None:
    proc = subprocess.run([sys.executable, "-c", f"import {name}"], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
