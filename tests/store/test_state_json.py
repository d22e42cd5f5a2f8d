"""Positions as JSON: state_to_json and state_from_json give back every field of a GameState."""
from __future__ import annotations

import json

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session, sessionmaker

from gm.engine.adjudicator import adjudicate
from gm.engine.model import GameState, Phase, PhaseKind, Season, Unit, UnitType
from gm.engine.orders import Move, SupportMove
from gm.store.db import state_from_json, state_to_json, transaction
from gm.store.models import Game, GamePhase
from gm.variants import REGISTRY, load_variant

A = UnitType.ARMY


def through_json(state: GameState) -> GameState:
    """To JSON, to text and back, as a stored row does."""
    data = state_to_json(state)
    return state_from_json(json.loads(json.dumps(data)))


def retreat_position() -> GameState:
    """Spring 1901 after a French army in Burgundy was dislodged, with a bounce in Venice."""
    std = load_variant("standard")
    units = [Unit("France", A, "BUR"), Unit("Germany", A, "MUN"), Unit("Germany", A, "RUH"),
             Unit("Italy", A, "PIE"), Unit("Austria", A, "TYR")]  # fmt: skip
    state = std.initial_state().with_(units={u.province: u for u in units})
    orders = [
        Move("Germany", A, "MUN", "BUR"),
        SupportMove("Germany", A, "RUH", "MUN", "BUR"),
        Move("Italy", A, "PIE", "VEN"),
        Move("Austria", A, "TYR", "VEN"),
    ]
    return adjudicate(std, state, orders).state


def ambition_in_disorder() -> GameState:
    """A&E with a power in civil disorder: tuples and nested dicts in `extra`."""
    ae = load_variant("ambition")
    power = ae.great_powers[0]
    state = ae.rules.declare_civil_disorder(ae, ae.initial_state(), power)
    extra = dict(state.extra)
    extra["home_choice"] = {"Prussia": ("HOL", "DEN")}
    return state.with_(extra=extra)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_initial_positions_round_trip(name: str) -> None:
    state = load_variant(name).initial_state()
    assert through_json(state) == state


def test_retreat_position_round_trips() -> None:
    state = retreat_position()
    assert state.phase == Phase(1901, Season.SPRING, PhaseKind.RETREAT)
    assert state.dislodged and state.contested  # what this test is for
    back = through_json(state)
    assert back == state
    assert back.dislodged["BUR"].retreats == state.dislodged["BUR"].retreats
    assert isinstance(back.dislodged["BUR"].retreats, tuple)


def test_variant_facts_in_extra_round_trip() -> None:
    state = ambition_in_disorder()
    assert state.extra["civil_disorder"] and state.extra["independents"]
    back = through_json(state)
    assert back == state
    assert isinstance(back.extra["civil_disorder"], tuple)
    assert back.extra["home_choice"] == {"Prussia": ("HOL", "DEN")}


@pytest.mark.parametrize(
    "value",
    [
        None, True, 0, -3, 1.5, "text", [], (), [1, (2, "b")], ("a", ("b",), ["c"]),
        frozenset({"X", "Y"}), {"a": {"b": (1, 2)}}, {"$tuple": [1]}, {"$dict": 1, "x": (1,)}, {"": None},
    ],
)  # fmt: skip
def test_extra_values_round_trip(value: object) -> None:
    state = load_variant("standard").initial_state().with_(extra={"k": value})
    back = through_json(state)
    assert back.extra == {"k": value}
    assert type(back.extra["k"]) is type(value)


@pytest.mark.parametrize("value", [{1: "a"}, {"x"}, object(), b"bytes"])
def test_extra_values_json_cannot_hold_are_refused(value: object) -> None:
    state = load_variant("standard").initial_state().with_(extra={"k": value})
    with pytest.raises(TypeError, match="GameState.extra"):
        state_to_json(state)


def test_an_unknown_format_is_refused() -> None:
    data = state_to_json(load_variant("standard").initial_state())
    with pytest.raises(ValueError, match="format"):
        state_from_json({**data, "format": 99})


def test_positions_round_trip_through_the_database(session_factory: sessionmaker[Session]) -> None:
    positions = [load_variant("classical").initial_state(), retreat_position(), ambition_in_disorder()]
    with transaction(session_factory) as s:
        game = Game(name="g", variant="standard")
        s.add(game)
        s.flush()
        for seq, state in enumerate(positions, 1):
            s.add(GamePhase(game_id=game.id, seq=seq, label=str(state.phase), state_json=state_to_json(state)))
    with transaction(session_factory) as s:
        stored = s.scalars(select(GamePhase.state_json).order_by(GamePhase.seq)).all()
    assert [state_from_json(d) for d in stored] == positions
