"""House rules as a GM writes them, and where deadlines fall."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from gm.engine.model import PhaseKind
from gm.lifecycle.deadlines import deadline_for, fit
from gm.lifecycle.house_rules import HouseRuleError, HouseRules, parse_days, parse_duration, rules_of, show, with_changes


@pytest.mark.parametrize("text, seconds", [("48h", 172800), ("2d", 172800), ("1d12h", 129600), ("90m", 5400),
                                           ("10s", 10), ("36", 129600), ("1.5h", 5400), ("1D 2H", 93600)])
def test_durations_read(text: str, seconds: int) -> None:
    assert parse_duration(text).total_seconds() == seconds


@pytest.mark.parametrize("text", ["", "soon", "2 weeks", "-1h", "0", "400d", "h"])
def test_bad_durations_are_refused_with_the_form_to_use(text: str) -> None:
    with pytest.raises(HouseRuleError, match="movement"):
        parse_duration(text, "movement")


def test_rules_round_trip_through_the_options_a_game_stores() -> None:
    rules = with_changes(HouseRules(), {"movement": "1d12h", "days": "fri-mon", "hour": "20", "grace": "2h",
                                        "timezone": "America/New_York", "nmr": "wait", "late_limit": "2"})
    assert rules_of({"house_rules": rules.to_options()}) == rules
    assert rules.days == {4, 5, 6, 0}
    assert show(rules.movement) == "1d12h"
    text = "\n".join(rules.describe())
    assert "on mon,fri,sat,sun at" in text and "20:00 (America/New_York)" in text
    assert "waits" in text and "after 2 deadlines" in text
    assert rules.summary() == ("movement 1d12h, retreats 1d, adjustments 1d; deadlines on mon,fri,sat,sun at 20:00; "
                               "grace 2h; missing orders: the game waits; civil disorder after 2 late in a row "
                               "(America/New_York)")


@pytest.mark.parametrize("changes, words", [({"nmr": "skip"}, "nmr must be"), ({"timezone": "Mars/Olympus"}, "time zone"),
                                            ({"hour": "24"}, "0 to 23"), ({"days": "funday"}, "no day"),
                                            ({"late_limit": "-1"}, "negative"), ({"colour": "red"}, "no house rule")])
def test_bad_rules_are_refused(changes: dict[str, str], words: str) -> None:
    with pytest.raises(HouseRuleError, match=words):
        with_changes(HouseRules(), changes)


def test_days_wrap_round_the_week() -> None:
    assert parse_days("sat-mon") == {5, 6, 0}
    assert parse_days("any") == frozenset()


T = datetime(2026, 11, 26, 21, 0, tzinfo=UTC)  # a Thursday


def test_a_deadline_is_the_duration_after_the_phase_opens_when_any_time_will_do() -> None:
    assert deadline_for(T, PhaseKind.RETREAT, HouseRules()) == T + timedelta(hours=24)


def test_a_deadline_moves_to_the_next_allowed_day_and_hour_in_the_games_zone() -> None:
    rules = with_changes(HouseRules(), {"days": "mon-fri", "hour": "20", "timezone": "Europe/London", "movement": "2d"})
    # Saturday 21:00 is not a weekday: Monday 20:00 London time.
    assert deadline_for(T, PhaseKind.MOVEMENT, rules) == datetime(2026, 11, 30, 20, 0, tzinfo=UTC)
    summer = with_changes(rules, {"movement": "1h"})
    # In summer London is UTC+1: 20:00 there is 19:00 UTC.
    assert deadline_for(datetime(2026, 7, 1, 12, tzinfo=UTC), PhaseKind.MOVEMENT, summer) == datetime(2026, 7, 1, 19, tzinfo=UTC)


def test_a_deadline_that_falls_in_an_absence_moves_past_it_and_is_fitted_again() -> None:
    rules = with_changes(HouseRules(), {"hour": "12"})
    away = (datetime(2026, 11, 27, 0, tzinfo=UTC), datetime(2026, 12, 3, 0, tzinfo=UTC))
    assert fit(datetime(2026, 11, 28, 12, tzinfo=UTC), rules, [away]) == datetime(2026, 12, 3, 12, tzinfo=UTC)
    assert fit(datetime(2026, 12, 4, 12, tzinfo=UTC), rules, [away]) == datetime(2026, 12, 4, 12, tzinfo=UTC)
