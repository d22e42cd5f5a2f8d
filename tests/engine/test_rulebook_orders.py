"""Every order the rulebooks in shared/rules print reads as printed (brackets, dashes run
together, the separators and full stops after them), and its canonical form reads back as the
same order. How each plays is in the case files that quote the rules (tests/variants/*/cases):
Napoleonic Wars nw_printed_orders.txt, 1700AD II ad_fleets.txt, Classical rule7a_nile_portage.txt.

The Ambition & Empire rulebooks (2006 and v6) and the Common Ruleset print their examples as
prose ("France allocates one DP to Switzerland to get it to support a French attack on Savoy");
the one order they print in the order language, v6's "F Black Sea to Smyrna (sc)", names a space
the 2006 map the v6 game plays on does not have (maps/ambition-v6/README.md), so its form is read
here on a split coast of that map. Standard Diplomacy's forms are the DATC's (tests/datc).
"""
from __future__ import annotations

import pytest

from gm.engine.model import PhaseKind
from gm.engine.parse import parse_order
from gm.variants import load_variant

M, ADJ = PhaseKind.MOVEMENT, PhaseKind.ADJUSTMENT

PRINTED = [
    # Napoleonic Wars, rule 6
    ("napoleonic", "England", M, "F(NWG)-NTH-ENG,", "F NWG - NTH - ENG"),
    ("napoleonic", "England", M, "A(Wal) E ENG,", "A WAL - ENG MERGE"),
    ("napoleonic", "France", M, "A(Tun) E F(BOT)-ION-AEG,", "A TUN E F BOT - ION - AEG"),
    ("napoleonic", "France", M, "A(AEG) D Con", "A AEG - CON"),
    ("napoleonic", "England", M, "F(NTH)-ENG-MAO;", "F NTH - ENG - MAO"),
    ("napoleonic", "France", M, "A(Tun) E F(BOT)-ION,", "A TUN E F BOT - ION"),
    ("napoleonic", "France", M, "A(ION) D Bal.", "A ION - BAL"),
    # rule 8
    ("napoleonic", "England", M, "2F(MAO) B Bre", "2F MAO B BRE"),
    ("napoleonic", "France", M, "F(BoB)-MAO", "F BOB - MAO"),
    ("napoleonic", "France", M, "F(Bre)-MAO", "F BRE - MAO"),
    # rule 10
    ("napoleonic", "Russia", M, "A(Den)-Swe", "A DEN - SWE"),
    ("napoleonic", "England", M, "F(SKA)-BLT", "F SKA - BLT"),
    ("napoleonic", "England", M, "F(SKA) X Den-Swe;", "F SKA X DEN-SWE"),
    ("napoleonic", "England", M, "F(NTH) S A(Swe)-Den", "F NTH S A SWE - DEN"),
    ("napoleonic", "Russia", M, "A(Fin) S A(Den)-Swe.", "A FIN S A DEN - SWE"),
    # the A/F rules rule 6 plays by (abstraction-af.txt)
    ("napoleonic", "England", M, "A(Lon) Embark F(ENG);", "A LON - ENG MERGE"),
    ("napoleonic", "England", M, "A/F(ENG)-MAO;", "A/F ENG - MAO"),
    ("napoleonic", "England", M, "A(MAO) Disembark Por.", "A MAO - POR"),
    # Multiplicity II, rule 7 (multiplicity-ii.txt): "A(Mar) and A(Pic) MERGE 2A(Bur)" is two orders
    ("napoleonic", "France", M, "A(Mar) MERGE 2A(Bur)", "A MAR - BUR MERGE"),
    ("napoleonic", "France", M, "A(Pic) MERGE 2A(Bur)", "A PIC - BUR MERGE"),
    ("napoleonic", "Austria", M, "A(Pal)-Bur", "A PAL - BUR"),
    ("napoleonic", "France", M, "A(Par) S MERGE (Bur)", "A PAR S MERGE BUR"),
    # 1700AD II, rule 6 ("Sweden 1700" heads them) and rule 10d
    ("1700ad", "Swedish", M, "CXII(Got)-hold-Den (x2);", "A GOT H THEN A GOT - DEN (x2)"),
    ("1700ad", "Swedish", M, "2F(Sca)-COS-C CXII(Got)-Den;", "2F SCA - COS THEN 2F COS C A GOT - DEN"),
    ("1700ad", "Swedish", M, "A (Sca)-Hold-Got;", "A SCA H THEN A SCA - GOT"),
    ("1700ad", "Swedish", M, "A(Liv) S A(Fin)-Kar (x2);", "A LIV S A FIN - KAR (x2)"),
    ("1700ad", "Swedish", M, "Retreats: A(Liv)-Kur;", "A LIV R KUR"),
    ("1700ad", "Swedish", M, "Builds: A(Fin)", "Build A FIN"),
    ("1700ad", "Swedish", M, "Builds: A(Dal).", "Build A DAL"),
    ("1700ad", "Swedish", M, "Removes: A(Got).", "A GOT D"),
    ("1700ad", "Turks", M, "F(AEG)-WBS", "F AEG - WBS"),
    # Classical, rule 7a (F Cis-Etr and F Thebes-Libya parse; the map refuses them)
    ("classical", "Egypt", M, "F Thebes- Nubian Desert", "F THE - NUB"),
    ("classical", "Rome", M, "F Cis-Etr", "F CIS - ETR"),
    # Ambition & Empire v6: 'F Black Sea to Smyrna (sc)', on a split coast of the map played
    ("ambition-v6", "Prussia", M, "F Baltic Sea to Holstein (ec)", "F BAL - HOL/EC"),
]


@pytest.mark.parametrize("variant,power,phase,text,canonical", PRINTED, ids=[p[3] for p in PRINTED])
def test_a_printed_order_reads_as_printed(variant: str, power: str, phase: PhaseKind, text: str, canonical: str) -> None:
    v = load_variant(variant)
    parsed = parse_order(v, text, power, phase)
    assert parsed.error is None
    assert str(parsed.order) == canonical
    again = parse_order(v, canonical, power, phase)
    assert again.order == parsed.order


def test_the_year_heading_is_no_order() -> None:
    parsed = parse_order(load_variant("1700ad"), "Sweden 1700", "Swedish", M)
    assert parsed.error == "the heading of a power's orders for a year, not an order: the orders follow it"
