"""Map art and map pictures.

geography.py and check.py build a variant's board from real coastlines and check it against the
rules (build time, the `mapbuild` extra); build.py writes the art the judge reads (art.py); render.py
draws a position with its orders on it, with Pillow alone."""
