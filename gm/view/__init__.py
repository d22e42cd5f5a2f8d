"""One view of a game for every reader, below every channel: who reads and what each reader may
know (reader.py: a player of a power, the GM, or a reader of no power; the secrecy boundary), what
a reader is shown of a game and its phases (the public results, a deadline, a phase's name, the
game's press), where each
phase is published, and where the texts are that every channel renders. The results mail
(gm.mail) and the game's pages (gm.web) are two channels over it, siblings: neither imports the
other, and neither computes what a reader may see.

It imports the engine, the variants, the store and the game's life (gm.lifecycle, gm.games) only.
"""
