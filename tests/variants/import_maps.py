"""Small boards in each judge's format, written for these tests: Mini, two powers on nine spaces
(two seas, a space with two coasts, an impassable one), the same board in DPjudge's files and in
njudge's map and seed."""
from __future__ import annotations

MINI_MAP = """\
# Mini: a board for gm's tests
# Drawn by the tests' author
USE mini.geography
USE mini.politics
USE mini.military

BEGIN SPRING 1850 MOVEMENT
VICTORY 4
"""

MINI_GEOGRAPHY = """\
Grey Sea = grs grey
Bay of Dunes = bod dunes bay+of+dunes
Amber Coast = amb amber
Cinder = cin
Dunmark = dun
Dunmark (north coast) = dun/nc dun(nc)
Dunmark (south coast) = dun/sc dun(sc)
Gulls Reach = gul gulls
Elmwood = elm
Fenland = fen
High Peaks = hip peaks hip?

WATER GRS ABUTS AMB DUN/NC GUL BOD
WATER BOD ABUTS GRS DUN/SC ELM
COAST AMB ABUTS GRS CIN DUN/NC
LAND CIN ABUTS AMB dun FEN HIP
COAST DUN/NC ABUTS GRS AMB GUL
COAST DUN/SC ABUTS BOD ELM
COAST dun ABUTS AMB CIN GUL ELM HIP
COAST GUL ABUTS GRS DUN/NC ELM
COAST ELM ABUTS BOD DUN/SC GUL FEN HIP
LAND FEN ABUTS CIN ELM HIP
SHUT HIP ABUTS CIN dun FEN ELM
"""

MINI_POLITICS = """\
REDLAND  (REDDISH)   AMB CIN
BLUELAND (BLUISH:U)  ELM FEN
UNOWNED DUN GUL
"""

MINI_MILITARY = """\
REDLAND
F AMB
A CIN

BLUELAND
F ELM
A FEN
"""


def dpjudge_files(**changes: str) -> dict[str, str]:
    """Mini's DPjudge files, file name -> text, with some replaced (a value of '' drops the file)."""
    files = {"mini.map": MINI_MAP, "mini.geography": MINI_GEOGRAPHY, "mini.politics": MINI_POLITICS,
             "mini.military": MINI_MILITARY}
    for name, text in changes.items():
        key = name.replace("_", ".")
        if text:
            files[key] = text
        else:
            files.pop(key)
    return files


NJ_MAP = """\
# Mini: a board for gm's tests, njudge's way
Grey Sea,        w grs grey
Bay of Dunes,    w bod dunes
Amber Coast,     R amb amber
Cinder,          R cin
Dunmark,         x dun
Gulls Reach,     x gul gulls
Elmwood,         B elm
Fenland,         B fen
High Peaks,      l hip peaks
-1
grs-xc: amb dun/nc gul bod
bod-xc: grs dun/sc elm
amb-mv: cin dun
amb-xc: grs dun/nc
cin-mv: amb dun fen
dun-mv: amb cin gul elm
dun-nc: grs amb gul
dun-sc: bod elm
gul-mv: dun elm
gul-xc: grs dun/nc elm
elm-mv: dun gul fen
elm-xc: bod dun/sc gul
fen-mv: cin elm
hip-mv: hip
-1
Center order for summary report:
   amb cin dun gul elm fen
#End of center ordering
-1
"""

NJ_SEED = """\
S1850M
R: F Amber Coast
R: A Cinder
B: F Elmwood
B: A Fenland
-1 Null ownership/contested record will initialize from the map data.
-1
"""

NJ_POWERS = {"R": ("Redland", "Reddish"), "B": ("Blueland", "Bluish")}


def njudge_files(map_text: str = NJ_MAP, seed_text: str | None = NJ_SEED) -> dict[str, str]:
    files = {"map.mini": map_text}
    if seed_text is not None:
        files["seed.mini"] = seed_text
    return files
