"""A game moved in from another judge: a DPjudge status file, njudge's and DPjudge's results mail
and gm's own position text, for standard, Ambition & Empire and Classical, each read into the
position it describes and then played on here for one phase, whose outcome is the rules' own.
The texts in texts/ are written for these tests in each format's layout (DPjudge's pages/Status,
its results as its Game.py writes them, njudge's mail as its regression tests record it)."""
from __future__ import annotations

from pathlib import Path

import pytest

from gm.engine.adjudicator import Adjudication, adjudicate
from gm.engine.model import GameState, PhaseKind, Season
from gm.engine.parse import parse_order
from gm.engine.results import Result
from gm.lifecycle.moving_in import Position, read_position, summary
from gm.variants import load_variant
from gm.variants.napoleonic import SP_BANK, SP_LOANS

TEXTS = Path(__file__).parent / "texts"
REFERENCE = Path(__file__).resolve().parents[3].parent / "shared" / "reference" / "njudge" / "judge-output-Bug91-12.txt"


def text(name: str) -> str:
    return (TEXTS / name).read_text(encoding="utf-8")


def players(variant: str) -> str:
    """The GM's lines naming each great power's player, added after a results mail (which has none)."""
    powers = load_variant(variant).great_powers
    return "\n".join(f"Player {p}: {p.lower().replace(' ', '')}@players.test" for p in powers)


def units(state: GameState, power: str) -> list[str]:
    return sorted(str(u) for u in state.units_of(power))


def play(position: Position, orders: dict[str, list[str]]) -> Adjudication:
    """One phase adjudicated here from the position moved in; every order read as a player writes it."""
    variant = load_variant(position.variant)
    state = position.state
    parsed = []
    for power, lines in orders.items():
        for line in lines:
            read = parse_order(variant, line, power, state.phase.kind, state)
            assert read.order is not None, (line, read.error)
            parsed.append(read.order)
    return adjudicate(variant, state, parsed)


def result_of(adjudication: Adjudication, written: str) -> Result:
    return next(r.result for r in adjudication.results if str(r.order) == written)


# --- standard ----------------------------------------------------------------------------------


def test_a_dpjudge_status_file_of_standard_and_its_fall_played_here() -> None:
    position = read_position(text("dpjudge-standard-status.txt"))
    state = position.state
    assert position.variant == "standard" and position.source == "DPjudge status file" and position.game == "oldgame"
    assert (state.phase.year, state.phase.season, state.phase.kind) == (1901, Season.FALL, PhaseKind.MOVEMENT)
    assert units(state, "Russia") == ["A UKR", "A WAR", "F BOT", "F RUM"]
    assert state.centres_of("Russia") == ["MOS", "SEV", "STP", "WAR"]
    assert position.players["France"] == "france@players.test" and position.master == "gm.old@example.org"
    # TIMING NEXT 2D MOVE 3D DAYS -MTWTF- AT 23:30 GRACE 12H WARN 12H; RULE PROPOSE_DIAS GREY_PRESS
    assert position.rules == {"timezone": "Europe/London", "movement": "3d", "retreat": "2d", "adjustment": "2d",
                              "grace": "12h", "remind_before": "12h", "days": "mon,tue,wed,thu,fri", "hour": "23",
                              "draw": "dias"}
    assert position.press == "grey"
    assert position.deadline is not None and position.deadline.isoformat() == "2030-12-01T23:30:00+00:00"
    notes = "\n".join(position.notes)
    assert "lines 9, 17, 24: PASSWORD" in notes and "ORDERS" in notes and "AT 23:30" in notes
    assert "gmsecret" not in repr(position) and "pw1" not in repr(position)  # a password is never kept

    # Turkey, with Austria's support, dislodges Russia's fleet: it may retreat only to Sevastopol
    # (not Bulgaria, where the attack came from; the Black Sea is occupied).
    fall = play(position, {"Turkey": ["A BUL - RUM", "F BLA S A BUL - RUM", "A ARM H"],
                           "Austria": ["A SER S A BUL - RUM"],
                           "Russia": ["F RUM H", "A UKR S F RUM", "F BOT H", "A WAR H"]})
    assert result_of(fall, "A BUL - RUM") is Result.SUCCEEDS
    assert fall.state.units["RUM"].power == "Turkey"
    assert fall.state.dislodged["RUM"].retreats == ("SEV",)
    assert fall.state.phase.kind is PhaseKind.RETREAT


def test_an_njudge_results_mail_of_standard_and_the_winter_played_here() -> None:
    position = read_position(text("njudge-standard-fall.txt") + "\n" + players("standard"), "standard")
    state = position.state
    assert position.source == "njudge mail text"
    assert (state.phase.season, state.phase.kind) == (Season.WINTER, PhaseKind.ADJUSTMENT)
    # the moves that succeeded stand where they went; bounced units stayed
    assert units(state, "Turkey") == ["A BUL", "A SEV", "F BLA"]
    assert units(state, "France") == ["A BUR", "A POR", "F MAO"]
    assert state.centres_of("Germany") == ["BER", "DEN", "HOL", "KIE", "MUN"]
    assert "SER" not in state.supply_centres  # Austria left it before it was taken: unowned
    assert position.deadline is not None and position.deadline.isoformat() == "2030-12-16T23:30:00+00:00"

    winter = play(position, {"Germany": ["Build A BER", "Build F KIE"], "Turkey": ["Build F ANK", "Build A HOL"]})
    assert result_of(winter, "Build A BER") is Result.SUCCEEDS and result_of(winter, "Build F KIE") is Result.SUCCEEDS
    assert result_of(winter, "Build F ANK") is Result.SUCCEEDS
    assert result_of(winter, "Build A HOL") is Result.VOID  # not a home centre of Turkey's
    assert units(winter.state, "Germany") == ["A BER", "A HOL", "A MUN", "F DEN", "F KIE"]
    assert winter.state.phase.year == 1902 and winter.state.phase.season is Season.SPRING


CENTRES_1902 = """
Centres Austria: BUD, GRE, TRI, VIE
Centres England: EDI, LON, LVP, NWY
Centres France: BRE, PAR, POR
Centres Germany: BER, DEN, HOL, KIE, MUN
Centres Italy: MAR, NAP, ROM, TUN, VEN
Centres Russia: MOS, RUM, STP, WAR
Centres Turkey: ANK, BUL, CON, SEV, SMY
"""


def test_a_forwarded_dpjudge_results_mail_of_standard_and_its_retreat_played_here() -> None:
    """Quoted ('>') under a forward's headers; a Spring's results lack the ownership of centres,
    which the GM's own lines give."""
    position = read_position(text("dpjudge-standard-spring.txt") + CENTRES_1902 + players("standard"))
    state = position.state
    assert position.source == "DPjudge mail text" and position.variant == "standard"
    assert state.phase.kind is PhaseKind.RETREAT and state.phase.year == 1902
    assert state.units["GAL"].power == "Russia" and "WAR" not in state.units
    assert state.dislodged["GAL"].unit.power == "Austria"
    assert state.dislodged["GAL"].retreats == ("BOH", "BUD", "SIL")

    retreat = play(position, {"Austria": ["A GAL - WAR"]})  # where the attack came from: no retreat
    assert result_of(retreat, "A GAL R WAR") is Result.VOID
    retreat = play(position, {"Austria": ["A GAL - BUD"]})
    assert result_of(retreat, "A GAL R BUD") is Result.SUCCEEDS
    assert retreat.state.units["BUD"].power == "Austria"
    assert (retreat.state.phase.season, retreat.state.phase.kind) == (Season.FALL, PhaseKind.MOVEMENT)


def test_the_judge_text_quoted_or_not_is_read_alike() -> None:
    plain = read_position(text("njudge-standard-fall.txt") + "\n" + players("standard"))
    quoted = read_position("\n".join(f"> {line}" for line in text("njudge-standard-fall.txt").splitlines())
                           + "\n" + players("standard"))
    assert plain.state == quoted.state


def test_gm_own_position_text_reads_back_what_it_wrote() -> None:
    first = read_position(text("njudge-standard-fall.txt") + "\n" + players("standard"))
    variant = load_variant("standard")
    again = read_position(first.text(variant))
    assert again.state == first.state and again.players == first.players and again.source == "gm position text"
    assert "Phase: Winter 1901, Adjustment" in first.text(variant)


def test_gm_own_lines_keep_napoleonic_banks_and_loans() -> None:
    """Supply Points banked and lent are secret state Napoleonic Wars keeps: read where the text
    has them."""
    variant = load_variant("napoleonic")
    start = variant.initial_state()
    lines = ["Variant: napoleonic", "Phase: Winter 1800, Bidding"]
    for power in variant.powers:
        if start.units_of(power):
            lines.append(f"{power}: {', '.join(str(u) for u in start.units_of(power))}")
        if start.centres_of(power):
            lines.append(f"Centres {power}: {', '.join(start.centres_of(power))}")
    lines += [f"Player {p}: {p.lower()}@players.test" for p in variant.great_powers]
    lines += ["Bank France: 6", "Bank England: -3", "Loan France to Prussia: 2"]
    position = read_position("\n".join(lines))
    assert position.state.extra[SP_BANK] == {"France": 6, "England": -3}
    assert position.state.extra[SP_LOANS] == [["France", "Prussia", 2]]
    assert position.banks == {"France": 6, "England": -3}


# --- Ambition & Empire ---------------------------------------------------------------------------


def test_a_dpjudge_status_file_of_ambition_with_dp_banks_and_its_spring_played_here() -> None:
    """DPjudge groups the minor powers (_CATHOLIC, _PROTESTANT, ...): each unit and centre goes to
    the minor power whose home it is. Its FUNDS (the DPs each power had banked there) are read and
    not kept: as gm plays the 2006 rules a power has one DP per centre, at most three, each turn."""
    position = read_position(text("dpjudge-ambition-status.txt"))
    state = position.state
    assert position.variant == "ambition"
    assert state.units["BAV"].power == "Bavaria" and state.units["SWI"].power == "Switzerland"
    assert state.supply_centres["CRI"] == "Crimea" and state.units["KEV"].power == "Russia"  # DPjudge's KIV
    assert position.players["Poland-Saxony"] == "saxony@players.test"  # DPjudge's SAXONY
    assert "Papal States" not in position.players  # a minor power: nobody plays it
    notes = "\n".join(position.notes)
    assert "points banked on the old judge (Austria 2, Great Britain 0, France 1, Prussia 3), not kept" in notes
    assert "One DP per centre you control, at most 3" in notes

    # Austria attacks Bavaria with two; Prussia's 3 DPs (it has three centres) beat France's 2 for
    # Baden-Wuerttemberg's order: it supports Bavaria, which holds.
    attack = {"Austria": ["A TYR - BAV", "A VIE S A TYR - BAV"]}
    spring = play(position, {**attack, "Prussia": ["DP 3 A BAW S A BAV"], "France": ["DP 2 A BAW H"]})
    assert result_of(spring, "A TYR - BAV") is Result.FAILS
    assert spring.state.units["BAV"].power == "Bavaria"
    # Without the DPs Bavaria falls, and a minor power's dislodged unit is destroyed.
    spring = play(position, attack)
    assert spring.state.units["BAV"].power == "Austria" and not spring.state.dislodged


def test_an_njudge_results_mail_of_ambition_and_the_winter_played_here() -> None:
    position = read_position(text("njudge-ambition-fall.txt") + "\n" + players("ambition"))
    state = position.state
    assert (state.phase.year, state.phase.season) == (1763, Season.WINTER)
    assert "BAV" in state.units and state.units["BAV"].power == "Austria"  # Bavaria's army was destroyed
    assert state.supply_centres["BAV"] == "Austria" and len(state.centres_of("Austria")) == 5
    winter = play(position, {"Austria": ["Build A MIL", "Build A BAV"]})
    assert result_of(winter, "Build A MIL") is Result.SUCCEEDS
    assert result_of(winter, "Build A BAV") is Result.VOID
    assert units(winter.state, "Austria") == ["A ANE", "A BAV", "A BUD", "A MIL", "A VIE"]


def test_three_dpjudge_results_mails_of_ambition_read_in_order_and_the_fall_played_here() -> None:
    """A Fall's results (every unit, the ownership), the winter's builds and the next Spring's
    moves, pasted in order: the position after the last."""
    position = read_position(text("dpjudge-ambition-three-mails.txt") + "\n" + players("ambition"))
    state = position.state
    assert (state.phase.year, state.phase.season, state.phase.kind) == (1764, Season.FALL, PhaseKind.MOVEMENT)
    assert units(state, "Austria") == ["A ANE", "A BAV", "A BUD", "A TYR", "A VIE"]
    assert state.units["UPR"].power == "United Provinces" and state.supply_centres["ALG"] == "Algiers"
    # Austria's own DP puts Sardinia's army behind its attack on Switzerland: two against one, and
    # the Swiss army, a minor power's, is destroyed; Austria takes the centre at the end of the Fall.
    fall = play(position, {"Austria": ["A TYR - SWI", "DP 1 A SAV S A TYR - SWI"]})
    assert result_of(fall, "A TYR - SWI") is Result.SUCCEEDS
    assert fall.state.supply_centres["SWI"] == "Austria"


# --- Classical ----------------------------------------------------------------------------------


def test_a_dpjudge_status_file_of_classical_and_its_winter_played_here() -> None:
    """DPjudge plays Classical one movement a year counting down (B.C. 273, B.C. 272, ...), with
    adjustments after each even year: B.C. 270 ADJUSTMENTS is gm's Winter 272 BC."""
    position = read_position(text("dpjudge-classical-status.txt"))
    state = position.state
    assert position.variant == "classical"
    assert (state.phase.year, state.phase.season, state.phase.kind) == (-272, Season.WINTER, PhaseKind.ADJUSTMENT)
    assert load_variant("classical").phase_label(state.phase) == "Winter 272 BC, Adjustment"
    assert position.press == "none"
    # Rule 6: a power builds in any centre it owns while it holds one of its original homes:
    # Carthage in Sardo, which it took in 273 BC and has left.
    winter = play(position, {"Carthage": ["Build F SAR", "Build A CAR"], "Egypt": ["Build A MEM"]})
    assert result_of(winter, "Build F SAR") is Result.SUCCEEDS and result_of(winter, "Build A CAR") is Result.SUCCEEDS
    assert result_of(winter, "Build A MEM") is Result.SUCCEEDS
    assert winter.state.phase.year == -271 and winter.state.phase.season is Season.SPRING


def test_an_njudge_results_mail_of_classical_gives_the_game_the_status_file_gives() -> None:
    """njudge counts Classical's years from Alexander's death, plus 1000: Fall of 1051 is gm's
    Fall 272 BC. Its results and DPjudge's status file of the same game read alike."""
    mail = read_position(text("njudge-classical-fall.txt") + "\n" + players("classical"))
    status = read_position(text("dpjudge-classical-status.txt"))
    assert mail.state.phase == status.state.phase
    assert mail.state.units == status.state.units and mail.state.supply_centres == status.state.supply_centres
    winter = play(mail, {"Carthage": ["Build F SAR"], "Rome": ["Build A ROM"], "Syria": ["Build A ANT"]})
    assert result_of(winter, "Build F SAR") is Result.SUCCEEDS and result_of(winter, "Build A ROM") is Result.SUCCEEDS
    assert result_of(winter, "Build A ANT") is Result.VOID  # four centres, four units: nothing to build


def test_a_dpjudge_results_mail_of_classical_and_its_retreat_played_here() -> None:
    centres = ("\nCentres Carthage: CAR, LEP, PAN, SAR, SAG\nCentres Egypt: ALE, MEM, THE\n"
               "Centres Macedon: CAS, KAL, PEL, ATH\nCentres Rome: BRU, CAP, ROM\nCentres Syria: ANT, DAM, TYR, JER\n")
    position = read_position(text("dpjudge-classical-spring.txt") + centres + players("classical"))
    state = position.state
    assert load_variant("classical").phase_label(state.phase) == "Spring 272 BC, Retreat"  # 'B.C. 271'
    assert state.dislodged["SIN"].retreats == ("MEM", "RAP", "THE")
    retreat = play(position, {"Egypt": ["A SIN - JER"]})
    assert result_of(retreat, "A SIN R JER") is Result.VOID  # the attacker came from Jerusalem
    retreat = play(position, {"Egypt": ["A SIN - THE"]})
    assert result_of(retreat, "A SIN R THE") is Result.SUCCEEDS and retreat.state.units["THE"].power == "Egypt"


# --- what the GM sees -----------------------------------------------------------------------------


def test_the_summary_names_the_source_the_phase_each_power_and_what_is_not_kept() -> None:
    position = read_position(text("dpjudge-standard-status.txt"))
    lines = summary(load_variant("standard"), position)
    assert lines[0] == "DPjudge status file of oldgame: Diplomacy (standard map), Fall 1901, Movement"
    assert "  Russia: 4 centres, 4 units; russia@players.test" in lines
    assert "read and not kept:" in lines


@pytest.mark.skipif(not REFERENCE.exists(), reason="the njudge reference output is not beside the checkout")
def test_njudge_own_list_output_reads_as_the_standard_start() -> None:
    """njudge's regression output of a LIST at the game's start: the status block, the roster's
    addresses and the deadline parameters."""
    position = read_position(REFERENCE.read_text(encoding="latin-1"))
    start = load_variant("standard").initial_state()
    assert position.state.units == start.units and position.state.supply_centres == start.supply_centres
    assert position.players["Austria"] == "player3@localhost" and position.master == "master1@localhost"
    assert position.several_powers  # player1 plays France and Russia there
    assert position.rules["movement"] == "71h" and position.rules["days"] == "mon,tue,wed,thu,fri"
