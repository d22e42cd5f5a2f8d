"""`gm game new`, `gm game list`, `gm game show`: the GM creates and looks at games on the command
line; players then JOIN them by mail."""
from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from sqlalchemy import select

from gm.games import GAME_NAME_MAX, find_game, masters
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.phases import start as start_game
from gm.store.db import make_engine, make_session_factory, transaction, upgrade
from gm.store.models import Game, OrderRecord, OutboundMail, Player, utcnow


def gm(*args: str, db: Path | None = None, url: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {
        "GM_ADDRESS": "gm@example.org",
        "GM_DATABASE_URL": url or f"sqlite:///{db}",
        "GM_TIMEZONE": "Europe/Paris",
        "PATH": "/usr/bin:/bin",
    }
    return subprocess.run([sys.executable, "-m", "gm", *args], capture_output=True, text=True, env=env, timeout=60)


def test_game_new_creates_a_forming_game(tmp_path: Path) -> None:
    db = tmp_path / "gm.sqlite3"
    upgrade(f"sqlite:///{db}")  # as `gm db upgrade` makes it: no other command does
    done = gm("game", "new", "ae1", "--variant", "ambition", db=db)
    assert done.returncode == 0, done.stderr
    assert "game ae1 (ambition) is forming: players send 'JOIN ae1 <power> <password>' to gm@example.org" in done.stdout
    with transaction(make_session_factory(make_engine(f"sqlite:///{db}"))) as s:
        game = s.scalars(select(Game)).one()
        assert (game.name, game.variant, game.status) == ("ae1", "ambition", "forming")
    again = gm("game", "new", "ae1", db=db)
    assert again.returncode == 2 and "there is already a game called ae1" in again.stderr
    bad = gm("game", "new", "x1", "--variant", "chess", db=db)
    assert bad.returncode == 2 and "unknown variant 'chess'" in bad.stderr


RULE = (
    "a game name is 1 to 64 ASCII letters, digits, '-' and '_', starting with a letter or digit; "
    "case does not matter (AE1 is ae1)"
)


def test_game_names_are_ascii_and_case_insensitive(tmp_path: Path) -> None:
    db = tmp_path / "gm.sqlite3"
    upgrade(f"sqlite:///{db}")  # as `gm db upgrade` makes it: no other command does
    done = gm("game", "new", "Spring-1901_A", db=db)
    assert done.returncode == 0, done.stderr
    assert "game spring-1901_a (standard) is forming" in done.stdout
    again = gm("game", "new", "SPRING-1901_a", db=db)
    assert again.returncode == 2 and "there is already a game called spring-1901_a" in again.stderr
    # A Cyrillic 'А' looks like the Latin one: refused, and named.
    look_alike = gm("game", "new", "\u0410e1", db=db)
    assert look_alike.returncode == 2
    assert look_alike.stderr.strip() == f"gm game new: {RULE}; '\u0410e1' is not ('\u0410' is CYRILLIC CAPITAL LETTER A)"
    kelvin = gm("game", "new", "\u212Aing", db=db)  # lower-cases to an ASCII 'k'
    assert kelvin.returncode == 2 and "KELVIN SIGN" in kelvin.stderr
    long = gm("game", "new", "a" * (GAME_NAME_MAX + 1), db=db)
    assert long.returncode == 2 and f"({GAME_NAME_MAX + 1} characters)" in long.stderr
    assert gm("game", "new", "a" * GAME_NAME_MAX, db=db).returncode == 0
    for bad in ("-x", "a b", "a.b", "a'b"):
        refused = gm("game", "new", "--", bad, db=db)
        assert refused.returncode == 2 and RULE in refused.stderr, bad
    help_text = " ".join(gm("game", "new", "--help", db=db).stdout.split())
    assert "1 to 64 ASCII letters, digits, '-' and '_'" in help_text and "case does not matter" in help_text
    with transaction(make_session_factory(make_engine(f"sqlite:///{db}"))) as s:
        assert find_game(s, "Spring-1901_A") is not None
        assert find_game(s, "\u0410e1") is None


def test_game_list_and_show(db_url: str) -> None:
    upgrade(db_url)
    assert gm("game", "list", url=db_url).stdout == "no games yet: gm game new NAME creates one\n"
    for args in (["ae1", "--variant", "ambition"], ["std"]):
        done = gm("game", "new", *args, url=db_url)
        assert done.returncode == 0, done.stderr
    # Every power of 'std' taken, so it starts; England's orders in, France's in part.
    with transaction(make_session_factory(make_engine(db_url))) as s:
        game = find_game(s, "std")
        assert game is not None
        players = {}
        for power in ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"):
            players[power] = Player(game_id=game.id, power=power, email=f"{power.lower()}@players.example", password_hash="-")
            s.add(players[power])
        s.flush()
        phase = start_game(s, game, utcnow()).row
        game.deadline_at = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
        for power, unit, order in (
            ("England", "LON", "F Lon - Nth"),
            ("England", "EDI", "F Edi - Nrg"),
            ("England", "LVP", "A Lvp - Yor"),
            ("France", "PAR", "A Par - Bur"),
        ):
            s.add(OrderRecord(game_id=game.id, phase_id=phase.id, player_id=players[power].id, power=power,
                              text=order, canonical=order, unit=unit))
    listing = gm("game", "list", url=db_url)
    assert listing.returncode == 0, listing.stderr
    assert listing.stdout.splitlines() == [
        "ae1  ambition  forming  -                      0/10 powers taken",
        "std  standard  active   Spring 1901, Movement  7/7 powers taken",
    ]
    show = gm("game", "show", "STD", url=db_url)
    assert show.returncode == 0, show.stderr
    lines = show.stdout.splitlines()
    assert lines[:3] == ["game std", "variant   standard (Diplomacy (standard map))", "status    active"]
    assert lines[3].startswith("created   20") and lines[3].endswith(("CET", "CEST"))
    assert lines[4:8] == ["phase     Spring 1901, Movement", "deadline  2026-03-01 13:00 CET", "GMs       none",
                          "house rules:"]
    powers = lines.index("powers:")
    assert "  Deadlines: movement 2d, retreats 1d, adjustments 1d after the phase opens" in lines[8:powers]
    assert lines[powers + 1:] == [
        "  Austria  austria@players.example  0 of 3 orders in",
        "  England  england@players.example  orders in",
        "  France   france@players.example   1 of 3 orders in",
        "  Germany  germany@players.example  0 of 3 orders in",
        "  Italy    italy@players.example    0 of 3 orders in",
        "  Russia   russia@players.example   0 of 4 orders in",
        "  Turkey   turkey@players.example   0 of 3 orders in",
    ]
    forming = gm("game", "show", "ae1", url=db_url).stdout.splitlines()
    assert forming[4:8] == ["phase     -", "deadline  none", "GMs       none", "house rules:"]
    powers = forming.index("powers:")
    assert forming[powers + 1] == "  Austria         (open)" and len(forming) == powers + 1 + 10
    missing = gm("game", "show", "nope", url=db_url)
    assert missing.returncode == 2
    assert missing.stderr.strip() == "gm game show: there is no game called nope: gm game list shows them"


def test_house_rules_and_the_gm_address_are_set_at_creation_and_a_game_started_by_hand(tmp_path: Path) -> None:
    db = tmp_path / "gm.sqlite3"
    upgrade(f"sqlite:///{db}")  # as `gm db upgrade` makes it: no other command does
    done = gm("game", "new", "fast", "--movement", "1d", "--days", "mon-fri", "--hour", "20", "--grace", "2h",
              "--late-limit", "2", "--draw", "dias", "--draw-votes", "public", "--master", "GM@Example.org", db=db)
    assert done.returncode == 0, done.stderr
    assert "  A deadline falls on mon,tue,wed,thu,fri at 20:00 (Europe/Paris)" in done.stdout.splitlines()
    assert "  Draws: any surviving power may PROPOSE DRAW; a draw includes every surviving power (DIAS) and needs " \
           "each one's ACCEPT DRAW" in done.stdout.splitlines()
    assert "  Who proposed a draw, who voted how and who conceded: told to the players (a draw's votes to the powers " \
           "voting on it) as to the GM" in done.stdout.splitlines()
    bad = gm("game", "new", "slow", "--movement", "a fortnight", db=db)
    assert bad.returncode == 2 and "movement: 'afortnight' is no duration" in bad.stderr
    factory = make_session_factory(make_engine(f"sqlite:///{db}"))
    with transaction(factory) as s:
        game = find_game(s, "fast")
        assert game is not None
        assert masters(s, game) == ["gm@example.org"]
        s.add(Player(game_id=game.id, power="France", email="france@players.example", password_hash="-"))
    started = gm("game", "start", "fast", db=db)
    assert started.returncode == 0, started.stderr
    assert started.stdout.startswith("game fast starts with Spring 1901, Movement; deadline ")
    with transaction(factory) as s:
        game = find_game(s, "fast")
        assert game is not None and game.status == "active" and game.deadline_at is not None
        local = game.deadline_at.astimezone(ZoneInfo("Europe/Paris"))
        assert local.hour == 20 and local.weekday() < 5
        kinds = s.execute(select(OutboundMail.to_addr, OutboundMail.kind)).all()
        assert sorted(kinds) == [("france@players.example", "start"), ("gm@example.org", "start")]
    again = gm("game", "start", "fast", db=db)
    assert again.returncode == 2 and "fast is active, not forming" in again.stderr


def test_game_list_says_how_each_finished_game_ended_and_which_are_paused(db_url: str) -> None:
    upgrade(db_url)
    ended = {"won": "won by France", "drawn": "drawn between England, France", "stopped": "terminated by the GM",
             "given": "won by Turkey by concession"}
    for name in [*ended, "paused"]:
        assert gm("game", "new", name, url=db_url).returncode == 0
    with transaction(make_session_factory(make_engine(db_url))) as s:
        for name, outcome in ended.items():
            game = find_game(s, name)
            assert game is not None
            game.status, game.outcome, game.finished_at = "finished", outcome, utcnow()
        paused = find_game(s, "paused")
        assert paused is not None
        paused.status, paused.paused_at = "active", utcnow()
    listing = gm("game", "list", url=db_url)
    assert listing.returncode == 0, listing.stderr
    assert listing.stdout.splitlines() == [
        "drawn    standard  finished        -  0/7 powers taken  drawn between England, France",
        "given    standard  finished        -  0/7 powers taken  won by Turkey by concession",
        "paused   standard  active, paused  -  0/7 powers taken",
        "stopped  standard  finished        -  0/7 powers taken  terminated by the GM",
        "won      standard  finished        -  0/7 powers taken  won by France",
    ]


def test_game_master_reads_unquoted_words_as_one_line_or_asks_for_quotes(db_url: str) -> None:
    upgrade(db_url)
    assert gm("game", "new", "g1", url=db_url).returncode == 0
    factory = make_session_factory(make_engine(db_url))
    with transaction(factory) as s:
        game = find_game(s, "g1")
        assert game is not None
        start_game(s, game, utcnow())
        was = game.deadline_at
    assert was is not None
    done = gm("game", "master", "g1", "EXTEND", "1h", url=db_url)  # as the shell splits EXTEND 1h unquoted
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("accepted  EXTEND 1h\n")
    with transaction(factory) as s:
        game = find_game(s, "g1")
        assert game is not None and game.deadline_at == was + timedelta(hours=1)
    # Words that may be several lines are not guessed at: nothing is done, and the way to write them is shown.
    mixed = gm("game", "master", "g1", "EXTEND", "1h", "PAUSE", url=db_url)
    assert mixed.returncode == 2 and mixed.stdout == ""
    assert mixed.stderr == ("gm game master: 'EXTEND 1h PAUSE' holds several commands: quote each line, as in "
                            "gm game master g1 'EXTEND 1h' 'PAUSE'\n")
    with transaction(factory) as s:
        game = find_game(s, "g1")
        assert game is not None and game.paused_at is None and game.deadline_at == was + timedelta(hours=1)
    # One command a word, each a line; the name after SET OPTION is no command.
    done = gm("game", "master", "g1", "PAUSE", url=db_url)
    assert done.returncode == 0 and "accepted  PAUSE" in done.stdout
    shown = gm("game", "show", "g1", url=db_url).stdout
    assert "(paused since " in shown and " by operator (command line), PAUSE)" in shown
    assert "(held: the phase ends then even if every order is in)" in shown
    done = gm("game", "master", "g1", "RESUME", "PREVIEW", url=db_url)
    assert "accepted  RESUME" in done.stdout and "accepted  PREVIEW" in done.stdout, done.stdout
    done = gm("game", "master", "g1", "SET", "OPTION", "draw", "dias", url=db_url)
    assert done.stdout.startswith("accepted  SET OPTION draw dias\n"), done.stdout + done.stderr


def test_a_code_a_command_on_the_server_makes_goes_to_the_outbox(db_url: str) -> None:
    """PROMOTE by `gm game master` mails its code to the new GM, as by mail."""
    upgrade(db_url)
    assert gm("game", "new", "g1", url=db_url).returncode == 0
    done = gm("game", "master", "g1", "PROMOTE co@example.org", url=db_url)
    assert done.returncode == 0 and "accepted  PROMOTE co@example.org" in done.stdout, done.stdout + done.stderr
    factory = make_session_factory(make_engine(db_url))
    with transaction(factory) as s:
        (code,) = s.scalars(select(OutboundMail).where(OutboundMail.to_addr == "co@example.org")).all()
        assert code.kind == "confirm" and "CONFIRM" in code.body_text


def test_a_games_language_is_set_at_creation_and_its_mail_is_in_it(tmp_path: Path) -> None:
    db = tmp_path / "gm.sqlite3"
    upgrade(f"sqlite:///{db}")
    done = gm("game", "new", "fr1", "--language", "français", "--master", "gm@example.org", db=db)
    assert done.returncode == 0, done.stderr
    bad = gm("game", "new", "x1", "--language", "klingon", db=db)
    assert bad.returncode == 2 and "unknown language 'klingon'" in bad.stderr
    factory = make_session_factory(make_engine(f"sqlite:///{db}"))
    with transaction(factory) as s:
        game = find_game(s, "fr1")
        assert game is not None and rules_of(game.options).language == "fr"
        s.add(Player(game_id=game.id, power="France", email="france@players.example", password_hash="-"))
    assert gm("game", "start", "fr1", db=db).returncode == 0
    with transaction(factory) as s:
        mail = {m.to_addr: m for m in s.scalars(select(OutboundMail))}
    # the player and the GM chose no language: both read the game's
    for to in ("france@players.example", "gm@example.org"):
        assert "Printemps 1901" in mail[to].body_text and "Spring 1901" not in mail[to].body_text
