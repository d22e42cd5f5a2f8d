"""The typefaces of the maps: the scalable font Pillow ships (no system font needed), which has
the ASCII letters only; for words with others (a map drawn in French or German), DejaVu Sans
where the system has it (Debian's fonts-dejavu-core), else the words without their accents."""
from __future__ import annotations

import unicodedata
from functools import cache
from pathlib import Path

from PIL import ImageFont

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont
_UNICODE_FONTS = ("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
                  "/usr/share/fonts/dejavu/DejaVuSans.ttf", "/usr/share/fonts/TTF/DejaVuSans.ttf")


@cache
def font(size: int) -> Font:
    return ImageFont.load_default(size=size)


@cache
def _unicode_font(size: int) -> Font | None:
    path = next((p for p in _UNICODE_FONTS if Path(p).exists()), None)
    return ImageFont.truetype(path, size) if path else None


def fitting(text: str, size: int) -> tuple[str, Font]:
    """`text` and a typeface that draws it: the default one for ASCII (the maps in English look
    as they always have), a Unicode one for other letters, or the text without its accents."""
    if text.isascii():
        return text, font(size)
    unicode_font = _unicode_font(size)
    return (text, unicode_font) if unicode_font is not None else (drawable(text), font(size))


# The letters the typeface lacks that lose more than an accent.
_SPELLED = {"ß": "ss", "ẞ": "SS", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ø": "o", "Ø": "O", "ł": "l", "Ł": "L",
            "\u2013": "-", "\u2014": "-", "\u00a0": " ", "\u202f": " "}


def drawable(text: str) -> str:
    """`text` as the default typeface can draw it: 'Frühling' -> 'Fruhling', 'Résultats' -> 'Resultats'."""
    if text.isascii():
        return text
    plain = "".join(_SPELLED.get(c, c) for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return "".join(c if c.isascii() or c in "‘’“”«»…°" else "?" for c in plain)
