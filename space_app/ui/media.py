"""Images in transcripts: an event's image references (e.g. a murder script's image clues)
become small inline thumbnails, resolved to files by the match's game (`GameSpec.image_file`).
Inline data, not file routes: no folder has to be opened to the web server, and a reference
the game does not know shows as text."""

from __future__ import annotations

import base64
import io
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

from PIL import Image

from ..games import GameSpec

THUMB_WIDTH = 560  # px: readable text on a clue, small enough to resend with every step


@lru_cache(maxsize=128)
def _thumbnail(path: str, mtime: float) -> str:
    with Image.open(path) as img:
        img = img.convert("RGB")
        if img.width > THUMB_WIDTH:
            img = img.resize((THUMB_WIDTH, round(img.height * THUMB_WIDTH / img.width)), Image.LANCZOS)
        out = io.BytesIO()
        img.save(out, format="JPEG", quality=82, optimize=True)
    return "data:image/jpeg;base64," + base64.b64encode(out.getvalue()).decode("ascii")


def thumbnail(path: Path) -> str | None:
    """A data URL of a scaled-down copy of the image file, or None if it cannot be read."""
    try:
        return _thumbnail(str(path), path.stat().st_mtime)
    except (OSError, ValueError):
        return None


def image_resolver(spec: GameSpec) -> Callable[[str], str | None] | None:
    """ref -> thumbnail data URL for the game's image references, or None (no images)."""
    if spec.image_file is None:
        return None
    resolve = spec.image_file

    def to_url(ref: str) -> str | None:
        path = resolve(ref)
        return thumbnail(path) if path is not None else None

    return to_url


__all__ = ["THUMB_WIDTH", "image_resolver", "thumbnail"]
