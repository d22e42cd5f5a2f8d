"""The end of each phase: deadlines, early ends, WAIT, grace, lateness and civil disorder, phases
with nothing to decide, reminders and the end of the game; on SQLite and PostgreSQL."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from gm.engine.model import Phase, PhaseKind, Season, Unit, UnitType
from gm.engine.parse import parse_order
from gm.games import OnFile, create_game, current_phase, variant_of
from gm.lifecycle import phases
from gm.lifecycle.house_rules import OPTION_KEY, HouseRules, with_changes
from gm.store.db import state_to_json, transaction
from gm.store.models import Game, GamePhase, GameStatus, OrderRecord, Player, SecretAllocation
from gm.variants import load_variant

T0 = datetime(2026, 11, 25, 10, 0, tzinfo=UTC)
STANDARD = ["Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey"]


def new_game(s: Session, variant: str = "standard", powers: list[str] | None = None, **rules: str) -> Game:
    game = create_game(s, "g1", variant)
    game.options = {OPTION_KEY: with_changes(HouseRules(), rules).to_options()}
    for power in powers if powers is not None else variant_of(game).great_powers:
        s.add(Player(game_id=game.id, power=power, email=f"{power.lower()}@example.org", password_hash="x"))
    s.flush()
    phases.start(s, game, T0)
    return game


def order(s: Session, game: Game, power: str, *lines: str, at: datetime = T0) -> None:
    """Store orders as ingest would (current rows, the canonical text)."""
    current = current_phase(s, game)
    assert current is not None
    variant = variant_of(game)
    player = s.scalar(select(Player).where(Player.game_id == game.id, Player.power == power))
    assert player is not None
    for line in lines:
        parsed = parse_order(variant, line, power, current.state.phase.kind, current.state)
        assert parsed.order is not None, parsed.error
        table = SecretAllocation if parsed.order.__class__.__name__ == "Allocation" else OrderRecord
        extra = {"points": parsed.order.points} if table is SecretAllocation else {}  # type: ignore[attr-defined]
        s.add(table(game_id=game.id, phase_id=current.row.id, player_id=player.id, power=power, text=line,
                    canonical=str(parsed.order), unit=parsed.order.province, received_at=at, **extra))
    s.flush()


def label(s: Session, game: Game) -> str:
    current = current_phase(s, game)
    return current.row.label if current else "-"


def test_a_game_starts_with_a_deadline_and_a_reminder_before_it(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        game = new_game(s, movement="2d", remind_before="12h")
        assert game.status == GameStatus.ACTIVE
        assert game.deadline_at == T0 + timedelta(days=2)
        assert game.next_check_at == T0 + timedelta(days=2) - timedelta(hours=12)
        row = current_phase(s, game)
        assert row is not None and row.row.deadline_at == game.deadline_at and row.row.label == "Spring 1901, Movement"


def test_before_anything_is_due_nothing_happens(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        game = new_game(s)
        progress = phases.check(s, game, T0 + timedelta(hours=1))
        assert progress.ended == [] and progress.reminders == {}
        assert label(s, game) == "Spring 1901, Movement"


def test_reminders_name_each_late_powers_units_without_orders(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        game = new_game(s, movement="2d", remind_before="1d")
        order(s, game, "France", "A PAR - BUR", "A MAR S A PAR - BUR", "F BRE - MAO")
        order(s, game, "England", "F LON - NTH")
        progress = phases.check(s, game, T0 + timedelta(days=1, minutes=1))
        assert "France" not in progress.reminders
        assert progress.reminders["England"] == ["A LVP", "F EDI"]
        assert progress.reminders["Russia"] == ["A MOS", "A WAR", "F SEV", "F STP/SC"]
        assert progress.ended == []
        # Once only.
        assert phases.check(s, game, T0 + timedelta(days=1, minutes=2)).reminders == {}
        assert game.next_check_at == game.deadline_at


def test_at_the_deadline_missing_orders_take_the_defaults_and_the_power_is_late(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        game = new_game(s)
        order(s, game, "France", "A PAR - BUR")
        progress = phases.check(s, game, game.deadline_at)
        (ended,) = progress.ended
        report = ended.report
        assert report["phase"] == "Spring 1901, Movement"
        assert {"power": "France", "order": "A PAR - BUR", "result": "succeeds", "reason": ""} in report["orders"]
        assert {"power": "France", "order": "F BRE H", "result": "succeeds", "reason": "", "default": True} in report["orders"]
        assert sorted(report["late"]) == STANDARD  # France too: it did not order every unit
        assert report["next"]["phase"] == "Fall 1901, Movement"
        assert label(s, game) == "Fall 1901, Movement"
        fall = current_phase(s, game)
        assert fall is not None and fall.state.units["BUR"].power == "France"
        streaks = {p.power: p.late_streak for p in s.scalars(select(Player).where(Player.game_id == game.id))}
        assert streaks["France"] == 1


def test_a_phase_ends_early_once_every_power_has_all_its_orders_in(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        game = new_game(s, powers=["France", "England"])  # the other five have no player: not awaited
        order(s, game, "France", "A PAR H", "A MAR H", "F BRE H")
        assert phases.check(s, game, T0 + timedelta(minutes=5)).ended == []
        order(s, game, "England", "F LON H", "F EDI H", "A LVP H")
        s.scalars(select(Player).where(Player.power == "England")).one().waiting = True
        assert phases.check(s, game, T0 + timedelta(minutes=6)).ended == []  # England asked to wait
        s.scalars(select(Player).where(Player.power == "England")).one().waiting = False
        (ended,) = phases.check(s, game, T0 + timedelta(minutes=7)).ended
        assert ended.report["late"] == []
        assert ended.row.adjudicated_at == T0 + timedelta(minutes=7)
        assert label(s, game) == "Fall 1901, Movement"


def test_orders_in_during_grace_are_used_and_marked_late(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        game = new_game(s, powers=["France"], grace="6h", movement="1d")
        deadline = game.deadline_at
        assert phases.check(s, game, deadline).ended == []  # France is missing: grace runs
        assert game.next_check_at == deadline + timedelta(hours=6)
        order(s, game, "France", "A PAR - BUR", "A MAR H", "F BRE H", at=deadline + timedelta(hours=1))
        (ended,) = phases.check(s, game, deadline + timedelta(hours=1)).ended  # complete: no need to wait
        assert ended.report["late"] == ["France"]
        assert {"power": "France", "order": "A PAR - BUR", "result": "succeeds", "reason": ""} in ended.report["orders"]


def test_nmr_policy_wait_holds_the_phase_until_the_orders_come(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        game = new_game(s, powers=["France"], nmr="wait", movement="1d")
        late = game.deadline_at + timedelta(days=3)
        progress = phases.check(s, game, late)
        assert progress.ended == [] and progress.reminders == {"France": ["A MAR", "A PAR", "F BRE"]}
        assert game.next_check_at == late + timedelta(hours=1)


def test_a_power_late_too_often_falls_into_civil_disorder_and_is_awaited_no_more(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        game = new_game(s, powers=["France", "England"], late_limit="2")
        for _ in range(2):
            order(s, game, "England", *[f"{u} H" for u in ("F LON", "F EDI", "A LVP")])
            ended = phases.check(s, game, game.deadline_at).ended
        assert ended[-1].report["civil_disorder"] == ["France"]
        france = s.scalars(select(Player).where(Player.power == "France")).one()
        assert france.civil_disorder and france.late_streak == 2
        # Spring 1902: England's orders alone end the phase early now.
        while label(s, game) != "Spring 1902, Movement":
            phases.check(s, game, game.deadline_at)
        order(s, game, "England", *[f"{u} H" for u in ("F LON", "F EDI", "A LVP")])
        (ended,) = phases.check(s, game, game.deadline_at - timedelta(hours=1)).ended
        assert ended.report["returned"] == []
        # France's player orders again: France is back, and awaited again.
        order(s, game, "France", "A PAR H")
        (ended,) = phases.check(s, game, game.deadline_at).ended
        assert ended.report["returned"] == ["France"] and ended.report["late"] == ["England"]
        assert not france.civil_disorder and france.late_streak == 0
        order(s, game, "England", *[f"{u} H" for u in ("F LON", "F EDI", "A LVP")])
        assert phases.check(s, game, game.deadline_at - timedelta(hours=1)).ended == []  # France is awaited


def test_ambition_civil_disorder_disbands_the_powers_units(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        game = new_game(s, "ambition", late_limit="1")
        variant = variant_of(game)
        others = [p for p in variant.great_powers if p != "Spain"]
        current = current_phase(s, game)
        assert current is not None
        for power in others:
            order(s, game, power, *[f"{u} H" for u in current.state.units_of(power)])
        (ended,) = phases.check(s, game, game.deadline_at).ended
        assert ended.report["late"] == ["Spain"] and ended.report["civil_disorder"] == ["Spain"]
        after = current_phase(s, game)
        assert after is not None and after.state.units_of("Spain") == []
        # Permanent in this variant: an order from Spain's player (for no unit) does not bring it back.
        order(s, game, "Austria", *[f"{u} H" for u in after.state.units_of("Austria")])
        spain = s.scalars(select(Player).where(Player.power == "Spain")).one()
        assert spain.civil_disorder
        assert variant.rules.permanent_civil_disorder(variant, after.state, "Spain")
        assert not variant.rules.permanent_civil_disorder(variant, after.state, "France")


def test_a_retreat_phase_nobody_has_to_decide_is_resolved_at_once(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        # Only Austria has a player; it dislodges Italy's army in Venice, which no one plays.
        game = new_game(s, powers=["Austria"])
        current = current_phase(s, game)
        assert current is not None
        variant = load_variant("standard")
        state = current.state
        units = dict(state.units)
        units["TYR"] = Unit("Austria", UnitType.ARMY, "TYR")
        del units["VIE"]
        current.row.state_json = state_to_json(state.with_(units=units))
        s.flush()
        order(s, game, "Austria", "A TYR - VEN", "A BUD S A TYR - VEN", "F TRI S A TYR - VEN")
        ended = phases.check(s, game, game.deadline_at).ended
        # Budapest cannot support into Venice: only Trieste does; 2 against 1: Venice is dislodged.
        assert [e.report["phase"] for e in ended] == ["Spring 1901, Movement", "Spring 1901, Retreat"]
        assert ended[1].report["skipped"] is True
        assert ended[0].report["dislodged"][0]["unit"] == "A VEN"
        assert label(s, game) == "Fall 1901, Movement"
        assert variant.title in ended[0].report["variant"]


def test_a_winner_ends_the_game(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        game = new_game(s, powers=["France"])
        current = current_phase(s, game)
        assert current is not None
        units = {p: u for p, u in current.state.units.items() if p not in ("MOS", "SEV", "ANK")}
        # France owns every centre but those other powers' units stand on: 18 of 34.
        centres = {p: units[p].power if p in units else "France"
                   for p, prov in load_variant("standard").map.provinces.items() if prov.supply_centre}
        assert sum(1 for o in centres.values() if o == "France") == 18
        fall = Phase(1901, Season.FALL, PhaseKind.MOVEMENT)
        current.row.state_json = state_to_json(current.state.with_(phase=fall, units=units, supply_centres=centres))
        s.flush()
        order(s, game, "France", "A PAR - BUR")
        (ended,) = phases.check(s, game, game.deadline_at).ended
        assert ended.report["winner"] == "France" and ended.report["ended"] == "won by France"
        assert game.status == GameStatus.FINISHED and game.next_check_at is None
        assert current_phase(s, game) is None
        assert phases.check(s, game, game.finished_at + timedelta(days=1)).ended == []  # type: ignore[operator]


def test_secret_allocations_are_kept_apart_from_the_public_orders(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        game = new_game(s, "ambition")
        current = current_phase(s, game)
        assert current is not None
        minor = next(u for u in current.state.units.values() if u.power == "Bavaria")
        order(s, game, "Austria", f"DP 2 {minor.type.value} {minor.location} H")
        (ended,) = phases.check(s, game, game.deadline_at).ended
        report = ended.report
        assert report["secret"] == [{"power": "Austria", "order": f"DP 2 {minor} H", "result": "succeeds", "reason": ""}]
        assert not any(e["order"].startswith("DP") for e in report["orders"])
        assert phases.history(s, game)[0].results_json["secret"] == report["secret"]  # type: ignore[index]
        assert isinstance(s.get(GamePhase, ended.row.id), GamePhase)


def test_a_home_declaration_the_rules_ask_for_is_awaited_and_reminded(session_factory: sessionmaker[Session]) -> None:
    """Ambition & Empire: a power that took two centres together declares which becomes its third
    home in the winter; the phase waits for it as for a build, and the reminder names the choice."""
    from gm.randomgame import play_random_game

    variant = load_variant("ambition")
    winter = next(state for state, _, _ in play_random_game(variant, 3, 1)
                  if state.phase.kind is PhaseKind.ADJUSTMENT)
    assert winter.extra["home_choice"] == {"Poland-Saxony": ("HEW", "KEV")}
    with transaction(session_factory) as s:
        game = new_game(s, "ambition", powers=["Poland-Saxony"])
        current = current_phase(s, game)
        assert current is not None
        current.row.state_json = state_to_json(winter)
        current.row.label = variant.phase_label(winter.phase)
        s.flush()
        owes = phases.owed(variant, winter)["Poland-Saxony"]
        assert variant.rules.winter_choices(variant, winter) == {"Poland-Saxony": "a HOME declaration: Hesse-Westphalia or Kiev"}
        progress = phases.check(s, game, game.deadline_at - timedelta(hours=1))  # the reminder's time
        assert progress.reminders["Poland-Saxony"][-1] == "a HOME declaration: Hesse-Westphalia or Kiev"
        order(s, game, "Poland-Saxony", "HOME Kiev")
        left = phases.missing(variant, winter, "Poland-Saxony", [OnFile("KEV", "HOME KEV", 0)])
        assert "a HOME declaration: Hesse-Westphalia or Kiev" not in left and len(left) == (owes > 1)


def test_orders_complete_at_the_deadline_and_changed_in_grace_are_not_late(session_factory: sessionmaker[Session]) -> None:
    with transaction(session_factory) as s:
        game = new_game(s, powers=["France", "England"], grace="6h", movement="1d")
        deadline = game.deadline_at
        order(s, game, "France", "A PAR H", "A MAR H", "F BRE H", at=deadline - timedelta(hours=1))
        assert phases.check(s, game, deadline).ended == []  # England is missing: grace runs
        # France changes its mind during grace: its earlier order is replaced, as ingest does it.
        old = s.scalars(select(OrderRecord).where(OrderRecord.power == "France", OrderRecord.unit == "PAR")).one()
        old.current = False
        order(s, game, "France", "A PAR - BUR", at=deadline + timedelta(hours=1))
        order(s, game, "England", "F LON H", "F EDI H", "A LVP H", at=deadline + timedelta(hours=2))
        (ended,) = phases.check(s, game, deadline + timedelta(hours=2)).ended
        assert ended.report["late"] == ["England"]  # France had every order in by the deadline
        assert {"power": "France", "order": "A PAR - BUR", "result": "succeeds", "reason": ""} in ended.report["orders"]


def test_a_promotion_moves_the_player_to_the_new_major_power(session_factory: sessionmaker[Session]) -> None:
    """Napoleonic Wars, rule 12: France's player makes Spain, with four centres, its major power;
    from the next phase the player plays Spain, and France is a minor power Spain controls."""
    with transaction(session_factory) as s:
        game = new_game(s, "napoleonic")
        current = current_phase(s, game)
        assert current is not None
        variant = variant_of(game)
        rules = variant.rules
        spring = Phase(1801, Season.SPRING, PhaseKind.MOVEMENT)
        state = rules.with_control(variant, current.state.with_(phase=spring), {"Spain": ("France", 1)})
        state = state.with_(supply_centres={**state.supply_centres, "POR": "Spain", "MOR": "Spain"})
        current.row.state_json = state_to_json(state)
        s.flush()
        order(s, game, "France", "PROMOTE Spain", "A MAD - AND")
        (ended, *_) = phases.end_phase(s, game, T0 + timedelta(hours=1))
        assert "France makes Spain its major power (rule 12)" in " ".join(ended.report["notes"])
        player = s.scalars(select(Player).where(Player.email == "france@example.org")).one()
        assert player.power == "Spain"
        after = current_phase(s, game)
        assert after is not None
        assert rules.major_powers(variant, after.state) == ["Austria", "England", "Spain", "Prussia", "Russia"]
        assert rules.controllers(variant, after.state)["France"] == "Spain"
        assert after.state.home_centres["Spain"] == {"MAD", "VAL", "MOR", "POR"}
        # The player now orders Spain's units and France's, as the controller of a minor power.
        assert phases.owed(variant, after.state)["Spain"] == len(after.state.units_of("Spain")) + len(after.state.units_of("France"))
        assert "France" not in phases.owed(variant, after.state)


def test_a_game_ends_in_the_year_the_gm_fixed_with_the_rules_winner(session_factory: sessionmaker[Session]) -> None:
    """1700AD II, rule 11: the GM may end the game in 1713 or 1721, "when the winner will be the
    player with the greatest number of additional centres"."""
    with transaction(session_factory) as s:
        game = new_game(s, "1700ad", powers=["Swedish"], last_year="1713")
        current = current_phase(s, game)
        assert current is not None and current.row.label == "Year 1700"
        year_1713 = Phase(1713, Season.SPRING, PhaseKind.MOVEMENT)
        # Sweden gains Denmark: one centre more than its home centres; the Turks have more
        # centres (six) but none beyond their own.
        centres = {**current.state.supply_centres, "DEN": "Swedish"}
        current.row.state_json = state_to_json(current.state.with_(phase=year_1713, supply_centres=centres))
        s.flush()
        (ended,) = phases.check(s, game, game.deadline_at).ended
        assert ended.report["winner"] == "Swedish"
        assert game.status == GameStatus.FINISHED and game.outcome == "won by Swedish, ahead when the game ended in 1713"


def test_the_gm_ends_1700ad_only_in_the_years_of_rule_11() -> None:
    v = load_variant("1700ad")
    assert v.rules.end_years(v) == (1713, 1721) and load_variant("standard").rules.end_years(v) == ()
