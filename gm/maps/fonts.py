"""The one typeface of the maps: the scalable font Pillow ships (no system font needed)."""
from __future__ import annotations

from functools import cache

from PIL import ImageFont


@cache
def font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size)
