"""The mail channel: reading what players and GMs send (message, mime, reply_text, provenance, dkim,
auth, ingest, inbox), the command language (commands/: one module a command, and what they share
in commands/context.py, below them), and what the judge sends (game_mail, press, reply, confirm,
budget, outbox).

It renders the view of a game (gm.view) and may import everything below it (the game's life, the
store, the maps, the settings), never the pages (gm.web), its sibling channel."""
