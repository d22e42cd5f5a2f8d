"""What a demonstration game leaves: every mail as an .eml file, and the summary printed at the
end (the phases, the mails, the variant's special orders the GM accepted, how the game ended and
the end mail's file, every power's centres, the game's web pages). Also the lines the progress bar writes per phase.

Everything here reads the database the service writes; nothing writes it.
"""
from __future__ import annotations

import email
import email.policy
import re
import shutil
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from gm.demo.players import Tally, slug
from gm.demo.scripts import GAME, GM, LEADERS, MASTER, Script
from gm.engine.variant import Variant
from gm.i18n import ENGLISH, language_name
from gm.mail.outgoing.list_headers import list_headers
from gm.mail.outgoing.outbox import Outgoing, build_message
from gm.store.db import state_from_json
from gm.store.models import Game, GamePhase, InboundMail, OrderRecord, OutboundMail, Player, SecretAllocation
from gm.view import paths
from gm.web.writer import write_all

END_KINDS = ("results", "announcement")  # the mail that ends a game: its last results, or the draw's announcement


@dataclass
class Written:
    """The .eml files written: how many of each kind, and the end mail's file for each reader."""

    counts: dict[str, Counter[str]] = field(default_factory=lambda: {"in": Counter(), "out": Counter()})
    ends: dict[str, Path] = field(default_factory=dict)  # address -> the file of the last mail it got about the game's end


def progress(engine: Engine) -> tuple[Game | None, list[GamePhase], GamePhase | None, int, int]:
    """The game, its adjudicated phases, the open one, mails taken in and sent."""
    with Session(engine) as session:
        game = session.scalar(select(Game).where(Game.name == GAME))
        if game is None:
            return None, [], None, 0, 0
        phases = session.scalars(select(GamePhase).where(GamePhase.game_id == game.id).order_by(GamePhase.seq)).all()
        mails_in = session.scalar(select(func.count()).select_from(InboundMail)) or 0
        mails_out = session.scalar(select(func.count()).select_from(OutboundMail)
                                   .where(OutboundMail.sent_at.is_not(None))) or 0
    ended = [p for p in phases if p.adjudicated_at is not None]
    current = next((p for p in reversed(phases) if p.adjudicated_at is None), None)
    return game, ended, current, int(mails_in), int(mails_out)


def busy(engine: Engine) -> bool:
    """Mail taken in and not yet dealt with, or queued and not yet sent."""
    with Session(engine) as session:
        unread = session.scalar(select(InboundMail.id).where(InboundMail.processed_at.is_(None)).limit(1))
        unsent = session.scalar(select(OutboundMail.id).where(OutboundMail.sent_at.is_(None),
                                                              OutboundMail.gave_up_at.is_(None)).limit(1))
    return unread is not None or unsent is not None


def _early(row: GamePhase) -> bool:
    return bool(row.deadline_at and row.adjudicated_at and row.adjudicated_at < row.deadline_at)


def phase_line(variant: Variant, row: GamePhase) -> str:
    """One line per adjudicated phase, as the progress bar goes."""
    report: dict[str, Any] = row.results_json or {}
    took = (row.adjudicated_at - row.opened_at).total_seconds() if row.adjudicated_at and row.opened_at else 0.0
    if report.get("skipped"):
        how = "resolved at once (nothing to decide)"
    elif _early(row):
        how = f"ended early: every order in after {took:.1f} s"
    else:
        late = report.get("late") or []
        how = f"ended at its deadline ({took:.1f} s)" + (f"; no full orders from {', '.join(late)}" if late else "")
    line = f"  {row.label:26} {how}"
    centres = report.get("centres")
    # the centres once a year: after the winter's adjustments, or a year's single turn (1700AD II)
    if centres and ("Adjustment" in row.label or row.label.startswith("Year") or report.get("ended")):
        great = variant.great_powers
        ranked = sorted(((p, n) for p, n in centres.items() if p in great), key=lambda x: (-x[1], x[0]))
        line += "\n    centres: " + ", ".join(f"{p} {n}" for p, n in ranked)
    return line


def _first_line(raw: bytes) -> str:
    msg = email.message_from_bytes(raw, policy=email.policy.default)
    body = msg.get_body(preferencelist=("plain",))  # type: ignore[attr-defined]
    text = body.get_content() if body is not None else ""
    return next((line.strip() for line in text.splitlines() if line.strip()), "")


def _kinds(counts: Counter[str]) -> str:
    return ", ".join(f"{n} {kind}" for kind, n in counts.most_common()) or "none"


PAGES = "pages"  # the game's web pages, beside the mail: gm serve writes them there (GM_PAGES_DIR)


def write_pages(engine: Engine, out: Path) -> Path:
    """The game's web pages as gm serve wrote them after each phase, brought up to the end (the
    service may have stopped between a last change and its next look); the index's file."""
    with Session(engine) as session:
        write_all(session, out / PAGES)
    return out / PAGES / paths.INDEX


def write_eml(engine: Engine, out: Path) -> Written:
    """Every mail the GM took in (as it arrived) and sent (as it was sent) as .eml files:
    mail/in/NNN-from-<who>.eml and mail/out/NNN-to-<who>-<kind>.eml, numbered in order."""
    folder = out / "mail"
    for sub in ("in", "out"):
        shutil.rmtree(folder / sub, ignore_errors=True)
        (folder / sub).mkdir(parents=True)
    written = Written()
    with Session(engine) as session:
        game = session.scalar(select(Game).where(Game.name == GAME))
        finished = game.finished_at if game is not None else None
        who = {p.email: slug(p.power or "") for p in session.scalars(select(Player))}
        who[MASTER] = "gm-master"
        inbound = session.scalars(select(InboundMail).order_by(InboundMail.received_at, InboundMail.id)).all()
        for i, mail in enumerate(inbound, 1):
            first = _first_line(mail.raw)
            kind = first.split()[0].upper() if first else "empty"
            written.counts["in"][kind if kind in ("JOIN", "CONFIRM", "SIGNON") else "other"] += 1
            name = who.get(mail.sender, slug(mail.sender))
            (folder / "in" / f"{i:03d}-from-{name}.eml").write_bytes(mail.raw)
        outbound = session.scalars(select(OutboundMail).where(OutboundMail.sent_at.is_not(None))
                                   .order_by(OutboundMail.sent_at, OutboundMail.id)).all()
        listed = list_headers(session, outbound, GM, None)  # as the outbox wrote them (List-Id, ...)
        for i, row in enumerate(outbound, 1):
            written.counts["out"][row.kind] += 1
            name = who.get(row.to_addr, slug(row.to_addr))
            path = folder / "out" / f"{i:03d}-to-{name}-{row.kind}.eml"
            path.write_bytes(build_message(replace(Outgoing.of(row, session), headers=listed.get(row.id, ())), GM))
            # The end mail: queued in the transaction that ended the game.
            if finished is not None and row.kind in END_KINDS and row.created_at >= finished:
                written.ends[row.to_addr] = path
    return written


def special_orders(engine: Engine, variant: Variant, script: Script) -> list[tuple[str, int]]:
    """How many order lines of each of the script's special kinds the GM accepted, as written."""
    leaders = sorted(set(variant.rules.unit_names(variant).values()))
    with Session(engine) as session:
        lines = [*session.scalars(select(OrderRecord.text)), *session.scalars(select(SecretAllocation.text))]
    found = []
    for words, pattern in script.special:
        pattern = pattern.replace(LEADERS, f"({'|'.join(map(re.escape, leaders)) or '$^'}) ")
        found.append((words, sum(1 for line in lines if re.match(pattern, line.strip(), re.IGNORECASE))))
    return found


def summary(engine: Engine, variant: Variant, script: Script, out: Path, tally: Tally, ended: list[GamePhase],
            written: Written, took: float, pages: Path | None = None) -> None:
    """Print what happened, for the newcomer."""
    with Session(engine) as session:
        game = session.scalar(select(Game).where(Game.name == GAME))
        current = session.scalar(select(GamePhase).where(GamePhase.adjudicated_at.is_(None))
                                 .order_by(GamePhase.seq.desc()).limit(1))
        unsent = len(session.scalars(select(OutboundMail.id).where(OutboundMail.sent_at.is_(None))).all())
    last = ended[-1] if ended else None
    early = sum(1 for row in ended if _early(row))
    print(f"\nSummary ({took:.0f} s)")
    print("=======")
    if last is not None:
        played = _when(ended[0].label) + ("" if len(ended) == 1 else f" to {_when(last.label)}")
        print(f"Phases played: {len(ended)}, {played}"
              + (f" ({current.label} was open when the game ended)" if current is not None else ""))
        print(f"  {early} ended early, as soon as every order was in; {len(ended) - early} at their deadline")
    print(f"Mails in:  {sum(written.counts['in'].values()):4d}  ({_kinds(written.counts['in'])})")
    print(f"Mails out: {sum(written.counts['out'].values()):4d}  ({_kinds(written.counts['out'])})"
          + (f"; {unsent} not sent" if unsent else ""))
    counted = special_orders(engine, variant, script)
    if counted:
        print("Special orders the GM accepted: " + ", ".join(f"{n} {words}" for words, n in counted))
    if tally.incomplete:
        print("Orders left out on purpose: " + "; ".join(tally.incomplete))
    late = [r for r in tally.rejected if ": too late:" in r]
    wrong = [r for r in tally.rejected if r not in late]
    if late:
        print(f"Order lines that came after their phase's deadline: {len(late)} (written for a phase that had "
              "ended by the time the mail was read)")
    if wrong:
        print(f"Order lines the GM rejected otherwise: {len(wrong)}, e.g. {wrong[0]}")
    for power, (language, mine, judge) in tally.own_words.items():
        print(f"{power}'s player reads every mail in {language_name(language, ENGLISH)} (SET LANGUAGE {language}) and writes "
              f"orders in its words: '{mine}' for {judge}")
    for done in tally.gm:
        print(f"The GM {done}")
    if tally.votes:
        print(f"Draw votes mailed: {len(tally.votes)} ({', '.join(sorted(tally.votes))})")
    outcome = game.outcome if game is not None and game.outcome else None
    print(f"\nHow the game ended: {outcome or 'it did not end'}")
    if written.ends:
        # A player's copy: the GM's carries every secret.
        first = sorted(path for to, path in written.ends.items() if to != MASTER)[0]
        print(f"The end mail, with the final position, went to every player and the GM ({len(written.ends)} "
              f"addresses); one of them: {first}")
    _centres(variant, current, last)
    print(f"\nEvery mail, as .eml files: {out / 'mail' / 'in'} (to the GM) and {out / 'mail' / 'out'} "
          "(from the GM; results are text and HTML, with the maps inline)")
    if pages is not None:
        print(f"The game's web pages (every phase's orders, results and maps; no secret): {pages}")
    print(f"The game's database: {out / 'data' / 'gm.sqlite3'}; gm serve's log: {out / 'gm-serve.log'}")


def _centres(variant: Variant, current: GamePhase | None, last: GamePhase | None) -> None:
    """Every power's centres (and units) now: in the open phase's position, or after the last
    phase adjudicated when the game ended with it."""
    great = variant.great_powers
    if current is not None:
        state = state_from_json(current.state_json)
        when = _when(current.label)
        centres = Counter(state.supply_centres.values())
        units: dict[str, int] | None = {p: len(state.units_of(p)) for p in great}
    elif last is not None and (last.results_json or {}).get("centres"):
        when = f"after {_when(last.label)}"
        centres = Counter(last.results_json["centres"])  # type: ignore[index]
        units = None
    else:
        return
    print(f"\nSupply centres, {when}:")
    for power in sorted(great, key=lambda p: (-centres[p], p)):
        print(f"  {power:18} {centres[power]:2d} centres" + (f", {units[power]:2d} units" if units is not None else ""))
    minor = sum(n for owner, n in centres.items() if owner not in great)
    if any(p.minor for p in variant.powers.values()):
        print(f"  {'minor powers':18} {minor:2d} centres")


def _when(label: str) -> str:
    """'Fall 1764, Retreat' -> 'Fall 1764'."""
    return label.partition(",")[0]
