"""The scripted players and the GM of a demonstration game, each playing by mail alone.

A player JOINs over SMTP and confirms with the code the judge mails back (CONFIRM), waits in its
own mailbox (IMAP IDLE) for the start or results mail, and answers with its orders as a person
would write them: its share of one seeded random draw of every power's orders
(gm.randomgame.RandomPlayers, which knows each variant's special orders), leaders named as
players name them. Asked to vote on a draw, it accepts. France's player reads the judge in French
(SET LANGUAGE fr with its CONFIRM) and writes its orders in French order words.

The GM signs on by mail once the game has started: it sets the variant's end where the GM fixes
it (SET OPTION last_year, and SET PHASE for a shorter game) and welcomes the players with press to
all; in a game that ends in a draw, once the years are played it pauses the game and proposes a
draw between every power still in it.
"""
from __future__ import annotations

import asyncio
import random
import re
from dataclasses import dataclass, field, replace
from typing import Callable

from sqlalchemy import select
from sqlalchemy.engine import Engine
from sqlalchemy.orm import Session

from gm.demo.mailbox import Mailbox, plain_text, send
from gm.demo.scripts import GAME, MASTER, PLAYERS_DOMAIN, Script
from gm.engine.model import GameState, PhaseKind, Season
from gm.engine.orders import Allocation, Order
from gm.engine.parse import spell_order
from gm.engine.variant import Variant
from gm.i18n import ENGLISH, _
from gm.i18n import LANGUAGES as ALL_LANGUAGES
from gm.lifecycle.house_rules import rules_of
from gm.lifecycle.phases import owed
from gm.mail.commands.confirmations import code_in_subject
from gm.randomgame import RandomPlayers
from gm.store.db import state_from_json
from gm.store.models import Game, GamePhase, GameStatus

DRAW_PROPOSED = _("Draw proposed")  # a part of the subject: the GM's PAUSE and DRAW come in one notice
LANGUAGES = {"France": "fr"}  # the players who read and write another language than English


def draw_proposed(subject: str) -> bool:
    """Whether a mail asks for a vote on a draw ('[demo] The game is paused; Draw proposed'), in
    whichever language the player reads."""
    parts = subject.removeprefix(f"[{GAME}] ").split("; ")
    return subject.startswith(f"[{GAME}] ") and any(DRAW_PROPOSED.in_language(lang) in parts for lang in ALL_LANGUAGES)


# 'REJECTED  <line>' then ': <why>' under it, in an acknowledgement in any language
_REJECTED = re.compile("^\\s*(?:" + "|".join(re.escape(_("REJECTED").in_language(lang)) for lang in ALL_LANGUAGES)
                       + ")\\s+(.*)\n\\s*:\\s*(.*)$", re.MULTILINE)


def slug(name: str) -> str:
    """'Great Britain' -> 'great-britain': for addresses and file names."""
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def player_address(power: str) -> str:
    return f"{slug(power)}@{PLAYERS_DOMAIN}"


@dataclass
class Tally:
    """What the players saw in their own mailboxes, and what the GM did."""

    rejected: list[str] = field(default_factory=list)  # "<power>: <line>: <why>"
    incomplete: list[str] = field(default_factory=list)  # "<phase>: <power> left <unit> without orders"
    votes: list[str] = field(default_factory=list)  # powers that mailed ACCEPT DRAW
    gm: list[str] = field(default_factory=list)  # what the GM did by mail, in its words
    # power -> (its language, an order line it wrote in that language's words, and the judge's own form)
    own_words: dict[str, tuple[str, str, str]] = field(default_factory=dict)


@dataclass
class Plan:
    """When the players order and how the game ends."""

    script: Script
    first_year: int  # the first year the players order in
    stop_year: int | None  # a draw's: from this year's first phase on the players order no more
    last_year: int | None  # a GM's end: the game ends once this year is played
    jump_to: int | None  # the GM moves the first phase on to this year (SET PHASE)


class Cast:
    """Every scripted player, and the GM, of one demonstration game."""

    def __init__(self, variant: Variant, plan: Plan, smtp_port: int, imap_port: int, mailbox_password: str,
                 master_password: str, seed: int) -> None:
        self.variant, self.plan = variant, plan
        self.smtp_port, self.imap_port = smtp_port, imap_port
        self.mailbox_password, self.master_password = mailbox_password, master_password
        self.tally = Tally()
        # Every power's orders for a phase are drawn together, from one seeded generator, the first
        # time a player asks: the same seed plays the same game (as long as the same orders arrive).
        self.random = RandomPlayers(variant, random.Random(seed))
        self.drawn: dict[int, list[Order]] = {}
        self.ready = asyncio.Event()  # the phase the players order first is set: they may order
        if plan.jump_to is None:
            self.ready.set()

    async def send(self, sender: str, subject: str, body: str) -> None:
        await send(self.smtp_port, sender, subject, body)

    # --- a player ----------------------------------------------------------------------------------

    async def player(self, power: str, engine: Engine) -> None:
        """One great power's player: JOIN, answer the confirmation with its code (CONFIRM), then
        answer each mail about a new phase with orders, and a draw proposal with its vote."""
        address, password = player_address(power), f"secret-{slug(power)}"
        language = LANGUAGES.get(power, ENGLISH)
        signon = f"SIGNON {power} {GAME} {password}"
        await self.send(address, f"join {GAME}", f"JOIN {GAME} {power} {password}")
        mailbox = Mailbox(self.imap_port, address, self.mailbox_password)
        await mailbox.open()
        ordered: set[int] = set()
        heard = False  # a mail about the game (start or results) has come
        try:
            while True:
                fresh = await mailbox.new_mail(wait=2)
                for msg in fresh:
                    subject = str(msg.get("Subject", ""))
                    self._read(power, subject, msg)
                    code = code_in_subject(subject)
                    if code is not None:  # the judge asks whether the JOIN was this address's
                        chosen = f"\nSET LANGUAGE {language}" if language != ENGLISH else ""
                        await self.send(address, f"{GAME}: confirming", f"CONFIRM {code}{chosen}")
                    if draw_proposed(subject):
                        self.tally.votes.append(power)
                        await self.send(address, f"Re: {subject}", f"{signon}\nACCEPT DRAW")
                about_game = [m for m in fresh if str(m.get("Subject", "")).startswith(f"[{GAME}]")]
                heard = heard or bool(about_game)
                # A mail about the game means a new phase to order. Until the first one, the
                # player also looks whether the game has started (should its start mail not come).
                if not about_game and heard:
                    continue
                # A scripted player takes the position from the database, not from the mail (a
                # person reads it there): the same position, without parsing text for people.
                row = await asyncio.to_thread(current_phase, engine)
                if row is not None and not self.ready.is_set():
                    await self.ready.wait()  # the GM moves the first phase on: orders for that one
                    row = await asyncio.to_thread(current_phase, engine)
                if row is None or row.seq in ordered:
                    continue
                state = state_from_json(row.state_json)
                if self.plan.stop_year is not None and state.phase.year >= self.plan.stop_year:
                    continue  # the years are played: the GM proposes a draw
                ordered.add(row.seq)
                english = self._orders(power, row, state)
                lines = [spell_order(self.variant, line, language) for line in english]
                told = [(mine, judge) for mine, judge in zip(lines, english, strict=True) if mine != judge]
                if told and power not in self.tally.own_words:
                    self.tally.own_words[power] = (language, *told[0])
                if lines:
                    subject = str(about_game[-1]["Subject"]) if about_game else f"{GAME} orders"
                    await self.send(address, f"Re: {subject}", "\n".join([signon, *lines]))
        finally:
            await mailbox.close()

    def _read(self, power: str, subject: str, msg: object) -> None:
        """Note the lines the GM rejected: an acknowledgement says which, and why."""
        if subject.startswith(f"[{GAME}]"):
            return  # a start or results mail, or the GM's announcement
        text = plain_text(msg)  # type: ignore[arg-type]
        for line, why in _REJECTED.findall(text):
            self.tally.rejected.append(f"{power}: {line.strip()}: {why.strip()}")

    def _orders(self, power: str, row: GamePhase, state: GameState) -> list[str]:
        """`power`'s order lines for the phase: its share of the random draw. In the game's first
        Fall movement the first power leaves a unit without orders, so that the deadline ends that
        phase, where the others end as soon as every order is in."""
        if row.seq not in self.drawn:
            self.drawn[row.seq] = self.random.orders(state)
        mine = [o for o in self.drawn[row.seq] if o.power == power]
        phase = state.phase
        if phase.kind is PhaseKind.MOVEMENT and phase.season is Season.FALL and phase.year == self.plan.first_year \
                and power == self.variant.great_powers[0] and not self.tally.incomplete:
            units = [o for o in mine if type(o) is not Allocation and o.unit_type is not None]
            if units:
                self.tally.incomplete.append(f"{row.label}: {power} leaves {units[-1].province.upper()} without orders")
                mine.remove(units[-1])
        if not mine and power not in owed(self.variant, state):
            return []
        return [self._written(o, state) for o in mine]

    def _written(self, order: Order, state: GameState) -> str:
        """The order as a player writes it: a leader's by his name ('CXII GOT - SCA')."""
        text = str(order)
        unit = state.units.get(order.province) if order.location else None
        if unit is not None and unit.leader and unit.power == order.power and text.startswith("A "):
            text = re.sub(r"(^| THEN )A ", rf"\1{unit.leader} ", text)
        return text

    # --- the GM ------------------------------------------------------------------------------------

    async def master(self, engine: Engine) -> None:
        """The GM: once the game has started, sets its end (where the GM fixes it) and greets every
        player (press to all); in a game to be drawn, proposes the draw once the years are played."""
        while await asyncio.to_thread(current_phase, engine) is None:
            await asyncio.sleep(0.5)
        plan, signon = self.plan, f"SIGNON MASTER {GAME} {self.master_password}"
        lines = [signon]
        if plan.jump_to is not None:
            first = replace(self.variant.initial_state().phase, year=plan.jump_to)
            lines.append(f"SET PHASE {self.variant.phase_label(first)}")
        if plan.last_year is not None:
            lines.append(f"SET OPTION last_year {plan.last_year}")
        welcome = "Welcome to the demonstration game: every mail of it is kept as an .eml file."
        if plan.last_year is not None:
            welcome += f" The game ends once {plan.last_year} is played."
        await self.send(MASTER, f"{GAME}: welcome", "\n".join([*lines, "BROADCAST", welcome, "ENDPRESS"]))
        if len(lines) > 1:
            await self._until(engine, lambda game, row: rules_of(game.options).last_year == plan.last_year
                              and (plan.jump_to is None or state_from_json(row.state_json).phase.year == plan.jump_to))
            self.tally.gm.append("set the game's end: " + "; ".join(lines[1:]))
        self.ready.set()
        if plan.stop_year is None:
            return
        row = await self._until(engine, lambda game, row: state_from_json(row.state_json).phase.year >= plan.stop_year)
        state = state_from_json(row.state_json)
        still_in = [p for p in self.variant.great_powers if state.units_of(p) or state.centres_of(p)]
        # The clock stops while the players vote: no phase ends meanwhile.
        await self.send(MASTER, f"{GAME}: a draw", "\n".join([signon, "PAUSE", f"DRAW {', '.join(still_in)}"]))
        self.tally.gm.append(f"paused the game in {row.label} and proposed a draw between {', '.join(still_in)}")

    async def _until(self, engine: Engine, ready: Callable[[Game, GamePhase], bool], every: float = 0.25) -> GamePhase:
        """The open phase once `ready(game, phase)` holds of it."""
        while True:
            found = await asyncio.to_thread(_game_and_phase, engine)
            if found is not None and ready(*found):
                return found[1]
            await asyncio.sleep(every)


# --- reading the database (the service writes it; these only read) --------------------------------


def current_phase(engine: Engine) -> GamePhase | None:
    with Session(engine) as session:
        return session.scalar(select(GamePhase).join(Game).where(Game.name == GAME, GamePhase.adjudicated_at.is_(None))
                              .order_by(GamePhase.seq.desc()).limit(1))


def _game_and_phase(engine: Engine) -> tuple[Game, GamePhase] | None:
    with Session(engine) as session:
        game = session.scalar(select(Game).where(Game.name == GAME))
        if game is None or game.status != GameStatus.ACTIVE:
            return None
        row = session.scalar(select(GamePhase).where(GamePhase.game_id == game.id, GamePhase.adjudicated_at.is_(None))
                             .order_by(GamePhase.seq.desc()).limit(1))
        return None if row is None else (game, row)
