"""1700AD II (Martin Dean): Europe, North Africa and the Near East in 1700, eight major powers.

The designer's map is lost; maps/1700ad/ holds a reconstruction of it (see its README.md). The
variant's own rules (yearly turns of two impulses, double strength, leaders, armed neutrals, the
fleet and supply rules, Switzerland) are not played yet, so no game of it can be started: the map
is shipped for the map tools (`gm map build`, `gm map check`, `gm map render`). The facts those
rules will read are in the [facts] table of maps/1700ad/variant.toml.
"""
from gm.engine.rules import Rules


class VariantRules(Rules):
    unfinished = ("its yearly turns of two impulses, leaders, armed neutrals and fleet and supply rules "
                  "are not played by the judge yet (maps/1700ad/README.md)")
