"""The order words of each language players write orders in: English, French, German, Italian.

A reader's words are their language's and English's; where one word means two things, their
language's meaning wins. Words are written here as the hobby writes them, accents and all: the
tokenizer folds them ('Armée' and 'armee' are one word). The names of provinces and powers in each
language are a variant's data (maps/<variant>/languages/<code>.toml), not these.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from gm.engine.model import UnitType
from gm.engine.notation import words as en
from gm.engine.notation.words import tokens

LANGUAGES = ("en", "fr", "de", "it")

# Each language's own words, beside English's. 'to' is a word that may follow a move word ('zieht
# nach', 'va à'); 'coast_first' a word for coast written before its direction ('côte nord').
# Single letters are only those the hobby uses: Italian has no 'F' for hold (F is the fleet), German
# no 'A' for disband (A is the army).
OWN_WORDS: dict[str, dict[str, tuple[str, ...]]] = {
    "fr": {
        "army": ("armée",), "fleet": ("flotte",),
        "hold": ("T", "tient", "tenir", "tiens", "reste", "stationne"),
        "move": ("vers", "va", "attaque", "avance", "déplace", "déplacement", "mouvement"),
        "to": ("à", "vers", "sur"),
        "support": ("soutient", "soutien", "soutenir", "soutiens", "sout"),
        "convoy": ("convoie", "convoi", "convoyer", "convoyé", "conv"),
        "via": ("par",),
        "via_convoy": ("convoi",),
        "retreat": ("retraite", "recule"),
        "disband": ("dissout", "dissous", "dissoudre", "dissolution", "licencie", "licencier"),
        "remove": ("supprime", "supprimer", "suppression", "enlève", "enlever"),
        "build": ("construit", "construire", "construis", "construction", "crée"),
        "waive": ("renonce", "renoncer", "renonciation"),
        "coast": ("côte",), "coast_first": ("côte",),
    },
    "de": {
        "army": ("Armee",), "fleet": ("Flotte",),
        "hold": ("halt", "hält", "halten", "halte", "haelt", "steht", "bleibt"),
        "move": ("nach", "zieht", "ziehen", "bewegt", "bewegen"),
        "to": ("nach", "zu"),
        "support": ("U", "unt", "ust", "unterst", "unterstützt", "unterstuetzt", "unterstützen",
                    "unterstuetzen", "unterstützung", "unterstuetzung"),
        "convoy": ("K", "konv", "Konvoi", "konvoiert", "konvoieren", "transportiert"),
        "via": ("per", "über", "ueber"),
        "via_convoy": ("Konvoi", "K", "konv"),
        "retreat": ("Rückzug", "Rueckzug", "zurück", "zurueck"),
        "disband": ("auflösen", "aufloesen", "Auflösung", "Aufloesung", "aufgelöst", "aufgeloest"),
        "remove": ("entfernen", "entfernt", "entferne", "Entfernung"),
        "build": ("bau", "baue", "baut", "bauen", "Aufbau", "aufbauen"),
        "waive": ("Verzicht", "verzichte", "verzichtet", "verzichten"),
        "coast": ("Küste", "Kueste"), "coast_first": ("Küste", "Kueste"),
    },
    "it": {
        "army": ("armata", "esercito"), "fleet": ("flotta",),
        "hold": ("ferma", "fermo", "resta", "tiene", "sta"),
        "move": ("muove", "muovi", "va", "verso", "attacca", "mossa", "movimento"),
        "to": ("a", "in", "verso"),
        "support": ("sostiene", "sostieni", "sostegno", "supporta", "supporto", "appoggia", "sost"),
        "convoy": ("convoglia", "convoglio", "convogliare", "trasporta", "conv"),
        "via": ("tramite", "per"),
        "via_convoy": ("convoglio",),
        "retreat": ("ritira", "ritirata", "ritirati", "ritirarsi"),
        "disband": ("sciogli", "scioglie", "sciogliere", "scioglimento", "sciolta", "congeda"),
        "remove": ("rimuovi", "rimuove", "rimozione", "elimina"),
        "build": ("costruisci", "costruisce", "costruire", "costruzione", "crea"),
        "waive": ("rinuncia", "rinuncio", "rinunciare"),
        "coast": ("costa",), "coast_first": ("costa",),
    },
}
_DIRECTIONS = {
    "fr": {"nord": "N", "sud": "S", "est": "E", "ouest": "W"},
    "de": {"nord": "N", "süd": "S", "sued": "S", "ost": "E", "west": "W"},
    "it": {"nord": "N", "sud": "S", "est": "E", "ovest": "W"},
}
# A coast as each language abbreviates it: French 'côte nord' CN, German 'Nordküste' NK.
COAST_CODES = {
    "fr": {"NC": "CN", "SC": "CS", "EC": "CE", "WC": "CO"},
    "de": {"NC": "NK", "SC": "SK", "EC": "OK", "WC": "WK"},
    "it": {"NC": "CN", "SC": "CS", "EC": "CE", "WC": "CO"},
}
# German writes a coast as one word: 'Nordküste', 'Suedkueste'.
_COAST_COMPOUNDS = {"de": {f"{d}{k}": c for c, ds in (("NC", ("nord",)), ("SC", ("süd", "sued")),
                                                     ("EC", ("ost",)), ("WC", ("west",)))
                           for d in ds for k in ("küste", "kueste")}}

# The words an order is written with in each language, for the canonical form's ('A PAR H'): the
# hobby's letters where it has them, else the word.
SPELLING = {
    "fr": {"H": "T", "S": "S", "C": "C", "R": "R", "D": "D", "Build": "Construit", "Waive": "Renonce",
           "VIA CONVOY": "PAR CONVOI"},
    "de": {"H": "H", "S": "U", "C": "K", "R": "R", "D": "Auflösen", "Build": "Baue", "Waive": "Verzicht",
           "VIA CONVOY": "PER KONVOI"},
    "it": {"H": "Ferma", "S": "S", "C": "C", "R": "R", "D": "Sciogli", "Build": "Costruisci", "Waive": "Rinuncia",
           "VIA CONVOY": "VIA CONVOGLIO"},
}


@dataclass(frozen=True)
class Words:
    """The order words one reader understands."""

    types: dict[str, UnitType]
    hold: frozenset[str]
    move: frozenset[str]
    to: frozenset[str]
    support: frozenset[str]
    convoy: frozenset[str]
    via: frozenset[str]
    via_convoy: frozenset[str]
    retreat: frozenset[str]
    disband: frozenset[str]
    remove: frozenset[str]
    build: frozenset[str]
    waive: frozenset[str]
    directions: dict[str, str]  # 'north', 'n', 'nord' -> 'N'
    coasts: frozenset[str]  # the word for coast: 'coast', 'côte'
    coast_first: frozenset[str]  # ... where it comes before the direction
    coast_codes: dict[str, str]  # 'cn' -> 'NC'
    keywords: frozenset[str]
    suggest: tuple[str, ...]  # long words a misspelt one may be suggested as


ENGLISH = Words(
    types=en.TYPES, hold=en.HOLD, move=en.MOVE, to=en.TO, support=en.SUPPORT, convoy=en.CONVOY, via=en.VIA,
    via_convoy=en.VIA_CONVOY, retreat=en.RETREAT, disband=en.DISBAND, remove=en.REMOVE, build=en.BUILD,
    waive=en.WAIVE, directions=en.DIRECTIONS, coasts=frozenset({"coast"}), coast_first=frozenset(),
    coast_codes={}, keywords=en.KEYWORDS, suggest=tuple(en.SUGGEST))

_ORDER_WORDS = ("hold", "move", "support", "convoy", "via", "retreat", "disband", "remove", "build", "waive")


def fold(word: str) -> str:
    """A word as the tokenizer reads it: 'Rückzug' -> 'ruckzug'."""
    return " ".join(t.key for t in tokens(word))


def vocabulary(language: str) -> Words:
    """The words a reader of `language` understands; a language without order words here
    ('en', or one not known) reads English only."""
    return _vocabulary(language) if language in OWN_WORDS else ENGLISH


@cache
def _vocabulary(language: str) -> Words:
    own = {kind: frozenset(fold(w) for w in ws) for kind, ws in OWN_WORDS[language].items()}
    types = {w: UnitType.ARMY for w in own["army"]} | {w: UnitType.FLEET for w in own["fleet"]}
    mine = frozenset().union(*(own[k] for k in _ORDER_WORDS), types)

    def both(kind: str) -> frozenset[str]:
        # An English word this language uses for something else means that here.
        english: frozenset[str] = getattr(ENGLISH, kind)
        return own.get(kind, frozenset()) | {w for w in english if w not in mine or w in own.get(kind, ())}

    sets = {kind: both(kind) for kind in _ORDER_WORDS}
    # Words that only follow another never clash with one: 'zieht nach', 'par convoi'.
    sets.update({kind: own[kind] | getattr(ENGLISH, kind) for kind in ("to", "via_convoy")})
    directions = {**ENGLISH.directions, **{fold(w): d for w, d in _DIRECTIONS[language].items()}}
    codes = {fold(code): canonical for canonical, code in COAST_CODES[language].items()}
    codes.update({fold(w): c for w, c in _COAST_COMPOUNDS.get(language, {}).items()})
    keywords = frozenset().union(*(sets[k] for k in _ORDER_WORDS))
    all_types = {**{w: t for w, t in ENGLISH.types.items() if w not in mine or w in types}, **types}
    return Words(
        types=all_types, **sets, directions=directions,
        coasts=ENGLISH.coasts | own["coast"], coast_first=own["coast_first"], coast_codes=codes,
        keywords=keywords, suggest=tuple(sorted(k for k in keywords | set(all_types) if len(k) >= 4)))


def spell_word(language: str, word: str) -> str:
    """A word of the canonical form ('H', 'Build', 'VIA CONVOY') as `language` writes it."""
    return SPELLING.get(language, {}).get(word, word)


def spell_coast(language: str, coast: str) -> str:
    """'NC' -> 'CN' in French."""
    return COAST_CODES.get(language, {}).get(coast, coast)
