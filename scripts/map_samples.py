"""Draw the sample maps of docs/maps/: for each variant, its opening moves and a crowded mid-game
phase of a seeded random game, each with its orders and their results, through the same report
and renderer the results mail uses. Run: .venv/bin/python scripts/map_samples.py [VARIANT...]"""
from __future__ import annotations

import sys
from pathlib import Path

from gm.engine.model import PhaseKind, Season
from gm.lifecycle.report import build_report
from gm.maps.render import render, results_scene
from gm.randomgame import play_random_game
from gm.variants import load_variant

OUT = Path(__file__).resolve().parents[1] / "docs" / "maps"
VARIANTS = ("standard", "classical", "ambition", "ambition-v6", "napoleonic", "youngstown")


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in sys.argv[1:] or VARIANTS:
        variant = load_variant(name)
        steps = list(play_random_game(variant, seed=f"samples-{name}", years=6))
        # the first movement phase (Napoleonic opens with a winter of bidding)
        opening = next(s for s in steps if s[0].phase.kind is PhaseKind.MOVEMENT)
        moves = [s for s in steps if s[0].phase.kind is PhaseKind.MOVEMENT and s[0].phase.season is Season.FALL
                 and s[0].phase.year >= opening[0].phase.year + 3]
        crowded = max(moves, key=lambda s: (len(s[2].dislodged), len(s[0].units)))
        for label, (state, _, adjudication) in (("opening", opening), ("midgame", crowded)):
            report = build_report(variant, state, adjudication, game="sample", label=variant.phase_label(state.phase),
                                  late=[])
            png = render(variant, results_scene(variant, state, report, "sample"))
            path = OUT / f"{name}-{label}.png"
            path.write_bytes(png)
            print(f"{path.relative_to(OUT.parents[1])}: {variant.phase_label(state.phase)}, {len(png) // 1000} KB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
