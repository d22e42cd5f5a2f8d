"""The games' web pages: every game's history as static files (HTML and PNG, no JavaScript) that
any web server can publish, with no secret on them. pages.py says what a page shows (the public
view of gm.view, which also says where each page lives), writer.py writes a game's folder,
publish.py keeps the folder up to date inside `gm serve` and serves it over HTTP when asked.

A channel beside the mail (gm.mail), never importing it: both render the view of a game."""
