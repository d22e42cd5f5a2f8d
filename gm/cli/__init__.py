"""The `gm` command: `gm adjudicate FILE` runs DATC-format case files, `gm demo` plays a whole game by email,
`gm serve` runs the mail service, `gm db upgrade` brings the database up to date, `gm game ...`
creates and shows games. Failures the operator can fix end in one line (gm.failures), not a
traceback, unless `gm --debug`."""
from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from gm import __version__
from gm.cli.common import load_settings as _load_settings
from gm.cli.common import VARIANTS, master_password, stored_game
from gm.cli.game_import import import_command
from gm.cli.mail import mail_commands
from gm.cli.maps import map_commands
from gm.cli.variant import variant_commands


if TYPE_CHECKING:
    from datetime import datetime

    from gm.lifecycle.house_rules import HouseRules


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


def _variant_name(text: str) -> str:
    """A variant's name or alias, as argparse takes it: the registry's name, or a one-line error."""
    from gm.variants import VariantError, canonical_name

    try:
        return canonical_name(text)
    except VariantError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _demo(args: argparse.Namespace) -> int:

    from gm.demo import run_demo

    if args.years is not None and args.years < 1:
        print("gm demo: --years must be 1 or more", file=sys.stderr)
        return 2
    return run_demo(Path(args.out) if args.out else None, years=args.years, seed=args.seed, variant=args.variant)


def _serve(args: argparse.Namespace) -> int:
    import logging

    from gm.logs import configure
    from gm.server import run

    settings = _load_settings(args)
    configure(logging.DEBUG if args.debug else logging.INFO)
    return run(settings)


def _db_upgrade(args: argparse.Namespace) -> int:
    from sqlalchemy.engine import make_url

    from gm.store.db import upgrade

    settings = _load_settings(args)
    before, after = upgrade(settings.db_url)
    where = make_url(settings.db_url).render_as_string(hide_password=True)
    if before is None:
        print(f"gm db upgrade: created {where} at revision {after} (up to date)")
    elif before != after:
        print(f"gm db upgrade: upgraded {where} from revision {before} to {after} (up to date)")
    else:
        print(f"gm db upgrade: {where} was already up to date (revision {after})")
    return 0


def _status(args: argparse.Namespace) -> int:
    from gm.lifecycle.house_rules import HouseRuleError, parse_duration
    from gm.mail.oauth2 import grant
    from gm.mail.oauth2.providers import from_settings as oauth2_settings
    from gm.status import problems, read_status, report
    from gm.store.db import make_engine, make_session_factory, require_database, transaction
    from gm.store.models import utcnow

    try:
        outbox_age = parse_duration(args.outbox_age, "--outbox-age")
        lag = parse_duration(args.lag, "--lag")
    except HouseRuleError as e:
        print(f"gm status: {e}", file=sys.stderr)
        return 2
    settings = _load_settings(args)
    require_database(settings.db_url)
    engine = make_engine(settings.db_url)
    try:
        with transaction(make_session_factory(engine)) as session:
            status = read_status(session, utcnow(), lag)
    finally:
        engine.dispose()
    found = problems(status, this_host_only=args.this_host, outbox_age=outbox_age, lag=lag)
    lines = report(status)
    oauth2 = oauth2_settings(settings)
    if oauth2 is not None:  # the mailbox's sign-in, from the grant kept on this host
        line, problem = grant.describe(oauth2.grant_path, oauth2.provider.name)
        lines.append(line)
        found += [problem] if problem and not args.this_host else []
    for line in lines:
        print(line)
    print("healthy" if not found else "\n".join(f"UNHEALTHY: {line}" for line in found))
    return 1 if found else 0


def _db_backup(args: argparse.Namespace) -> int:
    from gm.store.backup import BackupError, backup, size_text

    settings = _load_settings(args)
    try:
        written = backup(settings.db_url, Path(args.file))
    except BackupError as e:
        print(f"gm db backup: {e}", file=sys.stderr)
        return 2
    print(f"gm db backup: wrote {written.path} ({size_text(written.path.stat().st_size)}; {written.describe()})")
    return 0


def _db_restore(args: argparse.Namespace) -> int:
    from sqlalchemy.engine import make_url

    from gm.store.backup import BackupError, restore

    settings = _load_settings(args)
    try:
        found = restore(settings.db_url, Path(args.file))
    except BackupError as e:
        print(f"gm db restore: {e}", file=sys.stderr)
        return 2
    where = make_url(settings.db_url).render_as_string(hide_password=True)
    then = "up to date" if found.up_to_date else "gm db upgrade brings it up to date"
    print(f"gm db restore: restored {where} from {found.path} ({found.describe()}; {then})")
    return 0


HOUSE_RULE_FLAGS = ("movement", "retreat", "adjustment", "bidding", "days", "hour", "timezone", "grace", "nmr", "late_limit",
                    "remind_before", "absence_days", "draw", "draw_votes", "pages", "pages_press", "language")


def _game_new(args: argparse.Namespace) -> int:
    from gm.games import GameError, add_master, create_game
    from gm.mail.commands.master import OPERATOR
    from gm.store.passwords import hash_password
    from gm.lifecycle.house_rules import OPTION_KEY, HouseRuleError, rules_of, with_changes
    from gm.store.db import make_engine, make_session_factory, require_database, transaction
    from gm.variants import VariantError, load_variant

    settings = _load_settings(args)
    changes = {name: getattr(args, name) for name in HOUSE_RULE_FLAGS if getattr(args, name) is not None}
    changes.setdefault("timezone", settings.timezone)
    try:
        rules = with_changes(rules_of(None), changes)
    except HouseRuleError as e:
        print(f"gm game new: {e}", file=sys.stderr)
        return 2
    password_hash = None
    if args.master:
        password = master_password(args)
        password_hash = hash_password(password) if password else None
    require_database(settings.db_url)
    try:
        with transaction(make_session_factory(make_engine(settings.db_url))) as session:
            game = create_game(session, args.name, args.variant, actor=OPERATOR)
            game.options = {OPTION_KEY: rules.to_options(), "map_palette": args.map_palette}
            for address in args.master or []:
                add_master(session, game, address, password_hash, actor=OPERATOR)
            name, variant = game.name, game.variant
    except (GameError, VariantError) as e:
        print(f"gm game new: {e}", file=sys.stderr)
        return 2
    print(f"game {name} ({variant}) is forming: players send 'JOIN {name} <power> <password>' to {settings.gm_address}")
    if args.master:
        how = (f"sign on by mail with 'SIGNON MASTER {name} <password>'" if password_hash else
               "no GM password was given: they get the copies, and cannot run the game by mail")
        print(f"  GM{'s' if len(args.master) > 1 else ''}: {', '.join(m.strip().lower() for m in args.master)}; {how}")
    for line in rules.describe(bidding=load_variant(variant).has_bidding):
        print(f"  {line}")
    for warning in _reminder_warnings(rules, bidding=load_variant(variant).has_bidding):
        print(f"gm game new: warning: {warning}", file=sys.stderr)
    return 0


def _reminder_warnings(rules: HouseRules, *, bidding: bool) -> list[str]:
    """What is odd in a new game's reminders: movement (or bidding) phases no longer than the
    reminder time, which get none, and reminders in the first quarter of a phase. The game is made
    all the same. (Retreats and adjustments shorter than the reminder time are the usual case.)"""
    from gm.lifecycle.house_rules import show

    remind = rules.remind_before
    if not remind:
        return []
    kinds = [("movement", rules.movement), ("retreat", rules.retreat), ("adjustment", rules.adjustment)]
    kinds += [("bidding", rules.bidding)] if bidding else []
    at_once = [name for name, length in kinds if remind >= length and name in ("movement", "bidding")]
    soon = [(name, length) for name, length in kinds if length > remind > length * 3 / 4]
    fix = "set a shorter --remind-before (0: none) or longer phases"
    out = []
    if at_once:
        lengths = ", ".join(f"{name} {show(length)}" for name, length in kinds if name in at_once)
        out.append(f"reminders go {show(remind)} before a deadline, but these phases are no longer than that "
                   f"({lengths}): they get no reminder; {fix}")
    for name, length in soon:
        out.append(f"reminders go {show(remind)} before a deadline: in a {name} phase of {show(length)} that is "
                   f"{show(length - remind)} after it opens; {fix}")
    return out


def _game_start(args: argparse.Namespace) -> int:
    from gm.games import GameError
    from gm.lifecycle.house_rules import rules_of
    from gm.mail.outgoing.game_mail import deadline_text
    from gm.mail.commands.master.start import start_game
    from gm.store.models import utcnow

    settings = _load_settings(args)
    with stored_game(settings, args.name, "game start") as found:
        if found is None:
            return 2
        session, game = found
        try:  # the GM's START by mail does the same
            phase, mails = start_game(session, game, gm_address=settings.gm_address, now=utcnow())
        except GameError as e:
            print(f"gm game start: {e}", file=sys.stderr)
            return 2
        label, deadline, zone = phase.row.label, game.deadline_at, rules_of(game.options).timezone
    assert deadline is not None
    print(f"game {game.name} starts with {label}; deadline {deadline_text(deadline, zone)}; {mails} players told "
          "(gm serve sends the mail)")
    return 0


def _game_list(args: argparse.Namespace) -> int:
    from sqlalchemy import select

    from gm.games import active_players, current_phase, variant_of
    from gm.lifecycle.overview import columns
    from gm.store.db import make_engine, make_session_factory, require_database, transaction
    from gm.store.models import Game

    settings = _load_settings(args)
    require_database(settings.db_url)
    rows = []
    with transaction(make_session_factory(make_engine(settings.db_url))) as session:
        for game in session.scalars(select(Game).order_by(Game.name)):
            variant = variant_of(game)
            phase = current_phase(session, game)
            taken = sum(1 for p in active_players(session, game) if p.power)
            powers = f"{taken}/{len(variant.great_powers)} powers taken"
            status = f"{game.status}, paused" if game.paused_at is not None else game.status
            # How a finished game ended: won by France, drawn between ..., terminated by the GM, ...
            rows.append([game.name, game.variant, status, phase.row.label if phase else "-", powers,
                         game.outcome or ""])
    if not rows:
        print("no games yet: gm game new NAME creates one")
    for line in columns(rows):
        print(line)
    return 0


def _game_show(args: argparse.Namespace) -> int:
    from zoneinfo import ZoneInfo

    from gm.games import current_phase, masters, variant_of
    from gm.lifecycle.house_rules import rules_of
    from gm.lifecycle.overview import columns, failing_mail, powers_at_a_glance
    from gm.status import paused_by

    settings = _load_settings(args)
    zone = ZoneInfo(settings.timezone)

    def when(moment: datetime) -> str:
        return moment.astimezone(zone).strftime("%Y-%m-%d %H:%M %Z")

    with stored_game(settings, args.name, "game show") as found:
        if found is None:
            return 2
        session, game = found
        variant = variant_of(game)
        phase = current_phase(session, game)
        print(f"game {game.name}")
        paused = ""
        if game.paused_at is not None:
            by, how = paused_by(session, game.id)
            paused = f" (paused since {when(game.paused_at)}" + (f" by {by}, {how})" if by else ")")
        held = " (held: the phase ends then even if every order is in)" if phase and phase.row.held_to_deadline \
            and game.deadline_at else ""
        lines = [
            ["variant", f"{game.variant} ({variant.title})"],
            ["status", game.status],
            ["created", when(game.created_at)],
            ["phase", phase.row.label if phase else "-"],
            ["deadline", (when(game.deadline_at) if game.deadline_at else "none") + paused + held],
            ["GMs", ", ".join(masters(session, game)) or "none"],
            *([["ended", f"{game.outcome} ({when(game.finished_at)})"]] if game.finished_at else []),
        ]
        for line in columns(lines):
            print(line)
        print("house rules:")
        for line in rules_of(game.options).describe(bidding=variant_of(game).has_bidding):
            print(f"  {line}")
        print("powers:")
        powers = [["", *row] for row in powers_at_a_glance(session, game)]
        for line in columns(powers):
            print(line)
        for line in failing_mail(session, game):
            print(f"  {line}")
    return 0


def _game_master(args: argparse.Namespace) -> int:
    """`gm game master NAME LINE...` and its short forms (process, preview, rollback): GM command
    lines run on the server, through the same commands as by mail."""
    from gm.mail.commands.master import run_as_operator

    lines = [" ".join([args.word, *getattr(args, "lines", [])])] if args.one_line else _master_lines(args.lines)
    if lines is None:
        print(f"gm game {args.game_command}: {' '.join(args.lines)!r} holds several commands: quote each line, "
              f"as in gm game master {args.name} {_quoted_guess(args.lines)}", file=sys.stderr)
        return 2
    settings = _load_settings(args)
    with stored_game(settings, args.name, f"game {args.game_command}") as found:
        if found is None:
            return 2
        session, game = found
        ctx = run_as_operator(session, game, lines, gm_address=settings.gm_address)
    for result in ctx.results:
        print(f"{'accepted' if result.accepted else 'REJECTED'}  {result.text}")
        print(f"          {'=' if result.accepted else ':'} {result.detail}")
    for title, text in ctx.sections:
        print(f"\n{title}\n{'-' * len(title)}\n{text}")
    return 0 if all(r.accepted for r in ctx.results) else 2


def _starting(words: Sequence[str]) -> list[bool]:
    """Whether each word may begin a GM command line (EXTEND, SET, REMOVE, HELP, ...); the name
    after SET OPTION never does (SET OPTION draw dias)."""
    from gm.mail.commands import master_registry

    starts = {word.split()[0] for m in master_registry().values() for word in (m.NAME, *getattr(m, "ALIASES", ()))}
    starts.add("HELP")
    return [word.upper() in starts and (i == 0 or words[i - 1].upper() != "OPTION") for i, word in enumerate(words)]


def _master_lines(words: Sequence[str]) -> list[str] | None:
    """The lines of `gm game master NAME WORD...`: each argument a line when quoted ('EXTEND 1h'
    'PAUSE'). Arguments of one word each are a line typed without quotes (EXTEND 1h, as the shell
    splits it) when none after the first begins a command, and lines of one word each when every
    one does (PAUSE RESUME); otherwise (EXTEND 1h PAUSE) None: which words go together is not known."""
    if len(words) < 2 or any(len(word.split()) != 1 for word in words):
        return list(words)
    starting = _starting(words)
    if not any(starting[1:]):
        return [" ".join(words)]
    return list(words) if all(starting) else None


def _quoted_guess(words: Sequence[str]) -> str:
    """The words as quoted lines, a new line at each command's first word: 'EXTEND 1h' 'PAUSE'."""
    lines: list[list[str]] = []
    for word, starts in zip(words, _starting(words), strict=True):
        if starts or not lines:
            lines.append([])
        lines[-1].append(word)
    return " ".join("'" + " ".join(line) + "'" for line in lines)


def _game_audit(args: argparse.Namespace) -> int:
    """`gm game audit NAME [--count N]`: the game's audit log, as AUDIT by mail shows it."""
    from gm.lifecycle.audit_log import audit_text

    if args.count is not None and args.count < 1:
        print("gm game audit: --count is a number of entries, 1 or more", file=sys.stderr)
        return 2
    with stored_game(_load_settings(args), args.name, "game audit") as found:
        if found is None:
            return 2
        session, game = found
        print(audit_text(session, game, args.count))
    return 0


def _game_pages(args: argparse.Namespace) -> int:
    """`gm game pages NAME --out DIR`: the game's web pages, and the index, written into DIR."""
    from gm.view import paths
    from gm.web.pages import game_pages
    from gm.web.writer import index_entries, kept_pages, write_index, write_pages

    out = Path(args.out)
    with stored_game(_load_settings(args), args.name, "game pages") as found:
        if found is None:
            return 2
        session, game = found
        name, shown, index = game.name, game_pages(session, game, kept_pages(out, game.name)), index_entries(session)
    if shown is None:
        print(f"gm game pages: {name} is private (house rule pages): it has no pages", file=sys.stderr)
        return 2
    try:
        written = write_pages(out, name, shown)
        top = write_index(out, index)
    except OSError as e:
        print(f"gm game pages: cannot write into {out}: {e.strerror or e}", file=sys.stderr)
        return 2
    page = out / paths.game_folder(name) / paths.game_page()
    print(f"gm game pages: {name}: {written.pages} pages and {written.maps} maps written; open {page}"
          + (f" (the index of games: {top})" if shown.listed else " (unlisted: not in the index)"))
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gm", description="A play-by-email game master for Diplomacy.")
    parser.add_argument("--version", action="version", version=f"gm {__version__}")
    parser.add_argument("--debug", action="store_true", help="on a failure, show the traceback, not just what to do")
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

    demo = sub.add_parser(
        "demo",
        help="play a game of any variant by mail, to its end: gm serve and scripted players, every mail kept as .eml",
        description="Create a game (Ambition & Empire unless --variant says otherwise), run gm serve on SQLite and "
        "its embedded mail servers, and let scripted players, one per great power, join and play it by mail with "
        "the variant's special orders on deadlines of seconds, until it ends as real games of the variant end (a "
        "draw the GM proposes and the players accept; 1700AD II: the GM's last year); every mail is written out "
        "as an .eml file and a summary printed at the end.",
    )
    demo.add_argument("--variant", default="ambition", type=_variant_name, metavar="VARIANT",
                      help=f"{VARIANTS} (default ambition)")
    demo.add_argument("--out", metavar="DIR", help="where the database, the log and the .eml files go (default: a new temporary folder)")
    demo.add_argument("--years", type=int, help="game years to play before the end (default: 3; Napoleonic Wars 2; "
                      "1700AD II 14, 1700 to 1713)")
    demo.add_argument("--seed", type=int, default=1763, help="of the players' random orders (default 1763)")
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

    status = sub.add_parser(
        "status", help="is the judge healthy: its servers, mail read, the outbox, deadlines; exit 1 if not",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Report the judge's health from its database: each gm serve (by its heartbeat: live or "
        "dead, holding the mailbox or standing by), when mail was last read, the outbox's depth and its oldest "
        "unsent mail, the next deadline, and games overdue (a deadline, end of grace or reminder past and not "
        "dealt with).",
        epilog="exit status:\n"
        "  0  healthy\n"
        "  1  unhealthy: one line 'UNHEALTHY: ...' for each check failed: no gm serve runs; none holds the\n"
        "     mailbox; unsent mail older than --outbox-age; a game overdue by more than --lag.\n"
        "     With --this-host only the first is checked, for the servers on this host\n"
        "  2  no database to look at, or it cannot be reached (one line saying what to do)\n\n"
        "A container's healthcheck: gm status --this-host")
    status.add_argument("--this-host", dest="this_host", action="store_true",
                        help="judge only the gm serve on this host (a container's own): healthy while one runs "
                        "and beats, standby or not")
    status.add_argument("--outbox-age", dest="outbox_age", metavar="DURATION", default="15m",
                        help="unsent mail older than this is unhealthy (default 15m)")
    status.add_argument("--lag", metavar="DURATION", default="5m",
                        help="a game overdue by more than this is unhealthy (default 5m)")
    status.add_argument("--config", metavar="FILE", help=config_help)
    status.set_defaults(func=_status)

    db = sub.add_parser("db", help="database maintenance")
    db_sub = db.add_subparsers(dest="db_command", metavar="COMMAND", required=True)
    db_upgrade = db_sub.add_parser("upgrade", help="apply every migration the database lacks (making it if need be)")
    db_upgrade.add_argument("--config", metavar="FILE", help=config_help)
    db_upgrade.set_defaults(func=_db_upgrade)
    db_backup = db_sub.add_parser("backup", help="write a backup of the database to FILE, while gm serve runs")
    db_backup.add_argument("file", metavar="FILE", help="where the backup goes (SQLite: a database file; "
                           "PostgreSQL: a pg_dump archive)")
    db_backup.add_argument("--config", metavar="FILE", help=config_help)
    db_backup.set_defaults(func=_db_backup)
    db_restore = db_sub.add_parser("restore", help="replace the database by a backup (every gm serve on it stopped)")
    db_restore.add_argument("file", metavar="FILE", help="a backup written by gm db backup (or pg_dump --format=custom)")
    db_restore.add_argument("--config", metavar="FILE", help=config_help)
    db_restore.set_defaults(func=_db_restore)

    game = sub.add_parser("game", help="games on this judge")
    game_sub = game.add_subparsers(dest="game_command", metavar="COMMAND", required=True)
    game_new = game_sub.add_parser("new", help="create a game; players then JOIN it by mail")
    game_new.add_argument(
        "name",
        help="the game's short name: 1 to 64 ASCII letters, digits, '-' and '_', starting with a letter or digit; "
        "case does not matter (AE1 is ae1)",
    )
    game_new.add_argument("--variant", default="standard", help=VARIANTS)
    rules = game_new.add_argument_group("house rules (shown to every player when the game starts)")
    rules.add_argument("--movement", metavar="DURATION", help="how long a movement phase runs: 48h (default), 2d, 90m, 10s")
    rules.add_argument("--retreat", metavar="DURATION", help="how long a retreat phase runs (default 24h)")
    rules.add_argument("--adjustment", metavar="DURATION", help="how long a winter (adjustment) phase runs (default 24h)")
    rules.add_argument("--bidding", metavar="DURATION",
                       help="how long a winter of bids for minor powers runs, in Napoleonic Wars (default 24h)")
    rules.add_argument("--days", help="weekdays a deadline may fall on: mon-fri, sat,sun (default: any)")
    rules.add_argument("--hour", help="the hour of day every deadline falls on, 0-23 (default: any)")
    rules.add_argument("--timezone", help="the game's time zone (default: the judge's, GM_TIMEZONE)")
    rules.add_argument("--language", help="the game's language: its pages, and its mail to whoever chose none "
                                          "(SET LANGUAGE): en (default), fr, de, it")
    rules.add_argument("--grace", metavar="DURATION", help="orders still taken this long after a deadline, marked late (default 0)")
    rules.add_argument("--nmr", choices=("defaults", "wait"), help="missing orders at the end of grace: the rules' defaults (default) or wait")
    rules.add_argument("--late-limit", dest="late_limit", help="deadlines missed in a row before civil disorder (default 3; 0: never)")
    rules.add_argument("--remind-before", dest="remind_before", metavar="DURATION", help="reminders this long before a deadline (default 24h; 0: none)")
    rules.add_argument("--absence-days", dest="absence_days", help="the longest SET ABSENCE, in days (default 14)")
    rules.add_argument("--draw", choices=("gm", "dias", "named"),
                       help="who proposes a draw: the GM only (default), any survivor for all survivors (dias), "
                            "or any survivor naming the powers to share it, every survivor accepting (named)")
    rules.add_argument("--draw-votes", dest="draw_votes", choices=("secret", "public"),
                       help="who proposed a draw, who voted how and who conceded: told to the GM only (secret, "
                            "the default, as on njudge) or to the players too (public)")
    rules.add_argument("--pages", choices=("listed", "unlisted", "private"),
                       help="the game's web pages: in the index of games (listed, the default), only for whoever "
                            "has the link (unlisted), or none (private)")
    rules.add_argument("--pages-press", dest="pages_press", choices=("none", "broadcast"),
                       help="broadcast press on the game's web pages (default none)")
    game_new.add_argument("--master", action="append", metavar="ADDRESS", help="a GM's address: gets a copy of every results mail, with the secret allocations, and runs the game by mail with the GM password (may be repeated)")
    game_new.add_argument("--master-password-file", dest="master_password_file", metavar="FILE",
                          help="the GM password, read from FILE (- for standard input); default $GM_MASTER_PASSWORD, "
                          "else asked for on a terminal")
    game_new.add_argument("--map-palette", dest="map_palette", choices=("rulebook", "colourblind"), default="rulebook",
                          help="the powers' colours on the maps: the rulebook's (default) or a colour-blind-safe set")
    game_new.add_argument("--config", metavar="FILE", help=config_help)
    game_new.set_defaults(func=_game_new)
    game_start = game_sub.add_parser("start", help="start a forming game now, with the powers taken so far")
    game_start.add_argument("name", help="the game's name (case does not matter)")
    game_start.add_argument("--config", metavar="FILE", help=config_help)
    game_start.set_defaults(func=_game_start)
    game_list = game_sub.add_parser("list", help="one line per game: name, variant, status, phase, powers taken, "
                                    "and how a finished game ended")
    game_list.add_argument("--config", metavar="FILE", help=config_help)
    game_list.set_defaults(func=_game_list)
    game_show = game_sub.add_parser(
        "show", help="one game: variant, status, phase and deadline, each power's player and whether its orders are in"
    )
    game_show.add_argument("name", help="the game's name (case does not matter)")
    game_show.add_argument("--config", metavar="FILE", help=config_help)
    game_show.set_defaults(func=_game_show)
    game_audit = game_sub.add_parser("audit", help="the game's audit log, newest last (AUDIT by mail shows the same)")
    game_audit.add_argument("name", help="the game's name (case does not matter)")
    game_audit.add_argument("--count", type=int, metavar="N", help="the newest N entries (default 100)")
    game_audit.add_argument("--config", metavar="FILE", help=config_help)
    game_audit.set_defaults(func=_game_audit)
    game_pages = game_sub.add_parser(
        "pages", help="write the game's web pages (every adjudicated phase, no secret) and the index into a folder")
    game_pages.add_argument("name", help="the game's name (case does not matter)")
    game_pages.add_argument("--out", required=True, metavar="DIR", help="the folder (made if need be)")
    game_pages.add_argument("--config", metavar="FILE", help=config_help)
    game_pages.set_defaults(func=_game_pages)
    game_master = game_sub.add_parser(
        "master", help="run GM commands on a game, as by mail after SIGNON MASTER (HELP lists them)",
        description="Run GM command lines (each argument one line: 'ROLLBACK F1901M' 'ORDER France A Par-Bur' "
        "'PROCESS') on a game, exactly as a GM's mail would; the mail they cause goes out with gm serve's outbox. "
        "One line may go unquoted (gm game master NAME EXTEND 1h); several lines are quoted, one an argument.")
    game_master.add_argument("name", help="the game's name (case does not matter)")
    game_master.add_argument("lines", nargs="+", metavar="LINE", help="a GM command line")
    game_master.add_argument("--config", metavar="FILE", help=config_help)
    game_master.set_defaults(func=_game_master, one_line=False)
    for word, what in (("process", "adjudicate the current phase now, with the orders on file"),
                       ("preview", "adjudicate the current phase without keeping anything; the would-be results "
                                   "are printed and mailed to the GMs only"),
                       ("rollback", "return the game to the start of a phase (default: the last adjudicated), "
                                    "with the orders then on file; every player is told")):
        short = game_sub.add_parser(word, help=what)
        short.add_argument("name", help="the game's name (case does not matter)")
        if word == "rollback":
            short.add_argument("lines", nargs="*", metavar="PHASE",
                               help="the phase (Fall 1901, F1901M, W1901); REOPEN after it to undo the end of a game "
                                    "that is over")
        elif word == "process":
            short.add_argument("lines", nargs="*", metavar="PHASE",
                               help="only if this is the phase under way (S1902M, Spring 1902)")
        short.add_argument("--config", metavar="FILE", help=config_help)
        short.set_defaults(func=_game_master, one_line=True, word=word.upper())
    import_command(game_sub, config_help)
    mail_commands(sub, config_help)
    variant_commands(sub)
    map_commands(sub, config_help)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        try:
            return _main(argv)
        finally:
            sys.stdout.flush()  # here, where a reader gone away is caught, not at exit
    except BrokenPipeError:
        # The reader went away (`gm game show NAME | head`): nobody is left to tell anything.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # so that the exit's flush is quiet too
        return 1


def _main(argv: Sequence[str] | None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return args.func(args)
    except BrokenPipeError:
        raise  # see main()
    except Exception as e:
        from gm.failures import explain

        problem = None if args.debug else explain(e, getattr(args, "settings", None))
        if problem is None:
            raise
        print(f"gm: {problem}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
