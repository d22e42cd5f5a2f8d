"""The games' web pages: every game's history as static files (HTML and PNG, no JavaScript) that
any web server can publish, with no secret on them. paths.py says where each page lives, pages.py
what a page shows (the public results only), writer.py writes a game's folder, publish.py keeps
the folder up to date inside `gm serve` and serves it over HTTP when asked."""
