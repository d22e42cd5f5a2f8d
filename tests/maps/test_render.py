"""Drawing positions with orders: what each pixel says (palette indices of the board art), not how
it looks; the sample pictures in docs/ are for looking."""
from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

from gm.casefile import parse_cases, run_case
from gm.engine.model import UnitType
from gm.engine.orders import Build, Convoy, Disband, Hold, Move, Retreat, SupportHold, SupportMove, waive
from gm.maps import art, render
from gm.maps.art import load_art
from gm.variants import load_variant

CASE = """
VARIANT_ALL Standard
CASE crowded
PRESTATE_SETPHASE Fall 1901, Movement
PRESTATE
England: F NTH
England: A YOR
France: A BUR
France: A MAR
Germany: A MUN
Germany: A RUH
Russia: F STP/SC
Italy: A PIE
ORDERS
England: F NTH C A YOR - BEL
England: A YOR - BEL
France: A BUR - MUN
France: A MAR S A BUR - MUN
Germany: A MUN H
Germany: A RUH S A MUN
Russia: F STP/SC - BOT
Italy: A PIE - MAR
END
"""


def picture(png: bytes) -> tuple[np.ndarray, list[tuple[int, int, int]]]:
    im = Image.open(io.BytesIO(png))
    assert im.mode == "P" and im.format == "PNG"
    pal = im.getpalette()
    return np.array(im), [tuple(pal[3 * i:3 * i + 3]) for i in range(len(pal) // 3)]


def run_of(text: str = CASE):
    return run_case(parse_cases(text)[0])


def test_orders_are_read_as_the_engine_writes_them() -> None:
    A, F = UnitType.ARMY, UnitType.FLEET
    cases = {
        Hold("France", A, "PAR"): ("hold", "PAR", "", ""),
        Move("France", F, "SPA/NC", "MAO"): ("move", "SPA/NC", "", "MAO"),
        Move("England", A, "LON", "NWY", via_convoy=True): ("move", "LON", "", "NWY"),
        SupportHold("France", A, "BUR", "PAR", A): ("support", "BUR", "PAR", ""),
        SupportMove("France", A, "BUR", "PAR", "PIC"): ("support", "BUR", "PAR", "PIC"),
        Convoy("England", F, "NTH", "LON", "NWY"): ("convoy", "NTH", "LON", "NWY"),
        Retreat("Russia", F, "STP/NC", "BAR"): ("retreat", "STP/NC", "", "BAR"),
        Disband("Russia", A, "WAR"): ("disband", "WAR", "", ""),
        Build("Russia", F, "STP/SC"): ("build", "STP/SC", "", ""),
    }
    for order, (kind, unit, target, dest) in cases.items():
        drawn = render.drawn_order(order.power, str(order), "fails")
        assert drawn is not None, str(order)
        assert (drawn.kind, drawn.unit, drawn.target, drawn.dest, drawn.ok) == (kind, unit, target, dest, False), str(order)
    assert render.drawn_order("Russia", str(waive("Russia"))) is None
    assert render.drawn_order("France", "DP 2 A TUS - ROM", "succeeds") is None  # never drawn: secret


def test_owned_spaces_take_their_owners_tint_and_units_their_ink() -> None:
    variant = load_variant("standard")
    state = variant.initial_state()
    ids, pal = picture(render.render(variant, render.position_scene(variant, state, "g1")))
    board = np.array(load_art("standard").board)
    spaces = load_art("standard").spaces
    colours = render.power_colours(variant)
    for centre, power in state.supply_centres.items():
        i = spaces[centre]["id"]
        assert pal[i] == render.tint(colours[power]), centre
        assert render._luma(pal[i]) >= render.MIN_TINT_LUMA  # black labels stay readable on it
        assert (ids == i).sum() > 0.5 * (board == i).sum()  # most of it shows
    assert pal[spaces["BUR"]["id"]] == render._rgb(art.LAND)  # nobody's
    inks = {tuple(pal[v]): v for v in range(render.POWER_INK, art.BAND)}
    for unit in state.units.values():
        ink = inks[render._rgb(colours[unit.power])]
        x, y = load_art("standard").point(unit.location)
        icon = ids[round(y) - 9:round(y) + 10, round(x) - 12:round(x) + 13]
        assert (icon == ink).sum() >= 40, f"{unit} not drawn at its place"


def test_failed_orders_look_different_from_those_that_succeeded() -> None:
    run = run_of()
    variant = run.variant
    scene = render.run_scene(run)
    results = {(o.power, o.kind, o.unit): o.ok for o in scene.orders}
    assert results[("France", "move", "BUR")] is False and results[("England", "move", "YOR")] is True
    ids, _ = picture(render.render(variant, scene))
    assert (ids == render.FAILED).sum() > 30  # the dashed edge of the failed moves
    every_ok = render.Scene(scene.title, scene.units, scene.centres,
                            [render.DrawnOrder(o.power, o.kind, o.unit, o.unit_type, o.target, o.dest, True)
                             for o in scene.orders])
    ids_ok, _ = picture(render.render(variant, every_ok))
    assert (ids_ok == render.FAILED).sum() == 0


def test_a_dislodged_unit_is_offset_ringed_and_shows_where_it_may_retreat() -> None:
    run = run_of("""
VARIANT_ALL Standard
CASE dislodged
PRESTATE
France: A BUR
France: A RUH
Germany: A MUN
ORDERS
France: A BUR - MUN
France: A RUH S A BUR - MUN
Germany: A MUN H
END
""")
    assert "MUN" in run.adjudication.dislodged
    scene = render.run_scene(run)
    (unit, options), = scene.dislodged
    assert unit.location == "MUN" and options
    ids, _ = picture(render.render(run.variant, scene))
    x, y = load_art("standard").point("MUN")
    dx, dy = load_art("standard").layout["dislodged_offset"]
    ring = ids[round(y + dy) - 13:round(y + dy) + 14, round(x + dx) - 15:round(x + dx) + 16]
    assert (ring == render.DISLODGED).sum() > 40
    assert (ids == render.RETREAT).sum() > 20 * len(options)


def test_the_colour_blind_palette_gives_each_power_its_own_colour() -> None:
    for name in ("standard", "classical", "ambition", "napoleonic"):
        variant = load_variant(name)
        colours = render.power_colours(variant, "colourblind")
        majors = [colours[p] for p in variant.great_powers]
        assert len(set(majors)) == len(majors)
        assert colours != render.power_colours(variant, "rulebook")
    with pytest.raises(ValueError, match="unknown map palette"):
        render.power_colours(load_variant("standard"), "sepia")


@pytest.mark.parametrize("name", ["standard", "classical", "ambition", "ambition-v6", "napoleonic"])
def test_every_variant_draws_its_opening_small_and_the_same_each_time(name: str) -> None:
    variant = load_variant(name)
    scene = render.position_scene(variant, variant.initial_state(), "g1")
    png = render.render(variant, scene)
    assert png == render.render(variant, scene)
    im = Image.open(io.BytesIO(png))
    assert im.size == (load_art(name).layout["width"], load_art(name).layout["height"]) and len(png) < 150_000
    # the legend counts every great power's centres
    assert len(variant.great_powers) <= (render.MAX_INKS)


def test_a_minor_power_made_in_play_takes_the_minor_powers_colour() -> None:
    # A&E: a great power in civil disorder leaves its centres to new minor powers named after them
    from pathlib import Path

    from gm.casefile import read_cases

    cases = read_cases(Path(__file__).parents[1] / "variants" / "ambition" / "cases" / "ae2006_civil_disorder.txt")
    (case,) = [c for c in cases if c.id == "ae2006.cd.4"]
    run = run_case(case)
    scene = render.run_scene(run)
    assert {"Paris", "Brest"} <= {u.power for u in scene.units}
    ids, pal = picture(render.render(run.variant, scene))
    minor = render._rgb(render.power_colours(run.variant)["Sardinia"])
    x, y = load_art("ambition").point("BRE")
    icon = ids[round(y) - 9:round(y) + 10, round(x) - 12:round(x) + 13]
    assert any(pal[v] == minor for v in np.unique(icon))
