"""Youngstown, imported from DPjudge's youngstown.map and shipped (maps/youngstown/): found by name
as an imported variant is, its data exactly what `gm variant import` writes from the map's files,
a phase adjudicated on it and ten years played, and its board drawn (tests/maps/test_art.py holds
the art to the rules, as for every variant)."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from gm.cli.variant import FilesBeside
from gm.engine.adjudicator import adjudicate
from gm.engine.model import PhaseKind
from gm.engine.parse import parse_order
from gm.engine.results import Result
from gm.maps.art import has_art
from gm.randomgame import play_random_game
from gm.variants import REGISTRY, SHIPPED, imported_variants, load_variant, maps_dir
from gm.variants.importing.dpjudge import read_dpjudge
from gm.variants.importing.write import variant_toml

REFERENCE = Path(__file__).resolve().parents[3] / "shared" / "reference" / "dpjudge" / "maps"


def test_the_registry_finds_youngstown_by_its_rules_key() -> None:
    assert "youngstown" not in SHIPPED
    assert imported_variants(maps_dir()) == {"youngstown": ("youngstown", "gm.variants.standard")}
    assert REGISTRY["youngstown"] == ("youngstown", "gm.variants.standard")
    assert list(REGISTRY)[:len(SHIPPED)] == list(SHIPPED)  # the shipped six first, as they were
    variant = load_variant("Youngstown")
    assert variant.great_powers == ["Austria", "China", "England", "France", "Germany", "India", "Italy", "Japan",
                                    "Russia", "Turkey"]
    assert (len(variant.map.provinces), variant.victory_centres, str(variant.first_phase)) == (184, 37, "Spring 1901, Movement")
    assert has_art("youngstown")


def test_its_data_is_what_the_import_writes_from_the_map() -> None:
    if not REFERENCE.is_dir():
        pytest.skip(f"no DPjudge reference maps at {REFERENCE}")
    written = (maps_dir() / "youngstown" / "variant.toml").read_text()
    assert written == variant_toml(read_dpjudge("youngstown.map", FilesBeside(REFERENCE)))


def test_a_phase_adjudicated_on_youngstown() -> None:
    variant = load_variant("youngstown")
    state = variant.initial_state()
    lines = [("Japan", "F Tokyo - North Pacific Ocean"), ("Japan", "F Kyoto - Sea of Japan"),
             ("Russia", "F Vla - Sea of Japan"), ("China", "A Pek - Man"), ("Russia", "A Oms - Sib"),
             ("England", "F Joharra - Malay Sea"), ("France", "F Saigon S F Joh - Mal"),
             ("India", "A Del - Kas"), ("Turkey", "A Bag - Ira")]
    orders = [parse_order(variant, text, power, PhaseKind.MOVEMENT, state) for power, text in lines]
    assert [o.error for o in orders] == [None] * len(lines)
    results = {str(r.order): r.result for r in adjudicate(variant, state, [o.order for o in orders]).results}
    assert results == {
        "F TOK - NPO": Result.SUCCEEDS, "F KYO - JAP": Result.FAILS, "F VLA - JAP": Result.FAILS,
        "A PEK - MAN": Result.SUCCEEDS, "A OMS - SIB": Result.SUCCEEDS, "F JOH - MAL": Result.SUCCEEDS,
        "F SAI S F JOH - MAL": Result.VOID, "A DEL - KAS": Result.SUCCEEDS, "A BAG - IRA": Result.SUCCEEDS,
    }


def test_ten_years_of_youngstown() -> None:
    variant = load_variant("youngstown")
    phases = list(play_random_game(variant, "youngstown", 10, stop_at_winner=False))
    assert phases[-1][0].phase.year == 1910
    assert tomllib.loads((maps_dir() / "youngstown" / "variant.toml").read_text())["rules"] == "standard"
