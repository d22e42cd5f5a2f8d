"""Unit tests of gm/variants/ambition.py (2006 rules) and gm/variants/ambition_v6.py (version 6),
for what a case file states awkwardly: the DP entitlement, the victory tie rule, the declaration of
civil disorder, the home centres derived from a position, the minor units coming back in winter,
the Religious Rule on single orders, build sites and the other hooks.

The positions are built directly as GameState values; section numbers are those of the 2006
rulebook (shared/rules/ambition-and-empire-2006.txt).
"""
from __future__ import annotations

import pytest

from gm.engine.adjudicator import adjudicate
from gm.engine.model import GameState, Phase, PhaseKind, Season, Unit, UnitType
from gm.engine.orders import Build, Hold, Move, SupportHold, SupportMove
from gm.variants import load_variant
from gm.variants import ambition, ambition_v6

A, F = UnitType.ARMY, UnitType.FLEET


@pytest.fixture(scope="module")
def v2006():
    return load_variant("ambition")


@pytest.fixture(scope="module")
def v6():
    return load_variant("ambition-v6")


def test_rules_classes(v2006, v6):
    assert type(v2006.rules) is ambition.VariantRules
    assert type(v6.rules) is ambition_v6.VariantRules
    assert isinstance(v6.rules, ambition.VariantRules)


def position(variant, units=(), owners=None, phase=None, homes=None, extra=None) -> GameState:
    state = variant.initial_state()
    changes: dict[str, object] = {"units": {u.province: u for u in units}}
    if owners is not None:
        changes["supply_centres"] = dict(owners)
    if phase is not None:
        changes["phase"] = phase
    if homes is not None:
        changes["home_centres"] = {**state.home_centres, **{p: frozenset(h) for p, h in homes.items()}}
    if extra is not None:
        changes["extra"] = extra
    return state.with_(**changes)


def owned(**powers: str) -> dict[str, str]:
    """owned(France="PAR MAR") -> {"PAR": "France", "MAR": "France"}; power names with a dash or
    a space are written with an underscore."""
    out = {}
    for power, centres in powers.items():
        for c in centres.split():
            out[c] = power.replace("__", " ").replace("_", "-")
    return out


WINTER = Phase(1764, Season.WINTER, PhaseKind.ADJUSTMENT)
SPRING = Phase(1764, Season.SPRING, PhaseKind.MOVEMENT)
FALL = Phase(1764, Season.FALL, PhaseKind.MOVEMENT)


# ------------------------------------------------------------------------------ DP entitlement
@pytest.mark.parametrize("name", ["ambition", "ambition-v6"])
def test_dp_entitlement_at_the_start(name):
    """Section IV: one DP per centre controlled, at most three. At the start: Austria (4 centres
    with the Austrian Netherlands) and Great Britain (4) have 3; France, Prussia and Russia 3; the
    two-centre powers 2. Minor powers have none."""
    v = load_variant(name)
    assert v.rules.dp_entitlement(v, v.initial_state()) == {
        "Austria": 3, "Denmark-Norway": 2, "France": 3, "Great Britain": 3, "Poland-Saxony": 2,
        "Prussia": 3, "Russia": 3, "Spain": 2, "Sweden": 2, "Turkey": 2,
    }


def test_dp_entitlement_follows_ownership(v2006):
    state = position(v2006, owners=owned(Spain="MAD", France="PAR MAR BRE BRC SAV SWI", Venice="VEN"))
    got = v2006.rules.dp_entitlement(v2006, state)
    assert got["Spain"] == 1
    assert got["France"] == 3  # six centres, still three
    assert got["Austria"] == 0 and got["Turkey"] == 0  # nothing owned: no DPs
    assert "Venice" not in got


def test_dp_entitlement_excludes_powers_in_civil_disorder(v2006):
    state = v2006.rules.declare_civil_disorder(v2006, v2006.initial_state(), "France")
    assert "France" not in v2006.rules.dp_entitlement(v2006, state)


# ------------------------------------------------------------------------------------ victory
def _victory(variant, counts: dict[str, int]) -> str | None:
    centres = sorted(variant.map.provinces[p].abbr for p in variant.map.provinces if variant.map.provinces[p].supply_centre)
    owners = {}
    it = iter(centres)
    for power, n in counts.items():
        for _ in range(n):
            owners[next(it)] = power
    return variant.rules.winner(variant, position(variant, owners=owners))


@pytest.mark.parametrize("name", ["ambition", "ambition-v6"])
@pytest.mark.parametrize(
    "counts,expected",
    [
        ({"France": 15, "Austria": 14}, "France"),  # "As soon as one Great Power controls 15 SCs"
        ({"France": 14, "Austria": 14}, None),
        ({"France": 16, "Austria": 15}, "France"),  # both 15 or more: the one with more
        ({"France": 15, "Austria": 16}, "Austria"),
        ({"France": 15, "Austria": 15}, None),  # equal: the game continues
        ({"France": 16, "Austria": 16, "Spain": 12}, None),
        ({"France": 22, "Austria": 22}, None),
        ({"Turkey": 15, "Algiers": 1}, "Turkey"),
    ],
)
def test_winner_tie_rule(name, counts, expected):
    """Section VI (and the same words in v6)."""
    assert _victory(load_variant(name), counts) == expected


def test_minor_power_centres_never_win(v2006):
    # Minor powers are no players: a minor power "owning" 15 centres is no winner.
    assert _victory(v2006, {"Venice": 15, "France": 14}) is None


# ------------------------------------------------------------------------------ civil disorder
def test_declare_civil_disorder_2006(v2006):
    """Section VII: units disbanded; unoccupied centres become new minor powers with an ARMY (even
    Brest, where France started with a fleet); occupied ones are unaffected."""
    units = [Unit("France", A, "PAR"), Unit("France", F, "BRE"), Unit("France", A, "BUR"), Unit("Spain", A, "MAR")]
    state = v2006.rules.declare_civil_disorder(v2006, position(v2006, units), "France")
    assert state.units == {
        "PAR": Unit("Paris", A, "PAR"),
        "BRE": Unit("Brest", A, "BRE"),
        "MAR": Unit("Spain", A, "MAR"),
    }
    assert (state.supply_centres["PAR"], state.supply_centres["BRE"], state.supply_centres["MAR"]) == ("Paris", "Brest", "France")
    assert state.extra[ambition.CIVIL_DISORDER] == ("France",)
    assert state.extra[ambition.INDEPENDENTS]["Brest"] == {"home": "BRE", "unit": "A BRE", "religion": "Catholic"}
    r = v2006.rules
    assert r.is_minor(v2006, state, "Paris") and not r.is_minor(v2006, state, "France")
    assert "Paris" in r.minor_powers(v2006, state)
    assert r.in_civil_disorder(state) == ("France",)


def test_declare_civil_disorder_v6_unit_types(v6):
    """v6: "armies or fleets depending on the type of unit that was in that SC at game-start"; a
    centre where no unit started (Liverpool) gets an army."""
    units = [Unit("Great Britain", F, "LON"), Unit("Great Britain", F, "EDI")]
    state = v6.rules.declare_civil_disorder(v6, position(v6, units), "Great Britain")
    assert state.units == {
        "LON": Unit("London", F, "LON"),
        "EDI": Unit("Edinburgh", F, "EDI"),
        "LVP": Unit("Liverpool", A, "LVP"),
        "HAN": Unit("Hanover", A, "HAN"),
    }
    assert v6.rules.religion(v6, state, "London") == "Protestant"


def test_declare_civil_disorder_religion_follows_the_former_power(v6):
    """v6: "New minor powers share the religious affiliation of the former Great Power"; Turkey's
    become Islamic minor powers, so the Islamic rule applies to them."""
    state = v6.rules.declare_civil_disorder(v6, position(v6, [Unit("Russia", A, "WLA")]), "Turkey")
    assert v6.rules.religion(v6, state, "Ankara") == "Islamic"
    assert state.units["ANK"] == Unit("Ankara", A, "ANK") and state.units["CON"] == Unit("Constantinople", F, "CON")
    # Constantinople (Islamic) may not support a Christian attack on Ankara's Islamic unit...
    order = SupportMove("Constantinople", F, "CON", "WLA", "ANK")
    assert "may not support a Christian attack" in v6.rules.religious_rule(v6, state, order)


def test_declare_civil_disorder_names_and_repeats(v2006):
    state = position(v2006, [], owners=owned(Russia="MOS CRI"))
    state = v2006.rules.declare_civil_disorder(v2006, state, "Russia")
    assert state.units["CRI"].power == "Free Crimea"  # "Crimea" is a minor power's name already
    # A second declaration, or one for a minor power or an unknown name, changes nothing.
    assert v2006.rules.declare_civil_disorder(v2006, state, "Russia") is state
    assert v2006.rules.declare_civil_disorder(v2006, state, "Venice") is state
    assert v2006.rules.declare_civil_disorder(v2006, state, "Narnia") is state


def test_civil_disorder_power_gives_no_orders(v2006):
    state = v2006.rules.declare_civil_disorder(v2006, position(v2006, [Unit("Switzerland", A, "SWI")], phase=SPRING), "France")
    from gm.engine.orders import Allocation

    a = adjudicate(v2006, state, [Allocation("France", A, "SWI", 1, Hold("France", A, "SWI"))])
    assert [(r.result.value, r.reason) for r in a.results] == [("void", "France is in civil disorder")]


def test_after_fall_makes_vacated_centres_independent(v2006):
    before = v2006.rules.declare_civil_disorder(
        v2006, position(v2006, [Unit("Spain", A, "MAR"), Unit("Austria", A, "PAR")], phase=FALL), "France"
    )
    a = adjudicate(v2006, before, [Move("Spain", A, "MAR", "LAN")])
    assert a.state.supply_centres["MAR"] == "Marseilles"
    assert a.state.supply_centres["PAR"] == "Austria"
    assert Unit("Marseilles", A, "MAR") in v2006.rules.winter_units(v2006, a.state)
    assert a.state.phase.kind is PhaseKind.ADJUSTMENT


# ------------------------------------------------------------------------------ winter units
def test_winter_units(v2006):
    """Section III: a minor power whose centre is empty and still its own gets its unit back (of its
    starting kind); not when a great power controls the centre, nor when the centre is occupied."""
    everyone = [u for u in v2006.starting_units if v2006.powers[u.power].minor]
    present = [u for u in everyone if u.power not in ("Sardinia", "Venice", "Tuscany", "Bavaria")]
    owners = dict(v2006.starting_centres)
    owners["TUS"] = "France"  # France controls Tuscany (empty)
    units = present + [Unit("France", A, "BAV")]  # a French army stands in Bavaria
    state = position(v2006, units, owners=owners, phase=WINTER)
    got = v2006.rules.winter_units(v2006, state)
    assert sorted(map(str, got)) == ["A SAV", "F VEN"]
    assert {u.power for u in got} == {"Sardinia", "Venice"}


def test_winter_units_v6_same(v6):
    state = position(v6, [], owners={"VEN": "Venice", "SAV": "France"}, phase=WINTER)
    assert v6.rules.winter_units(v6, state) == [Unit("Venice", F, "VEN")]


# ------------------------------------------------------------------------- settle_position
def test_settle_position_derives_a_single_capture(v2006):
    """2006 V.2, for a position given without its history: a two-centre power controlling exactly
    one centre besides its own has made it its third home."""
    state = position(v2006, owners=owned(Spain="MAD BRC POR", Sweden="ABO STO MEC HEW", France="PAR MAR BRE SAV"))
    settled = v2006.rules.settle_position(v2006, state)
    assert settled.home_centres["Spain"] == frozenset({"MAD", "BRC", "POR"})
    assert settled.home_centres["Sweden"] == frozenset({"ABO", "STO"})  # two: which came first is unknown
    assert settled.home_centres["France"] == frozenset({"PAR", "MAR", "BRE"})  # not a two-centre power


def test_settle_position_keeps_a_known_third_home(v2006):
    state = position(v2006, owners=owned(Spain="MAD BRC MOR"), homes={"Spain": {"MAD", "BRC", "POR"}})
    assert v2006.rules.settle_position(v2006, state).home_centres["Spain"] == frozenset({"MAD", "BRC", "POR"})


def test_settle_position_v6_derives_nothing(v6):
    state = position(v6, owners=owned(Spain="MAD BRC POR"))
    assert v6.rules.settle_position(v6, state) is state


# ------------------------------------------------------------------- 2006 third home centre
def test_third_home_choice_build_declares_it(v2006):
    """2006 V.2 example 3 with a vacant candidate: building in one of the centres captured together
    declares it; the other is then no build site, and becomes no home."""
    state = position(
        v2006,
        [Unit("Poland-Saxony", A, "DRE"), Unit("Poland-Saxony", A, "WAR")],
        owners=owned(Poland_Saxony="DRE WAR BRL HEW"),
        phase=WINTER,
        extra={ambition.HOME_CHOICE: {"Poland-Saxony": ("BRL", "HEW")}},
    )
    rules = v2006.rules
    assert rules.build_sites(v2006, state, "Poland-Saxony") == {"DRE", "WAR", "BRL", "HEW"}
    assert rules.build_sites(v2006, state, "Poland-Saxony", ["BRL"]) == {"DRE", "WAR"}
    a = adjudicate(v2006, state, [Build("Poland-Saxony", A, "BRL"), Build("Poland-Saxony", A, "HEW")])
    assert [r.result.value for r in a.results] == ["succeeds", "void"]
    assert a.state.home_centres["Poland-Saxony"] == frozenset({"DRE", "WAR", "BRL"})
    assert not a.state.extra.get(ambition.HOME_CHOICE)


def test_nearest_candidate(v2006):
    nearest = v2006.rules._nearest
    assert nearest(v2006, "Poland-Saxony", ("BRL", "HEW")) == "HEW"
    assert nearest(v2006, "Poland-Saxony", ("HEW", "BAW")) == "BAW"  # equal distance: by name
    assert nearest(v2006, "Spain", ("MOR", "POR")) == "POR"


def test_third_home_only_for_two_centre_powers(v2006):
    assert set(v2006.facts["two_centre_powers"]) == {"Poland-Saxony", "Spain", "Sweden", "Denmark-Norway", "Turkey"}
    assert all(len(v2006.powers[p].home_centres) == 2 for p in v2006.facts["two_centre_powers"])


# ------------------------------------------------------------------------ Religious Rule 2006
@pytest.mark.parametrize(
    "supported,allowed",
    [
        ("Austria", True), ("France", True), ("Poland-Saxony", True), ("Spain", True),
        ("Tuscany", True), ("Two Sicilies", True), ("Venice", True),
        # Catholic by history, but not on the 2006 list:
        ("Bavaria", False), ("Portugal", False), ("Sardinia", False),
        ("Great Britain", False), ("Russia", False), ("Turkey", False), ("Switzerland", False),
    ],
)
def test_papal_states_2006_list(v2006, v6, supported, allowed):
    """2006 V.3: "the Papal States may only be ordered to hold or support a unit belonging to a
    Catholic state (i.e., Austria, France, Poland & Saxony, Spain, Tuscany, Two Sicilies, and the
    Republic of Venice)". v6 allows "another Catholic unit", so Bavaria, Portugal and Sardinia too."""
    state = position(v2006, [Unit("Papal States", A, "PAP"), Unit(supported, A, "TUS")])
    order = SupportHold("Papal States", A, "PAP", "TUS", A)
    assert (v2006.rules.religious_rule(v2006, state, order) == "") is allowed
    catholic = v6.powers[supported].traits["religion"] == "Catholic"
    assert (v6.rules.religious_rule(v6, position(v6, state.units.values()), order) == "") is catholic
    assert v2006.rules.religious_rule(v2006, state, Hold("Papal States", A, "PAP")) == ""


def test_2006_muslim_and_christian_minors(v2006):
    r = v2006.rules
    state = position(v2006, [Unit("Spain", F, "WES"), Unit("Algiers", F, "ALG"), Unit("Turkey", F, "ION"), Unit("Tunis", F, "TUN")])
    assert "Christian great power" in r.religious_rule(v2006, state, SupportMove("Tunis", F, "TUN", "WES", "ALG"))
    assert r.religious_rule(v2006, state, SupportMove("Tunis", F, "TUN", "ION", "ALG")) == ""  # Ottoman attack
    state = position(v2006, [Unit("Turkey", F, "ADR"), Unit("Austria", A, "VIE"), Unit("Venice", F, "VEN")])
    assert "Ottoman attack" in r.religious_rule(v2006, state, SupportMove("Venice", F, "VEN", "ADR", "VIE"))
    assert r.religious_rule(v2006, state, SupportHold("Venice", F, "VEN", "VIE")) == ""  # holds are free
    empty = position(v2006, [Unit("Turkey", F, "ADR"), Unit("Venice", F, "VEN")])
    assert r.religious_rule(v2006, empty, SupportMove("Venice", F, "VEN", "ADR", "VIE")) == ""


# -------------------------------------------------------------------------- Religious Rule v6
def test_v6_papal_sortie(v6):
    r = v6.rules
    for occupant, allowed in [(None, True), ("Great Britain", True), ("Russia", True), ("Turkey", True), ("Spain", False), ("Tuscany", False)]:
        units = [Unit("Papal States", A, "PAP")] + ([Unit(occupant, A, "TUS")] if occupant else [])
        why = r.religious_rule(v6, position(v6, units), Move("Papal States", A, "PAP", "TUS"))
        assert (why == "") is allowed, occupant


def test_v6_orthodox_equals_protestant(v6):
    """"Orthodox and Protestant units are equivalent; they are both considered Christian and
    non-Catholic"."""
    r = v6.rules
    for defender in ("Russia", "Great Britain", "Austria", "Tuscany"):
        state = position(v6, [Unit("Turkey", F, "ADR"), Unit(defender, A, "VIE"), Unit("Venice", F, "VEN")])
        assert "Islamic attack on a Christian unit" in r.religious_rule(v6, state, SupportMove("Venice", F, "VEN", "ADR", "VIE"))
    for attacker in ("Russia", "Great Britain", "Austria", "Two Sicilies"):
        state = position(v6, [Unit(attacker, F, "ION"), Unit("Turkey", F, "TUN"), Unit("Algiers", F, "ALG")])
        why = r.religious_rule(v6, state, SupportMove("Algiers", F, "ALG", "ION", "TUN"))
        assert "Christian attack on an Islamic unit" in why, attacker


# ------------------------------------------------------------------------------ v6 build sites
def test_v6_build_sites(v6):
    r = v6.rules
    state = position(v6, owners=owned(France="PAR MAR BRE SAV SWI ANE"), phase=WINTER)
    assert r.build_sites(v6, state, "France") == {"PAR", "MAR", "BRE", "SAV", "SWI", "ANE"}
    assert r.build_sites(v6, state, "France", ["SAV"]) == {"PAR", "MAR", "BRE"}  # the elective is used
    state = position(v6, owners=owned(Turkey="ANK CON ALG CRI TUN"), phase=WINTER)
    assert r.build_sites(v6, state, "Turkey") == {"ANK", "CON", "ALG", "CRI", "TUN"}
    # (a centre just built in may stay in the set: it is occupied now, which the engine checks)
    assert r.build_sites(v6, state, "Turkey", ["ALG"]) - {"ALG"} == {"ANK", "CON", "CRI", "TUN"}
    assert r.build_sites(v6, state, "Turkey", ["ALG", "TUN"]) - {"ALG", "TUN"} == {"ANK", "CON"}  # four homes
    state = position(v6, owners=owned(Austria="VIE BUD MIL ANE TUS SAV"), phase=WINTER)
    assert r.build_sites(v6, state, "Austria") == {"VIE", "BUD", "MIL", "TUS"}  # never ANE
    state = position(v6, owners=owned(Great__Britain="LON EDI LVP HAN UPR"), phase=WINTER)
    assert r.build_sites(v6, state, "Great Britain") == {"LON", "EDI", "LVP", "HAN"}


def test_2006_build_sites(v2006):
    r = v2006.rules
    state = position(v2006, owners=owned(Austria="VIE BUD MIL ANE", Russia="MOS KEV STP CRI", France="PAR MAR BRE SAV"), phase=WINTER)
    assert r.build_sites(v2006, state, "Austria") == {"VIE", "BUD", "MIL"}
    assert r.build_sites(v2006, state, "Russia") == {"MOS", "KEV", "STP", "CRI"}
    assert r.build_sites(v2006, state, "France") == {"PAR", "MAR", "BRE"}


def test_max_builds(v2006, v6):
    state = v2006.initial_state()
    assert v2006.rules.max_builds(v2006, state, "Russia") is None
    assert v6.rules.max_builds(v6, state, "Russia") == 3


# ------------------------------------------------------------------- sorties, retreats, crossings
def test_stationary_powers(v2006, v6):
    state = v6.rules.declare_civil_disorder(v6, v6.initial_state(), "France")
    assert v2006.rules.stationary_powers(v2006, v2006.initial_state()) == frozenset()
    stationary = v6.rules.stationary_powers(v6, state)
    assert {"Switzerland", "Papal States", "Paris"} <= stationary
    assert not stationary & set(v6.great_powers)


@pytest.mark.parametrize("name", ["ambition", "ambition-v6"])
def test_minor_units_never_retreat(name):
    v = load_variant(name)
    state = v.initial_state()
    assert not v.rules.may_retreat(v, state, Unit("Switzerland", A, "SWI"))
    assert v.rules.may_retreat(v, state, Unit("France", A, "PAR"))


def test_irish_sea_blocks(v2006, v6):
    french_fleet = position(v6, [Unit("France", F, "IRI")])
    assert v6.rules.blocked_moves(v6, french_fleet) == {("EDI", "IRE"): "France", ("IRE", "EDI"): "France"}
    assert v6.rules.blocked_moves(v6, position(v6, [])) == {}
    # "a fleet belonging to a different Great Power": a minor power's fleet does not close it.
    assert v6.rules.blocked_moves(v6, position(v6, [Unit("Venice", F, "IRI")])) == {}
    assert v2006.rules.blocked_moves(v2006, position(v2006, [Unit("France", F, "IRI")])) == {}
