"""What a mail's commands share while it is carried out: the Context of the mail (who signed on,
what each line did, what to answer), the Lookups of its transaction (games, phases, players, the
hourly counts of mail), a LineResult for each line, and the Block a command takes text in.

Below every command and everything a command's answer goes through (press, replies, the outbox's
budgets): it imports none of them.
"""
from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from gm.games import CurrentPhase, OnFile, add_on_file, current_phase, find_game, on_file_by_power
from gm.i18n import _
from gm.mail.intake.auth import Failures, new_password_refused
from gm.mail.budget import WINDOW
from gm.mail.intake.message import InboundMessage
from gm.view.languages import language_of
from gm.store.models import AuditEntry, Game, GamePhase, Master, Observer, OutboundMail, Player, utcnow
from gm.store.passwords import PasswordVerifier, hash_password

if TYPE_CHECKING:
    from gm.mail.intake.dkim import Verdict
    from gm.mail.intake.provenance import Provenance


SIGN_ON_FIRST = _("sign on first: SIGNON <power> <game> <password>")
MASTERS_ONLY = _("a GM's command: sign on as the game's GM first (SIGNON MASTER <game> <password>)")
NO_SUCH_GAME = _("there is no such game (LIST shows the games)")


class Lookups:
    """What the mails of one transaction looked up (games, their current phase, players, recent
    wrong passwords), kept for the mails after them in the same transaction: a burst of order mails
    reads each once. A batch thus sees each as it was when first read in the batch (whatever the
    batch itself changes goes through here or calls forget(), as does whatever undoes part of the
    transaction).

    Nothing may close a phase meanwhile, and nothing does: a game is read under a share lock of
    its row (FOR SHARE), held to the end of the transaction, and the scheduler adjudicates only a
    game whose row it holds FOR UPDATE (SKIP LOCKED: it leaves a game a batch is reading for its
    next round). A batch that meets a game being adjudicated waits for it, and then reads the
    phase that opened. On SQLite, which has no row locks, a writing transaction holds the whole
    database (BEGIN IMMEDIATE) to the same effect. Only one process takes mail in (gm serve), so
    the share locks of two batches never meet, nor turn into a deadlock when one of them then
    writes the game row (orders_changed, a deadline moved)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self._games: dict[str, Game | None] = {}
        self._phases: dict[int, CurrentPhase | None] = {}
        self._players: dict[int, dict[str, Player]] = {}
        self.auth_failures = Failures(session)
        # Orders and allocations stored by the mails of the transaction and not yet written (see
        # orders.write_orders), and what each power has on file with them: an acknowledgement
        # shows it without asking the database again.
        self.pending_orders: list[tuple[type, dict[str, Any]]] = []
        self._on_file: dict[tuple[type, int], dict[str, list[OnFile]]] = {}
        self._replies: dict[str, dict[str, int]] = {}  # address -> kind -> mails queued in the last hour
        self._registered: set[str] = set()  # of the addresses in _replies, those of a player or a GM
        self._observers: set[str] = set()  # of the addresses in _replies, those observing a game
        # (address, game id, whether a code) of each mail to an address that proved nothing, of the
        # last hour and this transaction (see gm.mail.budget): a few dozen rows at most
        self._unproven: list[tuple[str, int | None, bool]] | None = None
        # Games whose orders (or WAIT) the transaction changed: the scheduler is to see whether
        # their phase may end early (see orders.write_orders, which marks them at once).
        self.orders_changed: set[int] = set()
        self._previous: dict[int, GamePhase | None] = {}
        self._locked: set[int] = set()  # games whose row this transaction holds FOR SHARE

    def game(self, name: str) -> Game | None:
        """The game called `name`, its row share-locked to the end of the transaction (see above)."""
        key = name.strip()  # find_game checks the name before it folds case: 'K' (Kelvin) is no 'k'
        if key not in self._games:
            game = self._games[key] = find_game(self.session, key, share_lock=True)
            if game is not None:
                self._locked.add(game.id)
        return self._games[key]

    def game_by_id(self, game_id: int) -> Game | None:
        """A game this transaction looked up by name before, else from the session."""
        found = next((g for g in self._games.values() if g is not None and g.id == game_id), None)
        return found if found is not None else self.session.get(Game, game_id)

    def phase(self, game: Game) -> CurrentPhase | None:
        """The phase of `game` taking orders (see gm.games.current_phase)."""
        if game.id not in self._phases:
            if game.id not in self._locked:  # a game kept from before a rollback: locked again
                self.session.execute(select(Game.id).where(Game.id == game.id).with_for_update(read=True))
                self._locked.add(game.id)
            self._phases[game.id] = current_phase(self.session, game)
        return self._phases[game.id]

    def previous_phase(self, phase: GamePhase) -> GamePhase | None:
        """The phase before `phase` in its game (None for the first)."""
        if phase.id not in self._previous:
            self._previous[phase.id] = self.session.scalar(
                select(GamePhase).where(GamePhase.game_id == phase.game_id, GamePhase.seq == phase.seq - 1))
        return self._previous[phase.id]

    def player(self, game: Game, power: str) -> Player | None:
        """Who plays `power` in `game` now. The players of a game are read together: the mails of
        a batch come from many of them."""
        if game.id not in self._players:
            players = self.session.scalars(select(Player).where(Player.game_id == game.id, Player.left_at.is_(None)))
            self._players[game.id] = {p.power: p for p in players if p.power is not None}
        return self._players[game.id].get(power)

    def on_file(self, table: type, phase: GamePhase, power: str) -> list[OnFile]:
        """What `power` has on file for `phase` in `table` (orders or allocations), oldest first,
        with what the transaction stored so far. The list is the cache's own: change it through
        orders.store and orders.withdraw only."""
        key = (table, phase.id)
        if key not in self._on_file:
            views = on_file_by_power(self.session, table, phase)
            for kind, row in self.pending_orders:
                if kind is table and row["phase_id"] == phase.id and row["current"]:
                    entry = OnFile(row["unit"], row["canonical"], row.get("points", 0), row.get("entered_by"))
                    add_on_file(views.setdefault(row["power"], []), entry)
            self._on_file[key] = views
        return self._on_file[key].setdefault(power, [])

    def replies_sent(self, to: str, kind: str) -> int:
        """Mails of `kind` queued to `to` in the last hour, those of this transaction included."""
        if to not in self._replies:
            self.count_replies([to])
        return self._replies[to].get(kind, 0)

    def count_replies(self, addresses: Collection[str]) -> None:
        """Read the counts of replies_sent, and whether each address is registered, for many
        addresses at once."""
        wanted = set(addresses) - self._replies.keys()
        if not wanted:
            return
        since = utcnow() - WINDOW
        rows = self.session.execute(
            select(OutboundMail.to_addr, OutboundMail.kind, func.count())
            .where(OutboundMail.to_addr.in_(wanted), OutboundMail.created_at >= since)
            .group_by(OutboundMail.to_addr, OutboundMail.kind)
        )
        for to in wanted:
            self._replies[to] = {}
        for to, kind, n in rows:
            self._replies[to][kind] = n
        registered = select(Player.email).where(Player.email.in_(wanted), Player.left_at.is_(None)).union(
            select(Master.email).where(Master.email.in_(wanted), Master.left_at.is_(None)))
        self._registered.update(self.session.scalars(registered))
        self._observers.update(self.session.scalars(
            select(Observer.email).where(Observer.email.in_(wanted), Observer.left_at.is_(None))))

    def registered(self, address: str) -> bool:
        """Whether `address` is a player's or a GM's now: one proven to be theirs."""
        if address not in self._replies:
            self.count_replies([address])
        return address in self._registered

    def proven(self, address: str) -> bool:
        """Whether `address` proved itself once: a player's, a GM's or an observer's now."""
        return self.registered(address) or address in self._observers

    def unproven_sent(self) -> list[tuple[str, int | None, bool]]:
        """(address, game id, whether a code) of each mail queued in the last hour to an address
        that proved nothing, those of this transaction included (see gm.mail.budget.unproven_refusal)."""
        if self._unproven is None:
            self._unproven = [(to, game, kind == "confirm") for to, game, kind in self.session.execute(
                select(OutboundMail.to_addr, OutboundMail.game_id, OutboundMail.kind).where(
                    OutboundMail.unproven.is_(True), OutboundMail.created_at >= utcnow() - WINDOW))]
        return self._unproven

    def reply_queued(self, to: str, kind: str, *, unproven: bool = False, game_id: int | None = None) -> None:
        counts = self._replies.setdefault(to, {})
        counts[kind] = counts.get(kind, 0) + 1
        if unproven:
            self.unproven_sent().append((to, game_id, kind == "confirm"))

    def forget(self) -> None:
        """After a change to games, phases or players that this cache did not make itself (a game
        starting, a player joining) or after a rollback. Orders stored and not yet written stay:
        see forget_pending."""
        self._games.clear()
        self._phases.clear()
        self._previous.clear()
        self._locked.clear()
        self._players.clear()
        self.auth_failures.forget()
        self._on_file.clear()
        self._replies.clear()
        self._registered.clear()
        self._observers.clear()
        self._unproven = None

    def forget_pending(self) -> None:
        """After a mail's savepoint was rolled back: the orders it stored are gone with it."""
        self.pending_orders.clear()
        self.orders_changed.clear()
        self.forget()


@dataclass
class LineResult:
    """What became of one line of the mail, for the acknowledgement."""

    text: str  # the line as shown back (passwords masked)
    accepted: bool | None  # None: answered at another address (see seen_by)
    detail: str  # the canonical form when accepted, the precise reason when not
    # The registered address of the power (or GM) the line acted for, or tried to: only that
    # address is shown what became of it. None: the sender's own line, shown in every answer.
    owner: str | None = None
    # What another address is shown of the line (a sign-on to someone else's power): the same
    # whether its password was right or wrong. None: nothing, the line is left out.
    elsewhere: str | None = None

    def seen_by(self, address: str) -> LineResult | None:
        """The line as an answer to `address` shows it, or None when it is left out."""
        if self.owner is None or self.owner == address:
            return self
        return None if self.elsewhere is None else LineResult(self.text, None, self.elsewhere)


@dataclass
class Context:
    """One mail being processed: the session it is processed in and what the commands found."""

    session: Session
    message: InboundMessage
    # The mail's inbound_mail row id, the row written first if need be (None: no mail, the command line).
    record_mail: Callable[[], int | None]
    verifier: PasswordVerifier
    lookups: Lookups
    gm_address: str = "gm@localhost"  # the judge's own address: the domain of the Message-IDs it makes
    results: list[LineResult] = field(default_factory=list)
    sections: list[tuple[str, str]] = field(default_factory=list)  # (title, text) for LIST, HELP...
    # (address, title, text): a section for the answer at one address only (a warning of wrong
    # passwords for its power, a GM's view of the game)
    private_sections: list[tuple[str, str, str]] = field(default_factory=list)
    attachments: list[dict[str, str]] = field(default_factory=list)  # files the acknowledgement carries (MAP)
    attachment_owners: list[str | None] = field(default_factory=list)  # whose answer each is for (LineResult.owner)
    player: Player | None = None  # signed on
    master: Master | None = None  # signed on as the game's GM (SIGNON MASTER)
    game: Game | None = None
    # The game the last SIGNON named when it failed: a PRESS TO GM after it still reaches that
    # game's GMs, marked as from an unverified sender (gm.mail.commands.press).
    tried_game: Game | None = None
    signed: list[Player] = field(default_factory=list)  # every player the mail signed on as
    masters_signed: list[Master] = field(default_factory=list)  # every GM the mail signed on as
    # A block of lines a command takes as text (PRESS ... ENDPRESS): every line after it goes to
    # the block, until the block says it is closed.
    block: Block | None = None
    # Why each SIGNON or JOIN of the mail failed: the judge's own words and names from the
    # database only, so that they can be told to a sender who signed on to nothing.
    sign_on_problems: list[str] = field(default_factory=list)
    signed_off: bool = False  # SIGNOFF: the rest of the mail is ignored
    # Whose the lines are now (see LineResult.owner): set by each SIGNON, to the registered address
    # of the power or GM it names, whether its password was right or not.
    line_owner: str | None = None
    # Sign-ons whose answer went to another address than the sender's ('France in g1'): a sender
    # is told the same of them whether the password was right or wrong.
    elsewhere: list[str] = field(default_factory=list)
    elsewhere_failing: list[str] = field(default_factory=list)  # of those, whose registered address mail fails to reach
    press_sent: int = 0  # press blocks of this mail that asked to be sent (see gm.mail.budget)
    password_checks: int = 0  # passwords checked for this mail (see gm.mail.intake.auth.CHECKS_PER_MAIL)
    confirmations: int = 0  # CONFIRM lines read in this mail: one a mail (see gm.mail.commands.confirmations)
    new_passwords: int = 0  # passwords set by this mail (see gm.mail.intake.auth.NEW_PER_MAIL)
    # (to, subject, text, kind) to mail besides the ack: 'notice', or 'press' (PRESS, BROADCAST)
    notices: list[tuple[str, str, str, str]] = field(default_factory=list)
    # Confirmation codes to mail (gm.mail.commands.confirmations.request): (to, subject, text, game id, whether
    # the address proved nothing), each within its budget already
    codes: list[tuple[str, str, str, int | None, bool]] = field(default_factory=list)
    # Hashes of the new passwords of this mail, made before its transaction began: a memory-hard
    # hash inside it would hold the database that long.
    prehashed: dict[str, str] = field(default_factory=dict)
    # What proves the mail's From address, or shows it forged, and what its DKIM signatures say of
    # it (see gm.mail.intake.provenance), found before its transaction; None: no mail at all.
    provenance: Provenance | None = None
    # Set when a request of the mail was dropped past the budgets of mail to addresses that proved
    # nothing (gm.mail.budget): its sender then gets no mail at all, not even a notice.
    silent: bool = False
    changed: bool = False  # whether the mail changed anything (orders, players, passwords)
    trusted_masters: frozenset[str] = frozenset()  # addresses that may CREATE a game (the settings')
    public_url: str | None = None  # where the games' web pages are published: results link to them
    _languages: dict[tuple[str, int | None], str] = field(default_factory=dict)  # see language()

    @property
    def dkim(self) -> Verdict | None:
        """What the mail's DKIM signatures say of its From address (see gm.mail.intake.dkim), for mail
        that signs on; None: not looked at."""
        return self.provenance.dkim if self.provenance is not None else None

    @property
    def authenticated(self) -> bool:
        """Whether the mail's From address is proved by the mail itself (see gm.mail.intake.provenance)."""
        return self.provenance is not None and self.provenance.authenticated

    def language(self, address: str | None = None, game: Game | None = None) -> str:
        """The language `address` (None: whoever the lines are answered to now) reads the judge
        in, about `game` (None: the game signed on to; a request may name another) (gm.view.languages):
        that of its answers and of the words its orders are read in first."""
        address = (address or self.line_owner or self.message.sender).lower()
        game = game if game is not None else self.game
        key = (address, game.id if game is not None else None)
        if key not in self._languages:
            self._languages[key] = language_of(self.session, address, game)
        return self._languages[key]

    def forget_language(self, address: str) -> None:
        self._languages = {k: v for k, v in self._languages.items() if k[0] != address.lower()}

    def phase(self) -> CurrentPhase | None:
        """The current phase of the signed-on game."""
        return None if self.game is None else self.lookups.phase(self.game)

    def sign_on(self, player: Player, game: Game) -> None:
        """The lines after this act for `player`; the acknowledgement goes to its address."""
        self.player, self.master, self.game = player, None, game
        if player not in self.signed:
            self.signed.append(player)

    def sign_on_master(self, master: Master, game: Game) -> None:
        """The lines after this are the GM's of `game`; the acknowledgement goes to their address."""
        self.player, self.master, self.game = None, master, game
        if master not in self.masters_signed:
            self.masters_signed.append(master)

    @property
    def actor(self) -> str:
        """Who acts, for the audit log: the GM signed on, else the sender."""
        return self.master.email if self.master is not None else self.message.sender

    def is_master(self, shown: str) -> bool:
        """True when the mail has signed on as the game's GM; else the line is rejected saying so."""
        if self.master is None or self.game is None:
            self.reject(shown, MASTERS_ONLY)
            return False
        return True

    def audit(self, action: str, detail: dict[str, Any] | None = None) -> None:
        """Record what the line did in the game's audit log, with who did it and the mail it came in."""
        self.session.add(AuditEntry(game_id=self.game.id if self.game is not None else None, actor=self.actor,
                                    action=action, detail=detail, inbound_id=self.record_mail()))
        self.changed = True

    def in_block(self, line: str) -> bool:
        """Whether `line` is the text of an open block (PRESS ... ENDPRESS), given to it: no command."""
        if self.block is None:
            return False
        if not self.block.take(self, line):
            self.block = None
        return True

    def close_block(self) -> None:
        """At the end of the mail: a block still open never got its closing line."""
        if self.block is not None:
            self.block.unclosed(self)
            self.block = None

    def refuse_sign_on(self, shown: str, reason: str) -> None:
        self.reject(shown, reason)
        self.sign_on_problems.append(reason)

    def signed_on(self, shown: str) -> bool:
        """True when the mail has signed on to a game; else the line is rejected saying so."""
        if self.player is None or self.game is None:
            self.reject(shown, SIGN_ON_FIRST)
            return False
        return True

    def new_password_hash(self, shown: str, password: str, *, sign_on: bool = False) -> str | None:
        """The hash to store for a new password; None (the line rejected, as a failed sign-on when
        `sign_on`: a JOIN's, a CREATE's) when the mail or the sender has set too many."""
        why = new_password_refused(self.session, self.message.sender, self.new_passwords)
        if why is not None:
            (self.refuse_sign_on if sign_on else self.reject)(shown, why)
            return None
        self.new_passwords += 1
        return self.prehashed.get(password) or hash_password(password)

    def notify(self, to: str, subject: str, text: str, kind: str = "notice") -> None:
        """Mail a short text to a registered address, besides the acknowledgement."""
        self.notices.append((to, subject, text, kind))

    def attach(self, attachment: dict[str, str]) -> None:
        """A file for the answer, at the address of the power or GM signed on as only (see add_section)."""
        self.attachments.append(attachment)
        self.attachment_owners.append(self.line_owner)

    def attachments_for(self, reader: str) -> list[dict[str, str]]:
        return [a for a, owner in zip(self.attachments, self.attachment_owners, strict=True) if owner in (None, reader)]

    def add_section(self, title: str, text: str) -> None:
        """A section for the answer (LIST, HELP, SUMMARY...): for every address it goes to, or,
        after a sign-on, for the address of the power or GM signed on as only (see LineResult.owner)."""
        if self.line_owner is None:
            self.sections.append((title, text))
        else:
            self.private_sections.append((self.line_owner, title, text))

    def accept(self, text: str, detail: str) -> None:
        self.results.append(LineResult(text, True, detail, self.line_owner))

    def reject(self, text: str, reason: str) -> None:
        self.results.append(LineResult(text, False, reason, self.line_owner))


class Block:
    """Lines a command takes as text after its own line, up to a closing line (PRESS ... ENDPRESS)."""

    ACTS_FOR_A_POWER = False  # the GM acting as a power (BECOME): its orders are not its player's

    def take(self, ctx: Context, line: str) -> bool:
        """Take one line; False once the block is closed (the closing line is not text)."""
        raise NotImplementedError

    def unclosed(self, ctx: Context) -> None:
        """The mail ended before the closing line."""
        raise NotImplementedError
