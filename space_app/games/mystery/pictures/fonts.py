"""The one font every image clue uses: Pillow's built-in Aileron (`ImageFont.load_default(size)`).

Why not a system font: the built-in font ships inside Pillow, so the same Pillow version draws
the same pixels on every machine, and regenerated PNGs match the shipped ones byte for byte
(PNG compression comes from the zlib Pillow is built with, also fixed by its version).
It covers printable ASCII only; drawings.py refuses other characters."""

from __future__ import annotations

from functools import lru_cache

from PIL import ImageFont


@lru_cache(maxsize=64)
def font(size: int) -> ImageFont.FreeTypeFont:
    loaded = ImageFont.load_default(size=size)
    if not isinstance(loaded, ImageFont.FreeTypeFont):  # Pillow built without FreeType
        raise RuntimeError("image clues need Pillow with FreeType support (ImageFont.load_default(size=...))")
    return loaded


def text_width(text: str, size: int) -> float:
    return font(size).getlength(text)
