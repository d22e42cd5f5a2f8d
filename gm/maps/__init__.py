"""Map art and map pictures.

geography.py and check.py build a variant's board from real coastlines and check it against the
rules (build time, the `mapbuild` extra); build.py writes the art the judge reads (art.py); render.py
draws a position with its orders on it, with Pillow alone; store.py keeps each picture drawn,
once for every channel.

It imports the engine, the variants, the store and the game's life, never a channel (gm.mail,
gm.web), which both draw through it."""
