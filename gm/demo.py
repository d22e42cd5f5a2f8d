"""`gm demo`: first the judge by mail (gm/demo_mail.py: players join and send orders to `gm serve`
on its embedded mail servers), then a short scripted game on the standard map, played through the
parser and adjudicator: two game years of well-known openings, printed phase by phase.
"""
from __future__ import annotations

from typing import Callable

from gm.engine.adjudicator import adjudicate
from gm.engine.model import GameState, PhaseKind
from gm.engine.parse import parse_order
from gm.engine.variant import Variant
from gm.variants import load_variant

# Orders per phase label, as players write them. A phase not listed gets no orders (for a retreat
# phase that disbands the dislodged units; for winter, civil disorder where removals are due).
SCRIPT: dict[str, dict[str, list[str]]] = {
    "Spring 1901, Movement": {
        "Austria": ["A Vienna - Galicia", "A Budapest - Serbia", "F Trieste - Albania"],
        "England": ["F London - North Sea", "F Edinburgh - Norwegian Sea", "A Liverpool - Yorkshire"],
        "France": ["F Brest - Mid-Atlantic Ocean", "A Paris - Burgundy", "A Marseilles S A Paris - Burgundy"],
        "Germany": ["F Kiel - Denmark", "A Berlin - Kiel", "A Munich - Ruhr"],
        "Italy": ["A Venice H", "A Rome - Apulia", "F Naples - Ionian Sea"],
        "Russia": ["A Warsaw - Galicia", "A Moscow - Ukraine", "F Sevastopol - Black Sea", "F St Petersburg(sc) - Gulf of Bothnia"],
        "Turkey": ["F Ankara - Black Sea", "A Constantinople - Bulgaria", "A Smyrna - Constantinople"],
    },
    "Fall 1901, Movement": {
        "Austria": ["A Serbia - Greece", "F Albania S A Serbia - Greece", "A Vienna - Budapest"],
        "England": ["F North Sea C A Yorkshire - Norway", "A Yorkshire - Norway", "F Norwegian Sea H"],
        "France": ["F Mid-Atlantic Ocean - Portugal", "A Burgundy - Belgium", "A Marseilles - Spain"],
        "Germany": ["F Denmark H", "A Kiel - Holland", "A Ruhr - Belgium"],
        "Italy": ["F Ionian Sea C A Apulia - Tunis", "A Apulia - Tunis", "A Venice H"],
        "Russia": ["F Gulf of Bothnia - Sweden", "A Ukraine - Rumania", "F Sevastopol S A Ukraine - Rumania", "A Warsaw H"],
        "Turkey": ["F Ankara - Black Sea", "A Bulgaria H", "A Constantinople H"],
    },
    "Winter 1901, Adjustment": {
        "Austria": ["Build A Vienna"],
        "England": ["Build F Edinburgh"],
        "France": ["Build F Brest", "Build A Paris"],
        "Germany": ["Build A Berlin", "Build F Kiel"],
        "Italy": ["Build F Naples"],
        "Russia": ["Build A Moscow", "Build F St Petersburg(nc)"],
        "Turkey": ["Build F Smyrna"],
    },
    "Spring 1902, Movement": {
        "Austria": ["A Greece H", "F Albania - Ionian Sea", "A Budapest - Rumania", "A Vienna - Galicia"],
        "England": ["F Norwegian Sea - Barents Sea", "A Norway - St Petersburg", "F North Sea - Skagerrak", "F Edinburgh - North Sea"],
        "France": ["F Portugal - Mid-Atlantic Ocean", "A Spain - Gascony", "A Burgundy H", "F Brest - English Channel", "A Paris - Picardy"],
        "Germany": ["A Holland H", "F Denmark H", "A Ruhr S A Holland", "A Berlin - Silesia", "F Kiel - Helgoland Bight"],
        "Italy": ["F Ionian Sea - Aegean Sea", "A Tunis H", "A Venice - Trieste", "F Naples - Tyrrhenian Sea"],
        "Russia": ["A Rumania H", "F Sevastopol S A Rumania", "F Sweden H", "A Warsaw - Galicia", "A Moscow - Livonia", "F St Petersburg(nc) H"],
        "Turkey": ["F Black Sea S A Bulgaria - Rumania", "A Bulgaria - Rumania", "A Constantinople - Bulgaria", "F Smyrna - Eastern Mediterranean"],
    },
    "Fall 1902, Movement": {
        "Austria": ["A Greece H", "F Ionian Sea S A Greece", "A Budapest S A Vienna - Galicia", "A Vienna - Galicia"],
        "England": ["F Barents Sea S A Norway", "A Norway H", "F Skagerrak S A Norway", "F North Sea - Holland"],
        "France": ["A Gascony - Spain", "F Mid-Atlantic Ocean - Portugal", "A Burgundy - Munich", "F English Channel - Belgium", "A Picardy S F English Channel - Belgium"],
        "Germany": ["A Holland H", "F Denmark H", "A Ruhr S A Holland", "A Silesia - Warsaw", "F Helgoland Bight S A Holland"],
        "Italy": ["F Aegean Sea - Greece", "A Tunis H", "A Trieste H", "F Tyrrhenian Sea - Western Mediterranean"],
        "Russia": ["A Rumania - Bulgaria", "F Sevastopol - Black Sea", "F Sweden - Norway", "A Warsaw - Galicia", "A Livonia - Warsaw", "F St Petersburg(nc) S F Sweden - Norway"],
        "Turkey": ["F Black Sea - Rumania", "A Bulgaria S F Black Sea - Rumania", "A Constantinople H", "F Eastern Mediterranean - Aegean Sea"],
    },
    "Fall 1902, Retreat": {
        "Russia": ["A Rumania - Ukraine"],
    },
    "Winter 1902, Adjustment": {
        "Austria": ["Remove F Ionian Sea"],
        "France": ["Build A Paris", "Build F Marseilles"],
        "Italy": ["Build A Rome"],
        "Russia": ["Remove A Ukraine"],
        "Turkey": ["Build F Ankara"],
        # Germany sends nothing and must remove a unit: civil disorder picks it.
    },
}
LAST_PHASE = "Winter 1902, Adjustment"


def play(variant: Variant, state: GameState, out: Callable[[str], None] = print, stop: str = LAST_PHASE) -> GameState:
    """Play the script from `state`, printing each phase; returns the position after `stop`."""
    while True:
        label = variant.phase_label(state.phase)
        out(f"=== {label} ===")
        orders = []
        for power, texts in SCRIPT.get(label, {}).items():
            for text in texts:
                parsed = parse_order(variant, text, power, state.phase.kind, state)
                if parsed.order is None:
                    out(f"  {power}: {text}  -> not understood: {parsed.error}")
                else:
                    orders.append(parsed.order)
        adj = adjudicate(variant, state, orders)
        if not orders:
            out("  (no orders)")
        for r in adj.results:
            why = f" ({r.reason})" if r.reason else ""
            out(f"  {r.order.power}: {r.order}  -> {r.result.value}{why}")
        for d in adj.dislodged.values():
            where = ", ".join(d.retreats) if d.retreats else "nowhere: destroyed"
            out(f"  dislodged: {d.unit.power} {d.unit}, may retreat to {where}")
        for u in adj.disbanded:
            out(f"  disbanded: {u.power} {u}")
        state = adj.state
        _position(variant, state, out, centres=state.phase.kind is not PhaseKind.RETREAT and label.startswith(("Fall", "Winter")))
        if adj.winner:
            out(f"  {adj.winner} has won.")
            return state
        if label == stop:
            return state


def _position(variant: Variant, state: GameState, out: Callable[[str], None], centres: bool) -> None:
    out("  position:")
    for power in variant.great_powers:
        units = ", ".join(sorted(str(u) for u in state.units_of(power))) or "-"
        line = f"    {power:8} {units}"
        if centres:
            line += f"   [{len(state.centres_of(power))} centres]"
        out(line)
    out("")


def run_demo() -> int:
    import asyncio

    from gm.demo_mail import run_mail_demo

    print("Part 1: the judge by mail\n")
    asyncio.run(run_mail_demo())
    variant = load_variant("standard")
    print(f"\nPart 2: {variant.title}, a scripted game of two years, adjudicated by gm's engine.\n")
    play(variant, variant.initial_state())
    return 0
