"""`gm variant import`: a map file becomes a maps/<name>/ folder (variant.toml, README.md, a
geography.toml to fill in) that the registry finds by name, all of it or nothing; a game on it is
adjudicated and its mail says the map is not drawn yet, where a drawn board's mail carries maps."""
from __future__ import annotations

import tomllib
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select

from gm.cli import main
from gm.cli.variant import FilesBeside
from gm.maps.art import has_art
from gm.store.db import make_engine, make_session_factory, transaction, upgrade
from gm.games import find_game
from gm.store.models import OutboundMail, Player
from gm.variants import REGISTRY, canonical_name, load_variant
from gm.variants.importing.dpjudge import read_dpjudge
from tests.variants.import_maps import NJ_MAP, NJ_SEED, dpjudge_files

NOT_DRAWN = "No map: the board of Mini is not drawn yet."


@pytest.fixture
def maps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty maps/ folder gm reads variants from; the registry as it was afterwards."""
    folder = tmp_path / "maps"
    folder.mkdir()
    monkeypatch.setenv("GM_MAPS", str(folder))
    before = dict(REGISTRY)
    yield folder
    REGISTRY.clear()
    REGISTRY.update(before)


def write(folder: Path, files: dict[str, str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def unique() -> str:
    return f"mini-{uuid.uuid4().hex[:8]}"  # the registry's caches are by name: one a test


def test_an_import_writes_a_folder_the_registry_finds_by_name(
        tmp_path: Path, maps: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write(tmp_path / "dpjudge", dpjudge_files())
    name = unique()
    assert main(["variant", "import", str(source / "mini.map"), "--name", name]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == (f"{name}: imported from DPjudge's mini.map: 2 powers, 9 spaces (2 seas, 4 coastal, "
                      "2 inland, 1 impassable), 6 supply centres, victory at 4")
    assert out[1] == f"  wrote {maps / name / 'variant.toml'}, {maps / name / 'README.md'}, {maps / name / 'geography.toml'}"
    assert sorted(p.name for p in maps.iterdir()) == [name]
    folder = maps / name
    assert tomllib.loads((folder / "variant.toml").read_text()) == read_dpjudge("mini.map", dpjudge_files()).data
    readme = (folder / "README.md").read_text()
    assert readme.startswith(f"# Mini (`{name}`)\n\nImported from DPjudge's `mini.map` by `gm variant import`")
    assert "> Mini: a board for gm's tests\n> Drawn by the tests' author" in readme
    assert "| Redland | Reddish | AMB, CIN | F AMB, A CIN |" in readme
    geography = (folder / "geography.toml").read_text()
    assert "# DUN = []  # Dunmark (coast)" in geography and "# HIP = []  # High Peaks (impassable)" in geography

    # found by name, as the six shipped variants are, and played by the standard rules
    assert canonical_name(name.upper()) == name and REGISTRY[name] == (name, "gm.variants.standard")
    variant = load_variant(name)
    assert (variant.title, variant.great_powers, variant.victory_centres) == ("Mini", ["Redland", "Blueland"], 4)
    assert not has_art(name)
    assert main(["map", "build", name]) == 2
    assert capsys.readouterr().err == (f"gm map build: {name}: {folder / 'geography.toml'} gives no west, east, south, "
                                       "north, projection in [frame]: fill it in (docs/variants.md)\n")


def test_a_refused_map_writes_nothing_and_names_every_problem(
        tmp_path: Path, maps: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = dpjudge_files()
    files["mini.map"] += "RULE BUILD_ANY\n"
    files["mini.military"] = files["mini.military"].replace("A FEN", "A CIN")
    source = write(tmp_path / "dpjudge", files)
    assert main(["variant", "import", str(source / "mini.map")]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "gm variant import: mini.map cannot be imported (2 problems); nothing written:",
        "  mini.map:9: RULE BUILD_ANY: a DPjudge rule gm does not play",
        "  mini.military:7: two units in CIN: A CIN and Redland's A CIN of line 3",
        "needs rules gm lacks: RULE BUILD_ANY",
    ]
    assert not any(maps.iterdir())


def test_a_folder_imported_before_is_kept_unless_replaced_and_its_anchors_always(
        tmp_path: Path, maps: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write(tmp_path / "dpjudge", dpjudge_files())
    name = unique()
    assert main(["variant", "import", str(source / "mini.map"), "--name", name]) == 0
    geography = maps / name / "geography.toml"
    geography.write_text("[frame]\n# the author's work\n")
    capsys.readouterr()
    assert main(["variant", "import", str(source / "mini.map"), "--name", name]) == 2
    assert "exists: --replace rewrites its variant.toml and README.md" in capsys.readouterr().err
    write(source, {"mini.map": dpjudge_files()["mini.map"].replace("VICTORY 4", "VICTORY 5")})
    assert main(["variant", "import", str(source / "mini.map"), "--name", name, "--replace"]) == 0
    assert f"wrote {maps / name / 'variant.toml'}, {maps / name / 'README.md'}\n" in capsys.readouterr().out
    assert tomllib.loads((maps / name / "variant.toml").read_text())["victory_centres"] == 5
    assert geography.read_text() == "[frame]\n# the author's work\n"
    assert sorted(p.name for p in maps.iterdir()) == [name]  # no staging folder left behind


def test_names_gm_ships_or_cannot_take_are_refused(tmp_path: Path, maps: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write(tmp_path / "dpjudge", dpjudge_files())
    for name in ("standard", "a&e", "Mini Two"):
        assert main(["variant", "import", str(source / "mini.map"), "--name", name]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[0] == "gm variant import: 'standard' is a variant gm ships: choose another with --name"
    assert err[1] == "gm variant import: 'a&e' is a variant gm ships: choose another with --name"
    assert err[2].startswith("gm variant import: 'Mini Two' is no name: 1 to 40 lower-case letters")
    assert main(["variant", "import", str(tmp_path / "nowhere.map")]) == 2
    assert capsys.readouterr().err == f"gm variant import: no such file {tmp_path / 'nowhere.map'}\n"
    assert not any(maps.iterdir())


def test_an_njudge_pair_needs_its_powers_named(tmp_path: Path, maps: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write(tmp_path / "njudge", {"map.mini": NJ_MAP, "seed.mini": NJ_SEED})
    assert main(["variant", "import", str(source / "map.mini"), "--power", "R=Redland:Reddish"]) == 1
    assert capsys.readouterr().err.splitlines()[1] == (
        "  map.mini:8: power B has no name: njudge keeps its powers' names in its C code, not in the map files; "
        "name it (B=Name)")
    name = unique()
    assert main(["variant", "import", str(source / "map.mini"), "--name", name, "--power", "R=Redland:Reddish",
                 "--power", "B=Blueland:Bluish", "--victory", "4"]) == 0
    assert capsys.readouterr().out.startswith(f"{name}: imported from njudge's map.mini: 2 powers, 9 spaces")
    assert load_variant(name).powers["Blueland"].adjective == "Bluish"
    assert main(["variant", "import", str(source / "map.mini"), "--power", "Blueland"]) == 2
    assert capsys.readouterr().err == "gm variant import: --power 'Blueland': write L=Name or L=Name:Adjective\n"


def test_the_files_beside_a_map_are_read_from_its_folder_only(tmp_path: Path) -> None:
    folder = write(tmp_path / "maps", {"a.map": "USE b\n"})
    (folder / "latin.politics").write_bytes("FRANCE (FRAN\xc7AISE) PAR\n".encode("latin-1"))
    (tmp_path / "secret").write_text("nothing for a map\n")
    files = FilesBeside(folder)
    assert "a.map" in files and "../secret" not in files and "/etc/passwd" not in files and ".." not in files
    assert files["latin.politics"] == "FRANCE (FRAN\xc7AISE) PAR\n"
    assert sorted(files) == ["a.map", "latin.politics"] and len(files) == 2
    with pytest.raises(KeyError):
        files["../secret"]


def _game_mail(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, variant: str) -> list[OutboundMail]:
    """A game of `variant` made, started and its first phase processed on the command line, as an
    operator does; the mail it queued for its GM."""
    url = f"sqlite:///{tmp_path / 'gm.sqlite3'}"
    for key, value in {"GM_ADDRESS": "gm@example.org", "GM_DATABASE_URL": url, "GM_TIMEZONE": "UTC"}.items():
        monkeypatch.setenv(key, value)
    upgrade(url)
    assert main(["game", "new", "g1", "--variant", variant, "--master", "master@example.org"]) == 0
    engine = make_engine(url)
    with transaction(make_session_factory(engine)) as session:  # a player joined (by mail, as JOIN does)
        game = find_game(session, "g1")
        assert game is not None
        power = load_variant(variant).great_powers[0]
        session.add(Player(game_id=game.id, power=power, email="player@players.example", password_hash="-"))
    assert main(["game", "start", "g1"]) == 0
    assert main(["game", "process", "g1"]) == 0
    with transaction(make_session_factory(engine)) as session:
        rows = list(session.scalars(select(OutboundMail).where(OutboundMail.to_addr == "master@example.org")))
        session.expunge_all()
    engine.dispose()
    return rows


def test_a_game_on_an_imported_variant_says_its_map_is_not_drawn_yet(
        tmp_path: Path, maps: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """As for any variant without art (has_art): no picture is queued, so none can be broken, and
    the start and results mails say why there is none; MAP and gm map render say the same."""
    source = write(tmp_path / "dpjudge", dpjudge_files())
    name = unique()
    assert main(["variant", "import", str(source / "mini.map"), "--name", name]) == 0
    mails = {m.kind: m for m in _game_mail(tmp_path, monkeypatch, name)}
    start, results = mails["start"], mails["results"]
    assert "Spring 1850, Movement" in results.body_text
    for mail in (start, results):
        assert NOT_DRAWN in mail.body_text and NOT_DRAWN in (mail.body_html or "")
        assert not mail.attachments and "cid:" not in (mail.body_html or "")
    capsys.readouterr()
    assert main(["map", "render", "--game", "g1", "--out", str(tmp_path / "g1.png")]) == 2
    assert capsys.readouterr().err == "gm map render: the judge has no map of Mini\n"


def test_a_game_on_the_drawn_imported_board_carries_its_maps(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mails = {m.kind: m for m in _game_mail(tmp_path, monkeypatch, "youngstown")}
    for mail in (mails["start"], mails["results"]):
        assert "not drawn yet" not in mail.body_text
        assert mail.attachments and all(a["filename"].endswith(".png") for a in mail.attachments)
    assert "The map of the position now is attached." in mails["results"].body_text


def test_the_folder_written_is_as_open_as_any_other(tmp_path: Path, maps: Path) -> None:
    source = write(tmp_path / "dpjudge", dpjudge_files())
    name = unique()
    assert main(["variant", "import", str(source / "mini.map"), "--name", name]) == 0
    reference = tmp_path / "made-here"
    reference.mkdir()
    assert (maps / name).stat().st_mode & 0o777 == reference.stat().st_mode & 0o777
